"""Patch one stage and continue: the clean pass's value put into the corrupted pass at one stage — whole, at one
token position, or for one head — and the rest of the corrupted pass run again.

Where a sweep (`sessions.patching`) measures one number per cell, this keeps the patched pass whole, so the window
and the command line can say what the patch moved: every later stage is compared with the corrupted pass's own
(`core.compare`, the Compare dock's machinery), and the logit difference is given as the fraction recovered,
(LD_patched − LD_corrupt) / (LD_clean − LD_corrupt).

    patched = patch_one(Patcher(adapter, clean, corrupt), "dec.3.self_attn.context", head=2)
    patched.recovered, patched.moved.first_divergent
"""

from __future__ import annotations

from dataclasses import dataclass, field

import torch

from tfdebug.core.compare import Comparison, compare
from tfdebug.core.readout import ReadoutError
from tfdebug.core.recipes import materialized
from tfdebug.core.recorder import Capture
from tfdebug.io.recording import Recording
from tfdebug.sessions.patching import Patcher, logit_difference
from tfdebug.sessions.why import Why

#: the axes a position picks along, in the order they are looked for (a plane's rows are its queries)
POSITION_AXES = ("token", "query")


@dataclass(frozen=True)
class PatchedPass:
    """The corrupted pass run again with `stage` patched (`scope`: "whole", "position N" or "head N"): its captures,
    its comparison with the corrupted pass (`moved`: what the patch changed, stage by stage), and the logit
    difference logit(target) − logit(contrast) at `position` in the clean, corrupted and patched passes."""

    stage: str
    scope: str
    captures: list[Capture]
    corrupted: list[Capture]  # the corrupted pass, as it ran before the patch
    moved: Comparison
    target: int
    contrast: int | None
    position: int
    clean: float
    corrupt: float
    patched: float
    tokens: dict = field(default_factory=dict)  # the corrupted pass's token strings per stream
    model: str = ""  # the model's name
    here: bool = True  # the two passes are in this process (False: on the server that patched, `captures` empty)

    def passes(self) -> tuple[Recording, Recording] | None:
        """The corrupted pass and the patched one as recordings (what the Compare dock compares); None when they
        stay on the server that made them (the dock then asks it for their planes)."""
        if not self.here:
            return None
        return (Recording(captures=list(self.corrupted), tokens=self.tokens, model_name=self.model),
                Recording(captures=list(self.captures), tokens=self.tokens, model_name=self.model))

    @property
    def recovered(self) -> float:
        """(LD_patched − LD_corrupt) / (LD_clean − LD_corrupt); NaN when the two passes do not differ."""
        gap = self.clean - self.corrupt
        return (self.patched - self.corrupt) / gap if gap else float("nan")

    def moved_stages(self) -> list[str]:
        """The stages whose values the patch changed (beyond the comparison's tolerance), in forward order."""
        return [row.name for row in self.moved.stages if row.diverges]

    def to_dict(self) -> dict:
        """JSON-friendly: the stage, scope, the three logit differences, the fraction recovered, what moved."""
        return {"stage": self.stage, "scope": self.scope, "target": self.target, "contrast": self.contrast,
                "position": self.position, "ld_clean": self.clean, "ld_corrupt": self.corrupt,
                "ld_patched": self.patched, "recovered": self.recovered, "moved": self.moved_stages(),
                "first_moved": self.moved.first_divergent.name if self.moved.first_divergent else None}


def _axis(capture: Capture, names: tuple[str, ...], what: str) -> int:
    """The index of the first of `names` among the stage's axes; ReadoutError when it has none of them."""
    for name in names:
        if name in capture.info.axes:
            return capture.info.axes.index(name)
    raise ReadoutError(f"Stage {capture.name} has no {what} axis (its axes are {', '.join(capture.info.axes)}), so "
                       f"it cannot be patched at one {what}.")


def _whole(why: Why, stage: str) -> torch.Tensor:
    """Stage `stage`'s tensor in `why`'s pass, every batch row (a recipe plane computed whole)."""
    capture = why.captures[stage]
    tensor = capture.tensor if capture.tensor is not None or why.load is None else why.load(capture)
    if tensor is None:
        raise ReadoutError(f"Stage {stage} was not kept (the capture budget left it out), so it cannot be patched: "
                           "raise the budget and run again.")
    return materialized(tensor)


def patched_value(patcher: Patcher, stage: str, position: int | None = None, head: int | None = None
                  ) -> tuple[torch.Tensor, str]:
    """The corrupted pass's `stage` with the clean pass's value put in — whole, at token `position` of the corrupted
    text (every batch row, every other axis), or for `head` — and the scope in words. Texts of different lengths
    put in every position the patcher's alignment pairs (`sessions.alignment`)."""
    if stage not in patcher.clean.captures or stage not in patcher.corrupt.captures:
        raise ReadoutError(f"There is no stage {stage} in both passes.")
    capture = patcher.corrupt.captures[stage]
    clean, corrupt = _whole(patcher.clean, stage), _whole(patcher.corrupt, stage)
    if position is not None:
        axis = _axis(capture, POSITION_AXES, "position")
        if not -corrupt.shape[axis] <= position < corrupt.shape[axis]:
            raise ReadoutError(f"Position {position} is outside stage {stage}'s {corrupt.shape[axis]} positions.")
        position %= corrupt.shape[axis]
    if head is not None:
        axis = _axis(capture, ("head",), "head")
        if not 0 <= head < corrupt.shape[axis]:
            raise ReadoutError(f"Head {head} is outside stage {stage}'s {corrupt.shape[axis]} heads.")
    moves = patcher.moves(stage, position, head)
    if moves is None:
        if patcher.moves(stage) is None:
            raise ReadoutError(f"Stage {stage} has shape {tuple(clean.shape)} in the clean pass and "
                               f"{tuple(corrupt.shape)} in the corrupted one beyond the positions the texts pair, "
                               "so one cannot go into the other.")
        raise ReadoutError(f"Position {position} of the corrupted text pairs with no position of the clean one, so "
                           "there is nothing to put there.")
    value = corrupt.clone()
    for index, source in moves:
        value[(slice(None), *index)] = clean[(slice(None), *source)]
    if position is None and head is None and patcher.alignment.identity:
        return value, "whole"
    scope = " ".join(part for part in (f"position {position}" if position is not None else "",
                                       f"head {head}" if head is not None else "") if part)
    return value, scope or "every paired position"


def patch_one(patcher: Patcher, stage: str, position: int | None = None, head: int | None = None,
              target: int | None = None, contrast: int | None = None, at: int = -1) -> PatchedPass:
    """Run `patcher`'s corrupted pass again with `stage` patched (`patched_value`) through to its end, keeping every
    stage; the logit difference is measured at position `at` (by default logit(clean prediction) −
    logit(corrupted prediction) at the last position, the Patching tab's question)."""
    from tfdebug.sessions.session import DebugSession

    value, scope = patched_value(patcher, stage, position, head)
    clean_logits, corrupt_logits = patcher.logits(patcher.clean), patcher.logits(patcher.corrupt)
    at = at % patcher.count
    source = patcher.clean_position(at)
    if target is None:
        target = int(clean_logits[0, source].argmax())
    if contrast is None:
        contrast = int(corrupt_logits[0, at].argmax())
        if contrast == target:
            contrast = int(clean_logits[0, source].argsort()[-2])
    session = DebugSession(patcher.adapter, dict(patcher.corrupt.texts))
    captures, _ = session.capture_all(verify="never", transplant={stage: value})
    patched = next(c.tensor for c in captures if c.name == patcher.clean.logits_stage)
    assert patched is not None  # a whole pass keeps its logits
    corrupted = list(patcher.corrupt.captures.values())
    return PatchedPass(stage, scope, captures, corrupted, compare(corrupted, captures), target, contrast, at,
                       logit_difference(clean_logits, source, target, contrast),
                       logit_difference(corrupt_logits, at, target, contrast),
                       logit_difference(patched, at, target, contrast), dict(patcher.corrupt.tokens),
                       patcher.adapter.name)
