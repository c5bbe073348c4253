"""A Run of a new length in the window grows its plan from two earlier lengths' (tfdebug.core.plan_growth; the Run
that loads the model plans two): the pass opens paused at its first stage, steps to its end with every stage the plan
named, and is verified; a pass the grown plan did not describe is said in the window."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt

from tests.adapters import hf_tiny
from tests.ui.conftest import wait_paused
from tests.ui.user_actions import press
from tfdebug.core import plan as plan_module


def _finish(window, qtbot, folder, prompt: str):
    """Run `prompt` with the keys, Continue to the end; the session."""
    window.input_bar.set_values(f"hf:{folder}", "cpu", {"prompt": prompt})
    before = window.ctl.stepper
    press(window, Qt.Key_Return, Qt.ControlModifier)  # Run
    qtbot.waitUntil(lambda: window.ctl.stepper is not before, timeout=60000)
    wait_paused(qtbot, window, timeout=60000)
    press(window, Qt.Key_F5)  # Continue
    qtbot.waitUntil(lambda: window.ctl.stepper.state == "finished", timeout=60000)
    return window.ctl.session


@pytest.fixture()
def llama(tmp_path, monkeypatch):
    """A tiny Llama's folder, planned on meta as a large model is (a tiny one is cheaper to plan by running it)."""
    monkeypatch.setattr(plan_module, "META_PLAN_FLOPS", {"cpu": 0.0, "cuda": 0.0})
    return hf_tiny.save_folder(hf_tiny.llama(), tmp_path / "llama")


def test_after_the_run_that_loads_the_model_each_new_length_runs_on_a_grown_plan(make_window, qtbot, llama):
    """The Run that loads the model also plans its input one token shorter; from the next Run on, a length not
    run before grows its plan, opens, steps to its end with every stage the plan named, and is verified."""
    window = make_window()
    first = _finish(window, qtbot, llama, "I love you")
    assert first.plan.method == "meta"
    for prompt in ("the cat sat on the mat", "apple is delicious and the cat sat on the mat"):
        session = _finish(window, qtbot, llama, prompt)
        assert session.plan.method == "grown", session.plan.note
        history = window.ctl.stepper.history
        assert [(c.name, c.shape) for c in history] == [(c.name, c.shape) for c in session.plan]
        qtbot.waitUntil(lambda: window.ctl.loader.verification is not None, timeout=60000)
        assert window.ctl.loader.verification.ok


def test_a_pass_the_grown_plan_did_not_describe_is_said(make_window, qtbot, llama, monkeypatch):
    from tfdebug.core import plan_growth

    window = make_window()
    _finish(window, qtbot, llama, "I love you")
    said: list[str] = []
    window.ctl.info.connect(said.append)
    monkeypatch.setattr(plan_growth, "confirm", lambda model, plan, captures: plan.method != "grown")
    _finish(window, qtbot, llama, "apple is delicious and the cat sat on the mat")
    qtbot.waitUntil(lambda: any("grown from other lengths" in s for s in said), timeout=10000)
