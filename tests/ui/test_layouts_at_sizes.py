"""Layouts that hold at the sizes people have (issue 52, item 2 of Deliver): at 1280×720, 1366×768, 1600×1000
and 1920×1080, each dock opened by its key (Explain F1, Query Row Ctrl+Shift+R, Model View Ctrl+Shift+M, Why
This Output Ctrl+Shift+W) gets at least its minimum height or is tabbed, the heatmap's plane keeps its least
height, the Stats table keeps each row a line high, and the window does not grow off the screen."""

import pytest
from PySide6.QtCore import Qt

from tests.ui.user_actions import press, run_to_stage

SIZES = [(1280, 690), (1280, 720), (1366, 768), (1600, 1000), (1920, 1080)]  # 1280×690: 720 less a title bar
KEYS = [("explain", Qt.Key_F1, Qt.NoModifier), ("query_row", Qt.Key_R, Qt.ControlModifier | Qt.ShiftModifier),
        ("model_view", Qt.Key_M, Qt.ControlModifier | Qt.ShiftModifier),
        ("why", Qt.Key_W, Qt.ControlModifier | Qt.ShiftModifier)]
MIN_PLANE = 120  # px of the heatmap's plane (tfdebug.ui.panels.heatmap keeps it)


def in_front(window, dock) -> bool:
    """Whether `dock` is on screen in the window (shown, not behind another dock's tab)."""
    return dock.isVisible() and not dock.isFloating() and not dock.visibleRegion().isEmpty()


def squeezed(window) -> list[str]:
    """What is drawn below its least size: docks in front under their minimum height, a plane under MIN_PLANE,
    a Stats row under a line."""
    out = []
    for name, dock in window.docks.items():
        if in_front(window, dock) and dock.height() < dock.minimumSizeHint().height() - 1:
            out.append(f"{name} {dock.height()} < {dock.minimumSizeHint().height()}")
    if in_front(window, window.docks["heatmap"]) and window.heatmap_panel.graphics.height() < MIN_PLANE:
        out.append(f"plane {window.heatmap_panel.graphics.height()}")
    stats = window.stats_panel
    if in_front(window, window.docks["stats"]):
        line = stats.fontMetrics().height()
        out += [f"stats row {label.text()!r}" for label in (*stats.row_titles.values(), *stats.cells.values())
                if label.height() < line]
    return out


@pytest.mark.parametrize("size", SIZES, ids=[f"{w}x{h}" for w, h in SIZES])
def test_every_dock_opened_by_its_key_keeps_its_room(window, qtbot, size):
    window.resize(*size)
    qtbot.waitUntil(lambda: (window.width(), window.height()) == size)
    run_to_stage(window, qtbot, "enc.0.attn.probs")
    qtbot.wait(100)
    assert squeezed(window) == []
    for name, key, modifier in KEYS:
        press(window, key, modifier)
        dock = window.docks[name]
        qtbot.waitUntil(dock.isVisible)
        qtbot.wait(150)  # laid out (a dock's panel is built when first shown)
        assert (window.width(), window.height()) == size, name  # the window did not grow off the screen
        # Nor would it under a window manager, which grows a window to its minimum (the offscreen platform does not)
        hint = window.minimumSizeHint()
        assert hint.width() <= size[0] and hint.height() <= size[1], (name, hint)
        assert in_front(window, dock) or dock.isFloating(), name  # shown, raised if tabbed
        assert squeezed(window) == [], name


def test_a_dock_at_the_bottom_keeps_its_height_when_the_window_grows(window, qtbot):
    """Qt gave a taller window's height to the docks at the bottom: a Query Row opened at 1366×768 became a
    300 px empty plot at 1920×1080 while the heatmap above kept its height."""
    window.resize(1366, 768)
    qtbot.waitUntil(lambda: (window.width(), window.height()) == (1366, 768))
    run_to_stage(window, qtbot, "enc.0.attn.probs")
    press(window, Qt.Key_R, Qt.ControlModifier | Qt.ShiftModifier)
    row, heat = window.docks["query_row"], window.docks["heatmap"]
    qtbot.waitUntil(row.isVisible)
    qtbot.wait(150)
    before, heat_before = row.height(), heat.height()
    window.resize(1920, 1080)
    qtbot.waitUntil(lambda: (window.width(), window.height()) == (1920, 1080))
    qtbot.waitUntil(lambda: abs(row.height() - before) <= 2)
    qtbot.wait(150)
    assert abs(row.height() - before) <= 2  # and stays
    assert heat.height() >= heat_before + 200  # the heatmap took the new height
