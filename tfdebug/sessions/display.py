"""`LocalDisplay`: the display operations of a pass source whose tensors are in this process.

It answers from a stepper with core's display math, on the device each tensor lives on; the server
(tfdebug.remote.handlers) answers a window's requests with it, and tfdebug.remote.display.RemoteDisplay
asks the same questions over the connection (tfdebug.sessions.source.PassDisplay is the protocol both keep).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Mapping, Sequence

from tfdebug.core.checks import Check, stage_checks
from tfdebug.core.display import DisplaySlice, display_slice, slice_moments
from tfdebug.core.stats import Stats, tensor_stats
from tfdebug.core.errors import DisplayError
from tfdebug.core.masks import mask_read_by
from tfdebug.core.overview import StatisticsCache, stage_statistics
from tfdebug.core.recorder import Capture
from tfdebug.core.stepper import Stepper
from tfdebug.core.thumbnails import HeadThumbnails, head_thumbnails
from tfdebug.core.tiles import Tile, read_tile

if TYPE_CHECKING:  # torch loads when a function first needs it, not with the window
    from torch import Tensor

    from tfdebug.io.recording import Recording


class LocalDisplay:
    """Slices, stats and head thumbnails of the captures of `stepper`, on their own device; `replayed` is the
    snapshot a replay reads (the Overview reads its stages from it without keeping them)."""

    def __init__(self, stepper: Stepper, replayed: Recording | None = None):
        self.stepper, self._replayed = stepper, replayed
        self._statistics = StatisticsCache()  # the Overview's, by tensor identity (by name for one read from a file)

    def follow(self, pinned, indices_by_name, max_size, moments: bool = True, stats_up_to: int | None = None) -> None:
        """Nothing to do: a slice of a tensor in this process is cut when asked (a served pass's display has
        the server send each stage's slice with its pause)."""

    def mask_of(self, capture: Capture) -> Tensor | None:
        """The tensor of the mask stage a softmax stage read, when captured (its masked cells
        are drawn masked in the softmax too); None otherwise."""
        return mask_read_by(capture, self.stepper.captured)

    def holds(self, capture: Capture) -> bool:
        """Whether the stage's tensor can be read: kept by the live pass, or in the file a replay reads."""
        return not capture.dropped and (capture.tensor is not None or not self.stepper.is_live)

    def ready(self, capture: Capture) -> bool:
        """Whether the stage's tensor is in memory (a replayed stage still in its file is read first)."""
        return capture.tensor is not None

    def reads_now(self, capture: Capture) -> bool:
        """Whether the stage's tensor is in memory: a small slice of it may be cut on the calling thread."""
        return capture.tensor is not None

    def unread(self, capture: Capture) -> bool:
        """Whether the stage is a replayed one still in its file (kept, not read yet)."""
        return not self.stepper.is_live and capture.tensor is None and not capture.dropped

    @property
    def reads_ahead(self) -> bool:
        """True: the tensors are in this process, so the stages around the shown one are prepared ahead."""
        return True

    @property
    def slices_bring_moments(self) -> bool:
        """False: here a slice's image comes first, its mean and std after (the image sooner)."""
        return False

    def _tensor(self, capture: Capture) -> Tensor:
        tensor = self.stepper.tensor_of(capture)
        if tensor is None:
            raise DisplayError("Stage {name} was left out of the history by the capture budget: it has no tensor "
                               "to show.", id="display.dropped", name=capture.name)
        return tensor

    def slice_of(self, capture: Capture, row: int, col: int, indices: Mapping[int, int],
                 max_size: tuple[int, int], moments: bool = True) -> DisplaySlice:
        """The shown 2-D slice, downsampled to at most `max_size`, with its stats."""
        return display_slice(self._tensor(capture), row, col, indices, max_size, kind=capture.info.kind,
                             mask=self.mask_of(capture), moments=moments)

    def moments_of(self, capture: Capture, row: int, col: int, indices: Mapping[int, int], partial: Stats) -> Stats:
        """`partial` (a slice's stats without mean and std) completed."""
        return slice_moments(self._tensor(capture), row, col, indices, partial, capture.info.kind,
                             self.mask_of(capture))

    def heads_of(self, capture: Capture, row: int, col: int, head: int, indices: Mapping[int, int],
                 max_size: tuple[int, int]) -> HeadThumbnails:
        """Every head's thumbnail of the shown slice."""
        return head_thumbnails(self._tensor(capture), row, col, head, indices, max_size, kind=capture.info.kind,
                               mask=self.mask_of(capture))

    def tile_of(self, capture: Capture, row: int, col: int, indices: Mapping[int, int], rows: tuple[int, int],
                cols: tuple[int, int], max_size: tuple[int, int], row_max: bool = False) -> Tile:
        """Rows × columns of the shown slice at most `max_size` (tfdebug.core.tiles): only that region is read,
        so a recipe plane computes only those cells."""
        return read_tile(self._tensor(capture), row, col, indices, rows, cols, max_size, kind=capture.info.kind,
                         mask=self.mask_of(capture), row_max=row_max)

    def stats_of(self, capture: Capture) -> Stats:
        """Whole-tensor stats of the stage."""
        return tensor_stats(self._tensor(capture), kind=capture.info.kind)

    def checks_of(self, capture: Capture) -> list[Check]:
        """What the stage's kind promises, checked on its tensor (tfdebug.core.checks; other stages of the pass
        it refers to are read as needed)."""
        def lookup(name: str) -> Capture | None:
            other = self.stepper.captured(name)
            if other is not None and other.tensor is None:
                self.stepper.tensor_of(other)  # a replayed stage not read yet
            return other
        return stage_checks(capture.info, self._tensor(capture), lookup)

    def summarised(self) -> list[Capture]:
        """A live pass's stages so far that the capture budget kept (as its recording has them), or every stage
        of the snapshot replayed (none when a replay has no snapshot)."""
        if self.stepper.is_live:
            return [c for c in self.stepper.history if not c.dropped]
        return list(self._replayed.captures) if self._replayed is not None else []

    def summarises(self, capture: Capture, up_to: int) -> bool:
        """Whether `capture` holds at most `up_to` bytes: a larger stage is read only through the heatmap's slice."""
        return capture.nbytes <= up_to

    def statistics_known(self, captures: Sequence[Capture], statistic: str) -> list[float | None]:
        """The statistics `statistics_of` computed for each capture's tensor as it is now (None: not yet)."""
        return self._statistics.known(captures, statistic)

    def statistics_of(self, captures: Sequence[Capture], statistic: str) -> list[float]:
        """The Overview's `statistic` (tfdebug.core.overview: "rms", "max_abs") of each capture (NaN where the
        stepper kept no tensor); a snapshot's stage not read yet is read from its file and not kept."""
        read = self._replayed.tensor if self._replayed is not None else self.stepper.tensor_of
        values = stage_statistics(captures, statistic, read)
        self._statistics.keep(captures, statistic, values)
        return values
