"""The window's breakpoints' events: F9, the gutter and Clear All change the one set; the Stages tree's gutter and
the Break on Every… menu follow the model's events (added, removed, cleared, refused), not a call from the controller."""

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction

from tests.ui.conftest import wait_paused
from tests.ui.user_actions import click_stage, press
from tfdebug.core.breakpoints import Breakpoint


def test_f9_and_clear_all_reach_the_gutter_and_the_kind_menu_by_the_models_events(window, qtbot):
    model, nav = window.ctl.breakpoints.model, window.navigator
    heard = []
    for event in ("added", "removed", "cleared", "refused"):
        getattr(model, event).connect(lambda payload, event=event: heard.append((event, payload)))
    press(window, Qt.Key_F10)
    wait_paused(qtbot, window)
    name = window.ctl.current.name
    press(window, Qt.Key_F9)  # Toggle Breakpoint on the stage on screen
    assert heard == [("added", Breakpoint.on_stage(name))] and nav.items[name].text(0) == "●"
    softmax = nav.kind_button.menu().findChild(QAction, "break-kind-softmax")
    softmax.trigger()  # Break on Every… ▸ Softmax
    assert heard[1:] == [("added", Breakpoint.on_kind("softmax"))] and softmax.isChecked()
    click_stage(window, qtbot, "enc.1.attn.probs", column=0)  # the gutter of another stage
    assert heard[2:] == [("added", Breakpoint.on_stage("enc.1.attn.probs"))]
    assert nav.items["enc.1.attn.probs"].text(0) == "●"
    press(window, Qt.Key_F9, Qt.ControlModifier | Qt.ShiftModifier)  # Clear All Breakpoints
    assert heard[3][0] == "cleared" and len(heard[3][1]) == 3 and not window.ctl.breakpoints.points
    assert nav.items[name].text(0) == nav.items["enc.1.attn.probs"].text(0) == "" and not softmax.isChecked()


def test_a_refused_breakpoint_is_told_as_refused_and_said(window, qtbot):
    """A stage the model lacks (the kind menu's and the gutter's items show the set again on `refused`)."""
    refused = []
    window.ctl.breakpoints.model.refused.connect(refused.append)
    window.ctl.breakpoints.set(Breakpoint.on_stage("enc.9.attn.scores"), True)  # the model has 2 layers
    assert refused == [Breakpoint.on_stage("enc.9.attn.scores")] and not window.ctl.breakpoints.points
    qtbot.waitUntil(lambda: "no stage named" in window.message_bar.text())
