"""A served pass that finishes is held to its plan, as the window's is (`DebugSession.confirm_plan`): a plan grown
from other lengths' (tfdebug.core.plan_growth) that the pass did not follow makes the model plan its lengths again."""

from __future__ import annotations

import time

from tests.remote.served import served_here
from tfdebug.remote.session import RemoteSession
from tfdebug.sessions.session import DebugSession


def test_a_finished_served_pass_is_confirmed_against_its_plan(monkeypatch):
    confirmed = []
    monkeypatch.setattr(DebugSession, "confirm_plan", lambda self, captures: confirmed.append(len(captures)) or True)
    with served_here(client_timeout_s=30.0) as server:
        window = RemoteSession.connect(server.address, server.token, timeout_s=60.0)
        try:
            stepper = window.stepper
            stepper.continue_()
            assert stepper.wait(30.0) == "finished"
            deadline = time.monotonic() + 10.0
            while not confirmed and time.monotonic() < deadline:
                time.sleep(0.05)
            assert confirmed == [len(stepper.history)]
        finally:
            window.close()
