"""Run (Ctrl+Return) works from every state the window can be in: it stops the pass on
screen cleanly and starts the new one, paused at its first stage, with the typed words.

Each case starts the way a person does: the window loads the random model through the
real loading path (the input bar and Run), then gets into the state, then the user types
a new source sentence and presses Ctrl+Return.
"""

import pytest
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest

from tests.ui.conftest import SRC, TGT, wait_paused
from tfdebug.core.view import RunInputs

NEW = "you love me"


def press(window, key, modifier=Qt.NoModifier):
    QTest.keyClick(window, key, modifier)


def type_source(window, text):
    field = window.input_bar.field("src")
    field.selectAll()
    QTest.keyClick(field, Qt.Key_Backspace)
    QTest.keyClicks(field, text)


def loaded_window(make_window, qtbot):
    window = make_window()
    window.start(RunInputs("random", "cpu", {"src": SRC, "tgt": TGT}))
    wait_paused(qtbot, window, "src.embed")
    return window


def get_into(state, window, qtbot):
    ctl = window.ctl
    if state == "paused":
        press(window, Qt.Key_F10)
        wait_paused(qtbot, window, "src.pe")
    elif state == "finished":
        press(window, Qt.Key_F5)
        qtbot.waitUntil(lambda: ctl.stepper.state == "finished")
    elif state == "stopped":
        press(window, Qt.Key_F5, Qt.ShiftModifier)
        qtbot.waitUntil(lambda: ctl.stepper.state == "stopped")
    elif state == "failed":
        adapter = ctl.session.adapter

        def broken(*args, **kwargs):
            raise RuntimeError("the decoder norm broke")
        adapter.module.transformer.decoder.norm.forward = broken
        press(window, Qt.Key_F5)
        qtbot.waitUntil(lambda: ctl.stepper.state == "failed")
        del adapter.module.transformer.decoder.norm.forward  # the instance attribute goes; the class's returns
    elif state == "running":
        # Mid-Continue: a slow stage keeps the pass running while Run is pressed.
        import time

        norm = ctl.session.adapter.module.transformer.decoder.norm
        original = norm.forward

        def slow(*args, **kwargs):
            time.sleep(0.3)
            return original(*args, **kwargs)
        norm.forward = slow
        press(window, Qt.Key_F5)
        qtbot.waitUntil(lambda: ctl.stepper.state == "running")
        return lambda: norm.__dict__.pop("forward", None)
    elif state == "replay":
        from tfdebug.core.stepper import Stepper

        session = ctl.session
        ctl.steps.stop()
        qtbot.waitUntil(lambda: ctl.stepper.state == "stopped")
        captures, _ = session.capture_all()
        window.ctl.load_replay(Stepper.replay(captures), session.tokens, "recorded pass")
        wait_paused(qtbot, window, "src.embed")
        window.actions_by_id["tfdebug.session.live"].trigger()  # a replay's bar is read-only: go live first
        qtbot.waitUntil(lambda: ctl.is_live and not ctl.loader.busy)
        wait_paused(qtbot, window, "src.embed")
    return lambda: None


@pytest.mark.parametrize("state", ["idle-start", "paused", "running", "finished", "stopped", "failed", "replay"])
def test_ctrl_return_starts_the_new_pass_from(state, make_window, qtbot):
    window = loaded_window(make_window, qtbot)
    undo = get_into(state, window, qtbot)
    type_source(window, NEW)
    press(window.input_bar.field("src"), Qt.Key_Return, Qt.ControlModifier)
    qtbot.waitUntil(lambda: not window.ctl.loader.busy and window.ctl.session is not None
                    and window.ctl.session.texts["src"] == NEW, timeout=15000)
    wait_paused(qtbot, window, "src.embed")
    undo()
    assert window.ctl.tokens["src"] == NEW.split()
    assert window.ctl.stepper.state == "paused"
    assert window.message_bar.current is None or window.message_bar.current.level != "error"
    assert NEW in window.windowTitle()
    press(window, Qt.Key_F10)  # and it steps
    wait_paused(qtbot, window, "src.pe")
    window.ctl.shutdown()


def test_switching_model_while_paused(make_window, qtbot):
    window = loaded_window(make_window, qtbot)
    press(window, Qt.Key_F10)
    wait_paused(qtbot, window, "src.pe")
    window.input_bar.model.setCurrentText("demo")
    press(window.input_bar.field("src"), Qt.Key_Return, Qt.ControlModifier)
    qtbot.waitUntil(lambda: window.ctl.model_name == "demo" and not window.ctl.loader.busy, timeout=20000)
    wait_paused(qtbot, window, "src.embed")
    assert window.ctl.stepper.state == "paused"
    window.ctl.shutdown()


def test_a_failed_run_keeps_the_pass_on_screen_and_a_later_run_clears_the_error(make_window, qtbot):
    window = loaded_window(make_window, qtbot)
    press(window, Qt.Key_F10)
    wait_paused(qtbot, window, "src.pe")
    title = window.windowTitle()
    type_source(window, "")
    press(window.input_bar.field("src"), Qt.Key_Return, Qt.ControlModifier)
    qtbot.waitUntil(lambda: window.message_bar.current is not None and not window.ctl.loader.busy)
    text = window.message_bar.text()
    assert "source sentence is empty" in text
    assert "Recorder" not in text and "Error" not in text  # no internal names
    # The pass on screen is untouched (the title still describes it), and the field keeps what was typed:
    # refilling it put the old sentence back, so the next typing read "I love youI love my mum".
    assert window.ctl.stepper.state == "paused" and window.ctl.current.name == "src.pe"
    assert window.input_bar.field("src").text() == "" and window.windowTitle() == title
    type_source(window, NEW)
    press(window.input_bar.field("src"), Qt.Key_Return, Qt.ControlModifier)
    qtbot.waitUntil(lambda: window.ctl.session.texts["src"] == NEW, timeout=15000)
    wait_paused(qtbot, window, "src.embed")
    # The old error no longer applies (what remains is the notice that 'me' is not a word of this model).
    assert window.message_bar.current is None or window.message_bar.current.level != "error"
    window.ctl.shutdown()


def test_a_failing_forward_says_so_without_class_names(make_window, qtbot):
    window = loaded_window(make_window, qtbot)
    get_into("failed", window, qtbot)
    qtbot.waitUntil(lambda: window.message_bar.current is not None)
    message = window.message_bar.current
    assert "the decoder norm broke" in message.text and "RuntimeError" not in message.text
    assert "RuntimeError" in message.details and window.message_bar.details.isVisibleTo(window.message_bar)
    window.ctl.shutdown()
