"""A, B and A − B of one compared stage as three display slices cut the same way: the Compare dock's heatmaps.

The window cuts them from two passes in this process; the server (tfdebug.remote.comparing) cuts them from
the passes it compared, where their tensors are, and only the three small planes cross.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Mapping

from tfdebug.core.compare import difference, pass_entries
from tfdebug.core.display import DisplaySlice, display_slice
from tfdebug.core.errors import CompareError
from tfdebug.core.view import ViewSelection

if TYPE_CHECKING:  # torch loads when a function first needs it, not with the window
    from torch import Tensor


@dataclass(frozen=True)
class ComparedPlanes:
    """The shown axes of a compared stage, the indices of its other axes, and the slices of A, B and A − B."""

    row_axis: int
    col_axis: int
    indices: dict[int, int]
    slices: tuple[DisplaySlice, DisplaySlice, DisplaySlice]


def stage_planes(a: Tensor, b: Tensor, kind: str, axes: tuple[str, ...], indices_by_name: Mapping[str, int],
                 max_size: tuple[int, int]) -> ComparedPlanes:
    """A, B and A − B (tfdebug.core.compare.difference) of one stage on its last two axes, other axes at
    `indices_by_name` (the window's), each at most `max_size`."""
    view = ViewSelection(indices_by_name)
    view.fit(axes, tuple(a.shape))
    indices = view.indices(axes, tuple(a.shape))
    a_slice, b_slice, difference_slice = (display_slice(t, view.row_axis, view.col_axis, indices, max_size)
                                          for t in (a, b, difference(a, b, kind)))
    return ComparedPlanes(view.row_axis, view.col_axis, indices, (a_slice, b_slice, difference_slice))


def compared_planes(pass_a: Any, pass_b: Any, name: str, indices_by_name: Mapping[str, int],
                    max_size: tuple[int, int]) -> ComparedPlanes:
    """`stage_planes` of stage `name` in two passes (anything tfdebug.core.compare.compare takes)."""
    (captures_a, get_a), (captures_b, get_b) = pass_entries(pass_a), pass_entries(pass_b)
    ca = next((c for c in captures_a if c.name == name), None)
    cb = next((c for c in captures_b if c.name == name), None)
    if ca is None or cb is None:
        raise CompareError("Stage {name} is not in both compared passes.", id="compare.not_in_both", name=name)
    return stage_planes(get_a(ca), get_b(cb), ca.info.kind, tuple(ca.info.axes), indices_by_name, max_size)
