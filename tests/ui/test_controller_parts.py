"""The controller's parts without a window: each works on a real pass (the reference model's) through a small
screen object standing for the controller, with just what the part's Protocol names."""

from contextlib import contextmanager
from types import SimpleNamespace

import pytest

from tests.ui.conftest import SRC, TGT
from tfdebug.adapters.reference import ReferenceAdapter
from tfdebug.core.breakpoints import Breakpoint
from tfdebug.core.errors import UnknownStageError
from tfdebug.core.view import ViewSelection
from tfdebug.sessions.session import DebugSession
from tfdebug.ui.i18n.language import shown_text
from tfdebug.ui.state.axes import ShownAxes
from tfdebug.ui.state.breakpoints import WindowBreakpoints
from tfdebug.ui.state.stepping import Stepping

STAGE = "enc.1.attn.scores"


@contextmanager
def announcing(changed: list):
    """A stand-in for the controller's `announcing_command`: a command ran inside."""
    yield
    changed.append(True)


@pytest.fixture()
def session(loaded):
    session = DebugSession(ReferenceAdapter(loaded), {"src": SRC, "tgt": TGT})
    yield session
    session.close()


def test_breakpoints_are_one_set_every_stepper_checks_and_a_refused_change_is_said(session):
    changes, refusals = [], []
    screen = SimpleNamespace(stepper=None, refuse=refusals.append)
    bps = WindowBreakpoints(screen)
    for event in ("added", "removed", "cleared", "mode_changed", "refused"):
        getattr(bps.model, event).connect(lambda payload, event=event: changes.append((event, payload)))
    bps.toggle_stage(STAGE)  # nothing on screen yet: straight to the set
    assert Breakpoint.on_stage(STAGE) in bps.points and len(bps.points) == 1
    assert changes == [("added", Breakpoint.on_stage(STAGE))]
    stepper = screen.stepper = session.stepper
    bps.share_with(stepper)
    bps.toggle_stage("enc.9.attn.scores")  # the model has 2 layers: the stepper refuses it
    assert [type(e) for e in refusals] == [UnknownStageError] and len(bps.points) == 1
    assert changes[1:] == [("refused", Breakpoint.on_stage("enc.9.attn.scores"))]
    bps.set_conditions([Breakpoint.on_nan()])
    assert {b.value for b in bps.points} == {STAGE, "nan"}
    stepper.start()
    stepper.wait()
    stepper.continue_()  # stops where the window's set says
    assert stepper.wait() == "paused" and stepper.current.name == STAGE
    bps.clear()
    assert len(bps.points) == 0 and len(stepper.breakpoints) == 0
    assert changes[-1] == ("cleared", frozenset({Breakpoint.on_stage(STAGE), Breakpoint.on_nan()}))


def test_stepping_moves_the_stepper_on_screen_and_says_what_it_cannot(session):
    failures, changed, cancelled = [], [], []
    screen = SimpleNamespace(stepper=None, source=None, plan=session.plan, loader=SimpleNamespace(busy=False),
                             shown=SimpleNamespace(read_before_jump=lambda name, move: False, settled=lambda: True),
                             display=SimpleNamespace(cancel=cancelled.append), fail=failures.append,
                             announcing_command=lambda: announcing(changed), restarted=lambda: None)
    steps = Stepping(screen)
    assert not steps.step() and shown_text(failures[0]) == "Nothing is loaded yet: press Run."
    assert cancelled == ["jump"]  # a command forgets a replayed stage still being read for a jump
    stepper = screen.stepper = session.stepper
    assert steps.command(stepper.start) and changed
    stepper.wait()
    first = stepper.current.name
    assert steps.can_advance() and not steps.can_step_back()
    assert steps.step()
    stepper.wait()
    assert steps.reached(first) == 0 and stepper.cursor == 1
    assert steps.run_to(STAGE)
    stepper.wait()
    assert stepper.current.name == STAGE and steps.reached(STAGE) == stepper.cursor
    assert steps.step_back() and stepper.history[stepper.cursor].name != STAGE
    assert not steps.goto_step(3) and shown_text(failures[-1]) == "This generation has no step 3."


def test_axes_name_the_shown_stage_and_label_its_token_axes(session):
    stepper = session.stepper
    stepper.start()
    stepper.wait()
    stepper.run_to(STAGE)
    stepper.wait()
    capture, view, heard = stepper.current, ViewSelection(), []
    view.fit(capture.info.axes, capture.shape)
    screen = SimpleNamespace(current=capture, tokens=session.tokens, vocabulary=session.adapter.vocabulary)
    axes = ShownAxes(view, screen)
    for signal in (view.axes_changed, view.index_changed, view.pinned_changed):  # what the shown stage hears
        signal.connect(lambda *args, name=signal.name: heard.append((name, *args)))
    assert axes.names() == ("batch", "head", "query", "key")
    assert axes.labels(2) == axes.labels(3) == list(session.tokens["src"])  # encoder self-attention
    axes.set_index("head", 1)
    assert axes.indices()[1] == 1 and heard == [("index_changed", "head", 1)]
    axes.set_index("head", 1)  # no change: no event
    axes.set_axes(3, 2)  # key × query, which pins them
    assert (view.row_axis, view.col_axis) == (3, 2)
    assert heard[1:] == [("pinned_changed", ("key", "query")), ("axes_changed", 3, 2)]
