"""Stage names of Hugging Face models, from their module paths (DESIGN.md's grammar).

Decoder-only models: `tok.*`, `dec.{i}.self_attn.*`, `dec.{i}.ffn.*`, `dec.norm`, `logits`.
Encoder-only: `tok.*`, `enc.{i}.attn.*`, `enc.{i}.ffn.*`. Encoder–decoder: `src.embed`,
`enc.{i}.*`, `enc.norm`, `tgt.embed`, `dec.{i}.{self_attn,cross_attn,ffn}.*`, `dec.norm`,
`logits`. Layer numbers come from the module path (`….h.3`, `decoder.block.3`), never
from `layer_idx` (which T5 repeats across its encoder, decoder and cross-attention).

One function per supported family walks the model and returns a `TapPlan`: the taps,
the module hooks that call them, and the attention modules whose tapped function calls
the rest. Anything outside `FAMILIES` is refused by name.
"""

from __future__ import annotations

import inspect
import os
from dataclasses import dataclass, field
from typing import Callable

from torch import nn

from tfdebug.adapters.hf_attention import AttentionSite
from tfdebug.adapters.hf_hooks import AttentionResidual, FusedQKV, Hook, Input, Output, ProjectionSplit
from tfdebug.core.errors import UnsupportedModelError
from tfdebug.core.tap import Tap

STREAM = ("batch", "token", "model")
HIDDEN = ("batch", "token", "hidden")
LOGITS = ("batch", "token", "vocab")
MATRIX = ("batch", "head", "query", "key")
_PROJ_AXES = {"q": ("batch", "query", "model"), "k": ("batch", "key", "model"), "v": ("batch", "key", "model")}
_SPLIT_AXES = {"q": ("batch", "head", "query", "head_dim"), "k": ("batch", "head", "key", "head_dim"),
               "v": ("batch", "head", "key", "head_dim")}


@dataclass
class TapPlan:
    """Everything that shows one model's stages: taps by name, module hooks, attention sites by module."""

    taps: dict[str, Tap] = field(default_factory=dict)
    hooks: list[Hook] = field(default_factory=list)
    sites: dict[nn.Module, AttentionSite] = field(default_factory=dict)
    streams: tuple[str, ...] = ("prompt",)


def _source_of(model: nn.Module, path: str) -> str | None:
    """'transformers/models/gpt2/modeling_gpt2.py:240': the model code whose forward made the stage's tensor.

    A generic module (nn.Linear, Conv1D) points at its parent's forward, which calls it.
    """
    parent = path.rsplit(".", 1)[0] if "." in path else ""
    for candidate in (path, parent):
        code = getattr(inspect.unwrap(type(model.get_submodule(candidate)).forward), "__code__", None)
        if code is not None and f"transformers{os.sep}models{os.sep}" in code.co_filename:
            return f"{code.co_filename.split(os.sep + 'site-packages' + os.sep, 1)[-1]}:{code.co_firstlineno}"
    return None


class _Builder:
    """Collects taps and hooks for one model; each method adds one stage (or one group)."""

    def __init__(self, model: nn.Module, streams: tuple[str, ...]):
        self.model = model
        self.plan = TapPlan(streams=streams)

    def tap(self, name: str, kind: str, axes: tuple[str, ...], formula: str, tokens: dict[str, str],
            path: str | None = None, **extra) -> Tap:
        tap = Tap(name, kind, axes, formula, tokens=tokens, **extra)
        if path is not None:
            source = _source_of(self.model, path)
            if source:
                tap.info = tap.info.with_source(source)
        self.plan.taps[name] = tap
        return tap

    def output(self, path: str, name: str, kind: str, axes, formula: str, tokens: dict, **extra) -> None:
        self.tap(name, kind, axes, formula, tokens, path, **extra)
        self.plan.hooks.append(Output(path, name))

    def input(self, path: str, name: str, kind: str, axes, formula: str, tokens: dict, **extra) -> None:
        self.tap(name, kind, axes, formula, tokens, path, **extra)
        self.plan.hooks.append(Input(path, name))

    def attention(self, prefix: str, path: str, q_tokens: str, k_tokens: str, *, projections: dict[str, str] | None,
                  fused: str | None = None, rotary: bool = False, bias: bool = False, kv_from: str = ".norm",
                  merge_into: str, source: str = "X") -> None:
        """Q/K/V projections, every sub-stage of the attention function, and the head merge of one block.

        `projections` maps 'q'/'k'/'v' to the module path of each projection (or `fused`
        names GPT-2's single c_attn); `merge_into` is the output projection whose input is
        the merged heads.
        """
        module = self.model.get_submodule(path)
        heads, head_dim, kv_heads = _head_shape(module)
        tq, tk = {"query": q_tokens}, {"key": k_tokens}
        tqk = {"query": q_tokens, "key": k_tokens}
        role_tokens = {"q": tq, "k": tk, "v": tk}
        inputs = {"q": (".norm",), "k": (kv_from,), "v": (kv_from,)}
        for role in "qkv":
            src = "X" if role == "q" else source
            kind = f"{role}_proj"
            formula = f"{role.upper()} = {src}·W^{role.upper()}"
            if fused is not None:
                self.tap(f"{prefix}.{role}", kind, _PROJ_AXES[role], formula + "  (a third of c_attn's output)",
                         role_tokens[role], fused, inputs=inputs[role])
            elif rotary and role != "v":
                self.tap(f"{prefix}.{role}", kind, _PROJ_AXES[role], formula, role_tokens[role],
                         projections[role], inputs=inputs[role])
                self._split(prefix, role, role_tokens[role], heads if role == "q" else kv_heads, head_dim)
                self.plan.hooks.append(ProjectionSplit(projections[role], f"{prefix}.{role}",
                                                       f"{prefix}.{role}_split", head_dim))
            else:
                self.output(projections[role], f"{prefix}.{role}", kind, _PROJ_AXES[role], formula,
                            role_tokens[role], inputs=inputs[role])
        if fused is not None:
            self.plan.hooks.append(FusedQKV(fused, (f"{prefix}.q", f"{prefix}.k", f"{prefix}.v")))
        site_taps: dict[str, Tap] = {}
        for role in ("qkv" if not rotary else "v"):
            site_taps[f"{role}_split"] = self._split(prefix, role, role_tokens[role],
                                                     heads if role == "q" else kv_heads, head_dim)
        if rotary:
            for role in "qk":
                site_taps[f"{role}_rotary"] = self.tap(
                    f"{prefix}.{role}_rotary", "rotary", _SPLIT_AXES[role], f"RoPE({role.upper()}_split, pos)",
                    role_tokens[role], role=role, inputs=(f".{role}_split",))
        # Generating with a KV cache, the attention function receives the cache after this step's update.
        after = " (after RoPE)" if rotary else ""
        for role in "kv":
            site_taps[f"cache_{role}"] = self.tap(
                f"{prefix}.cache_{role}", "kv_cache", _SPLIT_AXES[role],
                f"cache_{role.upper()} = cache.update({role.upper()}_split{after}): every {role.upper()} so far",
                tk, role=role, inputs=(f".{role}_rotary" if rotary and role == "k" else f".{role}_split",))
        k_in, v_in = (".k_rotary" if rotary else ".k_split"), ".v_split"
        if kv_heads != heads:
            groups = heads // kv_heads
            site_taps["k_repeat"] = self.tap(f"{prefix}.k_repeat", "kv_repeat", _SPLIT_AXES["k"],
                                             f"each K head repeated {groups}× (grouped-query attention)", tk,
                                             role="k", inputs=(k_in,))
            site_taps["v_repeat"] = self.tap(f"{prefix}.v_repeat", "kv_repeat", _SPLIT_AXES["v"],
                                             f"each V head repeated {groups}× (grouped-query attention)", tk,
                                             role="v", inputs=(v_in,))
            k_in, v_in = ".k_repeat", ".v_repeat"
        q_in = ".q_rotary" if rotary else ".q_split"
        scaling = float(getattr(module, "scaling", head_dim ** -0.5))
        site_taps["scores"] = self.tap(f"{prefix}.scores", "scores", MATRIX, "Q·Kᵀ", tqk, inputs=(q_in, k_in))
        site_taps["scaled"] = self.tap(f"{prefix}.scaled", "scale", MATRIX, f"Q·Kᵀ × {scaling:.6g}", tqk,
                                       inputs=(".scores",))
        before_mask = ".scaled"
        if bias:
            site_taps["position_bias"] = self.tap(f"{prefix}.position_bias", "position_bias", MATRIX,
                                                  "Q·Kᵀ + B  (B: learned relative position bias)", tqk,
                                                  inputs=(".scaled",))
            before_mask = ".position_bias"
        site_taps["softcap"] = self.tap(f"{prefix}.softcap", "softcap", MATRIX, "c·tanh(S / c)", tqk,
                                        inputs=(before_mask,))
        site_taps["masked"] = self.tap(f"{prefix}.masked", "mask", MATRIX,
                                       "S + M  (M: finfo.min where a query may not look)", tqk,
                                       inputs=(before_mask,))
        site_taps["probs"] = self.tap(f"{prefix}.probs", "softmax", MATRIX, "P = softmax(·, over keys)", tqk,
                                      inputs=(".masked",))
        site_taps["context"] = self.tap(f"{prefix}.context", "attn_v", _SPLIT_AXES["q"], "P·V", tq,
                                        inputs=(".probs", v_in))
        self.plan.sites[module] = AttentionSite(site_taps, rotary=rotary, bias=bias)
        self.input(merge_into, f"{prefix}.merged", "head_merge", ("batch", "query", "model"),
                   "concat(heads) = context.transpose(1, 2).reshape(B, T, H·d_k)", tq,
                   ops=("transpose", "reshape"), inputs=(".context",))

    def _split(self, prefix: str, role: str, tokens: dict, heads: int, head_dim: int) -> Tap:
        return self.tap(f"{prefix}.{role}_split", "head_split", _SPLIT_AXES[role],
                        f"{role.upper()}.view(B, T, {heads}, {head_dim}).transpose(1, 2)", tokens, role=role,
                        ops=("view", "transpose"), inputs=(f".{role}",))


def _head_shape(module: nn.Module) -> tuple[int, int, int]:
    """(query heads, head size, key/value heads) of an attention module of any supported family."""
    config = module.config
    heads = getattr(module, "num_heads", None) or getattr(module, "n_heads", None) \
        or getattr(module, "num_attention_heads", None) or config.num_attention_heads
    head_dim = getattr(module, "head_dim", None) or getattr(module, "attention_head_size", None) \
        or getattr(module, "key_value_proj_dim", None)
    kv_heads = heads // getattr(module, "num_key_value_groups", 1)
    return int(heads), int(head_dim), int(kv_heads)


def _norm_kind(module: nn.Module) -> tuple[str, str]:
    if isinstance(module, nn.LayerNorm):
        return "layer_norm", "γ·(x − μ)/√(σ² + ε) + β"
    return "rms_norm", "γ·x/√(mean(x²) + ε)"


def _norm(b: _Builder, path: str, name: str, stream: str, inputs: tuple[str, ...] = ()) -> None:
    kind, formula = _norm_kind(b.model.get_submodule(path))
    b.output(path, name, kind, STREAM, formula, {"token": stream}, inputs=inputs)


def _prefix(model: nn.Module, name: str) -> str:
    """'transformer.' when the model wraps its base model under `name`, '' when it is the base model."""
    return f"{name}." if hasattr(model, name) else ""


def _logits(b: _Builder, stream: str, inputs: tuple[str, ...]) -> None:
    if isinstance(getattr(b.model, "lm_head", None), nn.Module):
        b.output("lm_head", "logits", "logits", LOGITS, "h·W_vocab", {"token": stream}, inputs=inputs)


def gpt2(model: nn.Module) -> TapPlan:
    """GPT-2: learned positions, pre-norm blocks, a fused Q/K/V projection (c_attn)."""
    if getattr(model.config, "add_cross_attention", False):
        raise UnsupportedModelError("GPT-2 with cross-attention (add_cross_attention) is not supported.",
                                    id="hf.gpt2_cross_attention")
    b, base, t = _Builder(model, ("prompt",)), _prefix(model, "transformer"), {"token": "prompt"}
    b.output(f"{base}wte", "tok.embed", "embedding", STREAM, "E[token]", t)
    b.output(f"{base}wpe", "tok.pos_embed", "positional_encoding", STREAM, "P[pos]", t)
    b.output(f"{base}drop", "tok.pos", "positional_add", STREAM, "E[token] + P[pos]", t,
             inputs=("tok.embed", "tok.pos_embed"))
    previous = "tok.pos"
    for i in range(len(model.get_submodule(f"{base}h"))):
        path, attn, ffn = f"{base}h.{i}", f"dec.{i}.self_attn", f"dec.{i}.ffn"
        _norm(b, f"{path}.ln_1", f"{attn}.norm", "prompt", (previous,))
        b.attention(attn, f"{path}.attn", "prompt", "prompt", projections=None, fused=f"{path}.attn.c_attn",
                    merge_into=f"{path}.attn.c_proj")
        _pre_norm_tail(b, path, attn, ffn, previous, attn_path=f"{path}.attn", mlp=f"{path}.mlp",
                       norm2=f"{path}.ln_2", down=f"{path}.mlp.c_proj")
        previous = f"{ffn}.resid"
    _norm(b, f"{base}ln_f", "dec.norm", "prompt", (previous,))
    _logits(b, "prompt", ("dec.norm",))
    return b.plan


def _pre_norm_tail(b: _Builder, path: str, attn: str, ffn: str, previous: str, *, attn_path: str, mlp: str,
                   norm2: str, down: str, gate: str | None = None, up: str | None = None) -> None:
    """Output projection, residual and FFN of a pre-norm block (GPT-2, LLaMA)."""
    t = {"token": "prompt"}
    b.tap(f"{attn}.out", "out_proj", ("batch", "query", "model"), "concat(heads)·W^O", {"query": "prompt"},
          attn_path, inputs=(".merged",))
    b.tap(f"{attn}.resid", "residual", STREAM, "x + Attention(Norm(x))", t, path, inputs=(previous, ".out"))
    b.plan.hooks.append(AttentionResidual(attn_path, f"{attn}.out", f"{attn}.resid", path))
    _norm(b, norm2, f"{ffn}.norm", "prompt", (f"{attn}.resid",))
    if gate is not None:
        b.output(gate, f"{ffn}.gate", "ffn_gate", HIDDEN, "act(x·W_gate)", t, inputs=(".norm",))
        b.output(up, f"{ffn}.up", "ffn_hidden", HIDDEN, "x·W_up", t, inputs=(".norm",))
        b.input(down, f"{ffn}.hidden", "ffn_hidden", HIDDEN, "act(x·W_gate) ⊙ x·W_up", t, inputs=(".gate", ".up"))
    else:
        b.input(down, f"{ffn}.hidden", "ffn_hidden", HIDDEN, "act(x·W_1 + b_1)", t, inputs=(".norm",))
    b.output(mlp, f"{ffn}.out", "ffn_out", STREAM, "hidden·W_2", t, inputs=(".hidden",))
    b.output(path, f"{ffn}.resid", "residual", STREAM, "x + FFN(Norm(x))", t, inputs=(f"{attn}.resid", ".out"))


def llama(model: nn.Module) -> TapPlan:
    """LLaMA, Qwen2, Mistral: rotary positions, RMSNorm, grouped-query attention, a gated FFN."""
    b, base = _Builder(model, ("prompt",)), _prefix(model, "model")
    b.output(f"{base}embed_tokens", "tok.embed", "embedding", STREAM, "E[token]", {"token": "prompt"})
    previous = "tok.embed"
    for i in range(len(model.get_submodule(f"{base}layers"))):
        path, attn, ffn = f"{base}layers.{i}", f"dec.{i}.self_attn", f"dec.{i}.ffn"
        _norm(b, f"{path}.input_layernorm", f"{attn}.norm", "prompt", (previous,))
        a = f"{path}.self_attn"
        b.attention(attn, a, "prompt", "prompt", projections={r: f"{a}.{r}_proj" for r in "qkv"}, rotary=True,
                    merge_into=f"{a}.o_proj")
        _pre_norm_tail(b, path, attn, ffn, previous, attn_path=a, mlp=f"{path}.mlp",
                       norm2=f"{path}.post_attention_layernorm", down=f"{path}.mlp.down_proj",
                       gate=f"{path}.mlp.act_fn", up=f"{path}.mlp.up_proj")
        previous = f"{ffn}.resid"
    _norm(b, f"{base}norm", "dec.norm", "prompt", (previous,))
    _logits(b, "prompt", ("dec.norm",))
    return b.plan


def bert(model: nn.Module) -> TapPlan:
    """BERT: an encoder with learned positions and token types, post-norm blocks."""
    config = model.config
    if getattr(config, "is_decoder", False) or getattr(config, "add_cross_attention", False):
        raise UnsupportedModelError("BERT as a decoder (is_decoder / add_cross_attention) is not supported.",
                                    id="hf.bert_decoder")
    b, base, t = _Builder(model, ("text",)), _prefix(model, "bert"), {"token": "text"}
    emb = f"{base}embeddings"
    b.output(f"{emb}.word_embeddings", "tok.embed", "embedding", STREAM, "E[token]", t)
    b.output(f"{emb}.token_type_embeddings", "tok.type_embed", "embedding", STREAM, "T[token type]", t)
    b.output(f"{emb}.position_embeddings", "tok.pos_embed", "positional_encoding", STREAM, "P[pos]", t)
    b.input(f"{emb}.LayerNorm", "tok.pos", "positional_add", STREAM, "E[token] + T[type] + P[pos]", t,
            inputs=("tok.embed", "tok.type_embed", "tok.pos_embed"))
    _norm(b, f"{emb}.LayerNorm", "tok.norm", "text", ("tok.pos",))
    previous = "tok.norm"
    for i in range(len(model.get_submodule(f"{base}encoder.layer"))):
        path, attn, ffn = f"{base}encoder.layer.{i}", f"enc.{i}.attn", f"enc.{i}.ffn"
        a = f"{path}.attention.self"
        b.attention(attn, a, "text", "text", projections={"q": f"{a}.query", "k": f"{a}.key", "v": f"{a}.value"},
                    kv_from=previous, merge_into=f"{path}.attention.output.dense")
        _post_norm(b, f"{path}.attention.output", attn, previous, "Attention")
        b.input(f"{path}.output.dense", f"{ffn}.hidden", "ffn_hidden", HIDDEN, "GELU(x·W_1 + b_1)", t,
                inputs=(f"{attn}.norm",))
        _post_norm(b, f"{path}.output", ffn, f"{attn}.norm", "FFN")
        previous = f"{ffn}.norm"
    head = "cls.predictions.decoder"
    if _has(model, head):
        b.output(head, "logits", "logits", LOGITS, "transform(h)·W_vocab", t, inputs=(previous,))
    return b.plan


def _post_norm(b: _Builder, path: str, prefix: str, previous: str, what: str) -> None:
    """Output projection, residual and LayerNorm of a post-norm sublayer (BERT's …Output modules)."""
    t = {"token": "text"}
    b.output(f"{path}.dense", f"{prefix}.out", "out_proj" if what == "Attention" else "ffn_out", STREAM,
             "concat(heads)·W^O" if what == "Attention" else "hidden·W_2", t,
             inputs=(".merged",) if what == "Attention" else (".hidden",))
    b.input(f"{path}.LayerNorm", f"{prefix}.resid", "residual", STREAM, f"x + {what}(x)", t, inputs=(previous, ".out"))
    _norm(b, f"{path}.LayerNorm", f"{prefix}.norm", "text", (".resid",))


def _has(model: nn.Module, path: str) -> bool:
    try:
        model.get_submodule(path)
    except AttributeError:
        return False
    return True


def t5(model: nn.Module) -> TapPlan:
    """T5: an encoder–decoder with a relative position bias, RMSNorm, pre-norm sublayers."""
    b = _Builder(model, ("src", "tgt"))
    stacks = [("encoder", "enc", "src")] + ([("decoder", "dec", "tgt")] if _has(model, "decoder") else [])
    for stack_path, stack, stream in stacks:
        t = {"token": stream}
        first = f"{stack_path}.block.0"
        embed = "src.embed" if stack == "enc" else "tgt.embed"
        b.input(first, embed, "embedding", STREAM, "E[token]  (positions enter as an attention bias)", t)
        previous = embed
        for i in range(len(model.get_submodule(f"{stack_path}.block"))):
            path = f"{stack_path}.block.{i}"
            blocks = [("attn" if stack == "enc" else "self_attn", "SelfAttention", stream)]
            if stack == "dec":
                blocks.append(("cross_attn", "EncDecAttention", "src"))
            for j, (block, attr, k_stream) in enumerate(blocks):
                prefix, layer = f"{stack}.{i}.{block}", f"{path}.layer.{j}"
                a = f"{layer}.{attr}"
                cross = block == "cross_attn"
                _norm(b, f"{layer}.layer_norm", f"{prefix}.norm", stream, (previous,))
                b.attention(prefix, a, stream, k_stream, projections={r: f"{a}.{r}" for r in "qkv"},
                            bias=not cross, kv_from="enc.norm" if cross else ".norm",
                            source="H_enc" if cross else "X", merge_into=f"{a}.o")
                b.output(f"{a}.o", f"{prefix}.out", "out_proj", ("batch", "query", "model"), "concat(heads)·W^O",
                         {"query": stream}, inputs=(".merged",))
                b.output(layer, f"{prefix}.resid", "residual", STREAM, "x + Attention(RMSNorm(x))", t,
                         inputs=(previous, ".out"))
                previous = f"{prefix}.resid"
            _t5_ffn(b, f"{path}.layer.{len(blocks)}", f"{stack}.{i}.ffn", stream, previous)
            previous = f"{stack}.{i}.ffn.resid"
        _norm(b, f"{stack_path}.final_layer_norm", f"{stack}.norm", stream, (previous,))
    _logits(b, "tgt", ("dec.norm",))
    return b.plan


def _t5_ffn(b: _Builder, layer: str, prefix: str, stream: str, previous: str) -> None:
    t = {"token": stream}
    _norm(b, f"{layer}.layer_norm", f"{prefix}.norm", stream, (previous,))
    dense = f"{layer}.DenseReluDense"
    if _has(b.model, f"{dense}.wi_0"):  # gated
        b.output(f"{dense}.act", f"{prefix}.gate", "ffn_gate", HIDDEN, "act(x·W_gate)", t, inputs=(".norm",))
        b.output(f"{dense}.wi_1", f"{prefix}.up", "ffn_hidden", HIDDEN, "x·W_up", t, inputs=(".norm",))
        b.input(f"{dense}.wo", f"{prefix}.hidden", "ffn_hidden", HIDDEN, "act(x·W_gate) ⊙ x·W_up", t,
                inputs=(".gate", ".up"))
    else:
        b.input(f"{dense}.wo", f"{prefix}.hidden", "ffn_hidden", HIDDEN, "ReLU(x·W_1)", t, inputs=(".norm",))
    b.output(dense, f"{prefix}.out", "ffn_out", STREAM, "hidden·W_2", t, inputs=(".hidden",))
    b.output(layer, f"{prefix}.resid", "residual", STREAM, "x + FFN(RMSNorm(x))", t, inputs=(previous, ".out"))


FAMILIES: dict[str, Callable[[nn.Module], TapPlan]] = {
    "gpt2": gpt2, "bert": bert, "llama": llama, "qwen2": llama, "mistral": llama, "t5": t5,
}


def tap_plan(model: nn.Module) -> TapPlan:
    """The taps and hooks of a supported model; UnsupportedModelError naming anything else."""
    model_type = getattr(model.config, "model_type", "")
    family = FAMILIES.get(model_type)
    if family is None:
        raise UnsupportedModelError(
            "tfdebug cannot tap Hugging Face model type '{model_type}': supported are {supported}.",
            id="hf.unsupported_type", model_type=model_type, supported=", ".join(sorted(FAMILIES)))
    return family(model)
