"""Exports: round trip per format, plain loaders, selected stages, CSV, progress and cancel."""

import csv

import numpy as np
import pytest
import torch

from tfdebug.core.display import display_slice
from tfdebug.core.errors import ExportCancelledError, ExportError, UnknownStageError
from tfdebug.io.atomic import leftover_temp_files
from tfdebug.io.exports import export_csv, export_pass, load_export
from tfdebug.io.recording import EXPORT_MANIFEST_KEY


@pytest.mark.parametrize("suffix", [".safetensors", ".npz", ".pt"])
@pytest.mark.parametrize("which", ["recording", "recording_bf16"])
def test_round_trip(suffix, which, request, tmp_path):
    rec = request.getfixturevalue(which)
    path = tmp_path / f"pass{suffix}"
    export_pass(rec, path)
    with load_export(path) as back:
        assert back.manifest() == rec.manifest()
        for a, b in zip(rec.captures, back.captures, strict=True):
            tb = back.tensor(b)
            assert tb.dtype == a.dtype and torch.equal(tb, a.tensor), a.name


def test_pt_loads_with_weights_only(recording, tmp_path):
    export_pass(recording, tmp_path / "pass.pt")
    data = torch.load(tmp_path / "pass.pt", weights_only=True)
    assert isinstance(data.pop(EXPORT_MANIFEST_KEY), str)
    assert list(data) == recording.names()
    assert all(isinstance(t, torch.Tensor) and t.device.type == "cpu" for t in data.values())
    assert torch.equal(data["dec.0.self_attn.masked"], recording["dec.0.self_attn.masked"].tensor)


def test_npz_loads_without_pickle_and_bf16_becomes_float32(recording_bf16, tmp_path):
    export_pass(recording_bf16, tmp_path / "pass.npz")
    with np.load(tmp_path / "pass.npz", allow_pickle=False) as npz:
        assert set(npz.files) == set(recording_bf16.names()) | {EXPORT_MANIFEST_KEY}
        probs = npz["enc.0.attn.probs"]
        assert probs.dtype == np.float32
        assert np.array_equal(probs, recording_bf16["enc.0.attn.probs"].tensor.float().numpy())
        assert '"stored_dtype":"float32"' in str(npz[EXPORT_MANIFEST_KEY])


def test_selected_stages_only(recording, tmp_path):
    chosen = ["logits", "enc.0.attn.probs"]
    export_pass(recording, tmp_path / "some.npz", stages=chosen)
    with load_export(tmp_path / "some.npz") as back:
        assert back.names() == ["enc.0.attn.probs", "logits"]  # forward order kept
    with pytest.raises(UnknownStageError):
        export_pass(recording, tmp_path / "x.npz", stages=["nope"])
    with pytest.raises(ExportError, match="No stages"):
        export_pass(recording, tmp_path / "x.npz", stages=[])


def test_unknown_format_is_one_sentence(recording, tmp_path):
    with pytest.raises(ExportError, match="choose a .safetensors"):
        export_pass(recording, tmp_path / "pass.xlsx")
    with pytest.raises(ExportError, match="cannot be exported as .csv"):
        export_pass(recording, tmp_path / "pass.csv")
    export_pass(recording, tmp_path / "pass.bin", fmt="npz")
    assert load_export_npz_names(tmp_path / "pass.bin") == set(recording.names())


def load_export_npz_names(path):
    with np.load(path, allow_pickle=False) as npz:
        return set(npz.files) - {EXPORT_MANIFEST_KEY}


def test_csv_of_the_shown_slice(recording, tmp_path):
    tensor = recording["dec.0.self_attn.masked"].tensor
    shown = display_slice(tensor, 2, 3)
    tokens = ["<bos>", "我", "爱", "你"]
    export_csv(shown, tmp_path / "slice.csv", row_labels=tokens, col_labels=tokens)
    with open(tmp_path / "slice.csv", newline="", encoding="utf-8") as f:
        rows = list(csv.reader(f))
    assert rows[0] == ["", *tokens]
    assert [r[0] for r in rows[1:]] == tokens
    values = np.array([[float(x) for x in r[1:]] for r in rows[1:]], dtype=np.float32)
    assert np.array_equal(values, tensor[0, 0].numpy())  # exact, -inf included
    assert rows[1][2] == "-inf"
    with pytest.raises(ExportError):
        export_csv(np.zeros((2, 2, 2)), tmp_path / "bad.csv")
    with pytest.raises(ExportError):
        export_csv(np.zeros((2, 2)), tmp_path / "bad.csv", row_labels=["a"])


@pytest.mark.parametrize("suffix", [".safetensors", ".npz", ".pt"])
def test_progress_reaches_the_total_and_cancel_leaves_nothing(suffix, recording, tmp_path):
    seen = []
    export_pass(recording, tmp_path / f"a{suffix}", progress=lambda d, t: seen.append((d, t)))
    assert seen[0][0] == 0 and seen[-1][0] == seen[-1][1] > 0
    assert all(a[0] <= b[0] for a, b in zip(seen, seen[1:]))

    calls = []
    with pytest.raises(ExportCancelledError):
        export_pass(recording, tmp_path / f"b{suffix}", progress=lambda d, t: calls.append(d) or len(calls) < 3)
    with pytest.raises(ExportCancelledError):
        export_pass(recording, tmp_path / f"c{suffix}", progress=lambda d, t: 1 / 0)
    assert sorted(p.name for p in tmp_path.iterdir()) == [f"a{suffix}"]
    assert not leftover_temp_files(tmp_path)
