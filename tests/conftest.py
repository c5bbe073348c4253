"""What every test folder shares: waits by condition that tolerate a loaded machine.

pytest-qt's `waitUntil` and `waitSignal` give up after 5 s. That bound is meant to catch a window
that never gets there, but on a CI machine at load 4+ a model load or a first paint can take
longer, and the test then fails for the machine's speed. Tests that pass no timeout get 60 s;
one that names its own keeps it.
"""

from pytestqt.qtbot import QtBot

DEFAULT_WAIT_MS = 60000

_wait_until, _wait_signal = QtBot.waitUntil, QtBot.waitSignal


def _until(self, callback, *, timeout=DEFAULT_WAIT_MS):
    return _wait_until(self, callback, timeout=timeout)


def _signal(self, signal=None, *, timeout=DEFAULT_WAIT_MS, **kwargs):
    return _wait_signal(self, signal, timeout=timeout, **kwargs)


QtBot.waitUntil, QtBot.waitSignal = _until, _signal
