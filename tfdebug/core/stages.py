"""The stage vocabulary: kinds, axis names, and the description every stage carries.

Names follow `{stack}.{layer}.{block}.{stage}` (DESIGN.md); stages outside layers are
`src.*`, `tgt.*`, `enc.norm`, `dec.norm` and `logits`.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from tfdebug.core.names import parse_name, parse_token_ref

KINDS: tuple[str, ...] = (
    "embedding",
    "positional_encoding",
    "positional_add",
    "layer_norm",
    "rms_norm",
    "q_proj",
    "k_proj",
    "v_proj",
    "head_split",
    "rotary",
    "kv_repeat",
    "kv_cache",
    "scores",
    "scale",
    "position_bias",
    "softcap",
    "mask",
    "softmax",
    "attn_dropout",
    "attn_v",
    "head_merge",
    "out_proj",
    "residual",
    "ffn_gate",
    "ffn_hidden",
    "ffn_out",
    "logits",
    # sub-stages of real models (Hugging Face adapter)
    "qk_norm",
    "attn_sink",
    "router_logits",
    "routing",
    "expert_out",
    "embed_scale",
    "logit_scale",
)

# What a person reads for each kind (menus, tooltips); the design's whole vocabulary, so
# kinds other models add are titled too.
KIND_TITLES: dict[str, str] = {
    "embedding": "Embedding", "positional_encoding": "Positional encoding",
    "positional_add": "Add positional encoding", "layer_norm": "LayerNorm", "rms_norm": "RMSNorm",
    "q_proj": "Q projection", "k_proj": "K projection", "v_proj": "V projection", "head_split": "Head split",
    "rotary": "Rotary embedding", "kv_repeat": "K/V repeat", "kv_cache": "KV cache", "scores": "Scores Q·Kᵀ",
    "scale": "Scale ÷√d_k", "position_bias": "Position bias", "softcap": "Soft cap", "mask": "Mask",
    "softmax": "Softmax", "attn_dropout": "Attention dropout", "attn_v": "Weighted sum P·V",
    "head_merge": "Head merge", "out_proj": "Output projection W^O", "residual": "Residual add",
    "ffn_gate": "FFN gate", "ffn_hidden": "FFN hidden layer", "ffn_out": "FFN output", "logits": "Logits",
    "qk_norm": "Q/K norm", "attn_sink": "Attention sink", "router_logits": "Router logits",
    "routing": "Expert routing", "expert_out": "Experts' output", "embed_scale": "Embedding multiplier",
    "logit_scale": "Logit scaling",
}


def kind_title(kind: str) -> str:
    """The readable name of a stage kind: 'q_proj' -> 'Q projection'."""
    return KIND_TITLES.get(kind) or kind.replace("_", " ").capitalize()


AXES: tuple[str, ...] = (
    "batch", "token", "query", "key", "head", "head_dim", "model", "hidden", "vocab", "expert",
    "image", "text",  # a two-tower model's similarities: one row per picture, one column per text
    "mel", "frame",  # a speech model's spectrogram: mel bands × time frames, before its encoder's positions
)

# Axes whose positions are tokens: a view labels them with token strings.
TOKEN_AXES = frozenset({"token", "query", "key"})


def token_labels(streams: "dict[str, list[str]]", ref: str) -> list[str] | None:
    """The token strings a stage's axis refers to (a stream or a slice of one); None when they are not there."""
    try:
        stream, start, stop = parse_token_ref(ref)
    except ValueError:
        return None
    words = streams.get(stream)
    if words is None or (stop is not None and stop > len(words)):
        return None
    return list(words) if start is None else list(words[start:stop])


@dataclass(frozen=True)
class StageInfo:
    """What a stage is, independent of any tensor: data only, no model reference.

    `source` is "file:line" of the line that produced the stage's tensor, filled the
    first time the stage runs. `ops` names the reshapes between the previous stage and
    this one (e.g. ("view", "transpose") for a head split) so a view can show the
    transition. `tokens` says which sequence ("src" or "tgt") each token axis indexes,
    or which slice of it ('tgt[3:4]', see `token_ref`).

    `inputs` names the stages this one is computed from, as absolute stage names in
    the order they enter the formula: `scores` from (`….q_split`, `….k_split`),
    cross-attention's K from (`enc.norm`,), a residual from (its block's input, its
    sublayer's `out`). Empty for stages computed from token ids (the embeddings).
    A listed stage that some passes skip (a padding mask where nothing is padded) is
    absent from those passes: its data then comes straight from the stage before it,
    which is what a view shows when `input_names` finds none of the inputs in the pass.
    """

    name: str
    kind: str
    site: str
    layer: int | None
    axes: tuple[str, ...]
    formula: str
    role: str | None = None
    ops: tuple[str, ...] = ()
    source: str | None = None
    tokens: dict[str, str] = field(default_factory=dict, compare=False, hash=False)
    inputs: tuple[str, ...] = ()

    def __post_init__(self):
        if self.kind not in KINDS:
            raise ValueError(f"unknown stage kind {self.kind!r}")
        for axis in self.axes:
            if axis not in AXES:
                raise ValueError(f"unknown axis name {axis!r}")

    @property
    def block(self) -> str:
        """The block a stage belongs to, e.g. 'enc.0.attn'; for stages outside layers, the site."""
        return parse_name(self.name).block_id

    def with_source(self, source: str) -> "StageInfo":
        """A copy of this info with `source` (the model line that produced the tensor)."""
        return replace(self, source=source)

    def to_dict(self) -> dict:
        """The manifest/JSON form of the description (no tensor facts)."""
        return {
            "name": self.name,
            "kind": self.kind,
            "site": self.site,
            "layer": self.layer,
            "axes": list(self.axes),
            "formula": self.formula,
            "role": self.role,
            "ops": list(self.ops),
            "source": self.source,
            "tokens": dict(self.tokens),
            "inputs": list(self.inputs),
        }

    @classmethod
    def from_dict(cls, data: dict) -> "StageInfo":
        """A StageInfo from the dict `to_dict` wrote."""
        return cls(
            name=data["name"],
            kind=data["kind"],
            site=data["site"],
            layer=data.get("layer"),
            axes=tuple(data.get("axes", ())),
            formula=data.get("formula", ""),
            role=data.get("role"),
            ops=tuple(data.get("ops", ())),
            source=data.get("source"),
            tokens=dict(data.get("tokens", {})),
            inputs=tuple(data.get("inputs", ())),
        )

    def input_names(self, ran: "set[str] | dict[str, object]") -> tuple[str, ...]:
        """The inputs that ran in a pass whose stage names are `ran` (a set or a name → index map)."""
        return tuple(name for name in self.inputs if name in ran)


def resolve_input(stage: str, name: str) -> str:
    """An input name as written at a tap: '.norm' is a sibling of `stage` ('enc.0.attn.q' -> 'enc.0.attn.norm');
    anything else is already absolute."""
    if not name.startswith("."):
        return name
    parent = stage.rsplit(".", 1)[0] if "." in stage else ""
    return f"{parent}{name}" if parent else name[1:]


def site_and_layer(name: str) -> tuple[str, int | None]:
    """Site and layer of a stage name: 'enc.0.attn.q' -> ('enc.attn', 0); 'src.pos' -> ('src', None)."""
    parsed = parse_name(name)
    return parsed.site, parsed.layer
