"""Taps and hooks of one Hugging Face model, added one stage (or one attention block) at a time.

The generic planner (`hf_names`) decides what a model's stages are; `Builder` turns each
decision into a `Tap` (name, kind, axes, formula, tokens, inputs, source line) and the
module hook that calls it. `TapPlan` is the result, with the facts the stage-level
verification needs (which stage holds each layer's probabilities and hidden state).
"""

from __future__ import annotations

import inspect
import os
from dataclasses import dataclass, field

from torch import nn

from tfdebug.adapters.hf.attention import AttentionSite
from tfdebug.adapters.hf.hooks import FusedQKV, Hook, Input, Output
from tfdebug.core.masks import window_note
from tfdebug.core.tap import Tap

STREAM = ("batch", "token", "model")
HIDDEN = ("batch", "token", "hidden")
LOGITS = ("batch", "token", "vocab")
MATRIX = ("batch", "head", "query", "key")
PROJ_AXES = {"q": ("batch", "query", "model"), "k": ("batch", "key", "model"), "v": ("batch", "key", "model")}
SPLIT_AXES = {"q": ("batch", "head", "query", "head_dim"), "k": ("batch", "head", "key", "head_dim"),
              "v": ("batch", "head", "key", "head_dim")}


@dataclass
class TapPlan:
    """Everything that shows one model's stages: taps by name, module hooks, attention sites by module.

    `probs` and `layer_inputs` name, per output of transformers (`attentions`,
    `encoder_attentions`, `cross_attentions` …; `hidden_states`, `encoder_hidden_states` …),
    the stage that holds each layer's attention probabilities and each layer's input;
    the verification compares them with what the unmodified model returns there.
    """

    taps: dict[str, Tap] = field(default_factory=dict)
    hooks: list[Hook] = field(default_factory=list)
    sites: dict[nn.Module, AttentionSite] = field(default_factory=dict)
    #: attention computed in a model's own code, tapped op by op (`hf_own.OwnSite`)
    own_sites: dict = field(default_factory=dict)
    streams: tuple[str, ...] = ("prompt",)
    probs: dict[str, list[str]] = field(default_factory=dict)
    layer_inputs: dict[str, list[str]] = field(default_factory=dict)
    #: what the model's output calls the `logits` stage's tensor (CLIP: "logits_per_image")
    logits_key: str = "logits"


def source_of(model: nn.Module, path: str) -> str | None:
    """'transformers/models/gpt2/modeling_gpt2.py:240': the model code whose forward made the stage's tensor.

    A generic module (nn.Linear, Conv1D) points at its parent's forward, which calls it.
    """
    parent = path.rsplit(".", 1)[0] if "." in path else ""
    for candidate in (path, parent):
        code = getattr(inspect.unwrap(type(model.get_submodule(candidate)).forward), "__code__", None)
        if code is not None and f"transformers{os.sep}models{os.sep}" in code.co_filename:
            return f"{code.co_filename.split(os.sep + 'site-packages' + os.sep, 1)[-1]}:{code.co_firstlineno}"
    return None


#: the formula of a position bias a model adds with its mask (`AttentionShape.mask_bias`), by stage
MASK_BIAS_FORMULAS = {"alibi": "S + B_h  (ALiBi: each head's slope times the key's position, which the model adds "
                               "with its mask)",
                      "": "S + B  (B: a position bias the model adds with its mask)"}


@dataclass
class AttentionShape:
    """What the planner found out about one attention module from the probe."""

    heads: int
    kv_heads: int
    head_dim: int
    scaling: float
    rotary: bool = False
    bias: bool = False
    softcap: float | None = None
    sinks: bool = False
    window: int | None = None
    masked: bool = True
    #: the stage of a position bias the model adds with its mask, in one tensor (Falcon-RW's ALiBi: 'alibi'), or ""
    mask_bias: str = ""
    #: how a fused projection lays out Q, K and V ('blocks' or 'heads'), as found against the values
    layout: str | None = None
    #: attention in the model's own code: every head split is shown at the projections
    own: bool = False


class Builder:
    """Collects taps and hooks for one model; each method adds one stage (or one group)."""

    def __init__(self, model: nn.Module, streams: tuple[str, ...], dims: dict[str, tuple[int, int]] | None = None):
        self.model = model
        self.plan = TapPlan(streams=streams)
        #: module path → (dims of its input, of its output) in the probe: a (B·T, D) tensor (OPT's FFN)
        #: has no batch axis
        self.dims = dims or {}

    def _axes(self, path: str, axes: tuple[str, ...], which: int) -> tuple[str, ...]:
        dims = self.dims.get(path, (len(axes), len(axes)))[which]
        return axes[1:] if axes and axes[0] == "batch" and dims == len(axes) - 1 else axes

    def tap(self, name: str, kind: str, axes: tuple[str, ...], formula: str, tokens: dict[str, str],
            path: str | None = None, **extra) -> Tap:
        tap = Tap(name, kind, axes, formula, tokens=tokens, **extra)
        if path is not None:
            source = source_of(self.model, path)
            if source:
                tap.info = tap.info.with_source(source)
        self.plan.taps[name] = tap
        return tap

    def output(self, path: str, name: str, kind: str, axes, formula: str, tokens: dict, within: str | None = None,
               **extra) -> None:
        self.tap(name, kind, self._axes(path, axes, 1), formula, tokens, path, **extra)
        self.plan.hooks.append(Output(path, name, within))

    def input(self, path: str, name: str, kind: str, axes, formula: str, tokens: dict, within: str | None = None,
              **extra) -> None:
        self.tap(name, kind, self._axes(path, axes, 0), formula, tokens, path, **extra)
        self.plan.hooks.append(Input(path, name, within))

    def split(self, prefix: str, role: str, tokens: dict, heads: int, head_dim: int, source: str = "") -> Tap:
        return self.tap(f"{prefix}.{role}_split", "head_split", SPLIT_AXES[role],
                        f"{source or role.upper()}.view(B, T, {heads}, {head_dim}).transpose(1, 2)", tokens,
                        role=role, ops=("view", "transpose"), inputs=(f".{source.lower() or role}",))

    def fused(self, prefix: str, path: str, layout: str, shape: AttentionShape, tokens: dict[str, dict],
              inputs: dict[str, tuple]) -> bool:
        """Q, K and V as parts of one fused projection; with rotary positions their splits are shown there too."""
        widths = (shape.heads * shape.head_dim, shape.kv_heads * shape.head_dim, shape.kv_heads * shape.head_dim)
        where = "per head [q | k | v]" if layout == "heads" else "its Q, K and V blocks"
        for role in "qkv":
            self.tap(f"{prefix}.{role}", f"{role}_proj", PROJ_AXES[role],
                     f"{role.upper()} = X·W^{role.upper()}  (part of {path.rsplit('.', 1)[-1]}: {where})",
                     tokens[role], path, inputs=inputs[role])
        splits = None
        if shape.rotary or shape.own:
            for role in "qkv":
                self.split(prefix, role, tokens[role], shape.heads if role == "q" else shape.kv_heads, shape.head_dim)
            splits = tuple(f"{prefix}.{r}_split" for r in "qkv")
        self.plan.hooks.append(FusedQKV(path, tuple(f"{prefix}.{r}" for r in "qkv"), layout, widths,
                                        shape.head_dim, splits))
        return shape.rotary or shape.own

    def site(self, prefix: str, module: nn.Module, shape: AttentionShape, q_tokens: str, k_tokens: str,
             split_upstream: bool, merge_into: str) -> None:
        """Every sub-stage the attention function taps for `module`, and the head merge before `merge_into`."""
        tq, tk, tqk = {"query": q_tokens}, {"key": k_tokens}, {"query": q_tokens, "key": k_tokens}
        rotary = shape.rotary
        taps: dict[str, Tap] = {}
        if not rotary and not split_upstream:
            for role in "qkv":
                taps[f"{role}_split"] = self.split(prefix, role, tq if role == "q" else tk,
                                                   shape.heads if role == "q" else shape.kv_heads, shape.head_dim)
        elif rotary and not split_upstream and f"{prefix}.k_nope" in self.plan.taps:
            # latent attention: V arrives already per head, cut from the decompressed kv (no view, no transpose)
            taps["v_split"] = self.tap(f"{prefix}.v_split", "head_split", SPLIT_AXES["v"],
                                       "V as attention reads it: the (B, H, T, d_v) heads cut from kv, unchanged",
                                       tk, role="v", inputs=(".v",))
        elif rotary and not split_upstream:
            taps["v_split"] = self.split(prefix, "v", tk, shape.kv_heads, shape.head_dim)
        if rotary:
            latent_parts = f"{prefix}.q_nope" in self.plan.taps
            for role in "qk":
                upstream = f".{role}_norm" if f"{prefix}.{role}_norm" in self.plan.taps and \
                    self.plan.taps[f"{prefix}.{role}_norm"].info.axes[-1] == "head_dim" else f".{role}_split"
                formula, inputs = f"RoPE({role.upper()}_split, pos)", (upstream,)
                if f"{prefix}.{role}_split" not in self.plan.taps:  # latent attention: no split before RoPE
                    inputs = (".q",) if role == "q" else (".kv",)
                    if latent_parts:  # only the _pe part rotates; k_pe is one head every head shares
                        formula = ("[q_nope | RoPE(q_pe, pos)] per head" if role == "q"
                                   else "[k_nope | RoPE(k_pe, pos)] per head (k_pe shared by every head)")
                        inputs = (f".{role}_nope", f".{role}_pe")
                taps[f"{role}_rotary"] = self.tap(
                    f"{prefix}.{role}_rotary", "rotary", SPLIT_AXES[role], formula,
                    tq if role == "q" else tk, role=role, inputs=inputs)
        after = " (after RoPE)" if rotary else ""
        for role in "kv":
            taps[f"cache_{role}"] = self.tap(
                f"{prefix}.cache_{role}", "kv_cache", SPLIT_AXES[role],
                f"cache_{role.upper()} = cache.update({role.upper()}_split{after}): every {role.upper()} so far",
                tk, role=role, inputs=(f".{role}_rotary" if rotary and role == "k" else f".{role}_split",))
        k_in, v_in = (".k_rotary" if rotary else ".k_split"), ".v_split"
        if shape.kv_heads != shape.heads:
            groups = shape.heads // shape.kv_heads
            for role, src in (("k", k_in), ("v", v_in)):
                taps[f"{role}_repeat"] = self.tap(
                    f"{prefix}.{role}_repeat", "kv_repeat", SPLIT_AXES[role],
                    f"each {role.upper()} head repeated {groups}× (grouped-query attention)", tk, role=role,
                    inputs=(src,))
            k_in, v_in = ".k_repeat", ".v_repeat"
        q_in = ".q_rotary" if rotary else ".q_split"
        taps["scores"] = self.tap(f"{prefix}.scores", "scores", MATRIX, "Q·Kᵀ", tqk, inputs=(q_in, k_in))
        taps["scaled"] = self.tap(f"{prefix}.scaled", "scale", MATRIX, f"Q·Kᵀ × {shape.scaling:.6g}", tqk,
                                  inputs=(".scores",))
        before_mask = ".scaled"
        if shape.bias:
            taps["position_bias"] = self.tap(f"{prefix}.position_bias", "position_bias", MATRIX,
                                             "Q·Kᵀ + B  (B: learned relative position bias)", tqk, inputs=(".scaled",))
            before_mask = ".position_bias"
        cap = f"{shape.softcap:g}" if shape.softcap else "c"
        taps["softcap"] = self.tap(f"{prefix}.softcap", "softcap", MATRIX, f"{cap}·tanh(S / {cap})", tqk,
                                   inputs=(before_mask,))
        if shape.softcap:
            before_mask = ".softcap"
        if shape.mask_bias:
            taps[shape.mask_bias] = self.tap(f"{prefix}.{shape.mask_bias}", "position_bias", MATRIX,
                                             MASK_BIAS_FORMULAS.get(shape.mask_bias, MASK_BIAS_FORMULAS[""]), tqk,
                                             inputs=(before_mask,))
            before_mask = f".{shape.mask_bias}"
        where = (window_note(shape.window, q_tokens in ("prompt", "tgt")) if shape.window
                 else "where a query may not look")
        taps["masked"] = self.tap(f"{prefix}.masked", "mask", MATRIX, f"S + M  (M: finfo.min {where})", tqk,
                                  inputs=(before_mask,))
        to_probs = ".masked"
        if shape.sinks:
            taps["sinks"] = self.tap(f"{prefix}.sinks", "attn_sink", ("batch", "head", "query", "key"),
                                     "softmax([S | s_h])  (last column: each head's sink, a key no token is)",
                                     tq, inputs=(".masked",))
            to_probs = ".sinks"
        taps["probs"] = self.tap(f"{prefix}.probs", "softmax", MATRIX,
                                 "P = softmax(·, over keys)" if not shape.sinks else "P = the sink softmax without "
                                 "its last column (rows sum to 1 − the sink's share)", tqk, inputs=(to_probs,))
        taps["context"] = self.tap(f"{prefix}.context", "attn_v", SPLIT_AXES["q"], "P·V", tq,
                                   inputs=(".probs", v_in))
        self.plan.sites[module] = AttentionSite(taps, rotary=rotary, bias=shape.bias, split_upstream=split_upstream,
                                                mask_bias=shape.mask_bias)
        self.input(merge_into, f"{prefix}.merged", "head_merge", ("batch", "query", "model"),
                   "concat(heads) = context.transpose(1, 2).reshape(B, T, H·d_k)", tq,
                   ops=("transpose", "reshape"), inputs=(".context",))
