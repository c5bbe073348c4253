"""Padding in SDPA modules: nested tensors refused, padded rows left out of the verification.

torch's nn.Transformer layers take a padded batch and a key padding mask
(`src_key_padding_mask`: True, or −∞, at padding). Unmodified, in eval mode,
nn.TransformerEncoder turns such a batch into a nested tensor (its fast path) and hands
back zeros at the padded rows; a tapped pass runs the regular path (the fast path hides
every stage), which computes those rows like any other. Padding never reaches a real
token (its keys are masked), so the verification compares the rows that are not padding,
as the Hugging Face adapter does.

Nested tensors themselves cannot be tapped: outside its fast path nn.MultiheadAttention
refuses them, and a stage's heatmap needs one rectangular tensor. They are refused with a
sentence that says what to pass instead.
"""

from __future__ import annotations

import inspect
from typing import Any, Mapping, Sequence

import torch
from torch import Tensor, nn

from tfdebug.core.errors import InputError
from tfdebug.core.phrases import Phrase

# The key padding mask of the sequence a module's output runs over, by module class.
_OUTPUT_PADDING = {
    nn.TransformerEncoder: "src_key_padding_mask",
    nn.TransformerEncoderLayer: "src_key_padding_mask",
    nn.TransformerDecoder: "tgt_key_padding_mask",
    nn.TransformerDecoderLayer: "tgt_key_padding_mask",
    nn.Transformer: "tgt_key_padding_mask",
}


def refuse_nested(args: Sequence[Any], kwargs: Mapping[str, Any]) -> None:
    """Raise InputError when make_inputs gave a nested tensor."""
    for value in (*args, *kwargs.values()):
        if isinstance(value, Tensor) and value.is_nested:
            raise InputError("tfdebug cannot tap nested tensors: have make_inputs return a padded tensor "
                             "and a key padding mask (src_key_padding_mask, True at padding) instead.",
                             id="sdpa.nested")


def padded_rows(model: nn.Module, args: Sequence[Any], kwargs: Mapping[str, Any]) -> Tensor | None:
    """(batch, sequence) bool, True at the padded rows of `model`'s output; None when it has no padding mask."""
    name = next((n for cls, n in _OUTPUT_PADDING.items() if type(model) is cls), None)
    if name is None:
        return None
    try:
        bound = inspect.signature(model.forward).bind(*args, **kwargs)
    except TypeError:
        return None
    mask = bound.arguments.get(name)
    if not isinstance(mask, Tensor) or mask.dim() != 2:
        return None
    return mask if mask.dtype == torch.bool else torch.isneginf(mask)


UNMASKED_MEMORY = Phrase("The decoder reads the padded encoder rows (src_key_padding_mask without "
                         "memory_key_padding_mask): torch's fast path makes them 0, the regular path tfdebug taps "
                         "computes them, so the outputs differ. Pass memory_key_padding_mask too.",
                         id="sdpa.unmasked_memory")


def mismatch_cause(model: nn.Module, args: Sequence[Any], kwargs: Mapping[str, Any]) -> str:
    """Why the tapped and unmodified outputs may differ on these inputs, when padding explains it ("" otherwise)."""
    if type(model) is not nn.Transformer:
        return ""
    try:
        given = inspect.signature(model.forward).bind(*args, **kwargs).arguments
    except TypeError:
        return ""
    if given.get("src_key_padding_mask") is not None and given.get("memory_key_padding_mask") is None:
        return UNMASKED_MEMORY
    return ""


def without_padded_rows(output: Any, rows: Tensor | None, batch_first: bool) -> Any:
    """`output` with its padded rows set to 0 (a (batch, sequence, ...) or (sequence, batch, ...) tensor)."""
    if rows is None or not isinstance(output, Tensor) or output.dim() < 2:
        return output
    rows = rows.to(output.device)
    if not batch_first:
        rows = rows.t()  # (sequence, batch)
    if tuple(output.shape[:2]) != tuple(rows.shape):
        return output
    return output.masked_fill(rows.reshape(*rows.shape, *([1] * (output.dim() - 2))), 0)


def batch_first(model: nn.Module) -> bool:
    """Whether `model`'s first MultiheadAttention takes (batch, sequence, ...) tensors (torch's default: not)."""
    attention = next((m for m in model.modules() if isinstance(m, nn.MultiheadAttention)), None)
    return bool(getattr(attention, "batch_first", False))
