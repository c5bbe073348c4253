"""The shown stage's slice, stats and head thumbnails of a remote pass, asked of the server on the
display worker (the network never holds up the GUI thread); the controller's DisplayMixin calls these
when its pass is remote. The server follows the window's view, so a step's slice usually came with
the pause and needs no round trip.
"""

from __future__ import annotations

from typing import Callable

from tfdebug.core.recorder import Capture
from tfdebug.core.thumbnails import HeadThumbnails
from tfdebug.ui.render import colors

MAX_SLICE = (1024, 1024)  # as tfdebug.ui.workers.display.MAX_SLICE


def served(ctl, capture: Capture | None) -> bool:
    """Whether `capture` is shown from the server: the pass is remote and the stage kept its tensor there."""
    return ctl.remote is not None and capture is not None and not capture.dropped


def submit_slice(ctl, capture: Capture, failed: Callable[[Exception], None]) -> None:
    """The shown slice (and the heatmap's LUT indices, made on the worker) from the server."""
    remote, view = ctl.remote, ctl.view
    row, col, indices, kind = view.row_axis, view.col_axis, ctl.indices(capture), capture.info.kind
    pinned, named, stats_up_to = view.pinned, dict(view.indices_by_name), ctl.large_stage_bytes

    def compute():
        # Sends nothing unless the view changed; stages the window summarises bring their stats along.
        remote.display.follow(pinned, named, MAX_SLICE, stats_up_to=stats_up_to)
        sl = remote.display.slice_of(capture, row, col, indices, MAX_SLICE)
        levels = colors.scheme(kind, sl.stats)[1]
        return sl, (levels, colors.quantize(sl.values, levels))
    ctl.display.submit("slice", compute, lambda done: ctl._slice_ready(capture, *done), failed)


def submit_stats(ctl, capture: Capture, done, failed) -> None:
    remote = ctl.remote
    ctl.display.submit("stats", lambda: remote.display.stats_of(capture), done, failed)


def submit_heads(ctl, capture: Capture, head_axis: int, max_size: tuple[int, int],
                 done: Callable[[HeadThumbnails], None], failed) -> None:
    remote, row, col, indices = ctl.remote, ctl.view.row_axis, ctl.view.col_axis, ctl.indices(capture)
    ctl.display.submit("heads", lambda: remote.display.heads_of(capture, row, col, head_axis, indices, max_size),
                       lambda thumbs: done(thumbs) if capture is ctl.current else None, failed)
