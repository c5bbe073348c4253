"""DebugController: the one object panels talk to, wiring the pass on screen to the parts that show it.

It holds the pass on screen as one pass source (tfdebug.sessions.source.PassSource: live, generation,
replay or served) and never asks which kind it is; it wraps the stepper's events in Qt signals and owns its
parts, each with its own state: `steps`, `shown` (the shown stage, its slice and stats), `axes`, `tiles`,
`loader` (Run and its jobs) and `breakpoints`. Each part is handed the controller itself, typed by a Protocol
of the part's own module naming what it reads and tells (`SteppingScreen`, `LoaderScreen` …): no getters or
callbacks are handed around. Panels connect to its and its parts' signals and call their methods; they never
call each other, and they never emit its signals: what they announce goes through its named methods (`say`,
`inform`, `fail`, `refuse`, `forget_messages`, `announce_state`, `announcing_command`, `request_close`), the only
emitters.
"""

from __future__ import annotations

from contextlib import contextmanager
from dataclasses import replace
from typing import Any, Iterator

from PySide6.QtCore import QCoreApplication, QObject, QTimer, Signal

from tfdebug.core.errors import TfdebugError
from tfdebug.core.layout import PassLayout, build_layout
from tfdebug.core.plan import Plan
from tfdebug.core.recorder import Capture
from tfdebug.core.stepper import FINISHED, RUNNING, Stepper, StepperEvent
from tfdebug.core.view import RunInputs, ViewSelection
from tfdebug.io.recording import Recording
from tfdebug.models.sampling import DecodingSettings
from tfdebug.sessions.local_source import LocalSource
from tfdebug.sessions.source import NO_PASS, Capabilities, PassSource, Rerun
from tfdebug.ui.i18n.language import error_phrase, said
from tfdebug.ui.models.run import RunModel
from tfdebug.ui.state.axes import ShownAxes
from tfdebug.ui.state.breakpoints import WindowBreakpoints
from tfdebug.ui.state.keeping import KeepChoice
from tfdebug.ui.state.loading import Loader
from tfdebug.ui.state.messages import Message
from tfdebug.ui.state.pass_notices import PassNotices
from tfdebug.ui.state.shown import ShownStage
from tfdebug.ui.state.stepping import Stepping
from tfdebug.ui.state.tiles import TileReads
from tfdebug.ui.workers.display import DisplayWorker
from tfdebug.ui.workers.gui_gc import note_activity
from tfdebug.ui.workers.qt_events import StepperSignals
from tfdebug.ui.workers.throttle import throttler


class DebugController(QObject):
    """The pass on screen and the parts that show and move it; every change is announced by a signal."""

    session_changed = Signal()      # a new pass (live or replay): plan, layout and tokens changed
    state_changed = Signal()        # stepper state or history changed: actions re-check themselves
    row_picked = Signal()           # tiles.picked_row changed: the query whose weights the Query Row view plots
    busy_changed = Signal(bool)     # a model is loading
    message = Signal(object)        # a Message for the message bar
    clear_messages = Signal(str)    # messages on this topic no longer apply ("" clears all)
    error = Signal(object)          # a sentence for the message bar (level error): a Message content
    info = Signal(object)           # a passing notice (breakpoint hit, pass finished): a Message content
    close_requested = Signal()      # File → Quit: the window closes (and shuts the controller down)
    colour_scale_changed = Signal()  # `log_kinds` changed: every view of a stage colours by it

    def __init__(self, parent: QObject | None = None):
        super().__init__(parent)
        self.source: PassSource | None = None  # the pass on screen, wherever it runs
        self.stepper: Stepper | None = None
        # The pass's plan, layout, tokens, title, model, device and precision are its source's, read from it (no
        # copy kept here): these stand in while no pass is shown.
        self._no_plan: Plan = Plan()
        self._no_layout: PassLayout = build_layout([])
        self.view = ViewSelection()  # the axes shown and the index of every other axis, shared by every panel
        self.selected_stage: str | None = None
        # The run settings, kept once (an evented model, Qt-free): what Run starts (the input bar edits it and
        # subscribes), whether the next run generates token by token and with what, what Generate uses (Debug ▸
        # Decoding Settings…), and the inputs of the last live pass that loaded and started.
        self.run = RunModel()
        # The stage kinds Scale ▸ Log scale was chosen for (the heatmap's option, per kind: probabilities in log,
        # an embedding linear): every view colours a non-negative stage of those kinds by it
        # (tfdebug.ui.render.colors.applies_log).
        self.log_kinds: frozenset[str] = frozenset()
        # The capture budget of the next pass: "auto", "off" or MB as text (tfdebug.ui.state.capture_budget),
        # and which stages it keeps when not all fit (tfdebug.ui.state.keeping).
        self.capture_budget, self.keep = "auto", KeepChoice(self)
        self._signals: StepperSignals | None = None
        self.error.connect(self._error_said)
        self.notices = PassNotices(self)  # what the window says about the pass on screen
        # Whole-tensor stats, large slices and head thumbnails are computed off the GUI thread.
        self.display = DisplayWorker(self)
        # The parts read the pass on screen from the controller and tell it what happened (each types what it
        # uses by a Protocol of its own module: BreakpointsScreen, LoaderScreen, AxesScreen …).
        self.breakpoints = WindowBreakpoints(self)
        self.loader = Loader(self)
        self.axes = ShownAxes(self.view, self)
        self.shown = ShownStage(self.display, self.view, self.axes, screen=self, owner=self)
        self.tiles = TileReads(self.shown, self)
        self.steps = Stepping(self)
        # Captured events come by the hundred during Continue: re-check actions at most every 50 ms.
        self._state_throttle = throttler(50, self.announce_state, self)
        self._events_shown = 0  # the stepper's events shown (`announcing_command` tells whether one came)

    # ----- what the parts, the panels and the tools announce: the only emits of the signals above

    def say(self, message: Message) -> None:
        """Show `message` in the message bar."""
        self.message.emit(message)

    def inform(self, content: str) -> None:
        """A passing notice (a breakpoint hit, a pass finished, a file written): a Message content."""
        self.info.emit(content)

    def fail(self, content: str) -> None:
        """A sentence for the message bar at level error (a Message content)."""
        self.error.emit(content)

    def refuse(self, exc: TfdebugError) -> None:
        """Say why `exc` refused what was asked (its phrase, at level error)."""
        self.fail(error_phrase(exc))

    def forget_messages(self, topic: str = "") -> None:
        """Messages on `topic` no longer apply ("": every message)."""
        self.clear_messages.emit(topic)

    def announce_state(self) -> None:
        """The stepper's state, its history or what an action depends on changed: actions re-check themselves."""
        self.state_changed.emit()

    @contextmanager
    def announcing_command(self) -> Iterator[None]:
        """A stepper command (`ctl.steps`) runs inside; actions re-check themselves once for it: with the event it
        brought (a replay's move is shown inside); for a pass it set running, with the event it brings (a live
        step's pause) or within 50 ms when none came by then (a long step shows that it runs); else now (Stop, a
        refused command). A step announces its state once."""
        before = self._events_shown
        try:
            yield
        finally:
            if self._events_shown == before:
                if self.stepper is not None and self.stepper.state == RUNNING:
                    self._state_throttle.throttle()
                else:
                    self.announce_state()

    def announce_busy(self, busy: bool) -> None:
        """A model started (`busy`) or stopped loading."""
        self.busy_changed.emit(busy)

    def announce_row_picked(self) -> None:
        """The query row picked in the heatmap (`tiles.picked_row`) changed."""
        self.row_picked.emit()

    def request_close(self) -> None:
        """File ▸ Quit: the window closes (and shuts the controller down)."""
        self.close_requested.emit()

    def restarted(self) -> None:
        """A Restart applied: what was said about the last run (its failure, its verification) no longer applies."""
        self.loader.forget_verdict()
        self.forget_messages("run")
        self.forget_messages("verify")

    def _error_said(self, content: str) -> None:
        self.say(Message("error", content))

    @property
    def is_live(self) -> bool:
        """Whether the pass on screen runs a model (live or served), not a replay."""
        return self.stepper is not None and self.stepper.is_live

    @property
    def current(self) -> Capture | None:
        """The stage the panels show (the stepper's cursor as of its last event: `shown.current`)."""
        return self.shown.current

    @property
    def session(self):
        """The live session of the pass on screen (its source's), or None (nothing loaded, or a replay)."""
        return self.source.session if self.source is not None else None

    @property
    def replayed(self) -> Recording | None:
        """The snapshot a replay reads from (kept open for lazy reads), else None."""
        return getattr(self.source, "replayed", None)

    @property
    def capabilities(self) -> Capabilities:
        """What the pass on screen can do (its source's `Capabilities`; every field False with no pass)."""
        return self.source.capabilities if self.source is not None else NO_PASS

    @property
    def adapter(self) -> Any:
        """The adapter of a pass whose model runs here (`capabilities.model_here`), else None (nothing loaded, a
        replay, a served pass)."""
        source = self.source
        return source.session.adapter if source is not None and source.capabilities.model_here else None

    def vocabulary(self) -> list[str] | None:
        """The token strings of the model of the pass on screen where they are here (its source's), else None."""
        return self.source.vocabulary() if self.source is not None else None

    @property
    def input_image(self):
        """The picture a vision model saw in the pass shown (`core.images.InputImage`: live, carried by the
        snapshot replayed, or sent by the server of a served pass), else None."""
        return self.source.image if self.source is not None else None

    @property
    def tokens(self) -> dict[str, list[str]]:
        """Token strings per stream (the source's). A live generation's stream grows with every chosen token: it
        is read each time, so a later step's axes get their words, not indices."""
        return self.source.tokens if self.source is not None else {}

    @property
    def plan(self) -> Plan:
        """The stages of the pass on screen, in order (its source's; empty with no pass)."""
        return self.source.plan if self.source is not None else self._no_plan

    @property
    def layout(self) -> PassLayout:
        """The pass's columns, blocks and navigator groups (its source's)."""
        return self.source.layout if self.source is not None else self._no_layout

    @property
    def model_name(self) -> str:
        """The model of the pass on screen ('recorded' for a snapshot; '' with no pass)."""
        return self.source.model_name if self.source is not None else ""

    @property
    def title(self) -> str:
        """The pass in one line, for the window's title; a served pass's names its server ("remote: HOST — …")."""
        source = self.source
        if source is None:
            return ""
        return f"remote: {source.host} — {source.title}" if source.host else source.title

    @property
    def device(self) -> str:
        """Where the pass runs, for the status bar: its device, a served pass's with its server ("remote: HOST ·
        cuda:0 …") and, while its connection is lost, saying so."""
        source = self.source
        if source is None:
            return ""
        if not source.host:
            return source.device
        text = f"remote: {source.host} · {source.device}"
        return text + " · " + QCoreApplication.translate("RemoteTools", "connection lost") if source.lost else text

    @property
    def dtype(self) -> str:
        """The pass's precision ("bfloat16") for the status bar; a served pass's is in the Compare and Conditions
        dialogs, not there ('')."""
        source = self.source
        return source.dtype if source is not None and not source.host else ""

    def is_generating(self) -> bool:
        """Whether the live pass is a generation (Next Token and Run to Token apply)."""
        return self.source is not None and self.source.is_generation

    def set_log_kinds(self, kinds) -> None:
        """The stage kinds Scale ▸ Log scale is on for, for every view that colours a stage."""
        kinds = frozenset(kinds)
        if kinds != self.log_kinds:
            self.log_kinds = kinds
            self.colour_scale_changed.emit()

    def log_scale_for(self, kind: str) -> bool:
        """Whether Scale ▸ Log scale is on for stages of `kind`."""
        return kind in self.log_kinds

    @property
    def inputs(self) -> RunInputs:
        """What the next Run starts (the run model's)."""
        return self.run.inputs

    @property
    def generation(self) -> DecodingSettings | None:
        """The settings the next run generates token by token with (the run model's), or None: one pass."""
        return self.run.generation

    @property
    def decoding(self) -> DecodingSettings:
        """What Generate uses (the run model's)."""
        return self.run.decoding

    @property
    def worked(self) -> RunInputs | None:
        """The inputs of the last live pass that loaded and started (the run model's): what the window saves as the
        last session. None until one has."""
        return self.run.worked

    def set_inputs(self, inputs: RunInputs) -> None:
        """What the next Run starts (the run model's `inputs_changed` tells the input bar)."""
        self.run.set_inputs(inputs)

    def new_pass(self, texts: dict[str, str], generation: DecodingSettings | None, chat: bool) -> None:
        """Run (with `generation`, Generate) on `texts`, started as the pass on screen says (`PassSource.rerun`):
        where it runs, off the GUI thread, the new pass then shown in its place (closed when the window has left
        that pass meanwhile; the error said when the old texts ran again); or by the loader here with the run
        model's inputs (the input bar's model, device and precision), as with no pass on screen."""
        source = self.source
        start = source.rerun(texts, generation, chat) if source is not None else None
        if start is None:
            self.run.set_generation(generation)
            self.loader.run()
            return

        def started(rerun: Rerun) -> None:
            if self.source is not source:
                rerun.source.close()  # the window left that pass meanwhile
                return
            self.show_source(rerun.source)
            if rerun.refused is not None:
                self.say(Message("error", error_phrase(rerun.refused), topic="run"))
        self.loader.load_in_background(lambda job: start(), started, lambda exc: said(
            lambda: QCoreApplication.translate("RemoteTools", "The server could not start the pass.")))

    def set_session(self, session) -> None:
        """Show a live DebugSession and start its pass (paused at the first stage)."""
        self._replace_source(LocalSource.live(session))
        adapter = session.adapter
        self.set_inputs(replace(self.inputs, model=adapter.name, texts=session.texts,
                                device=self.inputs.device if self.inputs.model == adapter.name
                                else str(adapter.device)))
        self.run.set_worked(self.inputs)
        self.clear_messages.emit("")
        self.session_changed.emit()
        self.steps.command(session.stepper.start)
        self.notices.opened(session)

    def load_replay(self, stepper: Stepper, tokens: dict, title: str, recording: Recording | None = None) -> None:
        """Show a recorded pass (Stepper.replay): every panel works, nothing can run.

        `recording` is the snapshot the stepper reads from: it is what Export and Compare
        take for this pass, and it is closed when the window shows another pass.
        """
        self._replace_source(LocalSource.replay(stepper, tokens, title, recording))
        self.clear_messages.emit("")
        self.session_changed.emit()
        # The first stage shows one event-loop turn later: reading the file and drawing its first
        # stage each hold the GUI thread for tens of ms; back to back they would hold it for both.
        QTimer.singleShot(0, self, lambda: self.shown.show_current() if self.stepper is stepper else None)
        self.state_changed.emit()

    def show_pass(self, source: PassSource) -> None:
        """Show `source`'s pass from its first stage under its own title (a backward's gradients, here or served):
        every panel follows it; its first stage shows one event-loop turn later, as a replay's does."""
        self._replace_source(source)
        self.clear_messages.emit("")
        self.session_changed.emit()
        stepper = source.stepper
        QTimer.singleShot(0, self, lambda: self.shown.show_current() if self.stepper is stepper else None)
        self.state_changed.emit()

    def show_source(self, source: PassSource) -> None:
        """Show `source`'s pass as it stands (a served pass, attached): every panel follows it."""
        self._replace_source(source)
        self.clear_messages.emit("")
        self.session_changed.emit()
        self.shown.show_current()
        self.state_changed.emit()

    def _replace_source(self, source: PassSource) -> None:
        self.close()
        self.loader.forget_verdict()
        stepper = source.stepper
        self.source, self.stepper = source, stepper
        self.shown.forget()
        self._signals = StepperSignals(stepper, self)
        self._signals.event.connect(self._on_event)
        self.breakpoints.share_with(stepper)

    def close(self) -> None:
        """Stop the current pass (the worker ends) and forget it."""
        self.display.cancel()
        if self._signals is not None:
            self._signals.detach()
            self._signals = None
        if self.source is not None:
            self.source.close()
        self.source, self.stepper = None, None

    def shutdown(self, timeout: float = 10.0) -> None:
        """The window is closing: abandon a model load and end the display worker (both joined, so
        no thread outlives Qt or sits inside torch at exit) and stop the pass."""
        self.loader.abandon(timeout)
        self.close()
        self.display.close(timeout)

    def recording(self) -> tuple[Recording | None, str]:
        """The pass on screen as a Recording (for Export, Compare, the Overview) and a note when partial.

        None when its tensors are elsewhere (a served pass: its source's `export` streams a snapshot)."""
        return self.source.recording() if self.source is not None else (None, "")

    def held_bytes(self) -> int:
        """Bytes the captures of the pass on screen hold, wherever they are (the status bar's "captures hold")."""
        return self.source.held_bytes() if self.source is not None else 0

    def select_stage(self, name: str) -> None:
        """The stage picked in the Stages tree or the map (what Run to Stage and the breakpoint menus act on)."""
        self.selected_stage = name
        self.state_changed.emit()

    def _on_event(self, stepper: Stepper, event: StepperEvent) -> None:
        if stepper is not self.stepper:
            return  # a queued event of a pass already replaced
        note_activity()  # no long garbage collection while a pass moves
        if event.type == "captured":
            self._state_throttle.throttle()
            return
        if event.type in ("paused", "moved", "replaced", "failed", "finished"):
            self.shown.show_current()
        self.notices.on_event(stepper, event)
        if event.type == "finished" and stepper.state == FINISHED and self.capabilities.reruns_here:
            self.loader.confirm_plan(self.session, stepper.history)
            self.loader.verify(self.session, stepper.output)
        self._events_shown += 1
        self._state_throttle.cancel()  # what a command or the captured stages announced soon, this says now
        self.state_changed.emit()
        self.steps.on_event(event)
