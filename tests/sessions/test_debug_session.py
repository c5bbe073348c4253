"""DebugSession: one forward per pass (a plan without a real forward) and the check against the unmodified
model off the path the user waits for (after the pass, in the background, once per model, input and dtype)."""

from __future__ import annotations

import threading

import pytest
import torch

pytest.importorskip("transformers")

from tfdebug.sessions import session as session_module  # noqa: E402
from tfdebug.adapters.registry import load_adapter  # noqa: E402
from tfdebug.sessions.session import DebugSession  # noqa: E402


@pytest.fixture()
def adapter():
    adapter = load_adapter("tiny-gpt2", "cpu", "float32")
    session_module._VERDICTS.pop(adapter.module, None)
    return adapter


def _counting_verify(adapter, monkeypatch, gate: threading.Event | None = None):
    calls = []
    verify = adapter.verify

    def counted(prepared, output):
        calls.append(threading.current_thread().name)
        if gate is not None:
            gate.wait(10)
        return verify(prepared, output)
    monkeypatch.setattr(adapter, "verify", counted)
    return calls


def test_a_meta_planned_session_has_the_stages_a_real_pass_has(adapter):
    meta = DebugSession(adapter, planning="meta")
    real = DebugSession(adapter, planning="real")
    assert meta.plan.method == "meta" and real.plan.method == "real"
    assert [(c.name, c.shape, c.dtype, c.device) for c in meta.plan] == \
           [(c.name, c.shape, c.dtype, c.device) for c in real.plan]
    captures, _ = meta.capture_all()
    assert [c.name for c in captures] == meta.plan.names()
    assert meta.layout is not None and meta.stepper is not None


def test_planning_on_meta_runs_no_forward_of_the_model(adapter, monkeypatch):
    seen = []
    hook = adapter.model.lm_head.register_forward_hook(lambda m, i, o: seen.append(o.device.type))
    try:
        DebugSession(adapter, planning="meta")
    finally:
        hook.remove()
    assert seen == ["meta"]  # the head ran on shapes only


def test_capture_all_returns_before_the_check_and_delivers_its_verdict_by_callback(adapter, monkeypatch):
    gate = threading.Event()
    calls = _counting_verify(adapter, monkeypatch, gate)
    session = DebugSession(adapter)
    delivered = []
    done = threading.Event()
    captures, output = session.capture_all(on_verified=lambda v: (delivered.append(v), done.set()))
    assert captures and isinstance(output, torch.Tensor)
    assert delivered == []  # the pass is done; the check waits behind the gate in its own thread
    gate.set()
    assert done.wait(30)
    assert delivered[0].ok and calls == ["tfdebug-verify"]
    assert session.verification is delivered[0] and session.verification_seconds > 0


def test_the_verdict_is_reused_for_the_same_model_input_and_dtype(adapter, monkeypatch):
    calls = _counting_verify(adapter, monkeypatch)
    first = DebugSession(adapter)
    first.capture_all()
    assert first.verification.ok
    again = DebugSession(adapter)  # what Restart builds: same model, texts and dtype
    again.capture_all()
    assert again.verification is first.verification and again.verification_seconds == 0.0
    other = DebugSession(adapter, {"prompt": "you love me"})
    other.capture_all()
    assert other.verification.ok and len(calls) == 2  # another input is checked anew


def test_verify_now_and_never(adapter, monkeypatch):
    calls = _counting_verify(adapter, monkeypatch)
    session = DebugSession(adapter)
    session.capture_all(verify="never")
    assert session.verification is None and calls == []
    verdicts = []
    session.capture_all(verify="now", on_verified=verdicts.append)
    assert verdicts and verdicts[0].ok and calls == ["MainThread"]


def test_a_check_in_the_background_never_overlaps_the_next_capture(adapter, monkeypatch):
    gate = threading.Event()
    _counting_verify(adapter, monkeypatch, gate)
    session = DebugSession(adapter)
    session.capture_all()
    started = threading.Event()
    finished = threading.Event()

    def capture_again():
        started.set()
        session.capture_all(verify="never")
        finished.set()
    worker = threading.Thread(target=capture_again)
    worker.start()
    assert started.wait(10)
    assert not finished.wait(0.3)  # the model's forward lock is held by the check
    gate.set()
    worker.join(30)
    assert finished.is_set()


def test_a_lazy_session_plans_from_its_own_pass_one_forward_in_all(adapter):
    heads = []
    hook = adapter.model.lm_head.register_forward_hook(lambda m, i, o: heads.append(o.device.type))
    try:
        session = DebugSession(adapter, planning="lazy")
        captures, _ = session.capture_all(verify="never")
    finally:
        hook.remove()
    assert heads == ["cpu"]  # the capture was the only forward
    assert session.plan.method == "captured"
    assert session.plan.names() == [c.name for c in captures]
    assert all(c.tensor is None for c in session.plan)  # a plan holds no data
    assert session.plan.names() == DebugSession(adapter, planning="real").plan.names()


def test_a_lazy_session_with_a_filter_still_refuses_a_typo_at_once(adapter):
    from tfdebug.core.errors import UnknownStageError

    with pytest.raises(UnknownStageError):
        DebugSession(adapter, stages=["dec.*.nope"], planning="lazy")
