"""The File → Export… dialog: where to, which format, the whole pass or chosen stages."""

from __future__ import annotations

import re
from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QButtonGroup,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QMessageBox,
    QPushButton,
    QRadioButton,
    QVBoxLayout,
    QWidget,
)

from tfdebug.io.formats import formats, suffixes
from tfdebug.ui.i18n.language import phrase_text


def file_stem(model: str, stage: str | None) -> str:
    """A file name (without its suffix) for an export of `model`'s pass at `stage`: "demo-enc-0-attn-probs"
    (a hub id or a folder gives its last part; anything but letters, digits, _ and - becomes -)."""
    name = Path(model.replace(":", "/")).name if model else ""
    stem = re.sub(r"[^\w-]+", "-", "-".join(part for part in (name, stage or "") if part), flags=re.ASCII)
    return stem.strip("-")[:80] or "pass"


def unused_path(folder: str | Path, stem: str, suffix: str) -> Path:
    """`folder`/`stem``suffix`, or with -2, -3 … after the stem: the first that does not exist yet."""
    path, n = Path(folder) / f"{stem}{suffix}", 1
    while path.exists():
        n += 1
        path = Path(folder) / f"{stem}-{n}{suffix}"
    return path


class ExportDialog(QDialog):
    """Choose a file, a format and (for pass formats) the stages. `choice()` reads the answer.

    The file proposed is `stem` (tfdebug.ui.features.export.dialog.file_stem: the model and the stage) in `folder`,
    under a name no file has yet; OK on a file that exists asks before replacing it."""

    def __init__(self, stage_names: list[str], current: str | None, folder: str, note: str = "",
                 has_slice: bool = True, parent: QWidget | None = None, stem: str = "pass"):
        super().__init__(parent)
        self._folder, self._stem = folder, stem
        self._confirmed: str | None = None  # a path the file dialog already asked to replace
        self.setWindowTitle(self.tr("Export"))
        self.setObjectName("export-dialog")
        self.format_box = QComboBox()
        self._labels = {fmt.suffix: phrase_text(fmt.label) for fmt in formats()}  # the registry's Phrases
        self._pass_suffixes = suffixes("pass")
        for fmt in formats():  # the one registry: pass formats record stages, view formats the heatmap
            self.format_box.addItem(self._labels[fmt.suffix], fmt.suffix)
            if fmt.scope == "view" and not has_slice:
                self.format_box.model().item(self.format_box.count() - 1).setEnabled(False)
        self._proposed = str(unused_path(folder, stem, self.suffix()))
        self.path_edit = QLineEdit(self._proposed)
        browse = QPushButton(self.tr("Browse…"))
        browse.clicked.connect(self._browse)
        path_row = QHBoxLayout()
        path_row.addWidget(self.path_edit, 1)
        path_row.addWidget(browse)

        self.whole = QRadioButton(self.tr("Whole pass"))
        self.selected = QRadioButton(self.tr("Selected stages"))
        self.whole.setChecked(True)
        group = QButtonGroup(self)
        group.addButton(self.whole)
        group.addButton(self.selected)
        self.stage_list = QListWidget()
        for name in stage_names:
            item = QListWidgetItem(name)
            item.setFlags(item.flags() | Qt.ItemFlag.ItemIsUserCheckable)
            item.setCheckState(Qt.CheckState.Checked if name == current else Qt.CheckState.Unchecked)
            self.stage_list.addItem(item)
        self.stage_list.setEnabled(False)
        self.selected.toggled.connect(self.stage_list.setEnabled)
        self.note = QLabel(phrase_text(note))  # io's note about a partial pass: a Phrase
        self.note.setWordWrap(True)
        self.note.setVisible(bool(note))

        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        form = QFormLayout()
        form.addRow(self.tr("Format"), self.format_box)
        form.addRow(self.tr("File"), path_row)
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addWidget(self.whole)
        layout.addWidget(self.selected)
        layout.addWidget(self.stage_list, 1)
        layout.addWidget(self.note)
        layout.addWidget(buttons)
        self.format_box.currentIndexChanged.connect(self._format_changed)
        self.path_edit.textEdited.connect(self._path_edited)

    def suffix(self) -> str:
        return self.format_box.currentData()

    def set_format(self, suffix: str) -> None:
        self.format_box.setCurrentIndex(self.format_box.findData(suffix))

    def _format_changed(self) -> None:
        suffix = self.suffix()
        for widget in (self.whole, self.selected):
            widget.setEnabled(suffix in self._pass_suffixes)
        self.stage_list.setEnabled(suffix in self._pass_suffixes and self.selected.isChecked())
        if self.path_edit.text() == self._proposed:  # still the proposed name: the one free for this format
            self._proposed = str(unused_path(self._folder, self._stem, suffix))
            self.path_edit.setText(self._proposed)
            return
        path = Path(self.path_edit.text() or "pass")
        self.path_edit.setText(str(path.with_suffix(suffix)))

    def _path_edited(self, text: str) -> None:
        suffix = Path(text).suffix.lower()
        if suffix in self._labels and suffix != self.suffix():
            self.format_box.blockSignals(True)
            self.set_format(suffix)
            self.format_box.blockSignals(False)

    def _browse(self) -> None:
        suffix = self.suffix()
        path, _ = QFileDialog.getSaveFileName(self, self.tr("Export to"), self.path_edit.text(),
                                              f"{self._labels[suffix]} (*{suffix});;" + self.tr("All files (*)"))
        if path:
            self._confirmed = path  # the file dialog asked already when it exists
            self.path_edit.setText(path)
            self._path_edited(path)

    def accept(self) -> None:
        """OK: a file that exists is replaced only when the user says so (No stays in the dialog)."""
        path = self.path_edit.text()
        if path != self._confirmed and Path(path).is_file() and not self._replace(path):
            return
        super().accept()

    def _replace(self, path: str) -> bool:
        box = QMessageBox(QMessageBox.Icon.Warning, self.tr("Export"),
                          self.tr("{name} already exists. Replace it?").format(name=Path(path).name),
                          QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No, self)
        box.setObjectName("export-replace")
        box.setDefaultButton(QMessageBox.StandardButton.No)
        return box.exec() == QMessageBox.StandardButton.Yes

    def checked_stages(self) -> list[str]:
        items = (self.stage_list.item(i) for i in range(self.stage_list.count()))
        return [item.text() for item in items if item.checkState() == Qt.CheckState.Checked]

    def choice(self) -> tuple[str, str, list[str] | None]:
        """(path, suffix, stages) — stages is None for the whole pass."""
        stages = self.checked_stages() if self.selected.isChecked() and self.suffix() in self._pass_suffixes else None
        return self.path_edit.text(), self.suffix(), stages
