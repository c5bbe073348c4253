"""While a pass runs (F5), the status bar says how far it has got — the stage and the layer, of how many — and, once
it has run a while, the time left at its pace so far."""

from PySide6.QtCore import Qt

from tests.ui.user_actions import press, register_model, run_model
from tfdebug.ui.render.stage_text import run_progress

PLAN = ["tok.embed"] + [f"dec.{layer}.{stage}" for layer in range(30) for stage in ("attn.probs", "ffn.resid")] + \
    ["dec.norm", "logits"]


def test_the_progress_names_the_stage_and_layer_reached_and_the_time_left():
    assert run_progress(PLAN, 1, 0.1) == "stage 1 of 63"  # the embeddings: no layer; too early to guess the rest
    assert run_progress(PLAN, 25, 0.5) == "stage 25 of 63 · dec layer 12 of 30"
    # 24 stages in 12 s since it started at stage 1: half a second a stage, 38 to go
    assert run_progress(PLAN, 25, 12.0, done_at_start=1) == "stage 25 of 63 · dec layer 12 of 30 · about 19 s left"
    assert run_progress(PLAN, 3, 600.0) == "stage 3 of 63 · dec layer 1 of 30"  # under 5% of the pass: no guess
    assert run_progress(PLAN, 4, 600.0) == "stage 4 of 63 · dec layer 2 of 30 · about 148 min left"
    assert run_progress(PLAN, 63, 30.0) == "stage 63 of 63"  # at the end: nothing left to guess


def test_the_status_bar_says_where_a_running_pass_is(make_window, qtbot, monkeypatch):
    register_model(monkeypatch, "slow-toy", "tests.ui.test_quit_during_pass:load_slow")
    window = make_window()
    run_model(qtbot, window, "slow-toy", {"text": "hello"}, "tok.0.attn.scores")
    press(window, Qt.Key_F5)  # Continue: the pass runs into its slow op
    qtbot.waitUntil(lambda: window.ctl.stepper.state == "running", timeout=10000)
    total = len(window.ctl.plan)
    qtbot.waitUntil(lambda: f"of {total}" in window.status_state.text(), timeout=2000)
    assert window.status_state.text().startswith("running · stage ")
    qtbot.waitUntil(lambda: window.ctl.stepper.state == "finished", timeout=20000)
    # the pass's end reaches the window as an event from its thread: the status bar says so once it is handled
    qtbot.waitUntil(lambda: window.status_state.text() == "finished", timeout=5000)
