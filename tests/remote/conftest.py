"""A real `tfdebug serve` process on 127.0.0.1 for the remote tests (skipped without pyzmq)."""

from __future__ import annotations

import pytest

pytest.importorskip("zmq")

from tests.remote.served import attached, start_server, stop_server  # noqa: E402  (after the skip)


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    # A window silent this long is let go. Long enough that a test process starved at load 7 (its client's
    # heartbeat thread waiting for the GIL) is not let go in the middle of a test about something else.
    served = start_server(tmp_path_factory.mktemp("exports"), "--client-timeout", "6")
    yield served
    stop_server(served)


@pytest.fixture()
def window(server):
    """A window attached to the module's `server` (a process, or one served here), at the pass's first stage."""
    with attached(server, timeout_s=6.0) as session:
        yield session
