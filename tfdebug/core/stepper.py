"""Stepper: a forward pass in a worker thread that pauses at taps.

The worker runs `run()` (a call of the model) under a Recorder. At each tap the hook
decides whether to pause; while paused it blocks on a condition variable until a
command resumes it. Stages already captured form a history the cursor moves through
without running anything again.

Commands return at once; observers learn what happened through events delivered to
plain callbacks (from the worker thread for captured/paused/finished/failed/stopped).
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING, Any, Callable, Sequence

from tfdebug.core.breakpoints import (EXACT, FAST, Breakpoint, BreakpointSet, capture_flags, checkable, conditions_of,
                                     first_condition_hit, first_hit, place_hit)
from tfdebug.core.budget import FIRST_FIT, CaptureBudget, KeepPolicy
from tfdebug.core.errors import ForwardFailedError, StepperStateError, TfdebugError
from tfdebug.core.foreign import INTERRUPTS
from tfdebug.core.names import unknown_stage
from tfdebug.core.phrases import Phrase
from tfdebug.core.recorder import Capture, Recorder, matches, tap_names
from tfdebug.core.stages import StageInfo
from tfdebug.core.stepper_breakpoints import StepperBreakpointsMixin
from tfdebug.core.stepper_edits import EditsMixin
from tfdebug.core.stepper_history import HistoryMixin

# The states and events (and EXACT, FAST above) are part of the stepper's interface: importable from here too.
from tfdebug.core.stepper_state import _ENDED, FAILED, FINISHED, IDLE, PAUSED, RUNNING, STOPPED, StepperEvent  # noqa: F401

if TYPE_CHECKING:  # torch loads when a function first needs it, not with the window
    from torch import Tensor, nn

    from tfdebug.core.reference import ReferencePass


class _StopRun(BaseException):
    """Raised inside a hook to unwind the forward when the user stops it."""


Predicate = Callable[[Capture], bool]


class Stepper(HistoryMixin, StepperBreakpointsMixin, EditsMixin):
    """Pausable forward pass of `model`, run by calling `run()`.

    `plan`, when given, is the list of stage names this pass goes through; run_to
    rejects names outside it. Without a plan, names of the model's taps are accepted.
    `relabel` is handed to the Recorder (a generation's step-prefixed names).
    `max_capture_bytes` is a capture budget (tfdebug.core.budget): stages beyond it are
    shown while the pass is paused at them, then their tensors leave the history
    (`Capture.dropped`; their names in `dropped`). Its breakpoints are a BreakpointSet
    (`use_breakpoints`), read at every check.
    """

    def __init__(self, model: nn.Module | None, run: Callable[[], Any] | None, *,
                 plan: Sequence[str] | None = None, stages: Sequence[str] | None = None,
                 load: Callable[..., Tensor] | None = None,
                 relabel: Callable[[StageInfo, Tensor], StageInfo] | None = None,
                 max_capture_bytes: int | None = None, keep: KeepPolicy = FIRST_FIT):
        self._model = model
        self._relabel = relabel
        self.max_capture_bytes = max_capture_bytes
        self.keep = keep  # which stages the budget keeps; read when a pass starts
        self._run = run
        self._stages = stages
        if plan is not None:
            self._known = list(plan)
        elif model is not None:
            self._known = tap_names(model)
        else:
            raise TypeError("A Stepper needs a model or a plan (a replay's stage names).")
        # `_mutex` is `_lock`'s own lock: taking it directly excludes the same threads, without Condition.__enter__'s
        # Python call (the worker takes it at every stage).
        self._mutex = threading.RLock()
        self._lock = threading.Condition(self._mutex)
        self._observers: list[Callable[[StepperEvent], None]] = []
        self._load = load
        self._part: Callable[[Capture, tuple[int, ...]], Tensor | None] | None = None  # a replay's partial reads
        self._read_later: set[str] = set()  # replayed stages a move shows unread (`read_later`)
        self._load_lock = threading.Lock()  # a replay's stage is read once, by whichever thread asks first
        self._breakpoints = BreakpointSet()  # its own until `use_breakpoints` hands it the window's
        #: the reference pass a "diverges" condition compares with (tfdebug.core.reference.ReferencePass)
        self.reference: ReferencePass | None = None
        self._reset()

    @classmethod
    def replay(cls, captures: Sequence[Capture], load: Callable[..., Tensor] | None = None,
               part: Callable[[Capture, tuple[int, ...]], Tensor | None] | None = None) -> "Stepper":
        """A stepper over recorded stages (a snapshot): every command moves through history.

        Captures may come without tensors; `load(capture)` then reads one when it is
        shown or a condition breakpoint needs it (`load(capture, stop=stop)` for a read that may be
        stopped: `tensor_of`), and `part(capture, leading)` reads the tensor at
        fixed leading indices alone (`part_of`). Nothing can run, restart or be replaced.
        """
        stepper = cls(None, None, plan=[c.name for c in captures], load=load)
        stepper._part = part
        stepper.history = list(captures)
        stepper._positions = {c.name: i for i, c in enumerate(stepper.history)}
        stepper.state = FINISHED
        stepper.cursor = 0 if captures else -1
        if captures:
            stepper._ensure_tensor(captures[0])
        return stepper

    @property
    def is_live(self) -> bool:
        """False for a replay: there is no model to run, restart or edit."""
        return self._run is not None

    def _reset(self) -> None:
        self.history: list[Capture] = []
        self._positions: dict[str, int] = {}  # stage name -> index in history
        self.cursor = -1
        self.live_index: int | None = None
        self.state = IDLE
        self.error: TfdebugError | None = None
        self.output: Any = None
        self._predicate: tuple[Predicate, str] | None = None
        self._go = False
        self._stop = False
        self._replacement: Tensor | None = None
        self._undo: list[Tensor | None] = []  # the paused stage's tensors before each replace
        self._thread: threading.Thread | None = None
        self._flagged: list[tuple[int, Tensor]] = []  # fast mode: (history index, condition flags on device)
        self._looking_at: str | None = None  # the earlier stage on screen when the pass was last resumed
        order = [name for name in self._known if matches(name, self._stages)]
        self._budget = CaptureBudget(self.max_capture_bytes, self.keep, order=order)

    # ----- observers -------------------------------------------------------------------
    def subscribe(self, callback: Callable[[StepperEvent], None]) -> None:
        """Call `callback` with each stepper event from now on."""
        self._observers.append(callback)

    def unsubscribe(self, callback: Callable[[StepperEvent], None]) -> None:
        """Stop calling `callback` (nothing happens when it was not subscribed)."""
        if callback in self._observers:
            self._observers.remove(callback)

    def _emit(self, event: StepperEvent) -> None:
        for callback in list(self._observers):
            callback(event)

    # ----- breakpoints (StepperBreakpointsMixin: the set, read at every check) ------------
    def _reference_of(self, capture: Capture) -> Tensor | None:
        """The reference pass's tensor of this stage; only the pass's own thread waits for it (Stop ends that)."""
        ref = self.reference
        return None if ref is None else ref.tensor(capture, lambda: self._stop, threading.current_thread() is self._thread)

    # ----- lifecycle -------------------------------------------------------------------
    def start(self) -> None:
        """Start the forward in a worker thread; it pauses at the first stage."""
        if not self.is_live:
            raise StepperStateError("A recorded pass cannot run again: open the model to run it live.",
                                    id="stepper.recorded")
        with self._lock:
            if self.state in (RUNNING, PAUSED):
                raise StepperStateError("The forward pass is already running; stop or restart it.",
                                        id="stepper.already_running")
            self._reset()
            self.state = RUNNING
            self._predicate = (lambda c: True, "start")
            self._thread = threading.Thread(target=self._worker, name="tfdebug-forward", daemon=True)
            self._thread.start()

    def stop(self, timeout: float = 10.0) -> None:
        """End the forward: the worker unwinds, hooks are removed, the thread ends."""
        with self._lock:
            thread = self._thread
            if self.state not in (RUNNING, PAUSED):
                return
            self._stop = True
            self._lock.notify_all()
        if thread is not None and thread is not threading.current_thread():
            thread.join(timeout)

    def restart(self) -> None:
        """Stop the current pass (if any) and start a fresh one; breakpoints are kept."""
        self.stop()
        self.start()

    def wait(self, timeout: float | None = 10.0) -> str:
        """Block until the worker is paused or has ended; returns the state."""
        with self._lock:
            self._lock.wait_for(lambda: self.state != RUNNING, timeout)
            return self.state

    @property
    def alive(self) -> bool:
        """Whether the pass is running or paused."""
        return self.state in (RUNNING, PAUSED)

    # ----- commands --------------------------------------------------------------------
    def step(self) -> None:
        """Next stage: forward in history when the cursor is behind, else run one stage."""
        self._advance(lambda c: True, "step")

    def continue_(self) -> None:
        """Run to the next breakpoint, or to the end."""
        self._advance(None, "continue")

    def run_to(self, name: str) -> None:
        """Run (or move through history) to the stage called `name`."""
        if name not in self._known:
            raise unknown_stage(name, self._known)
        with self._lock:
            i = self._positions.get(name)
            if i is not None:
                self._move(i)
                return
        self._advance(lambda c: c.name == name, "run_to")

    def step_out(self) -> None:
        """Run to the first stage outside the current block (attention, FFN, ...)."""
        current = self.current
        if current is None:
            raise StepperStateError("Nothing has run yet.", id="stepper.nothing_run")
        block = current.info.block
        self._advance(lambda c: c.info.block != block, "step_out")

    def pause(self) -> None:
        """Pause a running forward at the next stage."""
        with self._lock:
            if self.state == RUNNING:
                self._predicate = (lambda c: True, "pause")

    # ----- internals -------------------------------------------------------------------
    def _advance(self, predicate: Predicate | None, reason: str) -> None:
        with self._lock:
            # Behind the live point: walk the history first, no re-execution.
            stop = self._first_in_history(predicate)
            if stop is not None:
                self._move(stop)
                return
            if self.state != PAUSED:
                if self.state == RUNNING:
                    raise StepperStateError("The forward pass is running; wait for it to pause.", id="stepper.running")
                if self.state in _ENDED:
                    if self.cursor < len(self.history) - 1:
                        self._move(len(self.history) - 1)
                        return
                    raise StepperStateError("The forward pass has ended; restart it to run again.", id="stepper.ended")
                raise StepperStateError("The forward pass has not started.", id="stepper.not_started")
            self._predicate = (predicate, reason) if predicate is not None else None
            # Run on while looking back at an earlier stage: a near budget keeps the stages around it too.
            self._looking_at = self.history[self.cursor].name if 0 <= self.cursor < len(self.history) - 1 else None
            self.state = RUNNING
            self._go = True
            self._lock.notify_all()

    def _first_in_history(self, predicate: Predicate | None) -> int | None:
        """Index of the first stage after the cursor where the walk through history stops."""
        breakpoints = self.breakpoints  # read once: the window may change the set meanwhile
        conditions = conditions_of(breakpoints)
        later = range(self.cursor + 1, len(self.history))
        if conditions and self._load is not None:
            for i in later:
                self._ensure_tensor(self.history[i])
        if self.condition_mode == EXACT:
            return next((i for i in later if (predicate is not None and predicate(self.history[i]))
                         or first_hit(breakpoints, self.history[i], self._reference_of)), None)
        stop = next((i for i in later if (predicate is not None and predicate(self.history[i]))
                     or place_hit(breakpoints, self.history[i])), None)
        end = len(self.history) if stop is None else stop
        # Conditions of every stage up to that one, read back together (one sync).
        hit = first_condition_hit([(i, capture_flags(self.history[i], conditions, self._reference_of))
                                   for i in range(self.cursor + 1, end) if checkable(self.history[i])], conditions)
        return hit[0] if hit is not None else stop

    def _resolve_flags(self) -> tuple[int, Breakpoint] | None:
        """Fast mode: read back the flags gathered since the last pause (one sync)."""
        flagged, self._flagged = self._flagged, []
        return first_condition_hit(flagged, conditions_of(self.breakpoints))

    def _on_capture(self, capture: Capture) -> Tensor | None:
        keep = self._budget.admit(capture, self._looking_at)
        try:
            return self._pause_if_due(capture)
        finally:
            if not keep:  # beyond the budget: shown while paused here, gone once the pass moves on
                capture.drop()

    def _pause_if_due(self, capture: Capture) -> Tensor | None:
        with self._mutex:
            if self._stop:
                raise _StopRun()
            index = len(self.history)
            self.history.append(capture)
            self._positions.setdefault(capture.name, index)
        if self._observers:
            self._emit(StepperEvent("captured", index, capture))
        breakpoints = self.breakpoints
        if not breakpoints and self._predicate is None and not self._stop:  # Continue with no breakpoint:
            return None  # nothing to decide here (a Pause or Stop given meanwhile is seen under the lock next stage)
        fast = self.condition_mode == FAST
        if not breakpoints:
            bp = None
        elif fast:
            bp = place_hit(breakpoints, capture)
            conditions = conditions_of(breakpoints)
            if conditions and checkable(capture):
                self._flagged.append((index, capture_flags(capture, conditions, self._reference_of)))
        else:
            bp = first_hit(breakpoints, capture, self._reference_of)
        with self._lock:
            if self._stop:
                raise _StopRun()
            predicate = self._predicate
            reason = "breakpoint" if bp is not None else None
            if reason is None and predicate is not None and predicate[0](capture):
                reason = predicate[1]
            if reason is None:
                return None
            shown = index
            earlier = self._resolve_flags() if fast else None
            if earlier is not None:  # a condition hit upstream: show it, stay paused here
                shown, bp, reason = earlier[0], earlier[1], "breakpoint"
            self.state = PAUSED
            self.live_index, self.cursor = index, shown
            self._go = False
            self._lock.notify_all()
        self._emit(StepperEvent("paused", shown, self.history[shown], reason=reason, breakpoint=bp))
        with self._lock:
            self._lock.wait_for(lambda: self._go or self._stop)
            if self._stop:
                raise _StopRun()
            self.live_index = None
            replacement, self._replacement = self._replacement, None
            self._undo = []  # the stage has passed: its edit is part of the pass now
            return replacement

    def _worker(self) -> None:
        import torch
        event: StepperEvent
        try:
            model, run = self._model, self._run
            assert model is not None and run is not None  # start() runs a live stepper only: it has both
            with torch.no_grad(), Recorder(model, self._stages, on_capture=self._on_capture, relabel=self._relabel):
                output = run()
        except _StopRun:
            self._finish(STOPPED)
            event = StepperEvent("stopped")
        except TfdebugError as exc:
            self._finish(FAILED, error=exc)
            event = StepperEvent("failed", error=exc)
        except INTERRUPTS:
            raise
        except BaseException as exc:  # the model's own failure (a native panic included), reported not raised
            where = self.history[-1].name if self.history else Phrase("the start", id="stepper.start")
            # The sentence says what happened in the model's own words; the exception's class
            # is a detail (the window puts it behind Details).
            error = ForwardFailedError("The forward pass failed after {where}: {reason}", id="stepper.forward_failed",
                                       where=where, reason=str(exc) or type(exc).__name__)
            error.__cause__ = exc
            self._finish(FAILED, error=error)
            event = StepperEvent("failed", error=error)
        else:
            hit = self._resolve_flags() if self._flagged else None
            self._finish(FINISHED, output=output, shown=hit[0] if hit else None)
            event = (StepperEvent("finished", output=output) if hit is None else
                     StepperEvent("finished", hit[0], self.history[hit[0]], reason="breakpoint",
                                  breakpoint=hit[1], output=output))
        self._emit(event)

    def _finish(self, state: str, error: TfdebugError | None = None, output: Any = None,
                shown: int | None = None) -> None:
        with self._lock:
            self.state = state
            self.error = error
            self.output = output
            self.live_index = None
            if shown is not None:  # fast conditions: the first hit, found after the pass
                self.cursor = shown
            elif self.history and (self.cursor < 0 or state != STOPPED):
                # Finished or failed: show the last stage that was produced.
                self.cursor = len(self.history) - 1
            self._lock.notify_all()


if TYPE_CHECKING:  # the type checker holds the local stepper to the protocol the window uses
    from tfdebug.core.stepper_like import StepperLike

    _CONFORMS: type[StepperLike] = Stepper
