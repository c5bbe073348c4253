"""How attention's tokens² planes are made in this thread, and the arithmetic that makes them whole.

By default each plane is a recipe (`core.recipes`), computed when looked at. Inside `planes_materialized()` the
planes are computed whole, as eager attention does (what the recipes are held to, the bench's "materialised"
row); inside `planes_noted()` too, and each whole plane is noted with its recipe for a backward's gradient
planes (`noted_attention`), with what autograd saves of them kept or made again. `adapters.hf.attention` asks
the flags here which way to go; the mask's bias split (`split_mask_bias`) is shared by every way.
"""

from __future__ import annotations

from contextlib import contextmanager
from typing import Iterator, Mapping, Protocol

import torch
from torch import Tensor, nn

from tfdebug.core.recipes import Plane, Scores, step
from tfdebug.core.tap import Tap
from tfdebug.core.thread_flag import ThreadFlag


class Site(Protocol):
    """What the noted planes read of an attention module's site (`adapters.hf.attention.AttentionSite`)."""

    taps: Mapping[str, Tap]
    bias: bool
    mask_bias: str

# Inside `planes_materialized()` the tokens² stages are computed whole, as before recipes.
WHOLE = ThreadFlag()
# Inside `planes_noted()` too, and each whole plane carries its recipe (a backward's gradient planes read them).
NOTED = ThreadFlag()
# Inside `planes_noted(recompute=False)`: autograd keeps what it saves of the planes, not made again.
KEPT = ThreadFlag()


@contextmanager
def planes_materialized() -> Iterator[None]:
    """Compute the attention planes whole inside the block (in this thread), not as recipes: what
    the recipes are held to bit for bit, and the bench's "materialised" row."""
    with WHOLE.set():
        yield


@contextmanager
def planes_noted(recompute: bool = True) -> Iterator[None]:
    """`planes_materialized()` (autograd differentiates the whole planes), and every plane a tap sees noted with
    its recipe, the context with what the gradient recipes read (`core.gradient_planes`): a backward's
    recorder keeps recipes, not planes, of the forward and of the gradients. `recompute`: what autograd saves of
    the planes is made again when its backward reads it (`core.recompute`), else kept (faster, every layer's
    probabilities held until its backward)."""
    with WHOLE.set(), NOTED.set():
        if recompute:
            yield
        else:
            with KEPT.set():
                yield


def planes_being_noted() -> bool:
    """Whether this thread is inside `planes_noted()`: a backward's forward, whose stages no verification reads."""
    return NOTED.on


def bias_in_mask(mask: Tensor | None) -> bool:
    """Whether an additive mask also carries a bias: a value other than 0 at a cell it does not mask (finfo.min / 2
    or less marks a masked cell)."""
    if mask is None or not mask.is_floating_point():
        return False
    kept = mask[mask > torch.finfo(mask.dtype).min / 2]
    return bool((kept != 0).any())


def split_mask_bias(mask: Tensor) -> tuple[Tensor, Tensor]:
    """(the bias: the mask's values where it keeps a cell, else 0; the mask proper: 0 there, its own value where it
    masks). (S + bias) + mask equals S + the model's mask bit for bit: each cell adds one value and 0."""
    kept = mask > torch.finfo(mask.dtype).min / 2
    zero = torch.zeros((), dtype=mask.dtype, device=mask.device)
    return torch.where(kept, mask, zero), torch.where(kept, zero, mask)


def noted_attention(site: Site, taps, query: Tensor, key: Tensor, qk_key: Tensor, value: Tensor,
                     attention_mask: Tensor | None, scaling: float, position_bias: Tensor | None,
                     softcap: float | None, dtype: torch.dtype):
    """`_planes`' whole planes (what autograd differentiates), each handed to its tap noted with its recipe
    (from the detached q, k, mask and bias: a recipe holds no graph), and the context P·V; returns
    (probabilities, context, Backing).

    What autograd saves of the planes for its backward (the probabilities, a soft cap's tanh) is not kept: it is
    made again from the detached q, k, mask and bias when the backward reads it (`core.recompute.Recomputed`),
    by the same arithmetic (`arithmetic`), so equal bit for bit — unless a tap edits a stage, after which what
    follows is kept as usual."""
    from tfdebug.core.gradient_planes import Backing, note_plane
    from tfdebug.core.recompute import Recomputed

    backing = Backing(value.detach())  # its probabilities' recipe is set once the chain is made
    bias = None
    if attention_mask is not None and site.mask_bias:
        bias, attention_mask = split_mask_bias(attention_mask)
    detached = (query.detach(), key.detach())
    position_bias_, bias_, mask_ = (None if t is None else t.detach() for t in (position_bias, bias, attention_mask))
    plane: Plane = Scores(query.detach(), qk_key.detach())

    def again() -> list[Tensor]:
        made: list[Tensor] = []

        def keep(tensor: Tensor) -> Tensor:
            made.append(tensor)
            return tensor

        arithmetic(*detached, scaling, position_bias_, softcap, bias_, mask_, dtype, lambda name, tensor: tensor,
                    keep)
        return made

    recomputed = Recomputed(again)

    def noted(name: str, tensor: Tensor) -> Tensor:
        nonlocal plane
        if name == "scaled":
            plane = step(plane, "scale", value=scaling)
        elif name == "position_bias":
            plane = step(plane, "bias", tensor=position_bias_)
        elif name == "softcap":
            plane = step(plane, "softcap", value=softcap)
        elif name == "mask_bias":
            plane = step(plane, "bias", tensor=bias_)
        elif name == "masked":
            plane = step(plane, "mask", tensor=mask_)
        elif name == "probs":
            plane = step(plane, "softmax", dtype=dtype)
            backing.probs = plane
        if name == "position_bias" and not site.bias:
            return tensor
        seen = taps[site.mask_bias if name == "mask_bias" else name](note_plane(tensor, plane, backing))
        if seen is not tensor:  # an edited stage: what follows is not the arithmetic of q and k
            recomputed.stopped = True
        return seen

    if KEPT.on:  # autograd keeps what it saves, as in a plain backward
        probs = arithmetic(query, key, scaling, position_bias, softcap, bias, attention_mask, dtype, noted,
                            lambda tensor: tensor)
        return probs, torch.matmul(probs, value), backing
    with recomputed.saving():
        probs = arithmetic(query, key, scaling, position_bias, softcap, bias, attention_mask, dtype, noted,
                            recomputed.made)
        context = torch.matmul(probs, value)  # (B, H, Tq, Dh)
    return probs, context, backing


def arithmetic(query: Tensor, key: Tensor, scaling: float, position_bias: Tensor | None, softcap: float | None,
                bias: Tensor | None, mask: Tensor | None, dtype: torch.dtype, tap, made) -> Tensor:
    """Eager attention's arithmetic from q and k to the probabilities (B, H, Tq, Tk): `tap(stage, tensor)` gives
    each stage the next step reads ('mask_bias': a bias the model adds with its mask); `made(tensor)` is told of
    every tensor of it that autograd saves (a soft cap's tanh, the probabilities in float32 and in `dtype`)."""
    scores = tap("scores", torch.matmul(query, key.transpose(2, 3)))  # (B, H, Tq, Tk)
    scores = tap("scaled", scores * scaling)
    if position_bias is not None:
        scores = tap("position_bias", scores + position_bias)
    if softcap is not None:
        scores = tap("softcap", made(torch.tanh(scores / softcap)) * softcap)
    if bias is not None:
        scores = tap("mask_bias", scores + bias)
    if mask is not None:
        scores = tap("masked", scores + mask)  # finfo.min at masked cells
    # Softmax in float32 (exp() overflows in half precision); back to the query's dtype.
    wide = made(nn.functional.softmax(scores, dim=-1, dtype=torch.float32))
    return tap("probs", made(wide.to(dtype)))
