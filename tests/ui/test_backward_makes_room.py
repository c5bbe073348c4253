"""Debug ▸ Backward makes room for itself: its gradients replace the pass on screen, so the pass's captures are let
go before it runs and its peak is checked with them counted as free. Refused, the pass stays on screen as it was;
failed once they are let go, the window says so and Run runs the pass again. Driven by keys on tiny-gpt2."""

from __future__ import annotations

import gc
import re
import weakref

import pytest
from PySide6.QtCore import Qt

from tests.ui import test_backward_window
from tests.ui.test_backward_window import backward_by_keys
from tests.ui.user_actions import press

pytest.importorskip("transformers")

finished = test_backward_window.finished  # a finished pass of tiny-gpt2, its display work done


def _pass_figures(window):
    """(the backward's peak stated with its planes made again, the bytes the pass's captures hold)."""
    from tfdebug.core.recorder import held_bytes
    from tfdebug.sessions.backward_peak import backward_peak, parameter_bytes

    session = window.ctl.source.session
    return (backward_peak(list(session.plan), parameter_bytes(session.adapter.module)),
            held_bytes(window.ctl.stepper.history))


def _machine(monkeypatch, budget_without_captures: int, resident: int = 10**10) -> None:
    """A CPU machine whose default budget (40% of its RAM less what the process holds) is
    `budget_without_captures` while the pass's captures count as resident, with plenty free."""
    from tfdebug.core import budget

    total = int((budget_without_captures + resident) / budget.DEFAULT_RAM_SHARE) + 1
    monkeypatch.setattr(budget, "total_memory", lambda: total)
    monkeypatch.setattr(budget, "resident_memory", lambda: resident)
    monkeypatch.setattr(budget, "free_memory", lambda device: 10**15)


def test_the_budget_counts_the_pass_s_captures_as_free_and_they_are_gone_before_the_backward(finished, qtbot,
                                                                                              monkeypatch):
    """A backward that fits only with the pass's captures counted as free runs; when its own forward starts, no
    tensor of the pass is alive (history, the shown stage, what the display worker read ahead); the status bar
    says the peak stated before it ran."""
    from tfdebug.core.budget import format_bytes
    from tfdebug.sessions import gradient_session

    from tfdebug.sessions.backward_peak import check_backward_fits, parameter_bytes

    window = finished
    stated, held = _pass_figures(window)
    assert held > 0
    session = window.ctl.source.session
    plan, parameters = list(session.plan), parameter_bytes(session.adapter.module)
    _machine(monkeypatch, stated - held // 2)  # refused were the captures counted; within it when they are not
    history = window.ctl.stepper.history
    alive = [weakref.ref(c.tensor) for c in history if c.tensor is not None and not c.recipe]
    assert len(alive) > 10
    seen: dict = {}
    run = gradient_session.run_backward

    def counting(*args, **kwargs):
        gc.collect()
        seen["alive"] = sum(ref() is not None for ref in alive)
        seen["budget"] = kwargs.get("budget")
        return run(*args, **kwargs)
    monkeypatch.setattr(gradient_session, "run_backward", counting)
    backward_by_keys(window, qtbot)
    qtbot.waitUntil(lambda: window.ctl.title.startswith("backward"), timeout=60000)
    qtbot.waitUntil(lambda: window.ctl.current is not None, timeout=10000)
    assert seen["alive"] == 0  # nothing kept the pass's tensors: their memory was free for the backward
    assert stated <= seen["budget"] and seen["budget"] - held < stated
    said = check_backward_fits(plan, seen["budget"], parameters)[0]  # the planes kept where that fits too
    text = window.message_bar.text()
    assert text.startswith("Backward: loss") and f"peak stated before it ran {format_bytes(said)}" in text


def test_a_refused_backward_leaves_the_pass_on_screen_to_step(finished, qtbot, monkeypatch):
    window = finished
    stated, held = _pass_figures(window)
    _machine(monkeypatch, stated - held - 1)  # over even with the captures counted as free
    history = window.ctl.stepper.history
    names = [c.name for c in history]
    backward_by_keys(window, qtbot)
    qtbot.waitUntil(lambda: "would hold about" in window.message_bar.text(), timeout=10000)
    assert "The pass stays on screen as it was." in window.message_bar.text()
    assert not window.ctl.title.startswith("backward")
    assert [c.name for c in window.ctl.stepper.history] == names
    assert all(c.tensor is not None for c in window.ctl.stepper.history if not c.dropped)
    qtbot.waitUntil(lambda: window.ctl.current is not None and window.heatmap_panel.slice is not None, timeout=10000)
    assert window.ctl.current.name == names[-1]
    press(window, Qt.Key_F10, Qt.ShiftModifier)  # Step Back through the pass, as before
    qtbot.waitUntil(lambda: window.ctl.current.name == names[-2], timeout=10000)
    assert window.actions_by_id["tfdebug.debug.backward"].isEnabled()


def test_a_backward_that_fails_after_letting_go_says_run_runs_the_pass_again(finished, qtbot, monkeypatch):
    from tfdebug.core.errors import InputError
    from tfdebug.sessions import gradient_session

    window = finished

    def fails(*_args, **_kwargs):
        raise InputError("The machine ran out of memory.")
    monkeypatch.setattr(gradient_session, "run_backward", fails)
    backward_by_keys(window, qtbot)
    qtbot.waitUntil(lambda: "ran out of memory" in window.message_bar.text(), timeout=30000)
    text = window.message_bar.text()
    assert re.search(r"captures were let go to make room for the backward: Run \(Ctrl\+Return\) runs the pass again",
                     text), text
    assert window.ctl.stepper.history == []
    press(window, Qt.Key_Return, Qt.ControlModifier)  # Run: the pass again, stepped from its first stage
    qtbot.waitUntil(lambda: window.ctl.current is not None and window.ctl.current.name == "tok.embed", timeout=60000)
    assert window.ctl.current.tensor is not None
