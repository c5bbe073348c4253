"""Edit Tensor… in the window: the dialog and the heatmap's menu, driven by keys and clicks."""

import torch
from PySide6.QtCore import QPointF, Qt
from PySide6.QtGui import QContextMenuEvent
from PySide6.QtWidgets import QApplication

from tests.ui.conftest import wait_paused
from tests.ui.user_actions import pick, press, run_to_stage, type_into

STAGE = "dec.1.cross_attn.probs"


def open_dialog(window, qtbot):
    press(window, Qt.Key_E, Qt.ControlModifier | Qt.ShiftModifier)
    qtbot.waitUntil(lambda: window.edit_tools.dialog is not None and window.edit_tools.dialog.isVisible())
    return window.edit_tools.dialog


def test_zero_a_head_undo_and_bad_edits(window, qtbot, tmp_path):
    run_to_stage(window, qtbot, STAGE)
    original = window.ctl.current.tensor
    dialog = open_dialog(window, qtbot)
    assert dialog.stage_label.text().startswith(f"{STAGE} (1,4,4,3); shown slice query × key at batch 0, head 0")

    # text that is not a number: one sentence, nothing changes
    pick(qtbot, dialog.operation, "Set to a value")
    pick(qtbot, dialog.target, "One row")
    type_into(qtbot, dialog.value, "zero")
    qtbot.mouseClick(dialog.apply_button, Qt.LeftButton)
    assert dialog.error_label.text() == "The value 'zero' is not a number."
    assert window.message_bar.isVisible() and window.last_error == "The value 'zero' is not a number."
    assert window.ctl.current.tensor is original and not window.ctl.current.edited

    # a CSV of the wrong shape: one sentence, nothing changes
    pick(qtbot, dialog.operation, "Fill the shown slice from a CSV file")
    csv = tmp_path / "slice.csv"
    csv.write_text("1,2\n3,4\n")
    type_into(qtbot, dialog.csv_path, str(csv))
    qtbot.mouseClick(dialog.apply_button, Qt.LeftButton)
    assert dialog.error_label.text() == "The CSV file holds 2 rows × 2 columns; the shown slice is 4 × 3."
    assert window.ctl.current.tensor is original

    # a good CSV fills the shown slice (head 0)
    csv.write_text("\n".join(",".join(str(r * 3 + c) for c in range(3)) for r in range(4)))
    qtbot.mouseClick(dialog.apply_button, Qt.LeftButton)
    assert dialog.error_label.text() == ""
    shown = window.ctl.current.tensor[0, 0]
    assert torch.equal(shown, torch.arange(12.0).reshape(4, 3))
    assert torch.equal(window.ctl.current.tensor[0, 1:], original[0, 1:])
    assert window.current_slice().values[3, 2] == 11  # the heatmap shows the edited tensor

    # zero head 0 on top, then undo both
    pick(qtbot, dialog.operation, "Zero a head")
    dialog.head.setFocus()
    type_into(qtbot, dialog.head.lineEdit(), "0")
    qtbot.mouseClick(dialog.apply_button, Qt.LeftButton)
    assert (window.ctl.current.tensor[0, 0] == 0).all()
    assert window.navigator.items[STAGE].text(2).endswith("· edited")
    qtbot.waitUntil(lambda: "(edited)" in window.shape_panel.plain_text())  # the panel follows the heatmap
    press(window, Qt.Key_Z, Qt.ControlModifier | Qt.AltModifier)
    qtbot.waitUntil(lambda: torch.equal(window.ctl.current.tensor[0, 0], torch.arange(12.0).reshape(4, 3)))
    qtbot.mouseClick(dialog.undo_button, Qt.LeftButton)
    qtbot.waitUntil(lambda: window.ctl.current.tensor is original)
    assert not window.ctl.current.edited and not window.navigator.items[STAGE].text(2).endswith("edited")
    assert not dialog.undo_button.isEnabled()

    # a stage already passed cannot be edited
    press(window, Qt.Key_F10, Qt.ShiftModifier)
    wait_paused(qtbot, window)
    passed = window.ctl.current
    assert passed.name != STAGE
    qtbot.mouseClick(dialog.apply_button, Qt.LeftButton)
    assert dialog.error_label.text().startswith(f"Stage {passed.name} has already run")
    assert not passed.edited


def test_heatmap_context_menu_opens_the_dialog_on_a_cell(window, qtbot):
    run_to_stage(window, qtbot, STAGE)
    panel = window.heatmap_panel
    vb = panel.plot.vb
    # the centre of cell (row 2, column 1) in widget coordinates
    pos = panel.graphics.mapFromScene(vb.mapViewToScene(QPointF(1.5, 2.5)))
    # a right-click's context menu event on the heatmap
    viewport = panel.graphics.viewport()
    QApplication.sendEvent(viewport, QContextMenuEvent(QContextMenuEvent.Mouse, pos, viewport.mapToGlobal(pos)))
    qtbot.waitUntil(lambda: window.edit_tools.menu is not None and window.edit_tools.menu.isVisible())
    menu = window.edit_tools.menu
    texts = [a.text() for a in menu.actions()]
    assert texts[:3] == ["Edit Cell (2, 1)…", "Edit Row 2…", "Edit Column 1…"]
    assert "Edit Tensor…" in texts and "Undo Edit" in texts
    menu.actions()[0].trigger()
    menu.close()
    dialog = window.edit_tools.dialog
    qtbot.waitUntil(dialog.isVisible)
    assert (dialog.target.currentText(), dialog.row.value(), dialog.col.value()) == ("One cell", 2, 1)
    type_into(qtbot, dialog.value, "-1")
    qtbot.mouseClick(dialog.apply_button, Qt.LeftButton)
    assert window.ctl.current.tensor[0, 0, 2, 1] == -1 and window.ctl.current.edited


def test_continue_runs_on_the_edit_restart_runs_unedited(window, qtbot):
    run_to_stage(window, qtbot, STAGE)
    dialog = open_dialog(window, qtbot)
    pick(qtbot, dialog.operation, "Zero a head")
    qtbot.mouseClick(dialog.apply_button, Qt.LeftButton)
    press(window, Qt.Key_F5)
    qtbot.waitUntil(lambda: window.ctl.stepper.state == "finished")
    edited_logits = window.ctl.stepper.output.clone()
    # File → Export… of this pass writes the mark into the manifest
    recording, _ = window.ctl.recording()
    marks = {s["name"]: s["edited"] for s in recording.manifest()["stages"]}
    assert marks[STAGE] is True and sum(marks.values()) == 1
    press(window, Qt.Key_F5, Qt.ControlModifier | Qt.ShiftModifier)  # Restart
    wait_paused(qtbot, window, "src.embed")
    press(window, Qt.Key_F5)
    qtbot.waitUntil(lambda: window.ctl.stepper.state == "finished")
    assert not torch.allclose(edited_logits, window.ctl.stepper.output)
    assert not any(c.edited for c in window.ctl.stepper.history)
