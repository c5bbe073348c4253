"""The `tfdebug bench --scale` row "F10 → painted": a recipe plane shown in the real window, per length.

A one-layer model of the scale section's GPT-2 shape (768 wide, 12 heads) captures its pass at
the length with the attention planes kept as recipes; the captures open in the window
(offscreen, as a live pass's history is stepped) at the first of them, and F10 is pressed
until the pass's last probabilities (`…probs`, a tokens² plane per head computed on demand
with the mask it read) is painted. Each F10 onto a recipe stage is timed from the key press
to its heatmap painted (tfdebug.bench.window_clock.one_step): the plane computed for the
shown head, block-averaged to the heatmap's pixels, coloured and drawn. Every recipe stage is
shown for the first time (nothing read ahead: planes are large stages, never prepared ahead).
Run in a child process of its own by the scale section.
"""

from __future__ import annotations


def recipe_steps(seq_len: int, shape: tuple[int, int, int, int]) -> dict:
    """ms from F10 to the painted heatmap for each recipe stage of the last layer (first visits), and the
    stage's bytes were it kept whole. `shape`: (layers, width, heads, vocabulary) of the scale section."""
    import torch

    from tfdebug.adapters.base import Prepared
    from tfdebug.adapters.hf.adapter import wrap
    from tfdebug.bench.capture import BenchConfig
    from tfdebug.bench.hf import build_gpt2
    from tfdebug.bench.window_clock import bench_window, one_step, quiet_qt_messages, wait
    from tfdebug.core.recorder import Recorder
    from tfdebug.core.stepper import Stepper

    _layers, width, heads, vocab = shape
    model, ids = build_gpt2(BenchConfig(f"gpt2 1x{width} seq {seq_len}", 1, width, heads, seq_len, vocab))
    adapter = wrap(model, tokenizer=None, name="bench")
    with torch.no_grad(), Recorder(adapter.module) as rec:
        adapter.forward(Prepared(texts={}, kwargs={"input_ids": ids, "use_cache": False}))
    captures = rec.captures
    last = max(i for i, c in enumerate(captures) if c.recipe)
    steps = []
    with quiet_qt_messages(), bench_window(heads=False) as (window, clock):
        window.ctl.load_replay(Stepper.replay(captures[: last + 1]), {"src": [], "tgt": []}, "scale")
        wait(lambda: window.ctl.shown.current_slice is not None)
        window.activateWindow()
        stepper = window.ctl.stepper
        while stepper.cursor < last:
            wait(lambda: window.ctl.shown.settled(), 600.0)  # idle, as between a person's steps
            target = stepper.history[stepper.cursor + 1]
            painted, _named, settled = one_step(window, clock, lambda t=target: window.ctl.current is t, target.name,
                                                timeout_s=600.0)
            if target.recipe:
                steps.append({"stage": target.name, "painted_ms": round(painted, 1), "settled_ms": round(settled, 1),
                              "plane_bytes": target.nbytes,
                              "head_pixels": list(window.heatmap_panel.slice.values.shape)})
    probs = [s for s in steps if s["stage"].endswith(".probs")]
    return {"recipe_steps": steps, "f10_painted_probs_ms": probs[-1]["painted_ms"] if probs else None}
