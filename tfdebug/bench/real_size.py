"""`tfdebug bench --real-size`: a model of Llama-3.2-1B's shape, in bfloat16, through the path a user takes.

Not part of the default run: it needs minutes and ~6 GB. The model (16 layers, hidden
2,048, 32 heads, 8 KV heads, vocabulary 128,256: 1.24 B parameters) gets random weights,
built on the meta device and materialised in one pass, is saved as a Hugging Face folder
(safetensors and a word-level tokenizer) and loaded back with `load_adapter("hf:FOLDER",
dtype="bfloat16")`, memory-mapping its weights. Rows: build, save and load time; time to
the first stage (planning the pass, then the stepper's first pause); the stepped pass to
its end; the plain forward; peak RSS against the default bound (40% of RAM); captured
bytes against the sum of the stage sizes under the default capture budget.
"""

from __future__ import annotations

import gc
import resource
import tempfile
import time
from pathlib import Path

LLAMA_1B = dict(vocab_size=128_256, hidden_size=2048, intermediate_size=8192, num_hidden_layers=16,
                num_attention_heads=32, num_key_value_heads=8, head_dim=64, max_position_embeddings=131_072,
                rope_theta=500_000.0, tie_word_embeddings=True, bos_token_id=0, eos_token_id=0, pad_token_id=0)
TINY = dict(LLAMA_1B, vocab_size=512, hidden_size=64, intermediate_size=128, num_hidden_layers=2,
            num_attention_heads=4, num_key_value_heads=2, head_dim=16)
WORDS = 200  # the tokenizer's vocabulary: word ids 0..199 (the model's vocabulary is larger)


def build_random(shape: dict, dtype):
    """A LlamaForCausalLM of `shape` with random weights in `dtype`: built on the meta device (no memory,
    no initialisation), then given storage and filled once (normal, std 0.02; norms 1)."""
    import torch
    import transformers

    config = transformers.LlamaConfig(**shape)
    with torch.device("meta"):
        model = transformers.LlamaForCausalLM(config).to(dtype)  # on meta: no memory, no copy
    model = model.to_empty(device="cpu")
    model.tie_weights()  # to_empty gave the tied embedding and lm_head storage each: one again
    generator = torch.Generator().manual_seed(0)
    with torch.no_grad():
        for name, param in model.named_parameters():
            if name.endswith("norm.weight"):
                param.fill_(1.0)
            else:
                param.normal_(0.0, 0.02, generator=generator)
    # The rotary frequencies are a buffer, not a weight: to_empty left them unset.
    model.model.rotary_emb = type(model.model.rotary_emb)(config)
    return model.eval()


def _tokenizer():
    from tokenizers import Tokenizer, models, pre_tokenizers

    tok = Tokenizer(models.WordLevel({f"w{i}": i for i in range(WORDS)}, unk_token="w1"))
    tok.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    return tok


def _rss() -> int:
    with open("/proc/self/statm", encoding="ascii") as statm:
        import os

        return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def real_size_section(seq_len: int = 128, tiny: bool = False) -> dict:
    """Every row of the section (seconds, bytes); `tiny` builds a 2-layer model of the same kind (tests)."""
    import torch
    import transformers  # noqa: F401  (imported before the clock starts)

    from tfdebug.adapters.registry import load_adapter
    from tfdebug.sessions.session import DebugSession
    from tfdebug.core.budget import KeepPolicy, default_capture_budget
    from tfdebug.core.recorder import held_bytes
    from tfdebug.core.stepper import FINISHED, PAUSED

    row = _header(tiny, seq_len)
    with tempfile.TemporaryDirectory(prefix="tfdebug-real-size-") as tmp:
        folder = Path(tmp)
        _build_and_save(TINY if tiny else LLAMA_1B, folder, row)
        start = time.perf_counter()
        adapter = load_adapter(f"hf:{folder}", dtype="bfloat16")
        row["load_s"] = time.perf_counter() - start
        row["rss_after_load_bytes"] = _rss()
        prompt = " ".join(f"w{i % WORDS}" for i in range(seq_len))
        budget = default_capture_budget(torch.device("cpu"))
        start = time.perf_counter()
        session = DebugSession(adapter, {"prompt": prompt}, max_capture_bytes=budget, keep=KeepPolicy())
        row["plan_s"] = time.perf_counter() - start
        stepper = session.stepper
        stepper.start()
        if stepper.wait(timeout=None) != PAUSED:
            raise RuntimeError(f"the pass did not pause at its first stage: {stepper.error}")
        row["first_stage_s"] = time.perf_counter() - start
        start = time.perf_counter()
        stepper.continue_()
        if stepper.wait(timeout=None) != FINISHED:
            raise RuntimeError(f"the pass did not finish: {stepper.error}")
        row["rest_of_pass_s"] = time.perf_counter() - start
        estimate = session.capture_estimate()
        row.update(stages=len(session.plan), stage_bytes=estimate.total_bytes,
                   captured_bytes=held_bytes(stepper.history), budget_bytes=budget,
                   kept=len(estimate.kept), dropped=len(estimate.dropped))
        start = time.perf_counter()
        with torch.no_grad():
            adapter.plain_forward(session.prepared)
        row["plain_forward_s"] = time.perf_counter() - start
        session.close()
    return _peak(row)


def _header(tiny: bool, seq_len: int) -> dict:
    import torch

    _restart_peak()
    shape = TINY if tiny else LLAMA_1B
    return {"shape": {k: shape[k] for k in ("num_hidden_layers", "hidden_size", "num_attention_heads",
                                             "num_key_value_heads", "vocab_size")},
            "dtype": "bfloat16", "seq_len": seq_len, "threads": torch.get_num_threads()}


def _build_and_save(shape: dict, folder: Path, row: dict) -> None:
    """Build the random model, save it as a Hugging Face folder with its tokenizer, and let it go; the rows
    build_s, parameters, rss_after_build_bytes, save_s and rss_before_load_bytes."""
    import torch

    start = time.perf_counter()
    model = build_random(shape, torch.bfloat16)
    row["build_s"] = time.perf_counter() - start
    row["parameters"] = sum(p.numel() for p in model.parameters())
    row["rss_after_build_bytes"] = _rss()
    start = time.perf_counter()
    model.save_pretrained(str(folder))
    _tokenizer().save(str(folder / "tokenizer.json"))
    row["save_s"] = time.perf_counter() - start
    del model
    gc.collect()
    row["rss_before_load_bytes"] = _rss()


def _restart_peak() -> None:
    """Count the peak RSS `_peak` reads from here: on Linux `5` written to /proc/self/clear_refs sets the
    kernel's high-water mark (VmHWM, which ru_maxrss reads) to the RSS now, so a section run in a process that
    held more before (a test worker after other tests) reports its own peak. Elsewhere the peak stays the
    process's whole life's."""
    try:
        with open("/proc/self/clear_refs", "w", encoding="ascii") as refs:
            refs.write("5")
    except OSError:
        pass


def high_water() -> int:
    """The process's peak RSS since `_restart_peak` (VmHWM; ru_maxrss where there is no /proc). Not ru_maxrss on
    Linux: a child process starts with its parent's high-water mark (fork copies it, exec keeps it), so a child of a
    test worker or of the timed runs would read its parent's peak."""
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def _peak(row: dict) -> dict:
    from tfdebug.core.budget import total_memory

    row["peak_rss_bytes"] = high_water()
    total = total_memory()
    row["ram_bytes"] = total
    row["peak_rss_share_of_ram"] = None if not total else row["peak_rss_bytes"] / total
    return row


def real_size_window_section(seq_len: int = 512, steps: int = 8, tiny: bool = False) -> dict:
    """The same model opened in the window (offscreen Qt) as a person does: the folder typed into the
    Model box, Precision bfloat16, Ctrl+Return, then F10 `steps` times; seconds from Run to the pass on
    screen and to the first stage's painted heatmap, ms per step to the painted heatmap, peak RSS."""
    import os

    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    import transformers  # noqa: F401  (imported before the clock starts)

    from tfdebug.bench.step_latency import live_steps, quiet_qt_messages

    row = _header(tiny, seq_len)
    with tempfile.TemporaryDirectory(prefix="tfdebug-real-size-") as tmp:
        folder = Path(tmp)
        _build_and_save(TINY if tiny else LLAMA_1B, folder, row)
        prompt = " ".join(f"w{i % WORDS}" for i in range(seq_len))
        with quiet_qt_messages():
            row["window"] = live_steps(f"hf:{folder}", {"prompt": prompt}, "bfloat16", steps)
    return _peak(row)


def format_real_size_window(row: dict) -> str:
    """The window section as lines of text."""
    w, s = row["window"], row["shape"]
    painted = sorted(step["painted_ms"] for step in w["steps"])
    median = painted[len(painted) // 2] if painted else float("nan")
    return "\n".join([
        f"real size in the window: {s['num_hidden_layers']} layers, hidden {s['hidden_size']}, "
        f"{row['parameters'] / 1e9:.2f} B parameters, {w['dtype']}, {row['seq_len']} tokens",
        f"  Run to the pass on screen {w['run_to_pass_on_screen_s']:.1f} s   to the first stage painted "
        f"{w['run_to_first_stage_painted_s']:.1f} s ({w['first_stage']})",
        f"  {len(painted)} steps to the painted heatmap: median {median:.0f} ms, max {max(painted, default=0):.0f} ms",
        *(f"    {step['stage']}: {step['painted_ms']:.0f} ms painted, {step['settled_ms']:.0f} ms settled"
          for step in w["steps"]),
        f"  peak RSS {row['peak_rss_bytes'] / 1e9:.2f} GB"
        + (f" = {100 * row['peak_rss_share_of_ram']:.0f}% of {row['ram_bytes'] / 1e9:.1f} GB RAM (bound 40%)"
           if row["peak_rss_share_of_ram"] is not None else ""),
    ])


def format_real_size(row: dict) -> str:
    """The section as lines of text."""
    gb = 1e9
    s = row["shape"]
    return "\n".join([
        f"real size: Llama-3.2-1B shape ({s['num_hidden_layers']} layers, hidden {s['hidden_size']}, "
        f"{s['num_attention_heads']} heads, {s['num_key_value_heads']} KV heads, vocab {s['vocab_size']:,}; "
        f"{row['parameters'] / 1e9:.2f} B parameters), {row['dtype']}, {row['seq_len']} tokens, "
        f"{row['threads']} threads",
        f"  build (meta, materialised) {row['build_s']:.1f} s   save {row['save_s']:.1f} s   "
        f"load hf:FOLDER {row['load_s']:.1f} s (RSS {row['rss_after_load_bytes'] / gb:.2f} GB after)",
        f"  time to first stage {row['first_stage_s']:.1f} s (planning {row['plan_s']:.1f} s)   "
        f"rest of the stepped pass {row['rest_of_pass_s']:.1f} s   plain forward {row['plain_forward_s']:.1f} s",
        f"  captured {row['captured_bytes'] / gb:.2f} GB of {row['stage_bytes'] / gb:.2f} GB in {row['stages']} "
        f"stages ({row['kept']} kept, {row['dropped']} dropped; budget "
        f"{(row['budget_bytes'] or 0) / gb:.2f} GB)",
        f"  peak RSS {row['peak_rss_bytes'] / gb:.2f} GB"
        + (f" = {100 * row['peak_rss_share_of_ram']:.0f}% of {row['ram_bytes'] / gb:.1f} GB RAM (bound 40%)"
           if row["peak_rss_share_of_ram"] is not None else ""),
    ])
