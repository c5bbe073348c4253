"""`RemoteDisplay`: the display operations of a served pass, asked of the server.

The server answers with tfdebug.sessions.display.LocalDisplay where the tensors live; only the small
answers cross. Both keep tfdebug.sessions.source.PassDisplay, so a window that talks to a pass through
its source's `display` does not care where the pass runs.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Mapping, Sequence

from tfdebug.core.checks import Check
from tfdebug.core.display import DisplaySlice
from tfdebug.core.stats import Stats
from tfdebug.core.overview import StatisticsCache
from tfdebug.core.recorder import Capture
from tfdebug.core.thumbnails import HeadThumbnails
from tfdebug.core.tiles import Tile
from tfdebug.remote import wire
from tfdebug.remote.errors import FrameError
from tfdebug.remote.protocol import MAX_OVERVIEW
from tfdebug.sessions.display import LocalDisplay

__all__ = ["LocalDisplay", "RemoteDisplay"]  # LocalDisplay's old home: tfdebug.bench.remote imports it here

if TYPE_CHECKING:
    from tfdebug.remote.session import RemoteSession


class RemoteDisplay:
    """LocalDisplay's questions asked of the server: only the small answers cross."""

    def __init__(self, session: "RemoteSession"):
        self._session = session
        self._pushed: tuple[tuple, DisplaySlice] | None = None  # the slice the server sent with the last event
        self._pushed_stats: tuple[int | None, Stats] | None = None  # (history index, whole-tensor stats) sent with it
        self._followed: tuple | None = None  # the view last told to the server
        # the Overview's, by the window's description of each stage (a new pass and an edit make new ones)
        self._statistics = StatisticsCache(lambda capture: capture)

    def follow(self, pinned: tuple[str, str] | None, indices_by_name: Mapping[str, int],
               max_size: tuple[int, int], moments: bool = True, stats_up_to: int | None = None) -> None:
        """Tell the server the window's view (tfdebug.core.view.ViewSelection's pinned axes and indices): each
        stage the pass pauses or moves to then comes with its slice, and `slice_of` for it needs no round trip;
        with `stats_up_to`, stages of at most that many bytes bring their whole-tensor stats too (`stats_of`).
        Telling it the same view again sends nothing."""
        view = (tuple(pinned) if pinned else None, tuple(sorted(indices_by_name.items())), tuple(max_size), moments,
                stats_up_to)
        if view == self._followed:
            return
        self._followed = view
        self._session.request("follow", {"on": True, "pinned": list(pinned) if pinned else None,
                                         "indices": {str(k): int(v) for k, v in indices_by_name.items()},
                                         "max_rows": int(max_size[0]), "max_cols": int(max_size[1]),
                                         "moments": moments, "stats_up_to": stats_up_to})

    def unfollow(self) -> None:
        self._pushed, self._pushed_stats, self._followed = None, None, None
        self._session.request("follow", {"on": False, "indices": {}, "max_rows": 1, "max_cols": 1, "moments": False})

    def take_pushed(self, fields: dict[str, Any] | None, buffers) -> None:
        """A slice the server pushed with an event (None: the event brought none; any earlier one is stale)."""
        if fields is None:
            self._pushed = self._pushed_stats = None
            return
        view: dict[str, Any] = fields.get("view") or {}
        whole = fields.get("whole")
        if whole is not None and len(buffers) == 5:
            self._pushed_stats = (view.get("index"), wire.stats_of(whole, *buffers[3:]))
            buffers = buffers[:3]
        else:
            self._pushed_stats = None
        self._pushed = (self._key(view), wire.slice_of(fields, buffers))

    @staticmethod
    def _key(view: dict) -> tuple:
        return (view.get("index"), view.get("row"), view.get("col"), tuple(sorted((view.get("indices") or {}).items())),
                view.get("max_rows"), view.get("max_cols"), view.get("moments"))

    def _position(self, capture: Capture) -> int:
        index = self._session.stepper.position_of(capture.name)
        if index is None:
            raise FrameError("Stage {name} is not in the server's history.", id="remote.not_captured",
                             name=capture.name)
        return index

    def _view(self, capture: Capture, row: int, col: int, indices: Mapping[int, int], max_size=(1, 1)) -> dict:
        return {"index": self._position(capture), "row": row, "col": col, "indices": {str(k): int(v) for k, v in indices.items()},
                "max_rows": int(max_size[0]), "max_cols": int(max_size[1])}

    def mask_of(self, capture: Capture) -> None:
        """None: the server applies the mask a softmax read when it cuts the slice (no tensor is here)."""
        return None

    def holds(self, capture: Capture) -> bool:
        """Whether the server kept the stage's tensor (only the capture budget leaves one out)."""
        return not capture.dropped

    def ready(self, capture: Capture) -> bool:
        """Whether the server kept the stage's tensor: it is read there, never first here."""
        return not capture.dropped

    def reads_now(self, capture: Capture) -> bool:
        """False: every answer is the server's, asked off the GUI thread."""
        return False

    def unread(self, capture: Capture) -> bool:
        """False: the server reads a stage itself when asked."""
        return False

    @property
    def reads_ahead(self) -> bool:
        """False: the neighbours' slices are not asked ahead (each step's slice comes with its pause)."""
        return False

    @property
    def slices_bring_moments(self) -> bool:
        """True: a slice comes with its mean and std in one answer."""
        return True

    def slice_of(self, capture: Capture, row: int, col: int, indices: Mapping[int, int],
                 max_size: tuple[int, int], moments: bool = True) -> DisplaySlice:
        view = {**self._view(capture, row, col, indices, max_size), "moments": moments}
        pushed = self._pushed
        if pushed is not None and pushed[0] == self._key(view):
            return pushed[1]
        return self._session.answer("slice", view, wire.slice_of)

    def moments_of(self, capture: Capture, row: int, col: int, indices: Mapping[int, int], partial: Stats) -> Stats:
        return self._session.answer("moments", self._view(capture, row, col, indices), _stats)

    def heads_of(self, capture: Capture, row: int, col: int, head: int, indices: Mapping[int, int],
                 max_size: tuple[int, int]) -> HeadThumbnails:
        return self._session.answer("heads", {**self._view(capture, row, col, indices, max_size), "head": head},
                                    wire.heads_of)

    def tile_of(self, capture: Capture, row: int, col: int, indices: Mapping[int, int], rows: tuple[int, int],
                cols: tuple[int, int], max_size: tuple[int, int], row_max: bool = False) -> Tile:
        return self._session.answer("tile", {**self._view(capture, row, col, indices, max_size),
                                             "rows": [int(rows[0]), int(rows[1])],
                                             "cols": [int(cols[0]), int(cols[1])], "row_max": row_max}, wire.tile_of)

    def stats_of(self, capture: Capture) -> Stats:
        index = self._session.stepper.position_of(capture.name)
        pushed = self._pushed_stats
        if pushed is not None and pushed[0] == index and index is not None:
            return pushed[1]
        return self._session.answer("stats", {"index": index}, _stats)

    def checks_of(self, capture: Capture) -> list[Check]:
        """The stage's live checks, made on the server where its tensor is; only their verdicts and words cross."""
        return self._session.answer("checks", {"index": self._position(capture)},
                                    lambda result, _: [wire.check_of(c) for c in _listed(result, "checks")])

    def summarised(self) -> list[Capture]:
        """The served pass's history (the server reads each stage where it is)."""
        return list(self._session.stepper.history)

    def summarises(self, capture: Capture, up_to: int) -> bool:
        """True: the server summarises every stage where its tensor is; only the number crosses."""
        return True

    def statistics_known(self, captures: Sequence[Capture], statistic: str) -> list[float | None]:
        """The statistics the server sent for each stage as the window knows it now (None: not asked yet)."""
        return self._statistics.known(captures, statistic)

    def statistics_of(self, captures: Sequence[Capture], statistic: str) -> list[float]:
        """The Overview's `statistic` (tfdebug.core.overview: "rms", "max_abs") of each capture, computed on the
        server; only the numbers cross (NaN where the server kept no tensor)."""
        positions, values = [self._position(c) for c in captures], []
        for start in range(0, len(positions), MAX_OVERVIEW):  # a request asks about at most MAX_OVERVIEW stages
            indices = positions[start:start + MAX_OVERVIEW]
            values.extend(self._session.answer("overview", {"statistic": statistic, "indices": indices},
                                               lambda _, buffers, n=len(indices): _values(buffers, n)))
        self._statistics.keep(captures, statistic, values)
        return values


def _stats(result, buffers: list) -> Stats:
    """A stats or moments reply: `{"stats": {...}}` and the histogram's two arrays."""
    if len(buffers) != 2:
        raise ValueError("stats come without their histogram")
    return wire.stats_of(result["stats"], *buffers)


def _listed(result, key: str) -> list:
    """`result[key]`, which must be a list (an empty result: none)."""
    value = result.get(key) if result is not None else None
    value = [] if value is None else value
    if not isinstance(value, list):
        raise TypeError(f"'{key}' is not a list")
    return value


def _values(buffers: list, n: int) -> list[float]:
    """The overview's one array of `n` numbers."""
    if len(buffers) != 1 or buffers[0].shape != (n,):
        raise ValueError(f"the overview has {buffers[0].size if buffers else 0} values for {n} stages")
    return [float(v) for v in buffers[0]]
