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


def test_a_script_that_ends_while_its_check_runs_in_the_background_exits_cleanly():
    """A script that captures and ends at once, its check against the unmodified model still running in the
    background: the interpreter waits for the check at exit (a daemon thread stopped inside torch's C++ code at
    exit aborts the process: "terminate called without an active exception", exit status 134)."""
    import subprocess
    import sys

    script = (
        "import torch\n"
        "from tfdebug.adapters.base import Prepared\n"
        "from tfdebug.adapters.hf.adapter import wrap\n"
        "from tfdebug.bench.hf import GPT2_SHAPES, build_gpt2\n"
        "from tfdebug.sessions.session import DebugSession\n"
        "model, ids = build_gpt2(GPT2_SHAPES['wide'])\n"
        "adapter = wrap(model, tokenizer=None, name='script')\n"
        "session = DebugSession(adapter, prepared=Prepared(texts={}, kwargs={'input_ids': ids, 'use_cache': False}))\n"
        "captures, _ = session.capture_all()\n"
        "assert session._verifying is not None and session._verifying.is_alive()\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "terminate called" not in done.stderr
