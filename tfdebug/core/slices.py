"""Reading part of a stage's tensor: the index of a 2-D slice's rows × columns, and a softmax's mask beside it.

Shared by the whole-slice display (tfdebug.core.display) and the zoomed tiles (tfdebug.core.tiles): both
read by one indexing of the stage's tensor, so a recipe plane computes only the heads and rows indexed.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Mapping

if TYPE_CHECKING:  # torch loads when a function first needs it, not with the window
    from torch import Tensor

from tfdebug.core.recipes import is_plane


def slice_index(tensor, row_axis: int, col_axis: int, indices: Mapping[int, int] | None = None,
                rows: slice = slice(None), cols: slice = slice(None)) -> tuple:
    """The index of `tensor` (2-D or more) reading rows × cols of the slice (rows=row_axis, cols=col_axis),
    every other axis at its index (default 0)."""
    ndim = tensor.dim()
    if row_axis == col_axis or not (0 <= row_axis < ndim and 0 <= col_axis < ndim):
        raise ValueError(f"need two different axes of {ndim}, got {row_axis} and {col_axis}")
    indices = dict(indices or {})
    index: list = []
    for axis in range(ndim):
        if axis in (row_axis, col_axis):
            index.append(rows if axis == row_axis else cols)
        else:
            i = indices.get(axis, 0)
            if not 0 <= i < tensor.shape[axis]:
                raise IndexError(f"index {i} is outside axis {axis} of size {tensor.shape[axis]}")
            index.append(i)
    return tuple(index)


def with_mask(tensor, mask, index: tuple) -> tuple[Tensor, Tensor | None]:
    """`tensor[index]` and `mask[index]` (None without a mask of the tensor's shape). A recipe plane whose
    chain holds the mask stage (a softmax's) gives both from one computation of its chain."""
    if mask is not None and tuple(mask.shape) != tuple(tensor.shape):
        mask = None
    if is_plane(tensor):
        part, from_chain = tensor.tile(index, also=mask if is_plane(mask) else None)
        if from_chain is not None:
            return part, from_chain
    else:
        part = tensor[index]
    return part, None if mask is None else mask[index]
