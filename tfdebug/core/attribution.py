"""Direct logit attribution: how much each part of the residual stream adds to logit(target) − logit(contrast).

The residual stream the final norm reads is a sum: the embeddings, then what each block adds (attention,
feed-forward; each attention block split further into its heads, each head's slice of W^O applied to its
context, and W^O's bias). With the final norm's scale frozen at the pass's own value (`FrozenNorm`: for a
LayerNorm each term is centred), the norm is linear, so each term's share of the logit difference is
``(W_U[target] − W_U[contrast]) · norm_frozen(term)``; the norm's bias and the unembedding's bias are terms of
their own. The terms then sum to the pass's own logit difference (`Attribution.gap` says by how much they do
not, a rounding error in float32). Without a contrast the logit of the target alone is split.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Sequence

if TYPE_CHECKING:
    from torch import Tensor

    from tfdebug.core.readout import FrozenNorm

#: the convention, stated wherever an attribution is shown
CONVENTION = ("final norm's scale frozen at this pass's value (LayerNorm's centring applied to each term); "
              "softcapping, where a model has it, is left out: terms add up to the logits before it")


@dataclass(frozen=True)
class Term:
    """One component's share of the logit difference. `kind`: embed; attn (an attention block not split into
    heads); head and attn_bias (a split one: each head, and W^O's bias with whatever else the block adds);
    ffn; norm_bias; head_bias (the unembedding's). `stage` is where to look at it."""

    label: str
    kind: str
    value: float
    layer: int | None = None
    head: int | None = None
    stage: str = ""


@dataclass
class Attribution:
    """The terms of logit(target) − logit(contrast) at `position`; `logit_diff` is the pass's own."""

    position: int
    target: int
    contrast: int | None
    logit_diff: float
    terms: list[Term] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    convention: str = CONVENTION

    @property
    def total(self) -> float:
        """The sum of the terms (they are disjoint: a block split into heads has no term of its own)."""
        return sum(t.value for t in self.terms)

    @property
    def gap(self) -> float:
        """The pass's logit difference less the terms' sum."""
        return self.logit_diff - self.total

    def layers(self) -> dict[int, float]:
        """Per layer the sum of its terms: the per-layer bars."""
        out: dict[int, float] = {}
        for t in self.terms:
            if t.layer is not None:
                out[t.layer] = out.get(t.layer, 0.0) + t.value
        return out

    def heads(self) -> dict[tuple[int, str], list[float]]:
        """Per (layer, attention block) the heads' values, in head order: the layers × heads picture."""
        out: dict[tuple[int, str], list[float]] = {}
        for t in self.terms:
            if t.kind == "head":
                assert t.layer is not None  # a head's term names its layer
                row = out.setdefault((t.layer, t.stage.rsplit(".", 1)[0]), [])
                row.append(t.value)
        return out

    def to_dict(self) -> dict:
        """A JSON-ready dict (documented in docs/why.md)."""
        return {"position": self.position, "target": self.target, "contrast": self.contrast,
                "logit_diff": self.logit_diff, "total": self.total, "gap": self.gap, "convention": self.convention,
                "notes": list(self.notes), "terms": [asdict(t) for t in self.terms]}


def direction(unembedding: Tensor, target: int, contrast: int | None) -> Tensor:
    """W_U[target] − W_U[contrast] (W_U[target] alone without a contrast), float64, (d,)."""
    u = unembedding[target].double()
    return u - unembedding[contrast].double() if contrast is not None else u


def project(norm: FrozenNorm, u: Tensor, vectors: Sequence[Tensor]) -> list[float]:
    """Each residual term's share of the logit difference along `u`: u · norm_frozen(term)."""
    import torch

    if not vectors:
        return []
    stacked = torch.stack([v.reshape(-1).double().to(u.device) for v in vectors])
    return (norm.apply(stacked) @ u).cpu().tolist()
