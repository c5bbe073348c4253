"""The Compare dock never crushes its plots (issue 52, item 2 of the problems): after edit → Continue → Compare,
each of A, B and A − B is at least MIN_PLOT px high at the sizes people have."""

import pytest
from PySide6.QtCore import Qt

from tests.ui.conftest import wait_paused
from tests.ui.test_compare_view import compare_dialog, run_comparison
from tests.ui.test_edit_tensor import STAGE, open_dialog
from tests.ui.user_actions import pick, press, run_to_stage

MIN_PLOT = 120  # px of each heatmap (its view box, inside its axes and title)


@pytest.mark.parametrize("size", [(1366, 768), (1600, 1000)])
def test_the_compare_plots_keep_their_height(window, qtbot, size):
    window.resize(*size)
    qtbot.waitUntil(lambda: (window.width(), window.height()) == size)
    run_to_stage(window, qtbot, STAGE)
    dialog = open_dialog(window, qtbot)  # Debug ▸ Edit Tensor…: zero a head
    pick(qtbot, dialog.operation, "Zero a head")
    qtbot.mouseClick(dialog.apply_button, Qt.LeftButton)
    dialog.close()
    press(window, Qt.Key_F5)  # Continue
    qtbot.waitUntil(lambda: window.ctl.stepper.state == "finished")
    wait_paused(qtbot, window, "logits")
    run_comparison(window, qtbot, compare_dialog(window, qtbot))  # Ctrl+Shift+D, Compare
    view = window.compare_tools.view
    qtbot.waitUntil(lambda: window.compare_tools.dock.isVisible() and view.images[0].image is not None)

    def heights():
        dock = window.compare_tools.dock  # what of the plots is inside the dock, in the window
        inside = dock.geometry().bottom() <= window.height() and view.graphics.height() <= dock.height()
        shown = view.graphics.height() if view.graphics.isVisible() and inside else 0
        return [min(shown, round(plot.getViewBox().sceneBoundingRect().height())) for plot in view.plots]
    qtbot.wait(200)  # the dock is laid out (its panel is built when first shown)
    qtbot.waitUntil(lambda: min(heights()) >= MIN_PLOT, timeout=3000)
    assert (window.width(), window.height()) == size  # the window did not grow off the screen
    assert view.table.viewport().height() >= 3 * view.table.rowHeight(0)  # more than a row and a half of the table
    assert window.heatmap_panel.graphics.height() >= MIN_PLOT  # the plane above keeps its room too


def test_a_dock_folded_for_room_takes_its_tabs_with_it(window, qtbot):
    """At 1366×768 (1280×690 here) Compare folds Heads behind the heatmap; the Generation dock, a tab behind Heads, went
    neither with it nor away: it stood alone in Heads' place, "Not a generation…" over 90 px the heatmap lacked."""
    window.resize(1280, 690)
    qtbot.waitUntil(lambda: (window.width(), window.height()) == (1280, 690))
    run_to_stage(window, qtbot, STAGE)  # a stage with heads: the Heads dock at its share
    heat, heads, generation = (window.docks[n] for n in ("heatmap", "heads", "generation"))
    assert generation in window.tabifiedDockWidgets(heads)
    window.show_dock_within(window.compare_tools.dock)
    qtbot.wait(100)
    assert heads in window.tabifiedDockWidgets(heat)  # folded for the room
    assert generation in window.tabifiedDockWidgets(heat)  # and its tab with it
    assert generation.visibleRegion().isEmpty() and not heat.visibleRegion().isEmpty()
