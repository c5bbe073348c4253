"""Run every benchmark section and format the result as a table or JSON."""

from __future__ import annotations

import os
import platform

import torch

from tfdebug.bench.capture import LARGE, TINY, WIDE, BenchConfig, memory_row, overhead_row
from tfdebug.bench.cuda import cuda_section
from tfdebug.bench.peers import transformer_lens_ms
from tfdebug.bench.snapshots import snapshot_section
from tfdebug.bench.timing import median, p95

TARGETS = {
    "ratio_capture_all": 1.10, "ratio_taps_only": 1.02, "step_1024_ms": 16.0, "step_4096_ms": 50.0,
    "ratio_save_throughput": 0.8,
}


def _step_latency(sizes: tuple[int, ...], repeats: int) -> list[dict]:
    """The window's step latency, offscreen unless a display is chosen (Qt loads only here)."""
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from tfdebug.ui.step_latency import step_latency

    return [{"size": n, "median": round(median(times), 3), "p95": round(p95(times), 3)}
            for n, times in step_latency(sizes, repeats).items()]


def _demo_config() -> BenchConfig | None:
    """The bundled demo model's shape, when it is bundled."""
    from tfdebug.models.loader import available_models, load_model

    if "demo" not in available_models():
        return None
    args = load_model("demo").args
    return BenchConfig("demo", args.n_layer, args.n_embd, args.n_heads, min(16, args.max_len),
                       args.vocab_size)


def run_all(quick: bool = False, tiny: bool = False) -> dict:
    """Every section. quick: fewer repeats, no 12×768 row, smaller snapshot; tiny: smallest sizes (tests)."""
    cpu = torch.device("cpu")
    if tiny:
        configs, repeats, sizes, snap_bytes, lat_repeats = [TINY], 3, (64, 128), 1 << 20, 3
    else:
        demo = _demo_config()
        configs = ([demo] if demo else []) + [WIDE] + ([] if quick else [LARGE])
        repeats, sizes, lat_repeats = (5, (256, 1024, 4096), 10) if quick else (15, (256, 1024, 4096), 30)
        snap_bytes = (256 << 20) if quick else (1 << 30)
    overhead = []
    for config in configs:
        row = overhead_row(config, cpu, repeats)
        row.update(transformer_lens_ms(config, repeats))
        overhead.append(row)
    return {
        "machine": {"cpu_count": torch.get_num_threads(), "platform": platform.platform(),
                    "torch": torch.__version__, "quick": quick},
        "capture_overhead": overhead,
        "step_latency_ms": _step_latency(sizes, lat_repeats),
        "memory": memory_row(configs[-1] if tiny else WIDE, cpu),
        "snapshots": snapshot_section(TINY if tiny else WIDE, snap_bytes, runs=2 if (quick or tiny) else 3),
        "cuda": cuda_section([TINY] if tiny else [WIDE] + ([] if quick else [LARGE]), repeats),
        "targets": dict(TARGETS),
    }


def _table(rows: list[dict], columns: list[str]) -> list[str]:
    cells = [[str(r.get(c, "")) for c in columns] for r in rows]
    widths = [max(len(c), *(len(row[i]) for row in cells)) for i, c in enumerate(columns)]
    lines = ["  ".join(c.ljust(w) for c, w in zip(columns, widths))]
    lines += ["  ".join(v.ljust(w) for v, w in zip(row, widths)) for row in cells]
    return lines


def format_report(result: dict) -> str:
    """Plain-text tables of a run_all result."""
    out = [f"tfdebug bench — torch {result['machine']['torch']}, {result['machine']['cpu_count']} CPU threads"]
    out += ["", "Capture overhead (median ms; ratios against the plain forward in the same run)"]
    out += _table(result["capture_overhead"], ["config", "n_layer", "n_embd", "seq_len", "plain_ms", "taps_only_ms",
                                               "capture_all_ms", "ratio_taps_only", "ratio_capture_all",
                                               "ratio_plain_again", "transformer_lens_plain_ms", "transformer_lens_ms"])
    out += ["", "Step latency: stage change → heatmap repainted (ms)"]
    out += _table(result["step_latency_ms"], ["size", "median", "p95"])
    mem = result["memory"]
    out += ["", f"Memory ({mem['config']}): {mem['stages']} stages, stage sizes {mem['stage_bytes']:,} B "
                f"({mem['distinct_stage_bytes']:,} B counting views once), held {mem['held_bytes']:,} B "
                f"(×{mem['ratio_held_to_distinct']}), peak RSS {mem['peak_rss_bytes'] / 1e6:.0f} MB"]
    snap = result["snapshots"]
    out += ["", f"Snapshots ({snap['bytes'] / 1e6:.0f} MB, {snap['stages']} tensors): save {snap['save_s']} s "
                f"({snap['save_mb_per_s']} MB/s) vs save_file {snap['save_file_s']} s ({snap['save_file_mb_per_s']} "
                f"MB/s) → ×{snap['ratio_save_throughput']}; against save_file + fsync ({snap['save_file_fsync_s']} s) "
                f"×{snap['ratio_save_throughput_durable']}; without fsync ({snap['save_nosync_s']} s) "
                f"×{snap['ratio_save_throughput_nosync']}",
            f"  open + read one stage {snap['open_one_stage_s']} s vs safe_open {snap['safe_open_one_stage_s']} s"]
    cuda = result["cuda"]
    if cuda["available"]:
        out += ["", f"CUDA ({cuda['device']}): host syncs per captured forward: "
                    f"{cuda['host_syncs_per_captured_forward']}"]
        out += _table(cuda["capture_overhead"], ["config", "plain_ms", "taps_only_ms", "capture_all_ms",
                                                 "ratio_taps_only", "ratio_capture_all"])
    else:
        out += ["", "CUDA: no GPU here; the CUDA rows are skipped."]
    return "\n".join(out)
