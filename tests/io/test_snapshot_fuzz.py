"""Fuzz: damaged and crafted snapshots open and read correctly or give one sentence — within bounds.

Random mutations of a good snapshot, plus generated cases for every class of hostile
file found in issue 18: wrong types, non-regular files, huge strings and counts,
overflowing shapes, duplicate keys, hostile names and sparse files. Each case must end
in under CASE_SECONDS, raise nothing but SnapshotError (one line), and add less than
CASE_RSS_BYTES to the process's peak memory, through the Python API and `tfdebug info`.
"""

import json
import os
import random
import resource
import struct
import threading
import time

import pytest

from tfdebug import cli
from tfdebug.core.errors import SnapshotError
from tfdebug.io.recording import MANIFEST_KEY
from tfdebug.io.snapshot import open_snapshot

ROUNDS = 300
CASE_SECONDS = 10.0
CASE_RSS_BYTES = 1 << 30


def split(blob):
    (n,) = struct.unpack("<Q", blob[:8])
    return json.loads(blob[8:8 + n]), blob[8 + n:]


def join(header, data):
    raw = json.dumps(header, ensure_ascii=False).encode("utf-8")
    return struct.pack("<Q", len(raw)) + raw + data


def edited(blob, change):
    """`change(header, manifest)` applied; both are written back."""
    header, data = split(blob)
    manifest = json.loads(header["__metadata__"][MANIFEST_KEY])
    change(header, manifest)
    header["__metadata__"][MANIFEST_KEY] = json.dumps(manifest, ensure_ascii=False)
    return join(header, data)


# ----- random mutations (the original 300 rounds) ---------------------------------------------
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


ODD_VALUES = [None, 0, -1, "", "x", [], {}, [1, 2], 1.5, True, {"a": [None]}, ["float32"], 2 ** 70, "\x1b[2J"]


def _manifest_edit(rng, blob, n):
    def change(header, manifest):
        target = rng.choice([manifest, rng.choice(manifest["stages"]), manifest["tokens"]])
        key = rng.choice(sorted(target))
        target[key] = rng.choice(ODD_VALUES)
    return edited(blob, change)


def _data_byte(rng, blob, n):
    i = rng.randrange(8 + n, len(blob))
    return blob[:i] + bytes([rng.randrange(256)]) + blob[i + 1:]


MUTATIONS = [_flip_header_byte, _prefix, _truncate, _append, _header_digit, _manifest_edit, _data_byte]


# ----- generated hostile classes --------------------------------------------------------------
HOSTILE_NAMES = ["../../etc/passwd", "a/b", "a\\b", "\x00", "x\ny", "\x1b[31mred", "<b>x</b>", "&amp;",
                 "\u202eevil", ".", "..", " ", "", "x" * 257, "x" * 2_000_000, "\x9b31m", "a\u2028b"]


def _rename(blob, old_index, new):
    def change(header, manifest):
        old = manifest["stages"][old_index]["name"]
        manifest["stages"][old_index]["name"] = new
        header[new] = header.pop(old)
    return edited(blob, change)


def _hostile_name(rng, blob):
    return _rename(blob, rng.randrange(5), rng.choice(HOSTILE_NAMES))


def _huge_string_or_count(rng, blob):
    choice = rng.randrange(4)
    if choice == 0:
        return edited(blob, lambda h, m: m["stages"][0].update(formula="f" * rng.choice([5000, 3_000_000])))
    if choice == 1:
        return edited(blob, lambda h, m: m["stages"].extend([m["stages"][1]] * rng.choice([2, 2, 60_000])))
    if choice == 2:
        return edited(blob, lambda h, m: m["tokens"]["src"].extend(["w"] * rng.choice([1, 200_000])))
    return edited(blob, lambda h, m: m["model_config"].update(
        {f"k{i}": rng.choice(["v", "\x07", "v" * 5000]) for i in range(rng.choice([3, 20_000]))}))


def _overflow_shape(rng, blob):
    shape = rng.choice([[0, 2 ** 63], [2 ** 62, 4], [0, 2 ** 40, 2 ** 40], [-1, 3], [2 ** 64], [0, 3]])

    def change(header, manifest):
        stage = manifest["stages"][0]
        header[stage["name"]]["shape"] = shape
        if rng.random() < 0.5:
            stage["shape"] = shape
    return edited(blob, change)


def _duplicate_key(rng, blob):
    header, data = split(blob)
    text = json.dumps(header, ensure_ascii=False)
    name = next(k for k in header if k != "__metadata__")
    where = rng.randrange(3)
    if where == 0:  # a tensor twice
        text = "{" + json.dumps(name) + ":" + json.dumps(header[name]) + "," + text[1:]
    elif where == 1:  # metadata key twice
        text = text.replace('"__metadata__": {', '"__metadata__": {"tfdebug": "{}", ', 1)
    else:  # a manifest key twice
        manifest = header["__metadata__"][MANIFEST_KEY]
        header["__metadata__"][MANIFEST_KEY] = '{"device": "cpu", ' + manifest[1:]
        text = json.dumps(header, ensure_ascii=False)
    raw = text.encode("utf-8")
    return struct.pack("<Q", len(raw)) + raw + data


def _duplicate_or_inconsistent(rng, blob):
    changes = [
        lambda h, m: m["stages"][3].update(axes=["batch", "token", "token"]),
        lambda h, m: m["stages"].append(m["stages"][2]),
        lambda h, m: m["tokens"]["src"].pop(),
        lambda h, m: m["stages"][2].update(tokens={"token": "elsewhere"}),
    ]
    return edited(blob, rng.choice(changes))


GENERATED = [_hostile_name, _huge_string_or_count, _overflow_shape, _duplicate_key, _duplicate_or_inconsistent]


# ----- running one case -------------------------------------------------------------------------
def _peak_rss() -> int:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024  # kilobytes on Linux


def _open_and_read(path) -> str:
    try:
        with open_snapshot(path) as rec:
            for capture in rec.captures:
                tensor = rec.tensor(capture)
                assert tuple(tensor.shape) == capture.shape and tensor.dtype == capture.dtype
    except SnapshotError as exc:
        assert exc.message and "\n" not in exc.message and len(exc.message) < 600, exc.message
        return "refused"
    return "loaded"


def _bounded(work, label):
    """Run `work()` in a thread; it must finish within CASE_SECONDS and CASE_RSS_BYTES of new peak memory."""
    result = {}
    before = _peak_rss()
    start = time.monotonic()

    def run():
        try:
            result["value"] = work()
        except BaseException as exc:  # noqa: BLE001 - reported below with the case
            result["error"] = exc

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(CASE_SECONDS)
    assert not thread.is_alive(), f"{label}: still running after {CASE_SECONDS} s"
    assert time.monotonic() - start < CASE_SECONDS
    assert _peak_rss() - before < CASE_RSS_BYTES, f"{label}: peak memory grew by over 1 GiB"
    if "error" in result:
        raise AssertionError(f"{label}: {type(result['error']).__name__}: {result['error']}") from result["error"]
    return result["value"]


def _info_exit(path, capsys) -> int:
    code = cli.main(["info", "--verify", str(path)])
    out, err = capsys.readouterr()
    assert code in (0, 2) and "Traceback" not in err and (code == 0 or err.count("\n") == 1), err
    assert "\x1b" not in out + err and len(out) < 200_000
    return code


def test_mutated_snapshots_load_or_raise_the_typed_error(snapshot_bytes, tmp_path):
    rng = random.Random(1234)
    (n,) = struct.unpack("<Q", snapshot_bytes[:8])
    outcomes = {"loaded": 0, "refused": 0}
    path = tmp_path / "fuzz.safetensors"
    for round_ in range(ROUNDS):
        mutate = MUTATIONS[round_ % len(MUTATIONS)]
        path.write_bytes(mutate(rng, snapshot_bytes, n))
        outcomes[_bounded(lambda: _open_and_read(path), f"round {round_} ({mutate.__name__})")] += 1
    assert outcomes["refused"] > ROUNDS // 3 and outcomes["loaded"] > 0, outcomes


@pytest.mark.parametrize("generate", GENERATED, ids=lambda g: g.__name__.strip("_"))
def test_generated_hostile_files_are_refused_in_bounds(generate, snapshot_bytes, tmp_path, capsys):
    rng = random.Random(generate.__name__)
    path = tmp_path / "hostile.safetensors"
    outcomes = {"loaded": 0, "refused": 0}
    for round_ in range(16):
        path.write_bytes(generate(rng, snapshot_bytes))
        label = f"{generate.__name__} round {round_}"
        outcome = _bounded(lambda: _open_and_read(path), label)
        outcomes[outcome] += 1
        if round_ % 4 == 0:
            assert _bounded(lambda: _info_exit(path, capsys), label) == (0 if outcome == "loaded" else 2)
    assert outcomes["refused"] >= 8, outcomes


def _sparse_snapshot(recording, path, declared_bytes):
    """A one-stage snapshot whose only stage claims `declared_bytes`, stored as a hole."""
    from dataclasses import replace as dc_replace

    from tfdebug.io.snapshot import save_snapshot

    first = recording.captures[0]  # src.embed, (batch, token, model)
    save_snapshot(dc_replace(recording, captures=[first]), path)
    model = declared_bytes // (4 * first.shape[1])
    shape = [1, first.shape[1], model]

    def change(header, manifest):
        header[first.name].update(shape=shape, data_offsets=[0, 4 * shape[1] * model])
        manifest["stages"][0]["shape"] = shape
    header_blob = edited(path.read_bytes(), change)
    n = struct.unpack("<Q", header_blob[:8])[0]
    with open(path, "wb") as f:
        f.write(header_blob[:8 + n])
        f.truncate(8 + n + 4 * shape[1] * model)


def test_non_regular_and_sparse_files_are_refused_in_bounds(recording, tmp_path, capsys):
    cases = {}
    if hasattr(os, "mkfifo"):
        os.mkfifo(tmp_path / "fifo.safetensors")
        cases["fifo"] = tmp_path / "fifo.safetensors"
    (tmp_path / "folder.safetensors").mkdir()
    cases["folder"] = tmp_path / "folder.safetensors"
    if os.path.exists("/dev/zero"):
        os.symlink("/dev/zero", tmp_path / "zero.safetensors")
        cases["device behind a link"] = tmp_path / "zero.safetensors"
    os.symlink(tmp_path / "loop.safetensors", tmp_path / "loop.safetensors")
    cases["link loop"] = tmp_path / "loop.safetensors"
    sparse = tmp_path / "sparse.safetensors"
    _sparse_snapshot(recording, sparse, 3 << 30)
    if os.stat(sparse).st_blocks * 512 < 1 << 20:  # the file system made it sparse
        cases["sparse 3 GiB"] = sparse
    for label, path in cases.items():
        assert _bounded(lambda: _open_and_read(path), label) == "refused", label
        assert _bounded(lambda: _info_exit(path, capsys), label) == 2, label
