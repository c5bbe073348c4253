"""What keeps the GUI thread short while stepping: the plot is not relaid out per step,
only rows that change are touched, and start-up objects are out of the collector's way."""

import gc

from PySide6.QtCore import QEvent, Qt

from tests.ui.conftest import EventCount, wait_paused
from tests.ui.user_actions import press


def test_stepping_between_stages_with_other_index_axes_keeps_the_plot_still(window, qtbot):
    """q (batch index only) → q_split (batch and head) → …: the index boxes change, the plot
    below them keeps its size (a resize relayouts and repaints every item in it)."""
    # The Heads dock lends its room to the heatmap at a stage with no head axis (q) and takes it back
    # at one with heads (q_split): a resize this test is not about. Hidden, it lends nothing.
    window.docks["heads"].hide()
    window.ctl.steps.run_to("enc.0.attn.q")
    wait_paused(qtbot, window, "enc.0.attn.q")
    heatmap = window.heatmap_panel
    resizes = EventCount(heatmap.graphics, QEvent.Type.Resize)
    size = heatmap.graphics.size()
    seen = set()
    for _ in range(6):
        before = window.ctl.stepper.cursor
        press(window, Qt.Key_F10)
        qtbot.waitUntil(lambda: window.ctl.stepper.cursor == before + 1)
        wait_paused(qtbot, window)
        seen.add(frozenset(heatmap.spin_boxes))
        # Only the shown stage's index boxes are visible, one per axis not shown.
        names = window.ctl.axes.names()
        assert set(heatmap.spin_boxes) == {names[a] for a in window.ctl.axes.indices()}
        assert all(spin.isVisible() for spin in heatmap.spin_boxes.values())
    assert len(seen) > 1  # the walk crossed stages with different index axes
    assert resizes.count == 0
    assert heatmap.graphics.size() == size


def test_navigator_marks_what_ran_as_it_steps_and_back(window, qtbot):
    nav = window.navigator
    grey = nav.items["enc.0.attn.q"].foreground(1).color()
    window.ctl.steps.run_to("enc.0.attn.k")
    wait_paused(qtbot, window, "enc.0.attn.k")
    assert nav.items["enc.0.attn.q"].foreground(1).color() != grey
    assert nav.items["enc.0.attn.v"].foreground(1).color() == grey
    press(window, Qt.Key_F10, Qt.ShiftModifier)  # back: what ran stays marked as run
    wait_paused(qtbot, window, "enc.0.attn.q")
    assert nav.items["enc.0.attn.k"].foreground(1).color() != grey
    assert nav.current_item() is nav.items["enc.0.attn.q"]


def test_start_up_objects_are_frozen_out_of_garbage_collection(window):
    """A full collection would otherwise walk every module's objects in the GUI thread."""
    assert gc.get_freeze_count() > 10_000
    assert not gc.isenabled()  # collection runs on the GUI thread's timer only
