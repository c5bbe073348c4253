"""The memory a pass will reach, stated before it runs: the model, what the capture budget keeps, the
stage in flight, and the check against the unmodified model.

The capture budget bounds what is kept; a pass also makes each stage before the budget decides (the
largest one let go is in memory at once with everything kept), a recipe plane is computed one head block
at a time (a few blocks of `BLOCK_BYTES`) from the kept q and k and the model's additive mask, and the
verification runs the model once more (its layer inputs
and output, as large as the pass's own, and its attention in head blocks). The sum is the peak the plan
states; exports stream, so they add a block, not a pass.
"""

from __future__ import annotations

from dataclasses import dataclass

from tfdebug.core.budget import format_bytes, free_memory, resident_memory
from tfdebug.core.errors import InputError
from tfdebug.core.phrases import Phrase
from tfdebug.core.recipes import BLOCK_BYTES
from tfdebug.core.recorder import matches


@dataclass(frozen=True)
class Peak:
    """Bytes a pass reaches on its device, by part."""

    model: int  # the model's weights; on the CPU, all the process holds before the pass (weights, libraries)
    kept: int
    working: int
    check: int

    @property
    def total(self) -> int:
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


def peak_of(session) -> Peak:
    """The peak of `session`'s next pass, from its plan and its capture budget's choice."""
    estimate = session.capture_estimate()
    planned = [c for c in session.plan if matches(c.name, session.stages)]
    kept = set(estimate.kept)
    # In flight besides what is kept: the largest stage the budget lets go (it exists until it has been
    # made), and a recipe's block computed step after step (a few blocks at once: the chain, the softmax's
    # float32); the additive mask the planes read is the size of one head's plane.
    dropped = [c.nbytes for c in planned if not c.recipe and c.name not in kept]
    planes = [c for c in planned if c.recipe]
    largest = max((c.nbytes for c in planes), default=0)
    mask = largest // max(1, planes[0].shape[1]) if planes else 0
    working = max(dropped, default=0) + (4 * min(BLOCK_BYTES, largest) + mask if planes else 0)
    base = resident_memory() if session.adapter.device.type == "cpu" else None
    return Peak(model=base or model_bytes(session.adapter.module), kept=estimate.kept_bytes, working=working,
                check=session.adapter.check_bytes(session.plan))


def check_fits(session, peak: Peak) -> bool:
    """Whether the check against the model fits too; refuse, before the pass, one that does not fit even
    without it (its stated peak over what the device can give: the memory free now, plus on the CPU what the
    process already holds, which the peak counts), since the kernel would kill it part way. The sentence
    names what fits. A pass that fits only without the check runs without it (the caller says so)."""
    device = session.adapter.device
    free = free_memory(device)
    if free is None:
        return True
    room = free + ((resident_memory() or 0) if device.type == "cpu" else 0)
    if peak.total <= room:
        return True
    if peak.total - peak.check <= room:
        return False
    raise InputError("This pass would reach about {peak} but {device} has {room}: capture fewer stages (--stages), "
                     "a smaller --max-capture-mb, or a shorter input.", id="peak.too_large",
                     peak=format_bytes(peak.total - peak.check), device=str(device), room=format_bytes(room))
