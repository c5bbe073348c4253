"""Condition breakpoints in the window, set from the dialog and hit by pressing F5, as a user does."""

from PySide6.QtCore import Qt

from tests.ui.conftest import wait_paused
from tests.ui.user_actions import pick, press, type_into


def nan_carried_to_src_pos(window, qtbot) -> None:
    """Break on NaN (Breakpoints ▸ Conditions…), put a NaN in the paused src.embed (Edit Tensor…), press F5."""
    dialog = window.tools.conditions.open()
    qtbot.mouseClick(dialog.nan, Qt.LeftButton)
    dialog.accept()
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


def test_a_nan_condition_stops_where_the_nan_arrives_and_says_so(window, qtbot):
    nan_carried_to_src_pos(window, qtbot)
    assert window.message_bar.text() == "Stopped at src.pos: breakpoint on contains NaN."


def test_a_nan_carried_through_an_addition_keeps_its_tick(window, qtbot):
    # src.pos is exactly src.embed + src.pe, NaN cell included: the Explain panel must not blame the addition.
    nan_carried_to_src_pos(window, qtbot)
    panel = window.explain_panel
    qtbot.waitUntil(lambda: panel.checks is not None and "computing…" not in panel.plain_text())
    assert "✓ Exactly the embedding + the PE table" in panel.plain_text()
    assert "max |Δ| = 0.0e+00" in panel.plain_text()


def test_the_divergence_reference_of_a_pass_here_is_placed_and_kept_here(window, qtbot):
    """Over a pass here the dialog offers the reference's device and says it is kept on this host (its source's
    capabilities: the reference is neither on a fixed device nor held elsewhere); a served pass's is in
    tests/ui/test_remote_compare.py."""
    dialog = window.tools.conditions.open()
    capabilities = window.ctl.capabilities
    assert not capabilities.reference_device_fixed and not dialog.placement.device.isHidden()
    assert not capabilities.reference_held_there and "kept on the host" in dialog.diverges_note.text()
    dialog.reject()
