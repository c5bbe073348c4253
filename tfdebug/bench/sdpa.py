"""The SDPA adapter's overhead on an nn.TransformerEncoder: against the module's own plain forward.

Variants, timed interleaved in one process:
- plain:       the module as its user runs it (eval, no_grad: torch's fast path, fused attention)
- switches on: the adapter's forward with nothing recording (fast path off, fused SDPA)
- taps only:   every tap hooked, nothing kept (attention decomposed)
- capture all: every stage kept
- plain again: the plain forward a second time; its ratio is the run's A/A noise.
"""

from __future__ import annotations

import torch
from torch import nn

from tfdebug.adapters.torch_nn.adapter import wrap
from tfdebug.bench.timing import adapter_passes, interleaved_ms, median
from tfdebug.core.recorder import Recorder

# n_embd 512, 8 layers, 8 heads, 256 tokens (the size); TINY_SDPA is the test suite's.
FULL = {"n_embd": 512, "n_layer": 8, "n_head": 8, "seq_len": 256}
TINY_SDPA = {"n_embd": 32, "n_layer": 1, "n_head": 4, "seq_len": 8}


def build_encoder(n_embd: int, n_layer: int, n_head: int, seq_len: int, device: torch.device):
    """A random nn.TransformerEncoder (feed-forward 4×n_embd, batch first) and an adapter over it."""
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(0)
        layer = nn.TransformerEncoderLayer(n_embd, n_head, 4 * n_embd, batch_first=True)
        encoder = nn.TransformerEncoder(layer, n_layer, enable_nested_tensor=False).to(device).eval()
    x = torch.randn(1, seq_len, n_embd, generator=torch.Generator().manual_seed(1)).to(device)
    words = [f"t{i}" for i in range(seq_len)]
    adapter = wrap(encoder, lambda _text: ((x,), words), name="nn.TransformerEncoder", device=device)
    return encoder, adapter, adapter.prepare({"text": "bench"})


def sdpa_row(device: torch.device, repeats: int, size: dict | None = None) -> dict:
    """Median ms of each variant and their ratios to the plain forward; the verification's max |Δ|."""
    size = dict(size or FULL)
    encoder, adapter, prepared = build_encoder(**size, device=device)
    x = prepared.args[0]

    def plain():
        with torch.no_grad():
            return encoder(x)

    def switches_on():
        with torch.no_grad():
            return adapter.forward(prepared)

    taps_only, capture_all = adapter_passes(adapter, prepared)

    sync = torch.cuda.synchronize if device.type == "cuda" else None
    times = interleaved_ms({"plain": plain, "switches_on": switches_on, "taps_only": taps_only,
                            "capture_all": capture_all, "plain_again": plain}, repeats, sync=sync)
    ms = {name: median(values) for name, values in times.items()}
    with torch.no_grad(), Recorder(adapter.module) as rec:
        output = adapter.forward(prepared)
    verification = adapter.verify(prepared, output)
    base = ms["plain"]
    return {
        "config": f"nn.TransformerEncoder {size['n_layer']}x{size['n_embd']}, seq {size['seq_len']}",
        **size, "device": str(device), "stages": len(rec.captures),
        **{f"{name}_ms": round(value, 3) for name, value in ms.items()},
        **{f"ratio_{name}": round(value / base, 4) for name, value in ms.items() if name != "plain"},
        "verified_max_abs_diff": verification.max_abs_diff,
    }


def format_sdpa(row: dict) -> list[str]:
    """The report's lines for the SDPA row."""
    return ["", f"SDPA adapter on {row['config']} ({row['device']}, {row['stages']} stages; median ms, ratios to the "
                "module's own plain forward with torch's fast path)",
            f"plain {row['plain_ms']}  switches on (fast path off, fused) {row['switches_on_ms']} "
            f"×{row['ratio_switches_on']}  taps only {row['taps_only_ms']} ×{row['ratio_taps_only']}  "
            f"capture all {row['capture_all_ms']} ×{row['ratio_capture_all']}  A/A ×{row['ratio_plain_again']}  "
            f"verified max |Δ| {row['verified_max_abs_diff']:.1e}"]
