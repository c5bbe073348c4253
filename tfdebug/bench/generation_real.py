"""Generation against `model.generate` on the real path: SmolLM-135M's shape, per token, every stage captured.

A Llama of SmolLM-135M's shape (30 layers, 576 wide, 9 heads / 3 KV heads, a 1,536-wide feed-forward, a
49,152-token vocabulary; random weights in float32 on the CPU, `bench.real_size.build_random`) generates
`new_tokens` tokens greedily after a prompt of `prompt` tokens (the bundled tiny-gpt2 tokenizer's ids). A token's
time is the interval between two consecutive tokens (the prompt's step left out: after warm-up, what a token costs),
the median over every interval of every timed run. Variants, interleaved within each repeat:

- generate:        `model.generate(..., do_sample=False)` with its own KV cache (a stopping criterion stamps each
                   token; it returns False, so it changes nothing)
- capture_all:     a GenerationSession capturing every stage of every step, as `tfdebug generate --out` runs it
- window:          the same session's Stepper started and continued to its end, as the window's Continue runs it
                   (the default capture budget, the worker thread, the history)
- generate_again:  generate a second time; its ratio to the first is the A/A noise.

Each median is also taken in the process's CPU time (`*_cpu_ms`, `cpu_ratio_*`): on a machine other processes keep
busy, wall-clock intervals wait for a core, CPU time much less.

Both tfdebug variants must choose the tokens generate() chose (`same_tokens`). `real_generation_row` measures it in
a fresh process that opted in to the allocator tuning, as the application does (`tfdebug bench --generation`, and the
generation section of `--full`); a few minutes on 2 cores, about 3 GB at its peak (the captures of one generation).
"""

from __future__ import annotations

import time
from typing import Any

#: the model's shape (`bench.backward_real.SHAPES`), the prompt's length and the tokens generated; "smol135m-2k" is a
#: long prompt, where a step's cache is 94 MB (what each step kept a copy of before `adapters.hf.kv_rows`)
SHAPES = {"smol135m": {"model": "smol135m", "prompt": 256, "new_tokens": 32},
          "smol135m-2k": {"model": "smol135m", "prompt": 1984, "new_tokens": 16},
          "tiny": {"model": "tiny", "prompt": 8, "new_tokens": 4}}
VARIANTS = ("generate", "capture_all", "window", "generate_again")


def _model(shape: str) -> tuple[Any, Any]:
    """(model, tokenizer) of a random float32 Llama of `shape` (bench.backward_real.SHAPES) and the tiny-gpt2
    tokenizer."""
    import torch
    import transformers

    from tfdebug.bench.backward_real import SHAPES as MODEL_SHAPES
    from tfdebug.bench.real_size import LLAMA_1B, build_random
    from tfdebug.models.bundled import demo_dir

    tokenizer = transformers.AutoTokenizer.from_pretrained(str(demo_dir().parent / "tiny-gpt2"))
    config = dict(LLAMA_1B, **MODEL_SHAPES[shape], max_position_embeddings=2048)
    config["vocab_size"] = max(config["vocab_size"], len(tokenizer))
    return build_random(config, torch.float32), tokenizer


class _Stamps:
    """A stopping criterion for generate() that stamps each token and never stops it."""

    def __init__(self, stamps: list[tuple[float, float]]):
        self.stamps = stamps

    def __call__(self, input_ids, scores, **kwargs):
        import torch

        self.stamps.append((time.perf_counter(), time.process_time()))
        return torch.zeros(input_ids.shape[0], dtype=torch.bool, device=input_ids.device)


def hf_real_generation_row(repeats: int = 3, shape: str = "smol135m", budget: str = "auto") -> dict | None:
    """The row (per-token medians in ms, ratios to generate, A/A, same_tokens); None without transformers."""
    from tfdebug.adapters.hf.load import transformers_available

    if not transformers_available():
        return None
    import torch
    import transformers

    from tfdebug.adapters.hf.adapter import wrap
    from tfdebug.bench.timing import median
    from tfdebug.core.budget import default_capture_budget
    from tfdebug.core.stepper import FINISHED, PAUSED
    from tfdebug.models.sampling import DecodingSettings
    from tfdebug.sessions.generation import GenerationSession

    s = SHAPES[shape]
    model, tokenizer = _model(s["model"])
    adapter = wrap(model, tokenizer, name="bench")
    n = s["new_tokens"]
    words = " ".join(["the cat sat on the mat"] * (s["prompt"] // 10 + 2))  # 10 tokens each with this tokenizer
    ids = adapter.prepare({"prompt": words}).kwargs["input_ids"][:, : s["prompt"]]
    settings = DecodingSettings(max_new_tokens=n, stop_at_eos=False)
    max_bytes = default_capture_budget(adapter.device) if budget == "auto" else None
    session = GenerationSession(adapter, {"prompt": tokenizer.decode(ids[0])}, settings, max_capture_bytes=max_bytes)
    ids = session.prepared.kwargs["input_ids"]
    made: dict[str, list[int]] = {}
    stages: list[int] = []
    held: list[tuple[int, int]] = []  # (the captured stages' sizes, the distinct storages they hold), in bytes

    def generate(stamps: list[tuple[float, float]]) -> list[int]:
        criteria = transformers.StoppingCriteriaList([_Stamps(stamps)])
        with torch.no_grad():
            out = model.generate(input_ids=ids, attention_mask=torch.ones_like(ids), max_new_tokens=n,
                                 min_new_tokens=n, do_sample=False, pad_token_id=0, stopping_criteria=criteria)
        return out[0, ids.shape[1]:].tolist()

    def stamping(stamps: list[tuple[float, float]]) -> None:
        session.on_choice = lambda _choice: stamps.append((time.perf_counter(), time.process_time()))

    def capture_all(stamps: list[tuple[float, float]]) -> list[int]:
        stamping(stamps)
        captures, choices = session.capture_all()
        stages.append(len(captures))
        held.append(_held(captures))
        del captures
        return [c.id for c in choices]

    def window(stamps: list[tuple[float, float]]) -> list[int]:
        stamping(stamps)
        stepper = session.stepper
        stepper.start()
        if stepper.wait(timeout=None) != PAUSED:
            raise RuntimeError(f"the generation did not pause at its first stage: {stepper.error}")
        stepper.continue_()
        if stepper.wait(timeout=None) != FINISHED:
            raise RuntimeError(f"the generation did not finish: {stepper.error}")
        stages.append(len(stepper.history))
        chosen = [c.id for c in session.choices]
        stepper.forget_history()
        return chosen

    runs = {"generate": generate, "capture_all": capture_all, "window": window, "generate_again": generate}
    samples: dict[str, list[float]] = {name: [] for name in VARIANTS}
    cpu: dict[str, list[float]] = {name: [] for name in VARIANTS}
    for i in range(repeats + 1):  # the first round warms up
        for name, fn in runs.items():
            stamps: list[tuple[float, float]] = []
            made[name] = fn(stamps)
            if i:
                samples[name] += [(b[0] - a[0]) * 1000.0 for a, b in zip(stamps, stamps[1:])]
                cpu[name] += [(b[1] - a[1]) * 1000.0 for a, b in zip(stamps, stamps[1:])]
    session.close()
    ms = {name: median(values) for name, values in samples.items()}
    cpu_ms = {name: median(values) for name, values in cpu.items()}
    same = all(made[name] == made["generate"] for name in ("capture_all", "window"))
    return {"model": f"llama {shape} ({sum(p.numel() for p in model.parameters()) / 1e6:.0f}M, float32)",
            "prompt": int(ids.shape[1]), "new_tokens": n, "dtype": "float32", "device": str(adapter.device),
            "same_tokens": same,
            "stages_captured": stages[-1], "threads": torch.get_num_threads(), "budget_bytes": max_bytes,
            # what the command line's captures of one generation hold: every stage's size summed, and the memory under
            # them (a stage that is a view of another's storage, as each step's K/V cache is, adds nothing)
            "captured_mb": round(held[-1][0] / 2**20, 3), "captures_hold_mb": round(held[-1][1] / 2**20, 3),
            **{f"{name}_ms": round(value, 3) for name, value in ms.items()},
            "ratio_capture_all": round(ms["capture_all"] / ms["generate"], 3),
            "ratio_window": round(ms["window"] / ms["generate"], 3),
            "aa_ratio": round(ms["generate_again"] / ms["generate"], 3),
            # the same medians in this process's CPU time (every thread's): what other processes' load leaves alone
            **{f"{name}_cpu_ms": round(value, 3) for name, value in cpu_ms.items()},
            "cpu_ratio_capture_all": round(cpu_ms["capture_all"] / cpu_ms["generate"], 3),
            "cpu_ratio_window": round(cpu_ms["window"] / cpu_ms["generate"], 3),
            "cpu_aa_ratio": round(cpu_ms["generate_again"] / cpu_ms["generate"], 3)}


def _held(captures) -> tuple[int, int]:
    """(the sizes of the captures' tensors summed, the bytes of the distinct storages under them)."""
    from tfdebug.core.recorder import held_bytes

    return sum(c.nbytes for c in captures if c.tensor is not None and not c.recipe), held_bytes(captures)


def real_generation_row(repeats: int = 3, shape: str = "smol135m") -> dict | None:
    """The row measured in a fresh process that opted in to the allocator tuning, as the `tfdebug` application
    (window and CLI) does at start-up (`bench.timing.in_opted_in_process`); None without transformers, a row with
    a `status` when the child fails."""
    from tfdebug.adapters.hf.load import transformers_available
    from tfdebug.bench.timing import in_opted_in_process

    if not transformers_available():
        return None
    row = in_opted_in_process("tfdebug.bench.generation_real:hf_real_generation_row", repeats, shape)
    return row if row is not None else {"model": f"llama {shape}", "device": "cpu", "generate_ms": None, "window_ms": None,
                                        "status": "failed (its child process)"}


COLUMNS = ["model", "prompt", "new_tokens", "same_tokens", "generate_ms", "capture_all_ms", "ratio_capture_all",
           "window_ms", "ratio_window", "aa_ratio", "cpu_ratio_capture_all", "cpu_ratio_window", "cpu_aa_ratio",
           "captured_mb", "captures_hold_mb"]


def format_hf_real_generation(row: dict) -> list[str]:
    """The report's lines for the real-path row against `model.generate`."""
    from tfdebug.bench.timing import table

    if row.get("status"):
        return ["", f"Generation against model.generate on SmolLM-135M's shape ({row['model']}): {row['status']}"]
    return ["", "Generation against model.generate on SmolLM-135M's shape, per token (median ms between consecutive "
                "tokens after the prompt; A/A = generate timed twice)"] + table([row], COLUMNS)
