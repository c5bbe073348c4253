"""The window's path plans a pass once per model and kind of input: a Run of the same input again, or of
another input of the same length, reuses the plan (tfdebug.core.plan.plan_key); another length, a padded
position, another dtype plan anew. The reused plan is the plan a fresh planning makes."""

from __future__ import annotations

import pytest

pytest.importorskip("transformers")

from tfdebug.adapters.registry import load_adapter  # noqa: E402
from tfdebug.core import plan as plan_module  # noqa: E402
from tfdebug.sessions.session import DebugSession  # noqa: E402


@pytest.fixture()
def counted(monkeypatch):
    """The adapter, and the list of plans made (each call of make_plan)."""
    adapter = load_adapter("tiny-gpt2", "cpu", "float32")
    plan_module.forget_plans(adapter.module)
    calls, _ = count_plans(monkeypatch)
    return adapter, calls


def count_plans(monkeypatch) -> tuple[list, object]:
    """(the list each call of make_plan appends its arguments to, make_plan itself, not counted)."""
    calls = []
    make = plan_module.make_plan

    def counting(*args, **kwargs):
        calls.append(args)
        return make(*args, **kwargs)
    monkeypatch.setattr(plan_module, "make_plan", counting)
    return calls, make


def _described(plan):
    return [(c.name, c.shape, c.dtype, c.device, c.info) for c in plan]


def test_the_same_length_reuses_the_plan_and_another_length_plans_again(counted):
    adapter, calls = counted
    first = DebugSession(adapter, {"prompt": "the cat sat"})
    same = DebugSession(adapter, {"prompt": "the dog ran"})
    assert len(first.tokens["prompt"]) == len(same.tokens["prompt"])  # the same number of tokens
    assert len(calls) == 1 and same.plan is first.plan
    again = DebugSession(adapter, {"prompt": "the cat sat"})  # Run again with the same text
    assert len(calls) == 1 and again.plan is first.plan
    longer = DebugSession(adapter, {"prompt": "the dog ran far away"})
    assert len(calls) == 2 and len(longer.plan) == len(first.plan)
    assert [c.shape for c in longer.plan] != [c.shape for c in first.plan]
    # What the reused plan says is what planning that input afresh says.
    fresh = plan_module.make_plan(adapter.module, same.forward, [t for t in same.prepared.kwargs.values()
                                                              if hasattr(t, "shape")])
    assert _described(same.plan) == _described(fresh)


def test_a_restart_steps_the_same_plan_without_planning(counted):
    adapter, calls = counted
    session = DebugSession(adapter, {"prompt": "the cat sat"})
    stepper = session.stepper
    stepper.start()
    stepper.wait()
    stepper.run_to(session.plan.names()[3])
    stepper.wait()
    stepper.restart()
    stepper.wait()
    try:
        assert stepper.current.name == session.plan.names()[0] and len(calls) == 1
    finally:
        stepper.stop()


def test_another_dtype_or_method_plans_anew(counted):
    adapter, calls = counted
    DebugSession(adapter, {"prompt": "the cat sat"}, planning="meta")
    DebugSession(adapter, {"prompt": "the cat sat"}, planning="real")
    assert len(calls) == 2
    adapter.module.to(dtype=__import__("torch").bfloat16)
    try:
        DebugSession(adapter, {"prompt": "the cat sat"}, planning="meta")
        assert len(calls) == 3
    finally:
        adapter.module.float()
