"""One BreakpointSet shared by steppers: each reads it at every check, none keeps a copy of its own."""

import pytest

from tfdebug.adapters.reference import ReferenceAdapter
from tfdebug.sessions.session import DebugSession
from tfdebug.core.breakpoints import EXACT, FAST, Breakpoint, BreakpointSet
from tfdebug.core.errors import UnknownStageError
from tfdebug.core.stepper import FINISHED, PAUSED, Stepper
from tfdebug.models.loader import load_model

MASK = Breakpoint.on_kind("mask")
DEC_PROBS = Breakpoint.on_stage("dec.0.self_attn.probs")


@pytest.fixture()
def session():
    s = DebugSession(ReferenceAdapter(load_model("random")), {"src": "I love you", "tgt": "我 爱 你"})
    yield s
    s.close()


def finished_with(session, shared: BreakpointSet) -> Stepper:
    """The session's pass, checking `shared`, run to its end (nothing in the set yet)."""
    stepper = session.stepper
    stepper.use_breakpoints(shared)
    stepper.start()
    assert stepper.wait() == PAUSED
    stepper.continue_()
    assert stepper.wait() == FINISHED
    return stepper


def test_a_set_holds_each_breakpoint_once_and_only_a_known_mode():
    bps = BreakpointSet()
    assert len(bps) == 0 and bps.mode == EXACT
    bps.add(Breakpoint.on_nan())
    bps.add(Breakpoint.on_nan())
    bps.add(MASK)
    assert set(bps) == {Breakpoint.on_nan(), MASK} and Breakpoint.on_nan() in bps and bps.items == frozenset(bps)
    bps.remove(Breakpoint.on_nan())
    bps.remove(Breakpoint.on_nan())  # not there any more: nothing changes
    assert bps.items == {MASK}
    bps.set_mode(FAST)
    with pytest.raises(ValueError, match="condition mode"):
        bps.set_mode("sometimes")
    assert bps.mode == FAST
    bps.clear()
    assert len(bps) == 0 and bps.mode == FAST  # clearing the breakpoints keeps the mode


def test_two_steppers_handed_one_set_see_each_others_changes(session):
    shared = BreakpointSet()
    live = finished_with(session, shared)
    replay = Stepper.replay(list(live.history))
    replay.use_breakpoints(shared)
    live.add_breakpoint(MASK)
    assert replay.breakpoints == {MASK} == shared.items
    replay.continue_()  # the replay stops at the breakpoint the live pass's stepper added
    assert replay.current.name == "dec.0.self_attn.masked"
    replay.set_condition_mode(FAST)
    assert live.condition_mode == FAST == shared.mode
    replay.remove_breakpoint(MASK)
    assert live.breakpoints == frozenset()


def test_a_change_made_on_the_set_itself_reaches_a_paused_pass_at_its_next_check(session):
    shared = BreakpointSet()
    stepper = session.stepper
    stepper.use_breakpoints(shared)
    stepper.start()
    assert stepper.wait() == PAUSED
    shared.add(MASK)  # not through the stepper: it reads the set, it holds no copy
    stepper.continue_()
    assert stepper.wait() == PAUSED and stepper.current.name == "dec.0.self_attn.masked"


def test_a_stage_a_pass_lacks_stays_in_the_set_and_never_stops_that_pass(session):
    shared = BreakpointSet()
    live = finished_with(session, shared)
    short = Stepper.replay(live.history[:5])  # a pass without the decoder's stages
    short.use_breakpoints(shared)
    live.add_breakpoint(DEC_PROBS)
    with pytest.raises(UnknownStageError, match="dec.0.self_attn.probs"):
        short.add_breakpoint(DEC_PROBS)  # checked against the pass it is added through
    assert shared.items == {DEC_PROBS}  # the refusal changed nothing
    short.continue_()
    assert short.cursor == 4  # to its last stage: the breakpoint matched nothing there
    live.goto(0)
    live.continue_()
    assert live.current.name == "dec.0.self_attn.probs"  # and still stops the pass that has the stage
