"""`tfdebug open FILE`: the debugger window replaying a snapshot."""

from __future__ import annotations

import argparse


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Add `tfdebug open`'s options to `parser`."""
    parser.add_argument("file", metavar="FILE", help="a .safetensors snapshot")
    parser.add_argument("--goto", metavar="STAGE", default=None, help="show this stage first")
    parser.add_argument("--screenshot", metavar="PNG", default=None,
                        help="save a picture of the window at --goto (or the first stage) and exit")


def run(args: argparse.Namespace) -> int:
    """Open the debugger window replaying a snapshot (or save its screenshot); returns the exit status."""
    from tfdebug.io.snapshot import read_manifest

    # A bad file is reported here, as one sentence, before any window opens.
    doc = read_manifest(args.file)
    goto = args.goto
    if goto is not None and goto not in {s["name"] for s in doc["stages"]}:
        from tfdebug.core.errors import UnknownStageError
        raise UnknownStageError(f"There is no stage named '{goto}' in {args.file}.")
    if args.screenshot is not None:
        from tfdebug.core.errors import ExportError
        from tfdebug.io.atomic import check_output

        # Refused before any window opens: the snapshot itself, a link, a pipe or a device.
        check_output(args.screenshot, ExportError, inputs=(args.file,))
        goto = goto if goto is not None else doc["stages"][0]["name"]
    from tfdebug.ui.shell.system_check import check_gui_can_start

    check_gui_can_start()  # before Qt loads: a missing library is a sentence, not a core dump
    from tfdebug.ui.app import run_app

    return int(run_app(open_path=args.file, goto=goto, screenshot=args.screenshot) or 0)
