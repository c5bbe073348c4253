"""The display cache: a stage's display worked out ahead of time, and kept (Qt-free: the window's display worker
runs `prepare` and `prepare_part`, its GUI thread keeps what they return in an `AheadCache`).

Stepping through history (a replayed snapshot, or a live pass stepped back) moves to a
stage that is already known: once a stage has been shown, the display worker reads the
next and the previous stage (from the file, in a replay), cuts the slice the view would
show there, quantises it for the heatmap and computes the stage's whole-tensor stats. An
F10 that lands on such a stage draws those at once: no file read, no slicing, no stats on
the GUI thread. Each stage's whole-tensor stats are computed once and kept with it, and so
are the Heads dock's thumbnails (every head at `HEAD_THUMB`) and the Explain dock's checks: the
step's panels all draw in the turn that shows it, with no job left for the worker, so the window
settles with its heatmap.

A jump (a click in the Stages tree, Run to Stage) to a replayed stage not read yet (its display says it is
`unread`) goes the same way (`tfdebug.ui.state.shown.ShownStage.read_before_jump`): the worker reads and prepares the
stage, then the cursor moves there on the GUI thread with nothing left to read. A large stage is prepared
from the one plane the view shows, read alone (`prepare_part`), and read whole once it is shown.

A prepared slice is used only when it was cut from the stage's tensor as it is now, with
the shown axes, indices and mask the view has now; anything else is computed as usual.
Every slice the window draws is quantised here (`indexed`, with tfdebug.core.quantise), wherever it was cut.
"""

from __future__ import annotations

import weakref
from dataclasses import InitVar, dataclass, replace
from typing import TYPE_CHECKING

import numpy as np

from tfdebug.core.checks import Check
from tfdebug.core.display import DisplaySlice, display_slice
from tfdebug.core.stats import Stats
from tfdebug.core.quantise import levels_of, quantize
from tfdebug.core.thumbnails import HeadThumbnails
from tfdebug.core.view import axis_names
from tfdebug.sessions.display import LocalDisplay

if TYPE_CHECKING:
    from torch import Tensor

    from tfdebug.core.recorder import Capture
    from tfdebug.core.stepper import Stepper
    from tfdebug.core.view import ViewSelection

KEEP = 4  # stages kept: the shown one, its two neighbours and the one just left
HEAD_THUMB = (48, 48)  # the Heads dock's thumbnail size, prepared ahead with the slice


@dataclass(eq=False)  # entries are told apart by identity (their fields hold tensors)
class Prepared:
    """A stage's display worked out ahead: the slice for one view, its LUT indices, the stage's stats.

    It refers to the tensor it was worked out from weakly (`made_from`): a stage the capture budget lets go is
    not held here (the four stages kept would be memory no budget counts: a 32k-token pass's mask is 4.3 GB)."""

    capture: Capture
    tensor: InitVar[Tensor | None]  # None: cut from a part of a replayed stage not read whole (`prepare_part`)
    key: tuple | None = None  # (row axis, column axis, fixed indices, mask tensor) the slice was cut for
    slice: DisplaySlice | None = None
    levels: tuple[float, float] | None = None
    image: np.ndarray | None = None
    stats: Stats | None = None
    selection: tuple | None = None  # the view's choices (pinned axes, indices by name) it was cut for
    heads: tuple[tuple, HeadThumbnails] | None = None  # (heads_key, thumbnails of every head)
    checks: list[Check] | None = None  # the Explain dock's checks on the stage's tensor

    def __post_init__(self, tensor: Tensor | None) -> None:
        self._source = None if tensor is None else weakref.ref(tensor)

    @property
    def from_part(self) -> bool:
        """Cut from a part of a replayed stage, its tensor not read whole (`prepare_part`)."""
        return self._source is None

    def made_from(self, tensor: Tensor | None) -> bool:
        """Whether this was worked out from `tensor` (None: from a part, the stage still unread), a tensor that
        is still alive."""
        if self._source is None:
            return tensor is None
        return tensor is not None and self._source() is tensor

    def adopt(self, tensor: Tensor) -> None:
        """Cut from a part, it holds for the stage's whole `tensor` (the same bytes)."""
        self._source = weakref.ref(tensor)


def heads_key(key: tuple, head_axis: int, max_size: tuple[int, int]) -> tuple:
    """What a stage's head thumbnails depend on: the slice's view key, the head axis, the size."""
    return (key, head_axis, tuple(max_size))


def head_axis_of(axes: tuple[str, ...], row: int, col: int) -> int | None:
    """The head axis the Heads dock draws one thumbnail along, or None (no head axis, or it is shown)."""
    if "head" not in axes:
        return None
    axis = axes.index("head")
    return None if axis in (row, col) else axis


def selection_of(view: ViewSelection) -> tuple:
    """The user's choices a neighbour's slice follows: the pinned axes and every fixed index by name."""
    return (view.pinned, tuple(sorted(view.indices_by_name.items())))


def frozen_view(view: ViewSelection) -> ViewSelection:
    """A copy of `view` the worker may read while the GUI thread changes the original."""
    return view.copy()


def view_key(row: int, col: int, indices: dict[int, int], mask) -> tuple:
    """What a slice depends on besides the tensor: the shown axes, the fixed indices, the mask read."""
    return (row, col, tuple(sorted(indices.items())), id(mask) if mask is not None else None)


def indexed(kind: str, sl: DisplaySlice) -> tuple[tuple[float, float], np.ndarray]:
    """(colour levels, LUT indices) of slice `sl` of a stage of `kind`: the heatmap draws the indices as they are,
    so the GUI thread converts no pixel."""
    levels = levels_of(kind, sl.stats)[0]
    return levels, quantize(sl.values, levels)


def prepare(stepper: Stepper, capture: Capture, view: ViewSelection, max_size: tuple[int, int],
            with_stats: bool) -> Prepared | None:
    """On the display worker: read `capture` (a replay loads it), cut the slice `view` (a frozen
    copy) would show there, quantise it and, when `with_stats`, compute the whole-tensor stats.
    None when the stage has no tensor."""
    tensor = stepper.tensor_of(capture)
    if tensor is None:
        return None
    view = view.copy()  # fitted to the neighbour
    view.fit(capture.info.axes, capture.shape)
    display = LocalDisplay(stepper)
    row, col, indices = view.row_axis, view.col_axis, view.indices(capture.info.axes, capture.shape)
    sl = display.slice_of(capture, row, col, indices, max_size)
    levels, image = indexed(capture.info.kind, sl)
    key = view_key(row, col, indices, display.mask_of(capture))
    axis = head_axis_of(axis_names(capture.info.axes, capture.shape), row, col)
    heads = None if axis is None else (heads_key(key, axis, HEAD_THUMB),
                                       display.heads_of(capture, row, col, axis, indices, HEAD_THUMB))
    return Prepared(capture, tensor, key, sl, levels, image,
                    display.stats_of(capture) if with_stats else None, selection_of(view), heads,
                    display.checks_of(capture))


def prepare_part(stepper: Stepper, capture: Capture, view: ViewSelection, max_size: tuple[int, int]) -> Prepared | None:
    """On the display worker: the slice `view` (a frozen copy) would show of replayed stage `capture`, cut from
    the one plane it shows, read alone (`Stepper.part_of`): an 8k-token stage's first picture without reading
    its gigabytes. None unless the shown axes are the stage's last two (every leading axis fixed: the plane is
    one range of the file) and the replay reads parts of it; its tensor is None (`AheadCache` keeps it while
    the stage is unread)."""
    view = view.copy()
    view.fit(capture.info.axes, capture.shape)
    row, col, indices = view.row_axis, view.col_axis, view.indices(capture.info.axes, capture.shape)
    last = len(capture.shape) - 1
    if last < 2 or {row, col} != {last - 1, last} or sorted(indices) != list(range(last - 1)):
        return None
    leading = tuple(indices[axis] for axis in range(last - 1))
    display = LocalDisplay(stepper)
    mask = display.mask_of(capture)  # the mask stage a softmax read, read here rather than on the GUI thread
    plane = stepper.part_of(capture, leading)
    if plane is None:
        return None
    part_mask = mask[leading] if mask is not None and tuple(mask.shape) == tuple(capture.shape) else None
    across = int(row > col)  # the plane's own axes: 0 and 1, or 1 and 0 when the view shows it transposed
    # Its mean and std are left for the "moments" job once shown (from the whole): the image sooner.
    sl = replace(display_slice(plane, across, 1 - across, {}, max_size, kind=capture.info.kind, mask=part_mask,
                               moments=False), row_axis=row, col_axis=col)
    levels, image = indexed(capture.info.kind, sl)
    return Prepared(capture, None, view_key(row, col, indices, mask), sl, levels, image, selection=selection_of(view))


class AheadCache:
    """The prepared stages around the shown one (GUI thread only; the worker hands results in)."""

    def __init__(self):
        self._entries: list[Prepared] = []

    def _entry(self, capture: Capture) -> Prepared | None:
        for entry in self._entries:
            if entry.capture is capture and entry.made_from(capture.tensor):
                return entry
        return None

    def put(self, prepared: Prepared) -> None:
        """Keep `prepared` (the most recent first), merging with what is known of its stage."""
        old = self._entry(prepared.capture)
        if old is not None:
            self._entries.remove(old)
            if prepared.slice is None:
                prepared.key, prepared.slice, prepared.levels, prepared.image, prepared.selection = \
                    old.key, old.slice, old.levels, old.image, old.selection
            if prepared.stats is None:
                prepared.stats = old.stats
            if prepared.heads is None:
                prepared.heads = old.heads
            if prepared.checks is None:
                prepared.checks = old.checks
        self._entries.insert(0, prepared)
        del self._entries[KEEP:]

    def unread_slice(self, capture: Capture) -> bool:
        """Whether a slice of `capture` was cut from a part while the stage is unread (`prepare_part`)."""
        entry = self._entry(capture)
        return capture.tensor is None and entry is not None and entry.slice is not None

    def adopt(self, capture: Capture) -> None:
        """`capture`'s tensor was read whole: what was cut from its part holds for it (the same bytes)."""
        for entry in self._entries:
            if entry.capture is capture and entry.from_part and capture.tensor is not None:
                entry.adopt(capture.tensor)

    def slice_for(self, capture: Capture, key: tuple) -> Prepared | None:
        """The prepared slice of `capture` for the view `key`, or None."""
        entry = self._entry(capture)
        return entry if entry is not None and entry.slice is not None and entry.key == key else None

    def stats_for(self, capture: Capture) -> Stats | None:
        """The whole-tensor stats of `capture` as its tensor is now, when computed before."""
        entry = self._entry(capture)
        return entry.stats if entry is not None else None

    def heads_for(self, capture: Capture, key: tuple) -> HeadThumbnails | None:
        """The head thumbnails of `capture` as its tensor is now, for `key` (`heads_key`), or None."""
        entry = self._entry(capture)
        return entry.heads[1] if entry is not None and entry.heads is not None and entry.heads[0] == key else None

    def checks_for(self, capture: Capture) -> list[Check] | None:
        """The checks of `capture` as its tensor is now, when computed before."""
        entry = self._entry(capture)
        return entry.checks if entry is not None else None

    def missing(self, captures: list[Capture], selection: tuple) -> list[Capture]:
        """Of `captures`, those without stats or without a slice prepared for the view's `selection`."""
        entries = [(c, self._entry(c)) for c in captures]
        return [c for c, e in entries if e is None or e.stats is None or e.slice is None or e.selection != selection]

    def clear(self) -> None:
        """Forget every prepared stage (another pass is shown)."""
        self._entries = []
