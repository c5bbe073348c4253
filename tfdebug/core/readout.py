"""How a model reads its residual stream out as logits: its own final norm, its unembedding and what follows.

The logit lens and the direct logit attribution both read a residual vector the way the model reads its last
one. `Readout` holds the model's own modules (so at the last layer the lens is the logits stage itself), and
`FrozenNorm` writes the final norm as the affine map it is once its scale is frozen at the pass's value:
``y = gain ⊙ (x − c·mean(x)) / σ(x) + bias``, with c = 1 for LayerNorm and 0 for RMSNorm. Which of the known
formulas a norm module computes is found by recomputing its output on the pass's own vector (`FrozenNorm.of`):
a norm none of them reproduces is refused rather than guessed.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable

from tfdebug.core.errors import TfdebugError

if TYPE_CHECKING:
    from torch import Tensor, nn


class ReadoutError(TfdebugError):
    """The model has no readout the lens or the attribution can use (no LM head, a norm of unknown form)."""


#: relative error within which a recomputed norm output counts as the module's own (float32 rounding)
NORM_MATCH = 1e-4


def _first(module, names: tuple[str, ...]):
    for name in names:
        value = getattr(module, name, None)
        if value is not None:
            return value
    return None


@dataclass(frozen=True)
class NormForm:
    """One formula a final norm may compute: centred or not, σ = sqrt(var + eps) or std + eps, gain w or 1 + w."""

    name: str
    centre: bool
    unbiased_std: bool = False
    one_plus: bool = False

    def sigma(self, x: Tensor, eps: float) -> Tensor:
        """σ(x) over the last axis (float64), as this form computes it."""
        import torch

        if self.unbiased_std:
            return x.std(-1, keepdim=True) + eps
        centred = x - x.mean(-1, keepdim=True) if self.centre else x
        return torch.sqrt((centred * centred).mean(-1, keepdim=True) + eps)


FORMS = (NormForm("LayerNorm", True), NormForm("RMSNorm", False), NormForm("RMSNorm (1 + w)", False, one_plus=True),
         NormForm("LayerNorm (std + eps)", True, unbiased_std=True))


@dataclass(frozen=True)
class FrozenNorm:
    """A final norm with its scale frozen at one vector's value: linear in what it is applied to, plus `bias`.

    `gain` (d,) already holds 1/σ; `apply(t)` maps a residual term to its share of the norm's output, and the
    shares of terms that sum to the frozen vector sum to the norm's output less `bias`."""

    form: str
    centre: bool
    gain: Tensor
    bias: Tensor | None

    @classmethod
    def of(cls, module: nn.Module | Callable | None, x: Tensor) -> "FrozenNorm":
        """The norm `module` frozen at vector `x` (d,): the first known form whose output equals the module's own
        on `x`; None for the module means no norm (gain 1). ReadoutError when no form reproduces it."""
        import torch

        x64 = x.detach().double()
        if module is None:
            return cls("none", False, torch.ones_like(x64), None)
        weight, bias = _first(module, ("weight", "a_2", "scale")), _first(module, ("bias", "b_2", "shift"))
        eps = _first(module, ("eps", "variance_epsilon", "epsilon"))
        eps = float(eps[0] if isinstance(eps, tuple) else eps) if eps is not None else 0.0
        with torch.no_grad():
            own = module(x.detach().reshape(1, 1, -1)).reshape(-1).double()
        w = weight.detach().double() if isinstance(weight, torch.Tensor) else torch.ones_like(x64)
        b = bias.detach().double() if isinstance(bias, torch.Tensor) else None
        scale = float(own.abs().max()) or 1.0
        for form in FORMS:
            gain = ((1 + w) if form.one_plus else w) / form.sigma(x64, eps).reshape(())
            centred = x64 - x64.mean() if form.centre else x64
            again = gain * centred + (b if b is not None else 0)
            if float((again - own).abs().max()) <= NORM_MATCH * scale:
                return cls(form.name, form.centre, gain, b)
        raise ReadoutError(f"The final norm ({type(module).__name__}) computes none of LayerNorm's or RMSNorm's "
                           "forms, so its scale cannot be frozen for the attribution.")

    def apply(self, t: Tensor) -> Tensor:
        """The share of term(s) `t` (…, d) in the norm's output: gain ⊙ (t − c·mean(t)), in float64."""
        t = t.double()
        if self.centre:
            t = t - t.mean(-1, keepdim=True)
        return t * self.gain


@dataclass(frozen=True)
class Readout:
    """The model's own way from a residual vector to logits: `norm` (or None), the unembedding `head` and, for
    models that cap their logits, `softcap` (cap · tanh(z / cap)). `stage` names the residual stage the
    final norm reads and `norm_stage` its output (the last residual and `dec.norm`, say)."""

    norm: Callable | None
    head: nn.Module
    stage: str
    norm_stage: str | None = None
    softcap: float | None = None

    def logits(self, x: Tensor) -> Tensor:
        """Logits of residual vectors `x` (…, d), with the model's own modules in the model's dtype."""
        import torch

        with torch.no_grad():
            z = self.head(self.norm(x) if self.norm is not None else x)
            return z if not self.softcap else torch.tanh(z / self.softcap) * self.softcap

    def unembedding(self) -> tuple[Tensor, Tensor | None]:
        """The head's weight as (vocab, d) and its bias (vocab,) or None (an nn.Linear, or a tied embedding)."""
        weight = getattr(self.head, "weight", None)
        if weight is None or weight.dim() != 2:
            raise ReadoutError(f"The unembedding ({type(self.head).__name__}) is not a linear map tfdebug can read.")
        return weight.detach(), getattr(self.head, "bias", None)
