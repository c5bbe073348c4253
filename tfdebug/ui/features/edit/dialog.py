"""Edit Tensor…: change the paused stage's tensor from the window, and take the change back.

Debug → Edit Tensor… (Ctrl+Shift+E) and the heatmap's context menu open one dialog: set a
cell, a row, a column, the shown slice or the whole tensor to a value, scale it, zero a
head or keep only one, or fill the shown slice from a CSV file. The edit is made by
core.edits on the tensor's device and applied with `Stepper.replace`, so Continue runs
the rest of the pass on it; Debug → Undo Edit (Ctrl+Alt+Z) takes it back before the pass
moves on. A bad edit shows one sentence and changes nothing. `EditTools.last_edit`
remembers the model and texts of the last edited pass, for "the pass before the last edit".
"""

from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication, QPoint, Qt
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QMenu,
    QPushButton,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from tfdebug.core import files
from tfdebug.core.edits import (
    CELL,
    COLUMN,
    FILL_CSV,
    KEEP_HEAD,
    ROW,
    SCALE,
    SET,
    SLICE,
    TENSOR,
    ZERO_HEAD,
    Edit,
    Region,
    head_axis,
    parse_number,
    read_csv_values,
    slice_shape,
)
from tfdebug.core.errors import EditError, TfdebugError
from tfdebug.ui.actions import registry as actions
from tfdebug.ui.actions.context import ActionContext
from tfdebug.ui.i18n.language import axis_title, error_text, phrase_text, said
from tfdebug.ui.state.controller import DebugController
from tfdebug.ui.widgets.sentence_label import sentence_label

OPERATIONS = ((SET, QT_TRANSLATE_NOOP("EditDialog", "Set to a value")),
              (SCALE, QT_TRANSLATE_NOOP("EditDialog", "Scale by a factor")),
              (ZERO_HEAD, QT_TRANSLATE_NOOP("EditDialog", "Zero a head")),
              (KEEP_HEAD, QT_TRANSLATE_NOOP("EditDialog", "Keep only one head")),
              (FILL_CSV, QT_TRANSLATE_NOOP("EditDialog", "Fill the shown slice from a CSV file")))
TARGETS = ((CELL, QT_TRANSLATE_NOOP("EditDialog", "One cell")), (ROW, QT_TRANSLATE_NOOP("EditDialog", "One row")),
           (COLUMN, QT_TRANSLATE_NOOP("EditDialog", "One column")),
           (SLICE, QT_TRANSLATE_NOOP("EditDialog", "The shown slice")),
           (TENSOR, QT_TRANSLATE_NOOP("EditDialog", "The whole tensor")))
MAX_CSV_BYTES = 16 << 20  # a shown slice is at most a few million cells


@dataclass(frozen=True)
class LastEdit:
    """The pass an edit was made in: its adapter and texts (to run it again unedited), stage and edit."""

    adapter: object
    texts: dict
    stage: str
    description: str


def can_edit(ctl: DebugController) -> bool:
    s = ctl.stepper
    return s is not None and s.is_live and s.at_live_point and ctl.current is not None


@actions.action("tfdebug.edit.tensor", QT_TRANSLATE_NOOP("actions", "Edit Tensor…"), "Ctrl+Shift+E",
                QT_TRANSLATE_NOOP("actions", "Change the paused stage's tensor: a cell, row, column, head or slice; "
                                  "Continue runs on it"),
                enabled=can_edit, live_only=True, toolbar=False,
                menu="debug", group=4, order=0)
def edit_tensor(ctx: ActionContext) -> None:
    ctx.tools.edit.open_dialog()


@actions.action("tfdebug.edit.undo", QT_TRANSLATE_NOOP("actions", "Undo Edit"), "Ctrl+Alt+Z",
                QT_TRANSLATE_NOOP("actions", "Take back the last edit of the paused stage"),
                enabled=lambda ctl: ctl.stepper is not None and ctl.stepper.edits_to_undo > 0, live_only=True,
                toolbar=False,
                menu="debug", group=4, order=10)
def undo_edit(ctx: ActionContext) -> None:
    ctl = ctx.ctl
    if ctl.steps.command(ctl.stepper.undo_replace):
        name = ctl.current.name if ctl.current is not None else None
        ctl.inform(said(lambda: QCoreApplication.translate("EditDialog", "Edit of {name} undone.").format(name=name)
                      if name is not None else QCoreApplication.translate("EditDialog", "Edit undone.")))


class EditDialog(QDialog):
    """The fields of one edit of the current stage; Apply makes it, Undo takes the last one back."""

    def __init__(self, ctl: DebugController, tools: "EditTools", parent: QWidget | None = None):
        super().__init__(parent)
        self.ctl = ctl
        self.tools = tools
        self.setWindowTitle(self.tr("Edit Tensor"))
        self.stage_label = QLabel()
        self.stage_label.setWordWrap(True)
        self.stage_label.setTextFormat(Qt.TextFormat.PlainText)
        self.operation = QComboBox()
        for key, text in OPERATIONS:
            self.operation.addItem(self.tr(text), key)
        self.target = QComboBox()
        for key, text in TARGETS:
            self.target.addItem(self.tr(text), key)
        self.row = QSpinBox()
        self.col = QSpinBox()
        self.head = QSpinBox()
        self.value = QLineEdit("0")
        self.value.setToolTip(self.tr("A number: 0, -1e-3, -inf …"))
        self.csv_path = QLineEdit()
        self.csv_path.setPlaceholderText(self.tr("a CSV file of the shown slice's shape"))
        browse = QPushButton(self.tr("Browse…"))
        browse.clicked.connect(self._browse)
        csv_row = QHBoxLayout()
        csv_row.addWidget(self.csv_path, 1)
        csv_row.addWidget(browse)
        form = QFormLayout()
        form.addRow(self.tr("Edit"), self.operation)
        form.addRow(self.tr("Where"), self.target)
        form.addRow(self.tr("Row"), self.row)
        form.addRow(self.tr("Column"), self.col)
        form.addRow(self.tr("Head"), self.head)
        form.addRow(self.tr("Value"), self.value)
        form.addRow(self.tr("CSV file"), csv_row)
        self.form = form
        self.error_label = sentence_label()
        self.apply_button = QPushButton(self.tr("Apply"))
        self.apply_button.setDefault(True)
        self.apply_button.clicked.connect(self.apply)
        self.undo_button = QPushButton(self.tr("Undo Edit"))
        self.undo_button.clicked.connect(lambda: actions.trigger("tfdebug.edit.undo", tools.window.action_context))
        close = QPushButton(self.tr("Close"))
        close.clicked.connect(self.close)
        buttons = QHBoxLayout()
        buttons.addStretch(1)
        for button in (self.undo_button, self.apply_button, close):
            buttons.addWidget(button)
        layout = QVBoxLayout(self)
        layout.addWidget(self.stage_label)
        layout.addLayout(form)
        layout.addWidget(self.error_label)
        layout.addLayout(buttons)
        self.operation.currentIndexChanged.connect(self._fields_shown)
        self.target.currentIndexChanged.connect(self._fields_shown)
        ctl.shown.model.followed.connect(self._followed)
        ctl.state_changed.connect(self._buttons)
        self.refresh()

    # ----- what the fields say ---------------------------------------------------------
    def choose(self, op: str, target: str | None = None, row: int | None = None, col: int | None = None) -> None:
        """Preset the fields (the heatmap's context menu opens the dialog on a cell, row or column)."""
        self.operation.setCurrentIndex(self.operation.findData(op))
        if target is not None:
            self.target.setCurrentIndex(self.target.findData(target))
        if row is not None:
            self.row.setValue(row)
        if col is not None:
            self.col.setValue(col)

    def region(self) -> Region:
        ctl = self.ctl
        return Region(ctl.view.row_axis, ctl.view.col_axis, ctl.axes.indices(ctl.current))

    def _followed(self, event) -> None:
        if event.new_slice:
            self.refresh()

    def refresh(self) -> None:
        """Describe the current stage and fit the row, column and head ranges to it."""
        capture = self.ctl.current
        self.error_label.setText("")
        if capture is None:
            self.stage_label.setText(self.tr("No stage is shown."))
            self._buttons()
            return
        names = self.ctl.axes.names(capture)
        rows, cols = slice_shape(capture.shape, self.region())
        self.row.setRange(0, max(rows - 1, 0))
        self.col.setRange(0, max(cols - 1, 0))
        heads = head_axis(names)
        self.head.setRange(0, capture.shape[heads] - 1 if heads is not None else 0)
        shown = ""
        if len(names) >= 2:
            fixed = ", ".join(f"{axis_title(names[a])} {i}" for a, i in self.ctl.axes.indices(capture).items())
            shown = self.tr("; shown slice {row} × {col}").format(
                row=axis_title(names[self.ctl.view.row_axis]), col=axis_title(names[self.ctl.view.col_axis])) + (
                self.tr(" at {fixed}").format(fixed=fixed) if fixed else "")
        shape = "(" + ",".join(map(str, capture.shape)) + ")"
        state = self.tr(" (edited)") if capture.edited else ""
        where = "" if can_edit(self.ctl) else self.tr(" — not the stage the pass is paused at, so it cannot be edited")
        self.stage_label.setText(f"{capture.name}{state} {shape}{shown}{where}")
        self._fields_shown()
        self._buttons()

    def _fields_shown(self) -> None:
        op = self.operation.currentData()
        target = self.target.currentData()
        on_region = op in (SET, SCALE)
        show = {self.target: on_region, self.row: on_region and target in (CELL, ROW),
                self.col: on_region and target in (CELL, COLUMN), self.value: on_region,
                self.head: op in (ZERO_HEAD, KEEP_HEAD), self.csv_path: op == FILL_CSV}
        for widget, visible in show.items():
            self.form.setRowVisible(widget if widget is not self.csv_path else 6, visible)
        self.form.labelForField(self.value).setText(self.tr("Factor") if op == SCALE else self.tr("Value"))

    def _buttons(self) -> None:
        self.apply_button.setEnabled(self.ctl.current is not None)
        self.undo_button.setEnabled(actions.applies("tfdebug.edit.undo", self.ctl))

    def _browse(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, self.tr("CSV file of the shown slice"), "",
                                              self.tr("CSV files (*.csv);;All files (*)"))
        if path:
            self.csv_path.setText(path)

    def edit(self) -> Edit:
        """The Edit the fields describe; EditError for a value that is not a number or a bad CSV."""
        op = self.operation.currentData()
        if op in (ZERO_HEAD, KEEP_HEAD):
            return Edit(op, head=self.head.value())
        if op == FILL_CSV:
            shape = slice_shape(self.ctl.current.shape, self.region())
            return Edit(FILL_CSV, values=read_csv_values(read_text(self.csv_path.text()), shape))
        what = self.tr("The factor") if op == SCALE else self.tr("The value")
        return Edit(op, self.target.currentData(), parse_number(self.value.text(), what),
                    row=self.row.value(), col=self.col.value())

    # ----- applying ----------------------------------------------------------------------
    def apply(self) -> bool:
        """Make the edit on the paused stage; a bad one shows its sentence and changes nothing."""
        ctl = self.ctl
        capture = ctl.current
        try:
            if capture is None or ctl.stepper is None:
                raise EditError(said(lambda: self.tr("Nothing is shown yet: run a pass and pause at a stage first.")))
            if not ctl.stepper.is_live:
                raise EditError(said(lambda: self.tr(
                    "A recorded pass cannot be edited: there is no model to run the rest of it.")))
            edit = self.edit()
            ctl.stepper.edit(edit, self.region())  # where the tensor is (a served pass: on the server)
        except TfdebugError as exc:
            self.error_label.setText(error_text(exc))
            ctl.refuse(exc)
            return False
        finally:
            ctl.announce_state()
        self.tools.remember(capture.name, edit.describe())
        name, done = capture.name, edit.describe()
        ctl.inform(said(lambda: self.tr("{name}: {edit}. Continue runs the rest of the pass on it.").format(
            name=name, edit=phrase_text(done))))
        self.error_label.setText("")
        return True


def read_text(path: str) -> str:
    """The text of a CSV file; EditError in one sentence when it cannot be read."""
    if not path.strip():
        raise EditError(said(lambda: QCoreApplication.translate("EditDialog",
                                                                "Choose a CSV file to fill the shown slice from.")))
    # Regular files only, bounded before reading: a FIFO would block the GUI thread forever and a
    # link to /dev/zero reports size 0 and never ends; both are one sentence instead.
    return files.read_text(path.strip(), MAX_CSV_BYTES, EditError).removeprefix("\ufeff")


class EditTools:
    """The window's edit dialog, the heatmap's context menu, and the last edit made."""

    def __init__(self, window):
        self.window = window
        self.ctl: DebugController = window.ctl
        self.dialog: EditDialog | None = None
        self.last_edit: LastEdit | None = None
        self.menu: QMenu | None = None  # the heatmap's context menu last shown
        graphics = window.heatmap_panel.graphics
        graphics.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        graphics.customContextMenuRequested.connect(self._heatmap_menu)

    def remember(self, stage: str, description: str) -> None:
        source = self.ctl.source
        if source is not None and source.capabilities.runs_texts:  # a pass of a model (here, or served there)
            self.last_edit = LastEdit(self.ctl.adapter, source.texts, stage, description)

    def open_dialog(self) -> EditDialog:
        """Show the dialog (not modal: the heatmap stays usable beside it)."""
        if self.dialog is None:
            self.dialog = EditDialog(self.ctl, self, self.window)
        self.dialog.refresh()
        self.dialog.show()
        self.dialog.raise_()
        self.dialog.activateWindow()
        return self.dialog

    def heatmap_menu(self, pos: QPoint) -> QMenu:
        """The heatmap's context menu at widget position `pos`: edit that cell, its row or its column."""
        panel = self.window.heatmap_panel
        menu = QMenu(panel)
        cell = panel.cell_at(panel.graphics.mapToScene(pos))
        enabled = actions.applies("tfdebug.edit.tensor", self.ctl)
        if cell is not None:
            r, c = cell
            translate = QCoreApplication.translate
            for target, text in ((CELL, translate("EditTools", "Edit Cell ({r}, {c})…").format(r=r, c=c)),
                                 (ROW, translate("EditTools", "Edit Row {r}…").format(r=r)),
                                 (COLUMN, translate("EditTools", "Edit Column {c}…").format(c=c))):
                item = menu.addAction(text)
                item.setEnabled(enabled)
                item.triggered.connect(lambda _=False, t=target, r=r, c=c: self.open_dialog().choose(SET, t, r, c))
        menu.addAction(self.window.actions_by_id["tfdebug.edit.tensor"])
        menu.addAction(self.window.actions_by_id["tfdebug.edit.undo"])
        return menu

    def _heatmap_menu(self, pos: QPoint) -> None:
        self.menu = self.heatmap_menu(pos)
        self.menu.popup(self.window.heatmap_panel.graphics.mapToGlobal(pos))


def install(window) -> EditTools:
    """The edit tools of `window`, which the shell keeps as `window.tools.edit` (menu items come from the action
    registry)."""
    return EditTools(window)
