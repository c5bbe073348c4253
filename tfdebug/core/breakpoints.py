"""Breakpoints: by stage name, by kind, or on a condition evaluated where the tensor lives."""

from __future__ import annotations

from dataclasses import dataclass

import torch
from torch import Tensor

from tfdebug.core.recorder import Capture
from tfdebug.core.stages import KINDS

CONDITIONS = ("nan", "inf", "abs_gt")


@dataclass(frozen=True)
class Breakpoint:
    """A place or condition to pause at.

    by="stage": `value` is a stage name; by="kind": a kind (every softmax, say);
    by="condition": `value` is "nan" (contains NaN), "inf" (±Inf outside masked
    cells) or "abs_gt" (max |x| > `threshold`).
    """

    by: str
    value: str
    threshold: float | None = None

    @classmethod
    def on_stage(cls, name: str) -> "Breakpoint":
        return cls("stage", name)

    @classmethod
    def on_kind(cls, kind: str) -> "Breakpoint":
        if kind not in KINDS:
            raise ValueError(f"unknown stage kind {kind!r}")
        return cls("kind", kind)

    @classmethod
    def on_nan(cls) -> "Breakpoint":
        return cls("condition", "nan")

    @classmethod
    def on_inf(cls) -> "Breakpoint":
        return cls("condition", "inf")

    @classmethod
    def on_abs_above(cls, threshold: float) -> "Breakpoint":
        return cls("condition", "abs_gt", float(threshold))

    def describe(self) -> str:
        if self.by == "stage":
            return f"stage {self.value}"
        if self.by == "kind":
            return f"every {self.value}"
        return {"nan": "contains NaN", "inf": "contains ±Inf outside masked cells"}.get(
            self.value, f"max |x| > {self.threshold:g}")


def _condition_flags(tensor: Tensor, kind: str, conditions: list[Breakpoint]) -> list[bool]:
    """Evaluate every condition on the tensor's device; one read back to the host."""
    flags = []
    for bp in conditions:
        if bp.value == "nan":
            flags.append(torch.isnan(tensor).any())
        elif bp.value == "inf":
            # In a mask stage −∞ marks the masked cells: only +∞ is a problem there.
            flags.append(torch.isposinf(tensor).any() if kind == "mask" else torch.isinf(tensor).any())
        else:
            finite = torch.nan_to_num(tensor.abs(), nan=0.0, posinf=0.0, neginf=0.0)
            flags.append(finite.amax() > bp.threshold if tensor.numel() else torch.tensor(False))
    return torch.stack([f.to(tensor.device) for f in flags]).tolist()


def first_hit(breakpoints: frozenset[Breakpoint], capture: Capture) -> Breakpoint | None:
    """The breakpoint that stops at this capture, or None."""
    info = capture.info
    conditions = []
    for bp in sorted(breakpoints, key=lambda b: (b.by, b.value)):
        if bp.by == "stage" and bp.value == info.name:
            return bp
        if bp.by == "kind" and bp.value == info.kind:
            return bp
        if bp.by == "condition":
            conditions.append(bp)
    if conditions and capture.tensor is not None and capture.tensor.is_floating_point():
        for bp, flag in zip(conditions, _condition_flags(capture.tensor, info.kind, conditions)):
            if flag:
                return bp
    return None
