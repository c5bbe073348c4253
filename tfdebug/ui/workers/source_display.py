"""The shown stage of a pass whose tensors are not in this process (its source's
`capabilities.tensors_here` is False: a pass tfdebug serve runs), asked of the source's display on the
display worker, so the network never holds up the GUI thread. The controller's ShownStage calls these; the source follows the
window's view, so a step's slice usually came with the pause and needs no round trip.
"""

from __future__ import annotations

from typing import Callable

from tfdebug.core.recorder import Capture
from tfdebug.core.thumbnails import HeadThumbnails
from tfdebug.core.view import ViewSelection
from tfdebug.ui.render import colors
from tfdebug.ui.workers.display import MAX_SLICE, DisplayWorker


def submit_slice(worker: DisplayWorker, display, view: ViewSelection, indices: dict[int, int], capture: Capture,
                 stats_up_to: int, done: Callable[[tuple], None], failed: Callable[[Exception], None]) -> None:
    """The shown slice (and the heatmap's LUT indices, made on the worker) from the source's `display`;
    `done((slice, (levels, indices)))`. Stages of at most `stats_up_to` bytes bring their stats along."""
    row, col, kind = view.row_axis, view.col_axis, capture.info.kind
    pinned, named = view.pinned, dict(view.indices_by_name)

    def compute():
        # Sends nothing unless the view changed; stages the window summarises bring their stats along.
        display.follow(pinned, named, MAX_SLICE, stats_up_to=stats_up_to)
        sl = display.slice_of(capture, row, col, indices, MAX_SLICE)
        levels = colors.scheme(kind, sl.stats)[1]
        return sl, (levels, colors.quantize(sl.values, levels))
    worker.submit("slice", compute, done, failed)


def submit_stats(worker: DisplayWorker, display, capture: Capture, done, failed) -> None:
    """The whole-tensor stats of `capture` from the source's `display`."""
    worker.submit("stats", lambda: display.stats_of(capture), done, failed)


def submit_heads(worker: DisplayWorker, display, row: int, col: int, indices: dict[int, int], capture: Capture,
                 head_axis: int, max_size: tuple[int, int], done: Callable[[HeadThumbnails], None], failed) -> None:
    """Every head's thumbnail of `capture` (rows × cols at `indices`) from the source's `display`."""
    worker.submit("heads", lambda: display.heads_of(capture, row, col, head_axis, indices, max_size), done, failed)
