"""Breakpoints: by stage name, by kind, or on a condition evaluated where the tensor lives.

`BreakpointSet` keeps the user's breakpoints and the condition mode once: the window owns one
and hands that same set to every stepper it shows, which reads it at every check.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable, Iterator

from tfdebug.core.compare import over_tolerance
from tfdebug.core.stats import masked_as_neginf
from tfdebug.core.recorder import Capture
from tfdebug.core.stages import KINDS

if TYPE_CHECKING:  # torch loads when a function first needs it, not with the window
    from torch import Tensor


@dataclass(frozen=True)
class Breakpoint:
    """A place or condition to pause at.

    by="stage": `value` is a stage name; by="kind": a kind (every softmax, say);
    by="condition": `value` is "nan" (contains NaN), "inf" (±Inf outside masked
    cells), "abs_gt" (max |x| > `threshold`) or "diverges" (a cell is farther from the
    same stage of a reference pass than `threshold` (atol) + `rtol`·|reference|; the
    stepper's `reference` holds that pass).
    """

    by: str
    value: str
    threshold: float | None = None
    rtol: float | None = None

    @classmethod
    def on_stage(cls, name: str) -> "Breakpoint":
        """A breakpoint on the stage named `name`."""
        return cls("stage", name)

    @classmethod
    def on_kind(cls, kind: str) -> "Breakpoint":
        """A breakpoint on every stage of `kind`; ValueError for a kind that is not one of KINDS."""
        if kind not in KINDS:
            raise ValueError(f"unknown stage kind {kind!r}")
        return cls("kind", kind)

    @classmethod
    def on_nan(cls) -> "Breakpoint":
        """A breakpoint on any stage whose tensor contains a NaN."""
        return cls("condition", "nan")

    @classmethod
    def on_inf(cls) -> "Breakpoint":
        """A breakpoint on any stage whose tensor contains an infinity."""
        return cls("condition", "inf")

    @classmethod
    def on_abs_above(cls, threshold: float) -> "Breakpoint":
        """A breakpoint on any stage whose tensor has an absolute value above `threshold`."""
        return cls("condition", "abs_gt", float(threshold))

    @classmethod
    def on_divergence(cls, atol: float, rtol: float) -> "Breakpoint":
        """Stop where the pass leaves a reference pass's tolerance (core.compare's rule, the reference as A)."""
        if not (atol >= 0 and rtol >= 0):
            raise ValueError("tolerances must be zero or positive")
        return cls("condition", DIVERGES, float(atol), float(rtol))

    def describe(self) -> str:
        """The breakpoint in a few words, e.g. 'stage …', 'every …' or 'contains NaN'."""
        if self.by == "stage":
            return f"stage {self.value}"
        if self.by == "kind":
            return f"every {self.value}"
        if self.value == "nan":
            return "contains NaN"
        if self.value == "inf":
            return "contains ±Inf outside masked cells"
        if self.value == DIVERGES:
            return f"diverges from the reference pass (atol {self.threshold:g}, rtol {self.rtol:g})"
        return f"max |x| > {self.threshold:g}"  # only abs_gt has a threshold


DIVERGES = "diverges"
# Condition breakpoints: EXACT reads each stage's flags back before the forward goes on
# (one host sync per stage on a GPU); FAST reads them together when the pass next pauses
# or ends (one per forward) and moves the cursor back to the first hit (successors ran).
EXACT, FAST = "exact", "fast"
# The reference pass's tensor of a capture's stage (None where it has none): what "diverges" compares with.
ReferenceOf = Callable[[Capture], "Tensor | None"]


def conditions_of(breakpoints: frozenset[Breakpoint]) -> list[Breakpoint]:
    """The condition breakpoints, in a fixed order (flags are stacked in this order)."""
    return sorted((b for b in breakpoints if b.by == "condition"), key=lambda b: (b.value, b.threshold or 0.0))


def checkable(capture: Capture) -> bool:
    """Whether conditions apply to this capture (a floating-point tensor is at hand)."""
    return capture.tensor is not None and capture.tensor.is_floating_point()


def condition_flags(tensor: Tensor, kind: str, conditions: list[Breakpoint],
                    reference: Tensor | None = None) -> Tensor:
    """Every condition evaluated on the tensor's device into a bool vector; nothing is read back.

    `reference` is the reference pass's tensor of this stage ("diverges" is False without one,
    or when its shape differs)."""
    import torch
    original = tensor
    tensor = masked_as_neginf(tensor, kind)  # finfo.min-marked mask cells are masked, not huge values
    flags = []
    for bp in conditions:
        if bp.value == DIVERGES:
            if reference is None or tuple(reference.shape) != tuple(original.shape):
                flags.append(torch.zeros((), dtype=torch.bool, device=original.device))
            else:  # on the pass's device: the reference comes to it, never the other way
                assert bp.threshold is not None and bp.rtol is not None  # on_divergence sets both
                flags.append(over_tolerance(reference.to(original.device), original, kind, bp.threshold, bp.rtol))
        elif bp.value == "nan":
            flags.append(torch.isnan(tensor).any())
        elif bp.value == "inf":
            # In a mask stage −∞ marks the masked cells: only +∞ is a problem there.
            flags.append(torch.isposinf(tensor).any() if kind == "mask" else torch.isinf(tensor).any())
        elif tensor.numel():
            finite = torch.nan_to_num(tensor.abs(), nan=0.0, posinf=0.0, neginf=0.0)
            assert bp.threshold is not None  # on_abs_above sets it
            flags.append(finite.amax() > bp.threshold)
        else:
            flags.append(torch.zeros((), dtype=torch.bool, device=tensor.device))
    return torch.stack(flags)


def capture_flags(capture: Capture, conditions: list[Breakpoint], reference_of: ReferenceOf | None = None) -> Tensor:
    """`condition_flags` of a capture, with its stage's reference tensor when a condition compares with one."""
    wanted = reference_of is not None and any(bp.value == DIVERGES for bp in conditions)
    assert capture.tensor is not None  # a condition is checked on a stage that has its tensor
    reference = reference_of(capture) if reference_of is not None and wanted else None
    return condition_flags(capture.tensor, capture.info.kind, conditions, reference)


def place_hit(breakpoints: frozenset[Breakpoint], capture: Capture) -> Breakpoint | None:
    """The stage or kind breakpoint at this capture (decided from its name alone: no sync)."""
    info = capture.info
    for bp in sorted(breakpoints, key=lambda b: (b.by, b.value)):
        if (bp.by == "stage" and bp.value == info.name) or (bp.by == "kind" and bp.value == info.kind):
            return bp
    return None


def first_condition_hit(flagged: list[tuple[int, Tensor]], conditions: list[Breakpoint]
                        ) -> tuple[int, Breakpoint] | None:
    """The first (index, condition) whose flag is set, from flags computed stage by stage.

    All flags are read back together: one host sync however many stages they cover.
    """
    import torch
    if not flagged or not conditions:
        return None
    device = flagged[0][1].device
    rows = torch.stack([flags if flags.device == device else flags.to(device) for _, flags in flagged]).tolist()
    for (index, _), row in zip(flagged, rows):
        for bp, hit in zip(conditions, row):
            if hit:
                return index, bp
    return None


def first_hit(breakpoints: frozenset[Breakpoint], capture: Capture,
              reference_of: ReferenceOf | None = None) -> Breakpoint | None:
    """The breakpoint that stops at this capture, or None (conditions cost one sync)."""
    bp = place_hit(breakpoints, capture)
    if bp is not None:
        return bp
    conditions = conditions_of(breakpoints)
    if conditions and checkable(capture):
        hit = first_condition_hit([(0, capture_flags(capture, conditions, reference_of))], conditions)
        return hit[1] if hit else None
    return None


class BreakpointSet:
    """The breakpoints and the condition mode, kept in one place and shared by every stepper handed it.

    Thread-safe: changes (from the window's thread) take a lock and swap in a new frozenset; a check
    (on the forward's thread) reads `items` once and has a whole set, never one half-changed. A stage
    breakpoint on a stage the model on screen lacks stays in the set and never matches there.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._items: frozenset[Breakpoint] = frozenset()
        self._mode = EXACT

    @property
    def items(self) -> frozenset[Breakpoint]:
        """Every breakpoint, as one frozenset (what a check reads)."""
        return self._items

    @property
    def mode(self) -> str:
        """How condition breakpoints are checked: EXACT or FAST."""
        return self._mode

    def __contains__(self, bp: object) -> bool:
        return bp in self._items

    def __iter__(self) -> Iterator[Breakpoint]:
        return iter(self._items)

    def __len__(self) -> int:
        return len(self._items)

    def add(self, bp: Breakpoint) -> None:
        """Add `bp` (already there: nothing changes)."""
        with self._lock:
            self._items = self._items | {bp}

    def remove(self, bp: Breakpoint) -> None:
        """Remove `bp` (not there: nothing changes)."""
        with self._lock:
            self._items = self._items - {bp}

    def clear(self) -> None:
        """Remove every breakpoint (the mode stays)."""
        with self._lock:
            self._items = frozenset()

    def set_mode(self, mode: str) -> None:
        """EXACT (pause at the stage, one sync per stage) or FAST (one sync per forward)."""
        if mode not in (EXACT, FAST):
            raise ValueError(f"condition mode must be {EXACT!r} or {FAST!r}, not {mode!r}")
        self._mode = mode
