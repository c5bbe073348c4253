"""Run every benchmark section and format the result as a table or JSON.

Every timed section carries its A/A ratio; a verdict against a target is stated only
when that ratio is within 0.95–1.05 (tfdebug.bench.noise).
"""

from __future__ import annotations

import os

import torch

from tfdebug.bench.capture import LARGE, TINY, WIDE, BenchConfig, memory_row, overhead_row, tuned_overhead_row
from tfdebug.bench.cuda import cuda_section
from tfdebug.bench.generation import TINY_GEN, format_generation, generation_rows
from tfdebug.bench.hf import COLUMNS as HF_COLUMNS
from tfdebug.bench.hf import hf_section
from tfdebug.bench.noise import TOO_BUSY, halves_ratio, trustworthy, verdict
from tfdebug.bench.peers import nnsight_row, transformer_lens_row
from tfdebug.bench.remote import format_remote, remote_section
from tfdebug.bench.sdpa import TINY_SDPA, format_sdpa, sdpa_row
from tfdebug.bench.snapshots import snapshot_section
from tfdebug.bench.syncs import sync_counts
from tfdebug.bench.timing import machine, median, p95
from tfdebug.bench.timing import table as _table

TARGETS = {
    "ratio_capture_all": 1.10, "ratio_taps_only": 1.02, "painted_1024_ms": 16.0, "painted_4096_ms": 50.0,
    "settled_ms": 100.0, "ratio_save_throughput": 0.8,
}
SYNC_BUDGETS = {"captured_forward": 1, "conditions_fast": 1, "display_step": 2, "heads": 1}


def _step_latency(sizes: tuple[int, ...], repeats: int) -> list[dict]:
    """The window's step latency to the painted heatmap and until every panel settled (offscreen)."""
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from tfdebug.ui.workers.step_latency import quiet_qt_messages, step_latency

    with quiet_qt_messages():
        timings = step_latency(sizes, repeats)
    rows = []
    for n, samples in timings.items():
        row = {"size": n}
        for clock in ("painted", "settled"):
            row[f"{clock}_median"] = round(median(samples[clock]), 2)
            row[f"{clock}_p95"] = round(p95(samples[clock]), 2)
        row["aa_ratio"] = halves_ratio(samples["painted"])
        row["aa_ratio_settled"] = halves_ratio(samples["settled"])  # each clock judged by its own A/A
        rows.append(row)
    return rows


def _demo_config() -> BenchConfig | None:
    """The bundled demo model's shape, when it is bundled."""
    from tfdebug.models.loader import available_models, load_model

    if "demo" not in available_models():
        return None
    args = load_model("demo").args
    return BenchConfig("demo", args.n_layer, args.n_embd, args.n_heads, min(16, args.max_len),
                       args.vocab_size)


def _verdicts(result: dict) -> list[dict]:
    """Each target judged, or TOO_BUSY where the section's A/A ratio is out of range."""
    out = []
    for row in result["capture_overhead"]:
        if row["n_embd"] < 512:
            continue
        for key, label in (("ratio_capture_all", "capture all, untuned"), ("ratio_taps_only", "taps only")):
            out.append({"what": f"{row['config']} {label} ≤ {TARGETS[key]}", "value": row[key],
                        "aa_ratio": row["ratio_plain_again"],
                        "verdict": verdict(row[key], TARGETS[key], row["ratio_plain_again"])})
        tuned = row.get("tuned")
        if tuned:
            out.append({"what": f"{row['config']} capture all, tuned ≤ {TARGETS['ratio_capture_all']}",
                        "value": tuned["ratio_capture_all"], "aa_ratio": tuned["ratio_plain_again"],
                        "verdict": verdict(tuned["ratio_capture_all"], TARGETS["ratio_capture_all"],
                                           tuned["ratio_plain_again"])})
    for row in result["step_latency_ms"]:
        target = {1024: TARGETS["painted_1024_ms"], 4096: TARGETS["painted_4096_ms"]}.get(row["size"])
        if target is not None:
            out.append({"what": f"{row['size']}² step to painted heatmap ≤ {target:g} ms",
                        "value": row["painted_median"], "aa_ratio": row["aa_ratio"],
                        "verdict": verdict(row["painted_median"], target, row["aa_ratio"])})
        out.append({"what": f"{row['size']}² step until all panels settled ≤ {TARGETS['settled_ms']:g} ms",
                    "value": row["settled_median"], "aa_ratio": row.get("aa_ratio_settled", row["aa_ratio"]),
                    "verdict": verdict(row["settled_median"], TARGETS["settled_ms"],
                                       row.get("aa_ratio_settled", row["aa_ratio"]))})
    snap = result["snapshots"]
    out.append({"what": f"snapshot save ≥ {TARGETS['ratio_save_throughput']}× save_file",
                "value": snap["ratio_save_throughput"], "aa_ratio": snap.get("aa_ratio"),
                "verdict": verdict(snap["ratio_save_throughput"], TARGETS["ratio_save_throughput"],
                                   snap.get("aa_ratio"), higher_is_better=True)})
    for key, budget in SYNC_BUDGETS.items():  # counts, not timings: no noise to judge
        value = result["host_syncs"][key]
        out.append({"what": f"host syncs, {key} ≤ {budget}", "value": value, "aa_ratio": None,
                    "verdict": "pass" if value <= budget else "fail"})
    return out


def run_all(quick: bool = False, tiny: bool = False, threads: int | None = None) -> dict:
    """Every section. quick: fewer repeats, no 12×768 row, smaller snapshot; tiny: smallest sizes (tests)."""
    if threads:
        torch.set_num_threads(threads)
    cpu = torch.device("cpu")
    if tiny:
        configs, repeats, sizes, snap_bytes, lat_repeats = [TINY], 3, (64, 128), 1 << 20, 4
    else:
        demo = _demo_config()
        configs = ([demo] if demo else []) + [WIDE] + ([] if quick else [LARGE])
        repeats, sizes, lat_repeats = (5, (256, 1024, 4096), 10) if quick else (15, (256, 1024, 4096), 30)
        snap_bytes = (256 << 20) if quick else (1 << 30)
    overhead = []
    for config in configs:
        row = overhead_row(config, cpu, repeats)  # this process never tuned the allocator
        row["tuned"] = tuned_overhead_row(config, repeats)
        row["peers"] = [transformer_lens_row(config, repeats), nnsight_row(config, repeats)]
        overhead.append(row)
    result = {
        "machine": machine(quick),
        "capture_overhead": overhead,
        "step_latency_ms": _step_latency(sizes, lat_repeats),
        "memory": memory_row(configs[-1] if tiny else WIDE, cpu),
        "snapshots": snapshot_section(TINY if tiny else WIDE, snap_bytes, runs=2 if (quick or tiny) else 3),
        "host_syncs": sync_counts(),
        "sdpa": sdpa_row(cpu, repeats, TINY_SDPA if tiny else None),
        "hf": hf_section(quick, tiny),
        "generation": generation_rows(cpu, 2 if (quick or tiny) else 5, TINY_GEN if tiny else None),
        "cuda": cuda_section([TINY] if tiny else [WIDE] + ([] if quick else [LARGE]), repeats),
        "remote": remote_section(sizes, 3 if tiny else lat_repeats // 3),
        "targets": dict(TARGETS), "sync_budgets": dict(SYNC_BUDGETS),
    }
    result["verdicts"] = _verdicts(result)
    return result


def _peer_lines(rows: list[dict]) -> list[str]:
    out = []
    for row in rows:
        for peer in row["peers"]:
            if peer["status"] != "ok":
                out.append(f"  {row['config']}: {peer['peer']} {peer['status']}")
                continue
            out.append(f"  {row['config']}: {peer['peer']} {peer['version']} ({peer['api']}), {peer['layers']} layers: "
                       f"plain {peer['plain_ms']} ms ({peer['plain_ms_per_layer']} ms/layer), hooked "
                       f"{peer['hooked_ms']} ms ({peer['hooked_ms_per_layer']} ms/layer), ×{peer['ratio']}")
    return out


def format_report(result: dict) -> str:
    """Plain-text tables of a run_all result, with an explicit warning where a run was too noisy."""
    m = result["machine"]
    out = [f"tfdebug bench — torch {m['torch']}, {m['torch_threads']} torch threads on {m['cpu_count']} CPUs "
           f"(load average {m['load_average'][0]})"]
    for row in result["capture_overhead"]:
        row["ms_per_layer"] = round(row["plain_ms"] / (2 * row["n_layer"]), 3)
        tuned = row.get("tuned") or {}
        row["tuned_capture_all_ms"] = tuned.get("capture_all_ms")
        row["ratio_capture_all_tuned"] = tuned.get("ratio_capture_all")
        row["aa_tuned"] = tuned.get("ratio_plain_again")
    out += ["", "Capture overhead (median ms; ratios against the plain forward in the same process; this process "
                "never tuned the allocator, the tuned columns come from a child process that did)"]
    out += _table(result["capture_overhead"], ["config", "plain_ms", "ms_per_layer", "taps_only_ms", "capture_all_ms",
                                               "ratio_taps_only", "ratio_capture_all", "ratio_plain_again",
                                               "tuned_capture_all_ms", "ratio_capture_all_tuned", "aa_tuned"])
    out += ["", "Peers (never dependencies)"] + _peer_lines(result["capture_overhead"])
    out += ["", "Step latency (ms, F10 on the window): to painted heatmap / all panels settled; A/A = second half "
                "of the steps over the first, per clock"]
    out += _table(result["step_latency_ms"], ["size", "painted_median", "painted_p95", "aa_ratio", "settled_median",
                                              "settled_p95", "aa_ratio_settled"])
    out += format_sdpa(result["sdpa"])
    mem = result["memory"]
    out += ["", f"Memory ({mem['config']}): {mem['stages']} stages, stage sizes {mem['stage_bytes']:,} B "
                f"({mem['distinct_stage_bytes']:,} B counting views once), held {mem['held_bytes']:,} B "
                f"(×{mem['ratio_held_to_distinct']}), peak RSS {mem['peak_rss_bytes'] / 1e6:.0f} MB; after the "
                f"capture is dropped the process keeps {mem['kept_after_drop_bytes'] / 1e6:.1f} MB, "
                f"{mem['kept_after_release_bytes'] / 1e6:.1f} MB after release_freed_memory()"]
    snap = result["snapshots"]
    out += ["", f"Snapshots ({snap['bytes'] / 1e6:.0f} MB, {snap['stages']} tensors): save {snap['save_s']} s "
                f"({snap['save_mb_per_s']} MB/s) vs save_file {snap['save_file_s']} s ({snap['save_file_mb_per_s']} "
                f"MB/s) → ×{snap['ratio_save_throughput']}; against save_file + fsync ({snap['save_file_fsync_s']} s) "
                f"×{snap['ratio_save_throughput_durable']}; without fsync ({snap['save_nosync_s']} s) "
                f"×{snap['ratio_save_throughput_nosync']}; A/A {snap.get('aa_ratio')}",
            f"  open + read one stage {snap['open_one_stage_s']} s vs safe_open {snap['safe_open_one_stage_s']} s"]
    syncs = result["host_syncs"]
    out += ["", "Host syncs counted on the CPU harness (what would make the host wait for a GPU): captured forward "
                f"{syncs['captured_forward']}; Continue with every condition breakpoint: fast {syncs['conditions_fast']}"
                f", exact {syncs['conditions_exact']} ({syncs['stages']} stages); display step "
                f"{syncs['display_step']}; all heads {syncs['heads']}"]
    if result.get("hf"):
        out += ["", "Hugging Face GPT-2 through the adapter (median ms; ratios against the model's own eager forward)"]
        out += _table(result["hf"], HF_COLUMNS)
    if result.get("generation"):
        out += format_generation(result["generation"])
    if result.get("remote"):
        out += format_remote(result["remote"])
    cuda = result["cuda"]
    if cuda["available"]:
        out += ["", f"CUDA ({cuda['device']}): host syncs per captured forward (torch sync debug mode): "
                    f"{cuda['host_syncs_per_captured_forward']}"]
        out += _table(cuda["capture_overhead"], ["config", "plain_ms", "taps_only_ms", "capture_all_ms",
                                                 "ratio_taps_only", "ratio_capture_all", "ratio_plain_again"])
    else:
        out += ["", "CUDA: no GPU here; the CUDA rows are skipped."]
    out += ["", "Targets"]
    out += _table(result["verdicts"], ["what", "value", "aa_ratio", "verdict"])
    busy = [v for v in result["verdicts"] if v["verdict"] == TOO_BUSY]
    if busy:
        out += ["", f"WARNING: {len(busy)} figure(s) came from a run whose A/A noise ratio is outside 0.95–1.05: the "
                    "machine was too busy for them to be trusted, so no pass/fail is stated for them. Rerun on a "
                    "quieter machine (or with --threads 1)."]
    elif not all(trustworthy(r["ratio_plain_again"]) for r in result["capture_overhead"]):
        out += ["", "WARNING: a capture row's A/A ratio is outside 0.95–1.05: treat its figures as noisy."]
    return "\n".join(out)
