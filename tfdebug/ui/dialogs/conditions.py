"""Breakpoints ▸ Conditions…: the condition breakpoint dialog and the tool that opens it."""

from __future__ import annotations

from PySide6.QtCore import QT_TRANSLATE_NOOP, Qt
from PySide6.QtWidgets import QCheckBox, QDialog, QDialogButtonBox, QDoubleSpinBox, QHBoxLayout, QLabel, QVBoxLayout, QWidget

from tfdebug.core.breakpoints import Breakpoint
from tfdebug.core.stepper import EXACT, FAST
from tfdebug.ui.actions import registry as actions
from tfdebug.ui.actions.context import ActionContext
from tfdebug.ui.state.controller import DebugController


class ConditionDialog(QDialog):
    """Condition breakpoints: NaN, ±Inf outside masked cells, max |x| above a threshold.

    Opened with `open()` (window-modal, not blocking); Apply sets the conditions.
    """

    def __init__(self, ctl: DebugController, parent: QWidget | None = None):
        super().__init__(parent)
        self.ctl = ctl
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
        layout.addWidget(self.fast)
        layout.addWidget(trade_off)
        layout.addWidget(buttons)
        self._load()

    def _load(self) -> None:
        conditions = {b.value: b for b in self.ctl.breakpoints if b.by == "condition"}
        self.nan.setChecked("nan" in conditions)
        self.inf.setChecked("inf" in conditions)
        self.abs_gt.setChecked("abs_gt" in conditions)
        if "abs_gt" in conditions:
            self.threshold.setValue(conditions["abs_gt"].threshold)
        self.fast.setChecked(self.ctl.condition_mode == FAST)

    def conditions(self) -> list[Breakpoint]:
        out = []
        if self.nan.isChecked():
            out.append(Breakpoint.on_nan())
        if self.inf.isChecked():
            out.append(Breakpoint.on_inf())
        if self.abs_gt.isChecked():
            out.append(Breakpoint.on_abs_above(self.threshold.value()))
        return out

    def accept(self) -> None:
        self.ctl.set_condition_mode(FAST if self.fast.isChecked() else EXACT)
        self.ctl.set_conditions(self.conditions())
        super().accept()


class ConditionTools:
    """Opens the condition dialog for the window (the Breakpoints menu, the Stages dock's Conditions… button)."""

    def __init__(self, window):
        self.window = window
        self.dialog: ConditionDialog | None = None

    def open(self) -> ConditionDialog:
        """Show the condition breakpoint dialog without blocking."""
        self.dialog = ConditionDialog(self.window.ctl, self.window)
        self.dialog.open()
        return self.dialog


@actions.action("tfdebug.breakpoints.conditions", QT_TRANSLATE_NOOP("actions", "Conditions…"),
                tip=QT_TRANSLATE_NOOP("actions", "Break on a NaN, an Inf outside masked cells, or a large value"),
                toolbar=False)
def edit_conditions(ctx: ActionContext) -> None:
    ctx.tools.conditions.open()
