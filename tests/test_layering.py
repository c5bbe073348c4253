"""Dependencies point one way (DESIGN.md's table); Qt and pyqtgraph appear only in tfdebug/ui.

Every `tfdebug.X` import in a module of package P must have X in ALLOWED[P]; any other
arrow fails, wherever in the module it is written (top level or inside a function).
"""

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1] / "tfdebug"
QT = ("PySide6", "pyqtgraph", "PyQt5", "PyQt6", "qtpy", "shiboken6")

# package -> the tfdebug packages it may import (itself is always allowed)
ALLOWED: dict[str, set[str]] = {
    "core": set(),
    "models": {"core"},
    "demo": {"models", "core"},
    "adapters": {"models", "core"},
    "io": {"core"},
    "sessions": {"adapters", "models", "io", "core"},
    "remote": {"sessions", "adapters", "models", "io", "core"},
    "ui": {"remote", "sessions", "adapters", "models", "io", "core"},
    "bench": {"sessions", "adapters", "models", "io", "core", "remote", "ui"},
    "commands": {"sessions", "adapters", "models", "io", "core", "remote", "ui", "bench", "demo"},
    "cli": {"commands", "core"},
    "__main__": {"cli"},
    "__init__": set(),
}
QT_FREE = ("core", "models", "demo", "adapters", "sessions", "io", "remote", "commands", "cli", "bench")


def imports(path: Path) -> set[str]:
    names = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
    return names


def package_of(path: Path, root: Path = ROOT) -> str:
    rel = path.relative_to(root)
    return rel.parts[0] if len(rel.parts) > 1 else rel.stem


def forbidden_arrows(path: Path, root: Path = ROOT) -> list[str]:
    """The imports of `path` that the table does not allow."""
    package = package_of(path, root)
    allowed = ALLOWED[package] | {package}
    bad = []
    for name in imports(path):
        parts = name.split(".")
        if parts[0] == "tfdebug" and len(parts) > 1 and parts[1] not in allowed and name != "tfdebug":
            bad.append(name)
        if parts[0] in QT and package in QT_FREE:
            bad.append(name)
    return bad


def modules():
    return sorted(ROOT.rglob("*.py"))


def test_every_package_is_in_the_table():
    assert {package_of(p) for p in modules()} <= set(ALLOWED)


@pytest.mark.parametrize("path", modules(), ids=lambda p: str(p.relative_to(ROOT)))
def test_imports_follow_the_table(path):
    assert not forbidden_arrows(path), f"{path.relative_to(ROOT)} imports {forbidden_arrows(path)}"


def test_the_check_catches_a_forbidden_arrow(tmp_path):
    """A deliberate break (core importing ui and Qt) is caught, so the table is really enforced."""
    (tmp_path / "tfdebug" / "core").mkdir(parents=True)
    bad = tmp_path / "tfdebug" / "core" / "bad.py"
    bad.write_text("from tfdebug.ui.shell.window import MainWindow\nimport PySide6\n", encoding="utf-8")
    assert sorted(forbidden_arrows(bad, tmp_path / "tfdebug")) == ["PySide6", "tfdebug.ui.shell.window"]


# Inside ui/: the rooms a room may not import (DESIGN.md: panels import no panels or dialogs).
UI = ROOT / "ui"
UI_FORBIDDEN: dict[str, set[str]] = {
    "panels": {"panels", "dialogs", "shell"},
    "widgets": {"panels", "dialogs", "shell"},
    "render": {"panels", "dialogs", "shell", "actions", "widgets", "state", "workers"},
    "i18n": {"panels", "dialogs", "shell", "actions", "widgets", "state", "workers"},
}


def ui_rooms_broken(path: Path, ui_root: Path = UI) -> list[str]:
    """The imports of a ui module that its room's rule forbids (a panel importing another panel …)."""
    rel = path.relative_to(ui_root)
    room = rel.parts[0] if len(rel.parts) > 1 else None
    forbidden = UI_FORBIDDEN.get(room, set())
    bad = []
    for name in imports(path):
        parts = name.split(".")
        if parts[:2] == ["tfdebug", "ui"] and len(parts) >= 3 and parts[2] in forbidden:
            bad.append(name)
    return bad


def test_ui_keeps_to_its_rooms():
    assert len([p for p in UI.glob("*.py")]) <= 6  # the rest lives in rooms
    broken = {str(p.relative_to(UI)): ui_rooms_broken(p) for p in sorted(UI.rglob("*.py")) if ui_rooms_broken(p)}
    assert not broken


def test_the_room_check_catches_a_panel_importing_a_panel(tmp_path):
    (tmp_path / "panels").mkdir()
    bad = tmp_path / "panels" / "bad.py"
    bad.write_text("from tfdebug.ui.panels.heatmap import HeatmapPanel\nfrom tfdebug.ui.render import colors\n",
                   encoding="utf-8")
    assert ui_rooms_broken(bad, tmp_path) == ["tfdebug.ui.panels.heatmap"]


def test_the_architecture_page_states_this_table():
    """docs/architecture.md's package table says exactly what ALLOWED enforces, remote and sessions included."""
    page = (ROOT.parent / "docs" / "architecture.md").read_text(encoding="utf-8")
    rows = {}
    for line in page.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 2 and cells[0].startswith("`") and cells[0].endswith("`"):
            allowed = cells[1].split(";")[0]
            rows[cells[0].strip("`")] = set() if allowed.startswith("nothing") else {
                part.strip().strip("`") for part in allowed.split(",")}
    assert rows == {package: allowed for package, allowed in ALLOWED.items()
                    if package not in ("cli", "__main__", "__init__")}

