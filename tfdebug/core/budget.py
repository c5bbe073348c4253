"""Capture budget: the bytes a pass's capture will hold, known from its plan before it runs, and which stages it keeps.

A real model's capture is big (a 2,048-token, 32-head, 32-layer pass holds ~64 GB of
attention matrices alone). The plan of a pass carries every stage's shape and dtype,
so the size of its capture is known before the pass runs. When not everything fits,
a `KeepPolicy` chooses what stays, by what the user looks at:

- `near` (`KeepPolicy()`): the stages nearest the focus: a named stage (where the user is
  going, or was looking in the last pass), or, without one, the stage the pass is at, so
  the history is a sliding window behind the live stage. Stages farther away are let go
  to make room for nearer ones.
- `pinned` kinds are kept before anything else in every layer (`("softmax",)`: every
  layer's attention probabilities), whatever the focus.
- `first` (`FIRST_FIT`, what a budget does unless given a policy): forward order while
  the stages fit, the old rule; it drops everything after the first layers of a big
  model, which is rarely what a debugger wants.

A stage left out loses its tensor once the pass has moved past it: while the pass is
paused at it, it is still shown (it is on the device). Why each stage was left out is
data (`reasons`: too large, farther from the focus, let go later for a nearer one, …)
for the Stages tree to say.

Sizes count each stage's own elements, so stages that are views of one another (head
splits of a projection) are counted twice: what a capture really holds is at most the
estimate.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Callable, Iterable, Sequence

import torch

from tfdebug.core.phrases import Phrase
from tfdebug.core.recorder import Capture, matches

MB = 1_000_000
# The share of free memory a capture may take by default (the rest is the model's and everyone else's) …
DEFAULT_FREE_SHARE = 0.5
# … and the share of the machine's RAM the whole process stays under (model, capture and all) on the CPU.
DEFAULT_RAM_SHARE = 0.4

FIRST, NEAR = "first", "near"
# Why a stage was left out (keys of CaptureBudget.reasons).
TOO_LARGE = "too_large"   # the stage alone is larger than the budget
FULL = "full"             # first fit: the budget was full when the stage ran
FARTHER = "farther"       # near: stages nearer the focus (or pinned kinds) hold the room
EVICTED = "evicted"       # near: kept at first, let go later for a stage nearer the focus
PINNED_FULL = "pinned_full"  # a pinned kind, but the pinned stages before it fill the budget


@dataclass(frozen=True)
class KeepPolicy:
    """Which stages a capture budget keeps when not all fit: see the module docstring."""

    mode: str = NEAR
    focus: str | None = None
    pinned: tuple[str, ...] = ()

    def __post_init__(self):
        if self.mode not in (FIRST, NEAR):
            raise ValueError(f"keep policy mode must be {FIRST!r} or {NEAR!r}")

    def describe(self) -> str:
        """'nearest dec.3.self_attn.probs, every softmax kept' (for the budget's summary line)."""
        where = "in forward order" if self.mode == FIRST else f"nearest {self.focus or 'the current stage'}"
        return where + (f", every {', '.join(self.pinned)} kept" if self.pinned else "")


FIRST_FIT = KeepPolicy(FIRST)  # what a budget does unless told: the rule before policies existed


def drop_reason(code: str, limit: int | None) -> Phrase:
    """The sentence the Stages tree shows for a stage left out with reason `code`."""
    size = format_bytes(limit or 0)
    if code == TOO_LARGE:
        return Phrase("Not kept: this stage alone is larger than the {size} capture budget (pause here to see it).",
                      id="budget.why_too_large", size=size)
    if code == FULL:
        return Phrase("Not kept: the {size} capture budget was full when this stage ran.", id="budget.why_full",
                      size=size)
    if code == FARTHER:
        return Phrase("Not kept: stages nearer the one you look at fill the {size} capture budget.",
                      id="budget.why_farther", size=size)
    if code == EVICTED:
        return Phrase("Let go: kept at first, then its room in the {size} capture budget went to a stage nearer the "
                      "one you look at.", id="budget.why_evicted", size=size)
    return Phrase("Not kept: the pinned stages before it fill the {size} capture budget.",
                  id="budget.why_pinned_full", size=size)


@dataclass
class CaptureBudget:
    """Admits the captures of a pass, in forward order, within `limit` bytes (None: everything fits).

    The pass's thread admits; any thread may read `dropped`, `kept` and `reasons` (copied first).

    `order` is the pass's stage names in forward order (the filtered plan): a stage's place
    in it is its distance to the focus; stages outside it (a generation's step-prefixed
    names) are placed by arrival. `release` lets an admitted capture go when a nearer one
    needs its room (Capture.drop; an estimate over a plan releases nothing).
    """

    limit: int | None = None
    policy: KeepPolicy = FIRST_FIT
    order: Sequence[str] | None = None
    release: Callable[[Capture], None] = Capture.drop
    held: int = 0
    reasons: dict[str, str] = field(default_factory=dict)
    _kept: dict[int, tuple[Capture, int]] = field(default_factory=dict, repr=False)  # by arrival: (capture, position)
    _where: dict[str, int] = field(default_factory=dict, repr=False)
    _arrived: int = field(default=0, repr=False)

    def __post_init__(self):
        self._index = {name: i for i, name in enumerate(self.order or ())}

    @property
    def dropped(self) -> list[str]:
        """Names of the stages left out so far, in forward order."""
        return sorted(dict(self.reasons), key=self._where.__getitem__)  # a copy: the pass may be adding to it

    @property
    def kept(self) -> list[str]:
        """Names of the stages held now, in forward order."""
        return [capture.name for capture, _ in sorted(list(self._kept.values()), key=lambda kept: kept[1])]

    def admit(self, capture: Capture) -> bool:
        """Whether `capture` stays in the history (it is counted then); may let farther ones go to make room."""
        arrival, position = self._arrived, self._index.get(capture.name, self._arrived)
        self._arrived += 1
        self._where[capture.name] = position
        size = capture.nbytes
        if self.limit is None or self.held + size <= self.limit:
            return self._keep(capture, position, arrival)
        if size > self.limit:
            return self._refuse(capture, TOO_LARGE)
        focus = self._index.get(self.policy.focus, position) if self.policy.focus else position
        rank = self._rank(capture, position, focus)
        victims = sorted((self._rank(c, p, focus), key) for key, (c, p) in self._kept.items()
                         if self._rank(c, p, focus) < rank)
        room = self.limit - self.held
        chosen = []
        for _, key in victims:
            if room >= size:
                break
            chosen.append(key)
            room += self._kept[key][0].nbytes
        if room < size:
            pinned = capture.info.kind in self.policy.pinned
            return self._refuse(capture, PINNED_FULL if pinned else FULL if self.policy.mode == FIRST else FARTHER)
        for key in chosen:
            evicted, _ = self._kept.pop(key)
            self.held -= evicted.nbytes
            self.reasons[evicted.name] = EVICTED
            self.release(evicted)
        return self._keep(capture, position, arrival)

    def _rank(self, capture: Capture, position: int, focus: int) -> tuple[bool, int]:
        """Higher is kept first: pinned kinds, then nearness to the focus (first fit: earlier stages)."""
        closeness = -position if self.policy.mode == FIRST else -abs(position - focus)
        return capture.info.kind in self.policy.pinned, closeness

    def _keep(self, capture: Capture, position: int, arrival: int) -> bool:
        self.held += capture.nbytes
        self._kept[arrival] = (capture, position)
        self.reasons.pop(capture.name, None)
        return True

    def _refuse(self, capture: Capture, reason: str) -> bool:
        self.reasons[capture.name] = reason
        return False

    def keep_or_drop(self, capture: Capture) -> None:
        """Admit `capture`, or let its tensor go now (a pass that does not pause)."""
        if not self.admit(capture):
            capture.drop()


@dataclass(frozen=True)
class CaptureEstimate:
    """What a pass's capture will hold: all of it (`total_bytes`), what a budget keeps and drops, and why."""

    total_bytes: int
    kept_bytes: int
    kept: tuple[str, ...]
    dropped: tuple[str, ...]
    limit: int | None
    reasons: dict[str, str] = field(default_factory=dict)
    policy: KeepPolicy = FIRST_FIT

    def describe(self) -> str:
        """One line: 'capture 83.9 MB in 120 stages; the 50.0 MB budget keeps 70 (49.8 MB) and drops 50, from …'."""
        line = f"capture {format_bytes(self.total_bytes)} in {len(self.kept) + len(self.dropped)} stages"
        if self.limit is None:
            return line
        if not self.dropped:
            return f"{line}, within the {format_bytes(self.limit)} budget"
        where = (f"from {self.dropped[0]}" if self.policy == FIRST_FIT
                 else f"keeping those {self.policy.describe()}")
        return (f"{line}; the {format_bytes(self.limit)} budget keeps {len(self.kept)} "
                f"({format_bytes(self.kept_bytes)}) and drops {len(self.dropped)}, {where}")

    def why(self, name: str) -> Phrase | None:
        """Why stage `name` will not be kept (None when it will be, or is not in the pass)."""
        code = self.reasons.get(name)
        return None if code is None else drop_reason(code, self.limit)


def format_bytes(n: int) -> str:
    """'83.9 MB', '12.3 kB', '2.1 GB' (decimal units, as --max-capture-mb takes)."""
    for unit, size in (("GB", 1e9), ("MB", 1e6), ("kB", 1e3)):
        if n >= size:
            return f"{n / size:.1f} {unit}"
    return f"{n} B"


def estimate_capture(plan: Iterable[Capture], stages: Sequence[str] | None = None,
                     limit: int | None = None, policy: KeepPolicy = FIRST_FIT) -> CaptureEstimate:
    """The capture of a pass with this plan, filtered by `stages` (glob patterns), under `limit` bytes,
    kept by `policy`: the same choice the pass will make (the budget runs over the plan)."""
    planned = [c for c in plan if matches(c.name, stages)]
    budget = CaptureBudget(limit, policy, order=[c.name for c in planned], release=lambda capture: None)
    for capture in planned:
        budget.admit(capture)
    return CaptureEstimate(sum(c.nbytes for c in planned), budget.held, tuple(budget.kept), tuple(budget.dropped),
                           limit, dict(budget.reasons), policy)


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


def total_memory() -> int | None:
    """Bytes of RAM this machine has (MemTotal on Linux), None when unknown."""
    try:
        return os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, AttributeError):
        return None


def resident_memory() -> int | None:
    """Bytes this process holds in RAM now (its resident set), None when unknown."""
    try:
        with open("/proc/self/statm", encoding="ascii") as statm:
            return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError, AttributeError):
        return None


def default_capture_budget(device: torch.device, share: float = DEFAULT_FREE_SHARE,
                           ram_share: float = DEFAULT_RAM_SHARE) -> int | None:
    """The window's budget: `share` of the memory free on `device`; on the CPU also no more than keeps
    the whole process under `ram_share` of the machine's RAM (model included). None when unknown."""
    free = free_memory(device)
    if free is None:
        return None
    budget = int(free * share)
    total, resident = total_memory(), resident_memory()
    if device.type == "cpu" and total is not None and resident is not None:
        budget = min(budget, max(0, int(total * ram_share) - resident))
    return budget
