"""Condition breakpoints in the window, set from the dialog and hit by pressing F5, as a user does."""

from PySide6.QtCore import Qt

from tests.ui.conftest import wait_paused
from tests.ui.user_actions import pick, press, type_into


def test_a_nan_condition_stops_where_the_nan_arrives_and_says_so(window, qtbot):
    dialog = window.navigator.open_conditions()  # Breakpoints ▸ Conditions…
    qtbot.mouseClick(dialog.nan, Qt.LeftButton)
    dialog.accept()
    # Put a NaN into the paused stage (Edit Tensor…), then Continue.
    press(window, Qt.Key_E, Qt.ControlModifier | Qt.ShiftModifier)
    qtbot.waitUntil(lambda: window.edit_tools.dialog is not None and window.edit_tools.dialog.isVisible())
    edit = window.edit_tools.dialog
    pick(qtbot, edit.operation, "Set to a value")
    pick(qtbot, edit.target, "One cell")
    type_into(qtbot, edit.value, "nan")
    qtbot.mouseClick(edit.apply_button, Qt.LeftButton)
    edit.close()
    press(window, Qt.Key_F5)
    wait_paused(qtbot, window, "src.pos")  # src.pe is the table, without the NaN; src.pos adds it
    assert window.message_bar.text() == "Stopped at src.pos: breakpoint on contains NaN."
