"""The controller is no message bus and no wiring hub (issue 49): code outside `ui/state/controller.py` tells it
things through its named methods (`ctl.say`, `ctl.inform`, `ctl.fail`, `ctl.announce_state` …), never by
emitting its signals, and its constructor hands its parts objects (itself, typed by each part's Protocol), not
lambdas."""

from __future__ import annotations

import ast
import re
from pathlib import Path

UI = Path(__file__).resolve().parents[2] / "tfdebug" / "ui"
CONTROLLER = UI / "state" / "controller.py"

EMIT = re.compile(r"\bctl\.[A-Za-z_]+\.emit\(")

#: files another branch is rewriting (the backward views, issue 49's features): their emits go when it lands
PENDING: dict[str, str] = {}


def emits_outside() -> list[tuple[str, int, str]]:
    """(file, line number, line) of every `ctl.<signal>.emit(` in tfdebug/ui outside the controller's own file."""
    found = []
    for path in sorted(UI.rglob("*.py")):
        name = path.relative_to(UI).as_posix()
        if path == CONTROLLER or name in PENDING:
            continue
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if EMIT.search(line):
                found.append((name, number, line.strip()))
    return found


def test_no_signal_of_the_controller_is_emitted_outside_it():
    assert emits_outside() == [], "call the controller's method (say, inform, fail, announce_state …) instead"


def test_the_controllers_constructor_hands_around_no_lambda():
    tree = ast.parse(CONTROLLER.read_text(encoding="utf-8"))
    controller = next(node for node in tree.body if isinstance(node, ast.ClassDef) and node.name == "DebugController")
    init = next(node for node in controller.body if isinstance(node, ast.FunctionDef) and node.name == "__init__")
    lambdas = [node.lineno for node in ast.walk(init) if isinstance(node, ast.Lambda)]
    assert lambdas == [], f"lambdas in DebugController.__init__ at lines {lambdas}: hand the part an object"


def test_the_pending_files_are_still_there():
    """A pending entry whose file went is dropped, so the list stays what still needs it."""
    assert all((UI / name).is_file() for name in PENDING)
