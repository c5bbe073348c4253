"""`tfdebug bench --section why`: the logit lens, the attribution and a patching sweep against the plain forward.

On a Llama shape with SmolLM-135M's width (576, 9 heads, 3 KV heads, 1,536 hidden, a 49,152-token vocabulary;
30 layers in the full profile), random weights, a word prompt: each row times one operation the Why This
Output dock runs, beside the model's own plain forward on the same tokens in the same run, with the plain
forward's A/A (its two halves). Rows:
- `lens_screen`: one screen of the Lens (every residual row × the last 48 positions) at 1k tokens;
- `attribution`: the attribution of one position at 1k tokens;
- `sweep`: a residual patching sweep (rows × positions) at 64 tokens, and per forward.
The capture the lens reads (a pass with every stage kept) is timed too: it is what F5 costs before the dock.

Where TransformerLens 4 is installed (the `peers` extra), the same operations run through its bridge on the same
model and tokens, timed against the same plain forward (`transformer_lens` rows): `run_with_cache`; the lens of the
same screen (`accumulated_resid(apply_ln=True)` through W_U, softmax and top-5); the attribution of the same
position (`decompose_resid` and every head's `stack_head_results` through `logit_attrs`); and
`get_act_patch_resid_pre`'s patch (`generic_activation_patch` of `resid_pre` by layer and position), one forward
a cell, on the same clean and corrupted texts: on every cell of the grid where the profile's `peer_cells` is
None, else on that many cells spread evenly over it (`index_df`; at 30 layers the whole grid is ~2,000 forwards,
an hour on two cores), timed per cell like ours.

Each row goes to stderr as it is made (`timing.note`), so a run cut off keeps what it had.
"""

from __future__ import annotations

import tempfile
import time
from pathlib import Path

from tfdebug.bench.noise import halves_ratio
from tfdebug.bench.timing import median, note

SHAPES = {"tiny": {"layers": 2, "hidden": 64, "heads": 4, "kv_heads": 2, "intermediate": 128, "vocab": 512,
                   "lens_tokens": 64, "sweep_tokens": 8, "peer_cells": None},
          "quick": {"layers": 4, "hidden": 576, "heads": 9, "kv_heads": 3, "intermediate": 1536, "vocab": 49_152,
                    "lens_tokens": 1024, "sweep_tokens": 64, "peer_cells": None},
          "full": {"layers": 30, "hidden": 576, "heads": 9, "kv_heads": 3, "intermediate": 1536, "vocab": 49_152,
                   "lens_tokens": 1024, "sweep_tokens": 64, "peer_cells": 128}}
SCREEN = 48  # positions the Lens computes when it opens (ui.features.why.lens_view.FIRST_POSITIONS)


def _model_folder(shape: dict, folder: Path) -> Path:
    from tfdebug.bench.real_size import LLAMA_1B, _tokenizer, build_random
    import torch

    config = dict(LLAMA_1B, vocab_size=shape["vocab"], hidden_size=shape["hidden"],
                  intermediate_size=shape["intermediate"], num_hidden_layers=shape["layers"],
                  num_attention_heads=shape["heads"], num_key_value_heads=shape["kv_heads"],
                  head_dim=shape["hidden"] // shape["heads"])
    model = build_random(config, torch.float32)
    model.save_pretrained(str(folder))
    _tokenizer().save(str(folder / "tokenizer.json"))
    return folder


def _prompt(tokens: int) -> str:
    from tfdebug.bench.real_size import WORDS

    return " ".join(f"w{2 + i % (WORDS - 2)}" for i in range(tokens))


def _plain(adapter, prepared, repeats: int) -> list[float]:
    import torch

    times = []
    with torch.no_grad():
        adapter.plain_forward(prepared)  # warm-up: the first call allocates and picks its kernels
    for _ in range(repeats):
        start = time.perf_counter()
        with torch.no_grad():
            adapter.plain_forward(prepared)
        times.append((time.perf_counter() - start) * 1000.0)
    return times


def _timed(fn, repeats: int) -> tuple[list[float], object]:
    times, result = [], None
    for _ in range(repeats):
        start = time.perf_counter()
        result = fn()
        times.append((time.perf_counter() - start) * 1000.0)
    return times, result


def _row(rows: list[dict], who: str, name: str, samples: list[float], plain: list[float], count: int,
         **extra) -> None:
    """One timed row (median of `samples` against the median of `plain`, with its A/A) added to `rows` and noted."""
    rows.append({"row": name, "tokens": count, "median_ms": round(median(samples), 2),
                 "plain_forward_ms": round(median(plain), 2), "ratio": round(median(samples) / median(plain), 3),
                 "plain_aa_ratio": halves_ratio(plain), **extra})
    note(who, rows[-1])


def _sweep_row(rows: list[dict], who: str, took_ms: float, cells: int, plain: list[float], count: int,
               **extra) -> None:
    """A sweep's row: `cells` patched in `took_ms`, per cell against the plain forward of the same tokens."""
    rows.append({"row": "sweep", "tokens": count, "forwards": cells, "median_ms": round(took_ms, 1),
                 "per_forward_ms": round(took_ms / cells, 2), "plain_forward_ms": round(median(plain), 2),
                 "ratio": round(took_ms / cells / median(plain), 3), "plain_aa_ratio": halves_ratio(plain), **extra})
    note(who, rows[-1])


def why_section(profile: str = "quick", repeats: int = 4) -> dict:
    """Every row of the section (milliseconds, with each row's ratio to the plain forward of the same tokens)."""
    from tfdebug.adapters.registry import load_adapter
    from tfdebug.sessions.patching import Patcher
    from tfdebug.sessions.session import DebugSession
    from tfdebug.sessions.why import finished_pass

    shape = SHAPES[profile]
    out: dict = {"shape": {k: v for k, v in shape.items()}, "repeats": repeats, "rows": []}
    rows = out["rows"]
    with tempfile.TemporaryDirectory(prefix="tfdebug-bench-why-") as tmp:
        adapter = load_adapter(f"hf:{_model_folder(shape, Path(tmp))}")
        texts = {"prompt": _prompt(shape["lens_tokens"])}
        prepared = DebugSession(adapter, texts, planning="lazy").prepared
        plain = _plain(adapter, prepared, repeats * 2)
        capture, finished = _timed(lambda: finished_pass(adapter, texts=texts), max(2, repeats // 2))
        count = finished.tensor("logits").shape[0]
        _row(rows, "tfdebug", "capture_all_stages", capture, plain, count)
        screen = list(range(max(0, count - SCREEN), count))
        lens, _ = _timed(lambda f=finished: f.lens(screen), repeats)
        _row(rows, "tfdebug", "lens_screen", lens, plain, count, cells=len(finished.rows) * len(screen))
        target = int(finished.tensor("logits")[-1].argmax())
        attribution, _ = _timed(lambda f=finished: f.attribute(target, None, -1), repeats)
        _row(rows, "tfdebug", "attribution", attribution, plain, count)
        peer_lens = {"texts": texts, "screen": screen, "target": target}
        del finished
        clean = _prompt(shape["sweep_tokens"])
        corrupt = " ".join(["w1", *clean.split()[1:]])  # the first word changed: every later cell can carry it
        clean_texts = {"prompt": clean}
        patcher = Patcher(adapter, clean_texts, {"prompt": corrupt})
        short = DebugSession(adapter, clean_texts, planning="lazy").prepared
        plain_short = _plain(adapter, short, repeats * 2)
        target = int(patcher.logits(patcher.clean)[0, -1].argmax())
        contrast = int(patcher.logits(patcher.corrupt)[0, -1].argmax())
        start = time.perf_counter()
        sweep = patcher.sweep(target, contrast if contrast != target else None)
        _sweep_row(rows, "tfdebug", (time.perf_counter() - start) * 1000.0, sweep.forwards, plain_short,
                   patcher.count, batch=sweep.batch, batches=sweep.batches)  # the cells, run batched
        peers = _transformer_lens_rows(adapter, Path(tmp), peer_lens, (clean, corrupt), (target, contrast),
                                       (plain, plain_short), repeats, shape["peer_cells"])
        if peers is not None:
            out["transformer_lens"] = peers
    return out


def _transformer_lens_rows(adapter, folder: Path, lens: dict, texts: tuple[str, str], tokens: tuple[int, int],
                           plain: tuple[list[float], list[float]], repeats: int, cells: int | None) -> dict | None:
    """The same rows through TransformerLens 4's bridge on the same model and token ids (None where it is not
    installed): each against this section's plain forward of the same tokens; its sweep on `cells` cells spread
    over the grid (None: every cell)."""
    from importlib import metadata
    from importlib.util import find_spec

    if find_spec("transformer_lens") is None:
        return None
    import torch
    from transformer_lens import patching
    from transformer_lens.model_bridge import TransformerBridge

    model = adapter.model_root
    bridge = TransformerBridge.boot_transformers(str(folder), hf_model=model, device="cpu")
    bridge.enable_compatibility_mode(disable_warnings=True, fold_value_biases=False)
    ids = ids_of(adapter, lens["texts"]["prompt"])
    rows: list[dict] = []
    full, short = plain
    with torch.no_grad():
        capture, (logits, cache) = _timed(lambda: bridge.run_with_cache(ids), max(2, repeats // 2))
        count = int(ids.shape[-1])
        _row(rows, "TransformerLens", "capture_all_stages", capture, full, count)
        screen = lens["screen"]

        def screen_lens(cache=cache):
            resid = cache.accumulated_resid(apply_ln=True, pos_slice=slice(screen[0], screen[-1] + 1))
            probs = torch.softmax(resid[:, 0] @ bridge.W_U + bridge.b_U, dim=-1)
            return probs.topk(5, dim=-1)
        lens_ms, _ = _timed(screen_lens, repeats)
        _row(rows, "TransformerLens", "lens_screen", lens_ms, full, count,
             cells=(len(bridge.blocks) + 1) * len(screen))

        def attribution(cache=cache):
            parts = cache.decompose_resid(apply_ln=True, pos_slice=-1)
            heads = cache.stack_head_results(layer=-1, pos_slice=-1, apply_ln=True)
            stack = torch.cat([parts, heads], dim=0)
            return cache.logit_attrs(stack, tokens=torch.tensor([lens["target"]]), pos_slice=-1)
        attribution_ms, _ = _timed(attribution, repeats)
        _row(rows, "TransformerLens", "attribution", attribution_ms, full, count)
        del cache, logits, screen_lens, attribution  # the 1k-token cache goes before the sweep's
        clean_ids, corrupt_ids = (ids_of(adapter, text) for text in texts)
        _, clean_cache = bridge.run_with_cache(clean_ids)
        target, contrast = tokens

        def metric(logits):
            return logits[0, -1, target] - (logits[0, -1, contrast] if contrast != target else 0.0)
        grid = _spread_cells(len(bridge.blocks), int(corrupt_ids.shape[-1]), cells)
        start = time.perf_counter()
        resid = patching.generic_activation_patch(bridge, corrupt_ids, clean_cache, metric,
                                                  patching.layer_pos_patch_setter, "resid_pre", index_df=grid)
        took = (time.perf_counter() - start) * 1000.0
    _sweep_row(rows, "TransformerLens", took, int(resid.numel()), short, int(corrupt_ids.shape[-1]),
               grid=len(bridge.blocks) * int(corrupt_ids.shape[-1]))
    return {"version": metadata.version("transformer-lens"), "rows": rows}


def _spread_cells(layers: int, positions: int, cells: int | None):
    """TransformerLens's `index_df` of (layer, pos) cells: every one (None), else `cells` spread evenly over the
    layers × positions grid, so the cells sampled cost what the grid's cells cost on average."""
    import pandas as pd

    grid = [(layer, pos) for layer in range(layers) for pos in range(positions)]
    if cells is not None and cells < len(grid):
        grid = [grid[i * len(grid) // cells] for i in range(cells)]
    return pd.DataFrame(grid, columns=["layer", "pos"])


def ids_of(adapter, text: str):
    """The token ids (1, tokens) `adapter` prepares for the one-prompt input `text`."""
    import torch

    prepared = adapter.prepare({"prompt": text})
    ids = prepared.kwargs.get("input_ids")
    return ids if isinstance(ids, torch.Tensor) else next(v for v in prepared.args if isinstance(v, torch.Tensor))


def format_why(section: dict) -> list[str]:
    """The section as lines of text (`tfdebug bench` prints them)."""
    lines = ["Why this output (ms; ratio to the plain forward of the same tokens, its A/A beside):"]
    for row in section["rows"]:
        extra = f", {row['forwards']} cells, {row['per_forward_ms']} ms each" if "forwards" in row else ""
        if "batches" in row:
            extra += f" (in {row['batches']} forwards of {row['batch']})"
        lines.append(f"  {row['row']:<20} {row['tokens']:>5} tokens  {row['median_ms']:>10} ms  "
                     f"×{row['ratio']}  (plain {row['plain_forward_ms']} ms, A/A {row['plain_aa_ratio']}){extra}")
    peers = section.get("transformer_lens")
    if peers:
        lines.append(f"  TransformerLens {peers['version']} on the same model and tokens:")
        for row in peers["rows"]:
            extra = f", {row['forwards']} cells, {row['per_forward_ms']} ms each" if "forwards" in row else ""
            if "grid" in row and row["grid"] != row["forwards"]:
                extra += f" (spread over the grid's {row['grid']})"
            lines.append(f"  {row['row']:<20} {row['tokens']:>5} tokens  {row['median_ms']:>10} ms  "
                         f"×{row['ratio']}  (plain {row['plain_forward_ms']} ms){extra}")
    return lines
