"""The window asks no question about the kind of pass it shows (issue 49): it reads its source's `Capabilities`
(`ctl.capabilities`) and calls the source's methods, never `runs_elsewhere`, a bare `tensors_here`, whether a
session or an adapter is None, or `hasattr` of a session. This reads every file of tfdebug/ui for those
questions; the few left are listed below, each with why it is not about the kind of pass.

Of the capabilities, two say *where* a pass is rather than what it can do: `tensors_here` (its tensors are in
this process) and `passes_there` (new passes of its model are made where it runs). The rule for them: the ui
reads them only to decide whether something applies — inside an action's `enabled=` predicate — and never to
pick between a local and a served way of doing the same thing, which is a `PassSource` (or `PassDisplay`)
method with one implementation of each. Any other line that reads them fails here unless it is in
`WHERE_ALLOWED` with its reason; that list is the seam's remaining debt, to shrink, not to grow."""

from __future__ import annotations

import re
from pathlib import Path

UI = Path(__file__).resolve().parents[2] / "tfdebug" / "ui"

QUESTIONS = re.compile(
    r"runs_elsewhere"
    r"|(?<!capabilities\.)(?<!`capabilities\.)\btensors_here\b"
    r"|(?<!capabilities\.)\bmodel_here\b"
    r"|\bsession is (not )?None\b"
    r"|\badapter is (not )?None\b"
    r"|\bhasattr\("
    r"|getattr\([^,]*, \"adapter\""
)

#: (file relative to tfdebug/ui, the line's text as it stands) → why it is not a question about the kind of pass
ALLOWED: dict[tuple[str, str], str] = {
    ("shell/system_check.py", 'root = (hasattr(os, "geteuid") and os.geteuid() == 0) if root is None else root'):
        "the operating system's, not the pass's: Windows has no geteuid",
    ("shell/window.py", 'if hasattr(self, "view_menu"):  # docks added after the menus (Compare, Overview, Capture, '
                        'Explain)'):
        "the window's own construction order: a dock added before the View menu is built",
    ("panels/heatmap.py", 'name = cmap.name if hasattr(cmap, "name") else str(cmap)'):
        "a colour map's name (matplotlib's or a plain string), not the pass",
}

#: reading `capabilities.tensors_here` or `capabilities.passes_there` (the where of a pass)
WHERE = re.compile(r"capabilities\.(tensors_here|passes_there)\b")

#: (file relative to tfdebug/ui, the line's text as it stands) → why it still reads where the pass is
WHERE_ALLOWED: dict[tuple[str, str], str] = {
}

#: files that are the served pass's connection itself: their `session` is the connection's attached pass (whether
#: the window holds one, and whether it is the one on screen), not a question about the kind of pass on screen
CONNECTION_FILES = {"remote/connection.py"}


def questions() -> list[tuple[str, int, str]]:
    """(file, line number, line) of every question about the kind of pass in tfdebug/ui not allowed above."""
    found = []
    for path in sorted(UI.rglob("*.py")):
        name = path.relative_to(UI).as_posix()
        if name in CONNECTION_FILES:
            continue
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if QUESTIONS.search(line) and (name, line.strip()) not in ALLOWED:
                found.append((name, number, line.strip()))
    return found


def test_the_window_asks_no_question_about_the_kind_of_pass():
    assert questions() == [], "ask the source's capabilities or call a PassSource method instead"


def where_read() -> list[tuple[str, int, str]]:
    """(file, line number, line) of every read of `tensors_here` / `passes_there` in tfdebug/ui outside an
    action's `enabled=` predicate and not in `WHERE_ALLOWED`."""
    found = []
    for path in sorted(UI.rglob("*.py")):
        name = path.relative_to(UI).as_posix()
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            match = WHERE.search(line)
            if match and "enabled=" not in line[:match.start()] and (name, line.strip()) not in WHERE_ALLOWED:
                found.append((name, number, line.strip()))
    return found


def test_the_window_reads_where_a_pass_is_only_to_enable():
    assert where_read() == [], ("pick between a local and a served way through a PassSource or PassDisplay method; "
                                "read `tensors_here` / `passes_there` only in an action's `enabled=`")


def test_every_allowed_line_is_still_there():
    """An allow-list entry whose line went is dropped, so the list stays the few lines that need it."""
    lines = {(p.relative_to(UI).as_posix(), line.strip()) for p in UI.rglob("*.py")
             for line in p.read_text(encoding="utf-8").splitlines()}
    assert not [key for key in ALLOWED if key not in lines]
    assert not [key for key in WHERE_ALLOWED if key not in lines]
    assert all((UI / name).is_file() for name in CONNECTION_FILES)


def test_the_patterns_find_what_they_are_for():
    """The grep is not vacuous: each question it stands for is found in a line written that way."""
    for line in ("if self.ctl.runs_elsewhere():", "if source.tensors_here:", "if ctl.session is None:",
                 "x = a if adapter is not None else b", 'hasattr(session, "verify")',
                 'getattr(session, "adapter", None)', "if source.model_here:"):
        assert QUESTIONS.search(line), line
    for line in ("if source.capabilities.tensors_here:", "ctl.capabilities.model_here",
                 "(its source's `capabilities.tensors_here` is False"):
        assert not QUESTIONS.search(line), line
    assert WHERE.search("if ctl.capabilities.passes_there:") and WHERE.search("source.capabilities.tensors_here")
    assert not WHERE.search("ctl.capabilities.reruns_here")
