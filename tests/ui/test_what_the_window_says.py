"""What the window says and offers is current and readable: messages, the status bar, the model box, the View menu."""

import pytest
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest

from tests.ui.conftest import wait_paused
from tests.ui.user_actions import press, type_into


def test_restart_after_a_failed_pass_clears_the_failure(window, qtbot, monkeypatch):
    def broken(*args, **kwargs):
        raise RuntimeError("boom")
    monkeypatch.setattr(window.ctl.session.adapter.module.transformer.decoder.norm, "forward", broken)
    press(window, Qt.Key_F5)  # Continue: the forward raises in dec.norm
    qtbot.waitUntil(lambda: window.ctl.stepper.state == "failed")
    qtbot.waitUntil(lambda: "failed after" in window.message_bar.text())
    monkeypatch.undo()  # the user fixed their model
    press(window, Qt.Key_F5, Qt.ControlModifier | Qt.ShiftModifier)  # Restart
    wait_paused(qtbot, window, "src.embed")
    qtbot.wait(100)
    assert window.message_bar.current is None or window.message_bar.current.level != "error"
    press(window, Qt.Key_F5)
    qtbot.waitUntil(lambda: window.ctl.stepper.state == "finished")


@pytest.mark.parametrize("modifier", [Qt.NoModifier, Qt.ControlModifier])
def test_typing_a_model_and_pressing_return_runs_it(make_window, qtbot, modifier):
    # Return runs from a text field; from the Model box it did nothing, and Ctrl+Return (Run) neither.
    window = make_window()
    window.input_bar.set_values("random", "cpu", {"src": "I love you", "tgt": "我"})
    type_into(qtbot, window.input_bar.model.lineEdit(), "demo")
    QTest.keyClick(window.input_bar.model.lineEdit(), Qt.Key_Return, modifier)
    qtbot.waitUntil(lambda: window.ctl.model_name == "demo" and not window.ctl.loader.busy, timeout=30000)
    wait_paused(qtbot, window, "src.embed")
    window.ctl.close()


def test_a_long_model_spec_stays_readable_in_the_model_box(make_window, qtbot):
    window = make_window()
    window.input_bar.set_values("random", "cpu", {"src": "I love you", "tgt": ""})
    box = window.input_bar.model
    spec = "torch:examples.gpt_block:factory"  # a module of your own, as README's SDPA section opens it
    type_into(qtbot, box.lineEdit(), spec)
    qtbot.mouseClick(window.input_bar.run_button, Qt.LeftButton)  # Run
    qtbot.waitUntil(lambda: window.ctl.model_name == spec and not window.ctl.loader.busy, timeout=30000)
    wait_paused(qtbot, window, "blocks.0.attn.q_split")
    edit = box.lineEdit()
    assert edit.width() >= edit.fontMetrics().horizontalAdvance(spec) + 4  # all of it shows, not "…k:factory"
    window.ctl.close()


def test_the_view_menu_lists_every_dock_before_the_language(window):
    menu = window.view_menu
    menu.aboutToShow.emit()
    entries = [a for a in menu.actions()]
    language = next(i for i, a in enumerate(entries) if a.menu() is window.language_menu)
    toggles = [a.text() for a in entries[:language] if not a.isSeparator()]
    assert sorted(toggles) == sorted(d.windowTitle() for d in window.docks.values())
    assert all(a.isSeparator() or a.menu() is not None for a in entries[language:])  # nothing after it
