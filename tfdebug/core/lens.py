"""The logit lens: what the model would predict if its residual stream stopped at an earlier stage.

Each cell is one residual stage (a row: the embeddings, then each block's output) at one position, read out
with the model's own final norm and unembedding (`core.readout.Readout`), so the last row is the logits stage
itself. A cell says its top-k tokens with their probabilities, the probability and rank of a target token,
the entropy of its distribution and its KL divergence from the final one, KL(final ‖ lens). Only the cells
asked for are computed, a block of positions at a time: a whole lens of a long prompt over a large
vocabulary is never made.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Sequence

if TYPE_CHECKING:
    from torch import Tensor

    from tfdebug.core.readout import Readout

#: positions read out at once: (positions × vocabulary) float32 logits is the largest thing the lens holds
BLOCK = 64


@dataclass(frozen=True)
class LensCell:
    """One (residual stage, position) of the lens."""

    top: tuple[tuple[int, float], ...]  # (token id, probability), most probable first
    target: int  # the token whose probability and rank are shown
    p_target: float
    rank: int  # 1 for the most probable token
    entropy: float  # nats
    kl: float  # KL(final ‖ this cell), nats


@dataclass
class LensGrid:
    """Cells for `rows` (residual stage names, embeddings first) × `positions`; `cells[r][p]`."""

    rows: list[str]
    positions: list[int]
    cells: list[list[LensCell]] = field(default_factory=list)

    def to_dict(self) -> dict:
        """A JSON-ready dict (documented in docs/why.md)."""
        return {"rows": self.rows, "positions": self.positions,
                "cells": [[asdict(c) for c in row] for row in self.cells]}


def _cells(logits: Tensor, final_logp: Tensor, final_p: Tensor, targets: Tensor, k: int) -> list[LensCell]:
    """The cells of one block: `logits` (n, V) of the lens, `final_logp` (n, V) the final log-probabilities and
    `final_p` their exponent (once a block, for every row)."""
    import torch

    logp = torch.log_softmax(logits.float(), dim=-1)
    p = logp.exp()
    top = torch.topk(p, min(k, p.shape[-1]), dim=-1)
    picked = logp.gather(-1, targets[:, None])[:, 0]
    rank = (logp > picked[:, None]).sum(-1) + 1
    entropy = -(p * logp).nan_to_num().sum(-1)
    kl = (final_p * (final_logp - logp)).nan_to_num().sum(-1)
    host = torch.stack([picked.exp().double(), rank.double(), entropy.double(), kl.double()]).cpu().tolist()
    ids, probs = top.indices.cpu().tolist(), top.values.double().cpu().tolist()
    out = []
    for n in range(logits.shape[0]):
        out.append(LensCell(tuple(zip(ids[n], probs[n])), int(targets[n]), host[0][n], int(host[1][n]),
                            host[2][n], max(0.0, host[3][n])))
    return out


def lens_grid(readout: Readout, rows: Sequence[tuple[str, Tensor]], final: Tensor, positions: Sequence[int],
              target: int | None = None, k: int = 5) -> LensGrid:
    """The lens of residual tensors `rows` ((name, (T, d)) each, one batch row) at `positions`.

    `final` (T, V) is the pass's own logits stage: its distribution is what KL is measured from, and its
    most probable token at each position is the target when `target` is None."""
    import torch

    grid = LensGrid([name for name, _ in rows], list(positions))
    grid.cells = [[] for _ in rows]
    for start in range(0, len(grid.positions), BLOCK):
        chunk = grid.positions[start:start + BLOCK]
        index = torch.tensor(chunk, device=final.device)
        final_logp = torch.log_softmax(final.index_select(0, index).float(), dim=-1)
        final_p = final_logp.exp()
        targets = (final_logp.argmax(-1) if target is None
                   else torch.full((len(chunk),), int(target), device=final.device, dtype=torch.long))
        for r, (_, tensor) in enumerate(rows):
            x = tensor.index_select(0, index.to(tensor.device))
            logits = readout.logits(x).to(final.device)
            grid.cells[r].extend(_cells(logits, final_logp, final_p, targets, k))
    return grid
