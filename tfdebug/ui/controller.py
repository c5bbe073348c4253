"""DebugController: the one object panels talk to.

It owns the current session (or replay), wraps the stepper's events in Qt signals,
keeps the view selection shared by every panel (which two axes are shown, the index
of every other axis, the selected stage), computes the shown slice with core's
display math, and turns core errors into an `error` signal. Panels receive the
controller, connect to its signals and call its methods; they never call each other.
"""

from __future__ import annotations

import threading
from typing import Callable

from PySide6.QtCore import QObject, QTimer, Signal

from tfdebug.core.breakpoints import Breakpoint
from tfdebug.core.display import DisplaySlice, Stats, display_slice, tensor_stats
from tfdebug.core.errors import TfdebugError
from tfdebug.core.recorder import Capture, held_bytes
from tfdebug.core.stepper import EXACT, FINISHED, PAUSED, RUNNING, Stepper, StepperEvent
from tfdebug.ui.qt_events import StepperSignals

MAX_SLICE = (1024, 1024)


class ViewSelection:
    """Which axes of the current stage are shown and where every other axis is fixed.

    Indices are kept by axis name so the head picked at one attention stage stays
    picked at the next one.
    """

    def __init__(self):
        self.row_axis = 0
        self.col_axis = 0
        self.indices_by_name: dict[str, int] = {}
        self._preferred: tuple[str, str] | None = None

    def fit(self, info_axes: tuple[str, ...], shape: tuple[int, ...]) -> None:
        """Choose axes for a stage: the user's last choice when the stage has both, else the last two."""
        n = len(shape)
        if n < 2:
            self.row_axis, self.col_axis = 0, 0
            return
        names = list(info_axes) if len(info_axes) == n else [str(i) for i in range(n)]
        if self._preferred and all(a in names for a in self._preferred):
            self.row_axis, self.col_axis = names.index(self._preferred[0]), names.index(self._preferred[1])
        else:
            self.row_axis, self.col_axis = n - 2, n - 1

    def prefer(self, names: tuple[str, str]) -> None:
        self._preferred = names

    def indices(self, axes: tuple[str, ...], shape: tuple[int, ...]) -> dict[int, int]:
        """Index of every axis that is not shown, clamped to its size."""
        out = {}
        for i, size in enumerate(shape):
            if i in (self.row_axis, self.col_axis):
                continue
            name = axes[i] if i < len(axes) else str(i)
            out[i] = max(0, min(self.indices_by_name.get(name, 0), size - 1))
        return out


class DebugController(QObject):
    """State shared by the window and panels; every change is announced by a signal."""

    session_changed = Signal()      # a new pass (live or replay): plan and tokens changed
    stage_changed = Signal()        # the shown stage changed (cursor moved, paused, replaced)
    state_changed = Signal()        # stepper state or history changed: actions re-check themselves
    stats_changed = Signal()        # current_stats (whole tensor) computed, just after the stage shows
    slice_changed = Signal()        # current_slice changed (no argument: PySide mishandles None payloads)
    breakpoints_changed = Signal()
    selection_changed = Signal(str)  # the stage selected in a navigator / map
    busy_changed = Signal(bool)     # a model is loading
    error = Signal(str)             # a core error, as the core's sentence
    info = Signal(str)              # a notice (breakpoint hit, pass finished)
    _loaded = Signal(object, str)

    def __init__(self, parent: QObject | None = None):
        super().__init__(parent)
        self.session = None
        self.stepper: Stepper | None = None
        self.plan: list[Capture] = []
        self.tokens: dict[str, list[str]] = {"src": [], "tgt": []}
        self.title = ""
        self.model_name = ""
        self.device = ""
        self.view = ViewSelection()
        self.selected_stage: str | None = None
        self.current_slice: DisplaySlice | None = None
        self.current_stats: Stats | None = None
        self.busy = False
        self._shown: Capture | None = None
        # (model, device, source, target prefix) the input bar holds; Run uses it.
        self.inputs: tuple[str, str, str, str] = ("random", "cpu", "", "")
        self._signals: StepperSignals | None = None
        self._model_cache: tuple[tuple[str, str], object] | None = None
        self._breakpoints: frozenset[Breakpoint] = frozenset()
        self.condition_mode = EXACT  # how condition breakpoints are checked (Stepper.set_condition_mode)
        self._loaded.connect(self._on_loaded)
        # Whole-tensor stats wait until the stage and its slice have been drawn.
        self._stats_timer = QTimer(self)
        self._stats_timer.setSingleShot(True)
        self._stats_timer.setInterval(0)
        self._stats_timer.timeout.connect(self._compute_stats)

    # ----- the pass ------------------------------------------------------------------
    @property
    def is_live(self) -> bool:
        return self.stepper is not None and self.stepper.is_live

    @property
    def current(self) -> Capture | None:
        """The stage the panels show (the stepper's cursor as of its last event)."""
        return self._shown

    @property
    def breakpoints(self) -> frozenset[Breakpoint]:
        return self._breakpoints

    def run(self, model: str, device: str, src: str, tgt: str) -> None:
        """Load `model` on `device` and start a pass on the sentence pair, off the UI thread."""
        if self.busy:
            return
        self._set_busy(True)
        threading.Thread(target=self._load_worker, args=(model, device, src, tgt), daemon=True,
                         name="tfdebug-load").start()

    def _load_worker(self, model: str, device: str, src: str, tgt: str) -> None:
        from tfdebug.models.loader import load_model
        from tfdebug.models.session import DebugSession
        try:
            cached = self._model_cache
            loaded = cached[1] if cached and cached[0] == (model, device) else load_model(model, device)
            self._model_cache = ((model, device), loaded)
            self._loaded.emit(DebugSession(loaded, src, tgt), "")
        except TfdebugError as exc:
            self._loaded.emit(False, exc.message)
        except Exception as exc:  # a model's own failure while planning: say it, stay usable
            self._loaded.emit(False, f"Could not prepare the pass: {type(exc).__name__}: {exc}")

    def _on_loaded(self, session, message) -> None:
        self._set_busy(False)
        if session is False:
            self.error.emit(message)
            return
        self.set_session(session)

    def set_session(self, session) -> None:
        """Show a live DebugSession and start its pass (paused at the first stage)."""
        self._replace_stepper(session.stepper, session, list(session.plan), session.tokens,
                              f"{session.src_text} → {session.tgt_text}")
        self.model_name = session.loaded.name
        self.device = str(session.loaded.device)
        self.session_changed.emit()
        self.command(session.stepper.start)
        if session.unknown_words:
            self.info.emit("Not in the vocabulary (shown as <unk>): " + ", ".join(session.unknown_words))

    def load_replay(self, stepper: Stepper, tokens: dict, title: str) -> None:
        """Show a recorded pass (Stepper.replay): every panel works, nothing can run."""
        self._replace_stepper(stepper, None, list(stepper.history), dict(tokens), title)
        self.model_name = "recorded"
        current = stepper.current
        self.device = str(current.device) if current is not None else ""
        self.session_changed.emit()
        self._show_current()
        self.state_changed.emit()

    def _replace_stepper(self, stepper, session, plan, tokens, title) -> None:
        self.close()
        self.session, self.stepper, self.plan, self.tokens, self.title = session, stepper, plan, tokens, title
        self.current_slice = None
        self.current_stats = None
        self._shown = None
        self._signals = StepperSignals(stepper, self)
        self._signals.event.connect(self._on_event)
        stepper.set_condition_mode(self.condition_mode)
        for bp in self._breakpoints:
            self._try_add(bp)

    def close(self) -> None:
        """Stop the current pass (the worker ends) and forget it."""
        if self._signals is not None:
            self._signals.detach()
            self._signals = None
        if self.session is not None:
            self.session.close()
        elif self.stepper is not None and self.stepper.is_live:
            self.stepper.stop()
        self.session = None
        self.stepper = None

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
            self.error.emit(exc.message)
            return False
        finally:
            self.state_changed.emit()
        return True

    def do(self, name: str, *args) -> bool:
        """Run the stepper command called `name` (step, continue_, run_to, step_back, ...)."""
        if self.stepper is None:
            self.error.emit("Nothing is loaded yet: press Run.")
            return False
        return self.command(getattr(self.stepper, name), *args)

    def run_to(self, name: str) -> bool:
        return self.do("run_to", name)

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
        if self.stepper is None:
            return None
        for i, capture in enumerate(self.stepper.history):
            if capture.name == name:
                return i
        return None

    def held_bytes(self) -> int:
        return held_bytes(self.stepper.history) if self.stepper is not None else 0

    # ----- events --------------------------------------------------------------------
    def _on_event(self, stepper: Stepper, event: StepperEvent) -> None:
        if stepper is not self.stepper:
            return  # a queued event of a pass already replaced
        if event.type in ("paused", "moved", "replaced"):
            self._show_current()
            if event.type == "paused" and event.reason == "breakpoint" and event.breakpoint is not None:
                self.info.emit(f"Stopped at {event.capture.name}: breakpoint on {event.breakpoint.describe()}.")
        elif event.type == "failed":
            self.error.emit(event.error.message if event.error is not None else "The forward pass failed.")
            self._show_current()
        elif event.type == "finished":
            if event.reason == "breakpoint" and event.breakpoint is not None:
                self.info.emit(f"The pass finished; the first stage with a breakpoint hit is {event.capture.name} "
                               f"({event.breakpoint.describe()}): the stages after it have already run.")
            elif stepper.state == FINISHED:
                self.info.emit("The forward pass finished.")
            self._show_current()
        self.state_changed.emit()

    def _show_current(self) -> None:
        capture = self._shown = self.stepper.current if self.stepper is not None else None
        self.current_stats = None
        if capture is not None and capture.tensor is not None:
            self.view.fit(capture.info.axes, capture.shape)
        self.stage_changed.emit()
        self.refresh_slice()
        self._stats_timer.start()

    def _compute_stats(self) -> None:
        capture = self._shown
        if capture is None or capture.tensor is None:
            return
        try:
            self.current_stats = tensor_stats(capture.tensor)
        except Exception as exc:  # a dtype the stats cannot read: the rest still shows
            self.error.emit(f"Cannot summarise {capture.name}: {exc}")
            return
        self.stats_changed.emit()

    def ensure_stats(self) -> Stats | None:
        """Whole-tensor stats of the shown stage, computed now if they are still pending."""
        if self.current_stats is None and self._stats_timer.isActive():
            self._stats_timer.stop()
            self._compute_stats()
        return self.current_stats

    # ----- view selection --------------------------------------------------------------
    def axis_names(self, capture: Capture | None = None) -> tuple[str, ...]:
        capture = capture or self.current
        if capture is None:
            return ()
        axes = capture.info.axes
        return axes if len(axes) == len(capture.shape) else tuple(str(i) for i in range(len(capture.shape)))

    def set_axes(self, row: int, col: int) -> None:
        """Show axes `row` × `col` of the current stage (swapped in when equal to the other one)."""
        if row == col:
            row, col = self.view.col_axis, self.view.row_axis
        self.view.row_axis, self.view.col_axis = row, col
        names = self.axis_names()
        if names:
            self.view.prefer((names[row], names[col]))
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

    def slice_of(self, capture: Capture, overrides: dict[str, int] | None = None,
                 max_size: tuple[int, int] = MAX_SLICE) -> DisplaySlice:
        """The shown axes of `capture` with named indices overridden (the heads view uses this)."""
        indices = self.indices(capture)
        names = self.axis_names(capture)
        for name, value in (overrides or {}).items():
            if name in names:
                indices[names.index(name)] = value
        return display_slice(capture.tensor, self.view.row_axis, self.view.col_axis, indices, max_size)

    def refresh_slice(self) -> None:
        capture = self.current
        self.current_slice = None
        if capture is not None and capture.tensor is not None:
            try:
                self.current_slice = self.slice_of(capture)
            except (ValueError, IndexError, RuntimeError) as exc:
                self.error.emit(f"Cannot show this slice of {capture.name}: {exc}")
        self.slice_changed.emit()

    def axis_labels(self, axis: int) -> list[str] | None:
        """Token strings along `axis` of the current stage, when it indexes tokens."""
        capture = self.current
        if capture is None or not 0 <= axis < len(capture.info.axes):
            return None
        which = capture.info.tokens.get(capture.info.axes[axis])
        labels = self.tokens.get(which) if which else None
        return list(labels) if labels and len(labels) == capture.shape[axis] else None

    def select_stage(self, name: str) -> None:
        self.selected_stage = name
        self.selection_changed.emit(name)
        self.state_changed.emit()

    # ----- breakpoints -----------------------------------------------------------------
    def _try_add(self, bp: Breakpoint) -> bool:
        if self.stepper is None:
            return True
        try:
            self.stepper.add_breakpoint(bp)
        except TfdebugError as exc:
            self.error.emit(exc.message)
            return False
        return True

    def set_breakpoint(self, bp: Breakpoint, on: bool) -> None:
        """Add or remove a breakpoint; it is kept across restarts and new inputs."""
        if on:
            if not self._try_add(bp):
                return
            self._breakpoints = self._breakpoints | {bp}
        else:
            self._breakpoints = self._breakpoints - {bp}
            if self.stepper is not None:
                self.stepper.remove_breakpoint(bp)
        self.breakpoints_changed.emit()

    def toggle_stage_breakpoint(self, name: str) -> None:
        bp = Breakpoint.on_stage(name)
        self.set_breakpoint(bp, bp not in self._breakpoints)

    def set_condition_mode(self, mode: str) -> None:
        """EXACT or FAST condition checks, for this pass and the next ones."""
        self.condition_mode = mode
        if self.stepper is not None:
            self.stepper.set_condition_mode(mode)

    def set_conditions(self, conditions: list[Breakpoint]) -> None:
        """Replace every condition breakpoint (NaN, Inf, |x| > t) with `conditions`."""
        for bp in [b for b in self._breakpoints if b.by == "condition"]:
            self.set_breakpoint(bp, False)
        for bp in conditions:
            self.set_breakpoint(bp, True)

    def clear_breakpoints(self) -> None:
        self._breakpoints = frozenset()
        if self.stepper is not None:
            self.stepper.clear_breakpoints()
        self.breakpoints_changed.emit()
