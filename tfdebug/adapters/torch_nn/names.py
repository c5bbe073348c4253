"""Names and descriptions of the stages of a module that calls scaled_dot_product_attention.

Where the structure is recognisable the names follow DESIGN.md's grammar: the layers of
an `nn.TransformerEncoder` (or of a list of `nn.TransformerEncoderLayer`, or one bare
layer) are `enc.{i}.attn.*` / `enc.{i}.ffn.*`, those of an `nn.TransformerDecoder` are
`dec.{i}.self_attn.*`, `dec.{i}.cross_attn.*`, `dec.{i}.ffn.*`, their final norms
`enc.norm` / `dec.norm`. Anywhere else a stage is named after the module whose forward
called attention (`blocks.3.attn.probs`; a list item `blocks.3` that calls it itself
gets the block `blocks.3.attn`; the wrapped module itself is `attn`).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from torch import Tensor, nn

ROOT_PREFIX = "attn"


@dataclass(frozen=True)
class StageSpec:
    """What a tap is, apart from its name: kind, axes (by tensor rank), formula, role, inputs."""

    kind: str
    axes: tuple[str, ...]
    formula: str
    role: str | None = None
    inputs: tuple[str, ...] = ()


@dataclass(frozen=True)
class Hook:
    """One module output (or, with `before`, its first input) shown as a stage."""

    module: nn.Module
    name: str
    spec: StageSpec
    before: bool = False


@dataclass
class Naming:
    """Stage prefixes by module, the token stream of each prefix, and the hooks of recognised layers."""

    prefixes: dict[int, str] = field(default_factory=dict)   # id(module) -> 'enc.0.attn' / 'blocks.3.attn'
    streams: dict[str, tuple[str, str]] = field(default_factory=dict)  # prefix -> (query stream, key stream)
    hooks: list[Hook] = field(default_factory=list)
    attentions: list[nn.MultiheadAttention] = field(default_factory=list)

    def prefix_of(self, module: nn.Module) -> str | None:
        return self.prefixes.get(id(module))


def _stacks(model: nn.Module, layer_type: type, stack_type: type) -> list[tuple[list[nn.Module], nn.Module | None]]:
    """Groups of layers of one type: each `stack_type`'s layers (with its final norm), any other list of them, bare layers."""
    groups, seen = [], set()
    for module in model.modules():
        if isinstance(module, stack_type):
            groups.append((list(module.layers), module.norm))
            seen.update(id(m) for m in module.layers)
    for module in model.modules():
        if isinstance(module, nn.ModuleList) and module and all(isinstance(m, layer_type) for m in module):
            if not any(id(m) in seen for m in module):
                groups.append((list(module), None))
                seen.update(id(m) for m in module)
    for module in model.modules():
        if isinstance(module, layer_type) and id(module) not in seen:
            groups.append(([module], None))
    return groups


def _sequence_axes(batch_first: bool, last: str = "model") -> tuple[str, ...]:
    return ("batch", "token", last) if batch_first else ("token", "batch", last)


def _batch_first(layer: nn.Module) -> bool:
    """Whether a torch.nn Transformer layer takes (batch, token, model): its attention says."""
    return bool(getattr(layer.self_attn, "batch_first", False))


def _layer_hooks(prefix: str, layer: nn.Module, blocks: tuple[str, ...]) -> list[Hook]:
    """Norms and the feed-forward of one torch.nn Transformer layer; `blocks` names its attention blocks in order."""
    axes = _sequence_axes(_batch_first(layer))
    norms = [getattr(layer, f"norm{i + 1}") for i in range(len(blocks) + 1)]
    hooks = [Hook(norm, f"{prefix}.{block}.norm", StageSpec("layer_norm", axes, "LayerNorm(x)"))
             for norm, block in zip(norms, blocks + ("ffn",))]
    hooks.append(Hook(layer.linear2, f"{prefix}.ffn.hidden",
                      StageSpec("ffn_hidden", axes[:2] + ("hidden",), "activation(x·W₁ + b₁)", inputs=(".norm",)),
                      before=True))
    hooks.append(Hook(layer.linear2, f"{prefix}.ffn.out",
                      StageSpec("ffn_out", axes, "hidden·W₂ + b₂", inputs=(".hidden",))))
    return hooks


def name_modules(model: nn.Module, streams: list[str]) -> Naming:
    """How the stages of `model` are named; `streams` are the token streams its inputs give (first is the default)."""
    naming = Naming()
    first = streams[0] if streams else ""
    enc_stream = "src" if "src" in streams else first
    dec_stream = "tgt" if "tgt" in streams else first
    for path, module in model.named_modules():
        # A list item ('blocks.3') is a layer: its attention is the block 'blocks.3.attn'.
        prefix = f"{path}.{ROOT_PREFIX}" if path.rpartition(".")[2].isdigit() else path or ROOT_PREFIX
        naming.prefixes[id(module)] = prefix
        naming.streams[prefix] = (first, first)
        if isinstance(module, nn.MultiheadAttention):
            naming.attentions.append(module)
    encoders = _stacks(model, nn.TransformerEncoderLayer, nn.TransformerEncoder)
    decoders = _stacks(model, nn.TransformerDecoderLayer, nn.TransformerDecoder)
    if len(encoders) == 1:  # two encoders would clash as 'enc': they keep their module paths
        layers, norm = encoders[0]
        naming.streams["enc"] = (enc_stream, enc_stream)
        for i, layer in enumerate(layers):
            naming.streams[f"enc.{i}"] = (enc_stream, enc_stream)
            _name(naming, layer.self_attn, f"enc.{i}.attn", (enc_stream, enc_stream))
            naming.hooks += _layer_hooks(f"enc.{i}", layer, ("attn",))
        if norm is not None:
            naming.hooks.append(Hook(norm, "enc.norm", StageSpec("layer_norm", _sequence_axes(
                _batch_first(layers[0])), "LayerNorm(x), after the last encoder layer")))
    if len(decoders) == 1:
        layers, norm = decoders[0]
        naming.streams["dec"] = (dec_stream, dec_stream)
        for i, layer in enumerate(layers):
            naming.streams[f"dec.{i}"] = (dec_stream, dec_stream)
            _name(naming, layer.self_attn, f"dec.{i}.self_attn", (dec_stream, dec_stream))
            _name(naming, layer.multihead_attn, f"dec.{i}.cross_attn", (dec_stream, enc_stream))
            naming.hooks += _layer_hooks(f"dec.{i}", layer, ("self_attn", "cross_attn"))
        if norm is not None:
            naming.hooks.append(Hook(norm, "dec.norm", StageSpec("layer_norm", _sequence_axes(
                _batch_first(layers[0])), "LayerNorm(x), after the last decoder layer")))
    return naming


def _name(naming: Naming, module: nn.Module, prefix: str, streams: tuple[str, str]) -> None:
    naming.prefixes[id(module)] = prefix
    naming.streams[prefix] = streams


def _lead_axes(rank: int, tail: tuple[str, ...]) -> tuple[str, ...]:
    """Axis names for a tensor of `rank` whose last axes are `tail`; the ones before are heads, then batch."""
    lead = ("batch", "head")[-(rank - len(tail)):] if rank > len(tail) else ()
    return ("batch",) * max(0, rank - len(tail) - 2) + lead + tail


def attention_spec(stage: str, tensor: Tensor, *, scale: float | None = None, mask: str = "",
                   groups: int = 1) -> StageSpec:
    """The description of one stage of scaled_dot_product_attention, for a tensor of the rank it has."""
    rank = tensor.dim()
    if stage in ("q_split", "k_split", "v_split"):
        role = stage[0]
        token = "query" if role == "q" else "key"
        source = f".{role}"
        return StageSpec("head_split", _lead_axes(rank, (token, "head_dim")),
                         f"{role.upper()} by heads (B, H, {'L' if role == 'q' else 'S'}, E), as passed to attention",
                         role=role, inputs=(source,))
    if stage in ("k_repeat", "v_repeat"):
        role = stage[0]
        return StageSpec("kv_repeat", _lead_axes(rank, ("key", "head_dim")),
                         f"{role.upper()} heads repeated ×{groups} (grouped-query attention)", role=role,
                         inputs=(f".{role}_split",))
    matrix = _lead_axes(rank, ("query", "key"))
    if stage == "scores":
        return StageSpec("scores", matrix, "Q·Kᵀ", inputs=(".q_split", ".k_split"))
    if stage == "scaled":
        how = "1/√E" if scale is None else f"scale={scale:g}"
        return StageSpec("scale", matrix, f"Q·Kᵀ · {how}", inputs=(".scores",))
    if stage == "masked":
        return StageSpec("mask", matrix, f"Q·Kᵀ · scale + M  (M: {mask})", inputs=(".scaled",))
    if stage == "probs":
        return StageSpec("softmax", matrix, "P = softmax(·, over keys); a row with every key masked is 0",
                         inputs=(".masked",))
    if stage == "context":
        return StageSpec("attn_v", _lead_axes(rank, ("query", "head_dim")), "P·V", inputs=(".probs", ".v_split"))
    raise KeyError(stage)


def mask_words(is_causal: bool, attn_mask: Tensor | None) -> str:
    """How a call masks its scores, in words for the formula."""
    if is_causal:
        return "−∞ above the diagonal, aligned top-left (is_causal)"
    if attn_mask is not None and attn_mask.dtype.is_floating_point:
        return "the float attn_mask, added"
    return "−∞ where the bool attn_mask is False"


PROJECTION_SPECS = {
    role: StageSpec(f"{role}_proj", (token, "batch", "model"), formula, inputs=(".norm",))
    for role, token, formula in (
        ("q", "query", "Q = X·W_Q + b_Q  (rows 0:E of in_proj_weight)"),
        ("k", "key", "K = X·W_K + b_K  (rows E:2E of in_proj_weight)"),
        ("v", "key", "V = X·W_V + b_V  (rows 2E:3E of in_proj_weight)"),
    )
}

OUT_SPEC_FORMULA = "concat(heads)·W^O + b^O  (out_proj)"


def out_spec(tensor: Tensor, batch_first: bool) -> StageSpec:
    """The stage spec of an attention module's output projection, with axes in its batch layout."""
    axes = ("query", "model") if tensor.dim() == 2 else (
        ("batch", "query", "model") if batch_first else ("query", "batch", "model"))
    return StageSpec("out_proj", axes, OUT_SPEC_FORMULA, inputs=(".context",))


def sequence_spec(spec: StageSpec, tensor: Tensor) -> StageSpec:
    """`spec` with its axes fitted to an unbatched (T, E) tensor where it is one."""
    if tensor.dim() == len(spec.axes):
        return spec
    kept = tuple(a for a in spec.axes if a != "batch")
    return StageSpec(spec.kind, kept[-tensor.dim():], spec.formula, spec.role, spec.inputs)
