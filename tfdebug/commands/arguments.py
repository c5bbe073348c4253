"""Checking what the command line gives before any of it is used.

argv is text from anyone: bytes that are not UTF-8 arrive as lone surrogates (which no
strict encoder can print or save), numbers can be nan, inf or 1e400, and argparse's own
error echoes the raw argument. Each problem is one `tfdebug: …` sentence and exit 2.
"""

from __future__ import annotations

import argparse
import math

from tfdebug.core.errors import InputError
from tfdebug.core.safe_text import terminal_safe


class Parser(argparse.ArgumentParser):
    """An ArgumentParser whose errors are one escaped sentence (subcommand parsers inherit it)."""

    def error(self, message: str):
        """Exit with status 2 and `message` as one escaped sentence pointing at --help."""
        self.exit(2, f"tfdebug: {terminal_safe(message)} (see `{terminal_safe(self.prog)} --help`).\n")


def argv_problem(argv: list[str]) -> str | None:
    """Why the command line cannot be used (an argument that is not valid UTF-8), or None."""
    for position, arg in enumerate(argv, start=1):
        try:
            arg.encode("utf-8")
        except UnicodeEncodeError:
            return (f"argument {position} ({terminal_safe(arg, 40)}) is not valid UTF-8 text; tfdebug takes "
                    "UTF-8 texts and file names.")
    return None


def finite_number(value: float | None, option: str, least: float = 0.0, most: float = math.inf,
                  unit: str = "") -> float | None:
    """`value` when it is a finite number in [least, most] (None passes); else InputError naming `option`."""
    if value is None:
        return None
    if not (math.isfinite(value) and least <= value <= most):
        bound = f"from {least:g} to {most:g}" if math.isfinite(most) else f"of {least:g} or more"
        raise InputError(f"{option} takes a finite number{unit} {bound}, not {value!r}.")
    return value
