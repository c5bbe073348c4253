"""Snapshot speed: tfdebug's save and lazy open against safetensors' own save_file / safe_open."""

from __future__ import annotations

import os
import tempfile
import time

import torch

from tfdebug.bench.capture import BenchConfig, build
from tfdebug.core.recorder import Capture, Recorder
from tfdebug.io.recording import Recording
from tfdebug.io.snapshot import open_snapshot, save_snapshot


def _recording_of_size(config: BenchConfig, target_bytes: int) -> Recording:
    """A recording of real captured stages, repeated (as independent copies) up to about `target_bytes`.

    Each tensor is its own contiguous copy so safetensors' save_file, which refuses
    tensors sharing memory, takes exactly the same data.
    """
    model, src, tgt = build(config, torch.device("cpu"))
    with torch.no_grad(), Recorder(model) as rec:
        model(src, tgt)
    captures: list[Capture] = []
    total, round_ = 0, 0
    while total < target_bytes:
        for c in rec.captures:
            info = c.info if round_ == 0 else type(c.info)(**{**c.info.__dict__, "name": f"r{round_}.{c.name}"})
            tensor = c.tensor.contiguous().clone()
            captures.append(Capture.of(info, tensor))
            total += c.nbytes
            if total >= target_bytes:
                break
        round_ += 1
    return Recording(captures=captures, tokens={"src": [], "tgt": []}, model_name="bench",
                     model_config={}, device="cpu", dtype="float32")


def _best_of(fn, runs: int) -> float:
    best = float("inf")
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - start)
    return best


def snapshot_section(config: BenchConfig, target_bytes: int, runs: int = 3) -> dict:
    """Save and open times (best of `runs`) for tfdebug and for plain safetensors on the same tensors."""
    from safetensors import safe_open
    from safetensors.torch import save_file

    recording = _recording_of_size(config, target_bytes)
    tensors = {c.name: c.tensor for c in recording.captures}
    nbytes = recording.nbytes
    with tempfile.TemporaryDirectory(prefix="tfdebug-bench-") as folder:
        ours, theirs = os.path.join(folder, "ours.safetensors"), os.path.join(folder, "theirs.safetensors")
        save_ours = _best_of(lambda: save_snapshot(recording, ours), runs)
        save_theirs = _best_of(lambda: save_file(tensors, theirs), runs)
        first = recording.captures[len(recording.captures) // 2]

        def open_ours():
            with open_snapshot(ours) as opened:
                opened.tensor(opened[first.name])

        def open_theirs():
            with safe_open(theirs, framework="pt") as f:
                f.get_tensor(first.name)

        open_ours_s = _best_of(open_ours, runs)
        open_theirs_s = _best_of(open_theirs, runs)
        file_bytes = os.path.getsize(ours)
    mb = nbytes / 1e6
    return {
        "bytes": nbytes, "file_bytes": file_bytes, "stages": len(recording.captures),
        "save_s": round(save_ours, 4), "save_file_s": round(save_theirs, 4),
        "save_mb_per_s": round(mb / save_ours, 1), "save_file_mb_per_s": round(mb / save_theirs, 1),
        "ratio_save_throughput": round(save_theirs / save_ours, 3),
        "open_one_stage_s": round(open_ours_s, 4), "safe_open_one_stage_s": round(open_theirs_s, 4),
    }
