"""The memory a pass will reach, stated before it runs: the model, what the capture budget keeps, the
stage in flight, and the check against the unmodified model.

The capture budget bounds what is kept; a pass also makes each stage before the budget decides (the
largest one let go is in memory at once with everything kept), a recipe plane is computed one block at a time
(a few blocks of `recipes.block_shape`: whole heads, or on the CPU bands of a head's rows, each at most
`BLOCK_BYTES`) from the kept q and k and the model's additive mask, and the check made in the pass computes the
model's own attention beside each block. The whole check runs the model once more (its layer inputs and output,
as large as the pass's own, and its attention in such blocks), and the stages it compares are held by the pass
to its end even where the budget lets them go (`held_for_check`): both are its part of the peak (`Peak.check`),
which a pass checked in the pass alone does not reach. On the CPU a tuned allocator keeps up to 2 GiB of freed
memory (`core.memory`): counted too. The sum is the peak the plan states; exports stream, so they add a block,
not a pass.
"""

from __future__ import annotations

from dataclasses import dataclass

from tfdebug.core.budget import DEFAULT_RAM_SHARE, format_bytes, free_memory, resident_memory, total_memory
from tfdebug.core.errors import InputError
from tfdebug.core.memory import KEPT_FREE_BYTES, allocator_tuned
from tfdebug.core.phrases import Phrase
from tfdebug.core.recipes import RECIPE_KINDS, block_nbytes
from tfdebug.core.recorder import matches


@dataclass(frozen=True)
class Peak:
    """Bytes a pass reaches on its device, by part."""

    # the model's weights; on the CPU, all the process holds before the pass (weights, libraries) and the freed
    # memory a tuned allocator keeps (up to 2 GiB: about 2 GB at 8,192 tokens)
    model: int
    kept: int
    working: int
    check: int

    @property
    def total(self) -> int:
        """The whole peak in bytes: model, kept, working and check together."""
        return self.model + self.kept + self.working + self.check

    def describe(self) -> str:
        """'peak about 17.2 GB: the model and the process 1.0 GB, kept stages 14.5 GB, stages in flight 0.9 GB, …'."""
        return Phrase("peak about {total}: the model and the process {model}, kept stages {kept}, stages in flight "
                      "{working}, the check against the model {check}", id="peak.describe", total=format_bytes(self.total),
                      model=format_bytes(self.model), kept=format_bytes(self.kept),
                      working=format_bytes(self.working), check=format_bytes(self.check))


def model_bytes(module) -> int:
    """Bytes of a module's parameters and buffers (shared ones once)."""
    seen: dict[int, int] = {}
    for tensor in [*module.parameters(), *module.buffers()]:
        if tensor.device.type != "meta":
            seen[tensor.untyped_storage().data_ptr()] = tensor.untyped_storage().nbytes()
    return sum(seen.values())


def peak_of(session, with_check: bool = True) -> Peak:
    """The peak of `session`'s next pass, from its plan and its capture budget's choice; without `with_check`, of
    the pass without the whole check against the model (one left out, or checked in the pass alone)."""
    estimate = session.capture_estimate()
    planned = [c for c in session.plan if matches(c.name, session.stages)]
    kept = set(estimate.kept)
    device = session.adapter.device
    # In flight besides what is kept: the largest stage the budget lets go (it exists until it has been
    # made), and a recipe's block computed step after step (a few blocks at once: the chain, the softmax's
    # float32); the additive mask the planes read is the size of one head's plane.
    dropped = {c.name: c.nbytes for c in planned if not c.recipe and c.name not in kept}
    planes = [c for c in planned if c.recipe and c.info.kind in RECIPE_KINDS]  # the tokens² planes
    largest = max(planes, key=lambda c: c.nbytes, default=None)
    # The check made in the pass (`adapters.hf.inpass`) runs the model's own attention on each block beside it:
    # its scores, its weights and the masked scores, three blocks more.
    blocks = 4 + (3 if getattr(session, "in_pass", "") in IN_PASS and session.adapter.checks_in_pass else 0)
    working = max(dropped.values(), default=0)
    if largest is not None:
        working += blocks * block_nbytes(largest.shape, largest.dtype, device) + largest.nbytes // largest.shape[1]
    # The whole check's part: the stages it compares, held by the pass to its end where the budget lets them go
    # (then no longer in flight one at a time), and what its second forward holds.
    held = session.adapter.held_for_check(planned, kept)
    holding = (sum(dropped[name] for name in held if name in dropped)
               + max((size for name, size in dropped.items() if name not in held), default=0))
    check = session.adapter.check_bytes(session.plan) + max(0, holding - max(dropped.values(), default=0))
    if not with_check or getattr(session, "in_pass", "") == "attention":  # no second forward, nothing held for it
        check = 0
    cpu = device.type == "cpu"
    base = (resident_memory() if cpu else None) or model_bytes(session.adapter.module)
    if cpu and allocator_tuned():  # the freed memory the tuned allocator keeps (core.memory), up to 2 GiB
        base += min(KEPT_FREE_BYTES, estimate.kept_bytes + working + check)
    return Peak(model=base, kept=estimate.kept_bytes, working=working, check=check)


def device_room(device) -> int | None:
    """Bytes a pass on `device` can reach: the memory free now, plus on the CPU what this process already
    holds (the peak counts it); None where the free memory is not known."""
    free = free_memory(device)
    if free is None:
        return None
    return free + ((resident_memory() or 0) if device.type == "cpu" else 0)


#: when and how a pass is checked against the model: "auto" against a second, unmodified pass where it fits in
#: memory, else each layer's attention in the pass; "always" the second pass; "attention" only each layer's
#: attention, in the pass (no second forward); "never" (the pass is then said not verified): `tfdebug capture
#: --verify` and the window's Debug ▸ Check Against the Model
VERIFY = ("auto", "always", "attention", "never")

#: the modes (`check_mode`) that check each layer's attention as the pass runs
IN_PASS = ("whole", "attention")


def check_mode(policy: str, fits: bool, in_pass: bool, waited: bool = True) -> str:
    """How a pass is checked under `policy` (one of VERIFY): "whole" (each layer's attention in the pass, the rest
    against a second, unmodified pass after it), "after" (the second pass alone, which then compares the
    probabilities itself), "attention" (each layer's attention in the pass, no second pass) or "" (not checked).
    `fits`: the second pass fits in memory; `in_pass`: the adapter can check attention in the pass
    (`ModelAdapter.checks_in_pass`); `waited`: someone waits for the check's verdict (`tfdebug capture` writes it
    in the snapshot). Checked in the pass, the attention costs one more attention per layer there and none in
    the second pass: less in all, where the check is waited for. The window's check runs in the background while
    the user steps (`waited` false): there the pass they wait for carries none ("after")."""
    if policy == "never":
        return ""
    if policy == "attention" and in_pass:
        return "attention"
    if fits or policy == "always":
        return "whole" if waited or not in_pass else "after"
    return "attention" if in_pass else ""


def stated_peak(session, peak: Peak, mode: str) -> Peak:
    """The peak to state for `session`'s pass checked as `mode` (`check_mode`, set as the session's `in_pass`):
    `peak` where the whole check runs ("whole", "after"), else that pass without the check's part (a 32k-token
    pass whose whole check does not fit is checked in the pass: its 12 GB are not reached)."""
    return peak if mode in ("whole", "after") else peak_of(session, with_check=False)


ROOM_MARGIN = 0.05  # a default budget leaves this share of the pass's room free: estimates are estimates


def promised_room(device) -> int | None:
    """The most a pass under the default budget is to reach on `device`: on the CPU the share of the machine's
    RAM `--help` and the docs promise for the whole process (`DEFAULT_RAM_SHARE`, model included); elsewhere no
    line beside the device's room (None)."""
    total = total_memory() if device.type == "cpu" else None
    return None if total is None else int(total * DEFAULT_RAM_SHARE)


def fit_default_budget(session) -> Peak:
    """Shrink `session`'s default capture budget until its stated peak fits the device's room and, on the CPU,
    the promised share of RAM (`promised_room`): the pass itself and its stages in flight come first (a
    32k-token pass's logits and mask alone are gigabytes), then every pinned stage (every layer's attention),
    then the check against the model, then the rest. Where the pinned stages and the check do not fit the
    promised share, the peak stays over it by what they need (the statement says how much); where they do not
    both fit the device's room, the peak returned is over the room by the check's part only, and `check_fits`
    runs the pass without the check. A budget the user gave is not this function's to change."""
    peak = peak_of(session)
    device = session.adapter.device
    room = device_room(device)
    if room is None or session.max_capture_bytes is None:
        return peak
    promised = promised_room(device)
    target = room if promised is None else min(room, promised)
    if peak.total <= target:
        return peak
    pinned = sum(c.held_nbytes for c in session.plan
                 if c.info.kind in session.keep.pinned and matches(c.name, session.stages))
    peak = _shrink(session, peak, _usable(target, peak), floor=min(pinned, session.max_capture_bytes),
                   with_check=True)
    usable = _usable(room, peak)
    if peak.total <= usable:
        return peak
    return _shrink(session, peak, usable, floor=0, with_check=False)


def _usable(room: int, peak: Peak) -> int:
    """`room` less the margin a default budget leaves free (`ROOM_MARGIN` of what the pass adds)."""
    return room - max(0, int((room - peak.model) * ROOM_MARGIN))


def _shrink(session, peak: Peak, usable: int, floor: int, with_check: bool) -> Peak:
    """Lower the budget by what the peak is over `usable` (with or without the check's part), not below
    `floor`; a smaller budget lets a larger stage go, which is then in flight: a few rounds settle."""
    for _ in range(8):
        over = peak.total - (0 if with_check else peak.check) - usable
        budget = max(floor, min(session.max_capture_bytes, peak.kept) - over)
        if over <= 0 or budget == session.max_capture_bytes:
            break
        session.max_capture_bytes = budget
        peak = peak_of(session)
    return peak


def check_fits(session, peak: Peak) -> bool:
    """Whether the check against the model fits too; refuse, before the pass, one that does not fit even
    without it (its stated peak over what the device can give: the memory free now, plus on the CPU what the
    process already holds, which the peak counts), since the kernel would kill it part way. The sentence
    names what fits. A pass that fits only without the check runs without it (the caller says so)."""
    device = session.adapter.device
    room = device_room(device)
    if room is None:
        return True
    if peak.total <= room:
        return True
    if peak.total - peak.check <= room:
        return False
    rows = batch_rows(session)
    if rows > 1:  # the pass's own bytes grow with its rows: say the largest batch that fits
        per_row = max(1, (peak.kept + peak.working) // rows)
        fits = max(0, (room - peak.model) // per_row)
        raise InputError("This batch of {rows} rows would reach about {peak} but {device} has {room}: about {fits} "
                         "rows fit in one pass (or capture fewer stages, --stages).", id="peak.batch_too_large",
                         rows=f"{rows:,}", peak=format_bytes(peak.total - peak.check), device=str(device),
                         room=format_bytes(room), fits=f"{min(fits, rows - 1):,}")
    raise InputError("This pass would reach about {peak} but {device} has {room}: capture fewer stages (--stages), "
                     "a smaller --max-capture-mb, or a shorter input.", id="peak.too_large",
                     peak=format_bytes(peak.total - peak.check), device=str(device), room=format_bytes(room))


def check_room_now(session) -> Phrase | None:
    """None when the check against the model fits in what `session`'s device has free now, beside the finished
    pass that holds its captures (the check's own part of the stated peak, `Peak.check`); else the sentence that
    says what it needs and what is free. Where the free memory is not known the check is taken to fit."""
    free = free_memory(session.adapter.device)
    need = session.adapter.check_bytes(session.plan)
    if free is None or need <= free:
        return None
    return Phrase("not verified: the check against the unmodified model needs about {need} and {free} is free",
                  id="peak.check_left_out", need=format_bytes(need), free=format_bytes(free))


def batch_rows(session) -> int:
    """The rows of the pass's batch (1 for a single input): the first input tensor's leading axis."""
    kwargs = getattr(getattr(session, "prepared", None), "kwargs", None) or {}
    first = next((v for v in kwargs.values() if hasattr(v, "shape") and len(v.shape) >= 1), None)
    return int(first.shape[0]) if first is not None else 1
