"""A real `tfdebug serve` process on 127.0.0.1 for the remote tests (skipped without pyzmq)."""

from __future__ import annotations

import pytest

pytest.importorskip("zmq")

from tests.remote.served import start_server, stop_server  # noqa: E402  (after the skip)


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    served = start_server(tmp_path_factory.mktemp("exports"), "--client-timeout", "1.5")
    yield served
    stop_server(served)
