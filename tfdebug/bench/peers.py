"""Peers measured beside tfdebug when they are installed (never dependencies)."""

from __future__ import annotations

import importlib.util

from tfdebug.bench.capture import BenchConfig
from tfdebug.bench.timing import interleaved_ms, median


def _has(module: str) -> bool:
    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):
        return False


def transformer_lens_ms(config: BenchConfig, repeats: int) -> dict:
    """TransformerLens' plain forward and run_with_cache (median ms) on an equivalent model.

    Decoder-only (the closest it builds) with the same layers, width, heads, sequence
    length and vocabulary; TransformerLens ≥ 4 builds it with TransformerBridge's native
    source, older versions with HookedTransformer. Nones when it is not installed.
    """
    empty = {"transformer_lens_plain_ms": None, "transformer_lens_ms": None}
    if not _has("transformer_lens"):
        return empty
    import torch

    cfg = dict(n_layers=config.n_layer, d_model=config.n_embd, n_heads=config.n_heads,
               d_head=config.n_embd // config.n_heads, d_mlp=4 * config.n_embd, d_vocab=config.vocab_size,
               n_ctx=config.seq_len, act_fn="relu", normalization_type="LN")
    try:
        from transformer_lens.model_bridge.sources.native import boot

        model = boot(cfg, device="cpu")
    except ImportError:
        from transformer_lens import HookedTransformer, HookedTransformerConfig

        model = HookedTransformer(HookedTransformerConfig(**cfg, device="cpu"))
    model.eval()
    tokens = torch.randint(0, config.vocab_size, (1, config.seq_len))

    def plain():
        with torch.no_grad():
            return model(tokens)

    def cached():
        with torch.no_grad():
            return model.run_with_cache(tokens)

    times = interleaved_ms({"plain": plain, "cached": cached}, repeats)
    return {"transformer_lens_plain_ms": round(median(times["plain"]), 3),
            "transformer_lens_ms": round(median(times["cached"]), 3)}
