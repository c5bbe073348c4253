"""Stage names, parsed in one place: `[gen.{t}.]{stack}.{layer}.{block}.{stage}` or `{site}.{stage}`.

Every part of tfdebug that needs to know which layer, block or stack a stage belongs
to asks `parse_name`; nothing else splits stage names. The references a stage's token
axes make to token streams (`src`, or `tgt[3:4]` during generation) are written and
parsed here too (`token_ref`, `parse_token_ref`). Titles for blocks and for the
standard stacks and sites live here too; an adapter may override the stack and site
titles (e.g. "Block" instead of "Decoder layer" for a GPT-style model).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Mapping

GEN_PREFIX = "gen"

# Titles of the standard blocks inside a layer.
BLOCK_TITLES: dict[str, str] = {
    "attn": "Self-attention",
    "self_attn": "Masked self-attention",
    "cross_attn": "Cross-attention",
    "ffn": "Feed-forward (FFN)",
    "mlp": "Feed-forward (MLP)",
}

# "{title} {i}" names layer i of a layered stack.
LAYER_TITLES: dict[str, str] = {"enc": "Encoder layer", "dec": "Decoder layer"}

# Titles of the layered stacks, drawn above their column.
STACK_TITLES: dict[str, str] = {"enc": "Encoder", "dec": "Decoder"}

# Titles of the stages outside layers, by site.
SITE_TITLES: dict[str, str] = {
    "src": "Source embedding + PE",
    "tgt": "Target embedding + PE",
    "tok": "Token embedding",
    "enc": "Encoder norm",
    "dec": "Decoder norm",
    "head": "Output head → logits",
}


@dataclass(frozen=True)
class StageName:
    """The parts of one stage name.

    `stack` is the first part after any generation prefix ('enc', 'dec', 'src', 'tok',
    'blocks' …, or 'head' for a bare name such as 'logits'); `layer` and `block` are None
    outside layers; `step` is the generation step of a `gen.{t}.` name.
    """

    full: str
    stack: str
    layer: int | None
    block: str | None
    stage: str
    step: int | None = None

    @property
    def prefix(self) -> str:
        """'gen.<step>.' for a generation step's stage, '' otherwise."""
        return f"{GEN_PREFIX}.{self.step}." if self.step is not None else ""

    @property
    def site(self) -> str:
        """'enc.attn' inside a layer, the stack outside one ('src', 'enc', 'head')."""
        return f"{self.stack}.{self.block}" if self.layer is not None else self.stack

    @property
    def block_id(self) -> str:
        """The block a stage belongs to: 'enc.0.attn' inside a layer, the site outside (with any step prefix)."""
        inner = f"{self.stack}.{self.layer}.{self.block}" if self.layer is not None else self.stack
        return self.prefix + inner

    @property
    def layer_id(self) -> str | None:
        """'enc.0' for stages inside a layer (with any step prefix), else None."""
        return f"{self.prefix}{self.stack}.{self.layer}" if self.layer is not None else None


@lru_cache(maxsize=65536)
def parse_name(name: str) -> StageName:
    """Split a stage name into its parts; any dotted name parses (unknown stacks keep their own name)."""
    parts = name.split(".")
    step = None
    if len(parts) >= 3 and parts[0] == GEN_PREFIX and parts[1].isdigit():
        step, parts = int(parts[1]), parts[2:]
    if len(parts) >= 4 and parts[1].isdigit():
        return StageName(name, parts[0], int(parts[1]), ".".join(parts[2:-1]), parts[-1], step)
    if len(parts) >= 2:
        return StageName(name, ".".join(parts[:-1]), None, None, parts[-1], step)
    return StageName(name, "head", None, None, parts[0], step)


def block_title(block: str) -> str:
    """The English title of a block (`self_attn` → "Masked self-attention"), for the map and the navigator."""
    return BLOCK_TITLES.get(block, block.replace("_", " ").capitalize())


def layer_title(stack: str, layer: int, titles: Mapping[str, str] | None = None) -> str:
    """The English title of one layer of a stack ("Encoder layer 0"); an adapter's `titles` win."""
    prefix = (titles or {}).get(stack) or LAYER_TITLES.get(stack) or stack.replace("_", " ").capitalize()
    return f"{prefix} {layer}"


def site_title(site: str, titles: Mapping[str, str] | None = None) -> str:
    """The English title of a stage's site (`src`, `enc.attn` …); an adapter's `titles` win."""
    return (titles or {}).get(site) or SITE_TITLES.get(site) or site


def stack_title(stack: str, titles: Mapping[str, str] | None = None) -> str:
    """The English title of a stack (`enc` → "Encoder"); an adapter's `titles` win."""
    return (titles or {}).get(stack) or STACK_TITLES.get(stack) or stack.replace("_", " ").capitalize()


# ----- token stream references ----------------------------------------------------------
def token_ref(stream: str, start: int, stop: int) -> str:
    """A reference to positions start … stop − 1 of a token stream: 'tgt[3:4]'.

    A generation step reads part of a stream that keeps growing (its new token as the
    query, every token so far as the keys): its stages label their axes with a slice.
    """
    return f"{stream}[{start}:{stop}]"


def parse_token_ref(ref: str) -> tuple[str, int | None, int | None]:
    """('tgt', 3, 4) for 'tgt[3:4]', ('src', None, None) for a whole stream 'src'; ValueError when malformed."""
    stream, bracket, rest = ref.partition("[")
    if not bracket:
        return ref, None, None
    start, colon, stop = rest.removesuffix("]").partition(":")
    if not rest.endswith("]") or not colon or not start.isdigit() or not stop.isdigit() or int(start) > int(stop):
        raise ValueError(f"malformed token reference {ref!r}")
    return stream, int(start), int(stop)


def unknown_stage(name: str, names, id: str = "stage.unknown_in_pass"):
    """The UnknownStageError for `name`, naming the closest of `names` when one is close (a typo)."""
    import difflib

    from tfdebug.core.errors import UnknownStageError

    close = difflib.get_close_matches(name, list(names), n=1, cutoff=0.6)
    if close:
        return UnknownStageError("There is no stage named '{name}' in this pass; did you mean {close}?",
                                 id="stage.unknown_close", name=name, close=close[0])
    return UnknownStageError("There is no stage named '{name}' in this pass.", id=id, name=name)
