"""Stage names of any Hugging Face model, found by convention from one probing run (DESIGN.md's grammar).

Decoder-only models: `tok.*`, `dec.{i}.self_attn.*`, `dec.{i}.ffn.*`, `dec.norm`, `logits`.
Encoder-only: `tok.*`, `enc.{i}.attn.*`, `enc.{i}.ffn.*`. Encoder–decoder: `src.*`,
`enc.{i}.*`, `enc.norm`, `tgt.*`, `dec.{i}.{self_attn,cross_attn,ffn}.*`, `dec.norm`, `logits`.
Layer numbers come from module paths (`….h.3`, `decoder.block.3`), never from `layer_idx`; a layer
module run several times (ALBERT's shared layer) is numbered by call: `enc.3` is its fourth run.

There is no walk per family. `hf_probe` runs the model once and records which modules call
transformers' attention interface and what every module passed to the next; from that the
planner finds the stacks (the module lists holding those attention modules), each layer's
norms, projections (by the data table in `hf_conventions`), residual sums (checked by value:
the stream plus which module's output) and feed-forward parts, the embeddings and the head.
A part it cannot match is refused with the part named, never captured wrongly.
"""

from __future__ import annotations

import torch
from torch import Tensor, nn

from tfdebug.adapters.hf import conventions as conv
from tfdebug.adapters.hf.builder import STREAM, AttentionShape, Builder, TapPlan
from tfdebug.adapters.hf.layers import LayerPlanner
from tfdebug.adapters.hf.match import close, config_scales
from tfdebug.adapters.hf.match import refuse as _refuse
from tfdebug.adapters.hf.match import scale as _scale
from tfdebug.adapters.hf.probe import Call, Probe, probe
from tfdebug.core.model_lock import forward_lock

__all__ = ["TapPlan", "tap_plan"]


def _layer_of(path: str, model: nn.Module) -> tuple[str, int] | None:
    """('model.layers', 3) for 'model.layers.3.self_attn': the module list holding a layer, and its index."""
    parts = path.split(".")
    for i in range(1, len(parts)):  # the outermost list: T5's blocks, not the sublayers inside one
        if parts[i].isdigit() and isinstance(model.get_submodule(".".join(parts[:i])), nn.ModuleList):
            return ".".join(parts[:i]), int(parts[i])
    return None


class Planner:
    """Plans one model: stacks, embeddings, layers (`hf_layers.LayerPlanner`), final norms and the head."""

    def __init__(self, model: nn.Module, record: Probe):
        self.model, self.record = model, record
        self.paths = {id(m): p for p, m in model.named_modules()}
        config = model.config
        self.encoder_decoder = bool(getattr(config, "is_encoder_decoder", False))
        causal = _causal(record)  # a decoder without its head (GPT2Model) still masks the future
        generates = (model.can_generate() if hasattr(model, "can_generate") else False) or causal
        self.streams = ("src", "tgt") if self.encoder_decoder else (("prompt",) if generates else ("text",))
        dims: dict[str, tuple[int, int]] = {}
        for call in record.calls:
            if call.attention is None and call.out is not None:
                dims.setdefault(call.path, (call.input.dim() if call.input is not None else -1, call.out.dim()))
        self.b = Builder(model, self.streams, dims)
        self.scales = config_scales(config)
        self.shared: set[str] = set()  # module lists whose layers share weights (hf_shared)

    # ----- stacks ------------------------------------------------------------------------
    def stacks(self) -> list[tuple[str, str, list[Call]]]:
        """(list path, stack name, layer calls in order) for every module list whose layers compute attention."""
        found: dict[str, dict[int, Call]] = {}
        for call in self.record.attention_calls():
            where = _layer_of(call.path, self.model)
            if where is None:
                raise _refuse("{path} computes attention outside any list of layers, so tfdebug cannot number "
                              "its layer.", "no_layer_list", path=call.path)
            found.setdefault(where[0], {})
        result = []
        for list_path in found:
            calls = [c for c in self.record.calls if c.attention is None and c.path.startswith(list_path + ".")
                     and c.path[len(list_path) + 1:].isdigit()]
            indices = [int(c.path.rsplit(".", 1)[1]) for c in calls]
            if len(set(indices)) != len(indices):  # one layer module run several times (ALBERT): named per call
                self.shared.add(list_path)
            if self.encoder_decoder:
                name = "dec" if "decoder" in list_path.split(".") else "enc"
            else:
                name = "dec" if self.streams == ("prompt",) else "enc"
            result.append((list_path, name, calls))
        names = [r[1] for r in result]
        if len(set(names)) != len(names):
            raise _refuse("{model} has several lists of attention layers ({paths}) that tfdebug cannot tell apart "
                          "as an encoder and a decoder.", "stacks_unclear", model=type(self.model).__name__,
                          paths=", ".join(r[0] for r in result))
        return result

    def container(self, list_path: str, name: str) -> Call:
        """The call of the module that runs a stack (the encoder, the decoder, or the base model)."""
        if self.encoder_decoder:
            module = self.model.get_encoder() if name == "enc" else self.model.get_decoder()
            call = next((c for c in self.record.calls if c.module is module and c.attention is None), None)
        else:  # the innermost module around the layers that also looks up the embeddings (OPT's model.decoder)
            parts, call = list_path.split("."), None
            for i in range(len(parts) - 1, -1, -1):
                candidate = self.record.first(".".join(parts[:i]))
                if candidate is not None and any(self._is_embedding(c.module) for c in self.record.inside(candidate)):
                    call = candidate
                    break
        if call is None:
            raise _refuse("cannot find the module that runs {path}.", "no_stack_module", path=list_path)
        return call

    # ----- embeddings --------------------------------------------------------------------
    def _is_embedding(self, module: nn.Module) -> bool:
        """The input embedding, or a module sharing its table (BART's scaled copy in each stack)."""
        embedding = self.model.get_input_embeddings()
        weight = getattr(module, "weight", None)
        return module is embedding or (weight is not None and weight is getattr(embedding, "weight", None))

    def embeddings(self, stack: str, container: Call, first_layer: Call, within: str | None) -> str:
        """Stages from the token ids to the first layer's input; the name of the last one."""
        prefix = {"enc": "src", "dec": "tgt"}[stack] if self.encoder_decoder else "tok"
        stream = {"src": "src", "tgt": "tgt"}.get(prefix, self.streams[0])
        t = {"token": stream}
        region = [c for c in self.record.calls[container.index + 1: first_layer.index] if c.attention is None]
        embed = next((c for c in region if self._is_embedding(c.module)), None)
        embedding = embed.module if embed is not None else None
        if embed is None:
            raise _refuse("cannot find where {model} looks up its token embeddings before {path}.", "no_embedding",
                          model=type(self.model).__name__, path=first_layer.path)
        b = self.b
        formula = "E[token]"
        ids, weight = embed.input, getattr(embed.module, "weight", None)
        if isinstance(weight, Tensor) and isinstance(ids, Tensor) and not ids.is_floating_point() \
                and weight.device == ids.device:  # not weights offloaded by a device_map
            scale = _scale(embed.out, nn.functional.embedding(ids, weight.detach()))
            if scale is not None and scale != 1.0:  # Gemma's and BART's scaled embeddings multiply inside
                formula = f"E[token] × {scale:.6g}  (the embedding's own multiplier)"
        b.output(embed.path, f"{prefix}.embed", "embedding", STREAM, formula, t, within)
        last, value = f"{prefix}.embed", embed.out
        added = []
        for call in region:
            name = conv.last(call.path)
            if call.module is embedding or call.index < embed.index or not isinstance(call.module, nn.Embedding) \
                    and "Embedding" not in type(call.module).__name__:
                continue
            if name in conv.POSITION_EMBEDDINGS:
                b.output(call.path, f"{prefix}.pos_embed", "positional_encoding", STREAM, "P[pos]", t, within)
                added.append(f"{prefix}.pos_embed")
            elif name in conv.TYPE_EMBEDDINGS:
                b.output(call.path, f"{prefix}.type_embed", "embedding", STREAM, "T[token type]", t, within)
                added.append(f"{prefix}.type_embed")
        after = max([embed.end] + [c.end for c in region if c.path.rsplit(".", 1)[-1] in
                                   conv.POSITION_EMBEDDINGS | conv.TYPE_EMBEDDINGS])
        later = [c for c in region if c.index > after]
        if added:
            consumer = next((c for c in later if c.input is not None and self.record.produced(c.input) is None),
                            first_layer)
            terms = " + ".join(["E[token]"] + [{"pos_embed": "P[pos]", "type_embed": "T[type]"}[a.split(".")[1]]
                                               for a in added])
            b.input(consumer.path, f"{prefix}.pos", "positional_add", STREAM, terms, t, within,
                    inputs=(f"{prefix}.embed", *added))
            last, value = f"{prefix}.pos", consumer.input
        for call in later:
            if call.input is None or not close(call.input, value):
                continue
            if conv.is_norm(call.module):
                kind, formula = conv.norm_kind(call.module)
                b.output(call.path, f"{prefix}.norm", kind, STREAM, formula, t, within, inputs=(last,))
                last, value = f"{prefix}.norm", call.out
            elif conv.is_linear(call.module):
                b.output(call.path, f"{prefix}.proj", "embedding", STREAM, "X·W_proj  (embedding size → model size)",
                         t, within, inputs=(last,))
                last, value = f"{prefix}.proj", call.out
        x0 = first_layer.input
        if not close(x0, value):
            scale = _scale(x0, value, allowed=self.scales)
            if scale is None:
                raise _refuse("cannot tell how {model}'s embeddings become the input of {path}.", "embedding_unclear",
                              model=type(self.model).__name__, path=first_layer.path)
            b.input(first_layer.path, f"{prefix}.scaled", "embed_scale", STREAM, f"X × {scale:.6g}", t, within,
                    inputs=(last,))
            last = f"{prefix}.scaled"
        return last

    # ----- the whole model ---------------------------------------------------------------
    def plan(self) -> TapPlan:
        stacks = self.stacks()
        encoder_out = None
        markers = []
        last = None
        for list_path, stack, layers in stacks:
            container = self.container(list_path, stack)
            within = container.path if self.encoder_decoder else None
            if within:
                markers.append(within)
            previous = self.embeddings(stack, container, layers[0], within)
            planner = LayerPlanner(self, stack, within, encoder_out)
            inputs = []
            for n, layer in enumerate(layers):
                inputs.append(previous)
                if list_path in self.shared:
                    previous = self._application(planner, list_path, layer, previous, n)
                else:
                    previous = planner.layer(layer, previous)
            key = "hidden_states" if not self.encoder_decoder else f"{'encoder' if stack == 'enc' else 'decoder'}" \
                                                                    "_hidden_states"
            self.b.plan.layer_inputs[key] = inputs
            for role, names in planner.probs.items():
                self.b.plan.probs[role] = names
            previous = self.final_norm(stack, container, layers[-1], previous, within)
            if stack == "enc":
                encoder_out = previous
            last = previous
        self.head(last)
        from tfdebug.adapters.hf.hooks import StackMarker

        from tfdebug.adapters.hf.shared import Applications

        self.b.plan.hooks[:0] = [StackMarker(p) for p in markers] + [
            Applications(list_path, tuple(dict.fromkeys(c.path for c in calls)))
            for list_path, _, calls in stacks if list_path in self.shared]
        return self.b.plan

    def _application(self, planner: LayerPlanner, list_path: str, layer: Call, previous: str, n: int) -> str:
        """The `n`-th call of a layer module that runs several times: stages `{stack}.{n}.*`, its hooks firing
        in that call only (hf_shared)."""
        from tfdebug.adapters.hf.shared import per_application

        plan, start = self.b.plan, len(self.b.plan.hooks)
        before = dict(plan.sites)
        last = planner.layer(layer, previous, n)
        sites = {m: site for m, site in plan.sites.items() if before.get(m) is not site}
        plan.hooks[start:] = per_application(plan.hooks[start:], sites, self.paths, list_path, n)
        return last

    def final_norm(self, stack: str, container: Call, layer: Call, previous: str, within: str | None) -> str:
        after = [c for c in self.record.calls[layer.end + 1: container.end + 1] if c.attention is None]
        norm = next((c for c in after if conv.is_norm(c.module) and close(c.input, layer.out)), None)
        if norm is None:
            return previous
        kind, formula = conv.norm_kind(norm.module)
        stream = {"enc": "src", "dec": "tgt"}[stack] if self.encoder_decoder else self.streams[0]
        self.b.output(norm.path, f"{stack}.norm", kind, STREAM, formula, {"token": stream}, within,
                      inputs=(previous,))
        return f"{stack}.norm"

    def head(self, previous: str) -> None:
        """`logits`: the output embedding's output, or the model's returned logits when something follows it."""
        head = self.model.get_output_embeddings() if hasattr(self.model, "get_output_embeddings") else None
        call = next((c for c in self.record.calls if head is not None and c.module is head), None)
        if call is None:
            return
        stream = "tgt" if self.encoder_decoder else self.streams[0]
        t = {"token": stream}
        returned = getattr(self.record.output, "logits", None)
        formula = "h·W_vocab" if self.streams != ("text",) else "transform(h)·W_vocab"
        cap = getattr(self.model.config, "final_logit_softcapping", None)
        if not isinstance(returned, Tensor) or returned is call.out or (not cap and close(returned, call.out)):
            self.b.output(call.path, "logits", "logits", ("batch", "token", "vocab"), formula, t, inputs=(previous,))
            return
        from tfdebug.adapters.hf.hooks import ModelLogits

        self.b.output(call.path, "head.raw", "logits", ("batch", "token", "vocab"), formula, t, inputs=(previous,))
        if cap:
            self.b.tap("logits", "softcap", ("batch", "token", "vocab"), f"{cap:g}·tanh(logits / {cap:g})", t,
                       inputs=("head.raw",))
        else:
            scale = _scale(returned, call.out, allowed=self.scales)
            if scale is None:
                raise _refuse("{model} changes its logits after {path} in a way tfdebug cannot name.",
                              "logits_unclear", model=type(self.model).__name__, path=call.path)
            self.b.tap("logits", "logit_scale", ("batch", "token", "vocab"), f"logits × {scale:.6g}", t,
                       inputs=("head.raw",))
        self.b.plan.hooks.append(ModelLogits("logits"))


def _causal(record: Probe) -> bool:
    """Whether the first attention call's mask hides the second key from the first query (a causal mask)."""
    mask = record.attention_calls()[0].attention[3]
    if not isinstance(mask, Tensor) or mask.dim() != 4 or mask.shape[-1] < 2 or mask.shape[-2] < 1:
        return False
    first = mask[0, 0, 0, 1]
    return bool(first <= torch.finfo(mask.dtype).min / 2) if mask.is_floating_point() else not bool(first)


def tap_plan(model: nn.Module) -> TapPlan:
    """The taps and hooks of a Hugging Face model; UnsupportedModelError naming the part that does not match."""
    from tfdebug.adapters.hf.load import quiet_transformers

    with forward_lock(model), quiet_transformers():  # not while a background check of this model runs
        record = probe(model)
    return Planner(model, record).plan()


__all__ += ["AttentionShape"]
