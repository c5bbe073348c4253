"""A capture budget: the plan says before the pass what it holds; the pass runs to the end within the budget."""

import pytest
import torch
from torch import nn

from tfdebug.adapters.torch_nn.adapter import wrap
from tfdebug.sessions.session import DebugSession
from tfdebug.cli import main
from tfdebug.core.breakpoints import Breakpoint
from tfdebug.core.recorder import held_bytes
from tfdebug.core.stepper import FINISHED, PAUSED


def _encoder(text="a b c d e f g h", budget=None, stages=None):
    torch.manual_seed(0)
    encoder = nn.TransformerEncoder(nn.TransformerEncoderLayer(32, 4, 64, batch_first=True), 2,
                                    enable_nested_tensor=False)

    def make(t):
        words = t.split()
        return (torch.randn(1, len(words), 32, generator=torch.Generator().manual_seed(1)),), words

    return DebugSession(wrap(encoder, make), {"text": text}, stages=stages, max_capture_bytes=budget)


def test_the_estimate_is_the_sum_of_the_plan_and_equals_a_full_capture():
    session = _encoder()
    estimate = session.capture_estimate()
    captures, _ = session.capture_all()
    assert estimate.total_bytes == sum(c.nbytes for c in captures) == estimate.kept_bytes
    assert estimate.dropped == () and len(estimate.kept) == len(captures)
    # the stage filter applies to the estimate as to the pass
    probs_only = _encoder(stages=["*.probs"])
    assert probs_only.capture_estimate().kept == ("enc.0.attn.probs", "enc.1.attn.probs")
    assert [c.name for c in probs_only.capture_all()[0]] == ["enc.0.attn.probs", "enc.1.attn.probs"]


def test_a_stepped_pass_over_budget_runs_to_the_end_within_it():
    total = _encoder().capture_estimate().total_bytes
    budget = total // 3
    session = _encoder(budget=budget)
    estimate = session.capture_estimate()
    assert estimate.dropped and estimate.kept_bytes <= budget
    first_dropped = estimate.dropped[0]
    stepper = session.stepper
    held_at_each_stage = []
    stepper.subscribe(lambda e: held_at_each_stage.append(
        held_bytes(c for c in stepper.history if not c.dropped and c.name != e.capture.name))
        if e.type == "captured" else None)
    stepper.add_breakpoint(Breakpoint("stage", first_dropped))
    stepper.start()
    assert stepper.wait() == PAUSED
    stepper.continue_()
    assert stepper.wait() == PAUSED and stepper.current.name == first_dropped
    paused_at = stepper.current
    assert paused_at.tensor is not None and not paused_at.dropped  # shown while paused at it
    stepper.continue_()
    assert stepper.wait() == FINISHED
    assert paused_at.tensor is None and paused_at.dropped  # gone once the pass moved on
    assert stepper.dropped == list(estimate.dropped)
    assert [c.name for c in stepper.history if not c.dropped] == list(estimate.kept)
    assert held_bytes(stepper.history) <= budget
    assert max(held_at_each_stage) <= budget
    assert session.verify(stepper.output).ok


def test_capture_all_keeps_within_the_budget():
    session = _encoder(budget=20_000)
    captures, _ = session.capture_all()
    kept = [c for c in captures if not c.dropped]
    assert sum(c.nbytes for c in kept) <= 20_000 and len(kept) < len(captures)
    assert all(c.tensor is None for c in captures if c.dropped)
    assert session.verification.ok


def test_cli_max_capture_mb(capsys, tmp_path):
    spec = "torch:examples/gpt_block.py:factory"
    assert main(["stages", "--model", spec, "--max-capture-mb", "0.01"]) == 0
    out = capsys.readouterr().out.strip().splitlines()
    assert out[-1].startswith("verified") and "budget keeps" in out[-2] and "16 stages" in out[-3]
    assert "nan" not in " ".join(out[2:-3]).split()  # every stage has its stats, dropped or not
    target = tmp_path / "pass.safetensors"
    assert main(["capture", "--model", spec, "--max-capture-mb", "0.01", "--keep", "first", "--out", str(target)]) == 0
    out = capsys.readouterr().out
    # Every pinned kind does not fit: the later steps of attention hold their room first (the probabilities rather
    # than the splits they were computed from), in forward order.
    assert "wrote" in out and "left out 10 stages beyond the 10.0 kB budget, keeping those in forward order" in out
    assert "left out by kind: 6 head_split, 2 scores, 2 attn_v" in out
    # The default keeps the stages nearest the focus (here: the end of the pass, the logits).
    assert main(["capture", "--model", spec, "--max-capture-mb", "0.01", "--out", str(target)]) == 0
    out = capsys.readouterr().out
    assert "keeping those nearest the current stage" in out
    assert main(["capture", "--model", spec, "--max-capture-mb", "0.01", "--focus", "nowhere", "--out",
                 str(target)]) == 2
    assert "focus nowhere is not a stage" in capsys.readouterr().err
    assert main(["stages", "--model", spec, "--max-capture-mb", "-1"]) == 2
    assert "--max-capture-mb takes a finite number of MB" in capsys.readouterr().err


@pytest.fixture(autouse=True)
def _repo_root_and_allocator_alone(monkeypatch):
    """The example opens from the repository root; cli.main's allocator opt-in must not leak into later tests."""
    from pathlib import Path
    monkeypatch.chdir(Path(__file__).resolve().parents[2])
    monkeypatch.setattr("tfdebug.core.memory.keep_freed_memory", lambda: None)


def test_a_stepped_pass_keeps_the_stages_near_the_focus_and_says_why_others_went():
    from tfdebug.core.budget import TOO_LARGE, KeepPolicy

    text = " ".join("abcdefgh") * 4  # 32 tokens: a 32 × 32 × 4-head score plane (16 kB) outweighs the rest (4 kB)
    plan = _encoder(text).plan
    largest = max(plan, key=lambda c: c.nbytes)
    budget = largest.nbytes - 1  # the largest stage alone does not fit; three others do
    focus = "enc.1.attn.v"
    session = _encoder(text, budget=budget)
    session.keep = session.stepper.keep = KeepPolicy(focus=focus)
    estimate = session.capture_estimate()
    assert estimate.reasons[largest.name] == TOO_LARGE and focus in estimate.kept
    stepper = session.stepper
    stepper.add_breakpoint(Breakpoint("stage", largest.name))
    stepper.start()
    assert stepper.wait() == PAUSED
    stepper.continue_()
    assert stepper.wait() == PAUSED and stepper.current.name == largest.name
    assert stepper.current.tensor is not None  # too large to keep, still shown while paused at it
    stepper.continue_()
    assert stepper.wait() == FINISHED
    assert [c.name for c in stepper.history if not c.dropped] == list(estimate.kept)
    assert stepper.dropped == list(estimate.dropped)
    reasons = stepper.drop_reasons
    assert set(reasons) == set(estimate.dropped) and "larger than" in reasons[largest.name]
    assert set(estimate.kept) == {"enc.1.attn.k", "enc.1.attn.v", "enc.1.attn.q_split"}  # the focus, its neighbours
    assert held_bytes(stepper.history) <= budget


def test_a_budget_short_of_every_pinned_stage_still_keeps_every_layers_attention(capsys, tmp_path):
    """A budget that holds every layer's rotated q and k but not also their splits (a 32k-token pass under the default
    budget): `tfdebug capture` keeps the rotations, from which every layer's probabilities open, equal to the model's
    own attentions on ids transformers' tokenizer made, and lets splits go."""
    transformers = pytest.importorskip("transformers")
    from tests.adapters.hf_tiny import llama, save_folder

    model = llama(n_layer=3)
    folder = save_folder(model, tmp_path / "model")
    text = " ".join(["the cat sat on the mat"] * 5)
    ids = transformers.PreTrainedTokenizerFast(tokenizer_file=str(folder / "tokenizer.json"))(
        text, return_tensors="pt")["input_ids"]
    model.set_attn_implementation("eager")
    with torch.no_grad():
        attentions = model(input_ids=ids, output_attentions=True).attentions
    tokens, heads, kv_heads, width = ids.shape[1], 4, 2, 8
    rotated = 4 * tokens * width * (heads + kv_heads)  # one layer's q and k after rotation, float32
    splits = 4 * tokens * width * (heads + 2 * kv_heads)  # its q, k and v splits
    budget_mb = (3 * rotated + splits) / 1e6  # every rotation, one layer's splits
    target = tmp_path / "pass.safetensors"
    assert main(["capture", "--model", f"hf:{folder}", "--input", f"prompt={text}", "--max-capture-mb",
                 f"{budget_mb:.6f}", "--out", str(target)]) == 0
    left_out = next(line for line in capsys.readouterr().out.splitlines() if "left out by kind" in line)
    by_kind = left_out.split("left out by kind: ")[1]
    assert "6 head_split" in by_kind and "rotary" not in by_kind  # one layer's splits stay (the last one's)
    from tfdebug.io.passes import open_pass

    with open_pass(target) as back:
        for layer, expected in enumerate(attentions):
            probs = back.tensor(back[f"dec.{layer}.self_attn.probs"])
            assert probs is not None and probs.shape == expected.shape
            torch.testing.assert_close(torch.as_tensor(probs[0, :]), expected[0], rtol=0, atol=1e-6)
