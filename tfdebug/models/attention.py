"""Multi-head attention written out step by step, so every intermediate can be tapped.

No fused scaled_dot_product_attention: each line below is one stage a user can pause at.

Generation adds a KV cache (`KVCache`): masked self-attention appends each step's K and
V to it and attends over everything cached, so earlier tokens are never recomputed;
cross-attention computes the encoder's K and V once, at the first step, and reuses them.
"""

from __future__ import annotations

import math
from dataclasses import replace

import torch
import torch.nn.functional as F
from torch import Tensor, nn

from tfdebug.core.masks import mask_formula
from tfdebug.core.tap import Tap
from tfdebug.models.config import ModelArgs

_QKV_AXES = {"q": ("batch", "query", "model"), "k": ("batch", "key", "model"), "v": ("batch", "key", "model")}
_SPLIT_AXES = {"q": ("batch", "head", "query", "head_dim"), "k": ("batch", "head", "key", "head_dim"),
               "v": ("batch", "head", "key", "head_dim")}
_MATRIX = ("batch", "head", "query", "key")


class KVCache:
    """The keys and values one attention block has seen so far, split into heads: (B, H, T_cached, Dh).

    Empty (None) until the first step. Self-attention grows it by the new tokens each
    step; cross-attention fills it once from the encoder output.
    """

    def __init__(self):
        self.k: Tensor | None = None
        self.v: Tensor | None = None

    @property
    def length(self) -> int:
        """How many keys are cached."""
        return 0 if self.k is None else self.k.shape[2]

    def append(self, k: Tensor, v: Tensor) -> tuple[Tensor, Tensor]:
        """Add this step's K and V (B, H, T_new, Dh) after the cached ones; return the whole cache."""
        self.k = k if self.k is None else torch.cat([self.k, k], dim=2)  # (B, H, T_cached + T_new, Dh)
        self.v = v if self.v is None else torch.cat([self.v, v], dim=2)  # (B, H, T_cached + T_new, Dh)
        return self.k, self.v


def _attention_taps(prefix: str, query_tokens: str, key_tokens: str, cross: bool, masked: bool,
                    kv_from: str) -> nn.ModuleDict:
    """The taps of one attention block, in forward order. Q reads the block's norm; K and V read `kv_from`."""
    source = "H_enc" if cross else "X"
    t_q = {"query": query_tokens}
    t_k = {"key": key_tokens}
    t_qk = {"query": query_tokens, "key": key_tokens}
    taps = {
        "q": Tap(f"{prefix}.q", "q_proj", _QKV_AXES["q"], "Q = X·W^Q", tokens=t_q, inputs=(".norm",)),
        "k": Tap(f"{prefix}.k", "k_proj", _QKV_AXES["k"], f"K = {source}·W^K", tokens=t_k, inputs=(kv_from,)),
        "v": Tap(f"{prefix}.v", "v_proj", _QKV_AXES["v"], f"V = {source}·W^V", tokens=t_k, inputs=(kv_from,)),
    }
    for role, tokens in (("q", t_q), ("k", t_k), ("v", t_k)):
        taps[f"{role}_split"] = Tap(
            f"{prefix}.{role}_split", "head_split", _SPLIT_AXES[role],
            f"{role.upper()}.view(B, T, H, d_k).transpose(1, 2)",
            role=role, ops=("view", "transpose"), tokens=tokens, inputs=(f".{role}",),
        )
    # With a KV cache, K and V are read from the cache (all keys so far), stages of their own.
    for role in ("k", "v"):
        taps[f"cache_{role}"] = Tap(
            f"{prefix}.cache_{role}", "kv_cache", _SPLIT_AXES[role],
            f"cache_{role.upper()} = concat(cached {role.upper()}, this step's {role.upper()})" if not cross
            else f"cache_{role.upper()} = {role.upper()} of H_enc, computed at step 0 and reused",
            role=role, tokens=t_k, inputs=(f".{role}_split",),
        )
    taps["scores"] = Tap(f"{prefix}.scores", "scores", _MATRIX, "Q·Kᵀ", tokens=t_qk, inputs=(".q_split", ".k_split"))
    taps["scaled"] = Tap(f"{prefix}.scaled", "scale", _MATRIX, "Q·Kᵀ / √d_k", tokens=t_qk, inputs=(".scores",))
    if masked:
        # Labelled for the masks a pass applies (MultiHeadAttention.forward relabels it): this is the usual one.
        taps["masked"] = Tap(f"{prefix}.masked", "mask", _MATRIX, mask_formula(causal=not cross, padding=cross),
                             tokens=t_qk, inputs=(".scaled",))
    # Softmax reads the masked scores; in a pass where no mask applies `masked` does not run
    # and the scores come straight from `scaled` (StageInfo.inputs says how views handle that).
    taps["probs"] = Tap(f"{prefix}.probs", "softmax", _MATRIX, "P = softmax(·, over keys)", tokens=t_qk,
                        inputs=(".masked",))
    taps["dropout"] = Tap(f"{prefix}.dropout", "attn_dropout", _MATRIX, "Dropout(P)", tokens=t_qk,
                          inputs=(".probs",))
    taps["context"] = Tap(f"{prefix}.context", "attn_v", ("batch", "head", "query", "head_dim"), "P·V", tokens=t_q,
                          inputs=(".dropout", ".v_split"))
    taps["merged"] = Tap(
        f"{prefix}.merged", "head_merge", ("batch", "query", "model"),
        "concat(heads) = context.transpose(1, 2).view(B, T, H·d_k)", ops=("transpose", "view"), tokens=t_q,
        inputs=(".context",),
    )
    taps["out"] = Tap(f"{prefix}.out", "out_proj", ("batch", "query", "model"), "concat(heads)·W^O", tokens=t_q,
                      inputs=(".merged",))
    return nn.ModuleDict(taps)


def _label(tap: Tap, formula: str) -> None:
    """Say in the tap's formula what this pass masks: an encoder masks only padding, a decoder the future too."""
    if tap.info.formula != formula:
        tap.info = replace(tap.info, formula=formula)


class MultiHeadAttention(nn.Module):
    """Multi-head attention: self-attention, masked (causal) self-attention, or cross-attention.

    `prefix` names its stages (e.g. 'dec.0.cross_attn'); `query_tokens`/`key_tokens` say
    which sequence ('src' or 'tgt') the query and key axes index. `kv_from` is the stage K
    and V are computed from (the block's own norm, or 'enc.norm' for cross-attention).
    """

    def __init__(self, args: ModelArgs, prefix: str, query_tokens: str, key_tokens: str,
                 is_causal: bool = False, is_cross: bool = False, kv_from: str = ".norm"):
        super().__init__()
        self.head_dim = args.dim // args.n_heads
        self.n_heads = args.n_heads
        # One wide matrix per role stands for the H per-head matrices side by side.
        self.wq = nn.Linear(args.n_embd, self.n_heads * self.head_dim, bias=False)
        self.wk = nn.Linear(args.n_embd, self.n_heads * self.head_dim, bias=False)
        self.wv = nn.Linear(args.n_embd, self.n_heads * self.head_dim, bias=False)
        self.wo = nn.Linear(self.n_heads * self.head_dim, args.dim, bias=False)
        self.attn_dropout = nn.Dropout(args.dropout)
        self.resid_dropout = nn.Dropout(args.dropout)
        self.is_causal = is_causal
        self.is_cross = is_cross
        if is_causal:
            mask = torch.full((1, 1, args.max_seq_len, args.max_seq_len), float("-inf"))
            mask = torch.triu(mask, diagonal=1)  # −∞ strictly above the diagonal, 0 elsewhere
            self.register_buffer("mask", mask, persistent=False)
        # A padding-only block gets its `masked` tap too; it is used only when padding is present.
        self.taps = _attention_taps(prefix, query_tokens, key_tokens, cross=is_cross, masked=True,
                                    kv_from=kv_from)

    def forward(self, q: Tensor, k: Tensor, v: Tensor, key_padding: Tensor | None = None,
                cache: KVCache | None = None) -> Tensor:
        """q: (B, Tq, D); k, v: (B, Tk, D); key_padding: additive (B, 1, 1, Tk) of 0/−∞, or None.

        With a `cache`, self-attention appends this call's K and V to it and attends over
        the whole cache; cross-attention fills an empty cache and otherwise reuses it
        (then `k` and `v` are not read).
        """
        taps = self.taps
        bsz, q_len, _ = q.shape
        # Cross-attention with a filled cache reuses the encoder's K and V from the first step.
        reuse = cache is not None and self.is_cross and cache.k is not None
        kv_len = k.shape[1]

        xq = taps["q"](self.wq(q))  # (B, Tq, D)
        if not reuse:
            xk = taps["k"](self.wk(k))  # (B, Tk, D)
            xv = taps["v"](self.wv(v))  # (B, Tk, D)

        xq = taps["q_split"](xq.view(bsz, q_len, self.n_heads, self.head_dim).transpose(1, 2))  # (B, H, Tq, Dh)
        if reuse:
            xk, xv = cache.k, cache.v  # (B, H, Ts, Dh)
        else:
            xk = taps["k_split"](xk.view(bsz, kv_len, self.n_heads, self.head_dim).transpose(1, 2))  # (B, H, Tk, Dh)
            xv = taps["v_split"](xv.view(bsz, kv_len, self.n_heads, self.head_dim).transpose(1, 2))  # (B, H, Tk, Dh)
            if cache is not None:
                xk, xv = cache.append(xk, xv)  # (B, H, T_cached + Tk, Dh)
        if cache is not None:
            # What the cache holds is what attention reads: a replaced tensor is cached too.
            cache.k = xk = taps["cache_k"](xk)  # (B, H, T_cached, Dh)
            cache.v = xv = taps["cache_v"](xv)  # (B, H, T_cached, Dh)
        k_len = xk.shape[2]

        scores = taps["scores"](torch.matmul(xq, xk.transpose(2, 3)))  # (B, H, Tq, Tk)
        scores = taps["scaled"](scores / math.sqrt(self.head_dim))  # (B, H, Tq, Tk)

        additive = self._additive_mask(q_len, k_len, key_padding, scores.dtype)
        if additive is not None:
            _label(taps["masked"], mask_formula(causal=self.is_causal, padding=key_padding is not None))
            scores = taps["masked"](scores + additive)  # (B, H, Tq, Tk); M broadcast from (1|B, 1, 1|Tq, Tk)

        # Softmax in float32: in half precision exp() overflows; the result returns to the input dtype.
        probs = taps["probs"](F.softmax(scores.float(), dim=-1).type_as(xq))  # (B, H, Tq, Tk)
        probs = taps["dropout"](self.attn_dropout(probs))  # (B, H, Tq, Tk)
        context = taps["context"](torch.matmul(probs, xv))  # (B, H, Tq, Dh)

        merged = taps["merged"](context.transpose(1, 2).contiguous().view(bsz, q_len, -1))  # (B, Tq, D)
        return taps["out"](self.resid_dropout(self.wo(merged)))  # (B, Tq, D)

    def _additive_mask(self, q_len: int, k_len: int, key_padding: Tensor | None, dtype) -> Tensor | None:
        masks = []
        if self.is_causal:
            # The queries are the last q_len of the k_len positions (all of them without a cache).
            masks.append(self.mask[:, :, k_len - q_len:k_len, :k_len].to(dtype))  # (1, 1, Tq, Tk)
        if key_padding is not None:
            masks.append(key_padding.to(dtype))  # (B, 1, 1, Tk)
        if not masks:
            return None
        return masks[0] if len(masks) == 1 else masks[0] + masks[1]
