"""Verdicts against the targets, and the plain-text report of a `tfdebug bench` result.

Every timed section carries its A/A ratio; a verdict against a target is stated only
when that ratio is within 0.95–1.05 (tfdebug.bench.noise). Sections a run skipped are
absent from the result and named in its `run` summary.
"""

from __future__ import annotations

from tfdebug.bench.hf import COLUMNS as HF_COLUMNS
from tfdebug.bench.noise import TOO_BUSY, trustworthy, verdict
from tfdebug.bench.timing import table as _table

TARGETS = {
    "ratio_capture_all": 1.10, "ratio_taps_only": 1.02, "painted_1024_ms": 16.0, "painted_4096_ms": 50.0,
    "named_1024_ms": 16.0, "settled_1024_ms": 33.0, "settled_ms": 100.0, "ratio_generate": 1.05, "ratio_save_throughput": 0.8, "ratio_session_capture": 1.10, "info_s": 0.3,
    "window_shown_s": 1.0, "painted_s": 2.5, "refused_s": 0.5,
}
SYNC_BUDGETS = {"captured_forward": 1, "conditions_fast": 1, "display_step": 2, "heads": 1}


def verdicts(result: dict) -> list[dict]:
    """Each target judged, or TOO_BUSY where the section's A/A ratio is out of range."""
    out = []
    for row in result.get("capture_overhead", []):
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
    for row in result.get("step_latency_ms", []):
        out += _latency_verdicts(row)
    for row in result.get("generation", []):
        if "ratio_capture_all" in row and "generate_ms" in row:  # a row that failed has no ratios
            target = TARGETS["ratio_generate"]
            out.append({"what": f"generation with every stage captured ≤ {target:g}× model.generate per token "
                                f"({row['model']})", "value": row["ratio_capture_all"], "aa_ratio": row["aa_ratio"],
                        "verdict": verdict(row["ratio_capture_all"], target, row["aa_ratio"])})
            if "ratio_window" in row:
                out.append({"what": f"generation stepped to its end in the window's stepper ≤ {target:g}× "
                                    f"model.generate per token ({row['model']})", "value": row["ratio_window"],
                            "aa_ratio": row["aa_ratio"], "verdict": verdict(row["ratio_window"], target,
                                                                            row["aa_ratio"])})
    for row in (result.get("backward") or {}).get("rows", []):
        target = result["backward"]["target"]
        out.append({"what": f"backward with every stage's gradient ≤ {target:g}× plain loss.backward() "
                            f"({row['seq_len']} tokens)", "value": row["ratio"], "aa_ratio": row["aa_ratio"],
                    "verdict": verdict(row["ratio"], target, row["aa_ratio"])})
    out += _session_verdicts(result)
    out += _command_verdicts(result)
    snap = result.get("snapshots")
    if snap:
        out.append({"what": f"snapshot save ≥ {TARGETS['ratio_save_throughput']}× save_file",
                    "value": snap["ratio_save_throughput"], "aa_ratio": snap.get("aa_ratio"),
                    "verdict": verdict(snap["ratio_save_throughput"], TARGETS["ratio_save_throughput"],
                                       snap.get("aa_ratio"), higher_is_better=True)})
    for key, budget in SYNC_BUDGETS.items() if "host_syncs" in result else ():  # counts: no noise to judge
        value = result["host_syncs"][key]
        out.append({"what": f"host syncs, {key} ≤ {budget}", "value": value, "aa_ratio": None,
                    "verdict": "pass" if value <= budget else "fail"})
    return out


def _latency_verdicts(row: dict) -> list[dict]:
    """A step-latency row against its targets: painted (1024², 4096²), named (1024²), settled (two frames up to
    1024², else 100 ms), each judged by its own clock's A/A."""
    size, where = row["size"], f" ({row['source']})" if "source" in row else ""
    targets = [("painted", "step to painted heatmap", {1024: TARGETS["painted_1024_ms"],
                                                        4096: TARGETS["painted_4096_ms"]}.get(size)),
               ("named", "step to the stage named everywhere", TARGETS["named_1024_ms"] if size == 1024 else None),
               ("settled", "step until all panels settled",
                TARGETS["settled_1024_ms"] if size <= 1024 else TARGETS["settled_ms"])]
    out = []
    for clock, what, target in targets:
        value, aa = row.get(f"{clock}_median"), row.get("aa_ratio" if clock == "painted" else f"aa_ratio_{clock}",
                                                        row["aa_ratio"])
        if target is not None and value is not None:
            out.append({"what": f"{size}²{where} {what} ≤ {target:g} ms", "value": value, "aa_ratio": aa,
                        "verdict": verdict(value, target, aa)})
    return out


def _session_verdicts(result: dict) -> list[dict]:
    out = []
    for row in result.get("session", []):
        target = TARGETS["ratio_session_capture"]
        allocator = "opted in, as the app" if row.get("allocator_tuned") else "untuned"
        for key, what in (("ratio_session_capture", "session capture (what the user waits for)"),
                          ("ratio_planned_session_capture", "the window's path, first Run of the model"),
                          ("ratio_replanned_session_capture", "the window's path, plan reused"),
                          ("ratio_grown_session_capture", "the window's path, a new length (plan grown)")):
            if key in row:
                out.append({"what": f"{row['config']} {what}, {allocator} ≤ {target}", "value": row[key],
                            "aa_ratio": row["ratio_plain_again"],
                            "verdict": verdict(row[key], target, row["ratio_plain_again"])})
    return out


def _command_verdicts(result: dict) -> list[dict]:
    """The window shown and its first stage painted within their times (judged with the runs' A/A), a missing
    model refused and `tfdebug info` within theirs, and no command that only reads files importing torch or Qt
    (a count: no noise to judge)."""
    start = result.get("startup") or {}
    commands = start.get("commands") or {}
    out = []
    for phase, said in (("window_shown", "window shown"), ("painted", "first stage painted")):
        if "median_after_first" not in start:
            break
        target = TARGETS[f"{phase}_s"]
        out.append({"what": f"{said} ≤ {target:g} s after launch",
                    "value": start["median_after_first"][phase], "aa_ratio": start.get("aa_ratio"),
                    "verdict": verdict(start["median_after_first"][phase], target, start.get("aa_ratio"))})
    if "missing_model" in commands:
        seconds = commands["missing_model"]["median_s"]
        out.append({"what": f"a missing model refused ≤ {TARGETS['refused_s']:g} s", "value": seconds,
                    "aa_ratio": None, "verdict": "pass" if seconds <= TARGETS["refused_s"] else "fail"})
    if "info" in commands:
        seconds = commands["info"]["median_s"]
        out.append({"what": f"tfdebug info ≤ {TARGETS['info_s']:g} s", "value": seconds, "aa_ratio": None,
                    "verdict": "pass" if seconds <= TARGETS["info_s"] else "fail"})
    for name, row in commands.items():
        out.append({"what": f"tfdebug {' '.join(row['args'])} imports neither torch nor Qt",
                    "value": ", ".join(row["imported"]) or "none", "aa_ratio": None,
                    "verdict": "fail" if row["imported"] else "pass"})
    return out


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


def _capture_lines(rows: list[dict]) -> list[str]:
    for row in rows:
        row["ms_per_layer"] = round(row["plain_ms"] / (2 * row["n_layer"]), 3)
        tuned = row.get("tuned") or {}
        row["tuned_capture_all_ms"] = tuned.get("capture_all_ms")
        row["ratio_capture_all_tuned"] = tuned.get("ratio_capture_all")
        row["aa_tuned"] = tuned.get("ratio_plain_again")
    out = ["", "Capture overhead (median ms; ratios against the plain forward in the same process; this process "
               "never tuned the allocator, the tuned columns come from a child process that did)"]
    out += _table(rows, ["config", "plain_ms", "ms_per_layer", "taps_only_ms", "capture_all_ms", "ratio_taps_only",
                         "ratio_capture_all", "ratio_plain_again", "tuned_capture_all_ms", "ratio_capture_all_tuned",
                         "aa_tuned"])
    return out + ["", "Peers (never dependencies)"] + _peer_lines(rows)


def _latency_lines(rows: list[dict]) -> list[str]:
    return ["", "Step latency (ms, F10 on the window): to painted heatmap / stage named everywhere / all panels "
                "settled; A/A = second half of the steps over the first, per clock; source: synthetic stages in "
                "memory, or read from a snapshot file, or the user path (the demo's snapshot as tfdebug open shows it); "
                "GUI CPU = the GUI thread's CPU time until settled"
            ] + _table(rows, ["size", "source", "painted_median", "painted_p95", "aa_ratio", "named_median",
                              "aa_ratio_named", "settled_median", "settled_p95", "aa_ratio_settled", "gui_cpu_median"])


def _startup_lines(start: dict) -> list[str]:
    from tfdebug.bench.startup import PHASES

    first, rest = start["first"], start["median_after_first"]
    return ["", f"Window start to the first painted stage ({start['model']}, s since the process started; "
                f"{len(start['runs'])} fresh processes, load after each {start['load_after_each']}; A/A "
                f"{start.get('aa_ratio')}; torch imported before the window was shown: "
                f"{'yes' if start.get('torch_at_show', True) else 'no'}):"] + [
        f"  {phase}: first {first[phase]:.2f} s, median of the rest {rest[phase]:.2f} s" for phase in PHASES] + [
        f"  tfdebug {' '.join(row['args'])}: median {row['median_s']:.3f} s, max {row['max_s']:.3f} s (start to exit; "
        f"imported: {', '.join(row['imported']) or 'neither torch nor Qt'})"
        for row in (start.get("commands") or {}).values()]


def _memory_lines(mem: dict) -> list[str]:
    return ["", f"Memory ({mem['config']}): {mem['stages']} stages, stage sizes {mem['stage_bytes']:,} B "
                f"({mem['distinct_stage_bytes']:,} B counting views once), held {mem['held_bytes']:,} B "
                f"(×{mem['ratio_held_to_distinct']}), peak RSS {mem['peak_rss_bytes'] / 1e6:.0f} MB; after the "
                f"capture is dropped the process keeps {mem['kept_after_drop_bytes'] / 1e6:.1f} MB, "
                f"{mem['kept_after_release_bytes'] / 1e6:.1f} MB after release_freed_memory()"]


def _snapshot_lines(snap: dict) -> list[str]:
    return ["", f"Snapshots ({snap['bytes'] / 1e6:.0f} MB, {snap['stages']} tensors): save {snap['save_s']} s "
                f"({snap['save_mb_per_s']} MB/s) vs save_file {snap['save_file_s']} s ({snap['save_file_mb_per_s']} "
                f"MB/s) → ×{snap['ratio_save_throughput']}; against save_file + fsync ({snap['save_file_fsync_s']} s) "
                f"×{snap['ratio_save_throughput_durable']}; without fsync ({snap['save_nosync_s']} s) "
                f"×{snap['ratio_save_throughput_nosync']}; A/A {snap.get('aa_ratio')}",
            f"  open + read one stage {snap['open_one_stage_s']} s vs safe_open {snap['safe_open_one_stage_s']} s"]


def _sync_lines(syncs: dict) -> list[str]:
    return ["", "Host syncs counted on the CPU harness (what would make the host wait for a GPU): captured forward "
                f"{syncs['captured_forward']}; Continue with every condition breakpoint: fast {syncs['conditions_fast']}"
                f", exact {syncs['conditions_exact']} ({syncs['stages']} stages); display step "
                f"{syncs['display_step']}; all heads {syncs['heads']}"]


def _cuda_lines(cuda: dict) -> list[str]:
    if not cuda["available"]:
        return ["", "CUDA: no GPU here; the CUDA rows are skipped."]
    return ["", f"CUDA ({cuda['device']}): host syncs per captured forward (torch sync debug mode): "
                f"{cuda['host_syncs_per_captured_forward']}"] + _table(
        cuda["capture_overhead"], ["config", "plain_ms", "taps_only_ms", "capture_all_ms", "ratio_taps_only",
                                   "ratio_capture_all", "ratio_plain_again"])


def _hf_lines(rows: list[dict]) -> list[str]:
    return ["", "Hugging Face GPT-2 through the adapter (median ms; ratios against the model's own eager forward)"] + \
        _table(rows, HF_COLUMNS)


def _section_lines() -> dict:
    """Each result key's formatter, in report order (imported late: some pull in their section's module)."""
    from tfdebug.bench.generation import format_generation
    from tfdebug.bench.levers import format_levers
    from tfdebug.bench.peers import format_peers
    from tfdebug.bench.remote import format_remote
    from tfdebug.bench.scale import format_scale
    from tfdebug.bench.sdpa import format_sdpa
    from tfdebug.bench.session import format_session
    from tfdebug.bench.backward import format_backward
    from tfdebug.bench.why import format_why

    return {"capture_overhead": _capture_lines, "session": format_session, "hf": _hf_lines,
            "startup": _startup_lines, "step_latency_ms": _latency_lines, "memory": _memory_lines,
            "snapshots": _snapshot_lines,
            "host_syncs": _sync_lines, "sdpa": format_sdpa, "levers": format_levers, "generation": format_generation,
            "cuda": _cuda_lines, "peers": format_peers, "scale": format_scale, "remote": format_remote,
            "why": format_why, "backward": format_backward}


def format_report(result: dict) -> str:
    """Plain-text tables of a run_all result, with an explicit warning where a run was too noisy."""
    m = result["machine"]
    out = [f"tfdebug bench ({m.get('profile', 'default')}) — torch {m['torch']}, {m['torch_threads']} torch threads "
           f"on {m['cpu_count']} CPUs (load average {m['load_average'][0]} at the start)"]
    for key, lines in _section_lines().items():
        if result.get(key):
            out += lines(result[key])
    run = result.get("run") or {}
    if run:
        took = ", ".join(f"{name} {s:g} s (load {run['load_after_section'].get(name, '?')})"
                         for name, s in run["section_s"].items())
        out += ["", f"Run: {run['elapsed_s']:g} s of a {run['budget_s']:g} s budget; {took}"]
        out += [f"  skipped {name}: {why}" for name, why in run["skipped"].items()]
        out += [f"  {name}: A/A outside 0.95–1.05 twice (run again after one retry): its rows say machine too busy"
                for name in run.get("too_busy", [])]
    out += ["", "Targets"]
    out += _table(result["verdicts"], ["what", "value", "aa_ratio", "verdict"])
    busy = [v for v in result["verdicts"] if v["verdict"] == TOO_BUSY]
    if busy:
        out += ["", f"WARNING: {len(busy)} figure(s) came from a run whose A/A noise ratio is outside 0.95–1.05: the "
                    "machine was too busy for them to be trusted, so no pass/fail is stated for them. Rerun on a "
                    "quieter machine (or with --threads 1)."]
    elif not all(trustworthy(r["ratio_plain_again"]) for r in result.get("capture_overhead", [])):
        out += ["", "WARNING: a capture row's A/A ratio is outside 0.95–1.05: treat its figures as noisy."]
    return "\n".join(out)
