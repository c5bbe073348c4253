"""Dependencies point one way: core, models and io never import Qt or pyqtgraph; core never imports models."""

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1] / "tfdebug"
QT = ("PySide6", "pyqtgraph", "PyQt5", "PyQt6", "qtpy")


def imports(path: Path) -> set[str]:
    names = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
    return names


@pytest.mark.parametrize("package", ["core", "models", "io"])
def test_no_qt_outside_ui(package):
    for path in (ROOT / package).rglob("*.py"):
        bad = [n for n in imports(path) if n.split(".")[0] in QT]
        assert not bad, f"{path} imports {bad}"


def test_core_depends_on_nothing_above_it():
    for path in (ROOT / "core").rglob("*.py"):
        bad = [n for n in imports(path) if n.startswith(("tfdebug.models", "tfdebug.io", "tfdebug.ui"))]
        assert not bad, f"{path} imports {bad}"
