"""Compare two recorded passes stage by stage and find the first stage where they part ways.

    result = compare(recording_a, recording_b, atol=1e-5, rtol=1e-4)
    result.first_divergent        # a StageComparison, or None when every shared stage agrees
    result.stages                 # every stage of either pass, in forward order

A pass is anything with `captures` and `tensor(capture)` (an io Recording: live or
opened from a snapshot) or a plain sequence of Captures holding tensors (a stepper's
history). Stages are matched by name. Stages present in one pass only, or with
different shapes, are listed as such and never compared.

For stages in both with the same shape, on A's device (one read-back for the whole
comparison): max |Δ|, mean |Δ|, relative error ‖A − B‖ / ‖A‖, and the share of cells
over the tolerance |A − B| > atol + rtol·|A| (A is the reference, as in numpy's
isclose(B, A)). A stage diverges when any cell is over it. Masked cells (−∞, or
≤ finfo.min / 2 in a mask stage, each pass judged by its own dtype) masked in both
count as equal, as do NaN in both and +∞ in both; a cell masked or non-finite in one
pass but not the other counts as over the tolerance and makes max |Δ| infinite.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, Callable, Sequence

from tfdebug.core.phrases import Phrase
from tfdebug.core.recorder import Capture

if TYPE_CHECKING:  # torch loads when a function first needs it, not with the window
    import torch
    from torch import Tensor

COMPARED, ONLY_A, ONLY_B, SHAPE = "compared", "only_a", "only_b", "shape"
DEFAULT_ATOL = 1e-5
DEFAULT_RTOL = 1e-4
MASK_KIND = "mask"
_CHUNK = 1 << 24  # elements compared at once: bounds the float64 temporaries of a huge stage
# Order of the scalars each stage's comparison packs into one device tensor.
_MAX, _SUM, _SQ_DIFF, _SQ_REF, _FINITE, _OVER, _MISMATCHED = range(7)


@dataclass(frozen=True)
class StageComparison:
    """One stage of the comparison. `status` is compared, only_a, only_b or shape (shapes differ).

    The numbers are None unless status is compared. `over_share` is the share (0..1) of
    cells over the tolerance; `mismatched` counts cells masked or non-finite in one pass only.
    """

    name: str
    status: str
    shape_a: tuple[int, ...] | None
    shape_b: tuple[int, ...] | None
    dtype_a: str | None = None
    dtype_b: str | None = None
    max_abs: float | None = None
    mean_abs: float | None = None
    rel_error: float | None = None
    over_share: float | None = None
    mismatched: int = 0
    cells: int = 0
    diverges: bool = False

    @property
    def verdict(self) -> Phrase:
        """The row's status in words: same, DIVERGES, only in A, only in B, or both shapes (a Phrase)."""
        if self.status == COMPARED:
            return Phrase("DIVERGES", id="compare.diverges") if self.diverges else Phrase("same", id="compare.same")
        if self.status in (ONLY_A, ONLY_B):
            return (Phrase("only in A", id="compare.only_a") if self.status == ONLY_A
                    else Phrase("only in B", id="compare.only_b"))
        return Phrase("shape {a} vs {b}", id="compare.shapes", a=_shape_text(self.shape_a), b=_shape_text(self.shape_b))

    def to_dict(self) -> dict:
        """JSON-friendly: infinities as the string "inf", NaN as "nan" (JSON has neither); `from_dict` reads it."""
        def num(x):
            return None if x is None else ("inf" if math.isinf(x) else ("nan" if x != x else x))
        return {"name": self.name, "status": self.status, "diverges": self.diverges,
                "shape_a": None if self.shape_a is None else list(self.shape_a),
                "shape_b": None if self.shape_b is None else list(self.shape_b),
                "dtype_a": self.dtype_a, "dtype_b": self.dtype_b,
                "max_abs": num(self.max_abs), "mean_abs": num(self.mean_abs), "rel_error": num(self.rel_error),
                "over_share": self.over_share, "mismatched": self.mismatched, "cells": self.cells}

    @classmethod
    def from_dict(cls, data: dict) -> "StageComparison":
        """`to_dict`'s dict read back; KeyError, TypeError or ValueError when it is not one."""
        status = data["status"]
        if status not in (COMPARED, ONLY_A, ONLY_B, SHAPE):
            raise ValueError(f"unknown status {status!r}")

        def shape(key):
            value = data[key]
            return None if value is None else tuple(int(n) for n in value)

        def num(key):
            value = data[key]
            return None if value is None else float(value)  # float("inf") and float("nan") read the texts

        def word(key):
            value = data[key]
            return None if value is None else str(value)
        return cls(str(data["name"]), status, shape("shape_a"), shape("shape_b"), word("dtype_a"), word("dtype_b"),
                   num("max_abs"), num("mean_abs"), num("rel_error"), num("over_share"), int(data["mismatched"]),
                   int(data["cells"]), bool(data["diverges"]))


def _shape_text(shape) -> str:
    return "(" + ",".join(map(str, shape)) + ")"


def format_delta(x: float | None) -> str:
    """A difference for a table: '' when absent, 0, inf, else three significant digits."""
    if x is None:
        return ""
    if math.isinf(x):
        return "inf"
    return "0" if x == 0 else f"{x:.2e}"


@dataclass(frozen=True)
class Comparison:
    """Every stage of two passes in forward order, with the tolerance they were judged by."""

    stages: tuple[StageComparison, ...]
    atol: float
    rtol: float
    _index: dict[str, int] = field(default_factory=dict, repr=False, compare=False)

    def __post_init__(self):
        self._index.update({s.name: i for i, s in enumerate(self.stages)})

    @property
    def first_divergent(self) -> StageComparison | None:
        """The first stage (forward order) with a cell over the tolerance, or None."""
        return next((s for s in self.stages if s.diverges), None)

    def of_status(self, status: str) -> list[StageComparison]:
        """The stages whose status is `status` (compared, only_a, only_b or shape)."""
        return [s for s in self.stages if s.status == status]

    @property
    def differs(self) -> bool:
        """A stage diverges or two stages of the same name differ in shape (stages in one
        pass only do not count: a capture may hold only some stages)."""
        return self.first_divergent is not None or bool(self.of_status(SHAPE))

    def __getitem__(self, name: str) -> StageComparison:
        return self.stages[self._index[name]]

    def __contains__(self, name: object) -> bool:
        return name in self._index

    def to_dict(self) -> dict:
        """JSON-friendly (`from_dict` reads it back): the tolerance, the first divergent stage and every row."""
        first = self.first_divergent
        return {"atol": self.atol, "rtol": self.rtol, "first_divergent": first.name if first else None,
                "stages": [s.to_dict() for s in self.stages]}

    @classmethod
    def from_dict(cls, data: dict) -> "Comparison":
        """`to_dict`'s dict read back (a comparison made elsewhere); KeyError, TypeError or ValueError when it
        is not one."""
        return cls(tuple(StageComparison.from_dict(s) for s in data["stages"]), float(data["atol"]),
                   float(data["rtol"]))


Getter = Callable[[Capture], "Tensor"]


def pass_entries(source: Any) -> tuple[list[Capture], Getter]:
    """(captures in forward order, how to get a capture's tensor) of a recording or a capture list."""
    if hasattr(source, "captures") and hasattr(source, "tensor"):
        return list(source.captures), source.tensor

    def held(capture: Capture) -> Tensor:
        if capture.tensor is None:
            raise ValueError(f"stage {capture.name} holds no tensor")
        return capture.tensor
    return list(source), held


def merged_order(a: Sequence[str], b: Sequence[str]) -> list[str]:
    """A's names in order, each name only in B placed after the stage before it in B."""
    order = list(a)
    where = {n: i for i, n in enumerate(order)}
    previous: str | None = None
    for name in b:
        if name not in where:
            at = where[previous] + 1 if previous is not None else 0
            order.insert(at, name)
            where = {n: i for i, n in enumerate(order)}
        previous = name
    return order


def _dtype_name(dtype: torch.dtype) -> str:
    return str(dtype).removeprefix("torch.")


def masked_cells(x: Tensor, kind: str) -> Tensor:
    """Cells a mask made: −∞ anywhere, and in a mask stage values ≤ finfo(dtype).min / 2."""
    import torch
    if not x.is_floating_point():
        return torch.zeros_like(x, dtype=torch.bool)
    masked = torch.isneginf(x)
    if kind == MASK_KIND:
        masked |= x <= torch.finfo(x.dtype).min / 2
    return masked


def _accumulator(device: torch.device) -> torch.dtype:
    import torch
    return torch.float32 if device.type == "mps" else torch.float64


@dataclass(frozen=True)
class _Cells:
    """Two tensors' cells classified: x, y widened; `both` finite in both; `masked` masked in both;
    `same` equal specials (masked, NaN or +∞ in both); `mismatched` special in one pass only."""

    x: Tensor
    y: Tensor
    both: Tensor
    masked: Tensor
    same: Tensor
    mismatched: Tensor


def _cells(a: Tensor, b: Tensor, kind: str) -> _Cells:
    import torch
    acc = _accumulator(a.device)
    b = b.to(a.device)
    ma, mb = masked_cells(a, kind), masked_cells(b, kind)
    x, y = a.to(acc), b.to(acc)
    both = torch.isfinite(x) & torch.isfinite(y) & ~ma & ~mb
    same = (ma & mb) | (torch.isnan(x) & torch.isnan(y)) | (torch.isposinf(x) & torch.isposinf(y))
    return _Cells(x, y, both, ma & mb, same, ~(both | same))


def difference(a: Tensor, b: Tensor, kind: str) -> Tensor:
    """A − B as float32 on A's device, for a diff heatmap: cells masked in both are −∞ (drawn as
    masked), other specials equal in both are 0, cells special in one pass only are NaN."""
    import torch
    c = _cells(a, b.reshape(a.shape), kind)
    out = torch.where(c.both, c.x - c.y, torch.full((), float("nan"), dtype=c.x.dtype, device=a.device))
    out = torch.where(c.same, torch.zeros((), dtype=c.x.dtype, device=a.device), out)
    return torch.where(c.masked, torch.full((), float("-inf"), dtype=c.x.dtype, device=a.device), out).float()


def _stage_sums(a: Tensor, b: Tensor, kind: str, atol: float, rtol: float) -> Tensor:
    """The packed scalars (see _MAX …) of one stage, computed on A's device in chunks; no read-back."""
    import torch
    acc = _accumulator(a.device)
    flat_a, flat_b = a.reshape(-1), b.to(a.device).reshape(-1)
    totals = torch.zeros(7, dtype=acc, device=a.device)
    for start in range(0, flat_a.numel(), _CHUNK):
        c = _cells(flat_a[start:start + _CHUNK], flat_b[start:start + _CHUNK], kind)
        x, both, mismatched = c.x, c.both, c.mismatched
        zero = torch.zeros((), dtype=acc, device=a.device)
        ref = torch.where(both, x, zero)
        delta = torch.where(both, x - c.y, zero).abs()
        over = (delta > atol + rtol * ref.abs()) | mismatched
        chunk = torch.stack([delta.max(), delta.sum(), (delta ** 2).sum(), (ref ** 2).sum(),
                             both.sum().to(acc), over.sum().to(acc), mismatched.sum().to(acc)])
        totals = torch.cat([torch.maximum(totals[:1], chunk[:1]), totals[1:] + chunk[1:]])
    return totals


def over_tolerance(a: Tensor, b: Tensor, kind: str, atol: float, rtol: float) -> Tensor:
    """Whether a cell of `b` is over the tolerance from reference `a` (the rule `compare` judges a stage
    by): a 0-d bool tensor on A's device, nothing read back (a live condition stacks it with others)."""
    return _stage_sums(a, b, kind, atol, rtol)[_OVER] > 0


def _relative(sq_diff: float, sq_ref: float) -> float:
    if sq_diff == 0:
        return 0.0
    return math.sqrt(sq_diff) / math.sqrt(sq_ref) if sq_ref > 0 else math.inf


def compare(a: Any, b: Any, atol: float = DEFAULT_ATOL, rtol: float = DEFAULT_RTOL) -> Comparison:
    """Compare pass `a` (the reference) with pass `b` stage by stage; see the module docstring.

    `a` and `b` are recordings (live, or snapshots read lazily: one stage at a time) or
    sequences of Captures holding tensors. Raises ValueError for a negative tolerance.
    """
    if not (atol >= 0 and rtol >= 0):
        raise ValueError("tolerances must be zero or positive")
    captures_a, tensor_a = pass_entries(a)
    captures_b, tensor_b = pass_entries(b)
    by_a = {c.name: c for c in captures_a}
    by_b = {c.name: c for c in captures_b}
    pending: list[tuple[int, Tensor, int]] = []  # (row, packed sums on the device, cells)
    rows: list[StageComparison] = []
    for name in merged_order(list(by_a), list(by_b)):
        ca, cb = by_a.get(name), by_b.get(name)
        shape_a, shape_b = (tuple(ca.shape) if ca else None), (tuple(cb.shape) if cb else None)
        row = StageComparison(name, COMPARED, shape_a, shape_b, _dtype_name(ca.dtype) if ca else None,
                              _dtype_name(cb.dtype) if cb else None)
        if ca is None or cb is None:
            row = replace(row, status=ONLY_B if ca is None else ONLY_A)
        elif shape_a != shape_b:
            row = replace(row, status=SHAPE)
        else:
            cells = math.prod(ca.shape)
            if cells:
                pending.append((len(rows), _stage_sums(tensor_a(ca), tensor_b(cb), ca.info.kind, atol, rtol), cells))
            row = replace(row, max_abs=0.0, mean_abs=0.0, rel_error=0.0, over_share=0.0, cells=cells)
        rows.append(row)
    _fill(rows, pending)
    return Comparison(tuple(rows), float(atol), float(rtol))


def _fill(rows: list[StageComparison], pending: list[tuple[int, Tensor, int]]) -> None:
    """Read every stage's sums back (one transfer per device) and fill in the numbers."""
    import torch
    by_device: dict[torch.device, list[tuple[int, Tensor, int]]] = {}
    for item in pending:
        by_device.setdefault(item[1].device, []).append(item)
    for items in by_device.values():
        values = torch.stack([t for _, t, _ in items]).cpu().double().tolist()
        for (i, _, cells), v in zip(items, values):
            mismatched = int(v[_MISMATCHED])
            rows[i] = replace(
                rows[i], max_abs=math.inf if mismatched else v[_MAX],
                mean_abs=v[_SUM] / v[_FINITE] if v[_FINITE] else 0.0,
                rel_error=_relative(v[_SQ_DIFF], v[_SQ_REF]), over_share=v[_OVER] / cells,
                mismatched=mismatched, diverges=v[_OVER] > 0)


