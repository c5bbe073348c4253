"""CUDA figures: the capture rows on the GPU and host synchronisations per captured forward."""

from __future__ import annotations

import warnings

import torch

from tfdebug.bench.capture import BenchConfig, build, overhead_row
from tfdebug.core.display import display_slice
from tfdebug.core.stats import tensor_stats
from tfdebug.core.thumbnails import head_thumbnails
from tfdebug.core.recorder import Recorder


def count_host_syncs(fn) -> int:
    """How many times `fn` makes the host wait for the GPU (torch's sync debug mode, one warning each)."""
    torch.cuda.synchronize()
    previous = torch.cuda.get_sync_debug_mode()
    torch.cuda.set_sync_debug_mode("warn")
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            fn()
    finally:
        torch.cuda.set_sync_debug_mode(previous)
    return sum("synchroniz" in str(w.message).lower() for w in caught)


def cuda_section(configs: list[BenchConfig], repeats: int) -> dict:
    """Capture rows on cuda:0 and the sync count of one captured forward; {'available': False} without a GPU."""
    if not torch.cuda.is_available():
        return {"available": False, "capture_overhead": [], "host_syncs_per_captured_forward": None,
                "host_syncs_display_step": None, "host_syncs_heads": None}
    device = torch.device("cuda:0")
    rows = [overhead_row(c, device, repeats) for c in configs]
    model, src, tgt = build(configs[0], device)

    def captured_forward():
        with torch.no_grad(), Recorder(model):
            model(src, tgt)

    captured_forward()  # warm-up: first-call allocations are not the steady state
    with torch.no_grad(), Recorder(model) as rec:
        model(src, tgt)
    scores = next(c.tensor for c in rec.captures if c.info.kind == "scores")  # (batch, head, query, key)

    def display_step():
        display_slice(scores, 2, 3, {0: 0, 1: 0})
        tensor_stats(scores)
    return {"available": True, "device": torch.cuda.get_device_name(0), "capture_overhead": rows,
            "host_syncs_per_captured_forward": count_host_syncs(captured_forward),
            "host_syncs_display_step": count_host_syncs(display_step),
            "host_syncs_heads": count_host_syncs(lambda: head_thumbnails(scores, 2, 3, 1, {0: 0}))}
