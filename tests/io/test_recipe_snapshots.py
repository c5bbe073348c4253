"""Recipe stages in snapshots and exports (io.recipe_store): a snapshot stores the steps and their inputs, never
the tokens² planes, and reopens to planes equal to the live pass's bit for bit; .npz and .pt write the computed
planes; a damaged recipe is one sentence; an export the disk cannot hold is refused before writing."""

from __future__ import annotations

import shutil
from collections import namedtuple

import pytest
import torch

from tests.adapters import hf_archs, hf_tiny
from tests.adapters.test_hf_architectures import TEXTS
from tests.io.test_snapshot_validation import edit_manifest
from tfdebug.adapters.hf.adapter import wrap
from tfdebug.core.errors import ExportError, SnapshotError
from tfdebug.core.recipes import is_plane, materialized
from tfdebug.io.exports import export_pass, load_export
from tfdebug.io.recording import Recording
from tfdebug.io.safetensors_file import read_header
from tfdebug.io.snapshot import open_snapshot, read_manifest
from tfdebug.io.verify import verify_snapshot
from tfdebug.sessions.session import DebugSession

# Grouped heads with rotary q/k, a soft cap, a relative position bias, a padding mask.
ARCHS = ["llama", "gemma2", "t5", "bert"]


def _pass(model_type: str, dtype: torch.dtype):
    arch = hf_archs.BY_TYPE[model_type]
    model = hf_archs.build(arch).to(dtype)
    texts = dict(TEXTS[arch.kind], tgt="") if arch.kind == "encoder-decoder" else TEXTS[arch.kind]
    session = DebugSession(wrap(model, hf_tiny.word_tokenizer()), texts)
    captures, _ = session.capture_all()
    return Recording.from_session(session, captures), captures


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16], ids=["float32", "bfloat16"])
@pytest.mark.parametrize("model_type", ARCHS)
def test_every_format_reopens_every_stage_bit_for_bit(model_type, dtype, tmp_path):
    recording, captures = _pass(model_type, dtype)
    recipes = [c.name for c in captures if c.recipe]
    assert recipes and all(is_plane(c.tensor) for c in captures if c.recipe)
    for suffix in (".safetensors", ".npz", ".pt"):
        path = tmp_path / f"pass{suffix}"
        export_pass(recording, path)
        with load_export(path) as back:
            for capture in captures:
                stored = back.tensor(back[capture.name])
                assert is_plane(stored) == (suffix == ".safetensors" and capture.recipe), (suffix, capture.name)
                expected = materialized(capture.tensor)
                assert torch.equal(materialized(stored).to(expected.dtype), expected), (suffix, capture.name)
    snapshot = tmp_path / "pass.safetensors"
    stored = set(read_header(snapshot).tensors)
    assert not stored & set(recipes)  # no plane is in the file
    doc = read_manifest(snapshot)
    assert {s["name"] for s in doc["stages"] if "recipe" in s} == set(recipes)
    assert verify_snapshot(snapshot).stages == len(captures)


def test_the_snapshot_holds_no_plane(tmp_path):
    """The four planes of both layers are not written: the file holds the other stages (q and k among them)
    and one mask, which every layer shares."""
    model = hf_tiny.llama()
    session = DebugSession(wrap(model, hf_tiny.word_tokenizer()), {"prompt": " ".join(["the cat sat"] * 20)})
    captures, _ = session.capture_all()
    tokens = captures[0].shape[1]
    plain = sum(c.nbytes for c in captures if not c.recipe)
    planes = sum(c.nbytes for c in captures if c.recipe)
    mask = tokens * tokens * 4
    assert tokens >= 60 and planes > 8 * mask
    path = tmp_path / "long.safetensors"
    export_pass(Recording.from_session(session, captures), path)
    assert path.stat().st_size < plain + mask + 64 * 1024  # the header's JSON within 64 kB


def test_an_edited_plane_is_saved_as_the_edited_tensor(tmp_path):
    """Editing a recipe stage (the paused softmax) makes it a tensor of its own: the stepper counts it, a snapshot
    stores it (not the recipe it was) and reopens to the edited values; undoing the edit makes it a recipe again."""
    session = DebugSession(wrap(hf_tiny.llama(), hf_tiny.word_tokenizer()), {"prompt": "the cat sat on the mat"})
    stepper = session.stepper
    stepper.start()
    stepper.wait()
    stepper.run_to("dec.0.self_attn.probs")
    stepper.wait()
    capture = stepper.current
    assert capture.recipe and capture.held_nbytes == 0
    edited = materialized(capture.tensor).clone()
    edited[..., 0, 0] = 0.25
    stepper.replace(edited)
    assert not capture.recipe and capture.held_nbytes == capture.nbytes
    path = tmp_path / "edited.safetensors"
    export_pass(Recording.from_session(session, stepper.history), path)
    assert "dec.0.self_attn.probs" in read_header(path).tensors
    with load_export(path) as back:
        stored = back.tensor(back["dec.0.self_attn.probs"])
        assert not is_plane(stored) and torch.equal(stored, edited)
    stepper.undo_replace()
    assert capture.recipe and is_plane(capture.tensor)
    session.close()


@pytest.mark.parametrize("change, words", [
    (lambda step: step.update(op="exec"), "is not a step tfdebug writes"),
    (lambda step: step.update(key="dec.9.nothing"), "reads a tensor the file does not hold"),
    (lambda step: step.update(key="logits"), "reads a tensor that is not a 4-axis floating-point tensor"),
    (lambda step: step.update(key=step["query"], query=step["key"]), "query and key do not fit together"),
])
def test_a_damaged_recipe_is_one_sentence(change, words, tmp_path):
    recording, _ = _pass("llama", torch.float32)
    path = tmp_path / "pass.safetensors"
    export_pass(recording, path)

    def damage(manifest):
        stage = next(s for s in manifest["stages"] if s["name"] == "dec.0.self_attn.probs")
        change(stage["recipe"]["steps"][0])

    path.write_bytes(edit_manifest(path.read_bytes(), damage))
    with pytest.raises(SnapshotError) as caught:
        with open_snapshot(path) as back:
            back.tensor(back["dec.0.self_attn.probs"])
    message = str(caught.value)
    assert "dec.0.self_attn.probs" in message and words in message and "\n" not in message


def test_an_older_format_cannot_claim_recipes(tmp_path):
    recording, _ = _pass("llama", torch.float32)
    path = tmp_path / "pass.safetensors"
    export_pass(recording, path)
    path.write_bytes(edit_manifest(path.read_bytes(), lambda m: m.update(format_version=2)))
    with pytest.raises(SnapshotError, match="format 2 cannot hold"):
        open_snapshot(path)


def test_an_export_the_disk_cannot_hold_is_refused_before_writing(tmp_path, monkeypatch):
    recording, _ = _pass("llama", torch.float32)
    need_pt = sum(c.nbytes * (2 if c.recipe else 1) for c in recording.captures)
    snapshot = sum(c.nbytes for c in recording.captures if not c.recipe) + 6 * 6 * 4  # and the causal mask, once
    usage = namedtuple("usage", "total used free")
    monkeypatch.setattr(shutil, "disk_usage", lambda folder: usage(10**9, 0, snapshot + 10))
    with pytest.raises(ExportError) as caught:
        export_pass(recording, tmp_path / "pass.pt")
    message = str(caught.value)
    assert "needs about" in message and "A snapshot (.safetensors) stores the attention planes" in message
    assert need_pt > snapshot + 10 and list(tmp_path.iterdir()) == []
    export_pass(recording, tmp_path / "pass.safetensors")  # the snapshot fits
