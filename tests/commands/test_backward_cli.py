"""`tfdebug backward --out`, `tfdebug info` and `tfdebug diff --backward` as a user runs them: a backward pass
saved as a snapshot (gradients in backward order, the objective and the loss in its manifest) reads back equal,
and float16 against float32 names the first stage (in backward order) whose gradient diverges."""

from __future__ import annotations

import json
import math

import pytest
import torch

from tests.sessions.test_backward import PROMPT, _overflowing_backward
from tfdebug.adapters.registry import load_adapter
from tfdebug.cli import main
from tfdebug.io.recording import Recording, backward_doc
from tfdebug.io.snapshot import open_snapshot, read_manifest, save_snapshot
from tfdebug.sessions.backward import run_backward

transformers = pytest.importorskip("transformers")

TINY = ["--model", "tiny-gpt2", "--input", "prompt=the cat is on the mat ="]


def test_backward_out_saves_the_gradients_in_backward_order_and_they_read_back_equal(tmp_path, capsys):
    path = tmp_path / "grad.safetensors"
    assert main(["backward", *TINY, "--out", str(path)]) == 0
    assert f"wrote {path}" in capsys.readouterr().out
    adapter = load_adapter("tiny-gpt2")
    want = run_backward(adapter, adapter.prepare({"prompt": "the cat is on the mat ="}))
    with open_snapshot(path) as rec:
        assert rec.names() == [c.name for c in want.gradients]
        assert rec.names()[0] == "logits" and rec.names()[-1] == "tok.embed"
        for capture in rec.captures:
            assert torch.equal(rec.tensor(capture), want.gradient(capture.name)), capture.name
            assert capture.info.formula.startswith("∂L/∂")
        assert rec.backward["objective_kind"] == "next_token"
        assert rec.backward["objective"] == "next-token cross-entropy over the prompt"
        assert rec.backward["loss"] == pytest.approx(want.loss) and rec.backward["first_nonfinite"] is None
        stepper = rec.stepper()  # a replay stepped logits first
        assert stepper.current.name == "logits" and [c.name for c in stepper.history] == rec.names()
    assert main(["info", str(path)]) == 0
    out = capsys.readouterr().out
    assert "a backward pass" in out and "logits first" in out and "first non-finite gradient: none" in out


def test_a_logit_difference_is_saved_with_its_tokens_and_a_forward_snapshot_says_nothing_of_backward(tmp_path,
                                                                                                      capsys):
    path = tmp_path / "diff.safetensors"
    assert main(["backward", *TINY, "--objective", "logit_diff", "--target", "猫", "--position", "-1",
                 "--out", str(path)]) == 0
    doc = read_manifest(path)["backward"]
    assert doc["objective_kind"] == "logit_diff" and doc["position"] == -1 and isinstance(doc["target"], int)
    forward = tmp_path / "forward.safetensors"
    assert main(["capture", *TINY, "--out", str(forward), "--quiet"]) == 0
    assert "backward" not in read_manifest(forward)
    capsys.readouterr()
    assert main(["info", str(forward)]) == 0
    assert "backward" not in capsys.readouterr().out


def test_a_non_finite_loss_is_stored_as_its_word_and_reads_back(tmp_path):
    adapter = load_adapter("tiny-gpt2")
    from tfdebug.sessions.session import DebugSession

    session = DebugSession(adapter, {"prompt": "the cat"}, planning="lazy")
    result = run_backward(adapter, session.prepared)
    recording = result.recording(session)
    recording.backward = backward_doc("next_token", "x", float("nan"), "logits")
    save_snapshot(recording, tmp_path / "nan.safetensors")
    with open_snapshot(tmp_path / "nan.safetensors") as rec:
        assert rec.backward["loss"] == "nan" and math.isnan(float(rec.backward["loss"]))
        assert rec.backward["first_nonfinite"] == "logits"


@pytest.mark.parametrize("entry", [{"objective": "x"}, {"objective_kind": "k", "objective": "x", "loss": "big"},
                                   {"objective_kind": "k", "objective": "x", "loss": 1.0, "first_nonfinite": "../a"},
                                   {"objective_kind": "k", "objective": "x", "loss": 1.0, "position": 1.5}, []])
def test_a_damaged_backward_entry_is_one_sentence(tmp_path, entry, capsys):
    adapter = load_adapter("tiny-gpt2")
    from tfdebug.core.errors import SnapshotError
    from tfdebug.io.manifest import check_manifest
    from tfdebug.sessions.session import DebugSession

    session = DebugSession(adapter, {"prompt": "the cat"}, planning="lazy")
    doc = Recording.from_session(session).manifest()
    doc["backward"] = entry
    with pytest.raises(SnapshotError, match="backward pass's objective or loss is damaged"):
        check_manifest(doc, "The file")


def test_backward_out_of_another_format_is_one_sentence(tmp_path, capsys):
    assert main(["backward", *TINY, "--out", str(tmp_path / "g.npz")]) == 2
    err = capsys.readouterr().err
    assert ".safetensors snapshot" in err and err.count("\n") == 1
