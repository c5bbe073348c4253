"""Breakpoints ▸ Conditions…: the condition breakpoint dialog and the tool that opens it."""

from __future__ import annotations

from PySide6.QtCore import QT_TRANSLATE_NOOP, Qt
from PySide6.QtWidgets import (
    QCheckBox,
    QDialog,
    QDialogButtonBox,
    QDoubleSpinBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QVBoxLayout,
    QWidget,
)

from tfdebug.sessions.crosscheck import default_tolerance
from tfdebug.core.breakpoints import DIVERGES, Breakpoint
from tfdebug.core.devices import resolve_dtype
from tfdebug.core.errors import TfdebugError
from tfdebug.core.stepper import EXACT, FAST
from tfdebug.ui.actions import registry as actions
from tfdebug.ui.actions.context import ActionContext
from tfdebug.ui.i18n.language import error_text
from tfdebug.ui.state.controller import DebugController
from tfdebug.ui.widgets.placement import PlacementPicker, default_reference_dtype, on_screen_placement
from tfdebug.ui.widgets.sentence_label import sentence_label
from tfdebug.ui.widgets.tolerance import parse_tolerance


class ConditionDialog(QDialog):
    """Condition breakpoints: NaN, ±Inf outside masked cells, max |x| above a threshold, a divergence
    from a reference pass (this input in another dtype or on another device: `reference`, the
    window's features.reference.tools.ReferenceTools).

    Opened with `open()` (window-modal, not blocking); Apply sets the conditions.
    """

    def __init__(self, ctl: DebugController, reference=None, parent: QWidget | None = None):
        super().__init__(parent)
        self.ctl = ctl
        self.reference = reference
        self.setWindowTitle(self.tr("Condition Breakpoints"))
        self.nan = QCheckBox(self.tr("Stop at a stage that contains NaN"))
        self.inf = QCheckBox(self.tr("Stop at a stage that contains ±Inf (−∞ in mask stages is expected)"))
        self.abs_gt = QCheckBox(self.tr("Stop where max |x| is above"))
        self.threshold = QDoubleSpinBox()
        self.threshold.setRange(0.0, 1e12)
        self.threshold.setDecimals(3)
        self.threshold.setValue(100.0)
        row = QHBoxLayout()
        row.addWidget(self.abs_gt)
        row.addWidget(self.threshold)
        diverge_row = self._divergence_row()
        self.fast = QCheckBox(self.tr("Fast check: one GPU synchronisation per pass instead of one per stage"))
        self.fast.setObjectName("condition-fast-mode")
        trade_off = QLabel(self.tr("A fast check lets the pass run on and then shows the first stage that met a "
                                   "condition: the stages after it have already run. To see that stage before its "
                                   "successors run, Restart and Run to it."))
        trade_off.setWordWrap(True)
        trade_off.setTextFormat(Qt.PlainText)
        buttons = QDialogButtonBox(QDialogButtonBox.Ok | QDialogButtonBox.Cancel)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(QLabel(self.tr("Conditions are checked where the tensor lives, at every stage.")))
        layout.addWidget(self.nan)
        layout.addWidget(self.inf)
        layout.addLayout(row)
        layout.addWidget(self.diverges)
        layout.addLayout(diverge_row)
        layout.addWidget(self.diverges_note)
        layout.addWidget(self.error_label)
        layout.addWidget(self.fast)
        layout.addWidget(trade_off)
        layout.addWidget(buttons)
        self._load()

    def _divergence_row(self) -> QHBoxLayout:
        on_screen, device = on_screen_placement(self.ctl)
        self.diverges = QCheckBox(self.tr("Stop where the pass diverges from this input in"))
        self.placement = PlacementPicker(default_reference_dtype(on_screen), device)
        if self.ctl.capabilities.reference_device_fixed:  # the reference pass runs on the pass's own device
            self.placement.fix_device(device)
        self.atol, self.rtol = QLineEdit(), QLineEdit()
        self.placement.changed.connect(self._default_tolerance)
        self._default_tolerance()
        row = QHBoxLayout()  # a second line, as narrow as the lines above: the dialog keeps its width
        row.addSpacing(24)
        row.addWidget(self.placement)
        for label, edit in (("atol", self.atol), ("rtol", self.rtol)):
            edit.setMaximumWidth(72)
            row.addWidget(QLabel(label))
            row.addWidget(edit)
        self.diverges_note = QLabel(self.tr(
            "A cell diverges when |reference − x| > atol + rtol·|reference|. The reference pass runs once per "
            "model, input and dtype, off the window's thread; its stages are kept on the host within the "
            "capture budget.") if not self.ctl.capabilities.reference_held_there else self.tr(
            "A cell diverges when |reference − x| > atol + rtol·|reference|. The reference pass runs on the server "
            "once per input, in this dtype on the server's device, and the condition is checked there."))
        self.diverges_note.setWordWrap(True)
        self.diverges_note.setTextFormat(Qt.PlainText)
        self.error_label = sentence_label()
        if self.reference is None:
            for widget in (self.diverges, self.placement, self.atol, self.rtol):
                widget.setEnabled(False)
        return row

    def _default_tolerance(self) -> None:
        """The tolerance the coarser of the two dtypes can hold (rounding is not divergence)."""
        on_screen, _ = on_screen_placement(self.ctl)
        atol, rtol = default_tolerance(resolve_dtype(on_screen), resolve_dtype(self.placement.placement().dtype))
        self.atol.setText(f"{atol:g}")
        self.rtol.setText(f"{rtol:g}")

    def _load(self) -> None:
        conditions = {b.value: b for b in self.ctl.breakpoints.points if b.by == "condition"}
        if DIVERGES in conditions and self.reference is not None and self.reference.placement is not None:
            self.diverges.setChecked(True)
            self.placement.set(self.reference.placement)
            self.atol.setText(f"{conditions[DIVERGES].threshold:g}")
            self.rtol.setText(f"{conditions[DIVERGES].rtol:g}")
        self.nan.setChecked("nan" in conditions)
        self.inf.setChecked("inf" in conditions)
        self.abs_gt.setChecked("abs_gt" in conditions)
        if "abs_gt" in conditions:
            self.threshold.setValue(conditions["abs_gt"].threshold)
        self.fast.setChecked(self.ctl.breakpoints.points.mode == FAST)

    def conditions(self) -> list[Breakpoint]:
        out = []
        if self.nan.isChecked():
            out.append(Breakpoint.on_nan())
        if self.inf.isChecked():
            out.append(Breakpoint.on_inf())
        if self.abs_gt.isChecked():
            out.append(Breakpoint.on_abs_above(self.threshold.value()))
        if self.diverges.isChecked():
            out.append(Breakpoint.on_divergence(*parse_tolerance(self.atol.text(), self.rtol.text())))
        return out

    def accept(self) -> None:
        """Set the conditions; a problem with the divergence fields is one sentence here, the dialog stays."""
        placement = self.placement.placement() if self.diverges.isChecked() else None
        try:
            conditions = self.conditions()
            if placement is not None and self.ctl.capabilities.runs_texts:
                self.reference.check(placement)  # the pass on screen cannot have it: say so now
        except TfdebugError as exc:
            self.error_label.setText(error_text(exc))
            return
        self.ctl.breakpoints.set_condition_mode(FAST if self.fast.isChecked() else EXACT)
        self.ctl.breakpoints.set_conditions(conditions)
        if self.reference is not None:
            self.reference.set_condition_placement(placement)  # computes the reference off the GUI thread
        super().accept()


class ConditionTools:
    """Opens the condition dialog for the window (the Breakpoints menu, the Stages dock's Conditions… button)."""

    def __init__(self, window):
        self.window = window
        self.dialog: ConditionDialog | None = None

    def open(self) -> ConditionDialog:
        """Show the condition breakpoint dialog without blocking."""
        compare = self.window.tools.compare
        self.dialog = ConditionDialog(self.window.ctl, compare.reference if compare is not None else None,
                                      self.window)
        self.dialog.open()
        return self.dialog


@actions.action("tfdebug.breakpoints.conditions", QT_TRANSLATE_NOOP("actions", "Conditions…"),
                tip=QT_TRANSLATE_NOOP("actions", "Break on a NaN, an Inf outside masked cells, or a large value"),
                toolbar=False,
                menu="breakpoints", group=0, order=20)
def edit_conditions(ctx: ActionContext) -> None:
    ctx.tools.conditions.open()
