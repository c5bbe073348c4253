"""Matching tensors of a probing run by value: the same tokens × features, equal up to rounding, a scalar apart."""

from __future__ import annotations

import torch
from torch import Tensor

from tfdebug.core.errors import UnsupportedModelError


def like(x: Tensor | None, ref: Tensor) -> Tensor | None:
    """`x` in `ref`'s shape when it is the same tokens × features, flattened or not (OPT's (B·T, D) stream)."""
    if not isinstance(x, Tensor) or not isinstance(ref, Tensor):
        return None
    if x.shape == ref.shape:
        return x
    if x.numel() == ref.numel() and x.dim() and ref.dim() and x.shape[-1] == ref.shape[-1]:
        return x.reshape(ref.shape)
    return None


def _tolerance(dtype: torch.dtype) -> float:
    """Rounding of one operation in `dtype`, relative to the values' size (a few units in the last place)."""
    return 1e-5 if dtype in (torch.float32, torch.float64) else 2e-2


def close(a: Tensor | None, b: Tensor | None, dtype: torch.dtype | None = None, magnitude: float = 1.0) -> bool:
    """The same tensor, or equal values up to the rounding of `dtype` (the tensors' own by default) at values
    of size `magnitude` (or their own, when larger)."""
    a = like(a, b)
    if a is None or b is None:
        return False
    if a is b:
        return True
    tol = _tolerance(dtype or (a.dtype if a.itemsize <= b.itemsize else b.dtype))
    size = max(1.0, magnitude, float(b.detach().abs().max()) if b.numel() else 1.0)
    return bool(((a.detach().double() - b.detach().double()).abs() <= tol * size).all())


def config_scales(config) -> frozenset[float]:
    """The multipliers a model may apply between modules: every float of its config and its reciprocal
    (Granite's residual_multiplier 0.22, logits_scaling 8 → 0.125 …)."""
    values = set()
    for value in config.to_dict().values():
        if isinstance(value, float) and value not in (0.0, 1.0) and abs(value) < 1e6:
            values.update((value, 1.0 / value))
    return frozenset(values)


def scale(diff: Tensor | None, out: Tensor | None, magnitude: float = 1.0,
          allowed: frozenset[float] | None = None) -> float | None:
    """c when diff = c·out (a scalar multiplier) up to the rounding of out's dtype at values of size
    `magnitude` (a sum's: its parts are rounded at its size), else None. With `allowed`, c is 1 or one of
    them: a scale the model's config names (any other fit is a coincidence of small random values)."""
    if diff is None or out is None or diff.shape != out.shape:
        return None
    d, o = diff.double(), out.double()
    if allowed is not None and not allowed:  # a plain sum: c is 1 (a fit would drift with rounding noise)
        return 1.0 if close(d, o, out.dtype, magnitude) else None
    denom = float((o * o).sum())
    if denom == 0.0:
        return None
    c = float((d * o).sum()) / denom
    if abs(c - 1.0) < 1e-6 or (out.dtype not in (torch.float32, torch.float64) and abs(c - 1.0) < 1e-2):
        c = 1.0
    if allowed is not None and c != 1.0:
        named = min(allowed, key=lambda v: abs(v - c), default=None)
        if named is None or abs(named - c) > 1e-2 * abs(named):
            return None
        c = named
    return c if close(d, o * c, out.dtype, magnitude) else None


def refuse(sentence: str, id: str, **fields) -> UnsupportedModelError:
    """The refusal of a model part tfdebug cannot match (id prefixed with 'hf.')."""
    return UnsupportedModelError(sentence, id=f"hf.{id}", **fields)
