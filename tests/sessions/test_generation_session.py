"""GenerationSession: each step's stages named gen.{t}., the KV cache growing, stepping by token, snapshots."""

import pytest
import torch

from tfdebug.sessions.generation import GenerationSession
from tfdebug.adapters.registry import load_adapter
from tfdebug.sessions.session import DebugSession
from tfdebug.cli import main
from tfdebug.core.errors import StepperStateError
from tfdebug.core.names import parse_name
from tfdebug.io.recording import Recording
from tfdebug.io.snapshot import open_snapshot, save_snapshot
from tfdebug.models.sampling import DecodingSettings


@pytest.fixture(scope="module")
def demo():
    return load_adapter("demo")


@pytest.fixture()
def session(demo):
    s = GenerationSession(demo, {"src": "I love you", "tgt": ""}, DecodingSettings(max_new_tokens=6))
    yield s
    s.close()


def test_steps_are_named_and_the_cache_grows_by_one_key(session):
    captures, choices = session.capture_all()
    by_name = {c.name: c for c in captures}
    steps = sorted({parse_name(c.name).step for c in captures})
    assert steps == list(range(len(choices)))
    n_heads, head_dim = by_name["gen.0.dec.0.self_attn.q_split"].shape[1::2]
    for t in steps:
        for layer in (0, 1):
            k = by_name[f"gen.{t}.dec.{layer}.self_attn.cache_k"]
            assert k.info.kind == "kv_cache" and k.info.axes == ("batch", "head", "key", "head_dim")
            assert k.shape == (1, n_heads, 1 + t, head_dim)  # <bos> + one key per step
            assert by_name[f"gen.{t}.dec.{layer}.self_attn.cache_v"].shape == k.shape
            # Cross-attention's K/V come from the encoder once: the same 3 source keys each step.
            assert by_name[f"gen.{t}.dec.{layer}.cross_attn.cache_k"].shape == (1, n_heads, 3, head_dim)
        if t > 0:  # later steps feed one token and do not rerun the encoder or cross-attention's K/V
            assert by_name[f"gen.{t}.tgt.embed"].shape[1] == 1
            assert f"gen.{t}.enc.norm" not in by_name and f"gen.{t}.dec.0.cross_attn.k" not in by_name
            cache = by_name[f"gen.{t}.dec.1.self_attn.cache_k"].tensor
            before = by_name[f"gen.{t - 1}.dec.1.self_attn.cache_k"].tensor
            assert torch.equal(cache[:, :, :-1], before)  # the earlier keys are kept, not recomputed
    assert session.generated == ["我", "爱", "你"]
    # The new token's attention row over every key so far, labelled with the tokens.
    probs = by_name["gen.2.dec.0.self_attn.probs"]
    assert probs.shape[2:] == (1, 3)
    assert session.axis_labels(probs.info, 2) == ["爱"] and session.axis_labels(probs.info, 3) == ["<bos>", "我", "爱"]


def test_teacher_forced_pass_is_unchanged(demo):
    names = DebugSession(demo, {"src": "I love you", "tgt": "我 爱"}).plan.names()
    assert not any("cache" in n or n.startswith("gen.") for n in names)
    assert names[0] == "src.embed" and names[-1] == "logits"


def test_plan_names_every_step_the_run_can_reach(session):
    captures, _ = session.capture_all()
    planned = {c.name: c.shape for c in session.plan}
    assert max(parse_name(n).step for n in planned) == 5  # max_new_tokens = 6: steps 0 … 5
    for c in captures:
        assert planned[c.name] == c.shape, c.name


def test_next_token_and_run_to_token(session):
    stepper = session.stepper
    stepper.start()
    assert stepper.wait() == "paused" and stepper.current.name == "gen.0.src.embed"
    stepper.step()
    stepper.wait()
    session.next_token()  # to where step 1 reads the first generated token
    assert stepper.wait() == "paused" and stepper.current.name == "gen.1.tgt.embed"
    assert session.tokens["tgt"] == ["<bos>", "我"]
    session.run_to_token(3)
    assert stepper.wait() == "paused" and stepper.current.name == "gen.3.tgt.embed"
    assert session.tokens["tgt"] == ["<bos>", "我", "爱", "你"]
    session.goto_step(1)  # back through history: nothing runs again
    assert stepper.current.name == "gen.1.tgt.embed" and stepper.state == "paused"
    session.run_to_token(6)  # past <eos>: the pass ends
    assert stepper.wait() == "finished" and session.generated == ["我", "爱", "你"]
    entries = session.entries()
    assert [e.text for e in entries] == ["<bos>", "我", "爱", "你", "<eos>"]
    assert [e.step for e in entries if e.generated] == [0, 1, 2, 3]
    assert all(len(e.alternatives) == 5 and e.alternatives[0][0] == e.text for e in entries if e.generated)
    with pytest.raises(StepperStateError):
        session.run_to_token(0)


def test_breakpoint_inside_a_step(session):
    stepper = session.stepper
    stepper.start()
    stepper.wait()
    session.run_to_token(2)
    stepper.wait()
    stepper.run_to("gen.2.dec.1.self_attn.probs")
    assert stepper.wait() == "paused" and stepper.current.shape == (1, 4, 1, 3)


def test_snapshot_of_a_generation_replays(session, tmp_path):
    captures, _ = session.capture_all()
    path = tmp_path / "gen.safetensors"
    save_snapshot(Recording.from_session(session, captures), path)
    with open_snapshot(path) as rec:
        assert rec.tokens["tgt"] == ["<bos>", "我", "爱", "你", "<eos>"]
        assert rec.names() == [c.name for c in captures]
        stepper = rec.stepper()
        stepper.run_to("gen.2.dec.1.self_attn.cache_k")
        assert stepper.current.shape[2] == 3 and stepper.current.info.tokens == {"key": "tgt[0:3]"}


def test_cli_generate_prints_the_translation(capsys, tmp_path):
    assert main(["generate", "--model", "demo", "--input", "src=I love you"]) == 0
    assert capsys.readouterr().out.split() == ["我", "爱", "你"]
    out = tmp_path / "run.safetensors"
    assert main(["generate", "--model", "random", "--input", "src=I love you", "--max-new-tokens", "4", "--sample",
                 "--seed", "3", "--out", str(out)]) == 0
    first = capsys.readouterr().out.split()
    assert main(["generate", "--model", "random", "--input", "src=I love you", "--max-new-tokens", "4", "--sample",
                 "--seed", "3"]) == 0
    assert capsys.readouterr().out.split() == first and len(first) == 4
    with open_snapshot(out) as rec:
        assert {parse_name(n).step for n in rec.names()} == {0, 1, 2, 3}
    assert main(["generate", "--model", "demo", "--top-p", "0"]) == 2
    assert "Top-p" in capsys.readouterr().err


def test_later_steps_take_the_plans_descriptions_which_are_the_ones_made_stage_by_stage(demo):
    # Steps 2 on are labelled from the plan (`_planned`), not made again at every stage: the same descriptions.
    for cache in (True, False):
        s = GenerationSession(demo, {"src": "I love you", "tgt": ""},
                              DecodingSettings(max_new_tokens=6, stop_at_eos=False), use_cache=cache)
        fast, _ = s.capture_all()
        planned, s._planned = s._planned, {}
        slow, _ = s.capture_all()
        assert planned and set(planned) == {2, 3, 4, 5}
        assert [c.info for c in fast] == [c.info for c in slow] == [c.info for c in s.plan]
        from_plan = {id(capture.info) for by_tap in planned.values() for _, capture in by_tap.values()}
        later = [c for c in fast if parse_name(c.name).step >= 2]
        assert later and all(id(c.info) in from_plan for c in later)
        s.close()


def test_a_generation_leaves_the_garbage_collector_as_it_found_it(session):
    import gc

    before, frozen = gc.get_threshold(), gc.get_freeze_count()
    session.capture_all()
    assert gc.get_threshold() == before and gc.get_freeze_count() == frozen
    stepper = session.stepper
    stepper.start()
    assert stepper.wait() == "paused"
    session.next_token()
    # paused inside a step: the oldest generation is not walked automatically, and nothing was frozen (the
    # window's start-up freeze is the window's: a generation's end must not undo it)
    assert stepper.wait() == "paused" and gc.get_threshold()[2] > before[2] and gc.get_freeze_count() == frozen
    stepper.stop()  # unwinds the generation: the thresholds come back
    assert gc.get_threshold() == before and gc.get_freeze_count() == frozen


def test_forgetting_the_history_lets_every_captured_tensor_go(session):
    import weakref

    stepper = session.stepper
    stepper.start()
    stepper.wait()
    stepper.continue_()
    assert stepper.wait() == "finished"
    refs = [weakref.ref(c.tensor) for c in stepper.history if isinstance(c.tensor, torch.Tensor)]
    assert refs
    stepper.forget_history()  # the capture budget held every capture it admitted too
    assert all(r() is None for r in refs)
