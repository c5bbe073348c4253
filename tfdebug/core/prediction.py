"""The next-token prediction a logits stage makes: its most probable tokens and their probabilities."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:  # torch loads when a function first needs it, not with the window
    from torch import Tensor


def top_predictions(logits: Tensor, vocab_axis: int, fixed: dict[int, int], k: int = 5) -> list[tuple[int, float]]:
    """The `k` most probable ids along `vocab_axis` with their softmax probabilities.

    `fixed` gives the index of every other axis (batch, token). Computed where the tensor
    lives (softmax in float32, so half precision does not overflow); only the k pairs
    cross to the host, in one transfer.
    """
    import torch
    index = [slice(None) if axis == vocab_axis else fixed.get(axis, 0) for axis in range(logits.dim())]
    row = logits[tuple(index)]  # (vocab,)
    probs = torch.softmax(row.float(), dim=-1)
    top = torch.topk(probs, min(k, probs.numel()))
    pairs = torch.stack([top.indices.to(torch.float64), top.values.to(torch.float64)]).cpu().tolist()
    return [(int(i), float(p)) for i, p in zip(pairs[0], pairs[1])]
