"""The step-latency probe on the user's path: the demo's own snapshot from `tfdebug capture`, opened as
`tfdebug open` opens it, stepped q_split → probs and back with the three clocks (figures not asserted)."""

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from safetensors import safe_open  # noqa: E402

from tfdebug.bench.user_path import FIRST, LAST, capture_snapshot, user_path_latency  # noqa: E402


def test_the_capture_holds_n_tokens_of_the_demo_at_each_length(tmp_path):
    for n in (64, 96):  # one folder for every length, as the bench runs them (1,024 then 4,096)
        path = capture_snapshot(n, str(tmp_path))
        with safe_open(path, framework="pt") as f:
            assert f.get_slice("enc.0.attn.scores").get_shape() == [1, 4, n, n]  # (batch, head, query, key)
            assert all(name.startswith("enc.0.attn.") for name in f.keys())


def test_steps_go_to_probs_and_back_and_every_clock_stops(qapp):
    clocks = user_path_latency((64,), repeats=8)[64]
    order = ["enc.0.attn.q_split", "enc.0.attn.k_split", "enc.0.attn.v_split", "enc.0.attn.scores",
             "enc.0.attn.scaled", "enc.0.attn.probs"]
    assert order[0] == FIRST and order[-1] == LAST
    # After the two warm-up steps (to v_split): on to probs, back to q_split, on again; three round trips at least.
    names = [name for name, _back in clocks["stages"]]
    assert names[:8] == order[3:] + order[-2::-1][:5] and len(names) >= 3 * 2 * (len(order) - 1)
    assert [back for _name, back in clocks["stages"][:8]] == [False] * 3 + [True] * 5
    # Every step to a stage already reached the same way counts in the A/A: all but the first round trip's.
    assert clocks["again"][:8] == [False] * 8 and all(clocks["again"][13:])
    for painted, named, settled in zip(clocks["painted"], clocks["named"], clocks["settled"]):
        assert 0 < painted <= settled and 0 < named <= settled



def test_a_stage_shown_by_its_slice_only_settles_without_whole_stats(qapp, monkeypatch):
    """Stages above the size limit (an 8k pass's planes) have no whole-tensor stats: the clock does not wait
    for them (it waited for its timeout, 600 s a step in the scale section's window row at 8k)."""
    from tfdebug.adapters.registry import load_adapter
    from tfdebug.bench.window_clock import bench_window, settled, wait
    from tfdebug.core.stepper import Stepper
    from tfdebug.sessions.session import DebugSession
    from tfdebug.ui.state.shown import ShownStage

    monkeypatch.setattr(ShownStage, "large_stage_bytes", 1)  # every stage is shown by its slice only
    session = DebugSession(load_adapter("random"), {"src": "I love you", "tgt": "我 爱 你"})
    captures, _ = session.capture_all(verify="never")
    with bench_window(heads=False) as (window, _clock):
        shown = window.ctl.shown
        window.ctl.load_replay(Stepper.replay(captures), {"src": [], "tgt": []}, "large")
        wait(lambda: shown.current_slice is not None and shown.settled() and window.heads_panel.settled())
        assert shown.current_stats is None and shown.is_large()  # nothing more is coming
        assert settled(window)
