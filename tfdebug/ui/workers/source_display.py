"""The shown stage of a pass whose tensors are not in this process (its source's `tensors_here` is False:
a pass tfdebug serve runs), asked of the source's display on the display worker, so the network
never holds up the GUI thread. The controller's DisplayMixin calls these; the source follows the
window's view, so a step's slice usually came with the pause and needs no round trip.
"""

from __future__ import annotations

from typing import Callable

from tfdebug.core.recorder import Capture
from tfdebug.core.thumbnails import HeadThumbnails
from tfdebug.ui.render import colors

MAX_SLICE = (1024, 1024)  # as tfdebug.ui.workers.display.MAX_SLICE


def elsewhere(ctl, capture: Capture | None) -> bool:
    """Whether `capture` is shown through its source's display: its tensor is kept, but not in this process."""
    return ctl.source is not None and not ctl.source.tensors_here and capture is not None and not capture.dropped


def submit_slice(ctl, capture: Capture, failed: Callable[[Exception], None]) -> None:
    """The shown slice (and the heatmap's LUT indices, made on the worker) from the source's display."""
    display, view = ctl.source.display, ctl.view
    row, col, indices, kind = view.row_axis, view.col_axis, ctl.indices(capture), capture.info.kind
    pinned, named, stats_up_to = view.pinned, dict(view.indices_by_name), ctl.large_stage_bytes

    def compute():
        # Sends nothing unless the view changed; stages the window summarises bring their stats along.
        display.follow(pinned, named, MAX_SLICE, stats_up_to=stats_up_to)
        sl = display.slice_of(capture, row, col, indices, MAX_SLICE)
        levels = colors.scheme(kind, sl.stats)[1]
        return sl, (levels, colors.quantize(sl.values, levels))
    ctl.display.submit("slice", compute, lambda done: ctl._slice_ready(capture, *done), failed)


def submit_stats(ctl, capture: Capture, done, failed) -> None:
    display = ctl.source.display
    ctl.display.submit("stats", lambda: display.stats_of(capture), done, failed)


def submit_heads(ctl, capture: Capture, head_axis: int, max_size: tuple[int, int],
                 done: Callable[[HeadThumbnails], None], failed) -> None:
    display, row, col, indices = ctl.source.display, ctl.view.row_axis, ctl.view.col_axis, ctl.indices(capture)
    ctl.display.submit("heads", lambda: display.heads_of(capture, row, col, head_axis, indices, max_size),
                       lambda thumbs: done(thumbs) if capture is ctl.current else None, failed)
