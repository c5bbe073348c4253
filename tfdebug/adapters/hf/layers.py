"""One layer of a Hugging Face model, planned from the probe: attention blocks, feed-forward, residual sums.

A layer is a sequence of units, each attention call one unit and the feed-forward after
them the last. For each unit the planner finds, from the recorded calls: its norm before
(a norm class reading the stream), its projections (the data table in `hf_conventions`),
its output projection (the first projection after the attention function returns), and
the residual sum: the first tensor, after that, that no module made (an addition in the
layer's own code) and that equals the stream plus a module's output (times a scalar:
granite's residual multiplier). Post-norm blocks (BERT, BART) are told apart from pre-norm
ones (LLaMA) by which stream the next sum adds to; a layer whose output is the stream plus
the attention and the feed-forward outputs is a parallel block (GPT-J, NeoX, Phi, Cohere).
"""

from __future__ import annotations

from dataclasses import dataclass

from torch import Tensor

from tfdebug.adapters.hf import conventions as conv
from tfdebug.adapters.hf.attention import check_keywords
from tfdebug.adapters.hf.planes import bias_in_mask
from tfdebug.adapters.hf.builder import PROJ_AXES, SPLIT_AXES, STREAM, AttentionShape
from tfdebug.adapters.hf.ffn import FeedForward
from tfdebug.adapters.hf.hooks import HeadParts, Output, ProjectionSplit, SumResidual
from tfdebug.adapters.hf.match import close, like
from tfdebug.adapters.hf.own import FirstCallOnly, plan_own_site
from tfdebug.adapters.hf.match import refuse as _refuse
from tfdebug.adapters.hf.match import scale as _scale
from tfdebug.adapters.hf.probe import Call


@dataclass
class Stream:
    """The residual stream between units: its tensor in the probe, the stage showing it, and the norm call
    after it that might be a post-norm of the unit before (its output then is the stream)."""

    value: Tensor | None
    stage: str
    after: Call | None = None
    unit: str | None = None  # the prefix of the unit whose sum this is
    post: bool = False  # the stream is `after`'s output: the unit before is post-norm


class LayerPlanner(FeedForward):
    """Plans the layers of one stack (see the module docstring)."""

    def __init__(self, planner, stack: str, within: str | None, encoder_out: str | None):
        self.p, self.b, self.rec = planner, planner.b, planner.record
        self.stack, self.within, self.encoder_out = stack, within, encoder_out
        self.stream = {"enc": "src", "dec": "tgt"}[stack] if planner.encoder_decoder else planner.streams[0]
        self.probs: dict[str, list[str]] = {}

    def _calls(self, lo: int, hi: int) -> list[Call]:
        return [c for c in self.rec.calls[lo:hi] if c.attention is None]

    # ----- one layer -----------------------------------------------------------------------
    def layer(self, layer: Call, previous: str, number: int | None = None) -> str:
        """Plans one layer call; `number` names it where the module runs several times (else its path does)."""
        i = int(layer.path.rsplit(".", 1)[1]) if number is None else number
        attention = [c for c in self.rec.inside(layer) if c.attention is not None]
        options = [Stream(layer.input, previous)]
        cursor = layer.index
        for j, call in enumerate(attention):
            cross = self.p.encoder_decoder and self.stack == "dec" and j > 0
            block = "attn" if self.stack == "enc" else ("cross_attn" if cross else "self_attn")
            role = self._probs_key(cross)
            self.probs.setdefault(role, []).append(f"{self.stack}.{i}.{block}.probs")
            result = self.attention_unit(layer, call, f"{self.stack}.{i}.{block}", options, cursor, cross)
            if isinstance(result, str):  # a parallel block: the layer is planned to its end
                return result
            options, cursor = result
        return self.ffn_unit(layer, f"{self.stack}.{i}.ffn", options, cursor)

    def _probs_key(self, cross: bool) -> str:
        if not self.p.encoder_decoder:
            return "attentions"
        return "cross_attentions" if cross else f"{'encoder' if self.stack == 'enc' else 'decoder'}_attentions"

    def _pre_norm(self, lo: int, hi: int, stream: Tensor) -> Call | None:
        norms = [c for c in self._calls(lo, hi) if conv.is_norm(c.module) and close(c.input, stream)]
        return norms[-1] if norms else None

    def _resid(self, layer: Call, stream: Tensor, lo: int, exclude: Call | None = None):
        """(call reading the sum or None for the layer's output, the sum, the module added, its scalar)."""
        for c in self._calls(lo, layer.end + 1):
            x = c.input
            if like(x, stream) is None or x is stream or (self.rec.produced(x) is not None
                                                          and not self._wraps(self.rec.produced(x), lo)):
                continue
            added = self._added(stream, x, lo, c.index, exclude)
            if added:
                return (c, x, *added)
        added = self._added(stream, layer.out, lo, layer.end + 1, exclude)
        return (None, layer.out, *added) if added else None

    def _wraps(self, producer: Call, lo: int) -> bool:
        """Whether `producer` is a wrapper that returns the sum itself (T5's T5LayerSelfAttention): it started
        before the sublayer's output projection and ended after it."""
        return producer.index < lo <= producer.end

    def _added(self, stream: Tensor, total: Tensor, lo: int, hi: int, exclude: Call | None = None):
        diff = like(total, stream).double() - stream.double()
        size = float(total.detach().abs().max()) if total.numel() else 1.0
        # An output the model added to in place afterwards (Falcon's `mlp_output += attention_output`) no longer
        # holds the module's own value: not a candidate (`_parallel` reads that case).
        candidates = [(m, like(m.out, stream)) for m in self._calls(lo, hi)
                      if m is not exclude and like(m.out, stream) is not None and not conv.is_dropout(m.module)
                      and m.out._version == 0]
        for allowed in (frozenset(), self.p.scales):  # a plain sum first, then one the config names
            for m, out in candidates:
                scale = _scale(diff, out, size, allowed)
                if scale is not None:
                    return m, scale
        return None

    def _settle_with_norm(self, option: Stream, norm, prefix: str) -> None:
        """Settle on `option` as the block's input and tap the block's pre-norm (when it has one)."""
        self._settle(option)
        if norm is not None:
            kind, formula = conv.norm_kind(norm.module)
            self.b.output(norm.path, f"{prefix}.norm", kind, STREAM, formula, {"token": self.stream},
                          inputs=(option.stage,))

    def _settle(self, option: Stream) -> None:
        """The stream chosen is a norm's output after the unit before: that unit was post-norm."""
        if option.post:
            kind, formula = conv.norm_kind(option.after.module)
            self.b.output(option.after.path, f"{option.unit}.norm", kind, STREAM, formula, {"token": self.stream},
                          inputs=(".resid",))

    def _sum(self, prefix: str, option: Stream, m: Call, scale: float, what: str, out_call: Call, total: Tensor,
             c: Call | None, pre: bool, reader: Call) -> list[Stream]:
        """The `.resid` stage (and `.post_norm` when the sublayer's output is normed before the sum); the
        streams the next unit may read: the sum, or (post-norm) the norm of it."""
        t = {"token": self.stream}
        added = ".out"
        if m is not out_call:
            kind, formula = conv.norm_kind(m.module) if conv.is_norm(m.module) else ("ffn_out", "f(out)")
            self.b.output(m.path, f"{prefix}.post_norm", kind, STREAM, formula + "  (the sublayer's output, normed "
                          "before the sum)", t, inputs=(".out",))
            added = ".post_norm"
        factor = "" if scale == 1.0 else f"{scale:g}·"
        inner = f"{what}(Norm(x))" if pre else f"{what}(x)"
        if m is not out_call:
            inner = f"Norm({inner})"
        self.b.tap(f"{prefix}.resid", "residual", self.b._axes(reader.path, STREAM, 0), f"x + {factor}{inner}", t,
                   m.path, inputs=(option.stage, added))
        self.b.plan.hooks.append(SumResidual(m.path, reader.path, f"{prefix}.resid", scale))
        options = [Stream(total, f"{prefix}.resid", c, prefix)]
        if c is not None and conv.is_norm(c.module) and not pre:
            # Post-norm (BERT, BART) is tried first: in half precision a tiny model's sublayer outputs are
            # too small for the sums to tell it from a pre-norm FFN (ModernBERT's first layer) otherwise.
            options.insert(0, Stream(c.out, f"{prefix}.norm", c, prefix, post=True))
        return options

    # ----- attention ---------------------------------------------------------------------
    def attention_unit(self, layer: Call, call: Call, prefix: str, options: list[Stream], cursor: int, cross: bool):
        module_call = next(c for c in reversed(self.rec.calls[:call.index])
                           if c.module is call.module and c.attention is None)
        query, key, value, mask, scaling, kwargs = call.attention
        check_keywords(call.module, kwargs)
        for option in options:
            if option.value is None:
                continue
            norm = None if option.post else self._pre_norm(cursor + 1, module_call.index, option.value)
            projections = [c for c in self._calls(module_call.index + 1, call.index) if conv.is_linear(c.module)]
            out_call = next((c for c in self._calls(call.index + 1, layer.end + 1) if conv.is_linear(c.module)), None)
            if out_call is None:
                raise _refuse("cannot tell which module of {path} projects the merged heads.", "no_out_proj",
                              path=module_call.path)
            found = self._resid(layer, option.value, out_call.index)
            if found is None:
                parallel = self._parallel(layer, option, out_call)
                if parallel is None:
                    continue
            self._settle_with_norm(option, norm, prefix)
            shape = self._shape(call, module_call, projections, mask, scaling, kwargs)
            shape.bias = shape.bias and not cross  # T5's cross-attention adds only the mask there
            shape.own = call.own is not None
            self._projections(prefix, module_call, projections, shape, cross, call,
                              ".norm" if norm is not None else option.stage)
            if shape.own:  # attention in the module's own code, followed op by op
                plan_own_site(self.b, prefix, call.module, module_call.path, call.own, shape.rotary, self.stream,
                              "src" if cross else self.stream, out_call.path)
            else:
                self.b.site(prefix, call.module, shape, self.stream, "src" if cross else self.stream,
                            shape.rotary and self._fused(projections) is not None, out_call.path)
            self.b.output(out_call.path, f"{prefix}.out", "out_proj", ("batch", "query", "model"),
                          "concat(heads)·W^O", {"query": self.stream}, inputs=(".merged",))
            if found is None:
                return self._parallel_ffn(layer, prefix, option, out_call, parallel)
            c, total, m, scale = found
            return self._sum(prefix, option, m, scale, "Attention", out_call, total, c, norm is not None,
                             norm or module_call), \
                (c.index - 1 if c is not None else layer.end)
        raise _refuse("cannot follow the residual stream through {path}: no sum of the stream and the attention's "
                      "output was found.", "resid_unclear", path=module_call.path)

    def _fused(self, projections: list[Call]) -> Call | None:
        return next((c for c in projections if conv.last(c.path) in conv.FUSED_QKV), None)

    def _shape(self, call, module_call, projections, mask, scaling, kwargs) -> AttentionShape:
        query, key, value = call.attention[:3]
        heads, kv_heads, head_dim = query.shape[1], key.shape[1], query.shape[-1]
        window = kwargs.get("sliding_window") or None
        shape = AttentionShape(heads, kv_heads, head_dim, float(scaling if scaling is not None else head_dim ** -0.5),
                               bias=kwargs.get("position_bias") is not None, softcap=kwargs.get("softcap"),
                               sinks=kwargs.get("s_aux") is not None, window=int(window) if window else None)
        if bias_in_mask(mask):  # Falcon-RW adds its ALiBi with the mask: shown as a stage of its own
            if shape.bias:
                raise _refuse("{path} adds a position bias both with its mask and apart from it; tfdebug cannot "
                              "name the two apart.", "two_biases", path=module_call.path)
            shape.mask_bias = "alibi" if getattr(getattr(call.module, "config", None), "alibi", False) \
                else "position_bias"
        names = {conv.last(c.path): c for c in projections}
        if any(n in names for n in ("q_a_proj", "kv_a_proj_with_mqa")):
            shape.rotary = True  # multi-head latent attention: part of every head is rotated
            return shape
        fused = self._fused(projections)
        q_call = fused or next((c for n, c in names.items() if n in conv.QUERY), None)
        if q_call is None:
            raise _refuse("cannot tell which child of {path} projects the queries.", "no_q_proj",
                          path=module_call.path)
        q_out = q_call.out
        norms = {conv.QK_NORM[conv.last(c.path)]: c for c in self._calls(module_call.index + 1, call.index)
                 if conv.last(c.path) in conv.QK_NORM}
        if fused is not None:
            part = self._fused_layout(fused, shape, value)
            q_out = part[0]
        elif "q" in norms and norms["q"].out.shape[-1] == q_out.shape[-1] and norms["q"].out.dim() == 3:
            q_out = norms["q"].out  # normed at full width before the split (OLMo 2)
        batch, length = q_out.shape[:2]
        split = q_out.reshape(batch, length, heads, -1).transpose(1, 2)  # (B, H, T, Dh)
        if "q" in norms and norms["q"].out.dim() == 4:
            split = norms["q"].out.transpose(1, 2)
        shape.rotary = not (close(split, query) or _scale(query, split) is not None)
        return shape

    def _fused_layout(self, fused: Call, shape: AttentionShape, value: Tensor) -> list[Tensor]:
        """The parts of a fused projection's output, by the layout its name says, checked against the value."""
        from tfdebug.adapters.hf.hooks import FusedQKV

        named = conv.FUSED_QKV[conv.last(fused.path)]
        widths = (shape.heads * shape.head_dim, shape.kv_heads * shape.head_dim, shape.kv_heads * value.shape[-1])
        for layout in (named, *({"blocks", "heads"} - {named})):  # Falcon's multi-query keeps K and V in blocks
            if layout == "heads" and shape.kv_heads != shape.heads:
                continue
            try:
                parts = FusedQKV(fused.path, ("q", "k", "v"), layout, widths, shape.head_dim)._parts(fused.out)
            except RuntimeError:  # the output does not divide that way (Falcon's grouped [q… | k | v] layout)
                continue
            batch, length = parts[2].shape[:2]
            if close(parts[2].reshape(batch, length, shape.kv_heads, -1).transpose(1, 2), value):
                shape.layout = layout
                return parts
        raise _refuse("cannot split {path}'s fused output into queries, keys and values the way the model does.",
                      "fused_unclear", path=fused.path)

    def _projections(self, prefix: str, module_call: Call, projections: list[Call], shape: AttentionShape,
                     cross: bool, call: Call, source_stage: str) -> None:
        b, t_q, t_k = self.b, {"query": self.stream}, {"key": "src" if cross else self.stream}
        tokens = {"q": t_q, "k": t_k, "v": t_k}
        kv_from = (self.encoder_out,) if cross else (source_stage,)
        inputs = {"q": (source_stage,), "k": kv_from, "v": kv_from}
        source = "H_enc" if cross else "X"
        names = {conv.last(c.path): c for c in projections}
        if "kv_a_proj_with_mqa" in names:
            self._latent(prefix, module_call, names, shape)
            return
        fused = self._fused(projections)
        if fused is not None:
            b.fused(prefix, fused.path, shape.layout or conv.FUSED_QKV[conv.last(fused.path)], shape, tokens, inputs)
            return
        roles, outs = {}, {}
        for role, table in (("q", conv.QUERY), ("k", conv.KEY), ("v", conv.VALUE)):
            found = next((c for n, c in names.items() if n in table), None)
            if found is None:
                raise _refuse("cannot tell which child of {path} projects the {what}.", "no_projection",
                              path=module_call.path, what={"q": "queries", "k": "keys", "v": "values"}[role])
            roles[role], outs[role] = found.path, found.out
        norms = {conv.QK_NORM[conv.last(c.path)]: c for c in self._calls(module_call.index + 1, call.index)
                 if conv.last(c.path) in conv.QK_NORM}
        for role in "qkv":
            if shape.own:  # the model's own code may call a projection again (DeBERTa-v2's relative positions)
                b.plan.hooks.append(FirstCallOnly(roles[role], module_call.path))
            formula = f"{role.upper()} = {'X' if role == 'q' else source}·W^{role.upper()}"
            b.tap(f"{prefix}.{role}", f"{role}_proj", PROJ_AXES[role], formula, tokens[role], roles[role],
                  inputs=inputs[role])
            norm = norms.get(role)
            heads = shape.heads if role == "q" else shape.kv_heads
            if norm is not None and norm.out.dim() == 3:  # normed at full width, then split (OLMo 2)
                b.plan.hooks.append(Output(roles[role], f"{prefix}.{role}"))
                b.tap(f"{prefix}.{role}_norm", "qk_norm", PROJ_AXES[role], f"Norm({role.upper()}) over all heads at "
                      "once", tokens[role], norm.path, inputs=(f".{role}",))
                if shape.rotary and role != "v":
                    b.split(prefix, role, tokens[role], heads, shape.head_dim, f"{role}_norm")
                    b.plan.hooks.append(ProjectionSplit(norm.path, f"{prefix}.{role}_norm", f"{prefix}.{role}_split",
                                                        shape.head_dim))
                else:
                    b.plan.hooks.append(Output(norm.path, f"{prefix}.{role}_norm"))
                continue
            if shape.rotary and role != "v" or shape.own:
                b.split(prefix, role, tokens[role], heads, shape.head_dim)
                b.plan.hooks.append(ProjectionSplit(roles[role], f"{prefix}.{role}", f"{prefix}.{role}_split",
                                                    shape.head_dim))
            else:
                b.plan.hooks.append(Output(roles[role], f"{prefix}.{role}"))
            if norm is not None:  # one norm per head, after the split (Qwen3), or after the transpose (Gemma 3)
                tokens_axis = "query" if role == "q" else "key"
                axes = (("batch", "head", tokens_axis, "head_dim") if _heads_first(norm.input, outs[role], heads)
                        else ("batch", tokens_axis, "head", "head_dim"))
                b.output(norm.path, f"{prefix}.{role}_norm", "qk_norm", axes,
                         f"Norm over each head's {shape.head_dim} features of {role.upper()}", tokens[role],
                         inputs=(f".{role}_split",))

    def _latent(self, prefix: str, module_call: Call, names: dict, shape: AttentionShape) -> None:
        """Multi-head latent attention: the compressed query and key/value, then their decompressed heads."""
        b, t_q, t_k = self.b, {"query": self.stream}, {"key": self.stream}
        q_norm, kv_norm = names.get("q_a_layernorm"), None
        for c in self._calls(module_call.index + 1, module_call.end + 1):
            if conv.last(c.path) == "q_a_layernorm":
                q_norm = c
            elif conv.last(c.path) == "kv_a_layernorm":
                kv_norm = c
        if q_norm is not None:
            b.output(q_norm.path, f"{prefix}.q_compressed", "qk_norm", PROJ_AXES["q"],
                     "c_Q = Norm(X·W_DQ): the query compressed to a few features", t_q, inputs=(".norm",))
        q_path = (names.get("q_b_proj") or names.get("q_proj")).path
        b.output(q_path, f"{prefix}.q", "q_proj", PROJ_AXES["q"], "Q = c_Q·W_UQ (every head, decompressed)", t_q,
                 inputs=(".q_compressed",) if q_norm is not None else (".norm",))
        if kv_norm is None or "kv_b_proj" not in names:
            raise _refuse("cannot tell which child of {path} decompresses the keys and values.", "no_kv_b_proj",
                          path=module_call.path)
        module, latent = module_call.module, names["kv_a_proj_with_mqa"]
        dims = [getattr(module, n, None) for n in ("qk_nope_head_dim", "qk_rope_head_dim", "v_head_dim",
                                                   "num_heads", "kv_lora_rank")]
        nope, rope, v_dim, heads, rank = dims
        parts = all(isinstance(d, int) and d > 0 for d in dims)
        if parts:  # the query's rotary split, before RoPE
            for name, width, what in (("q_nope", nope, "without"), ("q_pe", rope, "with")):
                b.tap(f"{prefix}.{name}", "head_split", SPLIT_AXES["q"], f"the {width} features of each Q head {what} "
                      "rotary positions", t_q, q_path, role="q", inputs=(".q",))
            b.plan.hooks.append(HeadParts(q_path, None, (f"{prefix}.q_nope", f"{prefix}.q_pe"), (nope, rope), heads))
            b.tap(f"{prefix}.k_pe", "head_split", SPLIT_AXES["k"], f"k_pe: the {rope} key features with rotary positions, "
                  "one head shared by every head", t_k, latent.path, role="k", inputs=(".norm",))
            b.plan.hooks.append(HeadParts(latent.path, None, ("", f"{prefix}.k_pe"), (rank, rope), 1))
        b.output(kv_norm.path, f"{prefix}.kv_compressed", "qk_norm", self._latent_axes(kv_norm.path),
                 "c_KV = Norm(X·W_DKV): keys and values compressed together", t_k, inputs=(".norm",))
        kv_path, kv_axes = names["kv_b_proj"].path, self._latent_axes(names["kv_b_proj"].path)
        formula = "[K_nope | V] of every head = c_KV·W_UKV (decompressed)"
        if not parts:
            b.output(kv_path, f"{prefix}.kv", "k_proj", kv_axes, formula, t_k, inputs=(".kv_compressed",))
            return
        b.tap(f"{prefix}.kv", "k_proj", kv_axes, formula, t_k, kv_path, inputs=(".kv_compressed",))
        b.tap(f"{prefix}.k_nope", "k_proj", SPLIT_AXES["k"], f"K_nope: the first {nope} features of each head of kv",
              t_k, kv_path, role="k", inputs=(".kv",))
        b.tap(f"{prefix}.v", "v_proj", SPLIT_AXES["v"], f"V: the last {v_dim} features of each head of kv", t_k, kv_path,
              role="v", inputs=(".kv",))
        b.plan.hooks.append(HeadParts(kv_path, f"{prefix}.kv", (f"{prefix}.k_nope", f"{prefix}.v"), (nope, v_dim),
                                      heads))

    def _latent_axes(self, path: str) -> tuple[str, ...]:
        """(B, T, W), or (B, 1, T, W) where DeepSeek views the compressed keys with a head axis of one."""
        return ("batch", "head", "key", "model") if self.b.dims.get(path, (3, 3))[1] == 4 else PROJ_AXES["k"]

    # ----- feed-forward ------------------------------------------------------------------
    def ffn_unit(self, layer: Call, prefix: str, options: list[Stream], cursor: int) -> str:
        for option in options:
            if option.value is None:
                continue
            norm = None if option.post else next(
                (c for c in self._calls(cursor + 1, layer.end + 1) if conv.is_norm(c.module)
                 and close(c.input, option.value)), None)
            lo = (norm.end + 1) if norm is not None else cursor + 1
            found = self._resid(layer, option.value, lo)
            if found is None:
                continue
            c, total, m, scale = found
            nexts = [Stream(total, f"{prefix}.resid")]
            if c is not None and norm is None and conv.is_norm(c.module):
                nexts.append(Stream(c.out, f"{prefix}.norm", c, prefix, post=True))
            last = next((n for n in nexts if close(layer.out, n.value)), None)
            if last is None:
                continue
            self._settle_with_norm(option, norm, prefix)
            out_call = self._ffn_out(m, lo)
            self._ffn_parts(prefix, out_call, lo, ".norm" if norm is not None else option.stage)
            reader = norm or next((r for r in self._calls(lo, out_call.end + 1) if r.input is not None
                                   and close(r.input, option.value)), None)
            if reader is None:
                raise _refuse("cannot tell which module of {path} reads the residual stream.", "no_stream_reader",
                              path=layer.path)
            self._sum(prefix, option, m, scale, "FFN", out_call, total, c, norm is not None, reader)
            self._settle(last)
            return last.stage
        raise _refuse("cannot follow the residual stream through the feed-forward part of {path}.", "ffn_unclear",
                      path=layer.path)


def _heads_first(normed: Tensor | None, projected: Tensor | None, heads: int) -> bool:
    """Whether a per-head norm reads (B, H, T, Dh) — the split already transposed, as Gemma 3 does — rather
    than (B, T, H, Dh): told by its input against the projection's output (a head count equal to the
    number of tokens would make the shapes alone ambiguous)."""
    if normed is None or projected is None or normed.dim() != 4 or projected.dim() != 3:
        return False
    b, t = projected.shape[:2]
    if tuple(normed.shape[1:3]) != (heads, t):
        return False
    return heads != t or close(normed, projected.view(b, t, heads, -1).transpose(1, 2))
