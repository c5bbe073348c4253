"""`tfdebug open FILE`: the debugger window replaying a snapshot."""

from __future__ import annotations

import argparse


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file", metavar="FILE", help="a .safetensors snapshot")


def run(args: argparse.Namespace) -> int:
    from tfdebug.io.snapshot import read_manifest

    # A bad file is reported here, as one sentence, before any window opens.
    read_manifest(args.file)
    from tfdebug.ui.app import run_app

    return int(run_app(open_path=args.file) or 0)
