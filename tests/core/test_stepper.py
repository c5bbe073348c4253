"""Stepper semantics: step, step back, run to, continue, breakpoints, replacement, stop, failure."""

import threading
import time

import pytest
import torch

from tfdebug.core.breakpoints import Breakpoint
from tfdebug.core.errors import ForwardFailedError, ReplacementError, StepperStateError, UnknownStageError
from tfdebug.core.stepper import FAILED, FINISHED, PAUSED, STOPPED, Stepper
from tfdebug.core.tap import iter_taps
from tfdebug.models.loader import load_model
from tfdebug.adapters.reference import ReferenceAdapter
from tfdebug.sessions.session import DebugSession


@pytest.fixture()
def session():
    s = DebugSession(ReferenceAdapter(load_model("random")), {"src": "I love you", "tgt": "我 爱 你"})
    yield s
    s.close()


def started(session):
    stepper = session.stepper
    events = []
    stepper.subscribe(events.append)
    stepper.start()
    assert stepper.wait() == PAUSED
    return stepper, events


def test_starts_paused_at_the_first_stage(session):
    stepper, events = started(session)
    assert stepper.current.name == "src.embed"
    assert [e.type for e in events] == ["captured", "paused"]
    assert events[-1].reason == "start"
    assert session.plan[0].name == "src.embed" and len(session.plan) == len(stepper._known)


def test_step_and_step_back_walk_history_without_rerunning(session):
    stepper, events = started(session)
    stepper.step()
    stepper.wait()
    assert stepper.current.name == "src.pe"
    stepper.step()
    stepper.wait()
    stepper.step()
    stepper.wait()
    assert stepper.current.name == "enc.0.attn.norm"
    captured = sum(e.type == "captured" for e in events)
    stepper.step_back()
    assert stepper.current.name == "src.pos" and stepper.cursor == 2
    stepper.step()  # forward through history: nothing runs
    assert stepper.current.name == "enc.0.attn.norm"
    assert sum(e.type == "captured" for e in events) == captured
    assert events[-1].type == "moved"
    stepper.step()
    stepper.wait()
    assert stepper.current.name == "enc.0.attn.q"
    with pytest.raises(StepperStateError):
        for _ in range(10):
            stepper.step_back()


def test_run_to_forward_and_back(session):
    stepper, _ = started(session)
    stepper.run_to("dec.0.cross_attn.scores")
    stepper.wait()
    assert stepper.current.name == "dec.0.cross_attn.scores"
    stepper.run_to("enc.0.attn.probs")  # already captured: moves back in history
    assert stepper.current.name == "enc.0.attn.probs"
    with pytest.raises(UnknownStageError, match="no stage named 'enc.9.attn.q'"):
        stepper.run_to("enc.9.attn.q")


def test_continue_stops_at_name_and_kind_breakpoints_then_finishes(session):
    stepper, events = started(session)
    stepper.add_breakpoint(Breakpoint.on_stage("enc.1.ffn.hidden"))
    stepper.add_breakpoint(Breakpoint.on_kind("mask"))
    stepper.continue_()
    stepper.wait()
    assert stepper.current.name == "enc.1.ffn.hidden" and events[-1].reason == "breakpoint"
    stepper.continue_()
    stepper.wait()
    assert stepper.current.name == "dec.0.self_attn.masked"
    stepper.continue_()
    stepper.wait()
    assert stepper.current.name == "dec.1.self_attn.masked"
    stepper.continue_()
    assert stepper.wait() == FINISHED
    assert events[-1].type == "finished" and stepper.current.name == "logits"
    assert stepper.output.shape[-1] == session.adapter.loaded.args.vocab_size
    assert all(t.hook is None for t in iter_taps(session.adapter.loaded.model))
    with pytest.raises(UnknownStageError):
        stepper.add_breakpoint(Breakpoint.on_stage("nope"))


def test_step_out_leaves_the_block(session):
    stepper, _ = started(session)
    stepper.run_to("enc.0.attn.scores")
    stepper.wait()
    stepper.step_out()
    stepper.wait()
    assert stepper.current.name == "enc.0.ffn.norm"


def test_nan_in_a_weight_stops_at_the_first_stage_that_shows_it(device):
    loaded = load_model("random", device=device)
    with torch.no_grad():
        loaded.model.transformer.decoder.layers[0].mask_attention.wv.weight[3, 5] = float("nan")
    session = DebugSession(ReferenceAdapter(loaded), {"src": "I love you", "tgt": "我 爱 你"})
    stepper, events = started(session)
    stepper.add_breakpoint(Breakpoint.on_nan())
    stepper.continue_()
    stepper.wait()
    assert stepper.current.name == "dec.0.self_attn.v"
    assert events[-1].breakpoint == Breakpoint.on_nan()
    assert all(c.tensor.device.type == device for c in stepper.history)  # captured where they were made
    stepper.clear_breakpoints()
    stepper.continue_()
    assert stepper.wait() == FINISHED and stepper.output.device.type == device
    session.close()


def test_inf_breakpoint_ignores_masked_cells_and_abs_threshold(session):
    stepper, _ = started(session)
    stepper.add_breakpoint(Breakpoint.on_inf())
    stepper.continue_()
    assert stepper.wait() == FINISHED  # −∞ in the causal mask is not a problem
    stepper.restart()
    stepper.wait()
    stepper.clear_breakpoints()
    stepper.add_breakpoint(Breakpoint.on_abs_above(1.5))
    stepper.continue_()
    stepper.wait()
    assert stepper.current.tensor.abs().max() > 1.5
    assert all(c.tensor.abs().max() <= 1.5 for c in stepper.history[:-1])


def test_replaced_tensor_flows_downstream(session):
    with torch.no_grad():
        plain = session.adapter.forward(session.prepared)
    stepper, events = started(session)
    stepper.run_to("dec.1.cross_attn.probs")
    stepper.wait()
    uniform = torch.full(stepper.current.shape, 1.0 / stepper.current.shape[-1])
    stepper.replace(uniform)
    assert events[-1].type == "replaced" and stepper.current.edited
    with pytest.raises(ReplacementError, match="shape"):
        stepper.replace(torch.zeros(2, 2))
    stepper.continue_()
    assert stepper.wait() == FINISHED
    assert not torch.equal(stepper.output, plain)
    # The same replacement made by hand gives the same logits.
    model = session.adapter.loaded.model
    attn = model.transformer.decoder.layers[1].attention
    handle = attn.taps["probs"].register_forward_hook(lambda m, i, o: uniform)
    try:
        with torch.no_grad():
            expected = session.adapter.forward(session.prepared)
    finally:
        handle.remove()
    assert torch.equal(stepper.output, expected)


def test_replacement_only_at_the_live_stage(session):
    stepper, _ = started(session)
    stepper.step()
    stepper.wait()
    stepper.step_back()
    with pytest.raises(ReplacementError):
        stepper.replace(torch.zeros(stepper.current.shape))


def test_stop_ends_the_worker_and_removes_hooks(session):
    stepper, events = started(session)
    thread = stepper._thread
    stepper.stop()
    assert stepper.state == STOPPED and not thread.is_alive()
    assert events[-1].type == "stopped"
    assert all(t.hook is None for t in iter_taps(session.adapter.loaded.model))
    stepper.restart()
    assert stepper.wait() == PAUSED and stepper.current.name == "src.embed"
    assert len(stepper.history) == 1


def test_a_forward_that_raises_reports_failed():
    loaded = load_model("random")

    def explode(module, inputs, output):
        raise RuntimeError("CUDA out of memory (simulated)")

    handle = loaded.model.transformer.decoder.layers[0].feed_forward.w1.register_forward_hook(explode)
    try:
        prepared = loaded.prepare("I love you", "我")
        stepper = Stepper(loaded.model, lambda: loaded.model(prepared.src, prepared.tgt))
        events = []
        stepper.subscribe(events.append)
        stepper.start()
        stepper.wait()
        thread = stepper._thread
        stepper.continue_()
        assert stepper.wait() == FAILED
        thread.join(5)
        assert not thread.is_alive()
        assert isinstance(stepper.error, ForwardFailedError)
        assert "dec.0.ffn.norm" in stepper.error.message and "out of memory" in stepper.error.message
        assert events[-1].type == "failed" and events[-1].error is stepper.error
        assert all(t.hook is None for t in iter_taps(loaded.model))
    finally:
        handle.remove()


def test_commands_that_do_not_apply_raise_typed_errors(session):
    stepper = session.stepper
    with pytest.raises(StepperStateError):
        stepper.step()
    stepper.start()
    with pytest.raises(StepperStateError):
        stepper.start()
    stepper.wait()
    stepper.continue_()
    stepper.wait()
    with pytest.raises(StepperStateError, match="ended"):
        stepper.step()


def test_observer_commands_from_the_worker_thread_do_not_deadlock(session):
    stepper = session.stepper
    seen = []

    def auto_step(event):
        if event.type == "paused":
            seen.append((event.capture.name, threading.current_thread().name))
            if len(seen) < 5:
                stepper.step()

    stepper.subscribe(auto_step)
    stepper.start()
    deadline = time.monotonic() + 10
    while (len(seen) < 5 or stepper.state != PAUSED) and time.monotonic() < deadline:
        time.sleep(0.01)
    assert [n for n, _ in seen] == [c.name for c in session.plan[:5]]
    assert all(t == "tfdebug-forward" for _, t in seen)


def test_replay_walks_a_recorded_pass_and_loads_lazily(session):
    captures, _ = session.capture_all()
    loads = []
    stored = {c.name: c.tensor for c in captures}
    for c in captures:
        c.tensor = None
    replay = Stepper.replay(captures, load=lambda c: loads.append(c.name) or stored[c.name])
    assert not replay.is_live and replay.current.name == "src.embed" and loads == ["src.embed"]
    replay.add_breakpoint(Breakpoint.on_kind("softmax"))
    replay.continue_()
    assert replay.current.name == "enc.0.attn.probs"
    replay.run_to("logits")
    assert replay.current.tensor is stored["logits"]
    replay.step_back()
    assert replay.current.name == "dec.norm"
    assert len(loads) < len(captures)
    with pytest.raises(StepperStateError):
        replay.start()
    with pytest.raises(ReplacementError):
        replay.replace(torch.zeros(1))
