"""`tfdebug bench --section backward`: the backward with every stage's gradient captured against plain
`loss.backward()`.

On the GPT-2 shape of the `hf` rows (6 layers × 768, 12 heads, tfdebug.bench.hf; a 1,000-token vocabulary),
random weights, random token ids, at 256 and 1,024 tokens; per length, interleaved repeats of:
- `plain`: the model's own loss (transformers' `labels=input_ids`: the mean next-token cross-entropy) and
  `loss.backward()`, eager attention (what the tapped attention computes), the parameters' gradients dropped
  after each run;
- `tfdebug`: `sessions.backward.run_backward` of the same objective on the same tokens, every stage's gradient
  captured (and the forward's stages, which gradient × activation reads; the attention planes whole), given the
  pass's plan and the default capture budget as Debug ▸ Backward gives them: what autograd saves of the planes
  is kept where that fits the budget, else made again (`core.recompute`), and the row says which.
Medians, the ratio tfdebug ÷ plain (goal ≤ 1.15×), the plain row's A/A (its two halves) and both losses (the
same objective: they agree). Then each variant once more in a child process of its own (as tfdebug.bench.scale
measures peaks), its peak RSS above its RSS before the pass, and the ratio of the two peaks; beside tfdebug's, the peak
`run_backward` states before it runs (`sessions.backward_peak.check_backward_fits`). The `full` profile adds the real-size row
(`bench.backward_real`: SmolLM-135M's shape at 2,048 tokens in float32, its stated peak against its measured one)
and the same backward done in the window by keys, F10 through every gradient (`bench.backward_window`).
"""

from __future__ import annotations

import time

from tfdebug.bench.capture import BenchConfig
from tfdebug.bench.child import run_child
from tfdebug.bench.noise import halves_ratio
from tfdebug.bench.timing import interleaved_ms, median

SHAPES = {"tiny": (1, 32, 4, 50), "gpt2": (6, 768, 12, 1000)}  # layers, width, heads, vocabulary
LENGTHS = {"tiny": (8, 16), "quick": (256,), "default": (256, 1024), "full": (256, 1024)}
VARIANTS = ("plain", "tfdebug")
TARGET = 1.15  # the goal: the captured backward ≤ 1.15× plain loss.backward()


def _config(shape: str, seq_len: int) -> BenchConfig:
    layers, width, heads, vocab = SHAPES[shape]
    return BenchConfig(f"hf-gpt2 {layers}x{width} seq {seq_len}", layers, width, heads, seq_len, vocab)


def _variants(config: BenchConfig) -> tuple[dict, dict]:
    """({name: one run}, {"losses": {name: its loss}, "stages", "stated": the peak run_backward states, "planes":
    whether autograd's saved planes are kept or made again}) on a fresh random GPT-2 of `config`."""
    import torch

    from tfdebug.adapters.base import Prepared
    from tfdebug.adapters.hf.adapter import wrap
    from tfdebug.bench.hf import build_gpt2
    from tfdebug.core.budget import default_capture_budget
    from tfdebug.core.plan import plan_pass
    from tfdebug.sessions.backward import run_backward
    from tfdebug.sessions.backward_peak import check_backward_fits, parameter_bytes

    model, ids = build_gpt2(config)
    model.config._attn_implementation_internal = "eager"
    adapter = wrap(model, tokenizer=None, name="bench")
    prepared = Prepared(texts={}, kwargs={"input_ids": ids, "use_cache": False})
    with torch.no_grad():  # the pass's plan, as a finished pass in the window has it (not timed)
        plan = list(plan_pass(adapter.module, lambda: adapter.forward(prepared), [ids], method="auto"))
    budget = default_capture_budget(adapter.device)
    stated, recompute = check_backward_fits(plan, budget, parameter_bytes(adapter.module))
    losses: dict[str, float] = {}
    extra = {"losses": losses, "stages": 0, "stated": stated, "planes": "made again" if recompute else "kept"}

    def plain():
        loss = model(input_ids=ids, labels=ids, use_cache=False).loss
        loss.backward()
        model.zero_grad(set_to_none=True)
        losses["plain"] = float(loss.detach())

    def captured():  # as Debug ▸ Backward runs it: the plan and the default budget choose what autograd keeps
        result = run_backward(adapter, prepared, plan=plan, budget=budget)
        losses["tfdebug"] = result.loss
        extra["stages"] = len(result.gradients)

    return {"plain": plain, "tfdebug": captured}, extra


def timing_row(config: BenchConfig, repeats: int) -> dict:
    """One length's medians (ms), ratio, the plain row's A/A and the two losses."""
    import torch

    variants, extra = _variants(config)
    with torch.enable_grad():
        times = interleaved_ms(variants, repeats, warmup=1)
    ms = {name: median(values) for name, values in times.items()}
    losses = extra["losses"]
    return {"seq_len": config.seq_len, "stages": extra["stages"], "repeats": repeats, "planes": extra["planes"],
            "plain_ms": round(ms["plain"], 2), "tfdebug_ms": round(ms["tfdebug"], 2),
            "ratio": round(ms["tfdebug"] / ms["plain"], 4), "aa_ratio": halves_ratio(times["plain"]),
            "loss_plain": round(losses["plain"], 6), "loss_tfdebug": round(losses["tfdebug"], 6)}


def child(variant: str, shape: str, seq_len: int) -> dict:
    """One variant run once in this (fresh) process: its peak RSS above the RSS before the pass."""
    import torch

    from tfdebug.bench.real_size import _restart_peak, high_water
    from tfdebug.bench.scale import _rss

    variants, extra = _variants(_config(shape, seq_len))  # builds the model; nothing has run yet
    stated = extra["stated"] if variant == "tfdebug" else None
    import gc

    gc.collect()
    before = _rss()
    _restart_peak()
    start = time.perf_counter()
    with torch.enable_grad():
        variants[variant]()
    seconds = time.perf_counter() - start
    peak = high_water()
    row = {"variant": variant, "seq_len": seq_len, "seconds": round(seconds, 3), "rss_before_bytes": before,
           "peak_rss_bytes": peak, "peak_above_before_bytes": max(0, peak - before)}
    if stated is not None:
        row["stated_peak_bytes"] = stated
    return row


def _in_child(variant: str, shape: str, seq_len: int, timeout: float) -> dict:
    """`child(...)` in a fresh interpreter (`bench.child.run_child`)."""
    return run_child("tfdebug.bench.backward", variant, shape, seq_len, timeout)


def backward_section(profile: str = "default", repeats: int = 5, lengths: tuple[int, ...] | None = None,
                     timeout: float = 900.0) -> dict:
    """The timing rows (one per length) and the peak rows (one per length and variant, each a child process)."""
    from tfdebug.adapters.hf.load import transformers_available

    if not transformers_available():
        return {}
    shape = "tiny" if profile == "tiny" else "gpt2"
    lengths = lengths or LENGTHS.get(profile, LENGTHS["default"])
    rows, peaks = [], []
    for seq_len in lengths:
        rows.append(timing_row(_config(shape, seq_len), max(4, repeats)))
        measured = {variant: _in_child(variant, shape, seq_len, timeout) for variant in VARIANTS}
        plain, ours = measured["plain"].get("peak_above_before_bytes"), measured["tfdebug"].get("peak_above_before_bytes")
        for variant in VARIANTS:
            row = measured[variant]
            if variant == "tfdebug" and plain and ours is not None:
                row["peak_ratio"] = round(ours / plain, 3)
            peaks.append(row)
    layers, width, heads, vocab = SHAPES[shape]
    section = {"n_layer": layers, "n_embd": width, "n_heads": heads, "vocab_size": vocab, "target": TARGET,
               "rows": rows, "peaks": peaks}
    if profile in ("tiny", "full"):  # SmolLM-135M's shape at 2,048 tokens (tiny: 2 layers): bench.backward_real
        from tfdebug.bench.backward_real import real_size_row

        section["real_size"] = real_size_row(profile, timeout=max(timeout, 1800.0))
    if profile == "full":  # the same in the window, by keys (tests: tests/bench/test_backward_window.py)
        from tfdebug.bench.backward_window import window_row

        section["window"] = window_row(profile, timeout=max(timeout, 3600.0))
    return section


def format_backward(section: dict) -> list[str]:
    """The section as lines of text (`tfdebug bench` prints them)."""
    lines = ["", f"Backward (HF GPT-2 shape, {section['n_layer']} layers × {section['n_embd']}, {section['n_heads']} "
                 f"heads; every stage's gradient captured ÷ plain loss.backward(), goal ≤ {section['target']}×):"]
    for row in section["rows"]:
        lines.append(f"  {row['seq_len']:>5} tokens  plain {row['plain_ms']:>10} ms  tfdebug {row['tfdebug_ms']:>10} ms"
                     f"  ×{row['ratio']}  (plain A/A {row['aa_ratio']}; {row['stages']} gradients; planes "
                     f"{row.get('planes', 'made again')}; loss {row['loss_plain']} / {row['loss_tfdebug']})")
    for row in section["peaks"]:
        if row.get("status") != "ok":
            lines.append(f"  {row['seq_len']:>5} tokens  {row['variant']:<8} peak: {row.get('status')}")
            continue
        ratio = f"  ×{row['peak_ratio']} of plain's" if "peak_ratio" in row else ""
        if "stated_peak_bytes" in row:
            ratio += f"; stated before it ran: {row['stated_peak_bytes'] / 2**20:,.1f} MiB"
        lines.append(f"  {row['seq_len']:>5} tokens  {row['variant']:<8} peak RSS {row['peak_rss_bytes'] / 2**20:,.0f} MiB,"
                     f" {row['peak_above_before_bytes'] / 2**20:,.1f} MiB above before the pass{ratio}"
                     f"  (child process, {row['seconds']} s)")
    if "real_size" in section:
        from tfdebug.bench.backward_real import format_real_size

        lines += format_real_size(section["real_size"])
    if "window" in section:
        from tfdebug.bench.backward_window import format_window_row

        lines += format_window_row(section["window"])
    return lines
