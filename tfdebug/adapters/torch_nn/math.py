"""scaled_dot_product_attention written out stage by stage, with the fused kernel's numbers.

`decomposed_sdpa` takes the arguments of `F.scaled_dot_product_attention` plus a
`tap(stage, tensor) -> tensor` callback, and computes

    q_split, k_split, v_split       the inputs as given, (B, H, L|S, E)
    k_repeat, v_repeat              K/V heads repeated for grouped-query attention (enable_gqa)
    scores  = Q·Kᵀ                  (B, H, L, S)
    scaled  = scores · scale        scale = 1/√E unless given
    masked  = scaled with the mask  is_causal (top-left aligned), bool (False = masked → −∞) or float (added)
    probs   = softmax(masked)       rows where every key is masked give 0, as the fused kernel does
    context = probs·V               (B, H, L, Ev)

Whatever a tap returns flows on, so a replaced stage changes everything after it.
Dropout is refused: tfdebug steps through inference passes.
"""

from __future__ import annotations

import math
from typing import Callable

import torch
from torch import Tensor

from tfdebug.core.errors import UnsupportedModelError

StageTap = Callable[[str, Tensor], Tensor]


def _no_tap(_stage: str, tensor: Tensor) -> Tensor:
    return tensor


def check_call(dropout_p: float, is_causal: bool, attn_mask: Tensor | None, where: str) -> None:
    """Refuse what the decomposition does not compute (dropout) or what the fused kernel refuses."""
    if dropout_p and dropout_p > 0.0:
        raise UnsupportedModelError(
            "scaled_dot_product_attention at {where} was called with dropout_p={dropout}: tfdebug steps "
            "through inference passes only, so call it with dropout_p=0.0 outside training (model.eval()).",
            id="sdpa.dropout", where=where, dropout=f"{dropout_p:g}")
    if is_causal and attn_mask is not None:
        raise UnsupportedModelError(
            "scaled_dot_product_attention at {where} was given both attn_mask and is_causal=True, "
            "which the fused kernel refuses too: pass one of them.", id="sdpa.mask_and_causal", where=where)


def causal_keep(query_len: int, key_len: int, device: torch.device) -> Tensor:
    """(L, S) bool, True where a query may look: the lower triangle from the top-left corner, like the fused kernel."""
    return torch.ones(query_len, key_len, dtype=torch.bool, device=device).tril()


def decomposed_sdpa(query: Tensor, key: Tensor, value: Tensor, attn_mask: Tensor | None = None,
                    dropout_p: float = 0.0, is_causal: bool = False, scale: float | None = None,
                    enable_gqa: bool = False, *, tap: StageTap = _no_tap, where: str = "this module") -> Tensor:
    """What `F.scaled_dot_product_attention` returns, computed one tapped stage at a time."""
    check_call(dropout_p, is_causal, attn_mask, where)
    q = tap("q_split", query)
    k = tap("k_split", key)
    v = tap("v_split", value)
    if enable_gqa and k.size(-3) != q.size(-3):
        k = tap("k_repeat", k.repeat_interleave(q.size(-3) // k.size(-3), dim=-3))
    if enable_gqa and v.size(-3) != q.size(-3):
        v = tap("v_repeat", v.repeat_interleave(q.size(-3) // v.size(-3), dim=-3))
    scores = tap("scores", q @ k.transpose(-2, -1))  # (B, H, L, S)
    factor = 1.0 / math.sqrt(q.size(-1)) if scale is None else scale
    scores = tap("scaled", scores * factor)
    masked = is_causal or attn_mask is not None
    if is_causal:
        keep = causal_keep(q.size(-2), k.size(-2), q.device)
        scores = tap("masked", scores.masked_fill(~keep, float("-inf")))
    elif attn_mask is not None:
        if attn_mask.dtype == torch.bool:
            scores = tap("masked", torch.where(attn_mask, scores, float("-inf")))
        else:
            scores = tap("masked", scores + attn_mask)
    # A row whose keys are all masked is −∞ throughout: plain softmax gives NaN, the fused kernel 0.
    probs = torch._safe_softmax(scores, -1) if masked else torch.softmax(scores, -1)
    probs = tap("probs", probs)
    return tap("context", probs @ v)  # (B, H, L, Ev)
