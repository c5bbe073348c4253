"""Snapshots: round trip, a standard safetensors file, lazy opening, replay."""

import json

import pytest
import torch
from safetensors import safe_open

from tfdebug.core.errors import SnapshotError
from tfdebug.io.recording import FORMAT_VERSION, MANIFEST_KEY, Recording
from tfdebug.io.snapshot import open_snapshot, read_manifest, save_snapshot


def assert_same(a: Recording, b: Recording):
    assert a.manifest() == b.manifest()
    for ca, cb in zip(a.captures, b.captures, strict=True):
        ta, tb = a.tensor(ca), b.tensor(cb)
        assert ta.dtype == tb.dtype and ta.shape == tb.shape
        assert torch.equal(ta, tb), ca.name


@pytest.mark.parametrize("which", ["recording", "recording_bf16"])
def test_round_trip_keeps_tensors_and_manifest(which, request, tmp_path):
    rec = request.getfixturevalue(which)
    path = tmp_path / "pass.safetensors"
    save_snapshot(rec, path)
    with open_snapshot(path) as back:
        assert_same(rec, back)
        assert back.tokens == {"src": ["i", "love", "you"], "tgt": ["<bos>", "我", "爱", "你"]}
        assert back.model_name == "random" and back.model_config == rec.model_config
        assert back["dec.0.cross_attn.k"].info.inputs == ("enc.norm",)  # where the data comes from


def test_manifest_has_the_documented_keys(snapshot_path, recording):
    doc = read_manifest(snapshot_path)
    assert doc["format_version"] == FORMAT_VERSION
    assert {"tfdebug_version", "model_config", "device", "dtype", "tokens", "stages"} <= set(doc)
    assert [s["name"] for s in doc["stages"]] == recording.names()  # forward order
    first = doc["stages"][0]
    assert {"name", "kind", "site", "layer", "shape", "dtype", "axes", "formula"} <= set(first)


def test_any_safetensors_reader_opens_it(snapshot_path, recording):
    with safe_open(str(snapshot_path), framework="pt") as f:
        assert set(f.keys()) == set(recording.names())
        manifest = json.loads(f.metadata()[MANIFEST_KEY])
        probs = "enc.0.attn.probs"
        assert torch.equal(f.get_tensor(probs), recording[probs].tensor)
    assert manifest["stages"][0]["name"] == "src.embed"


def test_opening_reads_no_tensor_until_one_is_shown(snapshot_path):
    reads = []
    with open_snapshot(snapshot_path) as rec:
        inner = rec.load
        rec.load = lambda c: reads.append(c.name) or inner(c)
        assert all(c.tensor is None for c in rec.captures)
        stepper = rec.stepper()  # shows the first stage
        assert reads == ["src.embed"]
        stepper.run_to("enc.0.attn.probs")
        assert reads == ["src.embed", "enc.0.attn.probs"]
        assert stepper.current.tensor.shape == (1, 4, 3, 3)
        assert not stepper.is_live


def test_non_contiguous_and_selected_stages_round_trip(recording, tmp_path):
    views = [c for c in recording.captures if not c.tensor.is_contiguous()]
    assert views, "the reference model should produce transposed views"
    part = recording.select([c.name for c in views])
    save_snapshot(part, tmp_path / "part.safetensors")
    with open_snapshot(tmp_path / "part.safetensors") as back:
        assert_same(part, back)


def test_an_empty_recording_is_refused(recording, tmp_path):
    with pytest.raises(SnapshotError):
        save_snapshot(recording.select([]), tmp_path / "empty.safetensors")
    assert not list(tmp_path.iterdir())


def test_a_closed_snapshot_says_so(snapshot_path):
    rec = open_snapshot(snapshot_path)
    rec.close()
    with pytest.raises(SnapshotError, match="closed"):
        rec.tensor(rec.captures[3])


def test_a_file_changed_after_opening_is_refused(snapshot_path):
    with open_snapshot(snapshot_path) as rec:
        with open(snapshot_path, "r+b") as f:
            f.truncate(len(snapshot_path.read_bytes()) - 100)
        with pytest.raises(SnapshotError, match="changed on disk"):
            rec.tensor(rec.captures[-1])


@pytest.mark.cuda
@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA device")
@pytest.mark.parametrize("dtype", ["float32", "bfloat16"])
def test_a_gpu_pass_saves_from_the_device_and_opens_anywhere(dtype, tmp_path):
    from tests.io.conftest import record

    rec = record(dtype, device="cuda")
    assert rec.device == "cuda:0" and rec.captures[0].tensor.is_cuda
    save_snapshot(rec, tmp_path / "gpu.safetensors")
    with open_snapshot(tmp_path / "gpu.safetensors") as on_cpu:
        assert on_cpu.device == "cuda:0"  # where it was captured
        probs = on_cpu.tensor(on_cpu["enc.0.attn.probs"])
        assert probs.device.type == "cpu" and torch.equal(probs, rec["enc.0.attn.probs"].tensor.cpu())
    with open_snapshot(tmp_path / "gpu.safetensors", device="cuda:0") as on_gpu:
        assert on_gpu.tensor(on_gpu["logits"]).is_cuda


@pytest.mark.parametrize("dtype", ["float32", "bfloat16", "float16", "float64"])
@pytest.mark.parametrize("bad", [float("nan"), float("inf"), float("-inf")])
def test_finiteness_from_the_extremes_is_torch_s_answer(dtype, bad):
    """A stage's finite mark (from its min and max) is torch.isfinite's on the whole, views included, for NaN and
    either infinity, in every floating dtype a pass keeps."""
    import torch

    from tfdebug.io import snapshot

    x = torch.randn(4, 60, 70).to(getattr(torch, dtype))
    views = (x, x.transpose(1, 2), x.reshape(-1)[1::3], x[:1], x[:0])
    assert all(bool(snapshot.all_finite(v)) for v in views)
    x[2, 5, 7] = bad
    for v in views:
        assert bool(snapshot.all_finite(v)) == bool(torch.isfinite(v).all())
    assert not snapshot.all_finite(x) and snapshot.all_finite(x[:2])
    eight = torch.tensor([0.5, -2.0, float("nan")]).to(torch.float8_e5m2)  # float8: no extremes in torch
    assert snapshot.all_finite(eight[:2]) and not snapshot.all_finite(eight)
