"""Display math off the GUI thread: one worker, the latest job of each kind, stale results dropped.

`DisplayWorker` runs the heavy display work of the shown stage (tfdebug.ui.state.shown asks for it, where the
pass's display says it is worked out) and holds the display cache its results are kept in
(tfdebug.sessions.display_cache.AheadCache).

The controller's parts submit work (a slice of a large stage, whole-tensor stats, every
head's thumbnail) under a kind; a newer job of the same kind replaces a pending one,
and a result that arrives after a newer job of its kind was submitted is dropped, so
panels never show an older stage's numbers. Results reach the GUI thread through a
queued Qt signal. The torch kernels release the GIL, so the event loop keeps running.
"""

from __future__ import annotations

import threading
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, Callable

from PySide6.QtCore import QObject, QTimer, Signal

from tfdebug.sessions.display_cache import AheadCache

MAX_SLICE = (1024, 1024)
# Planes with more cells than this are sliced off the GUI thread; up to 1024² a CPU slice,
# its stats and its LUT indices take well under the 50 ms the GUI thread may spend, and are
# drawn in the same event-loop turn as the step (no thread hop).
OFF_THREAD_CELLS = 1024 * 1024
# Stages holding more bytes than this are shown through the on-device slice only, cut on the
# worker: no whole-tensor stats and no head thumbnails (each reads the whole stage; from a
# memory-mapped or sparse snapshot that is gigabytes of page faults).
LARGE_STAGE_BYTES = 256 * 2**20

# Kinds in the order the worker takes them: a stage the user jumped to, then what the user looks
# at first (the Learn menu's PE table read for its curves: "pe"); then the whole of a large replayed stage first drawn from a part of it (tfdebug.ui.state.shown);
# last, the neighbouring stages read and sliced ahead (tfdebug.sessions.display_cache), which no panel waits for.
KINDS = ("jump", "slice", "tile", "row", "moments", "heads", "stats", "generation", "checks", "overview", "model",
         "pe", "whole", "ahead")
SHOWN_KINDS = KINDS[:-1]


@dataclass
class _Job:
    kind: str
    seq: int
    compute: Callable[[], Any]
    done: Callable[[Any], None]
    failed: Callable[[Exception], None]


class DisplayWorker(QObject):
    """`submit(kind, compute, done, failed)`: `compute()` runs on the worker thread, then
    `done(result)` or `failed(exception)` on the GUI thread — unless a newer job of that
    kind was submitted meanwhile."""

    _finished = Signal(object, object, object)  # job, result, error

    def __init__(self, parent: QObject | None = None):
        super().__init__(parent)
        self._cond = threading.Condition()
        self._pending: dict[str, _Job] = {}
        self._latest: dict[str, int] = {}
        self._in_flight: dict[str, int] = {}  # kind -> seq taken by the worker, result not yet delivered
        self._seq = 0
        self._held = 0
        self._closed = False
        self.ahead = AheadCache()  # the stages around the shown one, prepared by "ahead" jobs
        self._finished.connect(self._arrived)
        # Results are handed to the panels from a zero-timer, not from the queued signal that
        # brings them: Qt dispatches posted events (results, and the repaints they cause) back
        # to back while more keep arriving, and no timer or input would run in between.
        self._ready: list[tuple[_Job, Any, Exception | None]] = []
        self._ready_timer = QTimer(self)
        self._ready_timer.setSingleShot(True)
        self._ready_timer.setInterval(0)
        self._ready_timer.timeout.connect(self._deliver_ready)
        self._thread = threading.Thread(target=self._loop, name="tfdebug-display", daemon=True)
        self._thread.start()

    def submit(self, kind: str, compute: Callable[[], Any], done: Callable[[Any], None],
               failed: Callable[[Exception], None]) -> None:
        with self._cond:
            if self._closed:
                return  # the window is closing: nothing will draw the result
            self._seq += 1
            self._latest[kind] = self._seq
            self._pending[kind] = _Job(kind, self._seq, compute, done, failed)
            self._cond.notify()

    @contextmanager
    def held(self):
        """Jobs submitted inside are taken only after it ends, most urgent kind first (a
        stage's panels ask for thumbnails and checks before its slice is submitted; the
        slice must not wait behind them)."""
        with self._cond:
            self._held += 1
        try:
            yield
        finally:
            with self._cond:
                self._held -= 1
                self._cond.notify()

    def cancel(self, kind: str | None = None) -> None:
        """Forget pending and in-flight jobs (of one kind, or all): their results are dropped.
        Cancelling all (another pass is shown) forgets the prepared stages too."""
        if kind is None:
            self.ahead.clear()
        with self._cond:
            for k in ([kind] if kind else list(KINDS)):
                self._pending.pop(k, None)
                self._seq += 1
                self._latest[k] = self._seq

    def busy(self, kind: str | None = None) -> bool:
        """Whether a job (of `kind`; by default of any kind a panel shows) is pending, running, or
        its result is not delivered yet."""
        with self._cond:
            kinds = [kind] if kind else list(SHOWN_KINDS)
            return any(k in self._pending or k in self._in_flight for k in kinds)

    def waiting(self, kind: str) -> bool:
        """Whether a job of `kind` waits to be taken (a running job asks whether it holds one up)."""
        with self._cond:
            return kind in self._pending

    def close(self, timeout: float | None = None) -> None:
        """End the worker thread after the job it is on (waiting up to `timeout` s for it)."""
        with self._cond:
            self._closed = True
            self._pending.clear()
            self._cond.notify()
        if timeout is not None and self._thread is not threading.current_thread():
            self._thread.join(timeout)

    def _loop(self) -> None:
        while True:
            with self._cond:
                # After a slice, the next job waits until the GUI thread has drawn it: the two
                # cores are the GUI's paint and the worker's torch threads, and sharing them
                # slowed both (torch's threads wait for the busy core at every barrier).
                self._cond.wait_for(lambda: (self._pending and not self._held and "slice" not in self._in_flight)
                                    or self._closed)
                if self._closed:
                    return
                job = self._pending.pop(next(k for k in KINDS if k in self._pending))
                self._in_flight[job.kind] = job.seq
            result, error = None, None
            if self._latest.get(job.kind) == job.seq:  # not already superseded
                try:
                    result = job.compute()
                except Exception as exc:  # reported on the GUI thread, as a sentence
                    error = exc
            self._finished.emit(job, result, error)
            # the GUI thread has them now: held here they would live until the next job (a pass's tensors that
            # went, a backward making room, among them)
            job = result = error = None

    def _arrived(self, job: _Job, result, error) -> None:
        self._ready.append((job, result, error))
        self._ready_timer.start()

    def _deliver_ready(self) -> None:
        ready, self._ready = self._ready, []
        for job, result, error in ready:
            self._deliver(job, result, error)

    def _deliver(self, job: _Job, result, error) -> None:
        with self._cond:
            stale = self._latest.get(job.kind) != job.seq
        try:
            if not stale:
                job.failed(error) if error is not None else job.done(result)
        finally:
            with self._cond:  # delivered and handled (a slice: drawn): the worker may go on
                if self._in_flight.get(job.kind) == job.seq:
                    del self._in_flight[job.kind]
                self._cond.notify()
