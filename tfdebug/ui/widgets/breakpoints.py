"""Breakpoint widgets: the "break on every <kind>" menu and the condition dialog."""

from __future__ import annotations

from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication, Qt
from PySide6.QtWidgets import (
    QCheckBox,
    QDialog,
    QDialogButtonBox,
    QDoubleSpinBox,
    QHBoxLayout,
    QLabel,
    QMenu,
    QVBoxLayout,
    QWidget,
)

from tfdebug.core.breakpoints import Breakpoint
from tfdebug.core.stages import KINDS
from tfdebug.core.stepper import EXACT, FAST
from tfdebug.ui.actions import registry as actions
from tfdebug.ui.i18n.language import kind_title, retranslate_with
from tfdebug.ui.state.controller import DebugController


def kind_menu(ctl: DebugController, parent: QWidget | None = None) -> QMenu:
    """A menu of checkable kinds by readable name: checking "Softmax" breaks on every softmax."""
    menu = QMenu(parent)
    by_kind = {}
    for kind in KINDS:
        act = menu.addAction(kind)
        act.setCheckable(True)
        act.setObjectName(f"break-kind-{kind}")
        act.toggled.connect(lambda on, k=kind: ctl.set_breakpoint(Breakpoint.on_kind(k), on))
        by_kind[kind] = act

    def sync() -> None:
        for kind, act in by_kind.items():
            act.blockSignals(True)
            act.setChecked(Breakpoint.on_kind(kind) in ctl.breakpoints)
            act.blockSignals(False)

    def only_this_pass() -> None:
        # The vocabulary covers every architecture; list the kinds this pass has (all before one loads).
        present = {c.info.kind for c in ctl.plan}
        for kind, act in by_kind.items():
            act.setVisible(not present or kind in present or Breakpoint.on_kind(kind) in ctl.breakpoints)

    def retranslate() -> None:
        menu.setTitle(QCoreApplication.translate("kind_menu", "Break on Every…"))
        for kind, act in by_kind.items():
            act.setText(kind_title(kind))
            act.setToolTip(QCoreApplication.translate("kind_menu", "Stop at every stage of kind {kind}").format(
                kind=kind))

    ctl.breakpoints_changed.connect(sync)
    ctl.session_changed.connect(only_this_pass)
    retranslate_with(menu, retranslate)
    return menu


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


@actions.action("tfdebug.breakpoints.conditions", QT_TRANSLATE_NOOP("actions", "Conditions…"),
                tip=QT_TRANSLATE_NOOP("actions", "Break on a NaN, an Inf outside masked cells, or a large value"),
                toolbar=False)
def edit_conditions(ctl: DebugController) -> None:
    if ctl.tools.conditions is not None:
        ctl.tools.conditions()


@actions.action("tfdebug.breakpoints.clear", QT_TRANSLATE_NOOP("actions", "Clear All Breakpoints"), "Ctrl+Shift+F9",
                QT_TRANSLATE_NOOP("actions", "Remove every stage, kind and condition breakpoint"), toolbar=False)
def clear_breakpoints(ctl: DebugController) -> None:
    ctl.clear_breakpoints()
