"""Plans of one model that differ only in how many tokens the input has: a length's plan grown from another's.

A Transformer's stages at L tokens are its stages at L' tokens with every token axis L' long instead of L. Planning
on the meta device costs Python time per operation (about 300 for a 6-layer GPT-2: 12 ms, more than a tenth of the
forward at 256 tokens), paid at each Run of a length not planned before. A *family* is the plans of one model, one
planning method, one way of running the pass (the context) and one kind of input: one token stream, every input
tensor an integer (batch, tokens) tensor with no zero or only zeros (nothing padded; segment ids all 0). Two of its
plans made on meta at different lengths are its *anchors*; the family is *regular* when the second is exactly the
first grown to its length (names, kinds, formulas, token axes, inputs, shapes, dtypes). A regular family's next
length is grown from an anchor without running anything (`Plan.method` "grown"). A pass that a grown plan does not
describe (`confirm`) makes the family irregular: its later lengths are planned again.

Every architecture tfdebug opens grows so except one whose attention adds a column per head (gpt-oss' sinks, planned
with a real forward anyway): `tests/adapters/test_hf_architectures.py` grows each one's pass to another length and
compares it with the plan made there.
"""

from __future__ import annotations

import threading
import weakref
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Hashable, Iterable, Sequence

from tfdebug.core.names import parse_token_ref
from tfdebug.core.recorder import Capture

if TYPE_CHECKING:
    from torch import nn

    from tfdebug.core.plan import Plan

#: the method of a plan grown from another length's
GROWN = "grown"


@dataclass
class _Family:
    anchors: dict[int, "Plan"] = field(default_factory=dict)  # tokens → a plan made on meta (the last two kept)
    regular: bool | None = None  # None: not known until two anchors are compared


_families: weakref.WeakKeyDictionary[nn.Module, dict[tuple, _Family]] = weakref.WeakKeyDictionary()
_lock = threading.Lock()


def family_of(model: nn.Module, inputs: Iterable[object], method: str, context: Hashable,
              where: tuple) -> tuple[tuple, int] | None:
    """(the family's key, the input's length in tokens), or None when the input is not of a kind a family holds:
    every tensor an integer (batch, tokens) tensor of the same shape, with no zero or only zeros (`where`: the
    weights' dtypes and devices, `plan.plan_key`'s)."""
    from torch import Tensor
    tensors = [t for t in inputs if isinstance(t, Tensor)]
    if not tensors or any(t.dim() != 2 or t.is_floating_point() or t.is_complex() or t.shape != tensors[0].shape
                          for t in tensors):
        return None
    zeros = [(t == 0).sum().item() for t in tensors]
    if any(0 < n < t.numel() for n, t in zip(zeros, tensors)):
        return None  # padded (or a token id 0 among others): which positions are zero decides the stages
    batch, length = tensors[0].shape
    kinds = tuple((str(t.dtype), str(t.device), n == 0) for n, t in zip(zeros, tensors))
    return (method, model.training, where, context, int(batch), kinds), int(length)


def grown_plan(model: nn.Module, family: tuple[tuple, int]) -> "Plan | None":
    """The plan at `family`'s length grown from an anchor, where the family is regular; else None."""
    key, length = family
    with _lock:
        found = _families.get(model, {}).get(key)
        if found is None or not found.regular or not found.anchors:
            return None
        tokens, anchor = next(reversed(found.anchors.items()))  # the latest
    return grow(anchor, tokens, length, key)


def add_anchor(model: nn.Module, family: tuple[tuple, int], plan: "Plan") -> None:
    """Keep `plan` (made on meta at `family`'s length) as an anchor; with another anchor, say whether the family is
    regular (once: an irregular family stays so)."""
    key, length = family
    with _lock:
        found = _families.setdefault(model, {}).setdefault(key, _Family())
        if found.regular is None:
            other = next(((n, p) for n, p in found.anchors.items() if n != length), None)
            if other is not None:
                grown = grow(other[1], other[0], length, key)
                found.regular = grown is not None and described(grown) == described(plan)
        found.anchors[length] = plan
        plan.family = key
        while len(found.anchors) > 2:
            found.anchors.pop(next(iter(found.anchors)))


def wants_anchor(model: nn.Module, plan: "Plan") -> bool:
    """Whether `plan` is its family's one anchor so far, at two tokens or more: a plan one token shorter would tell
    whether the family is regular (`DebugSession.plan_another_length`)."""
    if not plan.family:
        return False
    with _lock:
        found = _families.get(model, {}).get(plan.family)
        return found is not None and found.regular is None and any(n >= 2 and p is plan
                                                                   for n, p in found.anchors.items())


def forget(model: nn.Module) -> None:
    """Forget `model`'s families (`plan.forget_plans`)."""
    with _lock:
        _families.pop(model, None)


def confirm(model: nn.Module, plan: "Plan", captures: Sequence[Capture]) -> bool:
    """Whether the pass that made `captures` (every stage, in order) is what `plan` says; a grown plan it is not makes
    its family irregular (its later lengths are planned again). True for a plan not grown."""
    if plan.method != GROWN:
        return True
    if [(c.name, tuple(c.shape), c.dtype) for c in captures] == [(c.name, tuple(c.shape), c.dtype) for c in plan]:
        return True
    with _lock:
        found = _families.get(model, {}).get(plan.family)
        if found is not None:
            found.regular = False
    return False


def described(plan: Iterable[Capture]) -> list[tuple]:
    """What two plans must agree in to be the same plan (everything a stage's description and shape say)."""
    return [(c.name, c.info.kind, c.info.formula, c.info.axes, tuple(sorted(c.info.tokens.items())), c.info.inputs,
             tuple(c.shape), c.dtype, c.device, c.recipe) for c in plan]


def grow(plan: Iterable[Capture], tokens: int, length: int, key: tuple) -> "Plan | None":
    """`plan` (made at `tokens` tokens) with every token axis `length` long; None where a token axis is a slice of
    its stream or not `tokens` long (nothing says what it would be at another length)."""
    from tfdebug.core.plan import Plan

    captures = []
    for c in plan:
        shape = list(c.shape)
        for axis, ref in c.info.tokens.items():
            if axis not in c.info.axes or len(shape) != len(c.info.axes):
                continue
            _, start, stop = parse_token_ref(ref)
            i = c.info.axes.index(axis)
            if start is not None or stop is not None or shape[i] != tokens:
                return None
            shape[i] = length
        captures.append(Capture(c.info, tuple(shape), c.dtype, c.device, recipe=c.recipe))
    out = Plan(captures, method=GROWN, note=f"grown from the plan at {tokens} tokens")
    out.family = key
    return out
