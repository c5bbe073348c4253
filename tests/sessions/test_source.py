"""The pass-source protocol: a live pass, a generation and a replay in this process (`LocalSource`) and a served
pass (`RemoteSession`) each have every member the window asks of a pass, and a local source answers as the
session and stepper it wraps do."""

from __future__ import annotations

import inspect

import pytest

from tfdebug.adapters.registry import load_adapter
from tfdebug.core.recorder import held_bytes
from tfdebug.core.reference import ReferencePass
from tfdebug.core.stepper import Stepper
from tfdebug.io.recording import Recording
from tfdebug.sessions.display import LocalDisplay
from tfdebug.sessions.crosscheck import Placement
from tfdebug.sessions.session import DebugSession
from tfdebug.sessions.local_source import LocalSource
from tfdebug.sessions.source import NO_PASS, Capabilities, PassDisplay, PassSource

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
    assert source.stepper is live.stepper and source.plan is live.plan
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
    assert source.session is None and source.runs_on == "" and source.texts == {}
    assert source.plan.names() == recording.names() and source.title == "a replay"
    assert source.model_name == "recorded" and source.tokens == recording.tokens
    assert [f[0] for f in source.input_fields] == list(recording.tokens)
    assert source.recording() == (recording, "")


def test_capabilities_say_what_a_live_a_generating_a_replayed_and_a_served_source_can_do(live, tmp_path):
    """The window reads these, never the kind of pass: each kind's record, field by field."""
    assert LocalSource.live(live).capabilities == Capabilities(
        tensors_here=True, model_here=True, runs_texts=True, passes_there=False, reruns_here=True, references=True)
    from tfdebug.models.sampling import DecodingSettings
    from tfdebug.sessions.generation import GenerationSession

    generation = GenerationSession(load_adapter("demo"), {"src": "I love you", "tgt": ""},
                                   DecodingSettings(max_new_tokens=2))
    try:  # the model is here, but a generation has no single pass to run again (verify, reference, transplant)
        assert LocalSource.live(generation).capabilities == Capabilities(
            tensors_here=True, model_here=True, runs_texts=True, passes_there=False, reruns_here=False)
    finally:
        generation.close()
    recording = Recording.from_session(live, list(live.stepper.history))
    replay = LocalSource.replay(Stepper.replay(recording.captures, recording.tensor), recording.tokens, "r", recording)
    assert replay.capabilities == Capabilities(tensors_here=True)  # its tensors, nothing to run
    assert NO_PASS == Capabilities() and not any(vars(NO_PASS).values())
    with pytest.raises(Exception):  # frozen: a source's record cannot be changed by the window
        replay.capabilities.model_here = True  # type: ignore[misc]
    pytest.importorskip("zmq")
    from tfdebug.remote.session import RemoteSession

    assert RemoteSession.capabilities == Capabilities(  # only the display's answers cross; new passes run there
        tensors_here=False, model_here=False, runs_texts=True, passes_there=True, reruns_here=False, references=True,
        reference_device_fixed=True, reference_held_there=True, snapshots_there=True)  # its server's, named there


def test_a_local_source_answers_the_window_s_methods_as_its_session_does(live, tmp_path):
    """Export, the vocabulary and token ids go through the source; the served-only requests say why not here."""
    from tfdebug.core.errors import CompareError, StepperStateError
    from tfdebug.io.snapshot import open_snapshot

    source = LocalSource.live(live)
    path = tmp_path / "pass.safetensors"
    note = source.export(path)
    assert note  # partial: the pass is paused
    with open_snapshot(path) as written:
        assert written.names() == [c.name for c in live.stepper.history]
    assert source.vocabulary() == live.adapter.vocabulary()
    assert source.token_id("#3") == 3
    with pytest.raises(StepperStateError):  # a pass here compares with the window's reference pass: none given
        source.set_reference(Placement("bfloat16"))
    with pytest.raises(CompareError):
        source.compare("placed", 1e-3, 1e-3, dtype="bfloat16")
    with pytest.raises(CompareError):
        source.compared_planes(PROBS, {}, (8, 8))
    held = ReferencePass(("random", (), Placement()), "float32 on cpu")  # the window's, computed here
    held.fill(list(live.stepper.history))
    source.set_reference(Placement(), lambda placement: held)
    try:
        assert live.stepper.reference is held
        result, transplant = source.compare("placed", 1e-3, 1e-3, on_screen="b", dtype="float32")
        assert transplant is None and result.first_divergent is None and PROBS in [s.name for s in result.stages]
        assert len(source.compared_planes(PROBS, {}, (8, 8)).slices) == 3  # A, B and A − B, cut here
        with pytest.raises(CompareError):  # a snapshot is compared by the window, from recordings here
            source.compare("file", 1e-3, 1e-3, path="pass.safetensors")
    finally:
        source.set_reference(None)
    assert live.stepper.reference is None
    recording = Recording.from_session(live, list(live.stepper.history))
    replay = LocalSource.replay(Stepper.replay(recording.captures, recording.tensor), recording.tokens, "r", recording)
    assert replay.vocabulary() is None


def test_what_the_window_no_longer_asks_by_kind_a_local_source_answers(live):
    """Export's stage list, whether a stage can be read, and whether a reference would show nothing: answered by
    the source (or its display), so the window asks no question about where the pass is."""
    from dataclasses import replace

    from tfdebug.sessions.crosscheck import Placement

    source = LocalSource.live(live)
    assert source.exportable() == [c.name for c in live.stepper.history]
    first = live.stepper.history[0]
    assert source.display.holds(first)
    assert not source.display.holds(replace(first, tensor=None))  # a live pass that did not keep it
    assert not source.display.holds(replace(first, dropped=True))
    adapter = live.adapter
    dtype = str(adapter.dtype).removeprefix("torch.")
    assert source.runs_as(Placement(dtype, str(adapter.device)))
    assert not source.runs_as(Placement("float16" if dtype != "float16" else "float32", str(adapter.device)))
    recording = Recording.from_session(live, list(live.stepper.history))
    replay = LocalSource.replay(Stepper.replay(recording.captures, recording.tensor), recording.tokens, "r", recording)
    assert replay.exportable() == recording.names() and not replay.runs_as(Placement(dtype, str(adapter.device)))
    assert replay.display.holds(replace(recording.captures[0], tensor=None))  # read from its file when shown


def test_a_display_says_where_its_answers_are_worked_out(live):
    """The placement the window used to decide from `tensors_here` (issue 49): a local display reads a stage in memory
    now and its neighbours ahead, a replay's stage still in its file is `unread` (read before a jump); a served
    pass's display reads nothing here and brings a slice's mean and std with it."""
    pytest.importorskip("zmq")
    from dataclasses import replace

    from tfdebug.remote.display import RemoteDisplay

    source = LocalSource.live(live)
    first = live.stepper.history[0]
    display = source.display
    assert display.ready(first) and display.reads_now(first) and not display.unread(first)
    assert display.reads_ahead and not display.slices_bring_moments
    assert not display.unread(replace(first, tensor=None))  # a live pass that did not keep it: nothing to read
    recording = Recording.from_session(live, list(live.stepper.history))
    replay = LocalSource.replay(Stepper.replay(recording.captures, recording.tensor), recording.tokens, "r", recording)
    in_file = replace(recording.captures[0], tensor=None)
    assert replay.display.unread(in_file) and not replay.display.ready(in_file) and not replay.display.reads_now(in_file)
    assert not replay.display.unread(replace(in_file, dropped=True))
    served = RemoteDisplay(None)  # type: ignore[arg-type]  # these answers ask nothing of the server
    assert served.ready(in_file) and not served.ready(replace(in_file, dropped=True))
    assert not served.reads_now(first) and not served.unread(in_file)
    assert not served.reads_ahead and served.slices_bring_moments
    # The Overview's stages and its cache: a live pass's history, a replay's snapshot, each statistic kept once.
    assert display.summarised() == [c for c in live.stepper.history if not c.dropped]
    assert replay.display.summarised() == recording.captures
    assert display.summarises(first, first.nbytes) and not display.summarises(first, first.nbytes - 1)
    assert served.summarises(first, 0)
    assert display.statistics_known([first], "rms") == [None]
    values = display.statistics_of([first], "rms")
    assert display.statistics_known([first], "rms") == values
