"""Peers measured beside tfdebug when they are installed (never dependencies)."""

from __future__ import annotations

import importlib.util

from tfdebug.bench.capture import BenchConfig
from tfdebug.bench.timing import interleaved_ms, median


def transformer_lens_ms(config: BenchConfig, repeats: int) -> float | None:
    """Median ms of TransformerLens' run_with_cache on an equivalent decoder-only HookedTransformer.

    Same layers, width, heads and sequence length (decoder-only: the closest it has).
    None when transformer-lens is not installed.
    """
    if importlib.util.find_spec("transformer_lens") is None:
        return None
    import torch
    from transformer_lens import HookedTransformer, HookedTransformerConfig

    cfg = HookedTransformerConfig(n_layers=config.n_layer, d_model=config.n_embd, n_heads=config.n_heads,
                                  d_head=config.n_embd // config.n_heads, d_mlp=4 * config.n_embd,
                                  d_vocab=config.vocab_size, n_ctx=config.seq_len, act_fn="relu",
                                  normalization_type="LN", device="cpu")
    model = HookedTransformer(cfg).eval()
    tokens = torch.randint(0, config.vocab_size, (1, config.seq_len))

    def run():
        with torch.no_grad():
            return model.run_with_cache(tokens)

    return round(median(interleaved_ms({"tl": run}, repeats)["tl"]), 3)
