"""Edits of a paused stage's tensor, as data: what to change and how, applied on the tensor's device.

    region = Region(row_axis=2, col_axis=3, indices={0: 0, 1: 1})   # the slice the heatmap shows
    new = apply_edit(tensor, Edit(ZERO_HEAD, head=0), region, axes)  # a new tensor; `tensor` untouched
    stepper.replace(new)                                             # flows downstream on Continue

Every problem (text that is not a number, a CSV of the wrong shape, a head that does not
exist) is an EditError with one sentence, raised before anything changes.
"""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Sequence

from tfdebug.core.errors import EditError
from tfdebug.core.phrases import Phrase

if TYPE_CHECKING:  # torch loads when a function first needs it, not with the window
    from torch import Tensor

SET, SCALE, ZERO_HEAD, KEEP_HEAD, FILL_CSV = "set", "scale", "zero_head", "keep_head", "fill_csv"
CELL, ROW, COLUMN, SLICE, TENSOR = "cell", "row", "column", "slice", "tensor"
OPERATIONS = (SET, SCALE, ZERO_HEAD, KEEP_HEAD, FILL_CSV)
TARGETS = (CELL, ROW, COLUMN, SLICE, TENSOR)
HEAD_AXIS = "head"


@dataclass(frozen=True)
class Region:
    """The 2-D slice a view shows: two shown axes and the index of every other axis."""

    row_axis: int
    col_axis: int
    indices: dict[int, int] = field(default_factory=dict)


@dataclass(frozen=True)
class Edit:
    """One edit. `op` is set, scale, zero_head, keep_head or fill_csv.

    set/scale act on `target` (cell, row, column, the shown slice or the whole tensor) with
    `value` (the new value, or the factor); `row`/`col` are positions in the shown slice.
    The head edits use `head`; fill_csv copies `values` (rows × columns of the shown slice).
    """

    op: str
    target: str = SLICE
    value: float = 0.0
    row: int | None = None
    col: int | None = None
    head: int | None = None
    values: tuple[tuple[float, ...], ...] | None = None

    def describe(self) -> Phrase:
        """What the edit did, in words: 'head 0 zeroed', 'row 2 set to 0' (a Phrase the window translates)."""
        where = {CELL: Phrase("cell ({row}, {col})", id="edit.cell", row=self.row, col=self.col),
                 ROW: Phrase("row {row}", id="edit.row", row=self.row),
                 COLUMN: Phrase("column {col}", id="edit.column", col=self.col),
                 SLICE: Phrase("the shown slice", id="edit.slice"),
                 TENSOR: Phrase("the whole tensor", id="edit.tensor")}.get(self.target, self.target)
        if self.op == SET:
            return Phrase("{where} set to {value}", id="edit.set", where=where, value=f"{self.value:g}")
        if self.op == SCALE:
            return Phrase("{where} scaled by {value}", id="edit.scale", where=where, value=f"{self.value:g}")
        if self.op == ZERO_HEAD:
            return Phrase("head {head} zeroed", id="edit.zero_head", head=self.head)
        if self.op == KEEP_HEAD:
            return Phrase("only head {head} kept", id="edit.keep_head", head=self.head)
        return Phrase("the shown slice filled from a CSV file", id="edit.fill_csv")


def parse_number(text: str, what: str = Phrase("The value", id="edit.the_value")) -> float:
    """A number typed by a person ('0', '-1e-3', '-inf', '−∞'); EditError for anything else."""
    cleaned = text.strip().replace("−", "-").replace("∞", "inf")
    try:
        return float(cleaned)
    except ValueError:
        raise EditError("{what} '{text}' is not a number.", id="edit.not_a_number", what=what,
                        text=text.strip()) from None


def read_csv_values(text: str, shape: tuple[int, int]) -> tuple[tuple[float, ...], ...]:
    """The numbers of a CSV holding `shape` = (rows, columns) values.

    Plain numbers, or the layout tfdebug's CSV export writes (a header row of column
    labels, each row starting with its label): a first row or column that is not all
    numbers is taken as labels.
    """
    try:
        rows = [r for r in csv.reader(io.StringIO(text)) if any(c.strip() for c in r)]
    except csv.Error as exc:  # a field over the csv module's limit (131,072 characters), a NUL byte
        raise EditError("The CSV file cannot be read as CSV ({reason}).", id="edit.csv_unreadable",
                        reason=str(exc)[:120]) from None
    if rows and not _all_numbers(rows[0][1:] or rows[0]):
        rows = rows[1:]  # a header row of column labels
    if rows and all(r and not _is_number(r[0]) for r in rows):
        rows = [r[1:] for r in rows]  # each row starts with its label
    got = (len(rows), max((len(r) for r in rows), default=0))
    if got != tuple(shape) or any(len(r) != shape[1] for r in rows):
        raise EditError("The CSV file holds {rows} rows × {cols} columns; the shown slice is {want_rows} × {want_cols}.",
                        id="edit.csv_shape", rows=got[0], cols=got[1], want_rows=shape[0], want_cols=shape[1])
    values = []
    for i, row in enumerate(rows):
        what = Phrase("Row {n} of the CSV file holds", id="edit.csv_row", n=i + 1)
        values.append(tuple(parse_number(cell, what) for cell in row))
    return tuple(values)


def _is_number(text: str) -> bool:
    try:
        parse_number(text)
    except EditError:
        return False
    return True


def _all_numbers(cells: Sequence[str]) -> bool:
    return all(_is_number(c) for c in cells)


def head_axis(axes: Sequence[str]) -> int | None:
    """Position of the head axis in a stage's axis names, or None."""
    return list(axes).index(HEAD_AXIS) if HEAD_AXIS in axes else None


def slice_shape(shape: Sequence[int], region: Region) -> tuple[int, int]:
    """(rows, columns) of the shown slice of a tensor of `shape`."""
    if len(shape) < 2:
        return (1, shape[0] if shape else 1)
    return (shape[region.row_axis], shape[region.col_axis])


def apply_edit(tensor: Tensor, edit: Edit, region: Region, axes: Sequence[str]) -> Tensor:
    """A new tensor on `tensor`'s device with `edit` applied (`tensor` itself is not changed).

    `region` is the shown slice; `axes` the stage's axis names (the head edits need 'head').
    """
    import torch
    if not tensor.is_floating_point():
        raise EditError("This stage holds {dtype} values; only floating-point stages can be edited.",
                        id="edit.not_float", dtype=str(tensor.dtype).removeprefix("torch."))
    if edit.op not in OPERATIONS:
        raise EditError("There is no edit called '{op}'.", id="edit.unknown_op", op=edit.op)
    out = tensor.clone()
    if edit.op in (ZERO_HEAD, KEEP_HEAD):
        _edit_heads(out, edit, axes)
        return out
    if tensor.dim() < 2 and edit.target in (ROW, COLUMN, CELL):
        raise EditError("This stage has fewer than two axes: edit the whole tensor instead.", id="edit.one_axis")
    target = out if edit.target == TENSOR else _region_view(out, edit, region)
    if edit.op == SET:
        target.fill_(edit.value)
    elif edit.op == SCALE:
        target.mul_(edit.value)
    else:
        if edit.values is None:
            raise EditError("Choose a CSV file to fill the shown slice from.", id="edit.no_csv")
        shown = _region_view(out, Edit(SET, SLICE), region)
        source = torch.tensor(edit.values, dtype=torch.float64)
        if tuple(source.shape) != tuple(shown.shape):
            raise EditError("The CSV values are {rows} × {cols}; the shown slice is {want_rows} × {want_cols}.",
                            id="edit.csv_values_shape", rows=source.shape[0], cols=source.shape[1],
                            want_rows=shown.shape[0], want_cols=shown.shape[1])
        shown.copy_(source.to(device=out.device, dtype=out.dtype))
    return out


def _edit_heads(out: Tensor, edit: Edit, axes: Sequence[str]) -> None:
    axis = head_axis(axes) if len(axes) == out.dim() else None
    if axis is None:
        raise EditError("This stage has no head axis: there is no head to zero or keep.", id="edit.no_head_axis")
    n = out.shape[axis]
    if edit.head is None or not 0 <= edit.head < n:
        raise EditError("There is no head {head}: this stage has heads 0 to {last}.", id="edit.no_head",
                        head=edit.head, last=n - 1)
    if edit.op == ZERO_HEAD:
        out.select(axis, edit.head).zero_()
    else:
        keep = out.select(axis, edit.head).clone()
        out.zero_()
        out.select(axis, edit.head).copy_(keep)


def _region_view(out: Tensor, edit: Edit, region: Region) -> Tensor:
    """A view of `out` on the edit's target inside the shown slice, laid out as (rows, columns)."""
    if out.dim() < 2:
        return out
    rows, cols = out.shape[region.row_axis], out.shape[region.col_axis]
    if edit.target in (CELL, ROW) and (edit.row is None or not 0 <= edit.row < rows):
        raise EditError("There is no row {row}: the shown slice has rows 0 to {last}.", id="edit.no_row",
                        row=edit.row, last=rows - 1)
    if edit.target in (CELL, COLUMN) and (edit.col is None or not 0 <= edit.col < cols):
        raise EditError("There is no column {col}: the shown slice has columns 0 to {last}.", id="edit.no_column",
                        col=edit.col, last=cols - 1)
    index: list = []
    for axis in range(out.dim()):
        if axis == region.row_axis:
            index.append(edit.row if edit.target in (CELL, ROW) else slice(None))
        elif axis == region.col_axis:
            index.append(edit.col if edit.target in (CELL, COLUMN) else slice(None))
        else:
            i = region.indices.get(axis, 0)
            if not 0 <= i < out.shape[axis]:
                raise EditError("Axis {axis} has no index {index}.", id="edit.no_index", axis=axis, index=i)
            index.append(i)
    view = out[tuple(index)]  # ints and full slices only: a view, so writes land in `out`
    if view.dim() == 2 and region.row_axis > region.col_axis:
        view = view.transpose(0, 1)
    return view
