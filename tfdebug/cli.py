"""`tfdebug` entry point: subcommands gui (default), stages, capture, open, info, translate, bench.

Each subcommand lives in tfdebug.commands.<name> and is imported only when used, so
the console commands never load Qt.
"""

from __future__ import annotations

import argparse
import importlib
import sys

from tfdebug import __version__
from tfdebug.core.errors import TfdebugError

# name -> (module, one-line help)
COMMANDS: dict[str, tuple[str, str]] = {
    "gui": ("tfdebug.commands.gui", "open the debugger window (the default)"),
    "stages": ("tfdebug.commands.stages", "run one forward and print the table of captured stages"),
    "capture": ("tfdebug.commands.capture", "capture a forward pass headless into a snapshot file"),
    "open": ("tfdebug.commands.open", "open a snapshot in the debugger window (replay)"),
    "info": ("tfdebug.commands.info", "validate a snapshot and summarise it"),
    "translate": ("tfdebug.commands.translate", "print the model's greedy translation of a sentence"),
    "bench": ("tfdebug.commands.bench", "measure capture overhead, step latency, memory, snapshot speed"),
}


def _load(name: str):
    module, _ = COMMANDS[name]
    try:
        return importlib.import_module(module)
    except ModuleNotFoundError as exc:
        if exc.name == module:
            return None
        raise


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="tfdebug", description="Step through a Transformer's forward pass.")
    parser.add_argument("--version", action="version", version=f"tfdebug {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, (_, help_text) in COMMANDS.items():
        module = _load(name)
        if module is None:
            continue
        command = sub.add_parser(name, help=help_text, description=help_text)
        module.add_arguments(command)
        command.set_defaults(_module=module)
    return parser


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser()
    if not argv or argv[0].startswith("-") and argv[0] not in ("-h", "--help", "--version"):
        argv = ["gui", *argv]
    args = parser.parse_args(argv)
    if getattr(args._module, "TUNE_ALLOCATOR", True):
        # The application's explicit opt-in (the library never does this on its own).
        from tfdebug.core.memory import keep_freed_memory

        keep_freed_memory()
    try:
        return int(args._module.run(args) or 0)
    except TfdebugError as exc:
        print(f"tfdebug: {exc.message}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        # The reader went away (`tfdebug info FILE | head`): not an error worth a traceback.
        import os

        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
