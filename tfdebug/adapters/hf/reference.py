"""The verification's reference pass with bounded memory: the model's own eager attention, one block of heads
at a time, each block's probabilities compared with the pass's stage as they are made and let go.

transformers' `output_attentions` gathers every layer's probabilities until the forward returns:
layers × heads × tokens² (a 30-layer, 9-head model at 2,000 tokens holds 4.3 GB of them; at 8,192 tokens
72 GB), and eager attention makes one layer's whole plane at once (2.4 GB per copy at 8,192 tokens).
Here the unmodified model runs with the eager function of its own modeling module
(`eager_attention_forward`, what `attn_implementation="eager"` calls), given one block of query heads with
the key/value heads they read: the same arithmetic per (batch, head) as the whole call — a batched matmul
computes each head on its own — so a block's weights equal the corresponding heads of the whole call bit for
bit. Each block's weights are compared with the pass's probabilities stage (a recipe plane is computed for
the same heads only) and dropped; the module returns no weights, so nothing is gathered. Memory: one block,
about `BLOCK_BYTES`, whatever the length (a group of heads larger than that is cut into bands of query rows on
the CPU, each band's weights equal to the whole call's rows bit for bit: `recipes.block_shape`).

Where a model's attention module has no such function in its module, adds per-head sinks the function
reads from the module itself, or runs several times (a shared layer), the reference falls back to
transformers' whole eager pass (`bounded(plan)`).
"""

from __future__ import annotations

import sys
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Callable, Iterator, Mapping

import torch
from torch import Tensor, nn

IMPLEMENTATION = "tfdebug_reference"


@dataclass
class Compared:
    """What the bounded reference found, by probabilities stage: max |Δ| against the pass (`diffs`), and,
    when the blocks ran twice, max |Δ| between the two runs (`noise`: the model's own run-to-run noise)."""

    diffs: dict[str, float] = field(default_factory=dict)
    noise: dict[str, float] = field(default_factory=dict)


def own_eager(module: nn.Module) -> Callable | None:
    """The eager attention function of the module's own modeling file, None when it has none."""
    fn = getattr(sys.modules.get(type(module).__module__), "eager_attention_forward", None)
    return fn if callable(fn) else None


def bounded(plan) -> bool:
    """Whether every attention site of the plan can run the bounded reference: its own eager function, no
    sinks, and one probabilities stage per module (a layer module run several times, as ALBERT's, names
    one per run: its blocks could not say which run they are)."""
    with_probs = [site for site in plan.sites.values() if "probs" in site.taps]
    return (bool(plan.sites) and len(with_probs) == sum(len(names) for names in plan.probs.values())
            and all(own_eager(m) is not None and "sinks" not in site.taps for m, site in plan.sites.items()))


def block_diff(seen: Tensor, expected: Tensor) -> float:
    """max |seen − expected| of one block, in float32, with one temporary (the block's difference)."""
    if seen.shape != expected.shape:
        return float("inf")
    if not seen.numel():
        return 0.0
    diff = torch.sub(seen.detach().float(), expected.detach().float().to(seen.device))
    return float(diff.abs_().max())


def _blocks(query: Tensor, key: Tensor) -> Iterator[tuple[slice, slice, slice]]:
    """(query heads, key/value heads, query rows) blocks: whole groups of query heads with the key/value heads they
    read, in bands of query rows where one group's weights are larger than a block (`recipes.block_shape`, the
    weights counted in float32, the softmax's dtype)."""
    from tfdebug.core.recipes import block_shape, row_bands

    batch, heads, rows, _ = query.shape
    kv_heads, cols = key.shape[1], key.shape[-2]
    groups = max(1, heads // kv_heads)
    step, band = block_shape((batch, kv_heads, rows, groups * cols), torch.float32, query.device)
    for j in range(0, kv_heads, step):
        stop = min(kv_heads, j + step)
        for rs in row_bands(rows, band):
            yield slice(j * groups, stop * groups), slice(j, stop), rs


def block_bytes(plane: tuple[int, ...], groups: int, device: torch.device) -> int:
    """Bytes of the largest block `_blocks` computes for a probabilities plane of shape `plane` (B, H, Tq, Tk)
    whose query heads read a key/value head `groups` at a time (the weights in float32)."""
    from tfdebug.core.recipes import block_nbytes

    batch, heads, rows, cols = plane
    groups = max(1, min(groups, heads))
    return block_nbytes((batch, heads // groups, rows, groups * cols), torch.float32, device)


def block_keywords(kwargs: Mapping, heads: slice, count: int, rows: slice = slice(None)) -> dict:
    """The keywords of one block of `count` heads (and of query rows `rows`): a per-head position bias sliced to
    its heads and rows."""
    out = dict(kwargs)
    bias = out.get("position_bias")
    if isinstance(bias, Tensor) and bias.dim() == 4 and bias.shape[1] == count:
        out["position_bias"] = rows_of(bias[:, heads], rows)
    return out


def rows_of(tensor: Tensor | None, rows: slice) -> Tensor | None:
    """A (B, H or 1, Tq or 1, Tk) mask or bias at query rows `rows` (a broadcast query axis kept)."""
    if tensor is None or rows == slice(None) or tensor.dim() != 4 or tensor.shape[2] == 1:
        return tensor
    return tensor[:, :, rows]


@contextmanager
def reference_attention(model: nn.Module, plan, seen: Mapping[str, object], compared: Compared,
                        twice: bool = False) -> Iterator[None]:
    """Inside the block the model runs its own eager attention head block by head block (see the module
    docstring), each block compared with `seen[probs stage]` into `compared.diffs`; with `twice`, each block
    runs a second time and their difference goes to `compared.noise`. Registrations and the configs' attention
    implementation are restored in `finally`."""
    from transformers import AttentionInterface
    from transformers.masking_utils import AttentionMaskInterface, eager_mask

    from tfdebug.adapters.hf.attention import implementation

    names = {id(m): site.taps["probs"].info.name for m, site in plan.sites.items() if "probs" in site.taps}

    def forward(module, query, key, value, attention_mask, scaling=None, dropout=0.0, **kwargs):
        own = own_eager(module)
        name = names.get(id(module))
        stage = seen.get(name) if name is not None else None
        if scaling is None:
            scaling = query.size(-1) ** -0.5
        heads = query.shape[1]
        result, worst, noise = None, 0.0, 0.0
        for hs, kvs, rs in _blocks(query, key):
            part, mask = block_keywords(kwargs, hs, heads, rs), rows_of(attention_mask, rs)
            out, weights = own(module, query[:, hs, rs], key[:, kvs], value[:, kvs], mask,
                               scaling=scaling, dropout=dropout, **part)
            if stage is not None:
                worst = max(worst, block_diff(stage[:, hs, rs], weights))
            if twice:
                _, again = own(module, query[:, hs, rs], key[:, kvs], value[:, kvs], mask,
                               scaling=scaling, dropout=dropout, **part)
                noise = max(noise, block_diff(again, weights))
                del again
            del weights
            if result is None:  # (B, Tq, H, Dh), as the whole call returns it
                result = out.new_empty((query.shape[0], query.shape[2], heads, out.shape[-1]))
            result[:, rs, hs] = out  # out: (B, r, h, Dh)
        if stage is not None:
            compared.diffs[name] = max(compared.diffs.get(name, 0.0), worst)
            if twice:
                compared.noise[name] = max(compared.noise.get(name, 0.0), noise)
        return result, None

    registered = f"{IMPLEMENTATION}_{id(compared):x}"  # one name per check: two models may verify at once
    AttentionInterface.register(registered, forward)
    AttentionMaskInterface.register(registered, eager_mask)
    try:
        with implementation(model, registered):
            yield
    finally:
        AttentionInterface._global_mapping.pop(registered, None)
        AttentionMaskInterface._global_mapping.pop(registered, None)
