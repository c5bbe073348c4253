"""Hugging Face rows of `tfdebug bench`: a GPT-2-style model through the adapter against its own forward.

One randomly initialised GPT2LMHeadModel (6 layers × n_embd 768, 12 heads, seq 256 by
default: GPT-2 small's width); variants, interleaved: the model's plain forward with sdpa and with eager
attention, tfdebug with every tap hooked but nothing kept ("taps only"), tfdebug keeping
every stage ("capture all"), and the verification pass (the unmodified model again, run
once per captured pass and reported on its own). Ratios are against plain eager: the
tapped attention computes what eager computes. The peers on the same model are in
tfdebug.bench.peers (`tfdebug bench --peers`). Empty when transformers is not installed.
"""

from __future__ import annotations

from tfdebug.bench.capture import BenchConfig
from tfdebug.bench.timing import adapter_passes, interleaved_ms, median

GPT2_SHAPES = {
    "tiny": BenchConfig("hf-gpt2 tiny", 1, 32, 4, 8, 50),
    "quick": BenchConfig("hf-gpt2 4x256", 4, 256, 4, 128),
    "wide": BenchConfig("hf-gpt2 6x768", 6, 768, 12, 256),
}


def build_gpt2(config: BenchConfig):
    """A randomly initialised GPT2LMHeadModel of `config` (eval mode) and seq_len random token ids."""
    import torch
    import transformers

    cfg = transformers.GPT2Config(vocab_size=config.vocab_size, n_embd=config.n_embd, n_layer=config.n_layer,
                                  n_head=config.n_heads, n_positions=config.seq_len, bos_token_id=0, eos_token_id=0)
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(0)
        model = transformers.GPT2LMHeadModel(cfg).eval()
    ids = torch.randint(0, config.vocab_size, (1, config.seq_len), generator=torch.Generator().manual_seed(0))
    return model, ids


def hf_row(config: BenchConfig, repeats: int) -> dict:
    """Median ms of each variant and the ratios against the plain eager forward."""
    import torch

    from tfdebug.adapters.base import Prepared
    from tfdebug.adapters.hf.adapter import wrap
    from tfdebug.core.recorder import Recorder

    model, ids = build_gpt2(config)
    adapter = wrap(model, tokenizer=None, name="bench")
    prepared = Prepared(texts={}, kwargs={"input_ids": ids, "use_cache": False})
    configs = [model.config]

    def plain(implementation: str):
        def run():
            before = configs[0]._attn_implementation_internal
            configs[0]._attn_implementation_internal = implementation
            try:
                with torch.no_grad():
                    return model(**prepared.kwargs).logits
            finally:
                configs[0]._attn_implementation_internal = before
        return run

    taps_only, capture_all = adapter_passes(adapter, prepared)

    def verification():
        with torch.no_grad():
            return adapter.plain_forward(prepared)

    times = interleaved_ms({"sdpa": plain("sdpa"), "eager": plain("eager"), "taps_only": taps_only,
                            "capture_all": capture_all, "verify": verification, "eager_again": plain("eager")},
                           repeats)
    ms = {name: median(values) for name, values in times.items()}
    eager = ms["eager"]
    with torch.no_grad(), Recorder(adapter.module, keep=False) as rec:
        adapter.forward(prepared)
    row = {
        "config": config.name, "n_layer": config.n_layer, "n_embd": config.n_embd, "seq_len": config.seq_len,
        "stages": len(rec.captures),
        **{f"{name}_ms": round(value, 3) for name, value in ms.items()},
        "ratio_taps_only": round(ms["taps_only"] / eager, 4), "ratio_capture_all": round(ms["capture_all"] / eager, 4),
        "ratio_eager_again": round(ms["eager_again"] / eager, 4),
    }
    return row


def hf_section(shape: str, repeats: int) -> list[dict]:
    """The Hugging Face rows at a shape of GPT2_SHAPES, or none without transformers."""
    from tfdebug.adapters.hf.load import transformers_available

    if not transformers_available():
        return []
    return [hf_row(GPT2_SHAPES[shape], repeats)]


COLUMNS = ["config", "stages", "sdpa_ms", "eager_ms", "taps_only_ms", "capture_all_ms", "verify_ms", "ratio_taps_only",
           "ratio_capture_all", "ratio_eager_again"]
