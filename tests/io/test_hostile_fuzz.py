"""Fuzz, round 3: generated cases of each family issue 25 found, seeded and fast (a few seconds in all).

- a snapshot damaged in place while open (truncated, bytes rewritten) at random points;
- `.npz` and `.pt` exports with random bytes flipped, cut or appended;
- Hugging Face configs with random values in the keys tfdebug checks;
- shard names built from path pieces, escapes and suffixes;
- text from anywhere made terminal-safe.

Every case either reads correctly or raises tfdebug's own error with one line; nothing
else escapes, nothing faults, and no case adds more than CASE_RSS_BYTES to the peak.
"""

from __future__ import annotations

import os
import random
import resource

import pytest
import torch

from tfdebug.adapters.hf.config import FLOAT_FIELDS, INT_FIELDS, check_config
from tfdebug.adapters.hf.folder import confined
from tfdebug.core.errors import ModelLoadError, SnapshotError
from tfdebug.core.safe_text import has_unsafe, terminal_safe
from tfdebug.io.exports import export_pass, load_export
from tfdebug.io.snapshot import open_snapshot

CASE_RSS_BYTES = 1 << 30
SEED = 25


def peak_rss() -> int:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def one_line(exc: Exception) -> None:
    assert "\n" not in exc.message and not has_unsafe(terminal_safe(exc.message))


@pytest.mark.parametrize("round_", range(24))
def test_a_snapshot_damaged_in_place_while_open_reads_or_says_so(snapshot_path, round_):
    rng = random.Random(SEED * 1000 + round_)
    size = snapshot_path.stat().st_size
    with open_snapshot(snapshot_path) as rec:
        read_before = {c.name: rec.tensor(c).clone() for c in rng.sample(rec.captures, 3)}
        truncated = rng.random() < 0.5
        if truncated:
            os.truncate(snapshot_path, rng.randrange(size))
        else:
            with open(snapshot_path, "r+b") as f:
                for _ in range(rng.randrange(1, 8)):
                    f.seek(rng.randrange(size))
                    f.write(bytes([rng.randrange(256)]))
        for capture in rng.sample(rec.captures, 10):
            try:
                tensor = rec.tensor(capture)
            except SnapshotError as exc:
                assert exc.id == "snapshot.changed"
            else:
                # A rewrite within the file system's timestamp tick keeps size and mtime: read, never faulted.
                assert not truncated and tensor.shape == capture.shape and tensor.dtype == capture.dtype
        for name, tensor in read_before.items():  # what was read stays readable (no mapped view to fault)
            assert torch.equal(tensor, read_before[name])


def _damaged_bytes(rng: random.Random, blob: bytes) -> bytes:
    action = rng.choice(["flip", "cut", "append", "flip-many"])
    data = bytearray(blob)
    if action == "cut":
        return bytes(data[:rng.randrange(len(data))])
    if action == "append":
        return bytes(data) + bytes(rng.randrange(256) for _ in range(rng.randrange(1, 64)))
    for _ in range(1 if action == "flip" else rng.randrange(2, 32)):
        data[rng.randrange(len(data))] = rng.randrange(256)
    return bytes(data)


@pytest.fixture(scope="module")
def export_blobs(recording, tmp_path_factory):
    folder = tmp_path_factory.mktemp("fuzz-exports")
    blobs = {}
    for suffix in (".npz", ".pt"):
        export_pass(recording, folder / f"good{suffix}")
        blobs[suffix] = (folder / f"good{suffix}").read_bytes()
    return blobs


@pytest.mark.parametrize("suffix", [".npz", ".pt"])
def test_exports_with_random_damage_read_right_or_give_one_sentence(export_blobs, recording, tmp_path, suffix):
    rng = random.Random(f"{SEED}{suffix}")
    path = tmp_path / f"case{suffix}"
    outcomes = {"read": 0, "refused": 0}
    for _ in range(30):
        path.write_bytes(_damaged_bytes(rng, export_blobs[suffix]))
        before = peak_rss()
        try:
            back = load_export(path)
        except SnapshotError as exc:
            one_line(exc)
            outcomes["refused"] += 1
        else:
            assert back.names() == recording.names()  # a flip in padding or a value: still the same stages
            outcomes["read"] += 1
        assert peak_rss() - before < CASE_RSS_BYTES
    assert outcomes["refused"] > 0


def _value(rng: random.Random):
    return rng.choice([0, -1, 1, 2, 7, 64, 1023, 1024, 1025, 10**6, 2**63, -(2**63), 0.5, 1e-5, float("nan"),
                       float("inf"), -0.0, True, False, None, "", "12", "silu", "\x1b[2J", [], [1], {}, {"a": 1}])


def test_random_config_values_pass_or_give_one_sentence():
    rng = random.Random(SEED)
    keys = [*INT_FIELDS, *FLOAT_FIELDS, "model_type", "architectures", "hidden_act", "activation_function", "dtype",
            "torch_dtype", "quantization_config", "text_config"]
    accepted = refused = 0
    for _ in range(600):
        config = {"model_type": "llama"}
        for key in rng.sample(keys, rng.randrange(1, 6)):
            config[key] = _value(rng) if key != "text_config" else {k: _value(rng) for k in rng.sample(keys, 3)}
        try:
            check_config(config, "config.json", frozenset({"silu", "gelu"}))
        except ModelLoadError as exc:
            one_line(exc)
            refused += 1
        else:
            accepted += 1
    assert accepted and refused


PIECES = ["..", ".", "/", "\\", "sub", "C:", "model", "-00001", ".safetensors", ".bin", "\x00", "\x1b", "\n", "~",
          "%2e%2e", "\u202e", "\udcff", " "]


def test_generated_shard_names_stay_inside_the_folder_or_are_refused(tmp_path):
    rng = random.Random(SEED)
    folder = tmp_path / "model"
    folder.mkdir()
    (tmp_path / "outside.safetensors").write_bytes(b"x")
    os.symlink(tmp_path / "outside.safetensors", folder / "link.safetensors")
    names = ["link.safetensors"] + ["".join(rng.choice(PIECES) for _ in range(rng.randrange(1, 7)))
                                    for _ in range(400)]
    for name in names:
        try:
            path = confined(folder, name, folder / "model.safetensors.index.json")
        except ModelLoadError as exc:
            one_line(exc)
            continue
        assert path.name.endswith(".safetensors")
        assert os.path.realpath(path).startswith(os.path.realpath(folder) + os.sep)


def test_random_text_is_made_terminal_safe():
    rng = random.Random(SEED)
    alphabet = [chr(c) for c in (*range(0, 0x30), *range(0x7f, 0xa1), 0x2028, 0x2029, *range(0x202a, 0x202f),
                                 *range(0x2066, 0x206a), 0xd800, 0xdbff, 0xdc00, 0xdfff, 0x4e2d, 0x1f642)]
    for _ in range(2000):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randrange(0, 40)))
        safe = terminal_safe(text)
        assert not has_unsafe(safe)
        safe.encode("utf-8")  # strict: no lone surrogate is left
