"""Markdown tables for the docs, made from bench JSON files (never typed by hand).

    python -m tfdebug.bench.tables docs/performance.md

rewrites every block of docs/performance.md between `<!-- bench:KEY FILE -->` and
`<!-- /bench:KEY -->` with the table of section KEY from the JSON file FILE (a path
relative to the document), so each figure in the page is one the JSON holds.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

BLOCK = re.compile(r"(<!-- bench:(?P<key>[a-z_]+) (?P<file>[^ ]+) -->\n)(?P<body>.*?)(<!-- /bench:(?P=key) -->)",
                   re.S)


def check_aa_held(result: dict, name: str) -> None:
    """ValueError for a bench run whose A/A did not hold (its `run.aa_held` is false): no table is made from it.
    Runs older than the flag carry none and are taken as they were published."""
    if (result.get("run") or {}).get("aa_held") is False:
        busy = ", ".join(result["run"].get("too_busy", [])) or "a section"
        raise ValueError(f"{name}: the run's A/A ratio stayed outside 0.95–1.05 in {busy} (machine too busy); "
                         "measure again on a quieter machine before regenerating the tables")


def _mb(n) -> str:
    return "–" if n is None else f"{n / 1e6:,.0f}"


def _x(r) -> str:
    return "–" if r is None else f"{r:.3f}×"


def _markdown(header: list[str], rows: list[list[str]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    return "\n".join(lines + ["| " + " | ".join(row) + " |" for row in rows]) + "\n"


def _load_line(result: dict) -> str:
    m = result["machine"]
    run = result.get("run", {})
    loads = ", ".join(f"{k} {v:g}" for k, v in run.get("load_after_section", {}).items())
    return (f"torch {m['torch']}, {m['torch_threads']} thread(s) on {m['cpu_count']} CPUs; load average "
            f"{m['load_average'][0]:g} at the start{f' (after each section: {loads})' if loads else ''}.\n\n")


def peers_table(result: dict) -> str:
    """The peers side by side at each length (ms, × own plain, × HF sdpa, tensors kept, MB held, page faults per
    pass), then, where measured, the length at which the peers' caches do not fit."""
    peers = result["peers"]
    parts = [_peers_run(run) for run in peers.get("runs", [peers])]  # a result older than the lengths: one run
    big = peers.get("too_large")
    if big:
        t = big["tfdebug"]
        rows = [[name, f"~{need / 1e9:,.0f} GB", "not run"] for name, need in big["needs"].items()]
        rows.append(["tfdebug (planned, default budget)", f"{t['held_bytes'] / 1e9:,.1f} GB every stage; "
                     f"{t['kept_bytes'] / 1e9:,.1f} GB kept under the {t['budget_bytes'] / 1e9:,.1f} GB budget",
                     f"keeps {t['kept']} of {t['stages']} stages ({t['recipes']} planes as recipes; "
                     f"{t['planes_kept_whole_bytes'] / 1e9:,.0f} GB had they been kept)"])
        parts.append(f"At {big['seq_len']:,} tokens ({(big['free_bytes'] or 0) / 1e9:.1f} GB free):\n\n"
                     + _markdown(["variant", "memory its capture needs", "outcome"], rows))
    return _load_line(result) + "\n".join(parts)


def _peers_run(peers: dict) -> str:
    rows = []
    for row in peers["rows"]:
        if row.get("status") != "ok":
            rows.append([row["variant"], row.get("version", "–"), row["status"], "", "", "", "", ""])
            continue
        faults = row.get("faults_per_pass")  # a run older than the column has none
        rows.append([row["variant"], row.get("version") or "–", f"{row['ms']:.1f}", _x(row["ratio_own_plain"]),
                     _x(row["ratio_hf_sdpa"]), str(row["tensors_kept"]), _mb(row["bytes_held"]),
                     "–" if faults is None else f"{faults:,}"])
    head = (f"{peers['config']} ({peers['n_heads']} heads, seq {peers['seq_len']}, vocab {peers['vocab_size']}), "
            f"float32, allocator {'opted in' if peers['allocator_tuned'] else 'untuned'}, {peers['repeats']} "
            f"interleaved repeats, A/A (HF eager timed twice) {peers['aa_ratio']:.3f}.\n\n")
    return head + _markdown(["variant", "version", "ms", "× own plain", "× HF sdpa", "tensors kept", "MB held",
                             "page faults per pass"], rows)


def session_table(result: dict) -> str:
    """What the user waits for in a session against the plain forward, and the check's own cost."""
    def cpu(r, key):  # the CPU-time ratio, in runs that measured it
        return f" (CPU {r[key]:.3f}×)" if key in r else ""

    rows = [[r["config"], "opted in" if r.get("allocator_tuned") else "untuned", r["plan"], f"{r['plain_ms']:.1f}", f"{r['session_capture_ms']:.1f}",
             _x(r["ratio_session_capture"]) + cpu(r, "cpu_ratio_session_capture"),
             f"{r['planned_session_capture_ms']:.1f}",
             _x(r["ratio_planned_session_capture"]) + cpu(r, "cpu_ratio_planned_session_capture"),
             f"{r['replanned_session_capture_ms']:.1f}" if "replanned_session_capture_ms" in r else "–",
             _x(r.get("ratio_replanned_session_capture")) + cpu(r, "cpu_ratio_replanned_session_capture"),
             f"{r['grown_session_capture_ms']:.1f}" if "grown_session_capture_ms" in r else "–",
             _x(r.get("ratio_grown_session_capture")) + cpu(r, "cpu_ratio_grown_session_capture"),
             f"{r['verify_in_background_ms']:.1f}", f"{r['planned_real_verified_inline_ms']:.1f}",
             _x(r["ratio_planned_real_verified_inline"]) + cpu(r, "cpu_ratio_planned_real_verified_inline"),
             f"{r['ratio_plain_again']:.3f}" + cpu(r, "cpu_ratio_plain_again")] for r in result["session"]]
    return _load_line(result) + _markdown(
        ["model", "allocator", "plans", "plain ms", "stages: session ms", "× plain", "window, first Run: plan + pass ms",
         "× plain", "window, plan reused: pass ms", "× plain", "window, new length: grown plan + pass ms", "× plain",
         "check ms (background)", "before: real plan + inline check ms", "before × plain", "A/A"], rows)


def capture_table(result: dict) -> str:
    """Capture overhead on the reference model, untuned and tuned."""
    rows = []
    for r in result["capture_overhead"]:
        tuned = r.get("tuned") or {}
        rows.append([r["config"], f"{r['plain_ms']:.1f}", _x(r["ratio_taps_only"]), _x(r["ratio_capture_all"]),
                     f"{r['ratio_plain_again']:.3f}", _x(tuned.get("ratio_capture_all")),
                     "–" if not tuned else f"{tuned['ratio_plain_again']:.3f}"])
    return _load_line(result) + _markdown(["model", "plain ms", "taps only", "capture all (untuned)", "A/A",
                                           "capture all (opted in)", "A/A (opted in)"], rows)


def levers_table(result: dict) -> str:
    """The levers against capture-all's cost: ratios to plain per process."""
    def kernel(r, name):  # the kernel's ms of CPU time per pass, in runs that measured it
        return "–" if f"kernel_{name}_ms" not in r else f"{r[f'kernel_{name}_ms']:.1f}"

    rows = [[r["config"], "opted in" if r["allocator_tuned"] else "untuned",
             {"fresh": "fresh", "this": "after the other sections"}.get(r.get("process"), "–"),
             _x(r["wall_ratio_capture_all"]),
             _x(r["cpu_ratio_capture_all"]), _x(r["wall_ratio_reused"]), _x(r["cpu_ratio_reused"]),
             f"{r['wall_ratio_plain_again']:.3f}", str(r["faults_plain"]), str(r["faults_capture_all"]),
             str(r["faults_reused"]), kernel(r, "plain"), kernel(r, "capture_all"), kernel(r, "reused")]
            for r in result["levers"]]
    return _load_line(result) + _markdown(["model", "allocator", "process", "capture all", "(CPU)", "reused buffers",
                                           "(CPU)", "A/A", "faults (plain)", "faults (capture all)",
                                           "faults (reused)", "kernel ms (plain)", "kernel ms (capture all)",
                                           "kernel ms (reused)"], rows)


def scale_table(result: dict) -> str:
    """Long prompts: per length, what tfdebug's capture-all holds and peaks at, against the planes kept whole
    and TransformerLens' run_with_cache (each row a child process; a variant above the cap states its need)."""
    scale = result["scale"]
    by = {(r["seq_len"], r["variant"]): r for r in scale["rows"]}

    def held(r) -> str:
        if r.get("status") == "ok" and "held_bytes" in r:
            return _mb(r["held_bytes"])
        if "need_bytes" in r and r.get("status", "").startswith("not run"):
            return f"not run: needs ~{r['need_bytes'] / 1e9:,.1f} GB"
        return r.get("status", "–")

    def peak(r) -> str:
        return _mb(r["peak_rss_bytes"]) if r.get("status") == "ok" and "peak_rss_bytes" in r else "–"

    rows = []
    for seq in dict.fromkeys(r["seq_len"] for r in scale["rows"]):
        t, m, tl, plain, w = (by.get((seq, v), {})
                              for v in ("tfdebug", "materialised", "transformer_lens", "plain", "window"))
        per_token = t.get("held_bytes_per_token")
        rows.append([f"{seq:,}", _mb(t.get("held_bytes")), "–" if per_token is None else f"{per_token / 1e3:,.1f}",
                     peak(t), held(m) if m else "–", _mb(t.get("plan_bytes")), held(tl) if tl else "–", peak(tl),
                     peak(plain), "–" if "show_one_head_ms" not in t else f"{t['show_one_head_ms']:,.0f}",
                     "–" if w.get("f10_painted_probs_ms") is None else f"{w['f10_painted_probs_ms']:,.0f}"])
    return (f"HF GPT-2 shape, {scale['n_layer']} layers × {scale['n_embd']}, {scale['n_heads']} heads, float32; "
            f"a variant needing more than {scale['cap_bytes'] / 2**30:.0f} GiB is not run. " + _load_line(result)
            + _markdown(["tokens", "tfdebug MB held", "kB per token", "tfdebug peak RSS MB",
                         "planes kept whole: MB held", "the plan's size had every plane been kept (MB)",
                         "TransformerLens MB held", "TransformerLens peak RSS MB", "plain forward peak RSS MB",
                         f"one head of a recipe plane → {scale['view'][0]}² tile (ms)",
                         "F10 → probabilities painted, one head, in the window (ms)"], rows))


TABLES = {"peers": peers_table, "session": session_table, "capture_overhead": capture_table,
          "levers": levers_table, "scale": scale_table}


def update_document(path: str | Path) -> str:
    """The document at `path` with every bench block regenerated from its JSON file."""
    path = Path(path)

    def block(match: re.Match) -> str:
        result = json.loads((path.parent / match["file"]).read_text(encoding="utf-8"))
        check_aa_held(result, match["file"])
        return match.group(1) + TABLES[match["key"]](result) + match.group(5)
    return BLOCK.sub(block, path.read_text(encoding="utf-8"))


if __name__ == "__main__":
    for doc in sys.argv[1:]:
        Path(doc).write_text(update_document(doc), encoding="utf-8")
