"""What the message bar and status bar say always belongs to the pass on screen, not to the one before it."""

from PySide6.QtCore import Qt

from tests.ui.conftest import wait_paused
from tests.ui.user_actions import press


def test_restart_after_a_failed_pass_clears_the_failure(window, qtbot, loaded, monkeypatch):
    def broken(*args, **kwargs):
        raise RuntimeError("boom")
    monkeypatch.setattr(loaded.model.transformer.decoder.norm, "forward", broken)
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
