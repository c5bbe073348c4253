"""Every section of `tfdebug bench`, run in order under one Run (its profile, time budget and load limit)."""

from __future__ import annotations

import os

import torch

from tfdebug.bench.capture import LARGE, TINY, WIDE, BenchConfig, memory_row, overhead_row, tuned_overhead_row
from tfdebug.bench.runner import PROFILES, Run, choose_sections
from tfdebug.bench.timing import machine, median, p95

# Sizes the profiles name (tfdebug.bench.runner.PROFILES).
SDPA_SIZES = {"tiny": {"n_embd": 32, "n_layer": 1, "n_head": 4, "seq_len": 8},
              "quick": {"n_embd": 256, "n_layer": 4, "n_head": 4, "seq_len": 128},
              "full": {"n_embd": 512, "n_layer": 8, "n_head": 8, "seq_len": 256}}
GENERATION_SIZES = {"tiny": {"n_embd": 32, "n_heads": 4, "n_layer": 1, "prompts": (4, 8), "new_tokens": 4},
                    "quick": {"n_embd": 256, "n_heads": 4, "n_layer": 2, "prompts": (16, 128), "new_tokens": 6},
                    "full": {"n_embd": 512, "n_heads": 8, "n_layer": 2, "prompts": (16, 128, 512), "new_tokens": 16}}
CAPTURE_CONFIGS = {"tiny": TINY, "6x512": WIDE, "12x768": LARGE}


def step_latency_rows(sizes: tuple[int, ...], repeats: int) -> list[dict]:
    """The window's step latency to the painted heatmap, to the stage named everywhere and until every
    panel settled (offscreen), with synthetic stages in memory and replayed from a snapshot file, and on
    the user's path (the demo's own snapshot opened as `tfdebug open` opens it) at sizes from 1024² on."""
    from tfdebug.bench.noise import halves_ratio

    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from tfdebug.bench.step_latency import SOURCES, quiet_qt_messages, step_latency
    from tfdebug.bench.user_path import user_path_latency

    with quiet_qt_messages():
        timings = step_latency(sizes, repeats, SOURCES)
        timings.update({("user path", n): clocks
                        for n, clocks in user_path_latency(tuple(n for n in sizes if n >= 1024), repeats).items()})
    rows = []
    for (source, n), samples in timings.items():
        row = {"size": n, "source": source}
        for clock in ("painted", "named", "settled"):
            row[f"{clock}_median"] = round(median(samples[clock]), 2)
            row[f"{clock}_p95"] = round(p95(samples[clock]), 2)
        row["gui_cpu_median"] = round(median(samples["gui_cpu"]), 2)  # what the step cost the GUI thread
        # Each clock judged by its own A/A, comparing steps to the same kind of stage (the synthetic planes alternate
        # two kinds; the user path goes to stages of different sizes, back and forth), and on the user path only
        # steps to stages shown before (a first visit draws what a later one finds prepared).
        keep = [i for i, again in enumerate(samples.get("again", [True] * len(samples["painted"]))) if again]
        stages = [samples["stages"][i] for i in keep]
        for clock, key in (("painted", "aa_ratio"), ("named", "aa_ratio_named"), ("settled", "aa_ratio_settled")):
            row[key] = halves_ratio([samples[clock][i] for i in keep], stages)
        rows.append(row)
    return rows


def _demo_config() -> BenchConfig | None:
    """The bundled demo model's shape, when it is bundled."""
    from tfdebug.models.loader import available_models, load_model

    if "demo" not in available_models():
        return None
    args = load_model("demo").args
    return BenchConfig("demo", args.n_layer, args.n_embd, args.n_heads, min(16, args.max_len), args.vocab_size)


def _capture_rows(profile, cpu) -> list[dict]:
    from tfdebug.bench.peers import nnsight_row, transformer_lens_row

    configs = [_demo_config() if name == "demo" else CAPTURE_CONFIGS[name] for name in profile.capture_configs]
    rows = []
    for config in (c for c in configs if c is not None):
        row = overhead_row(config, cpu, profile.repeats)  # this process never tuned the allocator
        row["tuned"] = tuned_overhead_row(config, profile.repeats) if profile.tuned else None
        row["peers"] = [transformer_lens_row(config, profile.repeats), nnsight_row(config, profile.repeats)]
        rows.append(row)
    return rows


def run_all(profile: str = "default", sections: list[str] | None = None, threads: int | None = None,
            load_limit: float | None = None, lengths: tuple[int, ...] | None = None) -> dict:
    """The chosen sections (default: every default section) at the profile's sizes.

    Returns one JSON-ready dict: `machine`, one key per section that ran, `run` (seconds
    per section, what was skipped and why) and the verdicts against the targets.
    """
    from tfdebug.bench.report import SYNC_BUDGETS, TARGETS, verdicts

    if threads:
        torch.set_num_threads(threads)
    chosen = PROFILES[profile]
    run = Run(chosen, load_limit)
    wanted = choose_sections(sections)
    cpu = torch.device("cpu")
    tiny = chosen.name == "tiny"
    result: dict = {"machine": machine(chosen.name != "default")}
    result["machine"]["profile"] = chosen.name

    def add(name: str, key: str, fn) -> None:
        if name in wanted:
            value = run.section(name, fn, threads=torch.get_num_threads())
            if value is not None:
                result[key] = value

    add("capture", "capture_overhead", lambda: _capture_rows(chosen, cpu))
    add("session", "session", lambda: _session(chosen))
    add("hf", "hf", lambda: _hf(chosen))
    add("latency", "step_latency_ms", lambda: step_latency_rows(chosen.latency_sizes, chosen.latency_repeats))
    add("memory", "memory", lambda: memory_row(TINY if tiny else WIDE, cpu))
    add("snapshots", "snapshots", lambda: _snapshots(chosen, tiny))
    add("syncs", "host_syncs", _syncs)
    add("sdpa", "sdpa", lambda: _sdpa(chosen, cpu))
    add("levers", "levers", lambda: _levers(chosen, tiny))
    add("generation", "generation", lambda: _generation(chosen, cpu))
    add("cuda", "cuda", lambda: _cuda(chosen, tiny))
    add("peers", "peers", lambda: _peers(chosen, lengths))
    add("scale", "scale", lambda: _scale(chosen, lengths))
    add("remote", "remote", lambda: _remote(chosen))
    add("startup", "startup", lambda: _startup(tiny))
    add("why", "why", lambda: _why(chosen))
    add("backward", "backward", lambda: _backward(chosen, lengths))
    result["targets"], result["sync_budgets"] = dict(TARGETS), dict(SYNC_BUDGETS)
    result["run"] = run.summary()
    result["verdicts"] = verdicts(result)
    return result


def _why(profile) -> dict:
    from tfdebug.bench.why import why_section

    return why_section("tiny" if profile.name == "tiny" else "full" if profile.name == "full" else "quick",
                       max(4, min(profile.repeats, 8)))


def _backward(profile, lengths: tuple[int, ...] | None) -> dict:
    from tfdebug.bench.backward import backward_section

    return backward_section(profile.name, max(4, min(profile.repeats, 8)), lengths)


def _startup(tiny: bool) -> dict:
    from tfdebug.bench.startup import commands_startup, startup_section

    section = startup_section("demo", runs=2 if tiny else 5)
    section["commands"] = commands_startup(runs=2 if tiny else 5)
    return section


def _remote(profile) -> dict:
    from tfdebug.bench.remote import remote_section

    # At least four repeats per row: fewer give no A/A, and a ratio without one says nothing.
    return remote_section(profile.latency_sizes, max(4, profile.latency_repeats))


def _session(profile) -> list[dict]:
    from tfdebug.bench.session import session_rows, tuned_session_rows

    repeats = min(5, max(3, profile.repeats))
    rows = session_rows(profile.hf, repeats)
    return rows + (tuned_session_rows(profile.hf, repeats) if rows and profile.tuned else [])


def _hf(profile) -> list[dict]:
    from tfdebug.bench.hf import hf_section

    return hf_section(profile.hf, profile.repeats)


def _snapshots(profile, tiny: bool) -> dict:
    from tfdebug.bench.snapshots import snapshot_section

    return snapshot_section(TINY if tiny else WIDE, profile.snapshot_bytes, runs=profile.snapshot_runs)


def _syncs() -> dict:
    from tfdebug.bench.syncs import sync_counts

    return sync_counts()


def _sdpa(profile, cpu) -> dict:
    from tfdebug.bench.sdpa import sdpa_row

    return sdpa_row(cpu, profile.repeats, SDPA_SIZES[profile.sdpa])


def _levers(profile, tiny: bool) -> list[dict]:
    from tfdebug.bench.levers import lever_rows

    return lever_rows(TINY if tiny else WIDE, profile.repeats, tuned=profile.tuned)


def _generation(profile, cpu) -> list[dict]:
    """The reference model's rows, then a Llama shape's against `model.generate` (with transformers); with the full
    profile, SmolLM-135M's shape against it too, after 256 and 1,984 prompt tokens (`bench.generation_real`)."""
    from tfdebug.bench.generation import generation_rows, hf_generation_row

    against = hf_generation_row(max(3, profile.generation_repeats), "tiny" if profile.name == "tiny" else
                                "full" if profile.name == "full" else "quick")
    rows = generation_rows(cpu, profile.generation_repeats, GENERATION_SIZES[profile.generation]) + (
        [against] if against is not None else [])
    if profile.name == "full":  # SmolLM-135M's shape through the path a user takes: minutes, a few GB
        from tfdebug.bench.generation_real import real_generation_row

        real = [real_generation_row(3, shape) for shape in ("smol135m", "smol135m-2k")]
        rows += [row for row in real if row is not None]
    return rows


def _cuda(profile, tiny: bool) -> dict:
    from tfdebug.bench.cuda import cuda_section

    return cuda_section([TINY] if tiny else [WIDE] + ([LARGE] if profile.name == "full" else []), profile.repeats)


def _peers(profile, lengths: tuple[int, ...] | None) -> dict:
    from tfdebug.bench.peers import PEER_LENGTHS, TOO_LARGE, peers_section

    tiny = profile.name == "tiny"  # the test suite's run: its too-large row is planned at 64 tokens
    return peers_section(profile.hf, max(5, profile.repeats), lengths or PEER_LENGTHS[profile.name],
                         too_large=64 if tiny else TOO_LARGE)


def _scale(profile, lengths: tuple[int, ...] | None) -> dict:
    from tfdebug.bench.scale import scale_section

    return scale_section(profile.name, lengths)
