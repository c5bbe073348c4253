"""Capture budget: the bytes a pass's capture will hold, known from its plan before it runs.

A real model's capture is big (a 2,048-token, 32-head, 32-layer pass holds ~64 GB of
attention matrices alone). The plan of a pass carries every stage's shape and dtype,
so the size of its capture is known before the pass runs. Under a budget the stages
are kept in forward order while they fit (first fit: a later, smaller stage may still
fit after a big one did not); the others are dropped from the history once the pass
has moved past them, so while the pass is paused at one it is still shown.

Sizes count each stage's own elements, so stages that are views of one another (head
splits of a projection) are counted twice: what a capture really holds is at most the
estimate.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Iterable, Sequence

import torch

from tfdebug.core.recorder import Capture, matches

MB = 1_000_000
# The share of free memory a capture may take by default (the rest is the model's and everyone else's).
DEFAULT_FREE_SHARE = 0.5


@dataclass
class CaptureBudget:
    """Admits captures in forward order while their bytes fit `limit` (None: everything fits)."""

    limit: int | None = None
    held: int = 0
    dropped: list[str] = field(default_factory=list)

    def admit(self, capture: Capture) -> bool:
        """Whether `capture` stays in the history; counts it when it does, notes its name when not."""
        if self.limit is None or self.held + capture.nbytes <= self.limit:
            self.held += capture.nbytes
            return True
        self.dropped.append(capture.name)
        return False

    def keep_or_drop(self, capture: Capture) -> None:
        """Admit `capture`, or let its tensor go now (a pass that does not pause)."""
        if not self.admit(capture):
            capture.drop()


@dataclass(frozen=True)
class CaptureEstimate:
    """What a pass's capture will hold: all of it (`total_bytes`), and what a budget keeps and drops."""

    total_bytes: int
    kept_bytes: int
    kept: tuple[str, ...]
    dropped: tuple[str, ...]
    limit: int | None

    def describe(self) -> str:
        """One line: 'capture 83.9 MB in 120 stages; the 50.0 MB budget keeps 70 (49.8 MB) and drops 50'."""
        line = f"capture {format_bytes(self.total_bytes)} in {len(self.kept) + len(self.dropped)} stages"
        if self.limit is None:
            return line
        if not self.dropped:
            return f"{line}, within the {format_bytes(self.limit)} budget"
        return (f"{line}; the {format_bytes(self.limit)} budget keeps {len(self.kept)} "
                f"({format_bytes(self.kept_bytes)}) and drops {len(self.dropped)}, from {self.dropped[0]}")


def format_bytes(n: int) -> str:
    """'83.9 MB', '12.3 kB', '2.1 GB' (decimal units, as --max-capture-mb takes)."""
    for unit, size in (("GB", 1e9), ("MB", 1e6), ("kB", 1e3)):
        if n >= size:
            return f"{n / size:.1f} {unit}"
    return f"{n} B"


def estimate_capture(plan: Iterable[Capture], stages: Sequence[str] | None = None,
                     limit: int | None = None) -> CaptureEstimate:
    """The capture of a pass with this plan, filtered by `stages` (glob patterns), under `limit` bytes."""
    budget = CaptureBudget(limit)
    total, kept = 0, []
    for capture in plan:
        if not matches(capture.name, stages):
            continue
        total += capture.nbytes
        if budget.admit(capture):
            kept.append(capture.name)
    return CaptureEstimate(total, budget.held, tuple(kept), tuple(budget.dropped), limit)


def megabytes(mb: float | None) -> int | None:
    """A budget given in MB (None: no budget) as bytes."""
    return None if mb is None else int(mb * MB)


def free_memory(device: torch.device) -> int | None:
    """Bytes free on `device` now (CUDA: the driver's count; CPU: MemAvailable on Linux), None when unknown."""
    if device.type == "cuda":
        free, _total = torch.cuda.mem_get_info(device)
        return int(free)
    if device.type == "cpu":
        try:
            with open("/proc/meminfo", encoding="ascii") as meminfo:
                for line in meminfo:
                    if line.startswith("MemAvailable:"):
                        return int(line.split()[1]) * 1024
        except (OSError, ValueError, IndexError):
            pass
        try:
            return os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
        except (OSError, ValueError, AttributeError):
            return None
    return None


def default_capture_budget(device: torch.device, share: float = DEFAULT_FREE_SHARE) -> int | None:
    """A sensible budget for the window: `share` of the memory free on `device` (None when unknown)."""
    free = free_memory(device)
    return None if free is None else int(free * share)
