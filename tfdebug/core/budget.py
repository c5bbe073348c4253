"""Capture budget: the bytes a pass's capture will hold, known from its plan before it runs, and which stages it keeps.

A real model's capture is big (a 2,048-token, 32-head, 32-layer pass holds ~64 GB of
attention matrices alone). The plan of a pass carries every stage's shape and dtype,
so the size of its capture is known before the pass runs. When not everything fits,
a `KeepPolicy` chooses what stays, by what the user looks at:

- `near` (`KeepPolicy()`): the stages nearest the focus: a named stage (where the user is
  going, or was looking in the last pass), or, without one, the stage the pass is at, so
  the history is a sliding window behind the live stage; and the stage the user looks at,
  when one is given to `admit` (the Stepper gives the earlier stage on screen when the
  user stepped back and then ran on), so both neighbourhoods stay. Stages farther away are let go to make room for nearer ones.
- `pinned` kinds are kept before anything else in every layer (`("softmax",)`: every
  layer's attention probabilities), whatever the focus; with a `pin_share` only while
  the pinned stages held fit in that share of the budget (the rest stays for the stages
  near the focus: a long prompt's attention cannot crowd out everything else). When the
  pinned stages do not all fit, a later kind in the forward (`stages.KINDS` order) holds
  its room before an earlier one, in every layer: a later step is made from the earlier
  ones and carries what is looked at, as the attention planes are computed from q and k
  after their rotation, so a 32k-token pass keeps every layer's rotated q and k (and so
  every layer's attention) and lets the splits before the rotation go.
- `first` (`FIRST_FIT`, what a budget does unless given a policy): forward order while
  the stages fit, the old rule; it drops everything after the first layers of a big
  model, which is rarely what a debugger wants.

A stage left out loses its tensor once the pass has moved past it: while the pass is
paused at it, it is still shown (it is on the device). Why each stage was left out is
data (`reasons`: too large, farther from the focus, let go later for a nearer one, …)
for the Stages tree to say.

Sizes count each stage's own elements, so stages that are views of one another (head
splits of a projection) are counted twice: what a capture really holds is at most the
estimate. A generation's K/V cache stages (kind `kv_cache`, unless pinned) count the buffer under them once
(`core.shared_storage`; such stages only occur in a generation, which has no estimate).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Callable, Iterable, Sequence

from tfdebug.core.phrases import Phrase
from tfdebug.core.recorder import Capture, matches
from tfdebug.core.shared_storage import Storage, StorageLedger, storage_under
from tfdebug.core.stages import KINDS

if TYPE_CHECKING:  # torch loads when a function first needs it, not with the window
    import torch

MB = 1_000_000
# The share of free memory a capture may take by default (the rest is the model's and everyone else's) …
DEFAULT_FREE_SHARE = 0.5
# … and the share of the machine's RAM the whole process stays under (model, capture and all) on the CPU.
DEFAULT_RAM_SHARE = 0.4

FIRST, NEAR = "first", "near"
# The kind whose stages a budget counts by the storage under them (see the module docstring).
SHARED_KIND = "kv_cache"
# What a far stage's distance was counted from (CaptureBudget.distances): the user's stage or focus, or the pass's.
USER_ANCHOR, PASS_ANCHOR = "user", "pass"
# Why a stage was left out (keys of CaptureBudget.reasons).
TOO_LARGE = "too_large"   # the stage alone is larger than the budget
FULL = "full"             # first fit: the budget was full when the stage ran
FARTHER = "farther"       # near: stages nearer the focus (or pinned kinds) hold the room
EVICTED = "evicted"       # near: kept at first, let go later for a stage nearer the focus
PINNED_FULL = "pinned_full"  # a pinned kind, but the pinned stages before it fill the budget
PINNED_SHARE = "pinned_share"  # a pinned kind, but the pinned stages before it fill the policy's pin_share
LATER_KIND = "later_kind"  # a pinned kind, let go for a stage of a later pinned kind (KeepPolicy: precedence)


@dataclass(frozen=True)
class KeepPolicy:
    """Which stages a capture budget keeps when not all fit: see the module docstring."""

    mode: str = NEAR
    focus: str | None = None
    pinned: tuple[str, ...] = ()
    pin_share: float | None = None  # pinned kinds come first only within this share of the budget (None: all)

    def __post_init__(self):
        if self.mode not in (FIRST, NEAR):
            raise ValueError(f"keep policy mode must be {FIRST!r} or {NEAR!r}")
        if self.pin_share is not None and not 0 <= self.pin_share <= 1:
            raise ValueError("keep policy pin_share must be between 0 and 1")

    def describe(self) -> str:
        """'nearest dec.3.self_attn.probs, every softmax kept' (for the budget's summary line)."""
        where = "in forward order" if self.mode == FIRST else f"nearest {self.focus or 'the current stage'}"
        share = f" within {self.pin_share:.0%} of the budget" if self.pin_share is not None else ""
        return where + (f", every {', '.join(self.pinned)} kept{share}" if self.pinned else "")


FIRST_FIT = KeepPolicy(FIRST)  # what a budget does unless told: the rule before policies existed
# Every layer's attention: the tokens² planes (recipes, which hold nothing of their own) and the q and k
# they are computed from (head splits, rotated), so each layer's attention can be looked at after the pass.
ATTENTION_KINDS = ("head_split", "rotary", "scores", "scale", "position_bias", "softcap", "mask", "softmax")


def drop_reason(code: str, limit: int | None, far: tuple[int, str, str] | None = None) -> Phrase:
    """The sentence the Stages tree shows for a stage left out with reason `code`; `far` is how far it
    was from what the budget kept near, when it was let go (CaptureBudget.distances)."""
    size = format_bytes(limit or 0)
    if far is not None and code in (FARTHER, EVICTED):
        distance, stage, anchor = far
        if anchor == PASS_ANCHOR:
            return Phrase("Not kept: {distance} stages behind {stage}, where the pass was, when the {size} capture "
                          "budget needed room for a nearer stage.", id="budget.why_behind_pass",
                          distance=distance, stage=stage, size=size)
        return Phrase("Not kept: {distance} stages from {stage}, where you were looking, when the {size} capture "
                      "budget needed room for a nearer stage.", id="budget.why_far_from_you",
                      distance=distance, stage=stage, size=size)
    if code == TOO_LARGE:
        return Phrase("Not kept: this stage alone is larger than the {size} capture budget (pause here to see it).",
                      id="budget.why_too_large", size=size)
    if code == FULL:
        return Phrase("Not kept: the {size} capture budget was full when this stage ran.", id="budget.why_full",
                      size=size)
    if code == FARTHER:  # no distance recorded for it
        return Phrase("Not kept: stages nearer the one you look at fill the {size} capture budget.",
                      id="budget.why_farther", size=size)
    if code == EVICTED:
        return Phrase("Let go: kept at first, then its room in the {size} capture budget went to a stage nearer the "
                      "one you look at.", id="budget.why_evicted", size=size)
    if code == LATER_KIND:
        return Phrase("Let go: its room in the {size} capture budget went to a later step of the kinds you keep (in "
                      "every layer q and k after their rotation, which the attention planes are computed from, come "
                      "before their splits).", id="budget.why_later_kind", size=size)
    if code == PINNED_SHARE:
        return Phrase("Not kept: the kinds you keep may take only part of the {size} capture budget, and the "
                      "stages of those kinds before it hold that part.", id="budget.why_pinned_share", size=size)
    return Phrase("Not kept: the pinned stages before it fill the {size} capture budget.",
                  id="budget.why_pinned_full", size=size)


@dataclass
class CaptureBudget:
    """Admits the captures of a pass, in forward order, within `limit` bytes (None: everything fits).

    The pass's thread admits; any thread may read `dropped`, `kept`, `reasons` and `distances`
    (copied first).

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
    #: stages let go for nearer ones: (distance, the stage it was counted from, USER_ANCHOR or PASS_ANCHOR)
    distances: dict[str, tuple[int, str, str]] = field(default_factory=dict)
    _kept: dict[int, tuple[Capture, int, bool]] = field(default_factory=dict, repr=False)  # by arrival
    _where: dict[str, int] = field(default_factory=dict, repr=False)
    _arrived: int = field(default=0, repr=False)
    _pinned_held: int = field(default=0, repr=False)
    #: the storages under kept K/V cache stages (`SHARED_KIND`), by the kept arrivals holding them
    _shared: StorageLedger = field(default_factory=StorageLedger, repr=False)

    def __post_init__(self):
        self._index = {name: i for i, name in enumerate(self.order or ())}

    @property
    def dropped(self) -> list[str]:
        """Names of the stages left out so far, in forward order."""
        return sorted(dict(self.reasons), key=self._where.__getitem__)  # a copy: the pass may be adding to it

    @property
    def kept(self) -> list[str]:
        """Names of the stages held now, in forward order."""
        return [capture.name for capture, _, _ in sorted(list(self._kept.values()), key=lambda kept: kept[1])]

    def admit(self, capture: Capture, at: str | None = None) -> bool:
        """Whether `capture` stays in the history (it is counted then); may let farther ones go to make room.

        `at`: the stage the user is at (already admitted or not); a near policy without a named focus
        keeps the stages nearest it as well as those nearest the stage the pass is at."""
        name = capture.name
        arrival = self._arrived
        position = self._index.get(name, arrival)
        self._arrived = arrival + 1
        self._where[name] = position
        storage = self._shared_storage(capture)
        size = capture.held_nbytes if storage is None else self._shared.cost(storage)
        pinned = self._of_pinned_kind(capture) and self._within_share(capture, size)
        if self.limit is None or self.held + size <= self.limit:
            return self._keep(capture, position, arrival, pinned, size, storage)
        if size > self.limit:
            return self._refuse(capture, TOO_LARGE)
        anchors = self._anchors(name, position, at)
        rank = self._rank(capture, pinned, position, anchors)
        shares = storage[0] if storage is not None else -1  # its holders free nothing while this one holds it
        victims = sorted((self._rank(c, pin, p, anchors), key) for key, (c, p, pin) in self._kept.items()
                         if self._rank(c, pin, p, anchors) < rank and self._shared.of(key) != shares)
        room = self.limit - self.held
        chosen: list[int] = []
        leaving: dict[int, int] = {}  # storage → how many of its holders are chosen
        for _, key in victims:
            if room >= size:
                break
            chosen.append(key)
            room += self._freed(key, leaving)
        if room < size:
            return self._refuse(capture, self._refusal(capture, pinned, rank), self._far(position, anchors))
        # a holder of a storage whose other holders stay frees nothing: it stays too
        chosen = [key for key in chosen if self._shared.frees(key, leaving)]
        for key in chosen:
            evicted, where, pin = self._kept.pop(key)
            freed = self._shared.let_go(key)
            freed = evicted.held_nbytes if freed is None else freed
            self.held -= freed
            self._pinned_held -= freed if pin else 0
            reason = (LATER_KIND if pin and self._tier(evicted) < rank[0] else
                      PINNED_SHARE if self._of_pinned_kind(evicted) and not pin else EVICTED)
            self._refuse(evicted, reason, self._far(where, anchors))
            self.release(evicted)
        return self._keep(capture, position, arrival, pinned, size, storage)

    def _shared_storage(self, capture: Capture) -> Storage | None:
        """The storage under a K/V cache stage counted by storage; None for any other."""
        tensor = capture.tensor
        if capture.info.kind != SHARED_KIND or tensor is None or capture.recipe or SHARED_KIND in self.policy.pinned:
            return None
        return storage_under(tensor)

    def _freed(self, key: int, leaving: dict[int, int]) -> int:
        """Bytes letting the kept arrival `key` go frees, with the holders counted in `leaving` going too (a
        storage under cache stages frees only when its last holder goes)."""
        freed = self._shared.freed(key, leaving)
        return self._kept[key][0].held_nbytes if freed is None else freed

    def _anchors(self, name: str, position: int, at: str | None) -> list[tuple[int, str, str]]:
        """What nearness is counted from: (position, stage, USER_ANCHOR or PASS_ANCHOR); none in forward order."""
        if self.policy.mode == FIRST:
            return []
        focus = self.policy.focus
        if focus:
            return [(self._index.get(focus, position), focus, USER_ANCHOR)]
        anchors = [(position, name, USER_ANCHOR if at == name else PASS_ANCHOR)]
        if at is not None and at != name and at in self._where:
            anchors.append((self._where[at], at, USER_ANCHOR))
        return anchors

    def _rank(self, capture: Capture, pinned: bool, position: int, anchors) -> tuple[int, int]:
        """Higher is kept first: pinned kinds (a later kind before an earlier one), then nearness to the anchors
        (forward order: earlier stages)."""
        closeness = -min(abs(position - p) for p, _, _ in anchors) if anchors else -position
        return self._tier(capture) if pinned else 0, closeness

    @staticmethod
    def _tier(capture: Capture) -> int:
        """A pinned stage's precedence: its kind's place in the forward's vocabulary, from 1 (an unknown kind: 1)."""
        kind = capture.info.kind
        return 1 + (KINDS.index(kind) if kind in KINDS else 0)

    def _within_share(self, capture: Capture, size: int) -> bool:
        """Whether a stage of a pinned kind is pinned: it fits the policy's `pin_share` of the budget, counting as
        no longer pinned the stages of earlier kinds held there, where that makes the room (they stay kept, by
        nearness, and are the first to go when the budget is full)."""
        share = self.policy.pin_share
        if share is None or self.limit is None:
            return True
        room = share * self.limit - self._pinned_held
        if size <= room:
            return True
        tier = self._tier(capture)
        lower = sorted((self._tier(c), p, key) for key, (c, p, pin) in self._kept.items()
                       if pin and self._tier(c) < tier)
        chosen = []
        for _, _, key in lower:
            if size <= room:
                break
            chosen.append(key)
            room += self._kept[key][0].held_nbytes
        if size > room:
            return False
        for key in chosen:
            kept, where, _ = self._kept[key]
            self._kept[key] = (kept, where, False)
            self._pinned_held -= kept.held_nbytes
        return True

    @staticmethod
    def _far(position: int, anchors) -> tuple[int, str, str] | None:
        """How far `position` is from the nearest anchor, and which (None in forward order)."""
        if not anchors:
            return None
        anchor, stage, role = min(anchors, key=lambda a: abs(position - a[0]))
        return abs(position - anchor), stage, role

    def _of_pinned_kind(self, capture: Capture) -> bool:
        return capture.info.kind in self.policy.pinned

    def _refusal(self, capture: Capture, pinned: bool, rank: tuple[int, int]) -> str:
        """Why an arriving stage that does not fit is refused."""
        if pinned:
            return PINNED_FULL
        if self._of_pinned_kind(capture):
            return PINNED_SHARE
        if self.policy.mode == FIRST:
            return FULL
        return FARTHER if rank[1] < 0 else PINNED_FULL  # at a focus itself, only pinned stages can hold the room

    def let_go(self) -> None:
        """Hold no capture any more (the pass's history was forgotten, so their memory can go back); which stages
        were dropped, and why, stays."""
        self._kept.clear()
        self._shared.clear()
        self.held = self._pinned_held = 0

    def _keep(self, capture: Capture, position: int, arrival: int, pinned: bool, size: int,
              storage: Storage | None = None) -> bool:
        """Hold `capture` (`size` bytes: its `held_nbytes`, or its storage's where `storage` is not held yet)."""
        self.held += size
        self._pinned_held += size if pinned else 0
        self._kept[arrival] = (capture, position, pinned)
        if storage is not None:
            self._shared.hold(arrival, storage)
        if self.reasons:  # a stage refused before and kept now is no longer left out (`distances` ⊆ `reasons`)
            name = capture.name
            self.reasons.pop(name, None)
            self.distances.pop(name, None)
        return True

    def _refuse(self, capture: Capture, reason: str, far: tuple[int, str, str] | None = None) -> bool:
        self.reasons[capture.name] = reason
        if far is not None and reason in (FARTHER, EVICTED):
            self.distances[capture.name] = far
        else:
            self.distances.pop(capture.name, None)
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
    distances: dict[str, tuple[int, str, str]] = field(default_factory=dict)

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
        return None if code is None else drop_reason(code, self.limit, self.distances.get(name))


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
    return CaptureEstimate(sum(c.held_nbytes for c in planned), budget.held, tuple(budget.kept), tuple(budget.dropped),
                           limit, dict(budget.reasons), policy, dict(budget.distances))


def megabytes(mb: float | None) -> int | None:
    """A budget given in MB (None: no budget) as bytes."""
    return None if mb is None else int(mb * MB)


def free_memory(device: torch.device) -> int | None:
    """Bytes free on `device` now (CUDA: the driver's count; CPU: MemAvailable on Linux), None when unknown."""
    import torch
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
                           ram_share: float = DEFAULT_RAM_SHARE, releasing: int = 0) -> int | None:
    """The window's budget: `share` of the memory free on `device`; on the CPU also no more than keeps
    the whole process under `ram_share` of the machine's RAM (model included). None when unknown.
    `releasing`: bytes on `device` this process holds now and lets go of before the work the budget is for
    (a pass's captures that a backward replaces), counted as free and, on the CPU, not as resident."""
    free = free_memory(device)
    if free is None:
        return None
    budget = int((free + releasing) * share)
    total, resident = total_memory(), resident_memory()
    if device.type == "cpu" and total is not None and resident is not None:
        budget = min(budget, max(0, int(total * ram_share) - max(0, resident - releasing)))
    return budget
