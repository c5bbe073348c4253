"""The backward's peak, stated before it runs: what a backward of a pass holds at its peak, from the pass's plan
(shapes only), and the check of that statement against a capture budget (`check_backward_fits`), which chooses
whether the planes autograd saves are kept or made again (`sessions.backward.run_backward`, `core.recompute`).
"""

from __future__ import annotations

import math
from typing import Sequence

from tfdebug.core.errors import InputError
from tfdebug.core.recorder import Capture


def backward_peak(plan: Sequence[Capture], parameters: int = 0, recompute: bool = True) -> int:
    """Bytes a backward of a pass of `plan` holds at its peak, stated before it runs. Held all along:

    - every stage kept as a tensor, once (the recorder keeps each activation; autograd's saved tensors are those
      same tensors), a feed-forward hidden stage one and a half times (autograd also keeps its activation
      function's other side);
    - `parameters`: the bytes of the parameters' gradients (as large as the trainable parameters).

    Then, stepping through the stages in backward order, the largest sum of:
    - the gradients that have arrived (every stage's is kept; the attention planes' are recipes,
      `core.gradient_planes`, never kept);
    - at the first step, the loss's own: the log-probabilities the cross-entropy keeps and their gradient (twice
      the logits in float32);
    - one attention's backward at a time: its probabilities (and a soft cap's tanh) made again from q and k
      (autograd keeps none of the planes it differentiates: `core.recompute`; in float32 as the softmax computes
      them and in the model's dtype where that is narrower), with the recomputation's passing planes or
      autograd's passing gradients of the planes (dP, dS, the scaled scores' and a position bias's): 4 planes in
      float32 in all, and one recipe block (a plane of one head block, `recipes.BLOCK_BYTES` at most) when a
      gradient is looked at.

    Without `recompute`, what autograd saves of every attention's planes is held from the forward until that
    attention's backward: its probabilities in float32 (and in the model's dtype where that is narrower) and a soft
    cap's tanh, counted as held all along (an upper bound: each goes as its layer's backward passes).

    A plane that is not a recipe (attention sinks, a model outside Hugging Face's attention) counts as a tensor."""
    from tfdebug.core.recipes import BLOCK_BYTES, RECIPE_KINDS

    def plane(c: Capture) -> bool:  # a tokens² plane kept as a recipe (a repeated K or V is a tensor in a backward)
        return c.recipe and c.info.kind in RECIPE_KINDS

    def wide(c: Capture) -> int:  # the plane in float32, as a softmax computes it
        return math.prod(c.shape) * max(4, c.dtype.itemsize)

    def one_attention(c: Capture) -> int:  # its backward's planes at once (the probabilities made again)
        return 4 * wide(c) + (c.nbytes if c.dtype.itemsize < 4 else 0)

    held = sum(c.nbytes for c in plan if not plane(c)) + parameters
    if not recompute:  # autograd's saved probabilities (and soft caps' tanh) of every attention
        held += sum(wide(c) + (c.nbytes if c.dtype.itemsize < 4 else 0) for c in plan
                    if plane(c) and c.info.kind == "softmax")
        held += sum(wide(c) for c in plan if plane(c) and c.info.kind == "softcap")
    held += sum(c.nbytes for c in plan if c.info.kind == "ffn_hidden") // 2
    largest = max((wide(c) for c in plan if plane(c)), default=0)
    passing = max((one_attention(c) for c in plan if plane(c)), default=0) + min(BLOCK_BYTES, largest)
    logits = [c for c in plan if c.info.kind == "logits"]
    loss = 2 * math.prod(logits[-1].shape) * 4 if logits else 0
    gradients, peak = 0, 0
    for c in reversed(list(plan)):
        if not plane(c):
            gradients += c.nbytes
        peak = max(peak, held + gradients + passing + loss)
        loss = 0
    return max(peak, held + passing)


def parameter_bytes(model) -> int:
    """Bytes of `model`'s trainable parameters: what their gradients take in a backward."""
    return sum(p.numel() * p.element_size() for p in model.parameters() if p.requires_grad)


def check_backward_fits(plan: Sequence[Capture], budget: int | None, parameters: int = 0) -> tuple[int, bool]:
    """(the stated peak, whether the planes autograd saves are made again): kept where the peak with them kept is
    within `budget` (None: no limit; faster), made again where only that fits; InputError in one sentence when
    even that is over `budget`."""
    from tfdebug.core.budget import format_bytes

    kept = backward_peak(plan, parameters, recompute=False)
    if budget is None or kept <= budget:
        return kept, False
    peak = backward_peak(plan, parameters)
    if budget is not None and peak > budget:
        raise InputError(f"The backward of this pass would hold about {format_bytes(peak)} (every stage's activation "
                         "and gradient, the parameters' gradients and one layer's attention planes in its "
                         f"backward), over the {format_bytes(budget)} this machine can give it: shorten the text or run "
                         "it where there is more memory.")
    return peak, True
