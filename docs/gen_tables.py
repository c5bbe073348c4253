"""Tables the docs show, generated from the JSON files measurements wrote: no figure is typed by hand.

A page asks for a table with a marker on a line of its own, `<!-- table: NAME -->`; the MkDocs
hook `on_page_markdown` (mkdocs.yml: `hooks: [docs/gen_tables.py]`) replaces it with the table
TABLES[NAME] builds from its JSON. An unknown name, or a JSON without the field a table reads,
fails the build. `python docs/gen_tables.py NAME` prints one table.

One marker is text, not a table: `readme-quick-start`, the README's install lines (docs/install.md).
Three tables are read from the source tree itself, not from a JSON, for docs/architecture.md: `house` (each
package's modules and lines), `ui-rooms` (each room of tfdebug/ui and each feature folder) and `seam-debt` (the
reads of where a pass is that tests/ui/test_seam_questions.py still allows, with why).

Sources: the `tfdebug bench --json` runs in docs/ (bench-cpu-2core.json, bench-generation-
cpu-2core.json, bench-latency-cpu-2core.json) and the training metrics the bundled models were
saved with (resources/demo/metrics.json, resources/tiny-gpt2/metrics.json).
"""

from __future__ import annotations

import json
import re
import sys
from functools import lru_cache
from pathlib import Path
from typing import Callable

DOCS = Path(__file__).resolve().parent
ROOT = DOCS.parent
MARKER = re.compile(r"^<!-- table: ([a-z0-9-]+) -->$", re.MULTILINE)


@lru_cache(maxsize=None)
def load(relative: str) -> dict:
    """The JSON at `relative` (to the repository root); ValueError for a bench run whose A/A did not hold
    (`run.aa_held` false: its figures are noise, no table is made from them)."""
    result = json.loads((ROOT / relative).read_text(encoding="utf-8"))
    if (result.get("run") or {}).get("aa_held") is False:
        raise ValueError(f"{relative}: the run's A/A ratio stayed outside 0.95–1.05 (machine too busy); measure "
                         "again before regenerating the tables")
    return result


def bench() -> dict:
    return load("docs/bench-cpu-2core.json")


def table(header: list[str], rows: list[list[object]]) -> str:
    """A Markdown table."""
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(str(cell) for cell in row) + " |" for row in rows]
    return "\n".join(lines)


def ms(value: float | None, digits: int = 1) -> str:
    return "—" if value is None else f"{value:,.{digits}f}"


def ratio(value: float | None) -> str:
    return "—" if value is None else f"{value:.2f}"


def pct(value: float) -> str:
    return f"{100 * value:.1f}%"


def machine(relative: str) -> str:
    """One sentence: where and how the JSON at `relative` was measured."""
    m = load(relative)["machine"]
    load_avg = m["load_average"]
    load_text = load_avg if isinstance(load_avg, str) else " / ".join(f"{x:.1f}" for x in load_avg)
    torch = f", torch {m['torch']}" if "torch" in m else ""
    return (f"`{relative}`: {m['cpu_count']} CPUs, {m['torch_threads']} torch thread(s){torch}, "
            f"load average {load_text}.")


def capture_overhead() -> str:
    rows = []
    for r in bench()["capture_overhead"]:
        tuned = r.get("tuned") or {}
        rows.append([f"{r['config']} ({r['n_layer']}+{r['n_layer']} layers, {r['n_embd']}, seq {r['seq_len']})",
                     f"{ms(r['plain_ms'])} ({ms(r['plain_ms'] / (2 * r['n_layer']))})", ms(r["taps_only_ms"]),
                     ms(r["capture_all_ms"]), ratio(r["ratio_taps_only"]), ratio(r["ratio_capture_all"]),
                     ratio(r["ratio_plain_again"]), ratio(tuned.get("ratio_capture_all")),
                     ratio(tuned.get("ratio_plain_again"))])
    return table(["config", "plain ms (per layer)", "taps only", "capture all", "×taps", "×all untuned", "A/A",
                  "×all tuned", "A/A tuned"], rows)


def peers() -> str:
    rows = []
    for r in bench()["capture_overhead"]:
        for p in r.get("peers", []):
            if p.get("status") != "ok":
                rows.append([r["config"], p["peer"], p.get("status", "—"), "—", "—", "—"])
                continue
            rows.append([r["config"], f"{p['peer']} {p['version']}, `{p['api']}`", p["layers"],
                         f"{ms(p['plain_ms'])} ({ms(p['plain_ms_per_layer'])})",
                         f"{ms(p['hooked_ms'])} ({ms(p['hooked_ms_per_layer'])})", ratio(p["ratio"])])
    return table(["config", "peer, version, API", "layers", "plain ms (per layer)", "hooked ms (per layer)",
                  "×hooked"], rows)


def latency_row(r: dict) -> list[object]:
    return [f"{r['size']}²" + (f", {r['source']}" if "source" in r else ""), f"{ms(r['painted_median'])} ({ms(r['painted_p95'])})",
            f"{ms(r['settled_median'])} ({ms(r['settled_p95'])})", ratio(r["aa_ratio"]),
            ratio(r.get("aa_ratio_settled"))]


LATENCY_HEADER = ["slice", "to painted heatmap, median (p95) ms", "all panels settled, median (p95) ms",
                  "A/A painted", "A/A settled"]


def step_latency_idle() -> str:
    runs = load("docs/bench-latency-cpu-2core.json")["step_latency_ms_runs"]
    rows = [[f"run {i}", *latency_row(r)] for i, run in enumerate(runs, 1) for r in run]
    return table(["run", *LATENCY_HEADER], rows)


def step_latency_busy() -> str:
    return table(LATENCY_HEADER, [latency_row(r) for r in bench()["step_latency_ms"]])


def heartbeat() -> str:
    h = load("docs/bench-latency-cpu-2core.json")["heartbeat_ms"]
    gaps, work = h["largest_gap"], h["gui_thread_work"]
    suite = h["in_the_full_suite"]
    return table(["", "runs", "largest gap between beats (ms)", "GUI thread's own work (ms)"],
                 [["fresh processes", len(gaps), f"{min(gaps)}–{max(gaps)} (median {sorted(gaps)[len(gaps) // 2]})",
                   f"{min(work)}–{max(work)}"],
                  ["in the full suite", 1, suite["largest_gap"], suite["gui_thread_work"]]])


def step_latency_replay() -> str:
    """Before and after the neighbouring stages were prepared ahead: the same probe on both trees, interleaved."""
    d = load("docs/bench-latency-cpu-2core.json")["replay_latency"]
    rows = [[r["round"], r["tree"], f"{r['size']}², {r['source']}", r["steps"],
             f"{ms(r['painted_median'])} ({ms(r['painted_p95'])})", f"{ms(r['settled_median'])} ({ms(r['settled_p95'])})",
             r["load_after"]] for r in d["runs"]]
    return table(["round", "tree", "slice, source", "steps", "to painted heatmap, median (p95) ms",
                  "all panels settled, median (p95) ms", "load after"], rows)


def step_latency_steady() -> str:
    """The session's start against its end (a step lays nothing out again), interleaved, each run's load."""
    d = load("docs/bench-latency-steady-cpu-2core.json")
    rows = [[run["round"], run["tree"], run["machine"]["load_average"][0], f"{r['size']}², {r['source']}",
             ms(r["painted_median"]), ms(r["settled_median"]), ms(r["gui_cpu_median"]), ratio(r["aa_ratio"])]
            for run in d["runs"] for r in run["rows"] if r["source"] == "user path" or r["size"] == 1024]
    return table(["round", "tree", "load at start", "slice, source", "painted, median ms", "settled, median ms",
                  "GUI thread CPU per step, median ms", "A/A painted"], rows)


def step_latency_pixels() -> str:
    """The user path at 1024² before and after the heatmap was painted from 32-bit pixels and the neighbours were
    prepared after the step's paint: fresh processes, interleaved, each run's load."""
    d = load("docs/bench-latency-pixels-cpu-2core.json")
    rows = [[r["round"], r["tree"], f"{r['load'][0]:.1f}–{r['load'][1]:.1f}", ms(r["painted_median"]),
             f"{ms(r['settled_median'])} ({ms(r['settled_min'])}–{ms(r['settled_max'])})", ms(r["settled_p95"]),
             ms(r["gui_cpu_median"])] for r in d["runs"]]
    return table(["round", "tree", "load (start–end)", "painted, median ms", "settled, median (min–max) ms",
                  "settled, p95 ms", "GUI thread CPU per step, median ms"], rows)


def step_latency_alternating() -> str:
    """The same change measured in one process whose 10-step cycles alternate between the old behaviour and the new."""
    d = load("docs/bench-latency-pixels-cpu-2core.json")
    rows = [[i, f"{r['load'][0]:.1f}–{r['load'][1]:.1f}", tree, r[tree]["n"], ms(r[tree]["painted"]),
             ms(r[tree]["settled"]), ms(r[tree]["settled_p90"]), ms(r[tree]["gui_cpu"])]
            for i, r in enumerate(d["alternating"], 1) for tree in ("old", "new")]
    return table(["run", "load (start–end)", "behaviour", "steps", "painted, median ms", "settled, median ms",
                  "settled, p90 ms", "GUI thread CPU per step, median ms"], rows)


def plan_peak() -> str:
    """`tfdebug capture` at 2,048, 8,192 and 32,768 tokens on the 135M shape: its parts' time against the plain
    forward (eager does not fit at 32,768 tokens: "–")."""
    def ratio(r, key):
        return f"{r[key]:.2f}×" if key in r else "–"

    rows = []
    for n in (2048, 8192, 32768):
        path = Path(f"docs/bench-plan-peak-{n}-cpu-2core.json")
        for r in load(str(path))["rows"] if (ROOT / path).exists() else []:
            eager = f"{r['plain_eager_s']:.1f} s (A/A {r['plain_aa']:.2f})" if "plain_eager_s" in r else "does not fit"
            cold = (f"{r['cold_eager_s']:.1f} s eager (A/A {r['cold_aa']:.2f}): {r['capture_over_cold_eager']:.2f}×"
                    if "cold_eager_s" in r else f"{r['cold_sdpa_s']:.1f} s sdpa: {r['capture_over_cold_sdpa']:.2f}×"
                    if "cold_sdpa_s" in r else "not measured")
            rows.append([f"{r['seq_len']:,}", f"{r['pass_s']:.1f} s", f"{r['check_s']:.1f} s" if r["check_s"] else
                         "in the pass", eager, f"{r['plain_sdpa_s']:.1f} s",
                         f"{ratio(r, 'capture_over_eager')} / {ratio(r, 'capture_over_sdpa')}",
                         f"{r['never_s']:.1f} s: {r['never_over_eager']:.2f}× / {r['never_over_sdpa']:.2f}×"
                         if "never_over_eager" in r else "not measured",
                         f"{ratio(r, 'checked_over_eager')} / {ratio(r, 'checked_over_sdpa')}" if r["check_s"] else "–",
                         f"{r['in_pass_s']:.1f} s: {r['in_pass_over_eager']:.2f}× / {r['in_pass_over_sdpa']:.2f}×"
                         if "in_pass_over_eager" in r else "not measured", cold,
                         f"{r['stated_peak_bytes'] / 1e9:.2f} GB", f"{r['peak_rss_bytes'] / 1e9:.2f} GB", reached(r)])
    return table(["tokens", "capture (the pass)", "the check", "plain forward, eager", "plain forward, sdpa",
                  "capture ÷ plain (eager / sdpa)",
                  "the pass again, interleaved with the plain forwards (--verify never) ÷ plain (eager / sdpa)",
                  "with the check ÷ plain (eager / sdpa)",
                  "with the check in the pass (--verify attention) ÷ plain (eager / sdpa)",
                  "plain forward in a fresh process of its own: capture ÷ it", "stated peak", "measured peak",
                  "the snapshot opened: attention stages; one head shown; the window's work on the last"], rows)


def reached(r: dict) -> str:
    """A plan-peak row's snapshot as `tfdebug open` reads it back: how many layers' attention opened, one head of
    the last shown at 1024², and the window's whole work on that stage (picture, thumbnails, stats, checks)."""
    if "attention_opened" not in r:
        return "not measured"
    layers = f" (the model has {r['model_layers']} layers)" if "model_layers" in r else ""
    said = f"{r['attention_opened']} of {r['attention_stages']}{layers}; {r['show_one_head_ms'] / 1000:.1f} s"
    if "window_stage_s" in r:
        said += (f"; {r['window_stage_s']:.1f} s, {r['window_stage_peak_bytes'] / 1e9:.2f} GB above the process, "
                 f"checks {r['window_stage_checks_passed']} passed")
    return said


def heartbeat_before_after() -> str:
    """tests/ui/test_heartbeat.py on both trees, interleaved, with the load each run saw."""
    d = load("docs/bench-latency-cpu-2core.json")["heartbeat_before_after"]
    rows = [[r["round"], r["tree"], r["largest_gap"], r["gui_thread_work"], r["load"]] for r in d["runs"]]
    return table(["round", "tree", "largest gap (ms)", "GUI thread's own work (ms)", "load"], rows)


def startup() -> str:
    """`tfdebug bench --section startup`: seconds from a fresh process's start to each phase of the window's start."""
    d = load("docs/bench-latency-cpu-2core.json")["startup"]
    names = {"interpreter": "Python running", "torch": "torch imported", "pyside6": "PySide6 imported",
             "pyqtgraph": "pyqtgraph imported", "tfdebug_ui": "the window's modules imported",
             "window_shown": "window shown", "painted": "first stage painted"}
    order = sorted(names, key=lambda phase: d["median_after_first"][phase])  # as they happened in that run
    rows = [[names[phase], f"{d['first'][phase]:.2f}", f"{d['median_after_first'][phase]:.2f}"] for phase in order]
    return (table(["phase", "first run (s)", "median of the rest (s)"], rows)
            + f"\n\n{d['model']} model, {len(d['runs'])} fresh processes one after another; load after each: "
              + ", ".join(f"{x:g}" for x in d["load_after_each"]) + f"; measured {d['date']}"
              + (", when the window's modules still imported torch before it was shown." if d.get("torch_at_show", True)
                 else "."))


def startup_commands() -> str:
    """The commands that only read files, each from a fresh process's start to its exit."""
    d = load("docs/bench-latency-cpu-2core.json")["startup"]["commands"]
    rows = [[f"`tfdebug {' '.join(r['args'])}`", f"{r['median_s']:.3f}", f"{r['max_s']:.3f}",
             ", ".join(r["imported"]) or "neither torch nor Qt"] for r in d.values()]
    first = next(iter(d.values()))
    return (table(["command", "median (s)", "max (s)", "imported"], rows)
            + f"\n\n`{{snapshot}}`: a {first['snapshot_bytes'] / 1e3:.0f} kB snapshot of the `random` model; "
              f"{first['runs']} runs each.")


def host_syncs() -> str:
    s, budgets = bench()["host_syncs"], bench()["sync_budgets"]
    rows = [["one captured forward (the model's own input check)", s["captured_forward"],
             budgets.get("captured_forward", "—")],
            ["Continue to the end, every condition breakpoint, fast check", s["conditions_fast"],
             budgets.get("conditions_fast", "—")],
            [f"the same, exact check ({s['stages']} stages)", s["conditions_exact"],
             "≤ 1 per stage"],
            ["one display step: slice with its stats, then whole-tensor stats", s["display_step"],
             budgets.get("display_step", "—")],
            ["every head's thumbnail", s["heads"], budgets.get("heads", "—")]]
    return table(["what", "host syncs", "budget"], rows)


def memory_and_snapshots() -> str:
    m, s = bench()["memory"], bench()["snapshots"]
    mb = 1e6
    return table(["measure", "result"], [
        [f"bytes held by a {m['config']} capture ({m['stages']} stages)",
         f"{m['held_bytes'] / mb:.1f} MB held = {m['distinct_stage_bytes'] / mb:.1f} MB of distinct stages "
         f"({m['stage_bytes'] / mb:.1f} MB counting views twice): ratio {m['ratio_held_to_distinct']:.2f}"],
        ["RSS kept after that capture is dropped (untuned process)",
         f"{m['kept_after_drop_bytes'] / mb:.1f} MB; {m['kept_after_release_bytes'] / mb:.1f} MB after "
         "`release_freed_memory()`"],
        [f"snapshot save, {s['bytes'] / mb:.0f} MB, {s['stages']} tensors (atomic, fsynced)",
         f"{s['save_s']:.2f} s vs `save_file` {s['save_file_s']:.2f} s (throughput ×{s['ratio_save_throughput']:.2f}), "
         f"vs `save_file` + fsync ×{s['ratio_save_throughput_durable']:.2f} (A/A {s['aa_ratio']:.2f})"],
        [f"open a {s['file_bytes'] / mb:.0f} MB snapshot and read one stage",
         f"{1000 * s['open_one_stage_s']:.0f} ms vs `safe_open` {1000 * s['safe_open_one_stage_s']:.1f} ms"]])


def verdicts() -> str:
    rows = [[v["what"], v["value"], ratio(v["aa_ratio"]), v["verdict"]] for v in bench()["verdicts"]]
    return table(["measure and target", "value", "A/A", "the bench's verdict"], rows)


def generation() -> str:
    rows = [[r["prompt"], ms(r["no_cache_ms"]), ms(r["cache_ms"]), f"{r['speedup_cache']:.1f}×",
             ms(r["capture_all_ms"]), f"+{ms(r['capture_overhead_ms'])}", ratio(r["ratio_capture_all"]),
             ratio(r["aa_ratio"])]
            for r in load("docs/bench-generation-cpu-2core.json")["generation"]]
    return table(["prompt L", "no cache (ms/token)", "KV cache (ms/token)", "speed-up", "capture all (ms/token)",
                  "capture cost (ms/token)", "×capture", "A/A"], rows)


def demo_accuracy() -> str:
    d = load("resources/demo/metrics.json")
    return table(["set", "pairs", "exact match", "token accuracy"], [
        ["training (every 9th pair)", f"{d['train_exact_match_sample']:,}", pct(d["train_exact_match"]), "—"],
        ["template held out", f"{d['held_out_pairs']:,}", pct(d["held_out_exact_match"]),
         pct(d["held_out_token_accuracy"])],
        *[[label, d[key]["pairs"], pct(d[key]["exact_match"]), pct(d[key]["token_accuracy"])]
          for label, key in (("hand-written held out", "heldout_handwritten"),
                             ("hand-written learner's (issue 52)", "learner_handwritten"),
                             ("hand-written dev", "dev_handwritten"))]])


def demo_misses() -> str:
    d = load("resources/demo/metrics.json")
    misses = d["heldout_handwritten"]["misses"] + d["learner_handwritten"]["misses"]
    return "\n".join(f"- \"{m['en']}\" → {m['got']} (expected {m['expected']})" for m in misses)


def demo_training() -> str:
    d = load("resources/demo/metrics.json")
    c = d["config"]
    return table(["pairs (train / held out)", "parameters", "steps", "epochs", "batch", "CPU time", "wall time",
                  "final loss"],
                 [[f"{d['train_pairs']:,} / {d['held_out_pairs']:,}", f"{d['parameters']:,}", f"{d['steps']:,}",
                   c["epochs"], c["batch_size"], f"{d['train_cpu_seconds']:.0f} s", f"{d['train_seconds']:.0f} s",
                   d["final_loss"]]])


def tiny_gpt2() -> str:
    d = load("resources/tiny-gpt2/metrics.json")
    rows = [[label, d[key]["pairs"], f"{round(d[key]['exact_match'] * d[key]['pairs'])} ({pct(d[key]['exact_match'])})",
             pct(d[key]["token_accuracy"])] for label, key in (("held out", "held_out"), ("training sample", "training_sample"))]
    return (table(["set", "pairs", "Chinese after `=` exact", "next-token accuracy"], rows)
            + f"\n\n{d['parameters']:,} parameters, {d['steps']:,} steps, {d['train_seconds']:.0f} s of training, "
              f"final loss {d['final_loss']:.3f}.")


def _remote() -> dict:
    return load("docs/bench-remote-cpu-2core.json")["remote"]


def remote_steps() -> str:
    """Bytes and ms per step to the shown slice in hand, local vs served on loopback."""
    return table(["stage", "bytes per step", "stage bytes", "local ms", "remote ms", "added ms", "remote / local"],
                 [[f"{r['size']}²", f"{r['bytes_per_step']:,}", f"{r['stage_bytes']:,}", ms(r["local_ms"]),
                   ms(r["remote_ms"]), ms(r["added_ms"]), ratio(r["ratio"])] for r in _remote()["rows"]])


def remote_painted() -> str:
    """F10 to the painted heatmap in the window, the same pass local and served by a process on loopback."""
    return table(["stage", "local ms", "remote ms", "remote p95", "added ms", "remote / local", "A/A local",
                  "A/A remote"],
                 [[f"{r['size']}²", ms(r["local_painted_ms"]), ms(r["remote_painted_ms"]),
                   ms(r["remote_painted_p95"]), ms(r["added_painted_ms"]), ratio(r["painted_ratio"]),
                   ratio(r["aa_ratio_local"]), ratio(r["aa_ratio"])] for r in _remote()["painted"]])


REAL_SIZE_WINDOW = "docs/bench-real-size-window-cpu-2core.json"
WHY = "docs/bench-why-cpu-2core.json"
BACKWARD = "docs/bench-backward-cpu-2core.json"


def why_bench() -> str:
    """`tfdebug bench --full --section why` beside TransformerLens: each row's median and ratio to the plain
    forward of the same tokens in the same run."""
    d = load(WHY)["why"]
    names = {"capture_all_stages": "capture (every stage)", "lens_screen": "lens, one screen",
             "attribution": "attribution, one position", "sweep": "residual sweep, per cell"}
    peers = {r["row"]: r for r in d.get("transformer_lens", {}).get("rows", [])}

    def figure(r: dict | None) -> tuple[str, str]:
        if r is None:
            return "—", "—"
        if "forwards" in r:
            spread = f" of {r['grid']:,}" if r.get("grid", r["forwards"]) != r["forwards"] else ""
            batched = f", {r['batches']} forwards of {r['batch']}" if "batches" in r else ", one forward each"
            return f"{ms(r['per_forward_ms'])} ms ({r['forwards']:,} cells{spread}{batched})", f"{r['ratio']:.2f}×"
        cells = f" ({r['cells']:,} cells)" if "cells" in r else ""
        return f"{ms(r['median_ms'])} ms{cells}", f"{r['ratio']:.2f}×"
    rows = []
    for r in d["rows"]:
        ours, theirs = figure(r), figure(peers.get(r["row"]))
        rows.append([names.get(r["row"], r["row"]), f"{r['tokens']:,}", *ours, *theirs,
                     f"{ms(r['plain_forward_ms'])} ms (A/A {r['plain_aa_ratio']:.2f})"])
    version = d.get("transformer_lens", {}).get("version", "not installed")
    return table(["row", "tokens", "tfdebug", "÷ plain", f"TransformerLens {version}", "÷ plain", "plain forward"],
                 rows)


def backward_bench() -> str:
    """`tfdebug bench --section backward`: the captured backward against plain `loss.backward()`, time and peak."""
    d = load(BACKWARD)["backward"]
    peaks = {(r["seq_len"], r["variant"]): r for r in d["peaks"] if r.get("status") == "ok"}
    rows = []
    for r in d["rows"]:
        plain, ours = peaks.get((r["seq_len"], "plain")), peaks.get((r["seq_len"], "tfdebug"))
        peak = "—" if plain is None or ours is None else (
            f"{ours['peak_above_before_bytes'] / 2**20:,.0f} / {plain['peak_above_before_bytes'] / 2**20:,.0f} MiB "
            f"({ours['peak_ratio']:.2f}×; stated {ours['stated_peak_bytes'] / 2**20:,.0f} MiB)")
        rows.append([f"{r['seq_len']:,}", f"{ms(r['plain_ms'])} ms", f"{ms(r['tfdebug_ms'])} ms",
                     f"{r['ratio']:.3f}×", f"{r['aa_ratio']:.3f}", r["planes"], peak])
    return table(["tokens", "plain loss.backward()", "every stage's gradient", "÷ plain", "plain A/A",
                  "saved planes", "peak above before, tfdebug / plain"], rows)


def real_size() -> str:
    """The Llama-3.2-1B-shaped model headless (`bench --real-size`): build, load, plan, pass, memory."""
    whole = load("docs/bench-real-size-cpu-2core.json")
    d = whole["real_size"]
    rows = [["build on meta + random bf16 weights", f"{d['build_s']:.1f} s, {d['rss_after_build_bytes'] / 1e9:.1f} GB RSS"],
            ["save as a folder", f"{d['save_s']:.1f} s"],
            ["load `hf:FOLDER --dtype bfloat16`", f"{d['load_s']:.1f} s"],
            ["time to the first stage", f"{d['first_stage_s']:.2f} s ({d['plan_s']:.2f} s of it planning on the meta "
                                        f"device) = {d['first_stage_s'] / d['plain_forward_s']:.2f}× the plain forward"],
            ["rest of the stepped pass", f"{d['rest_of_pass_s']:.2f} s"],
            ["plain forward (unmodified model)", f"{d['plain_forward_s']:.2f} s"],
            ["stages; captured / sum of stage sizes", f"{d['stages']}; {d['captured_bytes'] / 1e6:.0f} MB / "
                                                      f"{d['stage_bytes'] / 1e6:.0f} MB (budget "
                                                      f"{d['budget_bytes'] / 1e9:.1f} GB: {d['dropped']} dropped)"],
            ["peak RSS", f"{d['peak_rss_bytes'] / 1e9:.2f} GB = {pct(d['peak_rss_share_of_ram'])} of "
                         f"{d['ram_bytes'] / 1e9:.1f} GB RAM (bound 40%)"]]
    return f"{d['seq_len']} tokens, {d['threads']} torch threads; {whole['machine']} ({whole['date']}).\n\n" + \
        table(["row", "figure"], rows)


def real_size_window() -> str:
    """The Llama-3.2-1B-shaped model opened and stepped in the window (`bench --real-size --in-window`)."""
    d = load(REAL_SIZE_WINDOW)["real_size_window"]
    w = d["window"]
    painted = sorted(step["painted_ms"] for step in w["steps"])
    rows = [["build on meta + random bf16 weights; save as a folder", f"{d['build_s']:.1f} s; {d['save_s']:.1f} s"],
            ["Run → the pass on screen (load `hf:FOLDER` in bfloat16, plan)", f"{w['run_to_pass_on_screen_s']:.1f} s"],
            [f"Run → first stage painted (`{w['first_stage']}`)", f"{w['run_to_first_stage_painted_s']:.1f} s"],
            [f"F10 → painted heatmap, median / max of {len(painted)}",
             f"{ms(painted[len(painted) // 2], 0)} / {ms(painted[-1], 0)} ms"]]
    rows += [[f"· F10 to `{step['stage']}`", f"{ms(step['painted_ms'], 0)} ms painted, "
                                              f"{ms(step['settled_ms'], 0)} ms every panel settled"]
             for step in w["steps"]]
    rows.append(["peak RSS", f"{d['peak_rss_bytes'] / 1e9:.2f} GB = {pct(d['peak_rss_share_of_ram'])} of "
                             f"{d['ram_bytes'] / 1e9:.1f} GB RAM (bound 40%)"])
    return table(["row", "figure"], rows)


REAL_SIZE_PASS = "docs/bench-real-size-pass-cpu-2core.json"


def real_size_pass() -> str:
    """The Llama-3.2-1B-shaped model stepped to its end in the window (`bench --real-size --in-window --whole-pass`)."""
    d = load(REAL_SIZE_PASS)["real_size_pass"]
    gb = 1e9
    kept = d["weights_bytes"] + d["kept_bytes"]
    slowest = d["slowest_steps"][-1]
    rows = [["Run → first stage painted", f"{d['first_stage_painted_s']:.1f} s"],
            ["stages reached by F10, of the plan's", f"{d['reached']} of {d['stages']}"
                                                     + (" (every one, in order)" if d["every_stage_reached_by_f10"] else "")],
            ["F10 through the whole pass", f"{d['stepped_pass_s']:.0f} s; the slowest step {ms(slowest['painted_ms'], 0)} ms "
                                           f"(`{slowest['stage']}`)"],
            ["capture budget (the window's default) / kept at the end",
             f"{d['budget_bytes'] / gb:.2f} GB / {d['kept_bytes'] / gb:.2f} GB in {d['kept_stages']} stages "
             f"({d['recipe_stages']} planes as recipes; {d['dropped']} dropped)"],
            ["weights", f"{d['weights_bytes'] / gb:.2f} GB"],
            ["RSS when the pass ended", f"{d['rss_after_pass_bytes'] / gb:.2f} GB = "
                                       f"{d['rss_after_pass_bytes'] / kept:.2f}× (weights + kept)"],
            ["the check against the unmodified model", f"{d['verify_s']:.0f} s, "
                                                        + ("verified" if d["verified"] else str(d["verified"]))],
            ["peak RSS (the check included)", f"{d['peak_rss_bytes'] / gb:.2f} GB = {d['peak_over_weights_and_kept']:.2f}× "
                                              f"(weights + kept) = {pct(d['peak_rss_share_of_ram'])} of "
                                              f"{d['ram_bytes'] / gb:.1f} GB RAM"],
            ["peak the plan stated", f"{d['stated_peak_bytes'] / gb:.2f} GB "
                                     + ("(held)" if d["stated_peak_bytes"] >= d["peak_rss_bytes"] else
                                        f"(under the measured peak by {(d['peak_rss_bytes'] - d['stated_peak_bytes']) / gb:.2f} GB)")]]
    return f"{d['seq_len']:,} tokens, {d['dtype']}, {d['threads']} torch threads.\n\n" + table(["row", "figure"], rows)


def readme_section(title: str) -> str:
    """The README's section `## {title}` (its lines up to the next `## `), without its heading: the install lines
    have one source, the README, and the site's install page shows them as they are there."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    start = text.index(f"\n## {title}\n") + len(f"\n## {title}\n")
    end = text.find("\n## ", start)
    return text[start:end if end >= 0 else len(text)].strip()


def _modules(folder: Path) -> list[Path]:
    return sorted(folder.rglob("*.py")) if folder.is_dir() else [folder]


def _size(paths: list[Path]) -> tuple[int, int]:
    """(modules, lines) of `paths`."""
    return len(paths), sum(len(p.read_text(encoding="utf-8").splitlines()) for p in paths)


def house() -> str:
    """Each package of tfdebug/ with its modules and lines, counted from the source tree."""
    package = ROOT / "tfdebug"
    rows = []
    for folder in sorted(p for p in package.iterdir() if p.is_dir() and (p / "__init__.py").is_file()):
        modules, lines = _size(_modules(folder))
        rows.append([f"`{folder.name}`", modules, f"{lines:,}"])
    modules, lines = _size(sorted(package.glob("*.py")))
    rows.append(["top level (`cli.py` …)", modules, f"{lines:,}"])
    return table(["package", "modules", "lines"], rows)


def ui_rooms() -> str:
    """Each room of tfdebug/ui, and each feature folder, with its modules and lines."""
    ui = ROOT / "tfdebug" / "ui"
    rows = []
    for folder in sorted(p for p in ui.iterdir() if p.is_dir() and (p / "__init__.py").is_file()):
        if folder.name == "features":
            for feature in sorted(p for p in folder.iterdir() if (p / "__init__.py").is_file()):
                modules, lines = _size(_modules(feature))
                rows.append([f"`features/{feature.name}`", modules, f"{lines:,}"])
            continue
        modules, lines = _size(_modules(folder))
        rows.append([f"`{folder.name}`", modules, f"{lines:,}"])
    return table(["room", "modules", "lines"], rows)


def seam_debt() -> str:
    """The lines of tfdebug/ui that still read `tensors_here` / `passes_there` outside an action's enablement, each
    with its reason: the seam test's `WHERE_ALLOWED`, read from the test itself (the one list)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("seam_questions", ROOT / "tests" / "ui" / "test_seam_questions.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    rows = [[f"`{name}`", why] for (name, _line), why in module.WHERE_ALLOWED.items()]
    return table(["file (tfdebug/ui)", "why it still reads where the pass is"], rows)


TABLES: dict[str, Callable[[], str]] = {
    "readme-quick-start": lambda: readme_section("Quick start"),
    "house": house,
    "ui-rooms": ui_rooms,
    "seam-debt": seam_debt,
    "machine-remote": lambda: machine("docs/bench-remote-cpu-2core.json"),
    "remote-steps": remote_steps,
    "remote-painted": remote_painted,
    "machine-bench": lambda: machine("docs/bench-cpu-2core.json"),
    "machine-latency": lambda: machine("docs/bench-latency-cpu-2core.json"),
    "machine-generation": lambda: machine("docs/bench-generation-cpu-2core.json"),
    "capture-overhead": capture_overhead,
    "peers": peers,
    "step-latency-idle": step_latency_idle,
    "step-latency-busy": step_latency_busy,
    "heartbeat": heartbeat,
    "step-latency-replay": step_latency_replay,
    "step-latency-steady": step_latency_steady,
    "step-latency-pixels": step_latency_pixels,
    "step-latency-alternating": step_latency_alternating,
    "plan-peak": plan_peak,
    "heartbeat-before-after": heartbeat_before_after,
    "startup": startup,
    "host-syncs": host_syncs,
    "memory-snapshots": memory_and_snapshots,
    "verdicts": verdicts,
    "generation": generation,
    "demo-accuracy": demo_accuracy,
    "demo-misses": demo_misses,
    "demo-training": demo_training,
    "tiny-gpt2": tiny_gpt2,
    "machine-real-size-window": lambda: machine(REAL_SIZE_WINDOW),
    "real-size-window": real_size_window,
    "machine-real-size-pass": lambda: machine(REAL_SIZE_PASS),
    "real-size-pass": real_size_pass,
    "real-size": real_size,
    "startup-commands": startup_commands,
    "machine-why": lambda: machine(WHY),
    "why-bench": why_bench,
    "machine-backward": lambda: machine(BACKWARD),
    "backward-bench": backward_bench,
}


def fill(markdown: str) -> str:
    """`markdown` with every table marker replaced by its table (KeyError for an unknown name)."""
    return MARKER.sub(lambda m: TABLES[m.group(1)](), markdown)


def on_page_markdown(markdown: str, page, config, files) -> str:  # noqa: ARG001 (MkDocs' hook signature)
    return fill(markdown)


if __name__ == "__main__":
    for name in sys.argv[1:] or TABLES:
        print(f"<!-- {name} -->\n{TABLES[name]()}\n")
