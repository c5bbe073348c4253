"""A tile of the shown 2-D slice: rows [r0, r1) × columns [c0, c1), read at a screen's resolution.

A zoomed heatmap shows part of a plane. The tile is read by indexing the stage's tensor for
that region alone — every other axis at its index, a row range and a column range, in one
`tensor[...]` — so a plane computed on demand (a recipe) computes only those cells, and a
tensor on a GPU sends only the small result to the host. Nothing here applies a whole-tensor
operation to the stage's tensor. Block averages, masked cells and stats follow
`tfdebug.core.display`: a tile with as many rows and columns as its region holds the real cells.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Mapping

import numpy as np

# One set of display rules: the block average, masked cells and the stats of display_slice.
from tfdebug.core.bands import banded, finite_abs_max, read_banded
from tfdebug.core.display import _downsample, _shown_plane, select_2d
from tfdebug.core.stats import HIST_BINS, _host_stats, on_host, Stats, _stats_tensor, _unpack_stats
from tfdebug.core.slices import slice_index

if TYPE_CHECKING:  # torch loads when a function first needs it, not with the window
    from torch import Tensor

ROW_BAND_CELLS = 1 << 22  # the row maxima read the rows' every column in bands of at most ~4M cells (16 MB)


@dataclass(frozen=True, eq=False)  # compared by identity: its arrays have no single truth value
class Tile:
    """Rows `rows` × columns `cols` of a `source_shape` slice, drawn as `values` (row-major float32,
    masked cells −∞). When `values` is smaller than the region, display cell r covers region rows
    floor(r·n/h) … ceil((r+1)·n/h)−1 (block averages, as in `display_slice`). `stats` are of the
    region's cells at full resolution. `row_max`, when asked for, holds per display row the largest
    |value| of its rows over *every* column of the slice (not only the tile's): what a
    per-row normalised view divides by."""

    values: np.ndarray
    rows: tuple[int, int]
    cols: tuple[int, int]
    source_shape: tuple[int, int]
    stats: Stats
    row_max: np.ndarray | None = None

    @property
    def exact(self) -> bool:
        """Whether every display cell is one cell of the slice (no block average)."""
        return self.values.shape == (self.rows[1] - self.rows[0], self.cols[1] - self.cols[0])

    def contains(self, row: int, col: int) -> bool:
        """Whether source cell (row, col) of the slice lies in the tile."""
        return self.rows[0] <= row < self.rows[1] and self.cols[0] <= col < self.cols[1]

    def value_at(self, row: int, col: int) -> float:
        """The drawn value of the display cell covering source cell (row, col) (which the tile contains)."""
        h, w = self.values.shape
        r = (row - self.rows[0]) * h // (self.rows[1] - self.rows[0])
        c = (col - self.cols[0]) * w // (self.cols[1] - self.cols[0])
        return float(self.values[r, c])


def region(tensor, row_axis: int, col_axis: int, indices: Mapping[int, int] | None,
           rows: tuple[int, int], cols: tuple[int, int]) -> Tensor:
    """Rows × cols of the 2-D slice (rows = `row_axis`) with every other axis at its index (default 0),
    read by one indexing of `tensor`: only that region is read or computed."""
    if tensor.dim() < 2:  # a vector or a scalar: its whole slice is one small row
        return select_2d(tensor.detach(), row_axis, col_axis, indices)[rows[0]:rows[1], cols[0]:cols[1]]
    part = tensor[slice_index(tensor, row_axis, col_axis, indices, slice(*rows), slice(*cols))].detach()
    return part if row_axis < col_axis else part.t()


def slice_shape(tensor, row_axis: int, col_axis: int) -> tuple[int, int]:
    """(rows, columns) of the shown 2-D slice of `tensor`, from its shape alone."""
    shape = tuple(tensor.shape)
    if len(shape) == 0:
        return 1, 1
    if len(shape) == 1:
        return 1, shape[0]
    if row_axis == col_axis or not (0 <= row_axis < len(shape) and 0 <= col_axis < len(shape)):
        raise ValueError(f"need two different axes of {len(shape)}, got {row_axis} and {col_axis}")
    return shape[row_axis], shape[col_axis]


def _shown_region(tensor, row_axis, col_axis, indices, rows, cols, kind, mask) -> Tensor:
    """The region as drawn: float32, masked cells −∞ (a softmax's from the mask it read, same region)."""
    return _shown_plane(tensor, row_axis, col_axis, indices, kind, mask, slice(*rows), slice(*cols))


def _banded_tile(tensor, row_axis, col_axis, indices, rows, cols, limit, kind, mask, bins, row_max) -> Tile:
    """A region of more than `bands.BAND_CELLS` cells, read a band of rows at a time (`bands.read_banded`)."""
    n_rows, n_cols = slice_shape(tensor, row_axis, col_axis)
    out = (min(rows[1] - rows[0], limit[0]), min(cols[1] - cols[0], limit[1]))
    every_column = row_max and cols == (0, n_cols)
    read = read_banded(lambda r0, r1: _shown_region(tensor, row_axis, col_axis, indices,
                                                   (rows[0] + r0, rows[0] + r1), cols, kind, mask),
                       rows[1] - rows[0], cols[1] - cols[0], out, bins, row_max=every_column)
    maxima = None
    if every_column and read.row_max is not None:
        maxima = _pooled_max(read.row_max, out[0])
    elif row_max:
        maxima = _row_max(tensor, row_axis, col_axis, indices, rows, kind, mask, out[0])
    return Tile(values=read.values, rows=rows, cols=cols, source_shape=(n_rows, n_cols), stats=read.stats,
                row_max=maxima)


def _pooled_max(maxima: Tensor, out_rows: int) -> np.ndarray:
    """Source rows' maxima pooled to `out_rows` display rows (the blocks of the block average)."""
    import torch.nn.functional as F
    maxima = maxima.reshape(1, 1, -1)
    pooled = F.adaptive_max_pool1d(maxima, out_rows) if maxima.shape[-1] != out_rows else maxima
    return pooled.reshape(-1).cpu().numpy().astype(np.float32)


def _row_max(tensor, row_axis, col_axis, indices, rows, kind, mask, out_rows: int) -> np.ndarray:
    """Per display row, the largest finite |value| of its source rows over every column, read in row bands."""
    import torch
    n_cols = slice_shape(tensor, row_axis, col_axis)[1]
    band = max(1, ROW_BAND_CELLS // max(1, n_cols))
    parts = [finite_abs_max(_shown_region(tensor, row_axis, col_axis, indices, (r0, min(rows[1], r0 + band)),
                                           (0, n_cols), kind, mask))
             for r0 in range(rows[0], rows[1], band)]
    return _pooled_max(torch.cat(parts), out_rows)


def read_tile(tensor, row_axis: int, col_axis: int, indices: Mapping[int, int] | None,
              rows: tuple[int, int], cols: tuple[int, int], max_size: tuple[int, int], kind: str | None = None,
              mask=None, bins: int = HIST_BINS, row_max: bool = False) -> Tile:
    """Rows [r0, r1) × columns [c0, c1) of the shown slice, block-averaged to at most `max_size`
    (the view's pixels), with the region's stats; `row_max` adds the rows' maxima over all columns.

    `tensor` is the stage's tensor (or any object indexed like one: a plane computed on demand);
    `mask` the mask stage a softmax read (see `masked_as_neginf`). Raises ValueError for a region
    outside the slice.
    """
    import torch
    n_rows, n_cols = slice_shape(tensor, row_axis, col_axis)
    rows, cols = (int(rows[0]), int(rows[1])), (int(cols[0]), int(cols[1]))
    if not (0 <= rows[0] < rows[1] <= n_rows and 0 <= cols[0] < cols[1] <= n_cols):
        raise ValueError(f"rows {rows} × columns {cols} are outside the {n_rows}×{n_cols} slice")
    limit = (max(1, max_size[0]), max(1, max_size[1]))
    if banded(tensor, row_axis, rows[1] - rows[0], cols[1] - cols[0]):
        return _banded_tile(tensor, row_axis, col_axis, indices, rows, cols, limit, kind, mask, bins, row_max)
    part = _shown_region(tensor, row_axis, col_axis, indices, rows, cols, kind, mask)
    if on_host(part):
        stats = _host_stats(part, bins)
        small = _downsample(part, *limit, all_finite=stats.nan == stats.posinf == stats.neginf == 0,
                            neginf_only=stats.nan == stats.posinf == 0)
        values = np.ascontiguousarray(small.numpy(), dtype=np.float32)
    else:  # on a GPU: one transfer for image and stats together
        small = _downsample(part, *limit)
        packed_stats = _stats_tensor(part, bins)
        packed = torch.cat([small.reshape(-1).to(packed_stats.dtype), packed_stats]).cpu().numpy()
        values = np.ascontiguousarray(packed[:small.numel()].reshape(small.shape), dtype=np.float32)
        stats = _unpack_stats(packed[small.numel():], bins)
    maxima = None
    if row_max:
        if cols == (0, n_cols):  # the tile spans every column: its own region has the maxima
            maxima = _pooled_max(finite_abs_max(part), values.shape[0])
        else:
            maxima = _row_max(tensor, row_axis, col_axis, indices, rows, kind, mask, values.shape[0])
    return Tile(values=values, rows=rows, cols=cols, source_shape=(n_rows, n_cols), stats=stats, row_max=maxima)
