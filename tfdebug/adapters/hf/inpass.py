"""The check made in the pass: each layer's attention against the model's own eager function on the same inputs.

While `checking(plan)` is on, the tapped attention (`attention.tapped_attention_forward`) computes each block of
heads (or, for a very long prompt on the CPU, one band of a head's query rows) context from its probabilities plane as before and, while that block is held, calls the eager attention
function of the model's own modeling module (`reference.own_eager`, what `attn_implementation="eager"` runs) on
the query, key and value the tapped attention received, for the same heads (with grouped heads, each query head's
key/value head picked for it, as transformers' `repeat_kv` would: the block is then any block of heads). The block's probabilities and its
context are compared with the function's, and both are let go: one more block in memory, one more attention per
layer in time, and no second forward.

What it proves is narrower than the whole check (`verify.verify_stages`): that tfdebug's attention, stage by
stage, computes what the model's own function computes from the same query, key, value and mask. It compares no
logits and no layer inputs: a difference made outside the attention function (a mask transformers builds by the
implementation's name, a tap that changed a tensor, an edit upstream) is what the whole check's second,
unmodified pass finds. A site the check cannot follow (an edited plane, attention sinks, a module with no eager
function of its own) is named in `InPass.missed`.
"""

from __future__ import annotations

import threading
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Iterator, Mapping

import torch
from torch import Tensor, nn

from tfdebug.adapters.base import Verification
from tfdebug.adapters.hf.reference import block_diff, block_keywords, own_eager, rows_of

_STATE = threading.local()  # the check of the pass running on this thread (a session's pass runs on one)


@dataclass
class InPass:
    """What the check in the pass found: max |Δ| by stage (probabilities and context), in the order they ran, and
    the probabilities stages it could not compare, each with why."""

    names: Mapping[int, tuple[str, str | None]]  # attention module id -> (probabilities stage, context stage)
    #: every probabilities stage of the pass (a module run several times, as ALBERT's shared layer, names one per
    #: run, which its site cannot tell apart: such a pass is not followed)
    expected: frozenset[str] = frozenset()
    diffs: dict[str, float] = field(default_factory=dict)
    missed: dict[str, str] = field(default_factory=dict)

    @property
    def complete(self) -> bool:
        """Every probabilities stage of the pass is a site's, and each ran and was compared."""
        return (not self.missed and self.expected == {probs for probs, _ in self.names.values()}
                and all(probs in self.diffs for probs in self.expected))


def sites_of(plan) -> dict[int, tuple[str, str | None]]:
    """Attention module id -> (its probabilities stage, its context stage or None) for every site the check
    follows."""
    out = {}
    for module, site in plan.sites.items():
        if "probs" in site.taps:
            context = site.taps.get("context")
            out[id(module)] = (site.taps["probs"].info.name, context.info.name if context is not None else None)
    return out


@contextmanager
def checking(plan) -> Iterator[InPass]:
    """The tapped attention checks itself inside the block (see the module docstring); the found `InPass` is
    yielded and filled as the pass runs."""
    found = InPass(sites_of(plan), frozenset(name for names in plan.probs.values() for name in names))
    before = getattr(_STATE, "found", None)
    _STATE.found = found
    try:
        yield found
    finally:
        _STATE.found = before


def comparer(module: nn.Module, query: Tensor, key: Tensor, value: Tensor, attention_mask: Tensor | None,
             scaling: float, dropout: float, kwargs: Mapping):
    """The `each(heads, rows, probabilities, context)` that compares one block of `module`'s tapped attention with the
    model's own eager function on `query` (B, H, Tq, Dh), `key` and `value` (B, H_kv, Tk, Dh), as received; None
    when no check is on or this module is not followed (then it is noted as missed where it has a stage)."""
    found: InPass | None = getattr(_STATE, "found", None)
    if found is None or id(module) not in found.names or planned(query):
        return None
    probs_name, context_name = found.names[id(module)]
    own = own_eager(module)
    if own is None or kwargs.get("s_aux") is not None:
        found.missed[probs_name] = "no eager function of its own" if own is None else "attention sinks"
        return None
    heads, groups = query.shape[1], max(1, query.shape[1] // key.shape[1])
    worst = {probs_name: 0.0, **({context_name: 0.0} if context_name else {})}
    one_group = _OneGroup(module) if groups > 1 else module

    def each(hs: slice, rs: slice, probs: Tensor, context: Tensor) -> None:
        # Query head h reads key/value head h // groups (transformers' repeat_kv): the block's own key and value
        # heads, picked here, so that a block of any heads is checked with no more than its own memory; a band of
        # query rows reads its rows of the mask (every key: a softmax's row is whole).
        kv = torch.arange(hs.start, hs.stop, device=key.device) // groups if groups > 1 else slice(hs.start, hs.stop)
        out, weights = own(one_group, query[:, hs, rs], key[:, kv], value[:, kv], rows_of(attention_mask, rs),
                           scaling=scaling, dropout=dropout, **block_keywords(kwargs, hs, heads, rs))
        worst[probs_name] = max(worst[probs_name], block_diff(probs, weights))
        if context_name:
            worst[context_name] = max(worst[context_name], block_diff(context, out.transpose(1, 2)))
        del out, weights
        for name, diff in worst.items():  # a layer run again (a shared block) keeps its largest
            found.diffs[name] = max(found.diffs.get(name, 0.0), diff)

    return each


def planned(tensor) -> bool:
    """Whether `tensor` is a plan's (on the meta device, or a fake tensor of tfdebug.core.recorder's FakeTensorMode
    plan), holding no values; a recipe plane is judged by the tensor its chain starts from."""
    from torch._subclasses.fake_tensor import FakeTensor

    from tfdebug.core.recipes import Plane

    if isinstance(tensor, Plane):
        tensor = next(iter(tensor.steps()[0].inputs().values()))
    return tensor.device.type == "meta" or isinstance(tensor, FakeTensor)


def verification(found: InPass, ran: list[str], problem: str = "", against: str = "") -> Verification:
    """The verdict of the check in the pass: the stages it compared, in the order the pass ran them (`ran`), the
    rest unchecked; exact (tolerance 0: the same function on the same inputs)."""
    checked = tuple(name for name in ran if name in found.diffs)
    diffs = tuple(found.diffs[name] for name in checked)
    first = next((name for name, diff in zip(checked, diffs) if not diff <= 0.0), None)
    done = set(checked)
    return Verification(max_abs_diff=max(diffs, default=0.0), tolerance=0.0, checked=checked,
                        unchecked=tuple(name for name in ran if name not in done), first_mismatch=first,
                        mismatch_diff=found.diffs[first] if first is not None else 0.0, diffs=diffs,
                        tolerances=(0.0,) * len(diffs), input_problem=problem, inputs_against=against,
                        scope="attention")


class _OneGroup:
    """The attention module as its eager function sees it, with key/value heads already one per query head: the
    function repeats each key/value head `num_key_value_groups` times, here once (every other attribute is the
    module's: the functions read `training`, `head_dim` and `sinks`)."""

    num_key_value_groups = 1

    def __init__(self, module: nn.Module):
        self._module = module

    def __getattr__(self, name: str):
        return getattr(self._module, name)


def missed(module: nn.Module, why: str) -> None:
    """The tapped attention of `module` ran in a way the check cannot follow (`why`: an edited plane …)."""
    found: InPass | None = getattr(_STATE, "found", None)
    if found is not None and id(module) in found.names:
        found.missed[found.names[id(module)][0]] = why
