"""The window's status bar: the stage shown, the model (verified or not), device and precision, what the captures
hold and the pass's state (with a running pass's progress), redrawn at most every 30 ms.

Its texts are the window's ("MainWindow" in the translations), as they were when the window drew them itself.
"""

from __future__ import annotations

import time

from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication
from PySide6.QtWidgets import QMainWindow

from tfdebug.ui.render.stage_text import fmt_bytes, run_progress
from tfdebug.ui.state.controller import DebugController
from tfdebug.ui.widgets.steady_text import SteadyText
from tfdebug.ui.workers.throttle import throttler


class StatusLine:
    """The status bar's permanent labels (`labels`: stage, model, device, memory, state) for `window`'s pass;
    `starting()` says what the window is loading while busy ("torch", "model"; None after)."""

    def __init__(self, window: QMainWindow, ctl: DebugController, starting):
        self.ctl, self.starting = ctl, starting
        # Plain text (stage and model names come from a model or a file) whose width follows the widest text shown,
        # so a step's new texts do not lay the window out again.
        self.labels = tuple(SteadyText(grow=True) for _ in range(5))
        for label in self.labels:
            window.statusBar().addPermanentWidget(label)
        self.stage, self.model, self.device, self.memory, self.state = self.labels
        self._throttle = throttler(30, self.update, window, leading=True)  # a step names its stage now
        self._running_since: tuple[float, int] | None = None  # (when, stages captured) the running pass started
        ctl.state_changed.connect(self.schedule)
        ctl.shown.model.stage_changed.connect(self.schedule)
        ctl.busy_changed.connect(self.schedule)

    def schedule(self, *_args) -> None:
        """Update the labels soon (at once when they have not been updated lately)."""
        self._throttle.throttle()

    def update(self) -> None:
        """Every label from the controller's state now."""
        ctl = self.ctl
        stepper = ctl.stepper
        if ctl.loader.busy:
            loading = {"torch": QCoreApplication.translate("MainWindow", "loading torch…"),
                       "model": QCoreApplication.translate("MainWindow", "loading the model…")}
            self.state.setText(loading.get(self.starting(), QCoreApplication.translate("MainWindow", "loading…")))
        if stepper is None:
            self.stage.setText(QCoreApplication.translate("MainWindow", "No pass loaded"))
            return
        current = ctl.current
        # A finished pass counts what it ran (a generation stops at <eos>, before its planned last step).
        total = len(stepper.history) if stepper.state == "finished" or not len(ctl.plan) else len(ctl.plan)
        self.stage.setText(QCoreApplication.translate("MainWindow", "Stage {i} of {n}").format(
            i=ctl.shown.index + 1, n=total) + (f" · {current.name}" if current else ""))
        verified, check = "", ctl.loader.verification
        if check is not None:
            verified = " · " + (QCoreApplication.translate("MainWindow", "verified") if check.ok
                                else QCoreApplication.translate("MainWindow", "MISMATCH")) + \
                (" (" + QCoreApplication.translate("MainWindow", "attention, in the pass") + ")"
                 if check.scope == "attention" else f" (max |Δ| {check.max_abs_diff:.1e})")
        elif ctl.loader.unverified:  # left out by the setting or for memory: the message bar said why
            verified = " · " + QCoreApplication.translate("MainWindow", "not verified")
        recorded = QCoreApplication.translate("MainWindow", "recorded")
        model = recorded if ctl.model_name == "recorded" else ctl.model_name
        self.model.setText(QCoreApplication.translate("MainWindow", "model {name}").format(name=model) + verified)
        self.device.setText(" · ".join(t for t in (ctl.device, ctl.dtype) if t))
        self.memory.setText(QCoreApplication.translate("MainWindow", "captures hold {size}").format(
            size=fmt_bytes(ctl.held_bytes())))
        if not ctl.loader.busy:
            self.state.setText(state_text(stepper.state) if stepper.is_live else recorded)
        if stepper.is_live and stepper.state == "running" and len(ctl.plan):
            if self._running_since is None:  # when this run started, and what was captured before it
                self._running_since = (time.monotonic(), len(stepper.history))
            started, before = self._running_since
            self.state.setText(state_text("running") + " · " + run_progress(
                ctl.plan.names(), len(stepper.history), time.monotonic() - started, before))
        else:
            self._running_since = None


def state_text(state: str) -> str:
    """A stepper state ("paused", "running" …) as the status bar says it."""
    names: dict[str, str] = {"idle": QT_TRANSLATE_NOOP("MainWindow", "idle"), "paused": QT_TRANSLATE_NOOP("MainWindow", "paused"),
             "running": QT_TRANSLATE_NOOP("MainWindow", "running"),
             "finished": QT_TRANSLATE_NOOP("MainWindow", "finished"),
             "stopped": QT_TRANSLATE_NOOP("MainWindow", "stopped"), "failed": QT_TRANSLATE_NOOP("MainWindow", "failed")}
    return QCoreApplication.translate("MainWindow", names[state]) if state in names else state
