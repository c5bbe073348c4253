"""File ▸ Export… proposes a name from the model and the stage that no file has yet, and asks before replacing
a file that exists (issue 52, item 4)."""

from pathlib import Path

from PySide6.QtCore import Qt, QTimer
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QDialog, QDialogButtonBox, QMessageBox

from tfdebug.ui.actions.snapshots import FOLDER_KEY
from tfdebug.ui.features.export.dialog import ExportDialog


def export_dialog(window, monkeypatch, answer) -> None:
    """File ▸ Export… with `answer(dialog)` doing what a person does in the dialog (it returns the dialog's result)."""
    monkeypatch.setattr(ExportDialog, "exec", answer)
    window.actions_by_id["tfdebug.file.export"].trigger()


def click_in_message_box(button: QMessageBox.StandardButton, seen: list) -> None:
    """When the question pops up, note its text and click `button`."""
    box = next((w for w in QApplication.topLevelWidgets() if w.objectName() == "export-replace" and w.isVisible()), None)
    if box is None:
        QTimer.singleShot(20, lambda: click_in_message_box(button, seen))
        return
    seen.append(box.text())
    QTest.mouseClick(box.button(button), Qt.LeftButton)


def test_export_proposes_an_unused_name_from_the_model_and_stage(window, monkeypatch, settings, tmp_path):
    settings.setValue(FOLDER_KEY, str(tmp_path))
    proposed = []

    def look(dialog):
        proposed.append(dialog.path_edit.text())
        dialog.set_format(".npz")
        proposed.append(dialog.path_edit.text())
        return QDialog.Rejected

    export_dialog(window, monkeypatch, look)
    assert proposed == [str(tmp_path / "random-src-embed.safetensors"), str(tmp_path / "random-src-embed.npz")]
    (tmp_path / "random-src-embed.safetensors").write_bytes(b"an earlier export")
    proposed.clear()
    export_dialog(window, monkeypatch, look)
    assert proposed[0] == str(tmp_path / "random-src-embed-2.safetensors")  # not the earlier export
    assert proposed[1] == str(tmp_path / "random-src-embed.npz")  # free in that format


def test_export_asks_before_replacing_a_file(window, monkeypatch, settings, tmp_path, qtbot):
    earlier = tmp_path / "earlier.safetensors"
    earlier.write_bytes(b"an earlier export")
    asked: list = []

    def replace_or_not(dialog):
        dialog.show()
        dialog.path_edit.setText(str(earlier))
        ok = dialog.findChild(QDialogButtonBox).button(QDialogButtonBox.Ok)
        QTimer.singleShot(20, lambda: click_in_message_box(QMessageBox.No, asked))
        QTest.mouseClick(ok, Qt.LeftButton)  # OK: asked, No: still in the dialog, nothing written
        assert asked == ["earlier.safetensors already exists. Replace it?"] and dialog.isVisible()
        assert dialog.result() != QDialog.Accepted
        QTimer.singleShot(20, lambda: click_in_message_box(QMessageBox.Yes, asked))
        QTest.mouseClick(ok, Qt.LeftButton)  # OK again, Yes: replaced
        assert len(asked) == 2 and dialog.result() == QDialog.Accepted
        return dialog.result()

    export_dialog(window, monkeypatch, replace_or_not)
    qtbot.waitUntil(lambda: window.exports.job is not None and window.exports.job.done, timeout=30000)
    assert Path(earlier).read_bytes() != b"an earlier export"  # the pass was written over it, as answered
