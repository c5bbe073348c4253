"""core.safe_text: any text from a file or argv made safe for a terminal; everything else left alone."""

from __future__ import annotations

import pytest

from tfdebug.core.safe_text import has_unsafe, terminal_safe

HOSTILE = ["\x1b[2J", "\x1b]0;title\x07", "a\nb", "\r", "\x00", "\x7f", "\x9b31m", "\u202egnp.exe", "\u2028",
           "\udcff", "\ud800"]


@pytest.mark.parametrize("text", HOSTILE, ids=repr)
def test_terminal_safe_leaves_nothing_a_terminal_acts_on(text):
    safe = terminal_safe("x" + text + "y")
    assert not has_unsafe(safe) and safe.startswith("x") and safe.endswith("y")
    safe.encode("ascii" if text.isascii() else "utf-8")  # printable under a strict encoder


def test_terminal_safe_keeps_every_script_and_cuts_long_text():
    assert terminal_safe("我 爱 你 ñ 🙂 Ωμέγα") == "我 爱 你 ñ 🙂 Ωμέγα"
    assert terminal_safe("a" * 50, 10) == "a" * 10 + "…"
    assert terminal_safe("a\tb\nc\x1b", keep="\n\t") == "a\tb\nc\\x1b"
