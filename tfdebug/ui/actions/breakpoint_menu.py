"""Breakpoint widgets: the "break on every <kind>" menu, and Clear All Breakpoints."""

from __future__ import annotations

from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication
from PySide6.QtWidgets import QMenu, QWidget

from tfdebug.core.breakpoints import Breakpoint
from tfdebug.core.stages import KINDS
from tfdebug.ui.actions import registry as actions
from tfdebug.ui.actions.context import ActionContext
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
        act.toggled.connect(lambda on, k=kind: ctl.breakpoints.set(Breakpoint.on_kind(k), on))
        by_kind[kind] = act

    def show(bp: Breakpoint | None) -> None:  # a kind's item shows whether the set has it (a refused tick too)
        act = by_kind.get(bp.value) if bp is not None and bp.by == "kind" else None
        if act is not None:
            act.blockSignals(True)
            act.setChecked(bp in ctl.breakpoints.points)
            act.blockSignals(False)

    def cleared(gone: frozenset) -> None:
        for bp in gone:
            show(bp)

    def only_this_pass() -> None:
        # The vocabulary covers every architecture; list the kinds this pass has (all before one loads).
        present = {c.info.kind for c in ctl.plan}
        for kind, act in by_kind.items():
            act.setVisible(not present or kind in present or Breakpoint.on_kind(kind) in ctl.breakpoints.points)

    def retranslate() -> None:
        menu.setTitle(QCoreApplication.translate("kind_menu", "Break on Every…"))
        for kind, act in by_kind.items():
            act.setText(kind_title(kind))
            act.setToolTip(QCoreApplication.translate("kind_menu", "Stop at every stage of kind {kind}").format(
                kind=kind))

    model = ctl.breakpoints.model  # the window's breakpoints: each item follows its own event
    for event in (model.added, model.removed, model.refused):
        event.connect(show)
    model.cleared.connect(cleared)
    ctl.session_changed.connect(only_this_pass)
    retranslate_with(menu, retranslate)
    return menu


def _stage_to_toggle(ctl) -> str | None:
    """The stage F9 toggles: the one selected in the Stages tree, else the one on screen."""
    if ctl.stepper is None:
        return None
    if ctl.selected_stage is not None:
        return ctl.selected_stage
    return ctl.current.name if ctl.current is not None else None


@actions.action("tfdebug.breakpoints.toggle", QT_TRANSLATE_NOOP("actions", "Toggle Breakpoint"), "F9",
                QT_TRANSLATE_NOOP("actions",
                                  "Stop at the selected stage (or the one on screen), or stop stopping there"),
                enabled=lambda ctl: _stage_to_toggle(ctl) is not None, toolbar=False,
                menu="breakpoints", group=0, order=10)
def toggle_breakpoint(ctx: ActionContext) -> None:
    name = _stage_to_toggle(ctx.ctl)
    if name is not None:
        ctx.ctl.breakpoints.toggle_stage(name)


@actions.action("tfdebug.breakpoints.clear", QT_TRANSLATE_NOOP("actions", "Clear All Breakpoints"), "Ctrl+Shift+F9",
                QT_TRANSLATE_NOOP("actions", "Remove every stage, kind and condition breakpoint"), toolbar=False,
                menu="breakpoints", group=0, order=30)
def clear_breakpoints(ctx: ActionContext) -> None:
    ctx.ctl.breakpoints.clear()
