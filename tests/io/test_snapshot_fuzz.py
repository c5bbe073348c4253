"""Fuzz: mutated snapshots either open and read correctly or raise SnapshotError — never anything else."""

import json
import random
import struct

import torch

from tfdebug.core.errors import SnapshotError
from tfdebug.io.recording import MANIFEST_KEY
from tfdebug.io.snapshot import open_snapshot

ROUNDS = 300


def _flip_header_byte(rng, blob, n):
    i = rng.randrange(8, 8 + n)
    return blob[:i] + bytes([rng.randrange(256)]) + blob[i + 1:]


def _prefix(rng, blob, n):
    value = rng.choice([0, 1, n - 1, n + 1, n + 8, len(blob), rng.randrange(1 << 64), 100 * 1024 * 1024 + 1])
    return struct.pack("<Q", value) + blob[8:]


def _truncate(rng, blob, n):
    return blob[:rng.randrange(len(blob))]


def _append(rng, blob, n):
    return blob + bytes(rng.randrange(256) for _ in range(rng.randrange(1, 64)))


def _header_digit(rng, blob, n):
    # Change one digit of the JSON header: shapes and offsets shift by small amounts.
    header = blob[8:8 + n]
    digits = [i for i, ch in enumerate(header) if 48 <= ch <= 57]
    i = 8 + rng.choice(digits)
    return blob[:i] + bytes([48 + rng.randrange(10)]) + blob[i + 1:]


def _manifest_edit(rng, blob, n):
    header = json.loads(blob[8:8 + n])
    manifest = json.loads(header["__metadata__"][MANIFEST_KEY])
    target = rng.choice([manifest, rng.choice(manifest["stages"])])
    key = rng.choice(sorted(target))
    target[key] = rng.choice([None, 0, -1, "", "x", [], {}, [1, 2], 1.5, True, {"a": [None]}])
    header["__metadata__"][MANIFEST_KEY] = json.dumps(manifest)
    raw = json.dumps(header).encode()
    return struct.pack("<Q", len(raw)) + raw + blob[8 + n:]


def _data_byte(rng, blob, n):
    i = rng.randrange(8 + n, len(blob))
    return blob[:i] + bytes([rng.randrange(256)]) + blob[i + 1:]


MUTATIONS = [_flip_header_byte, _prefix, _truncate, _append, _header_digit, _manifest_edit, _data_byte]


def test_mutated_snapshots_load_or_raise_the_typed_error(snapshot_bytes, tmp_path):
    rng = random.Random(1234)
    (n,) = struct.unpack("<Q", snapshot_bytes[:8])
    outcomes = {"loaded": 0, "refused": 0}
    path = tmp_path / "fuzz.safetensors"
    for round_ in range(ROUNDS):
        mutate = MUTATIONS[round_ % len(MUTATIONS)]
        path.write_bytes(mutate(rng, snapshot_bytes, n))
        try:
            with open_snapshot(path) as rec:
                for capture in rec.captures:
                    tensor = rec.tensor(capture)
                    assert tuple(tensor.shape) == capture.shape and tensor.dtype == capture.dtype
        except SnapshotError as exc:
            assert exc.message and "\n" not in exc.message
            outcomes["refused"] += 1
        else:
            outcomes["loaded"] += 1
    assert outcomes["refused"] > ROUNDS // 3 and outcomes["loaded"] > 0, outcomes
