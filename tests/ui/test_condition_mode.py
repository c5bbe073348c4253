"""Fast condition checks from the Condition Breakpoints dialog: one sync per pass, trade-off stated."""

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel

from tests.ui.user_actions import press


def test_fast_condition_check_shows_the_first_hit_after_the_pass(window, qtbot):
    dialog = window.tools.conditions.open()
    assert any("already run" in label.text() for label in dialog.findChildren(QLabel))
    dialog.abs_gt.setChecked(True)
    dialog.threshold.setValue(1.5)
    dialog.fast.setChecked(True)
    dialog.accept()
    assert window.ctl.stepper.condition_mode == "fast"
    notices = []
    window.ctl.info.connect(notices.append)
    press(window, Qt.Key_F5)  # Continue
    ctl = window.ctl
    qtbot.waitUntil(lambda: ctl.stepper.state == "finished" and ctl.current is ctl.stepper.current)
    history = ctl.stepper.history
    shown = ctl.current
    # The pass ran to the end, and the window shows the first stage over the threshold, not the last.
    assert shown is not history[-1] and float(shown.tensor.abs().amax()) > 1.5
    assert all(float(c.tensor.abs().amax()) <= 1.5 for c in history[1:ctl.stepper.cursor]
               if c.tensor.is_floating_point())
    assert any(shown.name in n and "already run" in n for n in notices)
    # The choice persists for the next pass.
    assert window.tools.conditions.open().fast.isChecked()
