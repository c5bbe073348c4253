"""The action registry: plain functions with dotted ids, registered once.

Menus, the toolbar, shortcuts and context menus are all built from this registry
(`bind` makes the QActions). Each action is a function of the controller; `enabled`
says when it applies, and live-only actions say why they are off for a recorded pass.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QWidget

from tfdebug.ui.controller import DebugController

REPLAY_TIP = "Not available for a recorded pass: there is no model to run. Open the model to run it live."


@dataclass(frozen=True)
class ActionSpec:
    """One user action: id, label, shortcut, what it does, when it applies."""

    id: str
    text: str
    func: Callable[..., None]
    shortcut: str | None = None
    tip: str = ""
    enabled: Callable[[DebugController], bool] = lambda ctl: True
    live_only: bool = False
    toolbar: bool = True


REGISTRY: dict[str, ActionSpec] = {}


def action(id: str, text: str, shortcut: str | None = None, tip: str = "",
           enabled: Callable[[DebugController], bool] = lambda ctl: True, live_only: bool = False,
           toolbar: bool = True):
    """Register the decorated function as the action `id`."""
    def register(func):
        if id in REGISTRY:
            raise ValueError(f"action {id} registered twice")
        REGISTRY[id] = ActionSpec(id, text, func, shortcut, tip, enabled, live_only, toolbar)
        return func
    return register


def trigger(id: str, ctl: DebugController, *args) -> None:
    """Run the action `id` (context menus pass a stage name)."""
    REGISTRY[id].func(ctl, *args)


def applies(id: str, ctl: DebugController) -> bool:
    """Whether action `id` can run now. Live-only actions are off only while a recorded pass
    is shown; with nothing loaded yet (say the first load failed) Run must still work."""
    spec = REGISTRY[id]
    replaying = ctl.stepper is not None and not ctl.is_live
    return not (spec.live_only and replaying) and spec.enabled(ctl)


# ----- the debug actions ------------------------------------------------------------
@action("tfdebug.step.continue", "Continue", "F5", "Run to the next breakpoint, or to the end",
        enabled=DebugController.can_advance)
def continue_(ctl: DebugController) -> None:
    ctl.continue_()


@action("tfdebug.step.next", "Step", "F10", "Next stage", enabled=DebugController.can_step)
def step_next(ctl: DebugController) -> None:
    ctl.step()


@action("tfdebug.step.into", "Step Into", "F11",
        "Into the next block (attention, FFN, layer): its first stage", enabled=DebugController.can_step)
def step_into(ctl: DebugController) -> None:
    # Stages form a flat list, so stepping into a block is stepping to its first stage.
    ctl.step()


@action("tfdebug.step.out", "Step Out", "Shift+F11", "Run to the first stage after the current block",
        enabled=DebugController.can_advance)
def step_out(ctl: DebugController) -> None:
    ctl.step_out()


@action("tfdebug.step.back", "Step Back", "Shift+F10", "Previous captured stage (nothing runs again)",
        enabled=DebugController.can_step_back)
def step_back(ctl: DebugController) -> None:
    ctl.step_back()


def _can_run_to(ctl: DebugController, name: str | None = None) -> bool:
    name = name or ctl.selected_stage
    return bool(name) and (ctl.reached(name) is not None or ctl.can_advance())


@action("tfdebug.step.run_to", "Run to Stage", "Ctrl+F10", "Run to the stage selected in the navigator",
        enabled=_can_run_to, toolbar=False)
def run_to(ctl: DebugController, name: str | None = None) -> None:
    name = name or ctl.selected_stage
    if not name:
        ctl.error.emit("Select a stage in the navigator first.")
        return
    ctl.run_to(name)


@action("tfdebug.step.pause", "Pause", "Ctrl+F5", "Pause a running pass at the next stage",
        enabled=DebugController.is_running, live_only=True, toolbar=False)
def pause(ctl: DebugController) -> None:
    ctl.pause()


@action("tfdebug.step.restart", "Restart", "Ctrl+Shift+F5", "Run this pass again from the first stage",
        enabled=lambda ctl: ctl.stepper is not None and not ctl.busy, live_only=True)
def restart(ctl: DebugController) -> None:
    ctl.restart()


@action("tfdebug.step.stop", "Stop", "Shift+F5", "End the pass; captured stages stay viewable",
        enabled=DebugController.is_alive, live_only=True)
def stop(ctl: DebugController) -> None:
    ctl.stop()


def _can_generate(ctl: DebugController) -> bool:
    return ctl.is_generating() and (ctl.can_advance() or ctl.stepper is not None and ctl.stepper.history != [])


@action("tfdebug.gen.next_token", "Next Token", "Ctrl+T",
        "Run to the end of this generation step: the next step reads the token it chose", enabled=_can_generate)
def next_token(ctl: DebugController) -> None:
    ctl.next_token()


@action("tfdebug.gen.run_to_token", "Run to Token…", "Ctrl+Shift+T", "Run until generated token N has been chosen",
        enabled=_can_generate, toolbar=False)
def run_to_token(ctl: DebugController, n: int | None = None) -> None:
    if n is None:
        from PySide6.QtWidgets import QApplication, QInputDialog

        n, ok = QInputDialog.getInt(QApplication.activeWindow(), QApplication.translate("actions", "Run to Token"),
                                    QApplication.translate("actions", "Generated token number (1 = the first):"),
                                    1, 1, 10_000)
        if not ok:
            return
    ctl.run_to_token(n)


@action("tfdebug.session.run", "Run", "Ctrl+Return", "Load the model and run the input bar's sentence pair",
        enabled=lambda ctl: not ctl.busy, live_only=True)
def run_inputs(ctl: DebugController) -> None:
    ctl.run()


@action("tfdebug.session.live", "New Live Pass", "Ctrl+N", "Leave the recorded pass and run the input bar's "
        "sentence pair live", enabled=lambda ctl: not ctl.busy and not ctl.is_live, toolbar=False)
def new_live_pass(ctl: DebugController) -> None:
    ctl.run()


# ----- binding --------------------------------------------------------------------
def bind(parent: QWidget, ctl: DebugController, ids: list[str] | None = None) -> dict[str, QAction]:
    """QActions for the registered actions, kept enabled/disabled as the controller changes."""
    actions: dict[str, QAction] = {}
    for spec in (REGISTRY[i] for i in (ids or list(REGISTRY))):
        qaction = QAction(spec.text, parent)
        qaction.setObjectName(spec.id)
        if spec.shortcut:
            qaction.setShortcut(QKeySequence(spec.shortcut))
        qaction.setToolTip(f"{spec.tip} ({spec.shortcut})" if spec.shortcut else spec.tip)
        qaction.setStatusTip(spec.tip)
        qaction.triggered.connect(lambda checked=False, s=spec: s.func(ctl))
        actions[spec.id] = qaction

    def update() -> None:
        for spec_id, qaction in actions.items():
            spec = REGISTRY[spec_id]
            qaction.setEnabled(applies(spec_id, ctl))
            if spec.live_only and ctl.stepper is not None and not ctl.is_live:
                qaction.setToolTip(REPLAY_TIP)
            else:
                qaction.setToolTip(f"{spec.tip} ({spec.shortcut})" if spec.shortcut else spec.tip)

    ctl.state_changed.connect(update)
    update()
    return actions
