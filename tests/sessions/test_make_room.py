"""`sessions.gradient_session.make_room`: before a backward whose gradients replace the pass, its peak is checked with
the pass's captures counted as free; refused, nothing is let go; fitting, every capture's tensor goes."""

from __future__ import annotations

import gc
import weakref

import pytest

from tfdebug.core.errors import InputError

pytest.importorskip("transformers")


@pytest.fixture()
def finished():
    from tfdebug.adapters.registry import load_adapter
    from tfdebug.sessions.session import DebugSession

    session = DebugSession(load_adapter("tiny-gpt2"), {"prompt": "the cat is on the mat ="})
    stepper = session.stepper
    stepper.start()
    stepper.wait()
    stepper.continue_()
    assert stepper.wait() == "finished"
    yield session
    session.close()


def _machine(monkeypatch, budget_without_captures: int, resident: int = 10**10) -> None:
    from tfdebug.core import budget

    total = int((budget_without_captures + resident) / budget.DEFAULT_RAM_SHARE) + 1
    monkeypatch.setattr(budget, "total_memory", lambda: total)
    monkeypatch.setattr(budget, "resident_memory", lambda: resident)
    monkeypatch.setattr(budget, "free_memory", lambda device: 10**15)


def test_the_pass_s_captures_count_as_free_and_go_before_the_backward(finished, monkeypatch):
    from tfdebug.core.recorder import held_bytes
    from tfdebug.sessions.backward_peak import backward_peak, check_backward_fits, parameter_bytes
    from tfdebug.sessions.gradient_session import backward_of, make_room

    session = finished
    history = session.stepper.history
    held = held_bytes(history)
    stated = backward_peak(list(session.plan), parameter_bytes(session.adapter.module))
    _machine(monkeypatch, stated - held // 2)  # over were the captures counted, within it when they are not
    alive = [weakref.ref(c.tensor) for c in history if c.tensor is not None and not c.recipe]
    alive.append(weakref.ref(session.stepper.output))  # the pass's output (its logits)
    alive += [weakref.ref(t) for t in vars(session.adapter).get("_kept", {}).values()]  # what its check compares
    plan, parameters = list(session.plan), parameter_bytes(session.adapter.module)
    room = make_room(session)
    assert room.released >= held and room.budget is not None
    assert room.budget - held < stated <= room.peak <= room.budget  # the least it could state fits only so
    assert room.peak == check_backward_fits(plan, room.budget, parameters)[0]
    gc.collect()
    assert session.stepper.history == [] and not any(ref() is not None for ref in alive)
    gradients = backward_of(session, budget=room.budget)  # the backward runs a forward of its own
    assert gradients.peak == room.peak and gradients.loss > 0
    assert [c.name for c in gradients.stepper.history][0] == "logits"


def test_a_refused_backward_lets_nothing_go(finished, monkeypatch):
    from tfdebug.core.recorder import held_bytes
    from tfdebug.sessions.backward_peak import backward_peak, parameter_bytes
    from tfdebug.sessions.gradient_session import make_room

    session = finished
    history = list(session.stepper.history)
    held = held_bytes(history)
    stated = backward_peak(list(session.plan), parameter_bytes(session.adapter.module))
    _machine(monkeypatch, stated - held - 1)
    with pytest.raises(InputError, match="would hold about"):
        make_room(session)
    assert session.stepper.history == history and held_bytes(session.stepper.history) == held
