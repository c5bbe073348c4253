"""The Export dialog and File → Export read the one export-format registry (tfdebug.io.formats)."""

import json

from PySide6.QtWidgets import QDialog

from tests.io.test_export_registry import names_format  # noqa: F401 - the registered toy format
from tfdebug.io.formats import formats
from tfdebug.ui.features.export.dialog import ExportDialog


def test_the_dialog_offers_every_registered_format(qtbot, names_format, tmp_path):  # noqa: F811
    dialog = ExportDialog(["src.embed", "logits"], "logits", str(tmp_path), has_slice=False)
    qtbot.addWidget(dialog)
    box = dialog.format_box
    offered = [(box.itemText(i), box.itemData(i)) for i in range(box.count())]
    assert offered == [(f.label, f.suffix) for f in formats()]
    assert offered[-1] == ("Stage names (.names)", ".names")
    enabled = {box.itemData(i): box.model().item(i).isEnabled() for i in range(box.count())}
    assert enabled[".names"] and enabled[".npz"] and not enabled[".png"]  # no heatmap shown: views off
    dialog.set_format(".names")
    assert dialog.path_edit.text().endswith("pass.names") and dialog.whole.isEnabled()


def test_file_export_writes_a_registered_format(window, names_format, qtbot, monkeypatch, tmp_path):  # noqa: F811
    out = tmp_path / "chosen.names"

    def answer(dialog):
        dialog.set_format(".names")
        dialog.path_edit.setText(str(out))
        return QDialog.Accepted

    monkeypatch.setattr(ExportDialog, "exec", answer)
    window.actions_by_id["tfdebug.file.export"].trigger()
    qtbot.waitUntil(lambda: window.exports.job is not None and window.exports.job.done, timeout=10000)
    assert json.loads(out.read_text()) == ["src.embed"]  # the stages run so far
