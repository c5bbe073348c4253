"""Growth with size (`tfdebug bench --scale`): capture-all against the plain forward on the GPT-2 shape
(n_embd 768, 12 heads) as the sequence and the depth grow.

Two lines through the grid: the sequence at 6 layers, and the depth at 256 tokens (a
full grid at 4,096 tokens × 24 layers would hold ~100 GB of stages). Each point: the
plain eager forward and the capture under the default capture budget (half the free
memory), interleaved with the plain forward again (A/A); bytes captured against the
sum of the plan's stage sizes; the stages the budget dropped. The summary fits the
capture's extra milliseconds to the megabytes it kept.
"""

from __future__ import annotations

from tfdebug.bench.capture import BenchConfig
from tfdebug.bench.timing import interleaved_ms, median, table

# profile -> (sequence lengths at 6 layers, layer counts at 256 tokens, repeats)
GRIDS = {"tiny": ((8, 16), (1, 2), 1), "quick": ((64, 256), (2, 6), 2),
         "default": ((64, 256, 1024), (2, 6, 12), 2), "full": ((64, 256, 1024, 4096), (2, 6, 12, 24), 3)}


def _point(config: BenchConfig, repeats: int) -> dict:
    import torch

    from tfdebug.adapters.base import Prepared
    from tfdebug.adapters.hf.adapter import wrap
    from tfdebug.bench.hf import build_gpt2
    from tfdebug.core.budget import CaptureBudget, default_capture_budget
    from tfdebug.core.plan import plan_pass
    from tfdebug.core.recorder import Recorder, held_bytes

    model, ids = build_gpt2(config)
    model.config._attn_implementation_internal = "eager"
    adapter = wrap(model, tokenizer=None, name="bench")
    prepared = Prepared(texts={}, kwargs={"input_ids": ids, "use_cache": False})
    plan = plan_pass(adapter.module, lambda: adapter.forward(prepared), [ids])
    limit = default_capture_budget(adapter.device)
    kept: dict[str, object] = {}

    def plain():
        with torch.no_grad():
            return model(**prepared.kwargs).logits

    def capture():
        budget = CaptureBudget(limit)
        with torch.no_grad(), Recorder(adapter.module, on_capture=budget.keep_or_drop) as rec:
            adapter.forward(prepared)
        kept.update(captured=held_bytes(rec.captures), dropped=len(budget.dropped),
                    first_dropped=budget.dropped[0] if budget.dropped else None)
        return rec.captures

    times = interleaved_ms({"plain": plain, "capture_all": capture, "plain_again": plain}, repeats, warmup=1)
    ms = {k: median(v) for k, v in times.items()}
    plan_bytes = sum(c.nbytes for c in plan)
    return {"seq_len": config.seq_len, "n_layer": config.n_layer, "plain_ms": round(ms["plain"], 1),
            "capture_all_ms": round(ms["capture_all"], 1),
            "ratio_capture_all": round(ms["capture_all"] / ms["plain"], 4),
            "ratio_plain_again": round(ms["plain_again"] / ms["plain"], 4),
            "plan_bytes": plan_bytes, "captured_bytes": kept["captured"], "budget_bytes": limit,
            "stages": len(plan), "dropped": kept["dropped"], "first_dropped": kept["first_dropped"],
            "plan_method": plan.method}


def growth_summary(points: list[dict]) -> str:
    """One line: the capture's extra ms per captured MB (least squares through the origin) and where the budget bit."""
    pairs = [(p["captured_bytes"] / 1e6, p["capture_all_ms"] - p["plain_ms"]) for p in points if p["captured_bytes"]]
    if not pairs:
        return "nothing was captured"
    slope = sum(mb * extra for mb, extra in pairs) / sum(mb * mb for mb, _ in pairs)
    ratios = [p["ratio_capture_all"] for p in points]
    line = (f"capture cost ∝ bytes kept: {slope:.3f} ms per MB captured (capture-all / plain from "
            f"{min(ratios):.2f}× to {max(ratios):.2f}×)")
    dropping = [p for p in points if p["dropped"]]
    if dropping:
        first = min(dropping, key=lambda p: p["plan_bytes"])
        line += (f"; the budget starts dropping stages at seq {first['seq_len']} × {first['n_layer']} layers "
                 f"({first['plan_bytes'] / 1e9:.1f} GB planned, {first['budget_bytes'] / 1e9:.1f} GB budget)")
    else:
        line += "; the budget dropped no stage at these sizes"
    return line


def scale_section(profile: str) -> dict:
    """The points of the profile's grid and the one-line summary; empty without transformers."""
    from tfdebug.adapters.hf.load import transformers_available

    if not transformers_available():
        return {}
    seqs, layers, repeats = GRIDS[profile]
    width = (32, 4) if profile == "tiny" else (768, 12)
    shapes = [(s, 6 if profile != "tiny" else 1) for s in seqs] + [(256 if profile != "tiny" else 8, n)
                                                                  for n in layers]
    points = []
    for seq, n_layer in dict.fromkeys(shapes):
        config = BenchConfig(f"hf-gpt2 {n_layer}x{width[0]} seq {seq}", n_layer, width[0], width[1], seq,
                             50 if profile == "tiny" else 1000)
        points.append(_point(config, repeats))
    return {"width": width[0], "heads": width[1], "points": points, "summary": growth_summary(points)}


COLUMNS = ["seq_len", "n_layer", "plain_ms", "capture_all_ms", "ratio_capture_all", "ratio_plain_again",
           "plan_bytes", "captured_bytes", "dropped", "first_dropped", "plan_method"]


def format_scale(result: dict) -> list[str]:
    """The report's lines for the growth section."""
    return ["", f"Growth with size (HF GPT-2 shape, n_embd {result['width']}, {result['heads']} heads; capture "
                "under the default budget)"] + table(result["points"], COLUMNS) + [f"  {result['summary']}"]
