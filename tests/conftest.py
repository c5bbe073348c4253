"""What every test folder shares: waits by condition that tolerate a loaded machine, and torch's thread count
as each test found it.

pytest-qt's `waitUntil` and `waitSignal` give up after 5 s. That bound is meant to catch a window
that never gets there, but on a CI machine at load 4+ a model load or a first paint can take
longer, and the test then fails for the machine's speed. Tests that pass no timeout get 60 s;
one that names its own keeps it.

A test that runs `tfdebug bench --threads 1` in its own process (tests/bench) sets torch's thread count for the
whole worker; a float32 sum's rounding depends on how many threads split it, so a later test in that worker saw
other bits than alone (the real chat model's attribution terms in tests/sessions/test_why.py: 1.3e-5 from the
logit difference at one thread, 1.7e-6 at two). After each test the count is torch's own default again.
"""

import pytest
import torch
from pytestqt.qtbot import QtBot

_THREADS = torch.get_num_threads()  # torch's default in this worker, before any test set its own

DEFAULT_WAIT_MS = 60000

_wait_until, _wait_signal = QtBot.waitUntil, QtBot.waitSignal


def _until(self, callback, *, timeout=DEFAULT_WAIT_MS):
    return _wait_until(self, callback, timeout=timeout)


def _signal(self, signal=None, *, timeout=DEFAULT_WAIT_MS, **kwargs):
    return _wait_signal(self, signal, timeout=timeout, **kwargs)


QtBot.waitUntil, QtBot.waitSignal = _until, _signal


@pytest.fixture(autouse=True)
def _torch_threads_as_found():
    """torch's thread count back to its default after each test that changed it (a module fixture's setting
    included: it is made before the first test of its module starts)."""
    yield
    if torch.get_num_threads() != _THREADS:
        torch.set_num_threads(_THREADS)
