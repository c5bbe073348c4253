"""Every head of a stage's shown slice at once, as small images (the Heads panel's thumbnails).

Sliced, downsampled and summarised on the tensor's device with the same helpers as the
heatmap's slice (tfdebug.core.display), in one transfer for all heads.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Mapping

import numpy as np

from tfdebug.core import display
from tfdebug.core.display import _downsample
from tfdebug.core.stats import masked_as_neginf

if TYPE_CHECKING:  # torch loads when a function first needs it, not with the window
    from torch import Tensor


@dataclass(frozen=True)
class HeadThumbnails:
    """Every head of a stage's shown slice, downsampled: `values[h]` is head h's image.

    `mins`/`maxs` are each head's finite extremes (NaN when a head has no finite value);
    `neginf` counts each head's −∞ (masked) cells. Both are of every cell, except for planes
    over 8 × the thumbnail size along an axis, which are read on an evenly strided grid.
    """

    values: np.ndarray
    mins: np.ndarray
    maxs: np.ndarray
    neginf: np.ndarray
    source_shape: tuple[int, int]


def head_thumbnails(tensor: Tensor, row_axis: int, col_axis: int, head_axis: int,
                    indices: Mapping[int, int] | None = None,
                    max_size: tuple[int, int] = (48, 48), kind: str | None = None,
                    mask: Tensor | None = None) -> HeadThumbnails:
    """All heads at once: slice, downsample and summarise on the device, one transfer.

    Each head is read by its own indexing of `tensor` (on the strided grid of a large plane), so
    the whole stage is never one operand. The heads are pooled as one batch, so the host waits
    once for all of them rather than once per head. In a `kind` "mask" stage, finfo.min-marked cells count as masked,
    and so do the cells `mask` marks (the mask stage a softmax read).
    """
    import torch
    if len({row_axis, col_axis, head_axis}) != 3:
        raise ValueError("the head axis must differ from the shown axes")
    fixed = {a: i for a, i in (indices or {}).items() if a != head_axis}
    shape = tuple(tensor.shape)
    heads, rows, cols = shape[head_axis], shape[row_axis], shape[col_axis]
    out = (min(rows, max(1, max_size[0])), min(cols, max(1, max_size[1])))
    # A thumbnail of a huge plane averages blocks of an evenly strided grid (at most 8 samples
    # per thumbnail cell along each axis) instead of every cell: 48² pixels cannot show more,
    # and pooling all of a 4096² plane per head would cost more than the main heatmap.
    step_r, step_c = max(1, rows // (8 * out[0])), max(1, cols // (8 * out[1]))
    mask = mask if mask is not None and tuple(mask.shape) == shape else None

    def head_grid(source, h: int) -> Tensor:
        """Head h's grid of the shown slice, read by one indexing of `source` (a plane computed on
        demand computes only that head's strided cells; no operation touches the whole stage)."""
        index = [h if axis == head_axis else slice(None, None, step_r) if axis == row_axis
                 else slice(None, None, step_c) if axis == col_axis else fixed.get(axis, 0)
                 for axis in range(len(shape))]
        part = source[tuple(index)].detach()
        return part if row_axis < col_axis else part.t()
    planes = torch.stack([masked_as_neginf(head_grid(tensor, h), kind,
                                           head_grid(mask, h) if mask is not None else None).float()
                          for h in range(heads)]) if heads else torch.empty(0, rows, cols)
    if display.on_host(planes) and heads and planes[0].numel():  # (the sync counter patches display.on_host)
        thumbs = _finite_host_thumbnails(planes, out)
        if thumbs is not None:
            return thumbs
    finite = torch.isfinite(planes)
    big = torch.full((), float("inf"), device=planes.device)
    flat, flat_finite = planes.reshape(heads, -1), finite.reshape(heads, -1)
    any_finite = flat_finite.any(dim=1)
    nan = torch.full((heads,), float("nan"), device=planes.device)
    mins = torch.where(any_finite, torch.where(flat_finite, flat, big).amin(dim=1), nan)
    maxs = torch.where(any_finite, torch.where(flat_finite, flat, -big).amax(dim=1), nan)
    neginf = torch.isneginf(flat).sum(dim=1).float()
    small = _downsample(planes, *out) if heads else planes[:, :out[0], :out[1]]
    packed = torch.cat([small.reshape(-1), mins, maxs, neginf]).cpu().numpy()
    n = small.numel()
    return HeadThumbnails(values=np.ascontiguousarray(packed[:n].reshape(heads, *out), dtype=np.float32),
                          mins=packed[n:n + heads].astype(np.float64),
                          maxs=packed[n + heads:n + 2 * heads].astype(np.float64),
                          neginf=packed[n + 2 * heads:].astype(np.int64), source_shape=(rows, cols))


def _finite_host_thumbnails(planes: Tensor, out: tuple[int, int]) -> HeadThumbnails | None:
    """The common case on the CPU, where a branch on the data costs nothing: every cell finite
    (told by each head's extremes, which NaN and ±∞ would reach) needs no masking passes.
    None when some cell is not finite."""
    import torch
    heads, rows, cols = planes.shape
    mins, maxs = torch.aminmax(planes.reshape(heads, -1), dim=1)
    if not bool(torch.isfinite(mins).all() and torch.isfinite(maxs).all()):
        return None
    small = _downsample(planes, *out, all_finite=True)
    # A copy: without downsampling, `small` is a view of the stage's own tensor.
    return HeadThumbnails(values=np.array(small.numpy(), dtype=np.float32, order="C"),
                          mins=mins.double().numpy(), maxs=maxs.double().numpy(),
                          neginf=np.zeros(heads, dtype=np.int64), source_shape=(rows, cols))


def head_plane_axes(names: tuple[str, ...] | list[str]) -> tuple[int, int, int] | None:
    """(row, column, head) axes a stage with these axis names is drawn with, head by head: its last two axes
    that are neither the head nor the batch (query × key for attention probabilities); None without a head
    axis and two such axes."""
    if "head" not in names:
        return None
    head = list(names).index("head")
    rest = [i for i, n in enumerate(names) if i != head and n != "batch"]
    return (rest[-2], rest[-1], head) if len(rest) >= 2 else None
