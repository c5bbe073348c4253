"""Debug ▸ Capture Budget…: choose the budget (half of the free memory, none, or a number of MB) and what
it keeps; `install` adds the Capture dock and the menu entry to the window."""

from __future__ import annotations

from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication
from PySide6.QtWidgets import QButtonGroup, QDialog, QDialogButtonBox, QDoubleSpinBox, QLabel, QRadioButton, QVBoxLayout, QWidget

from tfdebug.ui.actions import registry as actions
from tfdebug.ui.actions.context import ActionContext
from tfdebug.ui.i18n.language import said
from tfdebug.ui.panels.capture import CapturePanel
from tfdebug.ui.state.capture_budget import AUTO, OFF, SETTING_KEY, describe_setting, parse_setting
from tfdebug.ui.state.keeping import describe_keep
from tfdebug.ui.widgets.keep_box import KeepBox


class BudgetDialog(QDialog):
    """Choose the capture budget (half of the free memory, none, or a number of MB) and what it keeps."""

    def __init__(self, setting: str, keep, parent: QWidget | None = None):
        super().__init__(parent)
        self.setWindowTitle(self.tr("Capture Budget"))
        self.auto = QRadioButton(self.tr("Half of the memory free on the device (default)"))
        self.off = QRadioButton(self.tr("No budget: keep every stage"))
        self.fixed = QRadioButton(self.tr("At most:"))
        self.mb = QDoubleSpinBox()
        self.mb.setRange(0, 10_000_000)
        self.mb.setDecimals(2)
        self.mb.setSuffix(" MB")
        self.mb.setValue(float(setting) if setting not in (AUTO, OFF) else 1000)
        group = QButtonGroup(self)
        for button in (self.auto, self.off, self.fixed):
            group.addButton(button)
        {AUTO: self.auto, OFF: self.off}.get(setting, self.fixed).setChecked(True)
        self.mb.valueChanged.connect(lambda _v: self.fixed.setChecked(True))
        self.keep = KeepBox(keep)
        note = QLabel(self.tr("Stages beyond the budget are shown while the pass is paused at them, then dropped "
                              "from the history. Applies from the next Run."))
        note.setWordWrap(True)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        for widget in (self.auto, self.off, self.fixed, self.mb, self.keep, note, buttons):
            layout.addWidget(widget)

    def setting(self) -> str:
        if self.auto.isChecked():
            return AUTO
        if self.off.isChecked():
            return OFF
        return f"{self.mb.value():g}"


@actions.action("tfdebug.capture.budget", QT_TRANSLATE_NOOP("CapturePanel", "Capture Budget…"), toolbar=False,
                menu="debug", group=5, order=10, context="CapturePanel")
def choose(ctx: ActionContext) -> None:
    """Ask for the capture budget and what it keeps (modal; kept as the window's open dialog "budget")."""
    window, ctl = ctx.window, ctx.ctl
    dialog = BudgetDialog(ctl.capture_budget, ctl.keep, window)
    window.dialogs["budget"] = dialog  # tests reach the open dialog here
    accepted = dialog.exec() == QDialog.DialogCode.Accepted
    dialog.deleteLater()
    if accepted:
        ctl.capture_budget = dialog.setting()
        ctl.keep.set(dialog.keep.mode(), dialog.keep.pinned())
        if window.persist:
            window.settings.setValue(SETTING_KEY, ctl.capture_budget)
        setting, mode, pinned = ctl.capture_budget, ctl.keep.mode, ctl.keep.pinned
        ctl.inform(said(lambda: QCoreApplication.translate(
            "CapturePanel", "Capture budget: {setting}, keeping {what}; applies from the next Run.").format(
            setting=describe_setting(setting), what=describe_keep(mode, pinned))))


def install(window) -> CapturePanel:
    """Add the Capture dock (tabbed with Stats) to `window` (Debug ▸ Capture Budget… is the registry's
    `tfdebug.capture.budget`); returns the dock's panel."""
    ctl = window.ctl
    if window.persist:
        ctl.capture_budget = parse_setting(window.settings.value(SETTING_KEY))
        ctl.keep.read(window.settings)
        ctl.keep.changed.connect(lambda: ctl.keep.write(window.settings))  # a Stages tree pin is remembered too
    panel = CapturePanel(ctl)
    dock = window.add_dock(QT_TRANSLATE_NOOP("MainWindow", "Capture"), "capture", panel,
                        window.dockWidgetArea(window.docks["stats"]))
    window.tabifyDockWidget(window.docks["stats"], dock)
    window.docks["stats"].raise_()

    return panel
