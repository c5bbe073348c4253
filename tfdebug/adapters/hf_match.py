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


def close(a: Tensor | None, b: Tensor | None) -> bool:
    """The same tensor, or equal values up to rounding (tolerance by dtype)."""
    a = like(a, b)
    if a is None or b is None:
        return False
    if a is b:
        return True
    tol = 1e-5 if a.dtype in (torch.float32, torch.float64) else 2e-2
    scale = max(1.0, float(b.detach().abs().max())) if b.numel() else 1.0
    return bool(((a.detach().double() - b.detach().double()).abs() <= tol * scale).all())


def scale(diff: Tensor | None, out: Tensor | None) -> float | None:
    """c when diff = c·out (a scalar multiplier), else None."""
    if diff is None or out is None or diff.shape != out.shape:
        return None
    d, o = diff.double(), out.double()
    denom = float((o * o).sum())
    if denom == 0.0:
        return None
    c = float((d * o).sum()) / denom
    if abs(c - 1.0) < 1e-6:
        c = 1.0
    return c if close(d, o * c) else None


def refuse(sentence: str, id: str, **fields) -> UnsupportedModelError:
    """The refusal of a model part tfdebug cannot match (id prefixed with 'hf.')."""
    return UnsupportedModelError(sentence, id=f"hf.{id}", **fields)
