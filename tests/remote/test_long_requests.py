"""Long server work keeps the heartbeat going (issue 53, item 6): an overview that takes longer than the
window's timeout is answered without the window calling the server lost, the window stays attached, and the
server counts the time it spent working as the window's waiting, not its silence."""

from __future__ import annotations

import time

import pytest

pytest.importorskip("zmq")

from tests.remote.served import attached, served_here, still_served  # noqa: E402
from tfdebug.remote import handlers  # noqa: E402


def test_an_overview_longer_than_the_timeout_is_answered_and_the_window_stays(monkeypatch):
    def slow(captures, statistic, tensor=None, tick=None):
        values = []
        for _ in captures:
            time.sleep(0.05)
            if tick is not None:
                tick()
            values.append(1.0)
        return values

    monkeypatch.setattr(handlers, "stage_statistics", slow)
    with served_here(client_timeout_s=1.0, heartbeat_s=0.1) as server:
        with attached(server, timeout_s=1.0) as window:
            lost = []
            window.client.on_lost = lost.append
            captures = list(window.stepper.history)[:1] * 60  # 60 stages: 3 s of work, three times the timeout
            values = window.display.statistics_of(captures, "rms")
            assert values == [1.0] * 60 and lost == [] and window.client.connected
            still_served(window)  # the server did not let the window go either
