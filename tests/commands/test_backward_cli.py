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
        # the Backward dock's numbers, which a snapshot cannot compute again (it keeps no activation)
        from tfdebug.io.backward_summary import summary_parts

        summary = summary_parts(rec.backward["summary"])
        assert [n for _, n in summary["saliency"]] == pytest.approx([n for _, n in want.saliency()], rel=1e-6)
        assert len(summary["tokens"]) == len(summary["saliency"]) == 8 and summary["frames"] == []
        assert [row[:3] for row in summary["modules"]] == [row[:3] for row in want.module_norms()]
        assert [row[3] for row in summary["modules"]] == pytest.approx([row[3] for row in want.module_norms()],
                                                                        rel=1e-6)
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


def test_a_stage_sum_is_saved_with_its_stage_in_the_objective_s_words(tmp_path, capsys):
    path = tmp_path / "sum.safetensors"
    assert main(["backward", *TINY, "--objective", "stage_sum", "--stage", "dec.0.ffn.resid", "--json",
                 "--out", str(path)]) == 0
    printed = json.loads(capsys.readouterr().out)
    assert printed["objective"] == "sum of dec.0.ffn.resid" and printed["stages"][0]["stage"] == "dec.0.ffn.resid"
    doc = read_manifest(path)["backward"]
    assert doc["objective_kind"] == "stage_sum" and doc["objective"] == "sum of dec.0.ffn.resid"
    assert "position" not in doc


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


def _first_divergent_gradient(a, b, atol: float, rtol: float) -> str | None:
    """From the definition: the first stage in A's backward order with a cell where |B − A| > atol + rtol·|A|, a
    cell finite in one pass and not in the other counting as over (NaN in both, or the same infinity, as equal)."""
    for capture in a.gradients:
        x, y = capture.tensor.double(), b.gradient(capture.name).double()
        if not bool(torch.isclose(y, x, rtol=rtol, atol=atol, equal_nan=True).all()):
            return capture.name
    return None


def test_diff_backward_float16_against_float32_names_the_first_divergent_gradient(tmp_path, capsys):
    folder = _overflowing_backward(tmp_path / "overflow")
    full, half = load_adapter(f"hf:{folder}"), load_adapter(f"hf:{folder}", dtype="float16")
    a = run_backward(full, full.prepare({"prompt": PROMPT}))
    b = run_backward(half, half.prepare({"prompt": PROMPT}))
    want = _first_divergent_gradient(a, b, 1e-2, 2e-2)  # float16's tolerance (sessions.crosscheck.TOLERANCES)
    assert want is not None and b.first_nonfinite == "dec.1.ffn.resid"
    order = [c.name for c in a.gradients]
    assert order.index(want) <= order.index("dec.1.ffn.resid")
    assert want == "dec.1.ffn.resid"  # here every gradient before the overflow is within float16's tolerance
    args = ["diff", "--model", f"hf:{folder}", "--input", f"prompt={PROMPT}", "--dtype", "float16",
            "--against", "float32", "--backward"]
    assert main([*args, "--json"]) == 1
    data = json.loads(capsys.readouterr().out)
    assert data["first_divergent"] == want
    assert [s["name"] for s in data["stages"]] == order  # backward order, logits first
    assert data["backward"]["first_nonfinite_b"] == "dec.1.ffn.resid" and data["backward"]["first_nonfinite_a"] is None
    assert data["backward"]["loss_a"] == pytest.approx(a.loss)
    assert main(args) == 1
    out = capsys.readouterr().out
    assert f"first divergent gradient (backward order): {want}" in out and "transplant" not in out
    assert "first non-finite gradient: A none, B dec.1.ffn.resid" in out


def test_diff_of_two_backward_snapshots_compares_them_in_backward_order(tmp_path, capsys):
    folder = _overflowing_backward(tmp_path / "overflow")
    for dtype in ("float32", "float16"):
        assert main(["backward", "--model", f"hf:{folder}", "--input", f"prompt={PROMPT}", "--dtype", dtype,
                     "--out", str(tmp_path / f"{dtype}.safetensors")]) == 0
    capsys.readouterr()
    assert main(["diff", str(tmp_path / "float32.safetensors"), str(tmp_path / "float16.safetensors"),
                 "--atol", "1e-2", "--rtol", "2e-2", "--json"]) == 1
    data = json.loads(capsys.readouterr().out)
    full, half = load_adapter(f"hf:{folder}"), load_adapter(f"hf:{folder}", dtype="float16")
    a = run_backward(full, full.prepare({"prompt": PROMPT}))
    b = run_backward(half, half.prepare({"prompt": PROMPT}))
    assert data["first_divergent"] == _first_divergent_gradient(a, b, 1e-2, 2e-2)
    assert data["stages"][0]["name"] == "logits"
    assert data["backward"]["b"]["first_nonfinite"] == "dec.1.ffn.resid" and data["backward"]["a"]["loss"] > 0
    # a backward pass against a forward one is one sentence
    assert main(["capture", "--model", f"hf:{folder}", "--input", f"prompt={PROMPT}", "--quiet",
                 "--out", str(tmp_path / "forward.safetensors")]) == 0
    capsys.readouterr()
    assert main(["diff", str(tmp_path / "float32.safetensors"), str(tmp_path / "forward.safetensors")]) == 2
    err = capsys.readouterr().err
    assert "compare two of the same kind" in err and err.count("\n") == 1
    assert main(["diff", "--model", f"hf:{folder}", "--against", "float32", "--backward",
                 "--transplant", "logits"]) == 2
    assert "does not apply to --backward" in capsys.readouterr().err
