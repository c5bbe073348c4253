"""Dependencies point one way (DESIGN.md's table); Qt and pyqtgraph appear only in tfdebug/ui.

Every `tfdebug.X` import in a module of package P must have X in ALLOWED[P]; any other
arrow fails, wherever in the module it is written (top level or inside a function).
"""

import ast
import re
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


# Inside ui/: rooms in layers, lowest first. A room imports rooms of lower layers only (and itself; a panel
# imports no other panel): no arrow up, none sideways, so no import circle crosses rooms. Found from the
# imports themselves: render and i18n import no room; the display worker and jobs only those; the
# controller and its parts (state) the workers; widgets the state; the action registry and its context
# (actions) the widgets; panels and dialogs register actions; each feature folder (ui/features/NAME/: its widgets,
# actions and `install`) builds on all of those and is a room of its own, so no feature imports another; the shell
# builds everything; app.py and the start-up probe (first_paint.py) times app.py. A module's own rooms are
# ui/ROOM/…, ui/features/NAME/… is room features.NAME; ui/NAME.py is room NAME.
UI = ROOT / "ui"
UI_LAYERS: list[tuple[str, ...]] = [
    ("__init__", "i18n", "render", "models"),
    ("workers",),
    ("state",),
    ("widgets",),
    ("actions",),
    ("panels",),
    ("dialogs", "remote"),
    ("features",),
    ("shell",),
    ("app",),
    ("first_paint",),
]
UI_LAYER = {room: n for n, rooms in enumerate(UI_LAYERS) for room in rooms}


def ui_room(path: Path, ui_root: Path = UI) -> str:
    rel = path.relative_to(ui_root)
    if rel.parts[0] == "features" and len(rel.parts) > 2:
        return f"features.{rel.parts[1]}"
    return rel.parts[0] if len(rel.parts) > 1 else rel.stem


def room_named(name: str) -> str | None:
    """The ui room of the module `name` (tfdebug.ui.ROOM…, tfdebug.ui.features.NAME… is features.NAME); None
    outside tfdebug.ui's rooms."""
    parts = name.split(".")
    if parts[:2] != ["tfdebug", "ui"] or len(parts) < 3:
        return None
    return f"features.{parts[3]}" if parts[2] == "features" and len(parts) > 3 else parts[2]


def layer_of(room: str) -> int | None:
    """The layer of a room (a feature folder's is the features layer); None for a room in no layer."""
    return UI_LAYER.get(room.split(".")[0])


def runtime_imports(path: Path, typing_too: bool = False) -> set[str]:
    """The modules `path` imports when it runs: those named only under `if TYPE_CHECKING:` are annotations
    (as import-linter's exclude_type_checking_imports treats them), not an arrow between rooms; `typing_too`
    counts them as well (an import circle through them is still a circle)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    typing_only = {id(n) for node in ast.walk(tree) if isinstance(node, ast.If)
                   and ast.unparse(node.test) in ("TYPE_CHECKING", "typing.TYPE_CHECKING")
                   for stmt in node.body for n in ast.walk(stmt)}
    names = set()
    for node in ast.walk(tree):
        if id(node) in typing_only and not typing_too:
            continue
        if isinstance(node, ast.Import):
            names.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            # `from tfdebug.ui import panels` names the room in the imported name, not the module
            names.update(f"{node.module}.{a.name}" for a in node.names)
    return names


def ui_rooms_broken(path: Path, ui_root: Path = UI) -> list[str]:
    """The imports of a ui module that point to its own layer or above (a panel importing another panel …)."""
    room = ui_room(path, ui_root)
    bad = []
    for name in sorted(runtime_imports(path)):
        target = room_named(name)
        if target is None or (target == room and room != "panels"):
            continue
        target_layer, own_layer = layer_of(target), layer_of(room)
        if target_layer is None or own_layer is None or target_layer >= own_layer:
            bad.append(name)
    return bad


def room_circle(ui_root: Path = UI) -> list[str]:
    """A circle of imports between ui rooms, type-checking imports included (rooms in order, the first again at
    the end); [] when there is none."""
    arrows: dict[str, set[str]] = {}
    for path in sorted(ui_root.rglob("*.py")):
        room = ui_room(path, ui_root)
        targets = {room_named(name) for name in runtime_imports(path, typing_too=True)}
        arrows.setdefault(room, set()).update(t for t in targets if t is not None and t != room)
    done: set[str] = set()

    def walk(room: str, trail: list[str]) -> list[str]:
        if room in trail:
            return trail[trail.index(room):] + [room]
        if room in done:
            return []
        for target in sorted(arrows.get(room, ())):
            circle = walk(target, trail + [room])
            if circle:
                return circle
        done.add(room)
        return []

    for room in sorted(arrows):
        circle = walk(room, [])
        if circle:
            return circle
    return []


def test_every_ui_room_is_in_a_layer():
    assert len([p for p in UI.glob("*.py")]) <= 6  # the rest lives in rooms
    assert {layer_of(ui_room(p)) for p in UI.rglob("*.py")} <= set(UI_LAYER.values())


def test_ui_keeps_to_its_rooms():
    broken = {str(p.relative_to(UI)): ui_rooms_broken(p) for p in sorted(UI.rglob("*.py")) if ui_rooms_broken(p)}
    assert not broken


def test_the_room_check_catches_a_panel_importing_a_panel(tmp_path):
    (tmp_path / "panels").mkdir()
    bad = tmp_path / "panels" / "bad.py"
    bad.write_text("from tfdebug.ui.panels.heatmap import HeatmapPanel\nfrom tfdebug.ui.render import colors\n",
                   encoding="utf-8")
    assert ui_rooms_broken(bad, tmp_path) == ["tfdebug.ui.panels.heatmap.HeatmapPanel"]


def test_the_room_check_catches_an_arrow_up_and_sideways(tmp_path):
    """A worker importing a panel (up), the state importing the shell inside a function (up), and a dialog
    importing the remote room (same layer) are caught; an import for annotations only is not an arrow."""
    for room in ("workers", "state", "dialogs"):
        (tmp_path / room).mkdir()
    up = tmp_path / "workers" / "bad.py"
    up.write_text("from tfdebug.ui.panels import heatmap\nfrom tfdebug.ui.workers.jobs import Job\n", encoding="utf-8")
    assert ui_rooms_broken(up, tmp_path) == ["tfdebug.ui.panels.heatmap"]
    late = tmp_path / "state" / "bad.py"
    late.write_text("def f():\n    import tfdebug.ui.shell.window\n", encoding="utf-8")
    assert ui_rooms_broken(late, tmp_path) == ["tfdebug.ui.shell.window"]
    side = tmp_path / "dialogs" / "bad.py"
    side.write_text("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from tfdebug.ui.shell.window import W\n"
                    "from tfdebug.ui.remote.connection import RemoteTools\n", encoding="utf-8")
    assert ui_rooms_broken(side, tmp_path) == ["tfdebug.ui.remote.connection.RemoteTools"]


def test_features_are_folders():
    """Compare, Export, Reference, Edit, Why, Backward, Generation, Learn, Long context and Check live in
    ui/features/NAME/, each a room: no feature imports another, and nothing below the features layer (panels,
    dialogs …) imports a feature."""
    folders = {p.name for p in (UI / "features").iterdir() if (p / "__init__.py").is_file()}
    assert {"compare", "export", "reference", "edit", "why", "backward", "generation", "learn",
            "long_context", "check"} <= folders
    assert not [p for p in (UI / "features").glob("*.py") if p.name != "__init__.py"]  # a feature is a folder


def test_no_circle_between_ui_rooms():
    """No import circle between ui rooms or feature folders, counting type-checking imports (the action
    context types the window's tools by Protocols in actions/, not by the tools' classes)."""
    assert not room_circle()


def test_the_room_check_catches_a_feature_importing_a_feature(tmp_path):
    """A feature importing another (sideways) and a dialog importing a feature (up) are caught."""
    for room in ("features/one", "features/two", "dialogs"):
        (tmp_path / room).mkdir(parents=True)
    side = tmp_path / "features" / "one" / "bad.py"
    side.write_text("from tfdebug.ui.features.two.tools import Two\nfrom tfdebug.ui.features.one import view\n"
                    "from tfdebug.ui.dialogs.conditions import ConditionTools\n", encoding="utf-8")
    assert ui_rooms_broken(side, tmp_path) == ["tfdebug.ui.features.two.tools.Two"]
    up = tmp_path / "dialogs" / "bad.py"
    up.write_text("from tfdebug.ui.features.one.tools import One\n", encoding="utf-8")
    assert ui_rooms_broken(up, tmp_path) == ["tfdebug.ui.features.one.tools.One"]


def test_the_circle_check_counts_type_checking_imports(tmp_path):
    """An annotation-only import back up (actions typing a feature's tool by its class) is a circle."""
    for room in ("actions", "features/one"):
        (tmp_path / room).mkdir(parents=True)
    (tmp_path / "actions" / "context.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from tfdebug.ui.features.one.tools import One\n",
        encoding="utf-8")
    (tmp_path / "features" / "one" / "tools.py").write_text(
        "from tfdebug.ui.actions.context import ActionContext\n", encoding="utf-8")
    assert room_circle(tmp_path) == ["actions", "features.one", "actions"]


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


def test_the_architecture_page_states_the_ui_layers():
    """docs/architecture.md's table of ui layers says exactly what UI_LAYERS enforces."""
    page = (ROOT.parent / "docs" / "architecture.md").read_text(encoding="utf-8")
    rows = {}
    for line in page.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 2 and cells[0].isdigit():
            rows[int(cells[0])] = {part.strip().strip("`") for part in cells[1].split(",")}
    assert rows == {n: set(rooms) - {"__init__"} for n, rooms in enumerate(UI_LAYERS)}



def test_the_state_room_holds_no_widget():
    """ui/state holds the window's state and its parts, not what draws it: no module there imports QtWidgets
    (the Capture dock is in panels/, its dialog in dialogs/, the keep box in widgets/)."""
    drawing = [p.name for p in sorted((UI / "state").glob("*.py")) if "QtWidgets" in p.read_text(encoding="utf-8")]
    assert not drawing


def test_the_models_room_is_qt_free():
    """ui/models holds the window's state as evented models (psygnal): no module there imports Qt, pyqtgraph
    or a ui room that does, so each model is built and tested without an application."""
    with_qt = {str(p.relative_to(UI)): sorted(n for n in runtime_imports(p) if n.split(".")[0] in QT
                                              or (n.startswith("tfdebug.ui.") and not n.startswith("tfdebug.ui.models")))
               for p in sorted((UI / "models").glob("*.py"))}
    assert list(with_qt) and not any(with_qt.values()), with_qt


def test_only_the_shell_sets_the_windows_attributes():
    """A feature's or a room's `install(window)` returns what it made and the shell keeps it (`self.tools.edit =
    edit.install(self)`): no module outside ui/shell assigns an attribute of the window or of its tools."""
    setting = re.compile(r"\bwindow\.(tools\.)?[A-Za-z_]\w* = ")
    outside = [str(p.relative_to(UI)) for p in sorted(UI.rglob("*.py"))
               if ui_room(p) != "shell" and setting.search(p.read_text(encoding="utf-8"))]
    assert not outside


def test_only_the_shell_reaches_into_the_window():
    """Panels, dialogs and features extend the window through its public API (`window.add_dock` …): no module
    outside ui/shell calls or reads a private attribute of the window."""
    private = re.compile(r"\bwindow\._[a-z]")
    reaching = [str(p.relative_to(UI)) for p in sorted(UI.rglob("*.py"))
                if ui_room(p) != "shell" and private.search(p.read_text(encoding="utf-8"))]
    assert not reaching


def test_the_shell_sets_the_window_attributes():
    """A panel's, dialog's or feature's `install(window)` returns what it made and the shell keeps it on the
    window; no module outside ui/shell sets an attribute of the window (`window.x = …`, `self.window.x = …`,
    `ctx.window.x += …`, `setattr(window, …)`): an open dialog goes into the window's `dialogs`, a remembered
    choice stays with the feature that owns it, the start-up state goes through `window.show_starting`."""
    setting = re.compile(r"\bwindow\.(\w+)\s*(?::[^=\n]+)?[-+*/|&]?=(?!=)|\bsetattr\((?:\w+\.)*window\b")
    outside = {f"{p.relative_to(UI)}: {m.group(0)}" for p in sorted(UI.rglob("*.py")) if ui_room(p) != "shell"
               for m in setting.finditer(p.read_text(encoding="utf-8"))}
    assert not outside
