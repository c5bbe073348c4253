"""Display math off the GUI thread: one worker, the latest job of each kind, stale results dropped.

`DisplayMixin` holds the controller's display methods (what the shown stage's slice,
stats and head thumbnails are, and where they are computed); `DisplayWorker` runs the
heavy ones.

The controller submits work (a slice of a large stage, whole-tensor stats, every
head's thumbnail) under a kind; a newer job of the same kind replaces a pending one,
and a result that arrives after a newer job of its kind was submitted is dropped, so
panels never show an older stage's numbers. Results reach the GUI thread through a
queued Qt signal. The torch kernels release the GIL, so the event loop keeps running.
"""

from __future__ import annotations

import threading
from contextlib import contextmanager
from dataclasses import dataclass, replace
from typing import Any, Callable

from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication, QObject, QTimer, Signal

from tfdebug.core.display import DisplaySlice, Stats, display_slice, slice_moments, tensor_stats
from tfdebug.core.errors import TfdebugError
from tfdebug.core.masks import mask_read_by
from tfdebug.core.recorder import Capture
from tfdebug.core.thumbnails import HeadThumbnails, head_thumbnails
from tfdebug.ui.i18n.language import error_phrase, phrase_text, said
from tfdebug.ui.workers import source_display
from tfdebug.ui.workers.ahead import AheadCache, Prepared, frozen_view, heads_key, prepare, selection_of, view_key
from tfdebug.ui.render import colors

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
# at first; last, the neighbouring stages read and sliced ahead (tfdebug.ui.workers.ahead), which
# no panel waits for.
KINDS = ("jump", "slice", "tile", "row", "moments", "heads", "stats", "generation", "checks", "overview", "model", "ahead")
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


class DisplayMixin:
    """The display methods of DebugController: the shown stage's slice (now when small, on
    the worker when large), its whole-tensor stats and every head's thumbnail (on the worker).

    Uses the controller's `display` (a DisplayWorker), `stepper`, `view`, `current`,
    `current_slice`, `current_stats`, `_shown` (the one record of the shown stage and its position),
    `_indexed`, `_follow_timer`, `indices()` and its signals.
    """

    large_stage_bytes = LARGE_STAGE_BYTES

    def is_large(self, capture: Capture | None = None) -> bool:
        """Whether `capture` (the shown stage) is above `large_stage_bytes`: shown by its slice only."""
        capture = capture or self.current
        return capture is not None and capture.nbytes > self.large_stage_bytes

    def _show_current(self) -> None:
        stepper = self.stepper
        cursor, history = (stepper.cursor, stepper.history) if stepper is not None else (-1, [])  # read once
        self._shown = (cursor, history[cursor]) if 0 <= cursor < len(history) else None
        capture = self.current
        self.current_stats = None
        if capture is not None and (capture.tensor is not None or source_display.elsewhere(self, capture)):
            self.view.fit(capture.info.axes, capture.shape)
        with self.display.held():
            self.stage_changed.emit()
            self.refresh_slice()
            self._compute_stats()
        self._follow_timer.start()  # stage_shown: the other panels, after the heatmap's paint
        # After them (the timers fire in order): the panels' own jobs are submitted first and come first.
        QTimer.singleShot(0, self, lambda: self._prepare_neighbours(capture))

    def _prepare_neighbours(self, shown: Capture | None) -> None:
        """Have the worker read, slice and summarise the stages before and after the shown one
        (history the next F10 or Shift+F10 lands on), unless a forward is running."""
        stepper = self.stepper
        if stepper is None or shown is not self.current or self.is_running() or not self.source.tensors_here:
            return
        cursor, history = self.shown_index, stepper.history
        around = [history[i] for i in (cursor + 1, cursor - 1) if 0 <= i < len(history)]
        around = [c for c in around if not c.dropped and not self.is_large(c)]
        missing = self.display.ahead.missing(around, selection_of(self.view))
        if not missing:
            return
        view, ahead = frozen_view(self.view), self.display.ahead

        def kept(prepared: list) -> None:
            for p in prepared:
                if p is not None:
                    ahead.put(p)
        # A stage that cannot be read or summarised ahead says why when it is shown, by the usual path.
        self.display.submit("ahead", lambda: [prepare(stepper, c, view, MAX_SLICE, True) for c in missing],
                            kept, lambda exc: None)

    def _compute_stats(self) -> None:
        """Whole-tensor stats of the shown stage, on the display worker; stats_changed when ready."""
        capture = self.current
        self.display.cancel("stats")
        if source_display.elsewhere(self, capture) and not self.is_large(capture):
            source_display.submit_stats(self, capture, lambda st: self._stats_ready(capture, st),
                                        lambda exc: self.error.emit(_cannot("Cannot summarise {name}: {why}", capture,
                                                                            exc)))
        elif capture is not None and capture.tensor is not None and not self.is_large(capture):
            tensor, kind = capture.tensor, capture.info.kind
            known = self.display.ahead.stats_for(capture)  # each stage's stats are computed once
            if known is not None:  # there for the panels stage_shown draws in this turn: one drawing, no job
                self.current_stats = known
                return
            self.display.submit("stats", lambda: tensor_stats(tensor, kind=kind),
                                lambda st: self._stats_ready(capture, st),
                                lambda exc: self.error.emit(_cannot("Cannot summarise {name}: {why}", capture, exc)))

    def _stats_ready(self, capture: Capture, stats: Stats) -> None:
        if capture is self.current:
            self.current_stats = stats
            if capture.tensor is not None:
                self.display.ahead.put(Prepared(capture, capture.tensor, stats=stats))
            self.stats_changed.emit()

    def ensure_stats(self) -> Stats | None:
        """Whole-tensor stats of the shown stage, computed now if they are still pending."""
        capture = self.current
        if (self.current_stats is None and capture is not None and self.display.busy("stats")
                and capture.tensor is not None):
            self.display.cancel("stats")
            try:
                self._stats_ready(capture, tensor_stats(capture.tensor, kind=capture.info.kind))
            except Exception as exc:  # a dtype the stats cannot read: the rest still shows
                self.error.emit(_cannot("Cannot summarise {name}: {why}", capture, exc))
        return self.current_stats

    def slice_of(self, capture: Capture, overrides: dict[str, int] | None = None,
                 max_size: tuple[int, int] = MAX_SLICE) -> DisplaySlice:
        """The shown axes of `capture` with named indices overridden (the heads view uses this)."""
        indices = self.indices(capture)
        names = self.axis_names(capture)
        for name, value in (overrides or {}).items():
            if name in names:
                indices[names.index(name)] = value
        return display_slice(capture.tensor, self.view.row_axis, self.view.col_axis, indices, max_size,
                             kind=capture.info.kind, mask=self.mask_of(capture))

    def mask_of(self, capture: Capture):
        """The tensor of the mask stage a softmax stage read, when captured: the softmax's
        masked cells (exact zeros) are drawn in the masked colour too. None otherwise."""
        return mask_read_by(capture, self.stepper.captured) if self.stepper is not None else None

    def refresh_slice(self) -> None:
        """Recompute the shown slice: now when it is small, else on the display worker."""
        capture = self.current
        self.display.cancel("slice")
        if source_display.elsewhere(self, capture):
            source_display.submit_slice(self, capture, lambda exc: self._slice_failed(capture, exc))
            return
        if capture is None or capture.tensor is None:
            self.current_slice = None
            self.slice_changed.emit()
            return
        shape, row, col = capture.shape, self.view.row_axis, self.view.col_axis
        key = view_key(row, col, self.indices(capture), self.mask_of(capture))
        ready = self.display.ahead.slice_for(capture, key)
        if ready is not None:  # read and cut ahead, or cut when this stage was last shown
            self._slice_ready(capture, ready.slice, (ready.levels, ready.image) if ready.image is not None else None)
            return
        cells = shape[row] * shape[col] if len(shape) >= 2 and row != col else capture.tensor.numel()
        if cells <= OFF_THREAD_CELLS and not self.is_large(capture):
            try:
                sl = self.slice_of(capture)
            except (ValueError, IndexError, RuntimeError) as exc:
                self._slice_failed(capture, exc)
                return
            # Kept: stepping back here (a live pass's history) need not cut it again, nor the worker ahead.
            self.display.ahead.put(Prepared(capture, capture.tensor, key, sl, selection=selection_of(self.view)))
            self._slice_ready(capture, sl)
            return
        tensor, indices, kind = capture.tensor, self.indices(capture), capture.info.kind  # the selection now
        mask = self.mask_of(capture)

        def compute():
            # The slice's mean and std come after the image (the "moments" job): the colour
            # levels need only its extremes.
            sl = display_slice(tensor, row, col, indices, MAX_SLICE, kind=kind, mask=mask, moments=False)
            # The heatmap's LUT indices too, so the GUI thread converts no pixels.
            levels = colors.scheme(kind, sl.stats)[1]
            return sl, (levels, colors.quantize(sl.values, levels))

        def shown(done):
            self._slice_ready(capture, *done)
            sl = done[0]
            if sl.stats.partial and self.current_slice is sl:
                self.display.submit("moments", lambda: slice_moments(tensor, row, col, indices, sl.stats, kind, mask),
                                    lambda stats: self._moments_ready(sl, stats),
                                    lambda exc: self._slice_failed(capture, exc))
        self.display.submit("slice", compute, shown, lambda exc: self._slice_failed(capture, exc))

    def _slice_ready(self, capture: Capture, sl: DisplaySlice, indexed=None) -> None:
        if capture is self.current:
            self.current_slice = sl
            self._indexed = (sl, *indexed) if indexed is not None else None
            self.slice_changed.emit()

    def _moments_ready(self, sl: DisplaySlice, stats: Stats) -> None:
        """The shown slice's complete stats (mean and std) arrived: the same slice, its numbers filled in."""
        if self.current_slice is sl:
            self.current_slice = replace(sl, stats=stats)
            if self._indexed is not None and self._indexed[0] is sl:
                self._indexed = (self.current_slice, *self._indexed[1:])
            self.slice_stats_changed.emit()

    def indexed_image(self, sl: DisplaySlice, levels: tuple[float, float]):
        """The slice's LUT indices between `levels` when the worker computed them, else None."""
        cached = self._indexed
        return cached[2] if cached is not None and cached[0] is sl and cached[1] == levels else None

    def _slice_failed(self, capture: Capture, exc: Exception) -> None:
        if capture is self.current:
            self.current_slice = None
            self.error.emit(_cannot("Cannot show this slice of {name}: {why}", capture, exc))
            self.slice_changed.emit()

    def request_heads(self, capture: Capture, head_axis: int, max_size: tuple[int, int],
                      done: Callable[[HeadThumbnails], None]) -> None:
        """Every head of `capture` on the display worker; `done(thumbnails)` on the GUI thread
        unless the stage changed or a newer request came first."""
        if source_display.elsewhere(self, capture):
            source_display.submit_heads(self, capture, head_axis, max_size, done, lambda exc: self.error.emit(
                _cannot("Cannot draw the heads of {name}: {why}", capture, exc)))
            return
        row, col, indices, tensor = self.view.row_axis, self.view.col_axis, self.indices(capture), capture.tensor
        kind, mask = capture.info.kind, self.mask_of(capture)
        key = heads_key(view_key(row, col, indices, mask), head_axis, max_size)
        self.display.cancel("heads")
        known = self.display.ahead.heads_for(capture, key)  # prepared ahead, or drawn when last shown
        if known is not None:
            done(known)
            return

        def arrived(thumbs: HeadThumbnails) -> None:
            if capture is self.current:
                if capture.tensor is tensor and not self.is_large(capture):  # a large stage's tensor is not held on
                    self.display.ahead.put(Prepared(capture, tensor, heads=(key, thumbs)))
                done(thumbs)
        self.display.submit("heads",
                            lambda: head_thumbnails(tensor, row, col, head_axis, indices, max_size, kind=kind,
                                                    mask=mask),
                            arrived,
                            lambda exc: self.error.emit(_cannot("Cannot draw the heads of {name}: {why}", capture, exc)))

    def display_settled(self) -> bool:
        """Whether no display work (slice, stats, thumbnails, panels following the stage) is
        pending or undelivered."""
        return not self.display.busy() and not self._follow_timer.isActive()


QT_TRANSLATE_NOOP("DisplayMixin", "Cannot summarise {name}: {why}")
QT_TRANSLATE_NOOP("DisplayMixin", "Cannot show this slice of {name}: {why}")
QT_TRANSLATE_NOOP("DisplayMixin", "Cannot draw the heads of {name}: {why}")


def _cannot(sentence: str, capture, exc: BaseException) -> str:
    """One of the sentences above, translated (and said again after View ▸ Language), for a stage whose
    display math failed."""
    why, name = error_phrase(exc) if isinstance(exc, TfdebugError) else str(exc), capture.name
    return said(lambda: QCoreApplication.translate("DisplayMixin", sentence).format(name=name, why=phrase_text(why)))
