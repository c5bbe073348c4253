"""The pass-source protocol: a live pass, a generation and a replay in this process (`LocalSource`) and a served
pass (`RemoteSession`) each have every member the window asks of a pass, and a local source answers as the
session and stepper it wraps do."""

from __future__ import annotations

import inspect

import pytest

from tfdebug.adapters.registry import load_adapter
from tfdebug.core.recorder import held_bytes
from tfdebug.core.stepper import Stepper
from tfdebug.io.recording import Recording
from tfdebug.sessions.display import LocalDisplay
from tfdebug.sessions.session import DebugSession
from tfdebug.sessions.source import LocalSource, PassDisplay, PassSource

PROBS = "dec.0.self_attn.probs"


def members(protocol) -> set[str]:
    names = {n for n, _ in inspect.getmembers(protocol) if not n.startswith("_")}
    return names | set(getattr(protocol, "__annotations__", {}))


@pytest.fixture(scope="module")
def live():
    session = DebugSession(load_adapter("random"))
    session.stepper.start()
    session.stepper.wait()
    session.stepper.run_to(PROBS)
    session.stepper.wait()
    yield session
    session.close()


def test_every_source_has_every_member_of_the_protocol(live):
    pytest.importorskip("zmq")
    from tfdebug.remote.display import RemoteDisplay
    from tfdebug.remote.session import RemoteSession

    assert not [n for n in members(PassSource) if not hasattr(LocalSource.live(live), n)]
    # A served session's stepper, plan, layout, display and picture are made when it is (it connects then)
    set_when_made = {"stepper", "plan", "layout", "display", "image"}
    assert not [n for n in members(PassSource) - set_when_made if not hasattr(RemoteSession, n)]
    for display in (LocalDisplay, RemoteDisplay):
        assert not [n for n in members(PassDisplay) if not hasattr(display, n)], display.__name__


def test_a_live_source_says_what_its_session_and_stepper_say(live):
    source = LocalSource.live(live)
    assert source.stepper is live.stepper and source.plan is live.plan and source.model_here and source.tensors_here
    assert source.tokens == live.tokens and source.texts == live.texts and source.title == live.title
    assert source.model_name == "random" and source.runs_on == str(live.adapter.device) and source.host == ""
    assert source.held_bytes() == held_bytes(live.stepper.history) > 0
    recording, note = source.recording()
    assert recording.names() == [c.name for c in live.stepper.history] and note  # partial: the pass is paused
    assert [f[0] for f in source.input_fields] == [f.key for f in live.adapter.inputs]


def test_a_replayed_source_reads_its_recording_and_runs_nothing(live):
    recording = Recording.from_session(live, list(live.stepper.history))
    stepper = Stepper.replay(recording.captures, recording.tensor)
    source = LocalSource.replay(stepper, recording.tokens, "a replay", recording)
    assert not source.model_here and source.session is None and source.runs_on == "" and source.texts == {}
    assert source.plan.names() == recording.names() and source.title == "a replay"
    assert source.model_name == "recorded" and source.tokens == recording.tokens
    assert [f[0] for f in source.input_fields] == list(recording.tokens)
    assert source.recording() == (recording, "")
