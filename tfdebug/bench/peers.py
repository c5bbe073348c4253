"""Peers measured beside tfdebug when they are installed (never dependencies).

Each peer row states what it ran (library version and API) and ms per layer, so rows
of different architectures can be compared fairly; a peer that is not installed is
reported as "not installed".
"""

from __future__ import annotations

import importlib.metadata
import importlib.util

import torch

from tfdebug.bench.capture import BenchConfig, build
from tfdebug.bench.timing import interleaved_ms, median

NOT_INSTALLED = "not installed"


def _version(package: str, module: str) -> str | None:
    try:
        if importlib.util.find_spec(module) is None:
            return None
        return importlib.metadata.version(package)
    except (ImportError, ValueError, importlib.metadata.PackageNotFoundError):
        return None


def _timed(plain, hooked, repeats: int, layers: int) -> dict:
    times = interleaved_ms({"plain": plain, "hooked": hooked}, repeats)
    plain_ms, hooked_ms = median(times["plain"]), median(times["hooked"])
    return {"plain_ms": round(plain_ms, 3), "hooked_ms": round(hooked_ms, 3),
            "ratio": round(hooked_ms / plain_ms, 4), "layers": layers,
            "plain_ms_per_layer": round(plain_ms / layers, 3), "hooked_ms_per_layer": round(hooked_ms / layers, 3)}


def transformer_lens_row(config: BenchConfig, repeats: int) -> dict:
    """TransformerLens' plain forward against `run_with_cache` on a model of tfdebug's size.

    TransformerLens builds decoder-only models, so it gets 2 × n_layer layers (tfdebug's
    n_layer encoder + n_layer decoder layers), the same width, heads, sequence length
    and vocabulary. Before 4.0 the API is HookedTransformer; 4.x builds the same
    config through TransformerBridge's native source (a different code path).
    """
    version = _version("transformer-lens", "transformer_lens")
    if version is None:
        return {"peer": "TransformerLens", "status": NOT_INSTALLED}
    layers = 2 * config.n_layer
    cfg = dict(n_layers=layers, d_model=config.n_embd, n_heads=config.n_heads,
               d_head=config.n_embd // config.n_heads, d_mlp=4 * config.n_embd, d_vocab=config.vocab_size,
               n_ctx=config.seq_len, act_fn="relu", normalization_type="LN")
    try:
        from transformer_lens.model_bridge.sources.native import boot

        model, api = boot(cfg, device="cpu"), "TransformerBridge (native source)"
    except ImportError:
        from transformer_lens import HookedTransformer, HookedTransformerConfig

        model, api = HookedTransformer(HookedTransformerConfig(**cfg, device="cpu")), "HookedTransformer"
    model.eval()
    tokens = torch.randint(0, config.vocab_size, (1, config.seq_len))

    def plain():
        with torch.no_grad():
            return model(tokens)

    def cached():
        with torch.no_grad():
            return model.run_with_cache(tokens)
    return {"peer": "TransformerLens", "status": "ok", "version": version, "api": f"{api}.run_with_cache",
            **_timed(plain, cached, repeats, layers)}


def nnsight_row(config: BenchConfig, repeats: int) -> dict:
    """nnsight tracing tfdebug's own reference model, saving every attention softmax."""
    version = _version("nnsight", "nnsight")
    if version is None:
        return {"peer": "nnsight", "status": NOT_INSTALLED}
    from nnsight import NNsight

    model, src, tgt = build(config, torch.device("cpu"))
    wrapped = NNsight(model)
    stacks = [model.transformer.encoder.layers, model.transformer.decoder.layers]

    def plain():
        with torch.no_grad():
            return model(src, tgt)

    def traced():
        saved = []
        with torch.no_grad(), wrapped.trace(src, tgt):
            for name, stack in (("encoder", stacks[0]), ("decoder", stacks[1])):
                for i in range(len(stack)):
                    layer = getattr(wrapped.transformer, name).layers[i]
                    blocks = [layer.attention] if name == "encoder" else [layer.mask_attention, layer.attention]
                    saved += [block.taps["probs"].output.save() for block in blocks]
        return saved
    return {"peer": "nnsight", "status": "ok", "version": version,
            "api": "NNsight(model).trace: every attention softmax .save()",
            **_timed(plain, traced, repeats, 2 * config.n_layer)}
