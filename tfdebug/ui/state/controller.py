"""DebugController: the one object panels talk to.

It holds the pass on screen as one pass source (tfdebug.sessions.source.PassSource: a live session,
a generation, a replay, or a pass tfdebug serve runs) and never asks which kind it is; it wraps the
stepper's events in Qt signals, keeps the view selection shared by every panel (which two axes are shown, the index
of every other axis, the selected stage), computes the shown slice with core's
display math, and turns core errors into an `error` signal. Panels receive the
controller, connect to its signals and call its methods; they never call each other.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Callable

from PySide6.QtCore import QObject, QTimer, Signal

from tfdebug.core.breakpoints import BreakpointSet
from tfdebug.core.display import DisplaySlice, Stats
from tfdebug.core.errors import TfdebugError
from tfdebug.core.layout import PassLayout, build_layout
from tfdebug.core.plan import Plan
from tfdebug.core.recorder import Capture
from tfdebug.core.stages import token_labels
from tfdebug.core.stepper import FINISHED, PAUSED, RUNNING, Stepper, StepperEvent
from tfdebug.core.view import RunInputs, ViewSelection, axis_names
from tfdebug.io.recording import Recording
from tfdebug.sessions.source import LocalSource, PassSource
from tfdebug.models.sampling import DecodingSettings
from tfdebug.ui.i18n.language import error_phrase, said
from tfdebug.ui.state.breakpoints import BreakpointsMixin
from tfdebug.ui.state.generating import GenerationMixin
from tfdebug.ui.state.keeping import KeepChoice
from tfdebug.ui.state.loading import LoadingMixin
from tfdebug.ui.state.messages import Message
from tfdebug.ui.state.pass_notices import PassNotices
from tfdebug.ui.workers.ahead import read_before_jump
from tfdebug.ui.workers.display import MAX_SLICE, DisplayMixin, DisplayWorker
from tfdebug.ui.workers.gui_gc import note_activity
from tfdebug.ui.workers.jobs import Job
from tfdebug.ui.workers.qt_events import StepperSignals
from tfdebug.ui.workers.tiles import TilesMixin
from tfdebug.ui.workers.throttle import throttler


class DebugController(GenerationMixin, LoadingMixin, DisplayMixin, TilesMixin, BreakpointsMixin, QObject):
    """State shared by the window and panels; every change is announced by a signal."""

    session_changed = Signal()      # a new pass (live or replay): plan, layout and tokens changed
    stage_changed = Signal()        # the shown stage changed (cursor moved, paused, replaced)
    stage_shown = Signal()          # one event-loop turn later: the heatmap has drawn it; other panels follow
    state_changed = Signal()        # stepper state or history changed: actions re-check themselves
    stats_changed = Signal()        # current_stats (whole tensor) computed, just after the stage shows
    slice_changed = Signal()        # current_slice changed (no argument: PySide mishandles None payloads)
    slice_stats_changed = Signal()  # the shown slice's mean and std arrived (a large slice shows before them)
    row_picked = Signal()           # picked_row changed: the query whose weights the Query Row view plots
    breakpoints_changed = Signal()
    busy_changed = Signal(bool)     # a model is loading
    inputs_changed = Signal()       # `inputs` changed (typed, or restored after a failed Run)
    message = Signal(object)        # a Message for the message bar
    clear_messages = Signal(str)    # messages on this topic no longer apply ("" clears all)
    error = Signal(object)          # a sentence for the message bar (level error): a Message content
    info = Signal(object)           # a passing notice (breakpoint hit, pass finished): a Message content
    close_requested = Signal()      # File → Quit: the window closes (and shuts the controller down)

    def __init__(self, parent: QObject | None = None):
        super().__init__(parent)
        self.source: PassSource | None = None  # the pass on screen, wherever it runs
        self.stepper: Stepper | None = None
        self.plan: Plan = Plan()
        self.layout: PassLayout = build_layout([])
        self._tokens: dict[str, list[str]] = {}
        self.title = ""
        self.model_name = ""
        self.device = ""
        self.dtype = ""  # the pass's precision ("bfloat16"), for the status bar
        self.view = ViewSelection()
        self.selected_stage: str | None = None
        self.current_slice: DisplaySlice | None = None
        self.current_stats: Stats | None = None
        self.picked_row: int | None = None  # a row of the shown slice picked by a click in the heatmap
        self._indexed: tuple | None = None  # (slice, levels, LUT indices) the worker quantised with the slice
        self.busy = False
        # The shown stage and its history position as the stepper's last event left them: the one GUI-side
        # record of it (the stepper's cursor moves on the forward's thread before the GUI hears of the move).
        self._shown: tuple[int, Capture] | None = None
        # What Run starts; the input bar edits it.
        self.inputs = RunInputs("random")
        # Decoding settings when the next run generates token by token (a GenerationSession); None: one pass.
        self.generation = None
        self.decoding = DecodingSettings()  # what Generate uses (Debug ▸ Decoding Settings…)
        # The capture budget of the next pass: "auto", "off" or MB as text (tfdebug.ui.state.capture_budget),
        # and which stages it keeps when not all fit (tfdebug.ui.state.keeping).
        self.capture_budget, self.keep = "auto", KeepChoice(self)
        self.load_job: Job | None = None
        self.verification = None  # how the last finished live pass compares with the unmodified model
        self._signals: StepperSignals | None = None
        self._adapter_cache: tuple[tuple, object] | None = None
        self.breakpoints = BreakpointSet()  # the window's breakpoints and condition mode: every pass checks this set
        self._step_in_flight = False  # a live Step runs and its pause has not been shown yet
        self.queued_steps = 0         # Steps asked for meanwhile (key repeat): one runs per pause
        self.error.connect(lambda text: self.message.emit(Message("error", text)))
        self.notices = PassNotices(self)  # what the window says about the pass on screen
        # Whole-tensor stats, large slices and head thumbnails are computed off the GUI thread.
        self.display = DisplayWorker(self)
        # Captured events come by the hundred during Continue: re-check actions at most every 50 ms.
        self._state_throttle = throttler(50, self.state_changed.emit, self)
        # Panels other than the heatmap follow a new stage one event-loop turn later: the
        # heatmap, which the user is waiting for, paints first and alone, and the GUI thread
        # returns to the event loop between the two halves of a step.
        self._follow_timer = QTimer(self)
        self._follow_timer.setSingleShot(True)
        self._follow_timer.setInterval(0)
        self._follow_timer.timeout.connect(self.stage_shown.emit)

    # ----- the pass ------------------------------------------------------------------
    @property
    def is_live(self) -> bool:
        return self.stepper is not None and self.stepper.is_live

    @property
    def current(self) -> Capture | None:
        """The stage the panels show (the stepper's cursor as of its last event)."""
        return self._shown[1] if self._shown is not None else None

    @property
    def shown_index(self) -> int:
        """The history position of `current` (-1 when nothing is shown)."""
        return self._shown[0] if self._shown is not None else -1

    @property
    def session(self):
        """The live session of the pass on screen (its source's), or None (nothing loaded, or a replay)."""
        return self.source.session if self.source is not None else None

    @property
    def replayed(self) -> Recording | None:
        """The snapshot a replay reads from (kept open for lazy reads), else None."""
        return getattr(self.source, "replayed", None)

    def runs_elsewhere(self) -> bool:
        """Whether the pass on screen runs on another machine (its source's host: tfdebug serve), where new
        passes, references and comparisons of it are then made."""
        return self.source is not None and bool(self.source.host)

    @property
    def adapter(self):
        """The adapter of a pass whose model runs here, or None (nothing loaded, a replay, a served pass)."""
        return self.session.adapter if self.session is not None else None

    @property
    def input_image(self):
        """The picture a vision model saw in the pass shown (`core.images.InputImage`: live, carried by the
        snapshot replayed, or sent by the server of a served pass), else None."""
        return self.source.image if self.source is not None else None

    def set_inputs(self, inputs: RunInputs) -> None:
        if inputs != self.inputs:
            self.inputs = inputs
            self.inputs_changed.emit()

    def set_session(self, session) -> None:
        """Show a live DebugSession and start its pass (paused at the first stage)."""
        self._replace_source(LocalSource.live(session))
        adapter = session.adapter
        self.set_inputs(replace(self.inputs, model=adapter.name, texts=session.texts,
                                device=self.inputs.device if self.inputs.model == adapter.name
                                else str(adapter.device)))
        self.clear_messages.emit("")
        self.session_changed.emit()
        self.command(session.stepper.start)
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
        QTimer.singleShot(0, self, lambda: self._show_current() if self.stepper is stepper else None)
        self.state_changed.emit()

    def show_source(self, source: PassSource, title: str, device: str, dtype: str) -> None:
        """Show `source`'s pass as it stands (a served pass, attached) under `title`, with `device` and `dtype`
        in the status bar: every panel follows it."""
        self._replace_source(source, title)
        self.device, self.dtype = device, dtype
        self.clear_messages.emit("")
        self.session_changed.emit()
        self._show_current()
        self.state_changed.emit()

    def _replace_source(self, source: PassSource, title: str | None = None) -> None:
        self.close()
        self.verification = None
        stepper = source.stepper
        self.source, self.stepper, self.plan, self.layout = source, stepper, source.plan, source.layout
        self._tokens, self.title = source.tokens, source.title if title is None else title
        self.model_name, self.device, self.dtype = source.model_name, source.device, source.dtype
        self.current_slice = None
        self.current_stats = None
        self._shown = None
        self._signals = StepperSignals(stepper, self)
        self._signals.event.connect(self._on_event)
        self.share_breakpoints(stepper)

    def close(self) -> None:
        """Stop the current pass (the worker ends) and forget it."""
        self.display.cancel()
        if self._signals is not None:
            self._signals.detach()
            self._signals = None
        if self.source is not None:
            self.source.close()
        self.source = None
        self.stepper = None

    def recording(self) -> tuple[Recording | None, str]:
        """The pass on screen as a Recording (for Export, Compare, the Overview) and a note when partial.

        None when its tensors are elsewhere (a served pass: its source's `export` streams a snapshot)."""
        return self.source.recording() if self.source is not None else (None, "")

    def _set_busy(self, busy: bool) -> None:
        self.busy = busy
        self.busy_changed.emit(busy)
        self.state_changed.emit()

    # ----- commands ------------------------------------------------------------------
    def command(self, func: Callable, *args) -> bool:
        """Call a stepper command; a TfdebugError becomes the `error` signal. True when it applied."""
        try:
            func(*args)
        except TfdebugError as exc:
            self.error.emit(error_phrase(exc))
            return False
        finally:
            self.state_changed.emit()
        return True

    def _on_stepper(self, command: Callable[[Stepper], None]) -> bool:
        self._step_in_flight, self.queued_steps = False, 0  # any other command ends a run of steps
        self.display.cancel("jump")  # and a jump still reading its stage
        if self.stepper is None:
            self.error.emit(said(lambda: self.tr("Nothing is loaded yet: press Run.")))
            return False
        stepper = self.stepper
        return self.command(lambda: command(stepper))

    def step(self) -> bool:
        """One stage on (through history first, else the live forward runs one stage).

        Asked again before the window has shown the stage a live step ran to (presses faster
        than stages run), the step is queued and runs once that pause arrives: one stage per
        press, none dropped. A held key's repeats are dropped before they get here
        (tfdebug.ui.actions.key_repeat).
        """
        if self._step_in_flight:
            self.queued_steps += 1
            return True
        queued = self.queued_steps

        def step_and_note(stepper: Stepper) -> None:
            stepper.step()
            # Set before state_changed re-checks the actions: Step stays enabled while it runs.
            self._step_in_flight = stepper.state == RUNNING
        ok = self._on_stepper(step_and_note)
        self.queued_steps = queued
        return ok

    def step_being_shown(self) -> bool:
        """Whether the last step is still running or being drawn (a held key's repeat then waits)."""
        return self._step_in_flight or not self.display_settled()

    def can_step(self) -> bool:
        """Step applies: the pass can advance, or a step runs (the new one is queued)."""
        return self.can_advance() or self._step_in_flight

    def _next_queued_step(self, event: StepperEvent) -> None:
        if event.type not in ("paused", "finished", "failed", "stopped"):
            return
        self._step_in_flight = False
        if event.type == "paused" and event.reason == "step" and self.queued_steps:
            self.queued_steps -= 1
            self.step()
        else:
            self.queued_steps = 0  # a breakpoint, the end or a failure: the rest of the run is dropped

    def continue_(self) -> bool:
        return self._on_stepper(lambda s: s.continue_())

    def step_out(self) -> bool:
        return self._on_stepper(lambda s: s.step_out())

    def step_back(self) -> bool:
        return self._on_stepper(lambda s: s.step_back())

    def pause(self) -> bool:
        return self._on_stepper(lambda s: s.pause())

    def restart(self) -> bool:
        """The same pass again; what was said about the last run (its failure, its verification) no longer applies."""
        ok = self._on_stepper(lambda s: s.restart())
        if ok:
            self.verification = None
            self.clear_messages.emit("run"), self.clear_messages.emit("verify")
        return ok

    def stop(self) -> bool:
        return self._on_stepper(lambda s: s.stop())

    def run_to(self, name: str) -> bool:
        """To stage `name`; a replayed stage not read yet is read on the display worker first."""
        def move() -> bool:
            return self._on_stepper(lambda s: s.run_to(name))
        return read_before_jump(self, name, MAX_SLICE, move) or move()

    def can_advance(self) -> bool:
        s = self.stepper
        if s is None or self.busy or s.state == RUNNING:
            return False
        return s.state == PAUSED or s.cursor < len(s.history) - 1

    def can_step_back(self) -> bool:
        s = self.stepper
        return s is not None and s.state != RUNNING and s.cursor > 0

    def is_running(self) -> bool:
        return self.stepper is not None and self.stepper.state == RUNNING

    def is_alive(self) -> bool:
        return self.stepper is not None and self.stepper.alive

    def reached(self, name: str) -> int | None:
        """History index of the stage called `name`, or None when it has not run yet."""
        return self.stepper.position_of(name) if self.stepper is not None else None

    def held_bytes(self) -> int:
        """Bytes the captures of the pass on screen hold, wherever they are (the status bar's "captures hold")."""
        return self.source.held_bytes() if self.source is not None else 0

    # ----- events --------------------------------------------------------------------
    def _on_event(self, stepper: Stepper, event: StepperEvent) -> None:
        if stepper is not self.stepper:
            return  # a queued event of a pass already replaced
        note_activity()  # no long garbage collection while a pass moves
        if event.type == "captured":
            self._state_throttle.throttle()
            return
        if event.type in ("paused", "moved", "replaced", "failed", "finished"):
            self._show_current()
        self.notices.on_event(stepper, event)
        if event.type == "finished" and stepper.state == FINISHED and self.source.model_here:
            self._verify(self.session, stepper.output)
        self.state_changed.emit()
        self._next_queued_step(event)

    # ----- view selection --------------------------------------------------------------
    def axis_names(self, capture: Capture | None = None) -> tuple[str, ...]:
        capture = capture or self.current
        return axis_names(capture.info.axes, capture.shape) if capture is not None else ()

    def set_axes(self, row: int, col: int) -> None:
        """Show axes `row` × `col` of the current stage (swapped in when equal to the other one)."""
        if row == col:
            row, col = self.view.col_axis, self.view.row_axis
        self.view.row_axis, self.view.col_axis = row, col
        names = self.axis_names()
        if names:
            self.view.pin((names[row], names[col]))
        self.refresh_slice()

    def set_index(self, axis_name: str, index: int) -> None:
        """Fix the axis called `axis_name` (head, batch, ...) at `index` and redraw."""
        if self.view.indices_by_name.get(axis_name) == index:
            return
        self.view.indices_by_name[axis_name] = index
        self.refresh_slice()

    def indices(self, capture: Capture | None = None) -> dict[int, int]:
        capture = capture or self.current
        return self.view.indices(self.axis_names(capture), capture.shape) if capture is not None else {}

    def axis_labels(self, axis: int) -> list[str] | None:
        """Token strings along `axis` of the current stage, when it indexes tokens or the vocabulary."""
        capture = self.current
        if capture is None or not 0 <= axis < len(capture.info.axes):
            return None
        if capture.info.axes[axis] == "vocab":  # the model's words, from its adapter (none in a replay)
            labels = self.adapter.vocabulary() if self.adapter is not None else None
        else:
            which = capture.info.tokens.get(capture.info.axes[axis])
            labels = token_labels(self.tokens, which) if which else None
        return list(labels) if labels and len(labels) == capture.shape[axis] else None

    def select_stage(self, name: str) -> None:
        self.selected_stage = name
        self.state_changed.emit()

    # ----- breakpoints -----------------------------------------------------------------
