"""Taps for attention computed in a model's own code: planned from `hf_ops.read_attention`, run op by op.

`plan_own_site` adds the stages of one such module, in the order the model computes them
(the product Q·Kᵀ, the scale, ALiBi or a relative position bias, the mask, the softmax,
the weighted sum; the rotated query and key where the model rotates them, the cache's keys
and values in a generation). `own_attention_tapped(sites)` runs each of those modules with
`OwnAttentionMode` active only while its forward runs: the mode counts operations as the
probe did and hands each named result to its tap; what a tap returns flows on. The model's
own operations compute every value; where one fused operation holds several stages
(BLOOM's baddbmm: β·ALiBi + α·Q·Kᵀ; DeBERTa-v2's product with Kᵀ already scaled) the parts
before it are computed beside it to be shown, and an edit of one of them is recombined
the way the fused operation combines them. `FirstCallOnly` keeps a projection's stages to
its first call where the model's own code calls it again on other inputs.
"""

from __future__ import annotations

from collections import Counter
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, replace
from typing import Iterator, Mapping

import torch
from torch import Tensor, nn
from torch.overrides import TorchFunctionMode
from torch.utils.hooks import RemovableHandle

from tfdebug.adapters.hf.builder import MATRIX, SPLIT_AXES
from tfdebug.adapters.hf.hooks import mute_key
from tfdebug.adapters.hf.ops import Key, OwnAttention, heads_first, op_name
from tfdebug.core.tap import Tap

_BIAS_FORMULA = {
    "alibi": "S + m_h·(j − i)  (ALiBi: each head's slope times the distance to the key, added in place of "
             "position embeddings)",
    "position_bias": "S + B  (B: a position bias the model computes in its own code, such as DeBERTa's "
                     "content→position and position→content scores)",
}


@dataclass(frozen=True)
class OwnSite:
    """The taps of one own-code attention module (keyed 'scores', 'probs' …) and how its operations map to them."""

    taps: Mapping[str, Tap]
    own: OwnAttention
    rotary: bool = False
    cached: bool = False


def plan_own_site(b, prefix: str, module: nn.Module, path: str, own: OwnAttention, rotary: bool,
                  q_tokens: str, k_tokens: str, merge_into: str) -> None:
    """Every stage of `module`'s attention (see the module docstring) and the head merge before `merge_into`."""
    tq, tk, tqk = {"query": q_tokens}, {"key": k_tokens}, {"query": q_tokens, "key": k_tokens}
    taps: dict[str, Tap] = {}
    q_in, k_in = ".q_split", ".k_split"
    if rotary:
        for role in "qk":
            taps[f"{role}_rotary"] = b.tap(f"{prefix}.{role}_rotary", "rotary", SPLIT_AXES[role],
                                           f"RoPE({role.upper()}_split, pos)", tq if role == "q" else tk, path,
                                           role=role, inputs=(f".{role}_split",))
        q_in, k_in = ".q_rotary", ".k_rotary"
    for role, source in (("k", k_in), ("v", ".v_split")):
        taps[f"cache_{role}"] = b.tap(f"{prefix}.cache_{role}", "kv_cache", SPLIT_AXES[role],
                                      f"cache_{role.upper()} = cache.update({role.upper()}): every {role.upper()} so "
                                      "far", tk, path, role=role, inputs=(source,))
    previous = ""
    for stage in own.stage_order():
        if stage == "scores":
            formula, inputs, kind = "Q·Kᵀ", (q_in, k_in), "scores"
        elif stage == "scaled":
            factor = {"prescaled": own.prescale, "baddbmm": own.alpha}.get(
                own.form, next((s.factor for s in own.steps if s.role == "scale"), 1.0))
            formula, inputs, kind = f"S × {factor:.6g}", (previous,), "scale"
            if own.form == "prescaled":
                which = "K" if own.prescale_arg else "Q"
                formula = f"Q·Kᵀ × {factor:.6g}  (the model scales {which} before the product)"
        elif stage == "masked":
            formula, inputs, kind = "S + M  (M: finfo.min where a query may not look)", (previous,), "mask"
        else:
            formula, inputs, kind = _BIAS_FORMULA[stage], (previous,), "position_bias"
            if own.form == "baddbmm" and own.beta != 1.0:
                formula = f"{own.beta:g}·bias + S  " + formula.split("  ", 1)[1]
        taps[stage] = b.tap(f"{prefix}.{stage}", kind, MATRIX, formula, tqk, path, inputs=inputs)
        previous = f".{stage}"
    taps["probs"] = b.tap(f"{prefix}.probs", "softmax", MATRIX, "P = softmax(·, over keys)", tqk, path,
                          inputs=(previous,))
    taps["context"] = b.tap(f"{prefix}.context", "attn_v", SPLIT_AXES["q"], "P·V", tq, path,
                            inputs=(".probs", ".v_split"))
    b.plan.own_sites[module] = OwnSite(taps, own, rotary)
    b.input(merge_into, f"{prefix}.merged", "head_merge", ("batch", "query", "model"),
            "concat(heads) = context.transpose(1, 2).reshape(B, T, H·d_k)", tq, ops=("transpose", "reshape"),
            inputs=(".context",))


@dataclass(frozen=True)
class FirstCallOnly:
    """The hooks of the module at `path` fire on its first call in each call of the module at `within` only:
    a projection that attention written in a model's own code calls again on other inputs (DeBERTa-v2 projects
    its relative position embeddings with the same query and key projections)."""

    path: str
    within: str

    def install(self, model: nn.Module, taps: Mapping[str, Tap], stash: dict) -> list[RemovableHandle]:
        muted, seen = mute_key(self.path), ("seen", self.path)

        def reset(module, args):
            stash[muted] = stash[seen] = False

        def count(module, args):
            stash[muted], stash[seen] = stash.get(seen, False), True

        return [model.get_submodule(self.within).register_forward_pre_hook(reset),
                model.get_submodule(self.path).register_forward_pre_hook(count)]


def _shown(tap: Tap, t: Tensor, batch: int) -> Tensor:
    """`t` through `tap` seen as (B, H, T, ·); the model's own layout back (the tensor itself when unchanged)."""
    seen = heads_first(t, batch)
    new = tap(seen)
    return t if new is seen else new.reshape(t.shape)


class OwnAttentionMode(TorchFunctionMode):
    """Active while one own-code attention module runs: each operation the site names goes through its tap."""

    def __init__(self, site: OwnSite, batch: int):
        super().__init__()
        self.site, self.batch, self.counts = site, batch, Counter()
        own = site.own
        self.roles: dict[Key, str] = {own.scores: "scores", own.softmax: "probs", own.context: "context"}
        for step in own.steps:
            self.roles[step.key] = {"scale": "scaled", "mask": "masked"}.get(step.role, step.stage)
        if own.prescale_op is not None:
            self.roles[own.prescale_op] = "prescale"
        self.unscaled: Tensor | None = None
        self.uncast: Tensor | None = None  # the softmax's result, until the cast that makes the probabilities

    def __torch_function__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        name = op_name(func)
        if name is None:
            return func(*args, **kwargs)
        if self.uncast is not None and name == "to" and args and args[0] is self.uncast:
            self.uncast = None
            return _shown(self.site.taps["probs"], func(*args, **kwargs), self.batch)
        key = (name, self.counts[name])
        self.counts[name] += 1
        role = self.roles.get(key)
        if role is None:
            return func(*args, **kwargs)
        if role == "prescale":
            self.unscaled = args[0]
            return func(*args, **kwargs)
        if role == "scores":
            return self._scores(func, args, kwargs)
        if role == "context":
            return self._context(func, args, kwargs)
        if role == "probs" and self.site.own.cast:
            self.uncast = func(*args, **kwargs)
            return self.uncast
        return _shown(self.site.taps[role], func(*args, **kwargs), self.batch)

    def _keys(self, a: Tensor, b: Tensor) -> tuple[Tensor, Tensor]:
        """The query and keys as the product reads them (rotated, the cache's), each through its tap."""
        taps = self.site.taps
        if self.site.rotary:
            a = _shown(taps["q_rotary"], a, self.batch)
        for name in (("k_rotary",) if self.site.rotary else ()) + (("cache_k",) if self.site.cached else ()):
            b = _shown(taps[name], b.transpose(-1, -2), self.batch).transpose(-1, -2)
        return a, b

    def _scores(self, func, args, kwargs) -> Tensor:
        taps, own, batch = self.site.taps, self.site.own, self.batch
        if own.form == "baddbmm":
            bias = args[0]
            kw = dict(kwargs)
            a, b = kw.pop("batch1", None), kw.pop("batch2", None)
            rest = list(args[1:])
            a = rest.pop(0) if a is None else a
            b = rest.pop(0) if b is None else b
            a, b = self._keys(a, b)
            raw = torch.bmm(a, b)  # (B·H, Tq, Tk): the product inside the fused operation, to be shown
            scores = _shown(taps["scores"], raw, batch)
            product = scores * own.alpha
            scaled = _shown(taps["scaled"], product, batch)
            if scores is raw and scaled is product:  # nothing edited: the model's own fused operation
                out = func(bias, batch1=a, batch2=b, beta=own.beta, alpha=own.alpha)
            else:
                out = bias * own.beta + scaled
            return _shown(taps[own.bias_stage], out, batch)
        a, b = args[0], args[1]
        if own.form == "prescaled":
            unscaled = self.unscaled if self.unscaled is not None else (b if own.prescale_arg else a)
            raw = torch.matmul(a, unscaled) if own.prescale_arg else torch.matmul(unscaled, b)
            scores = _shown(taps["scores"], raw, batch)
            out = func(*args, **kwargs) if scores is raw else scores * own.prescale
            return _shown(taps["scaled"], out, batch)
        a, b = self._keys(a, b)
        return _shown(taps["scores"], func(a, b, *args[2:], **kwargs), batch)

    def _context(self, func, args, kwargs) -> Tensor:
        probs, values = args[0], args[1]
        if self.site.cached:
            values = _shown(self.site.taps["cache_v"], values, self.batch)
        return _shown(self.site.taps["context"], func(probs, values, *args[2:], **kwargs), self.batch)


@contextmanager
def own_attention_tapped(sites: Mapping[nn.Module, OwnSite], cached: bool = False) -> Iterator[None]:
    """Each module of `sites` runs with its `OwnAttentionMode` inside the block; hooks removed in `finally`
    (a mode a failed forward left entered is left too)."""
    entered: list[OwnAttentionMode] = []

    def enter(site: OwnSite):
        def hook(module, args, kwargs):
            first = args[0] if args else kwargs.get("hidden_states")
            mode = OwnAttentionMode(site, first.shape[0])
            mode.__enter__()
            entered.append(mode)
        return hook

    def leave(module, args, output):
        if entered:
            entered.pop().__exit__(None, None, None)

    with ExitStack() as stack:
        for module, site in sites.items():
            site = replace(site, cached=cached)
            handles = [module.register_forward_pre_hook(enter(site), with_kwargs=True),
                       module.register_forward_hook(leave, always_call=True)]
            stack.callback(lambda hs=handles: [h.remove() for h in hs])
        try:
            yield
        finally:
            while entered:
                entered.pop().__exit__(None, None, None)
