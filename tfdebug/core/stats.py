"""Statistics of a tensor for the window: extremes, non-finite counts, mean, std and a histogram.

Computed where the tensor lives; on a device, everything is packed into one tensor and read back in one transfer
(`tensor_stats`). A recipe plane, or a large host tensor of another dtype than float32, is read in parts whose
stats are merged (`bands.merged_stats`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Iterable

import numpy as np

if TYPE_CHECKING:  # torch loads when a function first needs it, not with the window
    import torch
    from torch import Tensor

from tfdebug.core.recipes import Plane

HIST_BINS = 64
_HIST_SAMPLE = 1 << 18  # histogram from at most ~256K evenly strided elements


@dataclass(frozen=True)
class Stats:
    """Summary of a tensor. min/max/mean/std are over finite values (NaN when there are none)."""

    min: float
    max: float
    mean: float
    std: float
    nan: int
    posinf: int
    neginf: int
    count: int
    hist_counts: np.ndarray
    hist_edges: np.ndarray
    #: mean and std not computed yet (NaN until `slice_moments` fills them in); the rest is exact
    partial: bool = False

    def to_dict(self) -> dict:
        """JSON-friendly scalar stats (no histogram)."""
        def num(x: float):
            return None if x != x else float(x)
        return {"min": num(self.min), "max": num(self.max), "mean": num(self.mean), "std": num(self.std),
                "nan": self.nan, "posinf": self.posinf, "neginf": self.neginf}


def is_masked(mask: Tensor) -> Tensor:
    """The cells a mask stage's tensor marks as masked: −∞, or at or below finfo.min / 2."""
    import torch
    return mask <= torch.finfo(mask.dtype).min / 2


def masked_as_neginf(tensor: Tensor, kind: str | None, mask: Tensor | None = None) -> Tensor:
    """A mask stage's tensor with its masked cells as −∞, whichever way the model marked them.

    The reference model adds −∞; transformers adds finfo(dtype).min, a finite number. Cells
    at or below finfo.min / 2 in a mask stage are masked. `mask`, the tensor of the mask
    stage a softmax read (same shape), marks that softmax's masked cells: there they are
    exact zeros, which only the mask tells apart from a probability that underflowed
    (fp16 rounds anything below 6e-8 to 0). Other stages come back unchanged.
    """
    if not tensor.is_floating_point():
        return tensor
    if mask is not None and mask.shape == tensor.shape and mask.is_floating_point():
        return tensor.masked_fill(is_masked(mask), float("-inf"))
    if kind != "mask":
        return tensor
    return tensor.masked_fill(is_masked(tensor), float("-inf"))


def on_host(tensor: Tensor) -> bool:
    """Whether display math may read `tensor`'s values back freely (a CPU tensor: no sync).

    Elsewhere every read makes the host wait for the device, so that path packs all it
    needs into one transfer. (The sync-counting harness sends CPU tensors down that path.)
    """
    return tensor.device.type == "cpu"


def _accumulator(device: torch.device) -> torch.dtype:
    """float64 for sums and packing, except where the backend has none (Apple's MPS)."""
    import torch
    return torch.float32 if device.type == "mps" else torch.float64


def _stats_tensor(x: Tensor, bins: int) -> Tensor:
    """All stats of x packed into one tensor on x's device (no data-dependent branch, so no
    sync before the single read-back): 8 scalars, then bin counts."""
    import torch
    x = x.reshape(-1).float()
    acc = _accumulator(x.device)
    finite = torch.isfinite(x)
    n = finite.sum()
    nf = n.to(acc)
    zero = torch.zeros((), device=x.device, dtype=acc)
    big = torch.full((), float("inf"), device=x.device)  # filled on the device: no host-to-device copy
    lo = torch.where(finite, x, big).amin() if x.numel() else big
    hi = torch.where(finite, x, -big).amax() if x.numel() else -big
    wide = x.to(acc)
    mean = torch.where(finite, wide, zero).sum() / nf.clamp(min=1)
    var = (torch.where(finite, wide - mean, zero) ** 2).sum() / (nf - 1).clamp(min=1)
    nan = torch.isnan(x).sum()
    posinf = torch.isposinf(x).sum()
    neginf = torch.isneginf(x).sum()
    # Histogram by scatter-add into fixed bins (no data-dependent output size, so no sync).
    stride = max(1, x.numel() // _HIST_SAMPLE)
    sample, sample_finite = x[::stride], finite[::stride]
    span = (hi - lo).clamp(min=1e-30)
    idx = ((sample - lo) / span * bins).clamp(0, bins - 1).nan_to_num(0).long()
    idx = torch.where(sample_finite, idx, torch.full_like(idx, bins))
    counts = torch.zeros(bins + 1, dtype=acc, device=x.device).scatter_add_(
        0, idx, torch.ones_like(idx, dtype=acc))[:bins]
    no_finite = n == 0
    nan_t = torch.full((), float("nan"), device=x.device, dtype=acc)
    head = torch.stack([
        torch.where(no_finite, nan_t, lo.to(acc)), torch.where(no_finite, nan_t, hi.to(acc)),
        torch.where(no_finite, nan_t, mean), torch.where(no_finite, nan_t, var.sqrt()),
        nan.to(acc), posinf.to(acc), neginf.to(acc), torch.full((), float(x.numel()), device=x.device, dtype=acc),
    ])
    return torch.cat([head, counts])


def _unpack_stats(packed: np.ndarray, bins: int) -> Stats:
    lo, hi = float(packed[0]), float(packed[1])
    edges = np.linspace(lo, hi, bins + 1) if lo == lo else np.zeros(bins + 1)
    return Stats(min=lo, max=hi, mean=float(packed[2]), std=float(packed[3]), nan=int(packed[4]),
                 posinf=int(packed[5]), neginf=int(packed[6]), count=int(packed[7]),
                 hist_counts=packed[8:8 + bins].astype(np.int64), hist_edges=edges)


def _host_stats(x: Tensor, bins: int, moments: bool = True) -> Stats:
    """Stats of a CPU tensor. On the CPU a data-dependent branch costs nothing, so the
    common all-finite case (told by min and max alone: both propagate NaN and ±∞)
    takes three passes instead of the masked general path."""
    import torch
    x = x.reshape(-1).float()
    if x.numel() == 0:
        return _unpack_stats(np.array([np.nan] * 4 + [0, 0, 0, 0] + [0] * bins), bins)
    lo, hi = (float(v) for v in torch.aminmax(x))
    if math.isfinite(lo) and math.isfinite(hi):
        values, nan, posinf, neginf = x, 0, 0, 0
    else:
        values = x[torch.isfinite(x)]
        if lo == -math.inf and math.isfinite(hi):  # −∞ alone (masked cells): a NaN or +∞ would be the maximum
            nan, posinf = 0, 0
        else:
            nan, posinf = int(torch.isnan(x).sum()), int(torch.isposinf(x).sum())
        neginf = x.numel() - values.numel() - nan - posinf
        if values.numel() == 0:
            return _unpack_stats(np.array([np.nan] * 4 + [nan, posinf, neginf, x.numel()] + [0] * bins), bins)
        lo, hi = (float(v) for v in torch.aminmax(values))
    n = values.numel()
    sample = values[:: max(1, n // _HIST_SAMPLE)]
    if hi > lo:
        counts = torch.histc(sample, bins, lo, hi).numpy()
        mean, std = _mean_std(values, _dominating_mean(counts, lo, hi)) if moments else (math.nan, math.nan)
    else:  # one value throughout
        counts = np.zeros(bins)
        counts[0] = sample.numel()
        mean, std = lo, 0.0
    stats = _unpack_stats(np.concatenate([[lo, hi, mean, std, nan, posinf, neginf, x.numel()], counts]), bins)
    return stats if moments or hi == lo else replace(stats, partial=True)


_CHUNK = 1 << 18  # elements per step of the deviation sums: a 1 MB buffer that stays in cache


def _mean_std(values: Tensor, shift: float | None = None) -> tuple[float, float]:
    """Mean and sample std of a 1-D float32 CPU tensor.

    Without `shift`: the sum and the sum of squares (float64 chunk by chunk, below). When the
    mean dominates the spread (a softmax) that sum-of-squares form loses precision; then the
    deviations from the mean are summed instead. `shift` (an estimate of a mean known to
    dominate, e.g. from the histogram) goes there directly.
    """
    import torch
    n = values.numel()
    if n == 1:
        return float(values[0]), 0.0
    if shift is None:
        total, squares = _sums(values, 0.0)
        mean = total / n
        if n * mean * mean <= 0.25 * squares:
            return mean, math.sqrt(max(squares - n * mean * mean, 0.0) / (n - 1))
        shift = mean
    if n <= _CHUNK:  # one chunk: the exact mean costs a pass over data already in cache
        shift = float(values.sum(dtype=torch.float64)) / n
    total, squares = _sums(values, shift)
    offset = total / n
    return shift + offset, math.sqrt(max(squares - n * offset * offset, 0.0) / (n - 1))


def _sums(values: Tensor, shift: float) -> tuple[float, float]:
    """Σd and Σd² of the deviations d = x − shift in one pass over the data: chunk by chunk into a
    reused cache-sized float64 buffer, so the sums do not depend on how BLAS splits a float32 dot
    (a single-threaded float32 dot over a million cells drifts by 1e-4) and nothing cancels when
    the shift is near the mean. No full-size temporary."""
    import torch
    n = values.numel()
    buffer = torch.empty(min(n, _CHUNK), dtype=torch.float64)
    total = squares = 0.0
    for start in range(0, n, _CHUNK):
        chunk = values[start:start + _CHUNK]
        deviation = buffer[:chunk.numel()]
        deviation.copy_(chunk)
        if shift:
            deviation.sub_(shift)
        total += float(deviation.sum())
        squares += float(torch.dot(deviation, deviation))
    return total, squares


def _dominating_mean(counts: np.ndarray, lo: float, hi: float) -> float | None:
    """The histogram's estimate of the mean (bin centres weighted by their counts) when it is large
    against the spread (mean square under 10 × mean²): the std then needs the deviations' path,
    and the estimate is a good shift for it. None otherwise."""
    counts = counts.astype(np.float64)  # float32 sums of values near finfo.max (a mask's finfo.min) overflow
    total = counts.sum()
    if total == 0:
        return None
    centres = lo + (np.arange(len(counts)) + 0.5) * ((hi - lo) / len(counts))
    mean = float(counts @ centres) / total
    return mean if mean * mean > 0.1 * float(counts @ (centres * centres)) / total else None


def tensor_stats(tensor: Tensor, bins: int = HIST_BINS, kind: str | None = None) -> Stats:
    """Stats of a whole tensor, computed where it lives; one transfer of 8 + bins numbers.

    `kind` "mask" counts finfo.min-marked cells as masked (−∞) rather than as values. A recipe plane is read
    one block at a time (`Plane.blocks`), its blocks' stats merged (`bands.merged_stats`); so is a large host
    tensor of another dtype than float32, `bands.BAND_CELLS` cells at a time (its float32 copy is never whole: a
    4,096-token pass's bfloat16 logits over a 128k vocabulary would make 2.1 GB)."""
    if isinstance(tensor, Plane):
        return _merged_parts((block for _, _, block in tensor.blocks()), tensor.numel(), bins, kind)
    import torch

    from tfdebug.core.bands import BAND_CELLS
    tensor = tensor.detach()
    if on_host(tensor) and tensor.numel() > BAND_CELLS and tensor.dtype != torch.float32:
        return _merged_parts(tensor.reshape(-1).split(BAND_CELLS), tensor.numel(), bins, kind)
    tensor = masked_as_neginf(tensor, kind)
    if on_host(tensor):
        return _host_stats(tensor, bins)
    return _unpack_stats(_stats_tensor(tensor, bins).cpu().numpy(), bins)


def _merged_parts(parts: Iterable[Tensor], numel: int, bins: int, kind: str | None) -> Stats:
    """The stats of a tensor of `numel` cells read as `parts` one at a time, merged (`bands.merged_stats`)."""
    import torch

    from tfdebug.core.bands import finite_sample, merged_stats, part_stats
    stride = max(1, numel // _HIST_SAMPLE)
    stats, samples = [], []
    for part in parts:
        part = masked_as_neginf(part, kind)
        stats.append(part_stats(part, bins))
        samples.append(finite_sample(part, stride))
    return merged_stats(stats, torch.cat(samples), bins)


def held_stats(stats: Stats, kind: str | None) -> Stats:
    """A softmax slice's `stats` as its tensor holds it: display_slice counts the masked cells as −∞,
    the tensor holds zeros there. Worked out from the stats alone (no second pass over the plane, which
    a downsampled slice's image cannot stand in for): extremes and moments with the zeros counted in,
    the histogram's bars re-binned over the new range with the zeros' share added. Other kinds, or a
    slice without masked cells, come back unchanged."""
    if kind != "softmax" or not stats.neginf:
        return stats
    n = stats.count - stats.nan - stats.posinf - stats.neginf  # finite cells
    total = n + stats.neginf
    lo, hi = (min(stats.min, 0.0), max(stats.max, 0.0)) if n else (0.0, 0.0)
    mean, std = (stats.mean, stats.std) if n else (0.0, 0.0)
    sums, squares = mean * n, std * std * max(n - 1, 0) + n * mean * mean
    held_mean = sums / total
    held_std = math.sqrt(max(squares - total * held_mean * held_mean, 0.0) / max(total - 1, 1))
    bins = len(stats.hist_counts)
    edges = np.linspace(lo, hi, bins + 1) if hi > lo else np.zeros(bins + 1)
    counts = np.zeros(bins, dtype=np.int64)
    if bins and hi > lo:
        centres = (stats.hist_edges[:-1] + stats.hist_edges[1:]) / 2
        counts = np.histogram(centres, edges, weights=stats.hist_counts)[0].astype(np.int64)
        sampled = stats.hist_counts.sum() / n if n else 1.0  # the bars count a sample of the finite cells
        counts[min(bins - 1, int((0.0 - lo) / (hi - lo) * bins))] += round(stats.neginf * sampled)
    elif bins:
        counts[0] = stats.hist_counts.sum() + stats.neginf
    return replace(stats, min=lo, max=hi, mean=held_mean, std=held_std, neginf=0, hist_counts=counts,
                   hist_edges=edges)
