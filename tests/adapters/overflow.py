"""A tiny Llama whose float16 pass overflows on purpose, and where it overflows, found with plain torch hooks.

Layer 1's v_proj weight is scaled up 300,000×: its largest weight (~16,500) still fits float16,
but its output reaches ~110,000, past float16's 65,504, so V becomes ±Inf there while every
earlier module's output stays finite; in float32 nothing overflows.
"""

from __future__ import annotations

from pathlib import Path

import torch

from tests.adapters.hf_tiny import llama, save_folder

TEXT = "I love you the cat sat on the mat"
SCALE = 3e5
MODULE = "model.layers.1.self_attn.v_proj"  # what plain hooks find first (the test checks it)


def overflowing_llama():
    """The tiny Llama of hf_tiny with layer 1's v_proj weight times SCALE."""
    model = llama()
    with torch.no_grad():
        model.model.layers[1].self_attn.v_proj.weight.mul_(SCALE)
    return model


def save_overflowing(folder: Path) -> Path:
    return save_folder(overflowing_llama(), folder)


def first_nonfinite_output(folder: Path, dtype: torch.dtype, text: str = TEXT) -> tuple[str | None, torch.Tensor | None]:
    """(module path, its output) of the first module, in the order forward hooks fire, whose output holds a
    non-finite value, for the unmodified model loaded by transformers from `folder` in `dtype` (no tfdebug)."""
    import transformers
    from tokenizers import Tokenizer

    model = transformers.AutoModelForCausalLM.from_pretrained(str(folder), dtype=dtype).eval()
    ids = torch.tensor([Tokenizer.from_file(str(folder / "tokenizer.json")).encode(text).ids])
    found: list[tuple[str, torch.Tensor]] = []

    def hook(name):
        def record(module, args, output):
            out = output[0] if isinstance(output, tuple) else output
            if not found and torch.is_tensor(out) and out.is_floating_point() and not torch.isfinite(out).all():
                found.append((name, out.detach().clone()))
        return record
    handles = [m.register_forward_hook(hook(n)) for n, m in model.named_modules() if n]
    try:
        with torch.no_grad():
            model(input_ids=ids)
    finally:
        for h in handles:
            h.remove()
    return found[0] if found else (None, None)
