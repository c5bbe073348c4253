"""Activation patching between two passes: put the clean pass's value of a stage into the corrupted pass and
run the rest of it again, and see how much of the clean pass's answer comes back.

The answer is a logit difference, LD = logit(target) − logit(contrast) at a position; patching one cell gives
the fraction recovered, (LD_patched − LD_corrupt) / (LD_clean − LD_corrupt): 1 where the cell carries all of
the difference, 0 where it carries none. A sweep patches every residual row (the embeddings, then each block's
output: the lens's rows) at every position, one forward each; the count is known before it runs
(`Sweep.forwards`). The corrupted pass keeps only the stages a patch needs (its rows and its logits), and the
patched value goes in through the session's transplant, the same path as the Compare dock's.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Mapping, Sequence

import torch

from tfdebug.core.readout import ReadoutError
from tfdebug.sessions.session import DebugSession
from tfdebug.sessions.why import Why


@dataclass
class Sweep:
    """Fraction recovered for `rows` × `positions`, and the two passes' own logit differences."""

    rows: list[str]
    positions: list[int]
    clean: float
    corrupt: float
    recovered: list[list[float]] = field(default_factory=list)
    patched: list[list[float]] = field(default_factory=list)  # the logit difference of each patched pass

    @property
    def forwards(self) -> int:
        """The forwards the sweep runs (one a cell)."""
        return len(self.rows) * len(self.positions)

    def to_dict(self) -> dict:
        """A JSON-ready dict (documented in docs/why.md)."""
        return {"rows": self.rows, "positions": self.positions, "ld_clean": self.clean, "ld_corrupt": self.corrupt,
                "recovered": self.recovered, "ld_patched": self.patched, "forwards": self.forwards}


def logit_difference(logits: torch.Tensor, position: int, target: int, contrast: int | None) -> float:
    """logit(target) − logit(contrast) (the target's logit alone without a contrast) at `position` of batch row 0."""
    row = logits[0, position].double()
    return float(row[target] - (row[contrast] if contrast is not None else 0.0))


class Patcher:
    """A clean and a corrupted pass of one model, ready to patch: `patch(stage, value)` runs the corrupted pass
    with `stage` replaced by `value`; `sweep(...)` patches every residual row at every position."""

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
        self._session = DebugSession(adapter, dict(corrupt), stages=[*self.rows, self.clean.logits_stage],
                                     planning="lazy")

    def logits(self, why: Why) -> torch.Tensor:
        """A finished pass's logits (batch, token, vocab) (before a softcap, as the attribution reads them)."""
        return why.captures[why.logits_stage].tensor

    def patch(self, stage: str, value: torch.Tensor) -> torch.Tensor:
        """The corrupted pass run again with `stage` replaced by `value`: its logits."""
        captures, _ = self._session.capture_all(verify="never", transplant={stage: value})
        return next(c.tensor for c in captures if c.name == self.clean.logits_stage)

    def cell(self, stage: str, position: int) -> torch.Tensor:
        """The corrupted pass's `stage` with `position` taken from the clean pass (every batch row)."""
        value = self.corrupt.captures[stage].tensor.clone()
        value[:, position] = self.clean.captures[stage].tensor[:, position]
        return value

    def sweep(self, target: int, contrast: int | None = None, position: int = -1,
              rows: Sequence[str] | None = None, positions: Sequence[int] | None = None,
              progress: Callable[[int, int], bool] | None = None) -> Sweep:
        """Patch each of `rows` (every residual row) at each of `positions` (every one) and measure the logit
        difference at `position`; `progress(done, total)` after each forward, returning False to stop."""
        position = position % self.count
        rows = list(rows) if rows is not None else self.rows
        positions = [p % self.count for p in (positions if positions is not None else range(self.count))]
        result = Sweep(rows, positions, logit_difference(self.logits(self.clean), position, target, contrast),
                       logit_difference(self.logits(self.corrupt), position, target, contrast))
        gap = result.clean - result.corrupt
        done = 0
        for stage in rows:
            if stage not in self.rows:
                raise ReadoutError(f"{stage} is not a residual row of this pass; the rows are {', '.join(self.rows)}.")
            lds = []
            for p in positions:
                lds.append(logit_difference(self.patch(stage, self.cell(stage, p)), position, target, contrast))
                done += 1
                if progress is not None and progress(done, result.forwards) is False:
                    raise ReadoutError("The sweep was cancelled.")
            result.patched.append(lds)
            result.recovered.append([(ld - result.corrupt) / gap if gap else float("nan") for ld in lds])
        return result


def predicted_sweep(patcher: Patcher, progress: Callable[[int, int], bool] | None = None) -> tuple[Sweep, int, int]:
    """`patcher`'s sweep of every residual row × position, measuring logit(clean prediction) − logit(corrupted
    prediction) at the last position (the clean pass's second choice when both predict the same token): the
    Patching tab's question. Returns (the Sweep, target id, contrast id)."""
    clean, corrupt = patcher.logits(patcher.clean)[0, -1], patcher.logits(patcher.corrupt)[0, -1]
    target, contrast = int(clean.argmax()), int(corrupt.argmax())
    if contrast == target:
        contrast = int(clean.argsort()[-2])
    return patcher.sweep(target, contrast, -1, progress=progress), target, contrast
