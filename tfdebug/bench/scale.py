"""Long prompts (`tfdebug bench --scale`): what capture-all holds and how high the process peaks, per length.

On the GPT-2 shape (6 layers × 768, 12 heads) at 1k, 4k and 8k tokens (32k with `--full`
or `--lengths`), each variant runs in a child process of its own, so one row's peak RSS
cannot carry into the next (the child reports `ru_maxrss` and its RSS before the pass):

- `plain`: the model's own forward, nothing kept;
- `tfdebug`: capture-all as `tfdebug capture` runs it (default budget), the attention
  planes kept as recipes; bytes held (distinct storages), bytes held per token, seconds;
  and the time to show one head of the last layer's probabilities as the heatmap reads it
  (`read_tile` at a 1024×1024 view, the plane computed for that head);
- `materialised`: the same capture with every plane computed whole and kept, as before
  recipes (`planes_materialized`), run when the plan's size fits `cap_bytes`, else stated;
- `transformer_lens`: `run_with_cache` on the same Hugging Face model through
  TransformerBridge (when installed: run the bench from the peers' venv), run when its
  estimated need fits, else its need stated (it keeps two tokens² planes per head);
- `window`: F10 → painted, a recipe plane shown in the real window (offscreen) for the first
  time, one head at the heatmap's pixels (tfdebug.bench.scale_window; a one-layer model of the shape).
"""

from __future__ import annotations

import os

from tfdebug.bench.capture import BenchConfig
from tfdebug.bench.child import run_child
from tfdebug.bench.timing import table

# profile -> lengths (tokens); 32k only in full (or asked for by --lengths)
LENGTHS = {"tiny": (16,), "quick": (1024,), "default": (1024, 4096, 8192), "full": (1024, 4096, 8192, 32768)}
SHAPES = {"tiny": (1, 32, 4, 50), "gpt2": (6, 768, 12, 1000)}  # layers, width, heads, vocabulary
VARIANTS = ("plain", "tfdebug", "materialised", "transformer_lens", "window")
DEFAULT_CAP = 8 << 30  # a child whose estimated need is above this is not run: its need is stated
VIEW = (1024, 1024)  # the heatmap's pixels the tile is read at


def _config(shape: str, seq_len: int) -> BenchConfig:
    layers, width, heads, vocab = SHAPES[shape]
    return BenchConfig(f"hf-gpt2 {layers}x{width} seq {seq_len}", layers, width, heads, seq_len, vocab)


def _rss() -> int:
    with open("/proc/self/statm", encoding="ascii") as statm:
        return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def _peak_rss() -> int:
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024  # kB on Linux


def plane_bytes(config: BenchConfig, planes: int, itemsize: int = 4) -> int:
    """Bytes of `planes` tokens² planes per head in every layer."""
    return planes * config.n_layer * config.n_heads * config.seq_len ** 2 * itemsize


def transformer_lens_need(config: BenchConfig) -> int:
    """TransformerLens' cache at this size: its two tokens² planes per head (attn_scores, pattern) and
    ~20 tokens × width activations per layer (its hook points), in float32."""
    return plane_bytes(config, 2) + 20 * config.n_layer * config.seq_len * config.n_embd * 4


def child(variant: str, shape: str, seq_len: int) -> dict:
    """One variant's row, measured in this (fresh) process: run by `_in_child`."""
    import time

    import torch

    from tfdebug.bench.hf import build_gpt2

    config = _config(shape, seq_len)
    if variant == "window":
        from tfdebug.bench.scale_window import recipe_steps

        row = {"variant": variant, "seq_len": seq_len, "rss_before_bytes": _rss(),
               **recipe_steps(seq_len, SHAPES[shape])}
        row["peak_rss_bytes"] = _peak_rss()
        return row
    model, ids = build_gpt2(config)
    row = {"variant": variant, "seq_len": seq_len, "rss_before_bytes": _rss()}
    start = time.perf_counter()
    if variant == "plain":
        with torch.no_grad():
            model(input_ids=ids, use_cache=False)
    elif variant == "transformer_lens":
        row.update(_transformer_lens(model, ids))
    else:
        row.update(_tfdebug(model, ids, materialised=variant == "materialised"))
    row["seconds"] = round(time.perf_counter() - start, 3)
    row["peak_rss_bytes"] = _peak_rss()
    row["peak_above_before_bytes"] = row["peak_rss_bytes"] - row["rss_before_bytes"]
    if "held_bytes" in row:
        row["held_bytes_per_token"] = round(row["held_bytes"] / seq_len)
    return row


def _tfdebug(model, ids, materialised: bool) -> dict:
    import contextlib
    import time

    import torch

    from tfdebug.adapters.base import Prepared
    from tfdebug.adapters.hf.adapter import wrap
    from tfdebug.adapters.hf.planes import planes_materialized
    from tfdebug.core.budget import CaptureBudget, default_capture_budget
    from tfdebug.core.recorder import Recorder, held_bytes

    adapter = wrap(model, tokenizer=None, name="bench")
    prepared = Prepared(texts={}, kwargs={"input_ids": ids, "use_cache": False})
    budget = CaptureBudget(default_capture_budget(adapter.device))
    whole = planes_materialized() if materialised else contextlib.nullcontext()
    with torch.no_grad(), whole, Recorder(adapter.module, on_capture=budget.keep_or_drop) as rec:
        adapter.forward(prepared)
    captures = rec.captures
    row = {"stages": len(captures), "recipes": sum(c.recipe for c in captures), "dropped": len(budget.dropped),
           "held_bytes": held_bytes(captures), "plan_bytes": sum(c.nbytes for c in captures),
           "plane_bytes": sum(c.nbytes for c in captures if c.shape[-2:] == (ids.shape[-1], ids.shape[-1]))}
    probs = [c for c in captures if c.name.endswith(".probs") and c.tensor is not None]
    if probs and not materialised:
        from tfdebug.core.tiles import read_tile

        plane, n = probs[-1].tensor, ids.shape[-1]
        start = time.perf_counter()
        tile = read_tile(plane, 2, 3, {0: 0, 1: 0}, (0, n), (0, n), VIEW, kind="probs")
        row["show_one_head_ms"] = round((time.perf_counter() - start) * 1000, 1)
        row["shown_stage"], row["shown_pixels"] = probs[-1].name, list(tile.values.shape)
    return row


def _transformer_lens(model, ids) -> dict:
    import tempfile

    import torch

    from tfdebug.bench.peers import _as_captures, _tensors, _transformer_lens
    from tfdebug.core.recorder import held_bytes

    with tempfile.TemporaryDirectory(prefix="tfdebug-scale-") as folder:
        made = _transformer_lens(model, folder)
        if made is None:
            return {"status": "not installed"}
        version, api, _plain, cached = made
        with torch.no_grad():
            cache = cached(ids)
        tensors = _tensors(cache)
        return {"version": version, "api": api, "tensors_kept": len(tensors),
                "held_bytes": held_bytes(_as_captures(tensors))}


def _in_child(variant: str, shape: str, seq_len: int, timeout: float) -> dict:
    """`child(...)` in a fresh interpreter (`bench.child.run_child`)."""
    return run_child("tfdebug.bench.scale", variant, shape, seq_len, timeout)


def _need(variant: str, config: BenchConfig) -> int:
    """A variant's estimated bytes beyond the model (what decides whether it runs)."""
    activations = 20 * config.n_layer * config.seq_len * config.n_embd * 4
    if variant == "materialised":
        return plane_bytes(config, 4) + activations  # scores, scaled, masked, probs kept per head
    if variant == "transformer_lens":
        return transformer_lens_need(config)
    if variant == "window":  # one layer's tensors, the mask, a few float32 planes of one head
        return activations // config.n_layer + 6 * config.seq_len ** 2 * 4
    return activations + plane_bytes(config, 2) // config.n_layer  # one layer's transient planes


def scale_section(profile: str, lengths: tuple[int, ...] | None = None, cap_bytes: int = DEFAULT_CAP,
                  timeout: float = 1500.0, plan_peak: bool = True) -> dict:
    """A row per (length, variant); a variant whose need is above `cap_bytes` is stated, not run; with
    `plan_peak`, the plan's stated peak against the measured one on SmolLM-135M's shape (`bench.plan_peak`:
    2k and 8k tokens, 32k in full, or `lengths`)."""
    from tfdebug.adapters.hf.load import transformers_available

    if not transformers_available():
        return {}
    shape = "tiny" if profile == "tiny" else "gpt2"
    rows = []
    for seq_len in lengths or LENGTHS[profile]:
        config = _config(shape, seq_len)
        for variant in VARIANTS:
            need = _need(variant, config)
            if need > cap_bytes:
                rows.append({"variant": variant, "seq_len": seq_len, "status": "not run: needs more than the cap",
                             "need_bytes": need})
                continue
            row = _in_child(variant, shape, seq_len, timeout)
            row["need_bytes"] = need
            rows.append(row)
    layers, width, heads, vocab = SHAPES[shape]
    result = {"n_layer": layers, "n_embd": width, "n_heads": heads, "vocab_size": vocab, "cap_bytes": cap_bytes,
              "view": list(VIEW), "rows": rows}
    if plan_peak:
        from tfdebug.bench.plan_peak import plan_peak_rows

        result["plan_peak"] = plan_peak_rows(profile, lengths, timeout)
    return result


COLUMNS = ["seq_len", "variant", "status", "seconds", "held_bytes", "held_bytes_per_token", "plan_bytes",
           "peak_rss_bytes", "peak_above_before_bytes", "need_bytes", "show_one_head_ms", "f10_painted_probs_ms"]


def format_scale(result: dict) -> list[str]:
    """The report's lines for the long-prompt section."""
    from tfdebug.bench.plan_peak import format_plan_peak

    return ["", f"Long prompts (HF GPT-2 shape, {result['n_layer']} layers × {result['n_embd']}, {result['n_heads']} "
                f"heads; each row a child process of its own; not run above {result['cap_bytes'] / 2**30:.0f} GiB)"] \
        + table(result["rows"], COLUMNS) + (format_plan_peak(result["plan_peak"]) if result.get("plan_peak") else [])
