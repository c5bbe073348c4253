"""`tfdebug bench --section backward`'s real-size row: SmolLM-135M's shape at 2,048 tokens in float32.

A Llama of SmolLM-135M's shape (30 layers, 576 wide, 9 heads / 3 KV heads, a 1,536-wide feed-forward, a
49,152-token vocabulary; random weights, `bench.real_size.build_random`) reads 2,048 random token ids. In a child
process of its own (`bench.child.run_child`), the pass is planned (shapes only), the backward's peak is stated from
the plan (`sessions.backward_peak.backward_peak`) and checked against the default capture budget
(`core.budget.default_capture_budget`), then the next-token cross-entropy's backward runs with every stage's
gradient captured (`sessions.backward.run_backward`, the attention planes' gradients as recipes). The row gives the
stated peak, the peak RSS measured above the RSS before the backward, their ratio (≤ 1: the statement held), the
budget and the seconds. `--profile full` measures this shape; `tiny` a 2-layer model of the same kind (tests).
"""

from __future__ import annotations

SHAPES = {"smol135m": {"num_hidden_layers": 30, "hidden_size": 576, "num_attention_heads": 9,
                       "num_key_value_heads": 3, "intermediate_size": 1536, "vocab_size": 49_152, "head_dim": 64},
          "tiny": {"num_hidden_layers": 2, "hidden_size": 64, "num_attention_heads": 4, "num_key_value_heads": 2,
                   "intermediate_size": 128, "vocab_size": 512, "head_dim": 16}}
TOKENS = {"smol135m": 2048, "tiny": 64}


def _model(shape: str, seq_len: int):
    """(adapter, prepared) of a random float32 Llama of `shape` on `seq_len` random token ids, eager attention."""
    import torch

    from tfdebug.adapters.base import Prepared
    from tfdebug.adapters.hf.adapter import wrap
    from tfdebug.bench.real_size import LLAMA_1B, build_random

    config = dict(LLAMA_1B, **SHAPES[shape], max_position_embeddings=max(2048, seq_len))
    model = build_random(config, torch.float32)
    model.config._attn_implementation_internal = "eager"
    ids = torch.randint(0, config["vocab_size"], (1, seq_len), generator=torch.Generator().manual_seed(0))
    adapter = wrap(model, tokenizer=None, name=f"llama {shape}")
    return adapter, Prepared(texts={}, kwargs={"input_ids": ids, "use_cache": False})


def child(variant: str, shape: str, seq_len: int) -> dict:
    """The stated peak, then the backward (in this fresh process) and its measured peak RSS above before it."""
    import gc

    import torch

    from tfdebug.bench.peak_span import PeakSpan, stated_against_measured
    from tfdebug.core.budget import default_capture_budget
    from tfdebug.core.plan import plan_pass
    from tfdebug.sessions.backward import run_backward
    from tfdebug.sessions.backward_peak import backward_peak, parameter_bytes

    adapter, prepared = _model(shape, seq_len)
    with torch.no_grad():
        plan = list(plan_pass(adapter.module, lambda: adapter.forward(prepared), [prepared.kwargs["input_ids"]],
                              method="auto"))
    budget = default_capture_budget(adapter.device)
    stated = backward_peak(plan, parameter_bytes(adapter.module))  # the planes made again, as below
    fits = budget is None or stated <= budget  # else a window here refuses it in one sentence; measured anyway
    gc.collect()
    span = PeakSpan()
    result = run_backward(adapter, prepared)  # no plan: the planes autograd saves are made again
    seconds = span.seconds()
    measured = span.above()
    return {"variant": variant, "shape": shape, "seq_len": seq_len, "stages": len(plan),
            "gradients": len(result.gradients), "loss": round(result.loss, 6), "seconds": seconds,
            "budget_bytes": budget, "fits_budget": fits, "stated_peak_bytes": stated, "rss_before_bytes": span.before,
            "peak_above_before_bytes": measured, **stated_against_measured(stated, measured)}


def real_size_row(profile: str, timeout: float = 1800.0) -> dict:
    """The row in a child process (`full`: SmolLM-135M's shape at 2,048 tokens; `tiny`: 2 layers at 64)."""
    from tfdebug.bench.child import run_child

    shape = "tiny" if profile == "tiny" else "smol135m"
    return run_child("tfdebug.bench.backward_real", "tfdebug", shape, TOKENS[shape], timeout)


def format_real_size(row: dict) -> list[str]:
    """The row as lines of text."""
    if row.get("status") != "ok":
        return [f"  real size ({row.get('seq_len')} tokens): {row.get('status')}"]
    mib = 2**20
    budget = f"{row['budget_bytes'] / mib:,.0f} MiB" if row.get("budget_bytes") else "no limit"
    return [f"  real size: {row['shape']} in float32 at {row['seq_len']} tokens, {row['gradients']} gradients in "
            f"{row['seconds']} s (loss {row['loss']}); peak stated before it ran {row['stated_peak_bytes'] / mib:,.0f} "
            f"MiB, measured {row['peak_above_before_bytes'] / mib:,.0f} MiB above before (×{row['measured_over_stated']}"
            f", {'held' if row['held'] else 'NOT held'}); default budget {budget}"
            f"{'' if row['fits_budget'] else ' (over it: refused there before it runs; measured here without it)'}"
            "  (child process)"]
