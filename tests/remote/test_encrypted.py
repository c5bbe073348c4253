"""Off loopback the server encrypts (CURVE) and the line to paste carries its public key."""

from __future__ import annotations

import pytest

from tests.remote.served import start_server, stop_server
from tfdebug.remote.errors import ConnectionLostError, RemoteError
from tfdebug.remote.security import is_loopback, needs_encryption
from tfdebug.remote.session import RemoteSession


def test_every_interface_but_loopback_needs_encryption():
    assert not needs_encryption("127.0.0.1", False) and not needs_encryption("localhost", False)
    assert needs_encryption("127.0.0.1", True)
    assert needs_encryption("10.1.2.3", False) and needs_encryption("0.0.0.0", False)
    assert is_loopback("::1") and not is_loopback("gpu-server.example")


@pytest.fixture(scope="module")
def encrypted(tmp_path_factory):
    served = start_server(tmp_path_factory.mktemp("exports"), "--encrypt")
    yield served
    stop_server(served)


def test_a_window_with_the_servers_key_steps_and_sees_slices(encrypted):
    assert encrypted.server_key is not None and len(encrypted.server_key) == 40
    session = RemoteSession.connect(encrypted.address, encrypted.token, server_key=encrypted.server_key)
    try:
        session.stepper.step()
        assert session.stepper.wait() == "paused"
        plane = session.display.slice_of(session.stepper.current, 0, 1, {}, (16, 16))
        assert plane.values.shape[0] > 0
    finally:
        session.close()


def test_a_window_without_the_key_gets_no_answer_and_is_told_about_the_key(encrypted):
    with pytest.raises(ConnectionLostError, match="--server-key"):
        RemoteSession.connect(encrypted.address, encrypted.token, timeout=2.0)


def test_a_malformed_key_is_refused_with_a_sentence(encrypted):
    with pytest.raises(RemoteError, match="not a server key"):
        RemoteSession.connect(encrypted.address, encrypted.token, server_key="short")
