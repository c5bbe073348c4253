"""A large 2-D slice read a band of rows at a time: its picture, its stats and its rows' maxima, never the whole
slice in memory at once.

A 32,768-token head's attention plane is 4.3 GB in float32. Read whole for one picture — a recipe plane computes
what is indexed — it would stand beside its masked copy and the pooling's temporaries: three or four times that.
Here a slice of more than `BAND_CELLS` cells is read in bands of whole display rows. Where every display row covers
as many source rows, each band is block-averaged as the whole slice would be; else its columns are block-averaged
to the picture's width and its rows then averaged over each display row's source rows (the same cells as one 2-D
block average, `display._block_mean`: a block's mean is the mean of its rows' means, every row having as many
cells). Each band's stats are taken from its own rows and merged (extremes and counts; mean and
variance by Chan's pairwise update), and the histogram is binned over the whole range from a strided sample of
every band's finite cells.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable

import numpy as np

from tfdebug.core.display import _block_mean, _from_shares, _shares
from tfdebug.core.stats import HIST_BINS, _HIST_SAMPLE, _host_stats, on_host, Stats, _stats_tensor, _unpack_stats
from tfdebug.core.recipes import is_plane

if TYPE_CHECKING:  # torch loads when a function first needs it, not with the window
    from torch import Tensor

#: a slice of more cells than this (64 MB in float32; a 4096² slice is not) is read in bands of about as many
BAND_CELLS = 1 << 24


def banded(tensor, row_axis: int, rows: int, cols: int) -> bool:
    """Whether a rows × cols slice of `tensor` (rows along `row_axis`) is read in bands: one of more than
    `BAND_CELLS` cells whose bands read each cell once (a tensor's rows are views of it; a recipe plane computes a
    band of its query rows, axis 2, alone, but all its query rows for any band of keys; and only on the CPU: elsewhere
    `Plane.tile` computes the head whole for any band, so bands would compute it once each)."""
    return rows > 1 and rows * cols > BAND_CELLS and (
        not is_plane(tensor) or (row_axis == 2 and tensor.device.type == "cpu"))


@dataclass(frozen=True, eq=False)  # compared by identity: its arrays have no single truth value
class Banded:
    """What `read_banded` read: the picture (row-major float32, `out` cells), the stats of every cell, and each
    source row's largest finite |value| when asked for."""

    values: np.ndarray
    stats: Stats
    row_max: Tensor | None


def finite_abs_max(part: Tensor) -> Tensor:
    """Each row's largest finite |value| (0 where a row has none)."""
    import torch
    return torch.where(torch.isfinite(part), part.abs(), torch.zeros((), device=part.device)).amax(1)


def part_stats(part: Tensor, bins: int = HIST_BINS) -> Stats:
    """Stats of one part, computed where it lives."""
    return _host_stats(part, bins) if on_host(part) else _unpack_stats(_stats_tensor(part, bins).cpu().numpy(), bins)


def finite_sample(part: Tensor, stride: int) -> Tensor:
    """Every `stride`-th cell of `part` (row-major), its finite ones: a part's share of a histogram's sample."""
    import torch
    picked = part.reshape(-1)[::max(1, stride)]
    return picked[torch.isfinite(picked)]


def merged_stats(parts: list[Stats], sample: Tensor, bins: int = HIST_BINS) -> Stats:
    """The stats of all the cells of `parts` (each part's `Stats`): extremes and counts, the mean and sample std
    (Chan's pairwise update: no cancellation where the mean dominates the spread, as in a softmax), the histogram
    binned over the whole range from `sample` (finite cells drawn evenly from every part)."""
    import torch
    nan, posinf, neginf, count = (sum(getattr(p, field) for p in parts) for field in ("nan", "posinf", "neginf", "count"))
    finite = [(p, p.count - p.nan - p.posinf - p.neginf) for p in parts]
    finite = [(p, k) for p, k in finite if k]
    if not finite:
        return _unpack_stats(np.array([math.nan] * 4 + [nan, posinf, neginf, count] + [0] * bins), bins)
    lo, hi = min(p.min for p, _ in finite), max(p.max for p, _ in finite)
    n = sum(k for _, k in finite)
    mean = sum(k * p.mean for p, k in finite) / n
    squares = sum(p.std * p.std * (k - 1) + k * (p.mean - mean) ** 2 for p, k in finite)
    std = math.sqrt(squares / (n - 1)) if n > 1 else 0.0
    if hi > lo:
        counts = torch.histc(sample.float(), bins, lo, hi).cpu().numpy()
    else:
        counts = np.zeros(bins)
        counts[0] = sample.numel()
    return _unpack_stats(np.concatenate([[lo, hi, mean, std, nan, posinf, neginf, count], counts]), bins)


def _windows(first: int, last: int, rows: int, out_rows: int) -> tuple[list[int], list[int]]:
    """Source rows [start, stop) of display rows first … last−1 when `rows` rows are shown as `out_rows` (display
    row r covers floor(r·rows/out_rows) … ceil((r+1)·rows/out_rows) − 1, as an adaptive block average does)."""
    starts = [r * rows // out_rows for r in range(first, last)]
    stops = [-(-(r + 1) * rows // out_rows) for r in range(first, last)]
    return starts, stops


def _row_means(share: Tensor, starts: list[int], stops: list[int], offset: int) -> Tensor:
    """(1, 1, r, w) column averages of source rows offset … averaged over each window [start, stop) of rows."""
    import torch
    sums = torch.nn.functional.pad(share.double().cumsum(2), (0, 0, 1, 0))
    lo = torch.tensor([s - offset for s in starts], device=share.device)
    hi = torch.tensor([s - offset for s in stops], device=share.device)
    size = (hi - lo).to(torch.float64).reshape(1, 1, -1, 1)
    return ((sums[:, :, hi] - sums[:, :, lo]) / size).float()


def _band_shares(part: Tensor, out: tuple[int, int]) -> list[Tensor]:
    """The four `display._shares` of a (1, 1, R, C) band at `out`. On the CPU a band with no NaN or ±∞ (told by its
    extremes, as `stats._host_stats` tells it) pools its values alone, and one whose only non-finite value is −∞
    (masked cells) skips the NaN and +∞ shares: the rest are constants, as `display._downsample` leaves them out."""
    import torch
    if on_host(part) and part.numel():
        lo, hi = (float(v) for v in torch.aminmax(part))
        if math.isfinite(hi) and (math.isfinite(lo) or lo == -math.inf):
            if math.isfinite(lo):
                total = _block_mean(part, out)
                shares = [total, torch.ones_like(total)]
            else:
                shares = _shares(part, out, neginf_only=True)
            return shares + [torch.zeros_like(shares[0]), torch.zeros_like(shares[0])]
    return _shares(part, out)


def read_banded(read: Callable[[int, int], Tensor], rows: int, cols: int, out: tuple[int, int],
                bins: int = HIST_BINS, row_max: bool = False) -> Banded:
    """The rows × cols slice that `read(r0, r1)` gives rows r0 … r1−1 of (float32, masked cells −∞), block-averaged
    to `out` cells with NaN and ±∞ kept where they dominate (as `display._downsample`), with its stats and, with
    `row_max`, each row's largest finite |value|; read in bands of whole display rows of about `BAND_CELLS`. Where
    each display row covers as many source rows (`rows` a multiple of its height), a band is block-averaged at
    once, as the whole slice would be; else its columns first, then each display row's window of its rows."""
    import torch
    even = rows % out[0] == 0
    per_display_row = -(-rows // out[0]) + (0 if even else 1)  # source rows under one display row, at most
    step = max(1, BAND_CELLS // max(1, cols * per_display_row))
    stride = max(1, rows * cols // _HIST_SAMPLE)
    pooled: list[list[Tensor]] = []
    parts, samples, maxima = [], [], []
    covered = 0  # rows already in the stats (a display row's window may share its first row with the last's)
    for first in range(0, out[0], step):
        last = min(out[0], first + step)
        starts, stops = _windows(first, last, rows, out[0])
        part = read(starts[0], stops[-1])
        band = part.reshape(1, 1, *part.shape)
        if even:
            pooled.append(_band_shares(band, (last - first, out[1])))
        else:
            pooled.append([_row_means(share, starts, stops, starts[0])
                           for share in _band_shares(band, (part.shape[0], out[1]))])
        own = part[covered - starts[0]:]
        covered = stops[-1]
        parts.append(part_stats(own, bins))
        samples.append(finite_sample(own, stride))
        if row_max:
            maxima.append(finite_abs_max(own))
        del part, own, band
    small = _from_shares([torch.cat(kind, dim=2) for kind in zip(*pooled)]).reshape(out)
    values = np.ascontiguousarray(small.cpu().numpy(), dtype=np.float32)
    return Banded(values=values, stats=merged_stats(parts, torch.cat(samples), bins),
                  row_max=torch.cat(maxima) if row_max else None)
