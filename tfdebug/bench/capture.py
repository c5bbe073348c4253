"""Capture overhead and memory: the plain forward against the same forward under the Recorder."""

from __future__ import annotations

import gc
import os
import resource
import sys
from dataclasses import asdict, dataclass

import torch

from tfdebug.bench.timing import in_opted_in_process, interleaved_ms, median
from tfdebug.core.memory import allocator_tuned, release_freed_memory
from tfdebug.core.recorder import Recorder, held_bytes
from tfdebug.core.tap import Tap, iter_taps
from tfdebug.models.config import ModelArgs
from tfdebug.models.transformer import Transformer


@dataclass(frozen=True)
class BenchConfig:
    name: str
    n_layer: int
    n_embd: int
    n_heads: int
    seq_len: int
    vocab_size: int = 1000


TINY = BenchConfig("tiny", 1, 32, 4, 8, 50)
WIDE = BenchConfig("6x512", 6, 512, 8, 128)
LARGE = BenchConfig("12x768", 12, 768, 12, 512)


def build(config: BenchConfig, device: torch.device) -> tuple[Transformer, torch.Tensor, torch.Tensor]:
    """A randomly initialised reference model of `config` and random inputs of seq_len tokens."""
    generator = torch.Generator().manual_seed(0)
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(0)
        model = Transformer(ModelArgs(n_embd=config.n_embd, n_heads=config.n_heads, n_layer=config.n_layer,
                                      vocab_size=config.vocab_size, max_seq_len=config.seq_len))
    model = model.to(device).eval()
    src = torch.randint(4, config.vocab_size, (1, config.seq_len), generator=generator).to(device)
    tgt = torch.randint(4, config.vocab_size, (1, config.seq_len), generator=generator).to(device)
    return model, src, tgt


def _sync_for(device: torch.device):
    return torch.cuda.synchronize if device.type == "cuda" else None


def overhead_row(config: BenchConfig, device: torch.device, repeats: int,
                 model_and_inputs: tuple | None = None) -> dict:
    """Median ms of the plain forward, with hooks that keep nothing, and with every stage kept."""
    model, src, tgt = model_and_inputs or build(config, device)

    def plain():
        with torch.no_grad():
            return model(src, tgt)

    def taps_only():
        with torch.no_grad(), Recorder(model, keep=False):
            return model(src, tgt)

    def capture_all():
        with torch.no_grad(), Recorder(model) as rec:
            model(src, tgt)
        return rec.captures

    # "plain_again" is the plain forward timed a second time: its ratio shows the run's noise floor.
    times = interleaved_ms({"plain": plain, "taps_only": taps_only, "capture_all": capture_all,
                            "plain_again": plain}, repeats, sync=_sync_for(device))
    plain_ms, taps_ms, all_ms, again_ms = (median(times[k]) for k in ("plain", "taps_only", "capture_all",
                                                                      "plain_again"))
    return {
        "config": config.name, "n_layer": config.n_layer, "n_embd": config.n_embd, "seq_len": config.seq_len,
        "device": str(device), "n_taps": sum(1 for _ in iter_taps(model)),
        "plain_ms": round(plain_ms, 3), "taps_only_ms": round(taps_ms, 3), "capture_all_ms": round(all_ms, 3),
        "ratio_taps_only": round(taps_ms / plain_ms, 4), "ratio_capture_all": round(all_ms / plain_ms, 4),
        "ratio_plain_again": round(again_ms / plain_ms, 4),
        "inert_tap_share": round(inert_tap_share(model, plain_ms), 5),
    }


def inert_tap_share(model: torch.nn.Module, plain_ms: float, calls: int = 20000) -> float:
    """The share of the plain forward spent calling taps that have no hooks (they are always present)."""
    import time

    tap = Tap("bench.probe", "residual", ("batch",), "x")
    x = torch.zeros(1)
    start = time.perf_counter()
    for _ in range(calls):
        tap(x)
    per_call_ms = (time.perf_counter() - start) * 1000.0 / calls
    return per_call_ms * sum(1 for _ in iter_taps(model)) / plain_ms


def distinct_stage_bytes(captures) -> int:
    """Sum of stage sizes, counting once the stages that are views of one another (head splits)."""
    largest: dict[int, int] = {}
    for capture in captures:
        key = capture.tensor.untyped_storage().data_ptr()
        largest[key] = max(largest.get(key, 0), capture.nbytes)
    return sum(largest.values())


def _rss_bytes() -> int:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def memory_row(config: BenchConfig, device: torch.device) -> dict:
    """Bytes a capture keeps alive against the sum of its stages' sizes, the process's peak
    RSS, and the RSS still kept once the capture is dropped (before and after
    `release_freed_memory()`).

    Head splits are views of the projections and share their storage, so the honest
    comparison is with `distinct_stage_bytes`; any excess there is a hidden copy.
    """
    model, src, tgt = build(config, device)
    gc.collect()
    before = _rss_bytes() if sys.platform.startswith("linux") else 0
    with torch.no_grad(), Recorder(model) as rec:
        model(src, tgt)
    stage_bytes = sum(c.nbytes for c in rec.captures)
    distinct = distinct_stage_bytes(rec.captures)
    held = held_bytes(rec.captures)
    stages = len(rec.captures)
    del rec
    gc.collect()
    dropped = _rss_bytes() if before else 0
    release_freed_memory()
    released = _rss_bytes() if before else 0
    return {
        "config": config.name, "stages": stages, "stage_bytes": stage_bytes,
        "distinct_stage_bytes": distinct, "held_bytes": held,
        "ratio_held_to_distinct": round(held / distinct, 4),
        "peak_rss_bytes": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024,
        "allocator_tuned": allocator_tuned(),
        "kept_after_drop_bytes": max(0, dropped - before), "kept_after_release_bytes": max(0, released - before),
    }


def tuned_overhead_row(config: BenchConfig, repeats: int) -> dict | None:
    """The same row in a fresh process that opted in to the allocator tuning (as the app does)."""
    return in_opted_in_process("tfdebug.bench.capture:_overhead_row_of", asdict(config), repeats)


def _overhead_row_of(config: dict, repeats: int) -> dict:
    """`overhead_row` on the CPU from JSON arguments, saying whether the allocator was tuned (a child's entry)."""
    row = overhead_row(BenchConfig(**config), torch.device("cpu"), repeats)
    row["allocator_tuned"] = allocator_tuned()
    return row
