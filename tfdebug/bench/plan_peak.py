"""The plan's stated peak against the process's measured one (`tfdebug bench --scale`; issue 54 item 1).

`tfdebug capture` states, before the pass, the peak memory it will reach (`sessions.peak`): the process before
it (model included), the stages kept, the stages in flight and the check against the model. This row runs
that very command in a fresh process on a random Llama of a real model's shape (SmolLM-135M's: 30 layers, 576
wide, 9/3 heads, a 49,152-word vocabulary; float32, eager attention), saved as a Hugging Face folder and
loaded as `hf:FOLDER`, with the default budget; and measures the process's whole peak RSS (`ru_maxrss`, after
the kernel's high-water mark is set to the RSS once the folder is written), sampling the RSS every 20 ms with
the part of the command running (the pass, the check, the write) to say where the high-water mark was reached.
Stated ≥ measured is the promise.

The same row times the command's parts (the pass, the check) and, once the peak is read, the plain forward of the
same model on the same token ids in the same process, twice in eager attention (the capture computes attention as
eager does; the two runs' ratio is the A/A) and twice in sdpa (transformers' default), each round followed by the
command again in this process: with `--verify never` (the pass alone) and, where the first run checked with a second
forward, with `--verify attention` (the check made in the pass, `adapters.hf.inpass`: its pass includes it). The
capture with and without the check ÷ each plain forward: the fresh process's first pass as a user's command runs
it, and the same pass again interleaved with the plain forwards, so that a drift in the machine's speed touches
both sides.
"""

from __future__ import annotations

import gc
import json
import os
import shutil
import tempfile
import threading
import time
from pathlib import Path
from typing import Callable

from tfdebug.bench.backward_real import SHAPES as REAL_SHAPES

# shape -> the Llama config's sizes; "ci": a few small layers and a large vocabulary, so that what is in flight
# at the end of the pass (the logits, the check's comparison of them) dominates, at a size a test affords
SHAPES = {"smol135m": REAL_SHAPES["smol135m"],
          "ci": {"num_hidden_layers": 2, "hidden_size": 64, "num_attention_heads": 4, "num_key_value_heads": 2,
                 "intermediate_size": 128, "vocab_size": 65_536, "head_dim": 16}}
LENGTHS = {"tiny": (512,), "quick": (2048,), "default": (2048, 8192), "full": (2048, 8192, 32768)}
SAMPLE_S = 0.02


#: a folder to leave each capture's snapshot and model in
KEEP_ENV = "TFDEBUG_PLAN_PEAK_KEEP"


def _rss() -> int:
    with open("/proc/self/statm", encoding="ascii") as statm:
        return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def _save(shape: str, seq_len: int, folder: Path) -> None:
    """The random model of `shape` and a word-level tokenizer, saved as a Hugging Face folder."""
    import torch

    from tfdebug.bench.real_size import LLAMA_1B, _tokenizer, build_random

    model = build_random(dict(LLAMA_1B, **SHAPES[shape], max_position_embeddings=max(2048, seq_len)), torch.float32)
    model.save_pretrained(str(folder))
    _tokenizer().save(str(folder / "tokenizer.json"))


class _Phases:
    """The part of `tfdebug capture` running now, and the RSS sampled with it every `SAMPLE_S` seconds: the
    command's own functions are wrapped for this process only (a bench child)."""

    def __init__(self):
        self.now, self.highest, self.at, self.stated = "load", {}, (0.0, 0, "load"), None
        self.seconds: dict[str, float] = {}  # each part's time (the last of a name counts)
        self.start, self._stop = time.perf_counter(), threading.Event()
        self._thread = threading.Thread(target=self._sample, name="tfdebug-rss", daemon=True)

    def _sample(self) -> None:
        while not self._stop.is_set():
            rss, phase = _rss(), self.now
            self.highest[phase] = max(self.highest.get(phase, 0), rss)
            if rss > self.at[1]:
                self.at = (time.perf_counter() - self.start, rss, phase)
            self._stop.wait(SAMPLE_S)

    def _enter(self, phase: str) -> None:
        """`phase` starts now: the part before it ends (its time kept in `seconds`)."""
        now = time.perf_counter()
        self.seconds[self.now] = now - getattr(self, "_since", self.start)
        self.now, self._since = phase, now

    def __enter__(self):
        import tfdebug.io.exports as exports
        import tfdebug.sessions.peak as peak
        import tfdebug.sessions.session as session

        def wrapped(owner, name, before, after=None, keep=False):
            original = getattr(owner, name)

            def call(*args, **kwargs):
                self._enter(before)
                result = original(*args, **kwargs)
                if keep:
                    self.stated = result
                self._enter(after or self.now)
                return result
            setattr(owner, name, call)
            return owner, name, original

        self._undo = [wrapped(peak, "fit_default_budget", "plan"),
                      wrapped(peak, "stated_peak", "plan", "pass", keep=True),
                      wrapped(session.DebugSession, "verify", "check", "after the check"),
                      wrapped(exports, "export_pass", "write", "after the write")]
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        self._thread.join()
        for owner, name, original in self._undo:
            setattr(owner, name, original)


def _command(argv: list[str]) -> int:
    """`tfdebug ARGV` run in this process as the `tfdebug` program runs (its `__main__`): the user's path, measured
    from inside. Run as a program rather than imported, as a child process would run it: the bench sits below the
    command line (tests/test_layering.py)."""
    import runpy
    import sys

    saved = sys.argv
    sys.argv = ["tfdebug", *argv]
    try:
        runpy.run_module("tfdebug", run_name="__main__", alter_sys=False)
    except SystemExit as exit:
        return exit.code if isinstance(exit.code, int) else (0 if exit.code is None else 2)
    finally:
        sys.argv = saved
    return 0


def child(variant: str, shape: str, seq_len: int) -> dict:
    """`tfdebug capture` with the default budget on `shape` at `seq_len` tokens, in this (fresh) process: the
    stated peak and its parts, the RSS before, the measured peak RSS and where it was reached. Variants
    "plain-eager" and "plain-sdpa" time instead one plain forward of the model saved in folder `shape`
    (`_cold_forward`)."""
    if variant.startswith("plain-"):
        return _cold_forward(variant.removeprefix("plain-"), Path(shape), seq_len)
    from tfdebug.bench.real_size import _restart_peak, high_water
    from tfdebug.core.budget import total_memory
    from tfdebug.core.memory import release_freed_memory

    import transformers  # noqa: F401  (loaded before the high-water mark is set: the process, not the pass)

    with tempfile.TemporaryDirectory(prefix="tfdebug-plan-peak-") as tmp:
        folder = Path(tmp) / "model"
        _save(shape, seq_len, folder)
        gc.collect()
        release_freed_memory()
        before = _rss()
        _restart_peak()
        prompt = _prompt(seq_len)
        with _Phases() as phases:
            code = _command(["capture", "--model", f"hf:{folder}", "--input", f"prompt={prompt}", "--quiet",
                             "--out", str(Path(tmp) / "pass.safetensors")])
        seconds = time.perf_counter() - phases.start
        peak = high_water()
        reach = _reachable(Path(tmp) / "pass.safetensors") if code == 0 else {}
        again = {"never": lambda: _captured_again(folder, prompt, Path(tmp) / "never.safetensors", "never")}
        if "check" in phases.seconds:  # a pass whose whole check did not fit was checked in the pass already
            again["attention"] = lambda: _captured_again(folder, prompt, Path(tmp) / "attention.safetensors",
                                                         "attention")
        plain, ran = _plain_forwards(folder, prompt, _eager_fits(folder, seq_len), again if code == 0 else {})
        in_pass = _again_row(ran, "attention", "in_pass")
        never = _again_row(ran, "never", "never")
        reach["model_layers"] = json.loads((folder / "config.json").read_text())["num_hidden_layers"]
        kept = os.environ.get(KEEP_ENV)
        if kept and code == 0:  # the snapshot left for a look afterwards (`tfdebug open`), with its model
            Path(kept).mkdir(parents=True, exist_ok=True)
            for name in ("pass.safetensors", "model"):
                shutil.move(Path(tmp) / name, Path(kept) / name)
    stated = phases.stated
    at_s, _, where = phases.at
    row = {"variant": variant, "shape": shape, "seq_len": seq_len, "exit": code, "seconds": round(seconds, 1),
           "rss_before_bytes": before, "peak_rss_bytes": peak, "peak_phase": where,
           "peak_at_s": round(at_s, 1), "ram_bytes": total_memory(),
           "phase_peaks_bytes": dict(phases.highest), "pass_s": round(phases.seconds.get("pass", 0.0), 2),
           "check_s": round(phases.seconds.get("check", 0.0), 2), **reach, **in_pass, **never, **plain}
    if plain and row["pass_s"]:
        for kind in [kind for kind in ("eager", "sdpa") if f"plain_{kind}_s" in plain]:
            row[f"capture_over_{kind}"] = round(row["pass_s"] / plain[f"plain_{kind}_s"], 3)
            row[f"checked_over_{kind}"] = round((row["pass_s"] + row["check_s"]) / plain[f"plain_{kind}_s"], 3)
            for again in ("in_pass", "never"):
                if row.get(f"{again}_s"):
                    row[f"{again}_over_{kind}"] = round(row[f"{again}_s"] / plain[f"plain_{kind}_s"], 3)
    if stated is not None:
        row.update(stated_peak_bytes=stated.total, stated_model_bytes=stated.model, stated_kept_bytes=stated.kept,
                   stated_working_bytes=stated.working, stated_check_bytes=stated.check,
                   held=peak <= stated.total, measured_over_stated=round(peak / stated.total, 3))
    return row


def _reachable(path: Path) -> dict:
    """Every layer's attention in the written snapshot, opened as `tfdebug open` opens it: the probabilities stages
    that open (as recipe planes, computed when looked at); the time to show one head of the last layer's as the
    heatmap reads it (`read_tile` at a 1024×1024 view); then the window's whole work on that stage as it prepares it
    on its display worker (`display_cache.prepare`: the shown head's picture, every head's thumbnail, the stage's
    stats, its checks), timed, with the memory that took above what the process held before it."""
    from tfdebug.bench.real_size import _restart_peak, high_water
    from tfdebug.core.tiles import read_tile
    from tfdebug.core.view import ViewSelection
    from tfdebug.io.passes import open_pass
    from tfdebug.sessions.display_cache import prepare

    with open_pass(path) as back:
        names = [c.name for c in back.captures if c.name.endswith(".probs")]
        planes = [back.tensor(back[name]) for name in names]
        opened = sum(1 for plane in planes if plane is not None)
        start, n = time.perf_counter(), planes[-1].shape[-1]
        tile = read_tile(planes[-1], 2, 3, {0: 0, 1: 0}, (0, n), (0, n), (1024, 1024), kind="probs")
        shown_ms = round((time.perf_counter() - start) * 1000, 1)
        del planes
        gc.collect()
        stepper = back.stepper()
        shown = stepper.captured(names[-1])
        before = _rss()
        _restart_peak()
        start = time.perf_counter()
        prepared = prepare(stepper, shown, ViewSelection(), (1024, 1024), with_stats=True) if shown else None
        window_s = time.perf_counter() - start
        checks = [check.ok for check in (prepared.checks or [])] if prepared is not None else []
        return {"attention_stages": len(names), "attention_opened": opened, "shown_stage": names[-1],
                "show_one_head_ms": shown_ms, "shown_pixels": list(tile.values.shape),
                "window_stage_s": round(window_s, 2), "window_stage_peak_bytes": max(0, high_water() - before),
                "window_stage_thumbnails": 0 if prepared is None or prepared.heads is None
                else len(prepared.heads[1].values),
                "window_stage_checks_passed": f"{checks.count(True)} of {len(checks)}"}


def _captured_again(folder: Path, prompt: str, out: Path, verify: str) -> tuple[int, float, float]:
    """The same `tfdebug capture` with `--verify VERIFY`, in this process after the first (its peak read): the exit
    status, the pass's seconds (a check in the pass included) and the seconds of a check after it."""
    import contextlib
    import io

    said = io.StringIO()
    with _Phases() as phases, contextlib.redirect_stdout(said):
        code = _command(["capture", "--model", f"hf:{folder}", "--input", f"prompt={prompt}", "--verify", verify,
                         "--out", str(out), "--quiet"])
    out.unlink(missing_ok=True)  # the next run's write finds the disk as this one did
    return code, phases.seconds.get("pass", 0.0), phases.seconds.get("check", 0.0)


def _again_row(ran: dict[str, list[tuple[int, float, float]]], name: str, key: str) -> dict:
    """The row's fields of the runs of `name` (`_captured_again`'s): the worst exit status, the fastest pass (every
    round's listed) and the fastest check after it."""
    runs = ran.get(name)
    if not runs:
        return {}
    return {f"{key}_exit": max(code for code, _, _ in runs), f"{key}_s": round(min(s for _, s, _ in runs), 2),
            f"{key}_rounds_s": [round(s, 2) for _, s, _ in runs],
            f"{key}_check_s": round(min(check for _, _, check in runs), 2)}


def _eager_fits(folder: Path, seq_len: int) -> bool:
    """Whether transformers' eager forward fits in the memory free now: one layer's weights, its scores and its
    additive mask are (heads + heads + 1) × tokens² float32 cells at once (at 32,768 tokens on the 135M shape, 81
    GB), with the logits beside them."""
    from tfdebug.core.budget import free_memory

    config = json.loads((folder / "config.json").read_text(encoding="utf-8"))
    need = 4 * seq_len * (seq_len * (2 * config["num_attention_heads"] + 1) + config["vocab_size"])
    free = free_memory(__import__("torch").device("cpu"))
    return free is None or need < free


def _plain_forwards(folder: Path, prompt: str, eager: bool = True,
                    again: dict[str, Callable[[], tuple[int, float, float]]] | None = None
                    ) -> tuple[dict, dict[str, list[tuple[int, float, float]]]]:
    """The plain forward of the model in `folder` on `prompt`'s ids (tokenised by the folder's tokenizer, as the
    capture's were), no hook: twice in eager attention and twice in sdpa, the faster of each kind kept and the
    eager pair's ratio as the A/A; seconds. Each round is followed by every run of `again` (the capture again in
    this process, `_captured_again`), whose results come back by name. Without `eager` (it does not fit:
    `_eager_fits`), sdpa once and nothing again (the capture takes as long as the fresh one did)."""
    import torch
    import transformers
    from tokenizers import Tokenizer

    ids = torch.tensor([Tokenizer.from_file(str(folder / "tokenizer.json")).encode(prompt).ids])
    model = transformers.AutoModelForCausalLM.from_pretrained(str(folder), attn_implementation="eager")
    model.eval()
    times: dict[str, list[float]] = {}
    kinds = ("eager", "sdpa") if eager else ("sdpa",)
    runs = (again or {}) if eager else {}
    ran: dict[str, list[tuple[int, float, float]]] = {name: [] for name in runs}
    with torch.inference_mode():
        for kind in kinds:  # warmed up on a few ids: the first call of a kind pays its set-up
            model.set_attn_implementation(kind)
            model(input_ids=ids[:, :64], use_cache=False)
    for _ in range(2 if eager else 1):  # interleaved rounds: a drift in the load touches every variant
        for kind in kinds:
            model.set_attn_implementation(kind)
            gc.collect()
            with torch.inference_mode():
                start = time.perf_counter()
                model(input_ids=ids, use_cache=False)
            times.setdefault(kind, []).append(time.perf_counter() - start)
        for name, run in runs.items():  # outside inference mode: the command's pass is a user's
            gc.collect()
            ran[name].append(run())
    del model
    gc.collect()
    sdpa = times["sdpa"]
    if not eager:
        return {"plain_sdpa_s": round(min(sdpa), 2), "plain_tokens": int(ids.shape[1]),
                "plain_eager_skipped": "does not fit in memory"}, ran
    eager_s = times["eager"]
    return {"plain_eager_s": round(min(eager_s), 2), "plain_sdpa_s": round(min(sdpa), 2),
            "plain_tokens": int(ids.shape[1]), "plain_aa": round(eager_s[1] / eager_s[0], 3)}, ran


def _prompt(seq_len: int) -> str:
    from tfdebug.bench.real_size import WORDS

    return " ".join(f"w{2 + i % (WORDS - 2)}" for i in range(seq_len))


def _cold_forward(kind: str, folder: Path, seq_len: int) -> dict:
    """One forward of the model in `folder` with attention `kind`, timed, in this fresh process as a person's own
    script runs it (transformers alone: no tfdebug allocator setting, nothing warmed up at this size); seconds."""
    import torch
    import transformers
    from tokenizers import Tokenizer

    ids = torch.tensor([Tokenizer.from_file(str(folder / "tokenizer.json")).encode(_prompt(seq_len)).ids])
    model = transformers.AutoModelForCausalLM.from_pretrained(str(folder), attn_implementation=kind).eval()
    with torch.inference_mode():
        start = time.perf_counter()
        model(input_ids=ids, use_cache=False)
        return {"kind": kind, "seconds": round(time.perf_counter() - start, 2)}


def _cold_plain(shape: str, seq_len: int, timeout: float) -> dict:
    """The plain forward as the user's own fresh process runs it once (`_cold_forward`), in processes of their own:
    eager twice (the two runs' ratio the A/A) where it fits in memory, else sdpa once."""
    from tfdebug.bench.child import run_child

    with tempfile.TemporaryDirectory(prefix="tfdebug-plain-") as tmp:
        folder = Path(tmp) / "model"
        _save(shape, seq_len, folder)
        kinds = ["eager", "eager"] if _eager_fits(folder, seq_len) else ["sdpa"]
        runs = [run_child("tfdebug.bench.plan_peak", f"plain-{kind}", str(folder), seq_len, timeout)
                for kind in kinds]
    seconds = [run["seconds"] for run in runs if run.get("status") == "ok"]
    if len(seconds) != len(kinds):
        return {"cold_status": next(run["status"] for run in runs if run.get("status") != "ok")}
    out = {f"cold_{kinds[0]}_s": min(seconds)}
    if len(seconds) == 2:
        out["cold_aa"] = round(seconds[1] / seconds[0], 3)
    return out


def plan_peak_rows(profile: str, lengths: tuple[int, ...] | None = None, timeout: float = 1800.0) -> list[dict]:
    """A row per length, each `tfdebug capture` in a process of its own (`bench.child.run_child`), and beside it
    the plain forward in fresh processes of its own (`_cold_plain`): the capture's pass ÷ that plain forward is
    what the user waits for against their own script; the tiny profile runs the "ci" shape."""
    from tfdebug.bench.child import run_child

    shape = "ci" if profile == "tiny" else "smol135m"
    rows = []
    for n in lengths or LENGTHS.get(profile, LENGTHS["default"]):
        row = run_child("tfdebug.bench.plan_peak", "stated_vs_measured", shape, n, timeout)
        if row.get("status") == "ok":
            row.update(_cold_plain(shape, n, timeout))
            for kind in ("eager", "sdpa"):
                if row.get(f"cold_{kind}_s") and row.get("pass_s"):
                    row[f"capture_over_cold_{kind}"] = round(row["pass_s"] / row[f"cold_{kind}_s"], 3)
        rows.append(row)
    return rows


def format_plan_peak(rows: list[dict]) -> list[str]:
    """The report's lines: stated peak against measured, per length."""
    gb = 1e9
    lines = ["", "The plan's stated peak against the measured peak RSS (`tfdebug capture`, default budget, a random "
                 "model of SmolLM-135M's shape, float32, eager; each row a process of its own)"]
    for row in rows:
        if row.get("status") != "ok" or "stated_peak_bytes" not in row:
            lines.append(f"  {row.get('seq_len')} tokens: {row.get('status', 'no stated peak')}")
            continue
        share = f" = {100 * row['peak_rss_bytes'] / row['ram_bytes']:.0f}% of RAM" if row.get("ram_bytes") else ""
        lines.append(f"  {row['seq_len']:>6} tokens ({row['shape']}): stated {row['stated_peak_bytes'] / gb:.2f} GB, "
                     f"measured {row['peak_rss_bytes'] / gb:.2f} GB{share} "
                     f"({'held' if row['held'] else 'NOT HELD'}; RSS before {row['rss_before_bytes'] / gb:.2f} GB; "
                     f"peak in {row['peak_phase']} at {row['peak_at_s']:.0f} of {row['seconds']:.0f} s)")
        if "capture_over_eager" in row:
            lines.append(f"         capture {row['pass_s']:.1f} s, check {row['check_s']:.1f} s; plain forward "
                         f"{row['plain_eager_s']:.1f} s eager (A/A {row['plain_aa']:.2f}), {row['plain_sdpa_s']:.1f} s "
                         f"sdpa: capture ÷ plain {row['capture_over_eager']:.2f}× eager, "
                         f"{row['capture_over_sdpa']:.2f}× sdpa; with the check {row['checked_over_eager']:.2f}× "
                         f"eager, {row['checked_over_sdpa']:.2f}× sdpa")
        elif "capture_over_sdpa" in row:
            lines.append(f"         capture {row['pass_s']:.1f} s (each layer's attention checked in the pass); plain "
                         f"forward {row['plain_sdpa_s']:.1f} s sdpa (eager: {row.get('plain_eager_skipped')}): "
                         f"capture ÷ plain {row['capture_over_sdpa']:.2f}× sdpa")
        if "capture_over_cold_eager" in row:
            lines.append(f"         the plain eager forward in a fresh process of its own, as a script runs it once: "
                         f"{row['cold_eager_s']:.1f} s (A/A {row['cold_aa']:.2f}): capture ÷ it "
                         f"{row['capture_over_cold_eager']:.2f}×")
        elif "capture_over_cold_sdpa" in row:
            lines.append(f"         the plain sdpa forward in a fresh process of its own: {row['cold_sdpa_s']:.1f} s: "
                         f"capture ÷ it {row['capture_over_cold_sdpa']:.2f}×")
        if "never_over_eager" in row:
            lines.append(f"         the pass again in this process, interleaved with the plain forwards (--verify "
                         f"never): {row['never_s']:.1f} s, {row['never_over_eager']:.2f}× eager, "
                         f"{row['never_over_sdpa']:.2f}× sdpa")
        if "in_pass_over_eager" in row:
            lines.append(f"         with the check in the pass (--verify attention), interleaved the same way: "
                         f"{row['in_pass_s']:.1f} s, {row['in_pass_over_eager']:.2f}× eager, "
                         f"{row['in_pass_over_sdpa']:.2f}× sdpa")
        if "window_stage_s" in row:
            lines.append(f"         the snapshot opened: {row['attention_opened']} of {row['attention_stages']} "
                         f"attention stages ({row.get('model_layers', '?')} layers); {row['shown_stage']}: one head "
                         f"{row['show_one_head_ms'] / 1000:.1f} s, "
                         f"the window's work on it {row['window_stage_s']:.1f} s and "
                         f"{row['window_stage_peak_bytes'] / 1e9:.2f} GB (checks {row['window_stage_checks_passed']} "
                         f"passed)")
    return lines
