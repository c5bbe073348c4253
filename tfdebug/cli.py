"""`tfdebug` entry point: subcommands gui (default), stages, capture, open, info, diff, translate, generate,
bench, serve.

Each subcommand lives in tfdebug.commands.<name> and is imported only when used, so
the console commands never load Qt.
"""

from __future__ import annotations

import argparse
import errno
import importlib
import importlib.util
import io
import logging
import os
import sys

from tfdebug import __version__
from tfdebug.core.errors import TfdebugError
from tfdebug.core.safe_text import terminal_safe

# name -> (module, one-line help)
COMMANDS: dict[str, tuple[str, str]] = {
    "gui": ("tfdebug.commands.gui", "open the debugger window (the default)"),
    "stages": ("tfdebug.commands.stages", "run one forward and print the table of captured stages"),
    "capture": ("tfdebug.commands.capture", "capture a forward pass headless into a snapshot file"),
    "open": ("tfdebug.commands.open", "open a snapshot in the debugger window (replay)"),
    "info": ("tfdebug.commands.info", "validate a snapshot and summarise it"),
    "lens": ("tfdebug.commands.lens", "run one forward and print the logit lens: each layer's residual read out as "
                                      "the model's prediction"),
    "attribute": ("tfdebug.commands.attribute", "run one forward and split a logit difference into the "
                                                "embeddings, every head, every block and the biases"),
    "patch": ("tfdebug.commands.patch", "activation patching: put a clean pass's residual cells into a corrupted "
                                        "pass one at a time and measure what comes back"),
    "backward": ("tfdebug.commands.backward", "run one forward and its backward: every stage's gradient in "
                                              "backward order, the first that is not finite"),
    "diff": ("tfdebug.commands.diff", "compare two recorded passes stage by stage: the first stage where they diverge"),
    "translate": ("tfdebug.commands.translate", "print the model's greedy translation of a sentence"),
    "generate": ("tfdebug.commands.generate", "generate token by token (KV cache), optionally into a snapshot"),
    "bench": ("tfdebug.commands.bench", "measure capture overhead, step latency, memory, snapshot speed"),
    "serve": ("tfdebug.commands.serve", "run a model for a window on another machine to step through (loopback + ssh -L)"),
}


def _available(name: str) -> bool:
    """Whether the command's module is installed, found without importing it."""
    return importlib.util.find_spec(COMMANDS[name][0]) is not None


def _load(name: str):
    module, _ = COMMANDS[name]
    try:
        return importlib.import_module(module)
    except ModuleNotFoundError as exc:
        if exc.name == module:
            return None
        raise


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The argument parser; only `command`'s module is imported and given its arguments.

    Importing a command module may import torch (1–2 s), so `tfdebug --help` imports
    none and `tfdebug info FILE` only the info command's. None loads every command.
    """
    from tfdebug.commands.arguments import Parser

    parser = Parser(prog="tfdebug", description="Step through a Transformer's forward pass.")
    parser.add_argument("--version", action="version", version=f"tfdebug {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, (_, help_text) in COMMANDS.items():
        if command is not None and name != command:
            if _available(name):
                sub.add_parser(name, help=help_text, description=help_text)
            continue
        module = _load(name)
        if module is None:
            continue
        parser_of_command = sub.add_parser(name, help=help_text, description=help_text)
        module.add_arguments(parser_of_command)
        parser_of_command.set_defaults(_module=module)
    return parser


class _OutputLost(Exception):
    """Standard output cannot be written (a full disk, a closed pipe); carries the OSError."""


class _GuardedStdout:
    """sys.stdout for the length of a command: a failed write becomes _OutputLost, wherever it happens,
    and text from files (tokens, names) reaches the terminal escaped: only newlines and tabs act."""

    def __init__(self, stream):
        self._stream = stream

    def write(self, text):
        try:
            return self._stream.write(terminal_safe(text, keep="\n\t"))
        except OSError as exc:
            raise _OutputLost() from exc

    def flush(self):
        try:
            self._stream.flush()
        except OSError as exc:
            raise _OutputLost() from exc

    def __getattr__(self, name):
        return getattr(self._stream, name)


def _output_sentence(exc: OSError) -> tuple[str | None, int]:
    """What to say when stdout failed, and the exit status. A reader that left (`tfdebug info F | head`)
    is not a failure and, as with other command-line tools, nothing is said."""
    if isinstance(exc, BrokenPipeError):
        return None, 0
    if exc.errno in (errno.ENOSPC, getattr(errno, "EDQUOT", -1)):
        return "the output could not be written: the disk is full.", 2
    return f"the output could not be written: {(exc.strerror or 'write error').lower()}.", 2


def _discard_stdout(stream) -> None:
    """Point the stdout descriptor at the null device, so the flush at exit cannot fail again."""
    try:
        os.dup2(os.open(os.devnull, os.O_WRONLY), stream.fileno())
    except (OSError, ValueError, AttributeError, io.UnsupportedOperation):
        pass  # not a real file (a test's capture): nothing is flushed at exit


class _SafeFormatter(logging.Formatter):
    """A log line whose message (it may name files) is escaped onto one line."""

    def format(self, record: logging.LogRecord) -> str:
        return terminal_safe(super().format(record))


def _say(sentence: str) -> None:
    """`tfdebug: sentence` on stderr; a stderr that cannot be written (`2>/dev/full`, closed) loses only the line."""
    try:
        print(f"tfdebug: {sentence}", file=sys.stderr, flush=True)
    except (OSError, ValueError):
        _discard_stderr()


def _discard_stderr() -> None:
    """Point the stderr descriptor at the null device, so the flush at exit cannot fail again."""
    try:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stderr.fileno())
    except (OSError, ValueError, AttributeError, io.UnsupportedOperation):
        pass


def _log_to_stderr() -> None:
    """Warnings of the `tfdebug` logger (e.g. stale temporary files removed) as 'tfdebug: ...' lines."""
    log = logging.getLogger("tfdebug")
    if not log.handlers:
        handler = logging.StreamHandler()
        handler.setFormatter(_SafeFormatter("tfdebug: %(message)s"))
        log.addHandler(handler)
        log.setLevel(logging.WARNING)
        log.propagate = False


def main(argv: list[str] | None = None) -> int:
    """Run one subcommand; every failure a user can cause is one sentence on stderr (exit 2)."""
    _log_to_stderr()
    if hasattr(sys.stderr, "reconfigure"):  # a sentence holding a lone surrogate is written, not a traceback
        sys.stderr.reconfigure(errors="backslashreplace")
    real = sys.stdout
    sys.stdout = _GuardedStdout(real)
    try:
        code = _main(argv)
        sys.stdout.flush()
        return code
    except _OutputLost as lost:
        _discard_stdout(real)
        sentence, code = _output_sentence(lost.__cause__)
        if sentence is not None:
            _say(sentence)
        return code
    finally:
        sys.stdout = real


def _main(argv: list[str] | None) -> int:
    from tfdebug.commands.arguments import argv_problem

    argv = list(sys.argv[1:] if argv is None else argv)
    problem = argv_problem(argv)
    if problem:
        _say(problem)
        return 2
    if not argv or argv[0].startswith("-") and argv[0] not in ("-h", "--help", "--version"):
        argv = ["gui", *argv]
    parser = build_parser(argv[0] if argv[0] in COMMANDS else "")
    args = parser.parse_args(argv)
    try:
        from tfdebug.commands.common import check_input_arguments, check_model_argument

        check_model_argument(args)  # before torch: a mistyped model is answered in a fraction of a second
        check_input_arguments(args)  # and a malformed --input before the model loads
        if getattr(args._module, "TUNE_ALLOCATOR", True):
            # The application's explicit opt-in (the library never does this on its own).
            from tfdebug.core.memory import keep_freed_memory

            keep_freed_memory()
        return int(args._module.run(args) or 0)
    except TfdebugError as exc:
        # Whatever a file or argument put into the sentence reaches the terminal escaped, on one line.
        _say(terminal_safe(exc.message))
        return 2
    except KeyboardInterrupt:
        return 130
    finally:
        _let_checks_finish()


def _let_checks_finish() -> None:
    """Wait for checks a command left running in the background (only if a session was made)."""
    session = sys.modules.get("tfdebug.sessions.session")
    if session is not None:
        session.wait_for_checks()
