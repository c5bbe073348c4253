"""Issue 18, item 1: each damaged or crafted snapshot as it was found is one sentence, exit 2, quickly.

Every test here reproduces a file that once gave a traceback, a hang, a huge print, or
was accepted although inconsistent.
"""

import json
import os
import struct
import threading
from dataclasses import replace

import pytest
import torch

from tfdebug import cli
from tfdebug.core.errors import SnapshotError, TfdebugError
from tfdebug.io.exports import export_pass
from tfdebug.io.recording import MANIFEST_KEY
from tfdebug.io.snapshot import open_snapshot, save_snapshot
from tests.io.test_snapshot_validation import edit_manifest, join, split


def refused(path, *commands):
    """open_snapshot raises one sentence; each CLI command exits 2 with that one line on stderr."""
    with pytest.raises(SnapshotError) as info:
        open_snapshot(path).close()
    message = info.value.message
    assert "\n" not in message and "Error" not in message and len(message) < 400, message
    return message


def cli_refuses(argv, capsys):
    code = cli.main(argv)
    out, err = capsys.readouterr()
    assert code == 2, (code, err)
    assert err.startswith("tfdebug: ") and err.count("\n") == 1 and "Traceback" not in err, err
    assert len(out) < 1000
    return err


# ----- field types ----------------------------------------------------------------------------
@pytest.mark.parametrize("bad", [["float32"], {"name": "float32"}, 3, None])
def test_a_stage_dtype_that_is_a_list_or_object(bad, snapshot_bytes, tmp_path, capsys):
    path = tmp_path / "dtype.safetensors"
    path.write_bytes(edit_manifest(snapshot_bytes, lambda m: m["stages"][0].update(dtype=bad)))
    assert "unknown dtype" in refused(path)
    for command in (["open", str(path)], ["info", str(path)], ["info", "--verify", "--json", str(path)]):
        cli_refuses(command, capsys)


@pytest.mark.parametrize("key,bad", [("stored_dtype", ["float32"]), ("kind", ["softmax"]), ("site", 3),
                                     ("formula", {"a": 1}), ("edited", "yes"), ("inputs", "src.embed"),
                                     ("tokens", ["query"]), ("layer", 1.5), ("role", []), ("ops", "view")])
def test_every_stage_field_is_type_checked(key, bad, snapshot_bytes, tmp_path):
    path = tmp_path / "field.safetensors"
    path.write_bytes(edit_manifest(snapshot_bytes, lambda m: m["stages"][3].update({key: bad})))
    assert "damaged manifest" in refused(path)


def test_unknown_extra_stage_keys_are_tolerated(snapshot_bytes, tmp_path):
    path = tmp_path / "extra.safetensors"
    path.write_bytes(edit_manifest(snapshot_bytes, lambda m: m["stages"][3].update(future={"x": [1]})))
    open_snapshot(path).close()


# ----- non-regular files ------------------------------------------------------------------------
def _within(seconds, work):
    result = {}

    def run():
        try:
            work()
        except BaseException as exc:  # noqa: BLE001 - handed to the test below
            result["error"] = exc

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(seconds)
    assert not thread.is_alive(), "hung"
    return result.get("error")


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
def test_a_fifo_named_safetensors_is_refused_at_once(tmp_path, capsys):
    fifo = tmp_path / "pipe.safetensors"
    os.mkfifo(fifo)
    error = _within(10, lambda: open_snapshot(fifo))
    assert isinstance(error, SnapshotError) and "not a regular file" in error.message
    error = _within(10, lambda: cli.main(["info", str(fifo)]))
    assert error is None and "not a regular file" in capsys.readouterr().err


@pytest.mark.skipif(not os.path.exists("/dev/zero"), reason="no /dev/zero")
def test_a_device_is_refused():
    error = _within(10, lambda: open_snapshot("/dev/zero"))
    assert isinstance(error, SnapshotError) and "not a regular file" in error.message


# ----- huge strings and counts ----------------------------------------------------------------
def _rename_first(blob, new):
    header, data = split(blob)
    manifest = json.loads(header["__metadata__"][MANIFEST_KEY])
    old = manifest["stages"][0]["name"]
    manifest["stages"][0]["name"] = new
    header["__metadata__"][MANIFEST_KEY] = json.dumps(manifest)
    header[new] = header.pop(old)
    return join(header, data)


def test_a_10_mb_stage_name_is_refused_with_a_short_sentence(snapshot_bytes, tmp_path, capsys):
    path = tmp_path / "long.safetensors"
    path.write_bytes(_rename_first(snapshot_bytes, "x" * 10_000_000))
    assert "characters long (at most 256)" in refused(path)
    err = cli_refuses(["info", str(path)], capsys)
    assert len(err) < 400


def test_a_huge_manifest_string_and_too_many_stages(snapshot_bytes, tmp_path):
    path = tmp_path / "formula.safetensors"
    path.write_bytes(edit_manifest(snapshot_bytes, lambda m: m["stages"][0].update(formula="f" * 100_000)))
    assert "at most 4,096" in refused(path)
    path.write_bytes(edit_manifest(snapshot_bytes, lambda m: m["stages"].extend([m["stages"][0]] * 60_000)))
    assert "at most 50,000" in refused(path)


def test_deep_nesting_in_the_model_config(snapshot_bytes, tmp_path):
    deep: list = []
    for _ in range(500):
        deep = [deep]
    path = tmp_path / "deep.safetensors"
    path.write_bytes(edit_manifest(snapshot_bytes, lambda m: m["model_config"].update(x=deep)))
    assert "levels deep" in refused(path)


# ----- shapes ---------------------------------------------------------------------------------
def test_a_zero_byte_stage_of_shape_0_by_2_pow_63(snapshot_bytes, tmp_path, capsys):
    header, data = split(snapshot_bytes)
    manifest = json.loads(header["__metadata__"][MANIFEST_KEY])
    manifest["stages"].append({**manifest["stages"][0], "name": "huge", "shape": [0, 2 ** 63], "axes": ["batch", "token"],
                               "tokens": {}})
    header["__metadata__"][MANIFEST_KEY] = json.dumps(manifest)
    end = len(data)
    header["huge"] = {"dtype": "F32", "shape": [0, 2 ** 63], "data_offsets": [end, end]}
    path = tmp_path / "overflow.safetensors"
    path.write_bytes(join(header, data))
    assert "too large to be real" in refused(path)
    for argv in (["info", str(path)], ["info", "--verify", str(path)], ["info", "--verify", "--json", str(path)]):
        cli_refuses(argv, capsys)


def test_a_zero_size_stage_is_refused(snapshot_bytes, tmp_path):
    header, data = split(snapshot_bytes)
    manifest = json.loads(header["__metadata__"][MANIFEST_KEY])
    manifest["stages"].append({**manifest["stages"][0], "name": "empty", "shape": [0, 2], "axes": ["batch", "model"],
                               "tokens": {}})
    header["__metadata__"][MANIFEST_KEY] = json.dumps(manifest)
    header["empty"] = {"dtype": "F32", "shape": [0, 2], "data_offsets": [len(data), len(data)]}
    path = tmp_path / "empty.safetensors"
    path.write_bytes(join(header, data))
    assert "holds no values" in refused(path)


# ----- inconsistent files -----------------------------------------------------------------------
def _probs(m):
    return next(s for s in m["stages"] if s["name"] == "enc.0.attn.probs")


INCONSISTENT = {
    "token list shorter than its axis": (lambda m: m["tokens"]["src"].pop(), "lists 2 tokens"),
    "token side the manifest does not declare": (lambda m: _probs(m)["tokens"].update(key="memory"),
                                                 "does not hold"),
    "token label on a non-token axis": (lambda m: _probs(m)["tokens"].update(head="src"), "token axis"),
    "duplicate axis names": (lambda m: _probs(m).update(axes=["batch", "head", "query", "query"]),
                             "axis twice"),
}


@pytest.mark.parametrize("case", sorted(INCONSISTENT))
def test_inconsistent_manifests_are_refused(case, snapshot_bytes, tmp_path):
    change, words = INCONSISTENT[case]
    path = tmp_path / "bad.safetensors"
    path.write_bytes(edit_manifest(snapshot_bytes, change))
    assert words in refused(path)


def _duplicated(blob, key_of):
    """The header JSON with one key written twice (json.dumps cannot make such a file)."""
    header, data = split(blob)
    key, container = key_of(header)
    text = json.dumps(header, ensure_ascii=False)
    entry = json.dumps(key) + ":" + json.dumps(container[key], ensure_ascii=False)
    if container is header:
        text = "{" + entry + "," + text[1:]
    else:
        text = text.replace('"__metadata__": {', '"__metadata__": {' + entry + ",", 1)
    raw = text.encode("utf-8")
    return struct.pack("<Q", len(raw)) + raw + data


@pytest.mark.parametrize("which", ["tensor", "metadata"])
def test_a_key_given_twice_in_the_header(which, snapshot_bytes, tmp_path):
    pick = ((lambda h: (next(k for k in h if k != "__metadata__"), h)) if which == "tensor"
            else (lambda h: (MANIFEST_KEY, h["__metadata__"])))
    path = tmp_path / "dup.safetensors"
    path.write_bytes(_duplicated(snapshot_bytes, pick))
    assert "same key twice" in refused(path)


def test_a_bool_stage_with_a_byte_other_than_0_or_1(recording, tmp_path, capsys):
    masked = [replace(c, dtype=torch.bool, tensor=c.tensor > 0) if c.name == "dec.0.self_attn.masked" else c
              for c in recording.captures]
    path = tmp_path / "bool.safetensors"
    save_snapshot(replace(recording, captures=masked), path)
    blob = bytearray(path.read_bytes())
    header, _ = split(bytes(blob))
    begin = 8 + struct.unpack("<Q", blob[:8])[0] + header["dec.0.self_attn.masked"]["data_offsets"][0]
    blob[begin] = 2
    path.write_bytes(bytes(blob))
    with open_snapshot(path) as rec:
        with pytest.raises(SnapshotError, match="bytes other than 0 and 1"):
            rec.tensor(rec["dec.0.self_attn.masked"])
    assert cli.main(["info", "--json", str(path)]) == 0  # without --verify no tensor is read
    capsys.readouterr()
    cli_refuses(["info", "--verify", "--json", str(path)], capsys)  # --verify means the same with --json
    cli_refuses(["info", "--verify", str(path)], capsys)


# ----- hostile names ----------------------------------------------------------------------------
HOSTILE = ["../../etc/passwd", "a\x00b", "line\nbreak", "red\x1b[31mtext", "<b>bold</b>", "<img src=x>",
           "..", ".hidden", "back\\slash", "bidi\u202eevil", "tab\tname", "a b"]


@pytest.mark.parametrize("name", HOSTILE)
def test_hostile_stage_names_are_refused_on_open(name, snapshot_bytes, tmp_path, capsys):
    path = tmp_path / "hostile.safetensors"
    path.write_bytes(_rename_first(snapshot_bytes, name))
    message = refused(path)
    assert "\x1b" not in message and "\x00" not in message
    err = cli_refuses(["info", str(path)], capsys)
    assert "\x1b" not in err


@pytest.mark.parametrize("suffix", [".safetensors", ".npz", ".pt"])
@pytest.mark.parametrize("name", ["../../etc/passwd", "red\x1b[31mtext", "<b>x"])
def test_hostile_stage_names_are_never_written(name, suffix, recording, tmp_path):
    first = recording.captures[0]
    renamed = replace(recording, captures=[replace(first, info=replace(first.info, name=name)),
                                           *recording.captures[1:]])
    out = tmp_path / "sub" / f"export{suffix}"
    out.parent.mkdir()
    with pytest.raises(TfdebugError, match="cannot be saved"):
        export_pass(renamed, out)
    assert os.listdir(out.parent) == [] and os.listdir(tmp_path) == ["sub"]
