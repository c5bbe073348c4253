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
about `BLOCK_BYTES`, whatever the length.

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

from tfdebug.core.recipes import BLOCK_BYTES

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


def _head_blocks(batch: int, heads: int, kv_heads: int, rows: int, cols: int) -> Iterator[tuple[slice, slice]]:
    """(query heads, key/value heads) blocks: whole groups of query heads with the key/value heads they read."""
    groups = max(1, heads // kv_heads)
    per_kv = max(1, batch * groups * rows * cols * 4)  # the block's weights in float32 (the softmax's dtype)
    step = max(1, min(kv_heads, BLOCK_BYTES // per_kv))
    for j in range(0, kv_heads, step):
        stop = min(kv_heads, j + step)
        yield slice(j * groups, stop * groups), slice(j, stop)


def block_keywords(kwargs: Mapping, heads: slice, count: int) -> dict:
    """The keywords of one block of `count` heads: a per-head position bias sliced to its heads."""
    out = dict(kwargs)
    bias = out.get("position_bias")
    if isinstance(bias, Tensor) and bias.dim() == 4 and bias.shape[1] == count:
        out["position_bias"] = bias[:, heads]
    return out


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
        batch, heads, rows, _ = query.shape
        outs, worst, noise = [], 0.0, 0.0
        for hs, kvs in _head_blocks(batch, heads, key.shape[1], rows, key.shape[-2]):
            part = block_keywords(kwargs, hs, heads)
            out, weights = own(module, query[:, hs], key[:, kvs], value[:, kvs], attention_mask,
                               scaling=scaling, dropout=dropout, **part)
            if stage is not None:
                worst = max(worst, block_diff(stage[:, hs], weights))
            if twice:
                _, again = own(module, query[:, hs], key[:, kvs], value[:, kvs], attention_mask,
                               scaling=scaling, dropout=dropout, **part)
                noise = max(noise, block_diff(again, weights))
                del again
            del weights
            outs.append(out)  # (B, Tq, h, Dh)
        if stage is not None:
            compared.diffs[name] = max(compared.diffs.get(name, 0.0), worst)
            if twice:
                compared.noise[name] = max(compared.noise.get(name, 0.0), noise)
        return torch.cat(outs, dim=2), None

    registered = f"{IMPLEMENTATION}_{id(compared):x}"  # one name per check: two models may verify at once
    AttentionInterface.register(registered, forward)
    AttentionMaskInterface.register(registered, eager_mask)
    try:
        with implementation(model, registered):
            yield
    finally:
        AttentionInterface._global_mapping.pop(registered, None)
        AttentionMaskInterface._global_mapping.pop(registered, None)
