"""File ▸ Compare With…'s two sides, as a pass source makes them (`PassSource.compare_with`).

A side is what the dialog picked (`Side`: the pass on screen, the pass before the last edit, a snapshot or export
file, another input on the same model, or this input in another placement). `compare_here` makes both sides here
and compares them in this process: the work it gives runs off the GUI thread and returns the table, the two
passes (recordings here, for the Compare dock's planes), the files it opened and the transplant made at the first
divergent stage. A served pass's sides are made on its server (tfdebug.remote.comparing.compare_with_on_server),
with the same `Side` and `Held`. What the window holds that a side needs (the reference pass it computes, the
pass the last edit was made in) comes in as `Held`: plain data and a callable, never a window object.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable, NamedTuple

from tfdebug.core.errors import CompareError

if TYPE_CHECKING:
    from tfdebug.core.compare import Comparison
    from tfdebug.core.reference import ReferencePass
    from tfdebug.io.recording import Recording
    from tfdebug.sessions.crosscheck import Placement
    from tfdebug.sessions.source import PassSource
    from tfdebug.sessions.transplant import Transplant

#: the kinds of side: the pass on screen, the pass before the last edit (run again unedited), a snapshot or export
#: file, another input on the same model, this input in another dtype, device, attention kernel or weights
LIVE, BEFORE_EDIT, FILE, INPUT, PLACED = "live", "before_edit", "file", "input", "placed"


@dataclass(frozen=True)
class Side:
    """Which pass one side of a comparison is: `kind` with its file path, input texts or placement."""

    kind: str
    path: str = ""
    texts: dict = field(default_factory=dict)
    placement: Placement | None = None


@dataclass(frozen=True)
class Held:
    """What the window holds that a side may need: `reference(placement)`, the window's reference pass of the pass
    on screen in that placement (called on the GUI thread, it computes the pass off it; it raises a TfdebugError
    when there can be none), and `before_edit`, the adapter and texts of the pass the last edit was made in (None:
    no tensor has been edited yet)."""

    reference: Callable[[Placement], ReferencePass] | None = None
    before_edit: tuple[Any, dict] | None = None


class Compared(NamedTuple):
    """A comparison made: the table, the two passes (A, B) when they are recordings here (None when they stay where
    they were compared: their planes are cut there), the passes the window must close, and the transplant made at
    the first divergent stage (None when none was made)."""

    comparison: Comparison
    passes: tuple[Any, Any] | None
    opened: list
    transplant: Transplant | None


#: the work that makes a comparison, to run off the GUI thread: called with `check`, which raises to abandon it
Work = Callable[[Callable[[], None]], Compared]


def needs_path(side: Side) -> bool:
    """True when a file side has its path; else the CompareError that asks for it."""
    if not side.path:
        raise CompareError("Choose the snapshot or export file to compare.", id="compare.no_file")
    return True


def before_edit(held: Held) -> tuple[Any, dict]:
    """The adapter and texts of the pass the last edit was made in; the CompareError saying there is none."""
    if held.before_edit is None:
        raise CompareError("No tensor has been edited yet: there is no pass before an edit.", id="compare.no_edit")
    return held.before_edit


def compare_here(source: PassSource | None, a: Side, b: Side, atol: float, rtol: float, held: Held) -> Work:
    """Make sides `a` and `b` and compare them in this process (`source`: the pass on screen, here; None when
    nothing is on screen). A side that cannot be had raises its CompareError now (on the GUI thread); the work
    makes the passes, compares them and, for the pass on screen against a reference pass, transplants."""
    work_a, work_b = _side(source, a, held), _side(source, b, held)
    graft = _transplant(source, a, b)
    opened = (a.kind == FILE, b.kind == FILE)

    def work(check: Callable[[], None]) -> Compared:
        from tfdebug.core.compare import compare

        pass_a = work_a(check)
        check()
        pass_b = work_b(check)
        check()
        try:
            result = compare(pass_a, pass_b, atol=atol, rtol=rtol)
        except BaseException:
            for p, own in zip((pass_a, pass_b), opened):
                if own:
                    p.close()
            raise
        check()
        grafted = graft(pass_a, pass_b, result) if graft is not None else None
        return Compared(result, (pass_a, pass_b), [p for p, own in zip((pass_a, pass_b), opened) if own], grafted)
    return work


def _paused_mid_forward(source: PassSource | None) -> bool:
    """Whether the pass on screen is live and paused mid-forward: its taps hold the model."""
    stepper = source.stepper if source is not None else None
    return stepper is not None and stepper.is_live and stepper.alive


def _side(source: PassSource | None, side: Side, held: Held) -> Callable[[Callable[[], None]], Any]:
    """What makes one side (off the GUI thread); the checks that need the GUI thread happen now."""
    if side.kind == LIVE:
        recording = source.recording()[0] if source is not None else None
        if recording is None:
            raise CompareError("Nothing is on screen to compare: run a pass or open a snapshot first.",
                               id="compare.nothing_on_screen")
        return lambda check: recording
    if side.kind == FILE:
        needs_path(side)
        from tfdebug.io.passes import open_pass
        return lambda check: open_pass(side.path)
    if side.kind == PLACED:
        return _placed(source, side, held)
    if _paused_mid_forward(source):
        raise CompareError("The pass on screen is paused mid-forward and holds the model: Continue it to the end (or "
                           "Stop it), then compare.", id="compare.paused")
    if side.kind == BEFORE_EDIT:
        adapter, texts = before_edit(held)
    else:
        if source is None or not source.capabilities.model_here:
            raise CompareError("No model is loaded: run a pass live to compare another input on it.",
                               id="compare.no_model")
        adapter, texts = source.session.adapter, side.texts

    def run(check: Callable[[], None]) -> Recording:
        from tfdebug.io.recording import Recording
        from tfdebug.sessions.session import DebugSession
        session = DebugSession(adapter, texts)
        captures, _ = session.capture_all()
        return Recording(captures=captures, tokens=session.tokens, model_name=adapter.name)
    return run


def _placed(source: PassSource | None, side: Side, held: Held) -> Callable[[Callable[[], None]], Any]:
    """The reference pass in `side.placement`, the window's (a second model: the pass on screen may stay paused)."""
    assert held.reference is not None and side.placement is not None  # the window holds its reference tools
    reference = held.reference(side.placement)
    tokens = dict(source.tokens) if source is not None else {}
    name = source.model_name if source is not None else ""
    dtype = side.placement.dtype

    def run(check: Callable[[], None]) -> Recording:
        from tfdebug.io.recording import Recording

        def stopped() -> bool:
            check()  # raises when the comparison is abandoned
            return False
        reference.wait(stopped)
        if reference.error is not None:
            raise CompareError("The reference pass could not run: {why}", id="compare.reference_failed",
                               why=reference.error)
        return Recording(captures=list(reference.captures), tokens=tokens, model_name=name, dtype=dtype)
    return run


def _transplant(source: PassSource | None, a: Side, b: Side) -> Callable[[Any, Any, Comparison], Any] | None:
    """For the pass on screen against a reference pass: what puts the reference's tensor into this input's pass at
    the first divergent stage and runs on (tfdebug.sessions.transplant), off the GUI thread; None for other pairs,
    for a pass that cannot be run again here, or while the pass on screen holds the model paused mid-forward."""
    if source is None or {a.kind, b.kind} != {LIVE, PLACED} or not source.capabilities.reruns_here:
        return None
    if _paused_mid_forward(source):
        return None
    session, donor_is_a = source.session, a.kind == PLACED
    adapter, prepared = session.adapter, session.prepared  # the prepared inputs: a batch's rows too

    def graft(pass_a, pass_b, result: Comparison):
        from tfdebug.sessions.session import DebugSession
        from tfdebug.sessions.transplant import transplant_stage
        donor = pass_a if donor_is_a else pass_b
        return transplant_stage(DebugSession(adapter, prepared=prepared), donor, result, donor_is_a=donor_is_a)
    return graft
