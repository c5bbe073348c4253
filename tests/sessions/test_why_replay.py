"""The lens, the attribution and patching of a replayed snapshot: read out with the model the snapshot names, loaded
here, they equal the live pass's; a model that is not here, or not the one captured, is one sentence."""

from __future__ import annotations

import shutil

import pytest
import torch

from tests.adapters.hf_tiny import llama, save_folder
from tfdebug.adapters.registry import load_adapter
from tfdebug.cli import main
from tfdebug.core.readout import ReadoutError
from tfdebug.io.snapshot import open_snapshot
from tfdebug.sessions.local_source import LocalSource
from tfdebug.sessions.why import finished_pass

pytest.importorskip("transformers")

CLEAN, CORRUPT = "the cat sat on the mat", "the dog sat on the mat"


def _captured(model: str, out, text: str = CLEAN) -> LocalSource:
    """`tfdebug capture` of `text` into `out`, opened as `tfdebug open` and File ▸ Open do (a lazy snapshot)."""
    assert main(["capture", "--model", model, "--input", f"prompt={text}", "--out", str(out)]) == 0
    recording = open_snapshot(out)
    return LocalSource.replay(recording.stepper(), recording.tokens, "snapshot", recording)


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    return save_folder(llama(), tmp_path_factory.mktemp("llama"))


@pytest.mark.parametrize("model", ["tiny-gpt2", "folder"])
def test_a_snapshot_s_lens_and_attribution_equal_the_live_pass_s(model, folder, tmp_path):
    spec = f"hf:{folder}" if model == "folder" else model
    source = _captured(spec, tmp_path / "pass.safetensors")
    replayed = source.why()
    live = finished_pass(load_adapter(spec), texts={"prompt": CLEAN})
    assert replayed.rows == live.rows and replayed.count == live.count
    assert replayed.lens(k=3) == live.lens(k=3)
    target, contrast = live.prediction(-1), int(live.tensor("logits")[-1].argsort()[-2])
    assert replayed.attribute(target, contrast) == live.attribute(target, contrast)
    assert source.why() is not replayed and source._model is not None  # the model is loaded once, read again
    source.close()


def test_a_snapshot_s_patching_sweep_equals_the_live_one(tmp_path):
    source = _captured("tiny-gpt2", tmp_path / "pass.safetensors")
    sweep, target, contrast = source.why().sweep({"prompt": CORRUPT})
    live, live_target, live_contrast = finished_pass(load_adapter("tiny-gpt2"),
                                                     texts={"prompt": CLEAN}).sweep({"prompt": CORRUPT})
    assert (target, contrast) == (live_target, live_contrast) and sweep.to_dict() == live.to_dict()
    assert source.why().patcher({"prompt": CORRUPT}).clean.texts == {"prompt": CLEAN}  # the snapshot's recorded text
    source.close()


def test_a_model_that_is_gone_or_not_the_one_captured_is_one_sentence(folder, tmp_path):
    moved = tmp_path / "model"
    shutil.copytree(folder, moved)
    source = _captured(f"hf:{moved}", tmp_path / "pass.safetensors")
    other = llama()
    with torch.no_grad():
        other.model.norm.weight.mul_(1.5)  # other weights under the same name: the final norm's gain changed
    save_folder(other, moved)
    with pytest.raises(ReadoutError, match="not the model the snapshot was captured with"):
        source.why()
    source.close()
    source = _captured(f"hf:{moved}", tmp_path / "again.safetensors")
    shutil.rmtree(moved)
    with pytest.raises(ReadoutError, match="cannot be opened here") as refused:
        source.why()
    assert "\n" not in str(refused.value) and str(moved) in str(refused.value)
    source.close()


def test_a_backward_snapshot_has_no_lens(tmp_path):
    out = tmp_path / "grad.safetensors"
    assert main(["backward", "--model", "tiny-gpt2", "--input", f"prompt={CLEAN}", "--out", str(out)]) == 0
    recording = open_snapshot(out)
    source = LocalSource.replay(recording.stepper(), recording.tokens, "grad", recording)
    with pytest.raises(ReadoutError, match="gradients have no lens"):
        source.why()
    source.close()
