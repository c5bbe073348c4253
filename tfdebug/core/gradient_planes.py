"""Gradient planes: the gradient of an attention plane (scores … probabilities) computed when looked at.

A backward keeps every stage's gradient. Those of the tokens² stages (kinds in `recipes.RECIPE_KINDS`) would
be O(heads × tokens²) each, four or five per layer; here each is a recipe instead (`GradientPlane`), made from
what the backward keeps anyway in O(tokens × width):

- dO, the gradient of the per-head context P·V (the `context` stage, kind attn_v, before the heads merge),
- V as the product read it (after a grouped-query repeat),
- the forward's own chain of recipes (`recipes.Scores` → scale → bias → soft cap → mask → softmax), which
  gives P and every intermediate of a block again.

Per (batch, head) block the arithmetic is autograd's own, in its order and with its kernels:

    dP = bmm(dO, Vᵀ)                         (autograd's BmmBackward of matmul(P, V))
    dS = _softmax_backward_data(dP, P)       (P ⊙ (dP − rowsum(dP ⊙ P)), torch's own kernel)
    mask, bias: the gradient unchanged;  soft cap c: tanh_backward(g·c, tanh(x/c)) / c;  scale s: g·s

so a block equals the gradient autograd materialises bit for bit (tests hold it, float32). Indexing computes
only the heads (and on the CPU the band of query rows) asked for, as for a forward plane.

The attention function (adapters/hf/planes.py `noted_attention`, inside `planes_noted()`) notes on each plane tensor it
hands a tap the recipe of that plane (`note_plane`) and on the context tensor the chain's `Backing`
(`note_context`); `core.gradients.GradientRecorder` reads the notes (`noted`) and keeps recipes.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from tfdebug.core.recipes import ALL, Plane, _kept, needed

if TYPE_CHECKING:
    from torch import Tensor

_NOTE = "_tfdebug_plane_note"


class Backing:
    """What the gradient recipes of one attention call read: V (B, H, Tk, Dh, repeated for grouped heads), the
    forward's probabilities as a recipe, and dO (B, H, Tq, Dh), set when the context's gradient arrives."""

    def __init__(self, value: Tensor, probs: Plane | None = None):
        self.value = value
        self.probs = probs
        self.d_context: Tensor | None = None


@dataclass(frozen=True)
class Note:
    """A tensor's note: its attention call's `backing` and, on a plane stage, that plane's forward recipe."""

    backing: Backing
    plane: Plane | None = None


def note_plane(tensor: Tensor, plane: Plane, backing: Backing) -> Tensor:
    """`tensor` (a plane computed whole), noted with its recipe `plane` of the attention call `backing`."""
    setattr(tensor, _NOTE, Note(backing, plane))
    return tensor


def note_context(tensor: Tensor, backing: Backing) -> Tensor:
    """`tensor` (the context P·V per head), noted as the one whose gradient is `backing`'s dO."""
    setattr(tensor, _NOTE, Note(backing))
    return tensor


def noted(tensor) -> Note | None:
    """The note `note_plane` / `note_context` left on `tensor`, or None."""
    return getattr(tensor, _NOTE, None)


class GradientPlane(Plane):
    """∂L/∂(a plane stage) as a recipe: the gradient of the forward recipe `forward` (one step of `backing`'s
    chain), computed per block from dO, V and the forward chain (see the module docstring). A snapshot stores it
    as that chain, the step's index in it and dO and V (`io.recipe_store`), and `gradient_of` makes it again."""

    op = "gradient"

    def __init__(self, backing: Backing, forward: Plane, dtype=None):
        super().__init__(forward.shape, dtype or forward.dtype, forward.device)
        if backing.d_context is None:
            raise ValueError("a gradient plane needs its context's gradient first")
        if backing.probs is None:
            raise ValueError("a gradient plane needs its attention's probabilities plane")
        self.backing, self.forward, self.d_context = backing, forward, backing.d_context
        #: the forward chain, the scores … the probabilities, and the index in it of the step this is the gradient of
        self.forward_chain = backing.probs.steps()
        self.at = next(i for i, s in enumerate(self.forward_chain) if s is forward)
        self.chain = self.forward_chain[self.at:]  # this stage … the softmax
        self.copies = len(self.chain) + 2  # a block holds the chain's blocks, dP and the gradient

    def inputs(self):
        """The gradient's inputs by role: the context's gradient, the value and the forward plane."""
        return {"d_context": self.d_context, "value": self.backing.value, "forward": self.forward}

    def blocks(self, block_bytes: int | None = None):
        """The whole gradient one block at a time, each block a `copies`-th of `block_bytes` (a block holds that
        many)."""
        from tfdebug.core.recipes import BLOCK_BYTES
        return super().blocks((BLOCK_BYTES if block_bytes is None else block_bytes) // self.copies)

    def block(self, batch: slice, heads: slice, rows: slice = ALL, keep: dict | None = None) -> Tensor:
        """The gradient at a batch range, a head range and a range of query rows: (b, h, r, Tk), back through the
        chain."""
        grad = _d_probs(self.backing, batch, heads, rows)  # (b, h, r, Tk) at the probabilities
        if len(self.chain) > 1:
            kept: dict = {id(s): None for s in self.chain}
            kept.update({id(s.plane): None for s in self.chain[1:]})  # every step's input
            self.chain[-1].block(batch, heads, rows, kept)
            for step_ in reversed(self.chain[1:]):
                grad = _step_backward(step_, grad, kept[id(step_.plane)], kept[id(step_)])
        return _kept(self, grad if grad.dtype == self.dtype else grad.to(self.dtype), keep)


def gradient_of(probs: Plane, at: int, d_context: Tensor, value: Tensor) -> GradientPlane:
    """The gradient recipe of step `at` of the forward chain `probs` (the scores … the probabilities) from dO
    `d_context` (B, H, Tq, Dh) and V `value` (B, H, Tk, Dh): what a snapshot's description makes again."""
    backing = Backing(value, probs)
    backing.d_context = d_context
    return GradientPlane(backing, probs.steps()[at])


def _d_probs(backing: Backing, batch: slice, heads: slice, rows: slice) -> Tensor:
    """dP = dO · Vᵀ for a block, as autograd's backward of the batched matmul(P, V) computes it: both operands
    reshaped to (b·h, …) (copies where they are not contiguous, as matmul makes them) and one bmm."""
    import torch

    d_context = needed(backing.d_context, "gradient")  # GradientPlane's constructor checked it
    d_out = d_context[batch, heads, rows]  # (b, h, r, Dh)
    value = backing.value[batch, heads]  # (b, h, Tk, Dh)
    b, h, r, dh = d_out.shape
    product = torch.bmm(d_out.reshape(b * h, r, dh), value.reshape(b * h, value.shape[2], dh).transpose(1, 2))
    return product.view(b, h, r, value.shape[2])  # (b, h, r, Tk)


def _step_backward(step_: Plane, grad: Tensor, x: Tensor, y: Tensor) -> Tensor:
    """The gradient at a step's input `x` from the gradient at its output `y`, as autograd computes it."""
    import torch

    op, value = step_.op, getattr(step_, "value", None)
    if op == "softmax":  # softmax(x, dtype=float32).to(dtype): the float32 result is what autograd saved
        probs = y if y.dtype == torch.float32 else torch.softmax(x, dim=-1, dtype=torch.float32)
        g32 = grad.to(torch.float32)
        # autograd's own softmax backward: torch's stubs leave it out of the public names
        softmax_backward = torch._softmax_backward_data  # pyright: ignore[reportPrivateImportUsage]
        if x.dtype == torch.float16 and x.is_cuda:  # CUDA's half-to-float softmax: its backward gives half
            return softmax_backward(g32, probs, -1, torch.float16)
        return softmax_backward(g32, probs, -1, torch.float32).to(x.dtype)
    if op in ("mask", "bias"):
        return grad.to(x.dtype)
    if op == "scale":
        return grad * needed(value, op)
    if op == "softcap":  # y = tanh(x / c) · c
        c = needed(value, op)
        return torch.ops.aten.tanh_backward(grad * c, torch.tanh(x / c)) / c
    raise ValueError(f"no gradient for recipe step {op!r}")
