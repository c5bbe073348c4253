"""File → Compare With…: choose two passes and the tolerance; the comparison runs as a Job.

Each side is the pass on screen, the pass before the last edit (run again, unedited),
a snapshot or export file, another input on the same model, or the same input on the
same model in another dtype or on another device (the reference pass of
features/reference/tools: loaded as a second model, so the pass on screen may stay paused). Passes
that need the model on screen run off the UI thread; the model must not be paused
mid-forward then (its taps belong to the live pass), which the dialog says in one sentence.
Over a remote pass the other side is one the server makes (another dtype on its device, the pass
before the last edit, a snapshot named in its export folder) and the server compares
(tfdebug.remote.comparing); a file on this machine is refused with the reason.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QFileDialog,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from tfdebug.sessions.compare_sides import BEFORE_EDIT, FILE, INPUT, LIVE, PLACED, Side
from tfdebug.sessions.crosscheck import default_tolerance
from tfdebug.core.devices import resolve_dtype
from tfdebug.core.errors import TfdebugError
from tfdebug.ui.actions.snapshots import pass_filter
from tfdebug.ui.i18n.language import error_text, phrase_text, said, translate
from tfdebug.ui.widgets.placement import PlacementPicker, default_reference_dtype, on_screen_placement, placement_text
from tfdebug.ui.widgets.sentence_label import sentence_label
from tfdebug.ui.widgets.tolerance import parse_tolerance

SOURCES = ((LIVE, QT_TRANSLATE_NOOP("SourcePicker", "The pass on screen")),
           (BEFORE_EDIT, QT_TRANSLATE_NOOP("SourcePicker", "The pass before the last edit")),
           (FILE, QT_TRANSLATE_NOOP("SourcePicker", "A snapshot or export file")),
           (INPUT, QT_TRANSLATE_NOOP("SourcePicker", "Another input on the same model")),
           (PLACED, QT_TRANSLATE_NOOP("SourcePicker", "This input in another dtype or on another device")))


class SourcePicker(QGroupBox):
    """One side of the comparison: what it is, and the file or texts it needs."""

    def __init__(self, title: str, window, default: str, parent: QWidget | None = None):
        super().__init__(title, parent)
        self.window = window
        self.kind = QComboBox()
        for key, text in SOURCES:
            self.kind.addItem(self.tr(text), key)
        self.path = QLineEdit()
        self.path.setPlaceholderText(self.tr("a .safetensors snapshot, or a .npz / .pt export"))
        self.browse = QPushButton(self.tr("Browse…"))
        self.browse.clicked.connect(self._browse)
        self.file_row = QWidget()
        row = QHBoxLayout(self.file_row)
        row.setContentsMargins(0, 0, 0, 0)
        row.addWidget(self.path, 1)
        row.addWidget(self.browse)
        self.fields: dict[str, QLineEdit] = {}
        self.inputs = QWidget()
        form = QFormLayout(self.inputs)
        form.setContentsMargins(0, 0, 0, 0)
        # another input runs on the model here (a served pass's server is not asked for one)
        for input_field in (window.ctl.adapter.inputs if window.ctl.capabilities.model_here else ()):
            edit = QLineEdit(window.ctl.inputs.texts.get(input_field.key, ""))
            edit.setPlaceholderText(translate("inputs", input_field.placeholder) if input_field.placeholder else "")
            form.addRow(translate("inputs", input_field.label), edit)
            self.fields[input_field.key] = edit
        on_screen, device = on_screen_placement(window.ctl)
        self.placement = PlacementPicker(default_reference_dtype(on_screen), device)
        capabilities = window.ctl.capabilities
        if capabilities.snapshots_there:  # the pass's machine reads the snapshot: a name in its export folder
            self.path.setPlaceholderText(self.tr("a snapshot's file name in the server's export folder"))
            self.browse.hide()  # it would browse this machine's files
        if capabilities.reference_device_fixed:  # the other dtype runs on the pass's own device
            self.placement.fix_device(device)
        layout = QVBoxLayout(self)
        layout.addWidget(self.kind)
        layout.addWidget(self.file_row)
        layout.addWidget(self.inputs)
        layout.addWidget(self.placement)
        self.kind.currentIndexChanged.connect(self._shown)
        self.kind.setCurrentIndex(self.kind.findData(default))
        self._shown()

    def _shown(self) -> None:
        kind = self.kind.currentData()
        self.file_row.setVisible(kind == FILE)
        self.inputs.setVisible(kind == INPUT)
        self.placement.setVisible(kind == PLACED)

    def _browse(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, self.tr("A recorded pass"), "",
                                              pass_filter())
        if path:
            self.path.setText(path)

    def source(self) -> Side:
        """The side picked (`sessions.compare_sides.Side`): its kind with its file, texts and placement."""
        return Side(self.kind.currentData(), self.path.text().strip(),
                          {k: e.text() for k, e in self.fields.items()}, self.placement.placement())


class CompareDialog(QDialog):
    """A and B, atol and rtol; Compare starts the comparison and shows it in the Compare dock."""

    def __init__(self, tools, parent: QWidget | None = None):
        super().__init__(parent)
        self.tools = tools
        window = tools.window
        self.setWindowTitle(self.tr("Compare With"))
        edit = window.tools.edit
        has_edit = edit is not None and edit.last_edit is not None
        self.a = SourcePicker(self.tr("A (the reference)"), window, LIVE)
        self.b = SourcePicker(self.tr("B (compared with A)"), window, BEFORE_EDIT if has_edit else FILE)
        self.atol = QLineEdit(f"{tools.atol:g}")
        self.rtol = QLineEdit(f"{tools.rtol:g}")
        tolerance = QHBoxLayout()
        tolerance.addWidget(QLabel(self.tr("atol")))
        tolerance.addWidget(self.atol)
        tolerance.addWidget(QLabel(self.tr("rtol")))
        tolerance.addWidget(self.rtol)
        rule = QLabel(self.tr("A cell diverges when |A − B| > atol + rtol·|A|."))
        self.error_label = sentence_label()
        self.compare_button = QPushButton(self.tr("Compare"))
        self.compare_button.setDefault(True)
        self.compare_button.clicked.connect(self.start)
        cancel = QPushButton(self.tr("Close"))
        cancel.clicked.connect(self.close)
        buttons = QHBoxLayout()
        buttons.addStretch(1)
        buttons.addWidget(self.compare_button)
        buttons.addWidget(cancel)
        layout = QVBoxLayout(self)
        sides = QHBoxLayout()
        sides.addWidget(self.a)
        sides.addWidget(self.b)
        layout.addLayout(sides)
        layout.addLayout(tolerance)
        layout.addWidget(rule)
        layout.addWidget(self.error_label)
        layout.addLayout(buttons)
        for side in (self.a, self.b):  # another dtype: the tolerance the coarser of the two can hold
            side.kind.currentIndexChanged.connect(self._default_tolerance)
            side.placement.changed.connect(self._default_tolerance)

    def _default_tolerance(self) -> None:
        placed = [side.placement.placement() for side in (self.a, self.b) if side.kind.currentData() == PLACED]
        ctl = self.tools.ctl
        on_screen, _ = on_screen_placement(ctl)
        if not placed or ctl.source is None or not ctl.source.runs_on:
            return
        atol, rtol = default_tolerance(resolve_dtype(on_screen), resolve_dtype(placed[0].dtype))
        self.atol.setText(f"{atol:g}")
        self.rtol.setText(f"{rtol:g}")

    def start(self) -> bool:
        """Check the fields and start the comparison; a problem is one sentence here."""
        try:
            atol, rtol = parse_tolerance(self.atol.text(), self.rtol.text())
            self.tools.start(self.a.source(), self.b.source(), atol, rtol)
        except TfdebugError as exc:
            self.error_label.setText(error_text(exc))
            return False
        self.error_label.setText("")
        self.close()
        return True


def describe(source: Side, window) -> str:
    """A short label for a side of the comparison, shown above the table (said again in another language)."""
    if source.kind == LIVE:
        title = window.ctl.title or window.ctl.model_name
        return said(lambda: QCoreApplication.translate("CompareDialog", "the pass on screen ({title})").format(
            title=title))
    if source.kind == BEFORE_EDIT:
        last = window.edit_tools.last_edit
        return said(lambda: QCoreApplication.translate(
            "CompareDialog", "the pass before the last edit ({stage}: {edit})").format(
            stage=last.stage, edit=phrase_text(last.description)))
    if source.kind == FILE:
        return Path(source.path).name
    if source.kind == PLACED:
        return said(lambda: QCoreApplication.translate("CompareDialog", "this input in {placement}").format(
            placement=placement_text(source.placement)))
    return " → ".join(t for t in source.texts.values() if t)
