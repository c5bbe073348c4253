"""The shown stage worked out where it is cheapest: its slice, its stats and its heads.

`ShownStage` is a part the controller owns (`ctl.shown`). It fills the Qt-free evented model of what is on
screen (`model`, a `tfdebug.ui.models.shown.ShownModel`: the shown stage and its history position, taken
from the stepper's cursor when the GUI hears of a move, its slice and its whole-tensor stats), which
emits the events panels connect to. It works out the slice, the stats and every head's
thumbnail by one path for every pass: it asks the source's display (`PassDisplay`: `sessions.display.LocalDisplay`
answers with core's display math where the tensors are in this process, `remote.display.RemoteDisplay` asks the
server), now or on the display worker as the display says (`reads_now`, `reads_ahead`, `unread` …: the window
asks no question about where the tensors are), and keeps what was worked out in the display cache the worker holds
(`tfdebug.sessions.display_cache`). It reads the pass on the screen it is handed (a `ShownScreen`: the controller)
and the view's axes through the controller's `ShownAxes`; it holds no display math of its own.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any, Callable, Protocol, cast

from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication, QObject, QTimer

from tfdebug.core.display import DisplaySlice
from tfdebug.core.stats import Stats
from tfdebug.core.errors import ReadStoppedError, TfdebugError
from tfdebug.core.recorder import Capture
from tfdebug.core.stepper import RUNNING
from tfdebug.core.stepper_like import StepperLike
from tfdebug.core.thumbnails import HeadThumbnails
from tfdebug.core.view import ViewSelection
from tfdebug.sessions.display_cache import (Prepared, frozen_view, heads_key, indexed, prepare, prepare_part,
                                            selection_of, view_key)
from tfdebug.ui.i18n.language import error_phrase, phrase_text, said
from tfdebug.ui.models.shown import ShownModel
from tfdebug.ui.render.plot_paint import AfterPaint
from tfdebug.ui.state.axes import ShownAxes
from tfdebug.ui.state.loading import LoadState
from tfdebug.ui.workers.display import LARGE_STAGE_BYTES, MAX_SLICE, OFF_THREAD_CELLS, DisplayWorker

if TYPE_CHECKING:
    from tfdebug.core.stepper import Stepper

QT_TRANSLATE_NOOP("ShownStage", "Cannot summarise {name}: {why}")
QT_TRANSLATE_NOOP("ShownStage", "Cannot show this slice of {name}: {why}")
QT_TRANSLATE_NOOP("ShownStage", "Cannot draw the heads of {name}: {why}")


def cannot(sentence: str, capture, exc: BaseException) -> str:
    """One of the sentences above, translated (and said again after View ▸ Language), for a stage whose
    display math failed."""
    why, name = error_phrase(exc) if isinstance(exc, TfdebugError) else str(exc), capture.name
    return said(lambda: QCoreApplication.translate("ShownStage", sentence).format(name=name, why=phrase_text(why)))


class ShownScreen(Protocol):
    """What `ShownStage` reads of the window's pass and tells it (the controller is one): the stepper and source
    on screen, whether a model loads (`loader.busy`), and whom to tell what could not be shown (`fail`)."""

    @property
    def stepper(self) -> StepperLike | None:
        """The stepper on screen, or None."""
        ...

    @property
    def source(self) -> Any:
        """The pass source on screen, or None."""
        ...

    @property
    def loader(self) -> LoadState:
        """The Loader (`busy` while a model loads)."""
        ...

    def fail(self, content: str) -> None:
        """A stage's display math failed: say why."""
        ...


class ShownStage:
    """Works out the shown stage's slice, stats and heads into `model` (whose events panels connect to).

    `screen` is the pass on screen (a `ShownScreen`), told what could not be shown; `display` is the display
    worker; `owner` is the QObject whose event loop turns the model's gathered events wait for (and whose end
    cancels them)."""

    large_stage_bytes = LARGE_STAGE_BYTES

    def __init__(self, display: DisplayWorker, view: ViewSelection, axes: ShownAxes, screen: ShownScreen,
                 owner: QObject):
        self.display, self.view, self.axes, self._screen = display, view, axes, screen
        self._later = lambda fn: QTimer.singleShot(0, owner, fn)
        self._after_paint = AfterPaint(owner)
        self._ahead_scheduled = 0  # neighbours' reads asked for after a paint, not handed to the worker yet
        # The heatmap, which the user is waiting for, paints first and alone on the model's immediate
        # events (with the stage's name in the status bar and the Stages tree); one event-loop turn later
        # the other panels fill in from its gathered event and paint once.
        self.model = ShownModel(self._later)
        self._indexed: tuple | None = None  # (slice, levels, LUT indices) the worker quantised with the slice
        # The view's axes or an index changed (the axis controls, a click on a head …): cut the slice again. While a
        # stage is being shown its own fit of the view is not a change to answer: the slice is cut there, once.
        self._showing = False
        view.axes_changed.connect(self._view_changed)
        view.index_changed.connect(self._view_changed)

    @property
    def current(self) -> Capture | None:
        """The stage the panels show (the stepper's cursor as of its last event)."""
        return self.model.current

    @property
    def index(self) -> int:
        """The history position of `current` (-1 when nothing is shown)."""
        return self.model.index

    @property
    def current_slice(self) -> DisplaySlice | None:
        """The shown slice (the model's)."""
        return self.model.slice

    @property
    def current_stats(self) -> Stats | None:
        """The shown stage's whole-tensor stats (the model's), None until known."""
        return self.model.stats

    def forget(self) -> None:
        """Another pass goes on screen: nothing is shown until its first event."""
        self.model.forget()

    @property
    def source_display(self):
        """The display of the pass on screen (`sessions.source.PassDisplay`), where every slice, stat and
        thumbnail is asked; None when no pass is."""
        source = self._screen.source
        return source.display if source is not None else None

    def ready(self, capture: Capture) -> bool:
        """Whether `capture` can be shown with no read first (its display's `ready`: in memory here, or kept where
        its pass runs)."""
        display = self.source_display
        return display.ready(capture) if display is not None else capture.tensor is not None

    def showable(self, capture: Capture | None) -> bool:
        """Whether `capture` has a tensor to show: `ready`, or being read here while its slice, cut from the part
        shown, is ready (`read_before_jump`)."""
        return capture is not None and (self.ready(capture) or self.reading(capture))

    def reading(self, capture: Capture | None) -> bool:
        """Whether `capture` is shown from the slice of a part of it while the whole is read (the panels that
        read the whole hear `tensor_read` on the model once it is)."""
        return capture is not None and self.display.ahead.unread_slice(capture)

    def is_large(self, capture: Capture | None = None) -> bool:
        """Whether `capture` (the shown stage) is above `large_stage_bytes`: shown by its slice only."""
        capture = capture or self.current
        return capture is not None and capture.nbytes > self.large_stage_bytes

    def show_current(self) -> None:
        """Show the stage the stepper's cursor is on: its slice now, its stats and neighbours on the worker."""
        stepper = self._screen.stepper
        cursor, history = (stepper.cursor, stepper.history) if stepper is not None else (-1, [])  # read once
        capture = history[cursor] if 0 <= cursor < len(history) else None
        self._showing = True
        try:
            # The view's subscribers hear of its fit to the new stage after the stage is shown (they read both).
            with self.view.held():
                if self.showable(capture):
                    self.view.fit(capture.info.axes, capture.shape)
                with self.display.held():
                    self.model.show(cursor, capture)  # the other panels follow after the heatmap's paint
                    self.refresh_slice()
                    self._compute_stats()
                    self._read_whole(capture)
        finally:
            self._showing = False
        # After them (the timers fire in order): the panels' own jobs are submitted first and come first; and the
        # neighbours' reads, cuts and stats only once the window has painted the step (AfterPaint): on the worker
        # beside the step's turn and paint, they took the cores and the lock the GUI thread was drawing with.
        self._ahead_scheduled += 1
        self._later(lambda: self._after_paint.call(lambda: self._read_ahead(capture)))

    def _read_ahead(self, capture: Capture | None) -> None:
        self._ahead_scheduled -= 1
        self._prepare_neighbours(capture)

    def _read_whole(self, capture: Capture | None) -> None:
        """A stage shown from a part of it (`read_before_jump`) is read whole on the display worker ("whole" job,
        after everything the user looks at first); then its slice's mean and std are filled in and the panels that
        read the whole (heads, checks) follow. The read stops when another stage is asked for meanwhile: the next
        step's picture does not wait for gigabytes no one will look at."""
        self.display.cancel("whole")  # a stage left behind need not be read
        if capture is None or self._screen.stepper is None or not self.reading(capture):
            return
        stepper = cast("Stepper", self._screen.stepper)  # a replay whose tensors are here: core's own

        def wanted_no_more() -> bool:  # asked on the worker between pieces of the read
            return capture is not self.current or self.display.waiting("jump")

        def read(_tensor) -> None:
            if capture is self.current:
                self.display.ahead.adopt(capture)
                if self.current_slice is not None:
                    self._complete_moments(capture, self.current_slice, self.view.row_axis, self.view.col_axis,
                                           self.axes.indices(capture))
                self.model.tensor_read()

        def failed(exc: Exception) -> None:
            if not isinstance(exc, ReadStoppedError):  # stopped: read again when it is shown again
                self._screen.fail(cannot("Cannot show this slice of {name}: {why}", capture, exc))
        self.display.submit("whole", lambda: stepper.tensor_of(capture, stop=wanted_no_more), read, failed)

    def _view_changed(self, *_change) -> None:
        if not self._showing:
            self.refresh_slice()

    def _prepare_neighbours(self, shown: Capture | None) -> None:
        """Have the worker read, slice and summarise the stages before and after the shown one
        (history the next F10 or Shift+F10 lands on), unless a forward is running."""
        stepper, display = self._screen.stepper, self.source_display
        if (stepper is None or display is None or shown is not self.current or stepper.state == RUNNING
                or not display.reads_ahead):
            return
        cursor, history = self.index, stepper.history
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

    def read_before_jump(self, name: str, move: Callable[[], object]) -> bool:
        """A jump to replayed stage `name` that has not been read: the display worker reads it, cuts the
        slice the view will show there and takes its stats ("jump" job: a newer jump, or any other
        stepper command, supersedes it); then `move()` shows it on the GUI thread from what was
        prepared. True when the read was handed to the worker; False when there is nothing to read
        (its display says the stage is not `unread`: a live pass, a stage already read or dropped, a pass whose
        tensors are elsewhere), and the caller moves now. A stage that cannot be read is moved to all the same: the
        usual path says why.
        """
        stepper, display = self._screen.stepper, self.source_display
        if stepper is None or display is None or self._screen.loader.busy:
            return False
        index = stepper.position_of(name)
        capture = stepper.history[index] if index is not None else None
        if capture is None or capture is self.current or not display.unread(capture):
            return False
        stepper = cast("Stepper", stepper)  # a replay whose tensors are here: core's own
        view, large = frozen_view(self.view), self.is_large(capture)

        def read() -> Prepared | None:
            if large:  # its first picture from the plane shown, read alone; else the whole, sliced once shown
                part = prepare_part(stepper, capture, view, MAX_SLICE)
                if part is None:
                    stepper.tensor_of(capture)
                return part
            return prepare(stepper, capture, view, MAX_SLICE, True)

        def arrived(prepared: Prepared | None) -> None:
            if stepper is self._screen.stepper:  # still the pass the jump was asked on
                if prepared is not None:
                    self.display.ahead.put(prepared)
                    if prepared.from_part:  # the rest is read on the worker once the picture is shown
                        stepper.read_later(capture)
                move()
        self.display.submit("jump", read, arrived, lambda exc: arrived(None))
        return True

    def _compute_stats(self) -> None:
        """Whole-tensor stats of the shown stage, on the display worker; a `followed` event when ready."""
        capture = self.current
        self.display.cancel("stats")
        if not self.showable(capture) or self.is_large(capture):
            return
        assert capture is not None
        known = self.display.ahead.stats_for(capture)  # each stage's stats are computed once
        if known is not None:  # there for the panels the next event draws: one drawing, no job
            self.model.set_stats(known)
            return
        display = self.source_display
        self.display.submit("stats", lambda: display.stats_of(capture), lambda st: self._stats_ready(capture, st),
                            lambda exc: self._screen.fail(cannot("Cannot summarise {name}: {why}", capture, exc)))

    def _stats_ready(self, capture: Capture, stats: Stats) -> None:
        if capture is self.current:
            self.model.set_stats(stats)
            if capture.tensor is not None:
                self.display.ahead.put(Prepared(capture, capture.tensor, stats=stats))

    def ensure_stats(self) -> Stats | None:
        """Whole-tensor stats of the shown stage, computed now if they are still pending."""
        capture = self.current
        if (self.current_stats is None and capture is not None and self.display.busy("stats")
                and capture.tensor is not None):
            self.display.cancel("stats")
            try:
                self._stats_ready(capture, self.source_display.stats_of(capture))
            except Exception as exc:  # a dtype the stats cannot read: the rest still shows
                self._screen.fail(cannot("Cannot summarise {name}: {why}", capture, exc))
        return self.current_stats

    def mask_of(self, capture: Capture):
        """The tensor of the mask stage a softmax stage read, when captured here: the softmax's masked cells
        (exact zeros) are drawn in the masked colour too. None otherwise (a served pass's server reads its own)."""
        display = self.source_display
        return display.mask_of(capture) if display is not None else None

    def refresh_slice(self) -> None:
        """Recompute the shown slice: now when it is small and its tensor here, else on the display worker (a
        served pass's display follows the view first, so a step's slice usually came with its pause)."""
        capture, display = self.current, self.source_display
        self.display.cancel("slice")
        if display is None or not self.showable(capture):
            self._set_slice(None)
            return
        assert capture is not None
        view, shape = self.view, capture.shape
        row, col, indices, mask = view.row_axis, view.col_axis, self.axes.indices(capture), self.mask_of(capture)
        key = view_key(row, col, indices, mask)
        ready = self.display.ahead.slice_for(capture, key)
        if ready is not None:  # read and cut ahead, or cut when this stage was last shown
            assert ready.slice is not None
            self._slice_ready(capture, ready.slice, (ready.levels, ready.image) if ready.image is not None else None)
            self._complete_moments(capture, ready.slice, row, col, indices)  # one cut from a part has none yet
            return
        cells = shape[row] * shape[col] if len(shape) >= 2 and row != col else math.prod(shape)
        if display.reads_now(capture) and cells <= OFF_THREAD_CELLS and not self.is_large(capture):
            try:
                sl = display.slice_of(capture, row, col, indices, MAX_SLICE)
            except (ValueError, IndexError, RuntimeError, TfdebugError) as exc:
                self._slice_failed(capture, exc)
                return
            # Kept: stepping back here (a live pass's history) need not cut it again, nor the worker ahead.
            self.display.ahead.put(Prepared(capture, capture.tensor, key, sl, selection=selection_of(view)))
            self._slice_ready(capture, sl)
            return
        kind, pinned, named, large = capture.info.kind, view.pinned, dict(view.indices_by_name), self.large_stage_bytes
        # Here, the slice's mean and std come after the image (the "moments" job): the colour levels need only its
        # extremes. Where the pass runs elsewhere they come with it, in the one answer the pause usually brought.
        moments = display.slices_bring_moments

        def compute():
            # Sends nothing unless the view changed; stages the window summarises bring their stats along.
            display.follow(pinned, named, MAX_SLICE, stats_up_to=large)
            # The heatmap's LUT indices too, so the GUI thread converts no pixels.
            sl = display.slice_of(capture, row, col, indices, MAX_SLICE, moments=moments)
            return sl, indexed(kind, sl)

        def shown(done):
            self._slice_ready(capture, *done)
            self._complete_moments(capture, done[0], row, col, indices)
        self.display.submit("slice", compute, shown, lambda exc: self._slice_failed(capture, exc))

    def _complete_moments(self, capture: Capture, sl: DisplaySlice, row: int, col: int, indices: dict[int, int]) -> None:
        """The shown slice `sl`, drawn before its mean and std were known (`Stats.partial`), gets them on the
        display worker ("moments" job: the image waited for its extremes only)."""
        if sl.stats.partial and self.current_slice is sl and not self.reading(capture):  # else once read whole
            display = self.source_display
            self.display.submit("moments", lambda: display.moments_of(capture, row, col, indices, sl.stats),
                                lambda stats: self._moments_ready(sl, stats),
                                lambda exc: self._slice_failed(capture, exc))

    def _slice_ready(self, capture: Capture, sl: DisplaySlice, indexed=None) -> None:
        if capture is self.current:
            self._indexed = (sl, *indexed) if indexed is not None else None
            self._set_slice(sl)

    def _set_slice(self, sl: DisplaySlice | None) -> None:
        self.model.set_slice(sl)

    def _moments_ready(self, sl: DisplaySlice, stats: Stats) -> None:
        """The shown slice's complete stats (mean and std) arrived: the same slice, its numbers filled in."""
        filled = self.model.fill_moments(sl, stats)
        if filled is not None and self._indexed is not None and self._indexed[0] is sl:
            self._indexed = (filled, *self._indexed[1:])

    def indexed_image(self, sl: DisplaySlice, levels: tuple[float, float]):
        """The slice's LUT indices between `levels` when the worker computed them, else None."""
        cached = self._indexed
        return cached[2] if cached is not None and cached[0] is sl and cached[1] == levels else None

    def _slice_failed(self, capture: Capture, exc: Exception) -> None:
        if capture is self.current:
            self._screen.fail(cannot("Cannot show this slice of {name}: {why}", capture, exc))
            self._set_slice(None)

    def request_heads(self, capture: Capture, head_axis: int, max_size: tuple[int, int],
                      done: Callable[[HeadThumbnails], None]) -> None:
        """Every head of `capture` on the display worker; `done(thumbnails)` on the GUI thread
        unless the stage changed or a newer request came first."""
        failed = lambda exc: self._screen.fail(cannot("Cannot draw the heads of {name}: {why}", capture, exc))  # noqa: E731
        display, tensor = self.source_display, capture.tensor
        row, col, indices = self.view.row_axis, self.view.col_axis, self.axes.indices(capture)
        key = heads_key(view_key(row, col, indices, self.mask_of(capture)), head_axis, max_size)
        self.display.cancel("heads")
        known = self.display.ahead.heads_for(capture, key)  # prepared ahead, or drawn when last shown
        if known is not None:
            done(known)
            return

        def arrived(thumbs: HeadThumbnails) -> None:
            if capture is self.current:
                if tensor is not None and capture.tensor is tensor and not self.is_large(capture):
                    self.display.ahead.put(Prepared(capture, tensor, heads=(key, thumbs)))  # a large one's is not held
                done(thumbs)
        self.display.submit("heads", lambda: display.heads_of(capture, row, col, head_axis, indices, max_size),
                            arrived, failed)

    def settled(self) -> bool:
        """Whether no display work (slice, stats, thumbnails, panels following the stage) is
        pending or undelivered."""
        return not self.display.busy() and not self.model.pending

    def reading_ahead(self) -> bool:
        """Whether the stages next to the shown one are still to be read ahead: asked for once the window has
        painted the step, or on the display worker ("ahead" jobs)."""
        return self._ahead_scheduled > 0 or self.display.busy("ahead")
