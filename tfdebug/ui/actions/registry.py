"""The action registry: plain functions with dotted ids, registered once.

Menus, the toolbar, shortcuts and context menus are all built from this registry
(`bind` makes the QActions). An action declares where it goes in the menu bar with its other facts
(`menu`, `group`, `order`: separators fall between groups); `MENUS` lists the menu bar's menus and
`SUBMENUS` the entries that are filled at run time (Open Recent, Language …), and the shell builds the
menu bar from these declarations alone (`tfdebug.ui.shell.menus.build_menu_bar`). Each action is a function of an ActionContext (the controller,
the window and its tools); `enabled` says from the controller's state when it applies, and
live-only actions say why they are off for a recorded pass.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QWidget

from tfdebug.ui.actions.context import ActionContext
from tfdebug.ui.i18n.language import said
from tfdebug.ui.state.controller import DebugController

REPLAY_TIP = QT_TRANSLATE_NOOP("actions", "Not available for a recorded pass: there is no model to run. Open the model to run it live.")


@dataclass(frozen=True)
class ActionSpec:
    """One user action: id, label, shortcut, what it does, when it applies."""

    id: str
    text: str
    func: Callable[..., None]  # (ActionContext, *args)
    shortcut: str | None = None
    tip: str = ""
    enabled: Callable[[DebugController], bool] = lambda ctl: True
    live_only: bool = False
    toolbar: bool = True
    menu: str | None = None  # the id of the menu it is an entry of (`MENUS`), or None for none
    group: int = 0  # its group in that menu: a separator between two groups
    order: int = 0  # its place within the group
    context: str = "actions"  # where its text and tip are translated


@dataclass(frozen=True)
class MenuSpec:
    """A menu of the menu bar: its id and its English title, translated in `context`."""

    id: str
    title: str
    context: str = "MainWindow"


@dataclass(frozen=True)
class SubmenuSpec:
    """An entry of a menu that the shell fills at run time (a submenu, or the View menu's dock toggles), declared
    at its place like an action; `title`, when given, is the submenu's English title, translated in `context`."""

    id: str
    menu: str
    group: int
    order: int
    title: str = ""
    context: str = "MainWindow"


REGISTRY: dict[str, ActionSpec] = {}

# the menu bar's menus, left to right
MENUS: tuple[MenuSpec, ...] = (
    MenuSpec("file", QT_TRANSLATE_NOOP("MainWindow", "&File")),
    MenuSpec("debug", QT_TRANSLATE_NOOP("MainWindow", "&Debug")),
    MenuSpec("breakpoints", QT_TRANSLATE_NOOP("MainWindow", "&Breakpoints")),
    MenuSpec("view", QT_TRANSLATE_NOOP("MainWindow", "&View")),
    MenuSpec("learn", QT_TRANSLATE_NOOP("LearnMenu", "&Learn"), "LearnMenu"),
)

# the entries filled at run time, each at its place among the actions
SUBMENUS: tuple[SubmenuSpec, ...] = (
    SubmenuSpec("recent", "file", 0, 20, QT_TRANSLATE_NOOP("MainWindow", "Open Recent")),
    SubmenuSpec("check", "debug", 3, 50, QT_TRANSLATE_NOOP("MainWindow", "Check Against the Model")),
    SubmenuSpec("breakpoint_kinds", "breakpoints", 0, 0),  # Break on Every… (it titles itself)
    SubmenuSpec("docks", "view", 0, 0),  # every dock's toggle, in the order the docks were added
    SubmenuSpec("language", "view", 1, 0, QT_TRANSLATE_NOOP("MainWindow", "&Language")),
    SubmenuSpec("heatmap", "view", 1, 10),  # the heatmap's own menu: Fit and the colour scale
)


def action(id: str, text: str, shortcut: str | None = None, tip: str = "",
           enabled: Callable[[DebugController], bool] = lambda ctl: True, live_only: bool = False,
           toolbar: bool = True, menu: str | None = None, group: int = 0, order: int = 0, context: str = "actions"):
    """Register the decorated function as the action `id`; with `menu` it is an entry of that menu (`MENUS`),
    in `group` (separated from the next) at `order`. Its texts are translated in `context`."""
    def register(func):
        if id in REGISTRY:
            raise ValueError(f"action {id} registered twice")
        REGISTRY[id] = ActionSpec(id, text, func, shortcut, tip, enabled, live_only, toolbar, menu, group, order,
                                  context)
        return func
    return register


def trigger(id: str, ctx: ActionContext, *args) -> None:
    """Run the action `id` (a caller may pass an argument, e.g. Run to Token's N)."""
    REGISTRY[id].func(ctx, *args)


def applies(id: str, ctl: DebugController) -> bool:
    """Whether action `id` can run now. Live-only actions are off only while a recorded pass
    is shown; with nothing loaded yet (say the first load failed) Run must still work."""
    spec = REGISTRY[id]
    replaying = ctl.stepper is not None and not ctl.is_live
    return not (spec.live_only and replaying) and spec.enabled(ctl)


# ----- the debug actions ------------------------------------------------------------
@action("tfdebug.step.continue", QT_TRANSLATE_NOOP("actions", "Continue"), "F5", QT_TRANSLATE_NOOP("actions", "Run to the next breakpoint, or to the end"),
        enabled=lambda ctl: ctl.steps.can_advance(),
        menu="debug", group=0, order=0)
def continue_(ctx: ActionContext) -> None:
    ctx.ctl.steps.continue_()


@action("tfdebug.step.next", QT_TRANSLATE_NOOP("actions", "Step"), "F10", QT_TRANSLATE_NOOP("actions", "Next stage"), enabled=lambda ctl: ctl.steps.can_step(),
        menu="debug", group=0, order=10)
def step_next(ctx: ActionContext) -> None:
    if not _held_key_waits(ctx):
        ctx.ctl.steps.step()


def _held_key_waits(ctx: ActionContext) -> bool:
    """Whether this trigger is a held key's repeat that arrived while the last step is still being shown:
    dropped, so a held key steps at the rate stages are shown and stops when it is released."""
    return ctx.keys is not None and ctx.keys.repeating and ctx.ctl.steps.step_being_shown()


@action("tfdebug.step.into", QT_TRANSLATE_NOOP("actions", "Step Into"), "F11",
        QT_TRANSLATE_NOOP("actions", "Into the next block (attention, FFN, layer): its first stage"), enabled=lambda ctl: ctl.steps.can_step(),
        menu="debug", group=0, order=20)
def step_into(ctx: ActionContext) -> None:
    # Stages form a flat list, so stepping into a block is stepping to its first stage.
    ctx.ctl.steps.step()


@action("tfdebug.step.out", QT_TRANSLATE_NOOP("actions", "Step Out"), "Shift+F11", QT_TRANSLATE_NOOP("actions", "Run to the first stage after the current block"),
        enabled=lambda ctl: ctl.steps.can_advance(),
        menu="debug", group=0, order=30)
def step_out(ctx: ActionContext) -> None:
    ctx.ctl.steps.step_out()


@action("tfdebug.step.back", QT_TRANSLATE_NOOP("actions", "Step Back"), "Shift+F10", QT_TRANSLATE_NOOP("actions", "Previous captured stage (nothing runs again)"),
        enabled=lambda ctl: ctl.steps.can_step_back(),
        menu="debug", group=0, order=40)
def step_back(ctx: ActionContext) -> None:
    if not _held_key_waits(ctx):
        ctx.ctl.steps.step_back()


def _can_run_to(ctl: DebugController, name: str | None = None) -> bool:
    name = name or ctl.selected_stage
    return bool(name) and (ctl.steps.reached(name) is not None or ctl.steps.can_advance())


@action("tfdebug.step.run_to", QT_TRANSLATE_NOOP("actions", "Run to Stage"), "Ctrl+F10", QT_TRANSLATE_NOOP("actions", "Run to the stage selected in the navigator"),
        enabled=_can_run_to, toolbar=False,
        menu="debug", group=0, order=50)
def run_to(ctx: ActionContext, name: str | None = None) -> None:
    ctl = ctx.ctl
    name = name or ctl.selected_stage
    if not name:
        ctl.fail(said(lambda: QCoreApplication.translate("actions", "Select a stage in the navigator first.")))
        return
    ctl.steps.run_to(name)


@action("tfdebug.step.pause", QT_TRANSLATE_NOOP("actions", "Pause"), "Ctrl+F5", QT_TRANSLATE_NOOP("actions", "Pause a running pass at the next stage"),
        enabled=lambda ctl: ctl.steps.is_running(), live_only=True, toolbar=False,
        menu="debug", group=0, order=60)
def pause(ctx: ActionContext) -> None:
    ctx.ctl.steps.pause()


@action("tfdebug.step.restart", QT_TRANSLATE_NOOP("actions", "Restart"), "Ctrl+Shift+F5", QT_TRANSLATE_NOOP("actions", "Run this pass again from the first stage"),
        enabled=lambda ctl: ctl.stepper is not None and not ctl.loader.busy, live_only=True,
        menu="debug", group=2, order=0)
def restart(ctx: ActionContext) -> None:
    ctx.ctl.steps.restart()


@action("tfdebug.step.stop", QT_TRANSLATE_NOOP("actions", "Stop"), "Shift+F5", QT_TRANSLATE_NOOP("actions", "End the pass; captured stages stay viewable"),
        enabled=lambda ctl: ctl.steps.is_alive(), live_only=True,
        menu="debug", group=2, order=10)
def stop(ctx: ActionContext) -> None:
    ctx.ctl.steps.stop()


def _can_generate(ctl: DebugController) -> bool:
    return ctl.is_generating() and (ctl.steps.can_advance() or ctl.stepper is not None and ctl.stepper.history != [])


def _can_next_token(ctl: DebugController) -> bool:
    """A token comes after the stage on screen: the pass can run on, or history lies ahead (not at the end)."""
    return ctl.is_generating() and ctl.steps.can_advance()


@action("tfdebug.gen.next_token", QT_TRANSLATE_NOOP("actions", "Next Token"), "Ctrl+T",
        QT_TRANSLATE_NOOP("actions", "Run to the end of this generation step: the next step reads the token it chose"),
        enabled=_can_next_token,
        menu="debug", group=1, order=0)
def next_token(ctx: ActionContext) -> None:
    ctx.ctl.steps.next_token()


@action("tfdebug.gen.run_to_token", QT_TRANSLATE_NOOP("actions", "Run to Token…"), "Ctrl+Shift+T", QT_TRANSLATE_NOOP("actions", "Run until generated token N has been chosen"),
        enabled=_can_generate, toolbar=False,
        menu="debug", group=1, order=10)
def run_to_token(ctx: ActionContext, n: int | None = None) -> None:
    ctl = ctx.ctl
    if n is None:
        from PySide6.QtWidgets import QApplication, QInputDialog

        n, ok = QInputDialog.getInt(ctx.window, QApplication.translate("actions", "Run to Token"),
                                    QApplication.translate("actions", "Generated token number (1 = the first):"),
                                    1, 1, 10_000)
        if not ok:
            return
    ctl.steps.run_to_token(n)


@action("tfdebug.session.run", QT_TRANSLATE_NOOP("actions", "Run"), "Ctrl+Return", QT_TRANSLATE_NOOP("actions", "Load the model and run the input bar's sentence pair"),
        enabled=lambda ctl: not ctl.loader.busy, live_only=True,
        menu="debug", group=3, order=0)
def run_inputs(ctx: ActionContext) -> None:
    _new_pass(ctx, None)  # one pass; Generate is the token-by-token run


def _new_pass(ctx: ActionContext, generation) -> None:
    """A new pass on the input bar's texts (`generation`: its DecodingSettings, None for one pass), started as the
    pass on screen says (`DebugController.new_pass`)."""
    bar = ctx.window.input_bar
    ctx.ctl.new_pass(bar.texts(), generation, bar.chat.isChecked())


@action("tfdebug.session.generate", QT_TRANSLATE_NOOP("actions", "Generate"), "Ctrl+G",
        QT_TRANSLATE_NOOP("actions", "Generate token by token from the input bar's texts (KV cache); Next Token "
                          "(Ctrl+T) steps by token, Debug ▸ Decoding Settings… chooses how"),
        enabled=lambda ctl: not ctl.loader.busy, live_only=True,
        menu="debug", group=3, order=10)
def generate(ctx: ActionContext) -> None:
    _new_pass(ctx, ctx.ctl.decoding)  # its decoding steps run where the model is


@action("tfdebug.session.live", QT_TRANSLATE_NOOP("actions", "New Live Pass"), "Ctrl+N", QT_TRANSLATE_NOOP("actions", "Leave the recorded pass and run the input bar's "
        "sentence pair live"), enabled=lambda ctl: not ctl.loader.busy and not ctl.is_live, toolbar=False,
        menu="debug", group=3, order=40)
def new_live_pass(ctx: ActionContext) -> None:
    ctx.ctl.loader.run()


@action("tfdebug.session.new", QT_TRANSLATE_NOOP("actions", "New Session"), "Ctrl+Shift+N",
        QT_TRANSLATE_NOOP("actions", "Start again from the defaults: the demo's first example on this machine's "
                          "default device and precision, as the first start shows it"),
        enabled=lambda ctl: not ctl.loader.busy, toolbar=False,
        menu="file", group=0, order=0)
def new_session(ctx: ActionContext) -> None:
    ctx.window.new_session()


@action("tfdebug.file.quit", QT_TRANSLATE_NOOP("actions", "Quit"), "Ctrl+Q",
        QT_TRANSLATE_NOOP("actions", "Close the window (a running pass is stopped)"), toolbar=False,
        menu="file", group=9, order=0)
def quit_window(ctx: ActionContext) -> None:
    ctx.ctl.request_close()


# ----- binding --------------------------------------------------------------------
def _tr(text: str, context: str = "actions") -> str:
    # Registered texts are marked with QT_TRANSLATE_NOOP(context, ...): translated when shown.
    return QCoreApplication.translate(context, text) if text else text


def _tooltip(spec: ActionSpec, ctl: DebugController) -> str:
    if spec.live_only and ctl.stepper is not None and not ctl.is_live:
        return _tr(REPLAY_TIP)
    return _tr(spec.tip, spec.context) + (f" ({spec.shortcut})" if spec.shortcut else "")


def retranslate(actions: dict[str, QAction], ctl: DebugController) -> None:
    """Set the texts of bound actions again in the current language (after a LanguageChange)."""
    for spec_id, qaction in actions.items():
        spec = REGISTRY[spec_id]
        qaction.setText(_tr(spec.text, spec.context))
        qaction.setStatusTip(_tr(spec.tip, spec.context))
        qaction.setToolTip(_tooltip(spec, ctl))


def bind(parent: QWidget, ctx: ActionContext, ids: list[str] | None = None) -> dict[str, QAction]:
    """QActions for the registered actions, run with `ctx`, kept enabled/disabled as its controller changes."""
    ctl = ctx.ctl
    if ctx.keys is None:
        from tfdebug.ui.actions.key_repeat import KeyRepeats

        ctx.keys = KeyRepeats(parent)
    actions: dict[str, QAction] = {}
    for spec in (REGISTRY[i] for i in (ids or list(REGISTRY))):
        qaction = QAction(parent)
        qaction.setObjectName(spec.id)
        if spec.shortcut:
            qaction.setShortcut(QKeySequence(spec.shortcut))
        qaction.triggered.connect(lambda checked=False, s=spec: s.func(ctx))
        actions[spec.id] = qaction

    enabled_now: dict[str, bool] = {}
    tips_for: list[bool | None] = [None]  # whether a recorded pass was shown when the tooltips were set

    def update() -> None:
        # state_changed comes every 50 ms during Continue: touch only what changed (each setter
        # tells every toolbar button and menu item showing the action).
        for spec_id, qaction in actions.items():
            enabled = applies(spec_id, ctl)
            if enabled_now.get(spec_id) != enabled:
                enabled_now[spec_id] = enabled
                qaction.setEnabled(enabled)
        replaying = ctl.stepper is not None and not ctl.is_live
        if tips_for[0] != replaying:  # a tooltip depends only on that (retranslate sets them in a new language)
            tips_for[0] = replaying
            for spec_id, qaction in actions.items():
                tip = _tooltip(REGISTRY[spec_id], ctl)
                if qaction.toolTip() != tip:
                    qaction.setToolTip(tip)

    retranslate(actions, ctl)
    ctl.state_changed.connect(update)
    update()
    return actions
