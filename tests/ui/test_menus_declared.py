"""The menu bar is built from the actions' declarations (issue 49): each action says its menu, group and order where
it is declared, and the shell builds the menus from those alone. The menus a person sees are the ones they saw
before the move: `EXPECTED` was recorded from the window built by hand (`_build_menus` placing each action),
titles, entries, shortcuts and separators; entries added since are written in where they were declared."""

from __future__ import annotations

import re
from pathlib import Path

from PySide6.QtWidgets import QMenu

from tfdebug.core.stages import KINDS

ROOT = Path(__file__).resolve().parents[2]

#: the menu tree of the window before the menus were declared ("---": a separator; "Text [Shortcut]")
EXPECTED = [
    {"&File": [
        "New Session [Ctrl+Shift+N]", "Open Snapshot… [Ctrl+O]", {"Open Recent": ["No recent snapshots"]}, "---",
        "Export… [Ctrl+E]", "Compare With… [Ctrl+Shift+D]", "---",
        "Connect to Server…", "Reconnect", "Export Snapshot on Server…", "---",
        "Quit [Ctrl+Q]"]},
    {"&Debug": [
        "Continue [F5]", "Step [F10]", "Step Into [F11]", "Step Out [Shift+F11]", "Step Back [Shift+F10]",
        "Run to Stage [Ctrl+F10]", "Pause [Ctrl+F5]", "---",
        "Next Token [Ctrl+T]", "Run to Token… [Ctrl+Shift+T]", "---",
        "Restart [Ctrl+Shift+F5]", "Stop [Shift+F5]", "---",
        "Run [Ctrl+Return]", "Generate [Ctrl+G]", "Decoding Settings…", "Models…", "New Live Pass [Ctrl+N]",
        {"Check Against the Model": ["When It Fits in Memory", "Always", "Attention Only, in the Pass (Faster)",
                                      "Never"]}, "---",
        "Edit Tensor… [Ctrl+Shift+E]", "Undo Edit [Ctrl+Alt+Z]", "---",
        "Backward [Ctrl+Shift+B]", "Capture Budget…"]},
    {"&Breakpoints": [
        {"Break on Every…": [f"<{len(KINDS)} stage kinds>"]},
        "Toggle Breakpoint [F9]", "Conditions…", "Clear All Breakpoints [Ctrl+Shift+F9]"]},
    {"&View": [
        "Stages", "Architecture", "Heatmap", "Shape", "Heads", "Stats", "Values", "Generation", "Compare", "Overview",
        "Model View [Ctrl+Shift+M]", "Why This Output [Ctrl+Shift+W]", "Backward", "Query Row [Ctrl+Shift+R]",
        "Image [Ctrl+Shift+I]", "Explain", "Capture", "---",
        {"&Language": ["English", "中文"]},
        {"Heatmap": ["Fit [Ctrl+0]", "---", "Log scale", "Per-row scale"]}]},
    {"&Learn": ["Explain [F1]", "Attention Playground… [Ctrl+Shift+L]"]},
]


def menu_tree(menu: QMenu) -> list:
    """`menu`'s entries as EXPECTED writes them (a submenu filled before it shows is filled first); the breakpoint
    kinds' submenu, one entry per stage kind, as their count."""
    menu.aboutToShow.emit()
    actions = menu.actions()
    if actions and all(a.objectName().startswith("break-kind-") for a in actions):
        return [f"<{len(actions)} stage kinds>"]
    tree: list = []
    for action in actions:
        if action.isSeparator():
            tree.append("---")
        elif action.menu() is not None:
            tree.append({action.menu().title(): menu_tree(action.menu())})
        else:
            shortcut = action.shortcut().toString()
            tree.append(action.text() + (f" [{shortcut}]" if shortcut else "") + ("" if action.isVisible() else " (hidden)"))
    return tree


def test_the_menus_are_the_ones_placed_by_hand_before(make_window):
    window = make_window()
    assert [{a.text(): menu_tree(a.menu())} for a in window.menuBar().actions()] == EXPECTED


def test_every_menu_entry_is_a_declared_action_or_a_declared_run_time_entry(make_window):
    """Each registry action with a menu is in that menu; each declared menu and run-time entry exists."""
    from tfdebug.ui.actions import registry

    window = make_window()
    for spec in registry.REGISTRY.values():
        if spec.menu is not None:
            assert window.actions_by_id[spec.id] in window.menus.menus[spec.menu].actions(), spec.id
    assert {s.menu for s in registry.SUBMENUS} <= {m.id for m in registry.MENUS}
    assert [a.menu() for a in window.menuBar().actions()] == [window.menus.menus[m.id] for m in registry.MENUS]


def test_no_module_places_an_action_in_a_menu_by_hand():
    """The shell builds the menus from the declarations: no `addAction(…actions_by_id[…])` into a menu of the menu
    bar anywhere in tfdebug/ui (a panel's own menu, like the heatmap's, may take its Fit action), and window.py
    has no list of action ids per menu."""
    window_py = (ROOT / "tfdebug" / "ui" / "shell" / "window.py").read_text(encoding="utf-8")
    assert not re.search(r"\bby_id\b|DEBUG_MENU|\.addSeparator\(", window_py)
    bar_menus = ("file_menu", "debug_menu", "view_menu", "breakpoints_menu", "learn_menu", "menuBar()")
    by_hand = [str(p.relative_to(ROOT)) for p in sorted((ROOT / "tfdebug" / "ui").rglob("*.py"))
               if any(f"{m}.addAction(" in p.read_text(encoding="utf-8") or f"{m}.addMenu(" in p.read_text(encoding="utf-8")
                      for m in bar_menus)]
    assert by_hand == []
