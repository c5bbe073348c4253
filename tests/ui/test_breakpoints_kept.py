"""The window keeps one set of breakpoints across models: a stage breakpoint a model lacks waits for one that has it."""

import pytest
from PySide6.QtCore import Qt

from tests.ui.conftest import SRC, TGT, wait_paused
from tests.ui.user_actions import click_stage, press, run_model
from tfdebug.core.breakpoints import Breakpoint

pytest.importorskip("transformers")

STAGE = "enc.1.attn.scores"  # the reference model's encoder: a decoder-only model has none


def test_a_stage_breakpoint_survives_a_model_without_the_stage(window, qtbot):
    click_stage(window, qtbot, STAGE, column=0)  # the gutter
    assert window.navigator.items[STAGE].text(0) == "●"
    run_model(qtbot, window, "tiny-gpt2", {"prompt": "i love you ="}, "tok.embed")
    assert Breakpoint.on_stage(STAGE) in window.ctl.breakpoints.points
    assert "no stage named" not in window.message_bar.text()  # nothing to say: it just never matches here
    press(window, Qt.Key_F5)  # Continue: runs to the end
    qtbot.waitUntil(lambda: window.ctl.stepper.state == "finished" and window.ctl.current is window.ctl.stepper.current,
                    timeout=60000)
    run_model(qtbot, window, "random", {"src": SRC, "tgt": TGT}, "src.embed")
    assert window.navigator.items[STAGE].text(0) == "●"
    press(window, Qt.Key_F5)
    wait_paused(qtbot, window, STAGE)
    qtbot.waitUntil(lambda: window.status_stage.text().endswith(STAGE))  # the status bar names the shown stage


def test_f9_toggles_a_breakpoint_on_the_stage_on_screen_and_f5_stops_there_after_a_restart(window, qtbot):
    for _ in range(3):
        press(window, Qt.Key_F10)
        wait_paused(qtbot, window)
    name = window.ctl.current.name
    press(window, Qt.Key_F9)  # Toggle Breakpoint: no stage selected in the tree, so the one on screen
    qtbot.waitUntil(lambda: window.navigator.items[name].text(0) == "●")
    assert Breakpoint.on_stage(name) in window.ctl.breakpoints.points
    press(window, Qt.Key_F5, Qt.ControlModifier | Qt.ShiftModifier)  # Restart: the pass again from its first stage
    wait_paused(qtbot, window, "src.embed")
    press(window, Qt.Key_F5)  # Continue: stops at the breakpoint
    wait_paused(qtbot, window, name)
    press(window, Qt.Key_F9)  # and off again
    qtbot.waitUntil(lambda: window.navigator.items[name].text(0) != "●")
    assert Breakpoint.on_stage(name) not in window.ctl.breakpoints.points
