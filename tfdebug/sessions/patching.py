"""Activation patching between two passes: put the clean pass's value of a stage into the corrupted pass and
run the rest of it again, and see how much of the clean pass's answer comes back.

The answer is a logit difference, LD = logit(target) − logit(contrast) at a position; patching one cell gives
the fraction recovered, (LD_patched − LD_corrupt) / (LD_clean − LD_corrupt): 1 where the cell carries all of
the difference, 0 where it carries none. A sweep patches every residual row (the embeddings, then each block's
output: the lens's rows) at every position, or every attention head's output (its slice of the context, P·V
before the heads are merged: every position of that head) in every attention, one forward each; the count is
known before it runs (`Sweep.forwards`). The corrupted pass keeps only the stages a patch needs (its rows, its
heads' contexts and its logits), and the patched value goes in through the session's transplant, the same path
as the Compare dock's.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Mapping, Sequence

import torch

from tfdebug.core.readout import ReadoutError
from tfdebug.sessions.session import DebugSession
from tfdebug.sessions.why import Why


#: the stage kind whose head axis a head sweep patches: each head's P·V, before the heads are merged
HEAD_KIND = "attn_v"
ACROSS = ("position", "head")


@dataclass
class Sweep:
    """Fraction recovered for `rows` × `positions`, and the two passes' own logit differences. `across` says what
    the columns are: token positions of residual rows, or heads of attention contexts (then `positions` holds
    the head indices)."""

    rows: list[str]
    positions: list[int]
    clean: float
    corrupt: float
    recovered: list[list[float]] = field(default_factory=list)
    patched: list[list[float]] = field(default_factory=list)  # the logit difference of each patched pass
    across: str = "position"

    @property
    def forwards(self) -> int:
        """The forwards the sweep runs (one a cell)."""
        return len(self.rows) * len(self.positions)

    def to_dict(self) -> dict:
        """A JSON-ready dict (documented in docs/why.md)."""
        return {"rows": self.rows, "positions": self.positions, "ld_clean": self.clean, "ld_corrupt": self.corrupt,
                "recovered": self.recovered, "ld_patched": self.patched, "forwards": self.forwards,
                "across": self.across}


def head_stages(captures: Mapping) -> list[str]:
    """The stages of `captures` (name → Capture, forward order) a head sweep patches: every attention's context
    with a head axis, kept."""
    return [name for name, c in captures.items()
            if c.info.kind == HEAD_KIND and "head" in c.info.axes and c.tensor is not None]


def head_count(captures: Mapping, stages: Sequence[str]) -> int:
    """The most heads any of `stages` has (a head sweep's columns)."""
    return max((captures[s].tensor.shape[captures[s].info.axes.index("head")] for s in stages), default=0)


def logit_difference(logits: torch.Tensor, position: int, target: int, contrast: int | None) -> float:
    """logit(target) − logit(contrast) (the target's logit alone without a contrast) at `position` of batch row 0."""
    row = logits[0, position].double()
    return float(row[target] - (row[contrast] if contrast is not None else 0.0))


def _kept(why: Why, stage: str) -> torch.Tensor:
    """Stage `stage`'s tensor in `why`'s pass (every batch row)."""
    tensor = why.captures[stage].tensor
    assert tensor is not None  # a finished pass of a patcher keeps the stages it patches
    return tensor


class Patcher:
    """A clean and a corrupted pass of one model, ready to patch: `patch(stage, value)` runs the corrupted pass
    with `stage` replaced by `value`; `sweep(...)` patches every residual row at every position, `head_sweep(...)`
    every head of every attention."""

    def __init__(self, adapter, clean: Mapping[str, str], corrupt: Mapping[str, str]):
        from tfdebug.sessions.why import finished_pass

        self.adapter = adapter
        self.clean = finished_pass(adapter, texts=dict(clean))
        self.corrupt = finished_pass(adapter, texts=dict(corrupt))
        count = self.clean.tensor(self.clean.logits_stage).shape[0]
        if self.corrupt.tensor(self.corrupt.logits_stage).shape[0] != count:
            raise ReadoutError(f"The clean and the corrupted text give {count} and "
                               f"{self.corrupt.tensor(self.corrupt.logits_stage).shape[0]} tokens; patching "
                               "puts one pass's cells into the other's, so both need the same number of tokens.")
        self.count = count
        self.rows = list(self.clean.rows)
        #: every attention's context (its head axis: each head's P·V), in forward order
        self.head_stages = head_stages(self.clean.captures)
        self._session = DebugSession(adapter, dict(corrupt),
                                     stages=[*self.rows, *self.head_stages, self.clean.logits_stage], planning="lazy")

    def logits(self, why: Why) -> torch.Tensor:
        """A finished pass's logits (batch, token, vocab) (before a softcap, as the attribution reads them)."""
        return _kept(why, why.logits_stage)

    def patch(self, stage: str, value: torch.Tensor) -> torch.Tensor:
        """The corrupted pass run again with `stage` replaced by `value`: its logits."""
        captures, _ = self._session.capture_all(verify="never", transplant={stage: value})
        logits = next(c.tensor for c in captures if c.name == self.clean.logits_stage)
        assert logits is not None  # capture_all keeps the stages it was asked for
        return logits

    def cell(self, stage: str, position: int) -> torch.Tensor:
        """The corrupted pass's `stage` with `position` taken from the clean pass (every batch row)."""
        value = _kept(self.corrupt, stage).clone()
        value[:, position] = _kept(self.clean, stage)[:, position]
        return value

    def head(self, stage: str, head: int) -> torch.Tensor:
        """The corrupted pass's context `stage` with head `head` (every position) taken from the clean pass."""
        axis = self.corrupt.captures[stage].info.axes.index("head")
        value = _kept(self.corrupt, stage).clone()
        index = (slice(None),) * axis + (head,)
        value[index] = _kept(self.clean, stage)[index]
        return value

    def heads(self, stage: str) -> int:
        """How many heads the context `stage` has."""
        return head_count(self.clean.captures, [stage])

    def head_sweep(self, target: int, contrast: int | None = None, position: int = -1,
                   stages: Sequence[str] | None = None,
                   progress: Callable[[int, int], bool] | None = None) -> Sweep:
        """Patch each head of each attention context in `stages` (every one) and measure the logit difference at
        `position`; a Sweep across heads (rows: the contexts; columns: heads 0 … H−1 of the widest)."""
        stages = list(stages) if stages is not None else self.head_stages
        for stage in stages:
            if stage not in self.head_stages:
                raise ReadoutError(f"{stage} is not an attention's context (P·V by head) in this pass; they are "
                                   f"{', '.join(self.head_stages) or 'none'}.")
        heads = list(range(head_count(self.clean.captures, stages)))
        return self._swept(target, contrast, position, stages, heads, "head", progress,
                           lambda stage, h: self.head(stage, h) if h < self.heads(stage) else None)

    def sweep(self, target: int, contrast: int | None = None, position: int = -1,
              rows: Sequence[str] | None = None, positions: Sequence[int] | None = None,
              progress: Callable[[int, int], bool] | None = None) -> Sweep:
        """Patch each of `rows` (every residual row) at each of `positions` (every one) and measure the logit
        difference at `position`; `progress(done, total)` after each forward, returning False to stop."""
        rows = list(rows) if rows is not None else self.rows
        for stage in rows:
            if stage not in self.rows:
                raise ReadoutError(f"{stage} is not a residual row of this pass; the rows are {', '.join(self.rows)}.")
        positions = [p % self.count for p in (positions if positions is not None else range(self.count))]
        return self._swept(target, contrast, position, rows, positions, "position", progress, self.cell)

    def _swept(self, target: int, contrast: int | None, position: int, rows: list[str], columns: list[int],
               across: str, progress, value_of: Callable[[str, int], torch.Tensor | None]) -> Sweep:
        """Each row × column patched with `value_of(row, column)` (None: no such cell, NaN in the tables)."""
        position = position % self.count
        result = Sweep(rows, columns, logit_difference(self.logits(self.clean), position, target, contrast),
                       logit_difference(self.logits(self.corrupt), position, target, contrast), across=across)
        gap = result.clean - result.corrupt
        done = 0
        for stage in rows:
            lds = []
            for column in columns:
                value = value_of(stage, column)
                lds.append(float("nan") if value is None else
                           logit_difference(self.patch(stage, value), position, target, contrast))
                done += 1
                if progress is not None and progress(done, result.forwards) is False:
                    raise ReadoutError("The sweep was cancelled.")
            result.patched.append(lds)
            result.recovered.append([(ld - result.corrupt) / gap if gap else float("nan") for ld in lds])
        return result


def predicted_sweep(patcher: Patcher, progress: Callable[[int, int], bool] | None = None,
                    across: str = "position") -> tuple[Sweep, int, int]:
    """`patcher`'s sweep of every residual row × position (`across` "head": every head of every attention),
    measuring logit(clean prediction) − logit(corrupted prediction) at the last position (the clean pass's second
    choice when both predict the same token): the Patching tab's question. Returns (the Sweep, target id,
    contrast id)."""
    if across not in ACROSS:
        raise ReadoutError(f"A sweep goes across {' or '.join(ACROSS)}, not {across!r}.")
    clean, corrupt = patcher.logits(patcher.clean)[0, -1], patcher.logits(patcher.corrupt)[0, -1]
    target, contrast = int(clean.argmax()), int(corrupt.argmax())
    if contrast == target:
        contrast = int(clean.argsort()[-2])
    if across == "head":
        return patcher.head_sweep(target, contrast, -1, progress=progress), target, contrast
    return patcher.sweep(target, contrast, -1, progress=progress), target, contrast
