"""Ctrl+Q while a pass runs (issue 52, item 4): the window says "closing…" and is gone at once, however long the
pass takes to unwind behind it."""

import time

import torch
from PySide6.QtCore import QEvent, QObject, Qt

from tests.adapters.toy import ToyAdapter, ToyAttention
from tests.ui.user_actions import press, register_model, run_model

SLOW_S = 3.0  # what one op of the pass takes: the pass unwinds only after it


class SlowAttention(ToyAttention):
    """The toy attention with one slow op between its probabilities and its context (a long pass's big matmul)."""

    def forward(self, ids: torch.Tensor) -> torch.Tensor:
        x = self.embed(ids)
        scores = self.taps["scores"](x @ x.transpose(1, 2) / x.shape[-1] ** 0.5)
        probs = self.taps["probs"](scores.softmax(dim=-1))
        time.sleep(SLOW_S)
        return self.taps["context"](probs @ x)


def load_slow(spec, device, dtype, **_kwargs):
    adapter = ToyAdapter()
    adapter.name, adapter.module = spec, SlowAttention().eval()
    return adapter


class HideWatch(QObject):
    """When the window hides, and what its status bar said then."""

    def __init__(self, window):
        super().__init__()
        self.window, self.at, self.said = window, None, None

    def eventFilter(self, watched, event) -> bool:
        if event.type() == QEvent.Hide and self.at is None:
            self.at, self.said = time.monotonic(), self.window.status_state.text()
        return False


def test_ctrl_q_during_a_pass_says_closing_and_is_gone_within_a_second(make_window, qtbot, monkeypatch):
    register_model(monkeypatch, "slow-toy", "tests.ui.test_quit_during_pass:load_slow")
    window = make_window()
    run_model(qtbot, window, "slow-toy", {"text": "hello"}, "tok.0.attn.scores")
    press(window, Qt.Key_F5)  # Continue: the pass runs into its slow op
    qtbot.waitUntil(lambda: window.ctl.stepper.state == "running", timeout=10000)
    qtbot.wait(300)  # inside the slow op
    watch = HideWatch(window)
    window.installEventFilter(watch)
    pressed = time.monotonic()
    press(window, Qt.Key_Q, Qt.ControlModifier)  # File ▸ Quit
    assert not window.isVisible()
    assert watch.at is not None and watch.at - pressed < 1.0, watch.at - pressed
    assert watch.said == "closing…"
