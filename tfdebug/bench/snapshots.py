"""Snapshot speed: tfdebug's save and lazy open against safetensors' own save_file / safe_open."""

from __future__ import annotations

import os
import tempfile

import torch

from tfdebug.bench.capture import BenchConfig, build
from tfdebug.bench.timing import interleaved_ms, median
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
    # Token labels must match the token axes they label, or the snapshot would not reopen.
    tokens = {"src": [f"s{i}" for i in range(src.shape[1])], "tgt": [f"t{i}" for i in range(tgt.shape[1])]}
    return Recording(captures=captures, tokens=tokens, model_name="bench",
                     model_config={}, device="cpu", dtype="float32")


def _fsynced(save, path: str) -> None:
    save()
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def snapshot_section(config: BenchConfig, target_bytes: int, runs: int = 3) -> dict:
    """Save and open times (medians of `runs`, interleaved) for tfdebug and plain safetensors, same tensors.

    tfdebug's save is atomic and fsyncs by default; safetensors' save_file does
    neither, so it is also timed followed by an fsync (the durable equivalent), and
    tfdebug's save with durable=False is timed against plain save_file.
    """
    from safetensors import safe_open
    from safetensors.torch import save_file

    recording = _recording_of_size(config, target_bytes)
    tensors = {c.name: c.tensor for c in recording.captures}
    nbytes = recording.nbytes
    with tempfile.TemporaryDirectory(prefix="tfdebug-bench-") as folder:
        ours, theirs = os.path.join(folder, "ours.safetensors"), os.path.join(folder, "theirs.safetensors")
        variants = {
            "save": lambda: save_snapshot(recording, ours),
            "save_file": lambda: save_file(tensors, theirs),
            "save_nosync": lambda: save_snapshot(recording, ours, durable=False),
            "save_file_fsync": lambda: _fsynced(lambda: save_file(tensors, theirs), theirs),
            "save_again": lambda: save_snapshot(recording, ours),  # A/A: the same save timed twice
        }
        times = interleaved_ms(variants, runs, warmup=1)
        middle = recording.captures[len(recording.captures) // 2].name

        def open_ours():
            with open_snapshot(ours) as opened:
                opened.tensor(opened[middle])

        def open_theirs():
            with safe_open(theirs, framework="pt") as f:
                f.get_tensor(middle)

        opens = interleaved_ms({"ours": open_ours, "theirs": open_theirs}, max(runs, 5), warmup=1)
        file_bytes = os.path.getsize(ours)
    s_ours, s_theirs, s_nosync, s_durable, s_again = (median(times[k]) / 1000.0 for k in variants)
    mb = nbytes / 1e6
    return {
        "bytes": nbytes, "file_bytes": file_bytes, "stages": len(recording.captures),
        "save_s": round(s_ours, 4), "save_file_s": round(s_theirs, 4),
        "save_mb_per_s": round(mb / s_ours, 1), "save_file_mb_per_s": round(mb / s_theirs, 1),
        "ratio_save_throughput": round(s_theirs / s_ours, 3),
        "save_file_fsync_s": round(s_durable, 4), "ratio_save_throughput_durable": round(s_durable / s_ours, 3),
        "save_nosync_s": round(s_nosync, 4), "ratio_save_throughput_nosync": round(s_theirs / s_nosync, 3),
        "aa_ratio": round(s_again / s_ours, 4),
        "open_one_stage_s": round(median(opens["ours"]) / 1000.0, 4),
        "safe_open_one_stage_s": round(median(opens["theirs"]) / 1000.0, 4),
    }
