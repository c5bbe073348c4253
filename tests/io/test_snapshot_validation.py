"""Every kind of bad file gives a SnapshotError with one sentence; nothing crashes or runs code."""

import json
import struct

import pytest

from tfdebug.core.errors import SnapshotError
from tfdebug.io.recording import MANIFEST_KEY
from tfdebug.io.snapshot import open_snapshot


def split(blob: bytes):
    (n,) = struct.unpack("<Q", blob[:8])
    return json.loads(blob[8:8 + n]), blob[8 + n:]


def join(header: dict, data: bytes) -> bytes:
    raw = json.dumps(header, ensure_ascii=False).encode("utf-8")
    return struct.pack("<Q", len(raw)) + raw + data


def edit_manifest(blob: bytes, change) -> bytes:
    header, data = split(blob)
    manifest = json.loads(header["__metadata__"][MANIFEST_KEY])
    change(manifest)
    header["__metadata__"][MANIFEST_KEY] = json.dumps(manifest)
    return join(header, data)


def edit_header(blob: bytes, change) -> bytes:
    header, data = split(blob)
    change(header)
    return join(header, data)


def first_tensor(header: dict) -> str:
    return next(k for k in header if k != "__metadata__")


def _set(d, key, value):
    d[key] = value


CASES = {
    "empty file": lambda b: b"",
    "truncated in the prefix": lambda b: b[:5],
    "truncated in the header": lambda b: b[:200],
    "truncated in the data": lambda b: b[:-17],
    "extra bytes after the data": lambda b: b + b"\0" * 8,
    "header length too long": lambda b: struct.pack("<Q", len(b)) + b[8:],
    "header length too short": lambda b: struct.pack("<Q", 40) + b[8:],
    "header claims gigabytes": lambda b: struct.pack("<Q", 3 << 30) + b[8:],
    "header claims 2**64-1": lambda b: b"\xff" * 8 + b[8:],
    "header not UTF-8": lambda b: b[:8] + b"\xff\xfe" + b[10:],
    "header not JSON": lambda b: b[:8] + b"{]" + b[10:],
    "header is a JSON list": lambda b: join([], b""),  # type: ignore[arg-type]
    "deeply nested JSON": lambda b: struct.pack("<Q", 200000) + b"[" * 200000,
    "offsets past the end": lambda b: edit_header(b, lambda h: h[first_tensor(h)].update(data_offsets=[0, 1 << 40])),
    "offsets reversed": lambda b: edit_header(b, lambda h: h[first_tensor(h)].update(data_offsets=[8, 0])),
    "offsets not numbers": lambda b: edit_header(b, lambda h: h[first_tensor(h)].update(data_offsets="x")),
    "shape does not match size": lambda b: edit_header(b, lambda h: h[first_tensor(h)].update(shape=[1, 1])),
    "unknown dtype": lambda b: edit_header(b, lambda h: h[first_tensor(h)].update(dtype="F8_E4M3")),
    "metadata not strings": lambda b: edit_header(b, lambda h: h.update(__metadata__={MANIFEST_KEY: 3})),
    "manifest missing": lambda b: edit_header(b, lambda h: h.pop("__metadata__")),
    "manifest not JSON": lambda b: edit_header(b, lambda h: h["__metadata__"].update({MANIFEST_KEY: "{nope"})),
    "unknown format version": lambda b: edit_manifest(b, lambda m: _set(m, "format_version", 99)),
    "format version not a number": lambda b: edit_manifest(b, lambda m: _set(m, "format_version", "1")),
    "no format version": lambda b: edit_manifest(b, lambda m: m.pop("format_version")),
    "no stages": lambda b: edit_manifest(b, lambda m: _set(m, "stages", [])),
    "stage missing from the file": lambda b: edit_manifest(b, lambda m: m["stages"].append(
        {**m["stages"][0], "name": "enc.9.ffn.out"})),
    "tensor not in the manifest": lambda b: edit_manifest(b, lambda m: m["stages"].pop()),
    "shape disagrees": lambda b: edit_manifest(b, lambda m: m["stages"][0].update(shape=[1, 3, 65])),
    "dtype disagrees": lambda b: edit_manifest(b, lambda m: m["stages"][0].update(dtype="float16")),
    "unknown kind": lambda b: edit_manifest(b, lambda m: m["stages"][0].update(kind="teleport")),
    "unknown axis": lambda b: edit_manifest(b, lambda m: m["stages"][0].update(axes=["batch", "x", "model"])),
    "axes count disagrees": lambda b: edit_manifest(b, lambda m: m["stages"][0].update(axes=["batch"])),
    "stage listed twice": lambda b: edit_manifest(b, lambda m: m["stages"].append(m["stages"][0])),
    "tokens missing": lambda b: edit_manifest(b, lambda m: m.pop("tokens")),
    "layer not a number": lambda b: edit_manifest(b, lambda m: m["stages"][5].update(layer="0")),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_bad_snapshot_gives_one_sentence(case, snapshot_bytes, tmp_path):
    path = tmp_path / "bad.safetensors"
    path.write_bytes(CASES[case](snapshot_bytes))
    with pytest.raises(SnapshotError) as info:
        open_snapshot(path).close()
    message = info.value.message
    assert message.endswith((".", "it.")) and "\n" not in message and "Traceback" not in message


def test_missing_file_and_folder(tmp_path):
    with pytest.raises(SnapshotError, match="no file"):
        open_snapshot(tmp_path / "absent.safetensors")
    with pytest.raises(SnapshotError, match="folder"):
        open_snapshot(tmp_path)


def test_plain_safetensors_file_is_not_a_snapshot(tmp_path):
    import torch
    from safetensors.torch import save_file

    save_file({"w": torch.zeros(3)}, tmp_path / "weights.safetensors")
    with pytest.raises(SnapshotError, match="no tfdebug manifest"):
        open_snapshot(tmp_path / "weights.safetensors")
