"""Display work off the GUI thread: stale results are dropped, large slices come from the worker."""

import threading

import torch
from PySide6.QtCore import Qt

from tests.ui.user_actions import press
from tfdebug.core.recorder import Capture
from tfdebug.core.stages import StageInfo
from tfdebug.core.stepper import Stepper
from tfdebug.sessions import display as local_display  # the display math the shown stage asks for
from tfdebug.ui.workers.display import OFF_THREAD_CELLS, DisplayWorker


def test_a_newer_job_of_the_same_kind_drops_the_older_result(qtbot):
    worker = DisplayWorker()
    gate = threading.Event()
    got = []
    worker.submit("slice", lambda: gate.wait(5) and "old", got.append, got.append)
    qtbot.waitUntil(lambda: "slice" in worker._in_flight)  # the old job is running
    worker.submit("slice", lambda: "new", got.append, got.append)
    gate.set()
    qtbot.waitUntil(lambda: not worker.busy())
    assert got == ["new"]
    worker.submit("stats", lambda: 1 / 0, got.append, lambda exc: got.append(type(exc).__name__))
    qtbot.waitUntil(lambda: not worker.busy())
    assert got == ["new", "ZeroDivisionError"]
    worker.close()


def test_a_large_stage_is_sliced_off_the_gui_thread(window, qtbot, monkeypatch):
    n = int(OFF_THREAD_CELLS ** 0.5) + 64  # a plane just over the limit
    info = StageInfo(name="enc.0.attn.scores", kind="scores", site="enc.attn", layer=0,
                     axes=("batch", "head", "query", "key"), formula="Q·Kᵀ")
    small = Capture.of(StageInfo(name="src.embed", kind="embedding", site="src", layer=None,
                                 axes=("batch", "token", "model"), formula="E[x]"), torch.randn(1, 4, 8))
    big = Capture.of(info, torch.randn(1, 2, n, n))
    threads = []
    original = local_display.display_slice
    monkeypatch.setattr(local_display, "display_slice",
                        lambda *a, **k: threads.append(threading.current_thread().name) or original(*a, **k))
    window.ctl.load_replay(Stepper.replay([small, big]), {"src": [], "tgt": []}, "large stage")
    qtbot.waitUntil(lambda: window.heatmap_panel.slice is not None)
    press(window, Qt.Key_F10)
    qtbot.waitUntil(lambda: window.heatmap_panel.slice is not None and window.heatmap_panel.slice.source_shape == (n, n))
    assert threads[-1] == "tfdebug-display"
    assert window.ctl.current is window.ctl.stepper.history[1]
    qtbot.waitUntil(lambda: window.ctl.shown.current_stats is not None)
    assert window.ctl.shown.current_stats.count == big.tensor.numel()


def test_a_large_slice_shows_before_its_mean_and_std_which_follow(window, qtbot, monkeypatch):
    """The image of a plane over the GUI-thread limit is drawn from its extremes; the Stats
    panel's slice column says '…' for mean and std until the worker sends them, then the
    exact figures of the whole (not downsampled) slice."""
    n = int(OFF_THREAD_CELLS ** 0.5) + 64
    info = StageInfo(name="enc.0.attn.probs", kind="softmax", site="enc.attn", layer=0,
                     axes=("batch", "head", "query", "key"), formula="softmax")
    small = Capture.of(StageInfo(name="src.embed", kind="embedding", site="src", layer=None,
                                 axes=("batch", "token", "model"), formula="E[x]"), torch.randn(1, 4, 8))
    big = Capture.of(info, torch.randn(1, 2, n, n, generator=torch.Generator().manual_seed(0)).softmax(-1))
    gate = threading.Event()
    original = local_display.slice_moments
    monkeypatch.setattr(local_display, "slice_moments", lambda *a, **k: gate.wait(10) and original(*a, **k))
    window.docks["stats"].show()
    window.docks["stats"].raise_()
    window.ctl.load_replay(Stepper.replay([small, big]), {"src": [], "tgt": []}, "large stage")
    qtbot.waitUntil(lambda: window.heatmap_panel.slice is not None)
    press(window, Qt.Key_F10)
    qtbot.waitUntil(lambda: window.heatmap_panel.slice is not None and window.heatmap_panel.slice.source_shape == (n, n))
    stats = window.stats_panel
    qtbot.waitUntil(lambda: stats.text("min", 2) != "–")
    assert (stats.text("mean", 2), stats.text("std", 2)) == ("…", "…")  # the image is there, the moments not yet
    gate.set()
    qtbot.waitUntil(lambda: stats.text("mean", 2) != "…")
    std, mean = torch.std_mean(big.tensor[0, 0].double())
    assert abs(window.ctl.shown.current_slice.stats.mean - float(mean)) < 1e-9
    assert abs(window.ctl.shown.current_slice.stats.std - float(std)) < 1e-4 * float(std)
    assert stats.text("mean", 2) == f"{window.ctl.shown.current_slice.stats.mean:.4g}"
