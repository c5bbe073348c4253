"""`tfdebug serve` refuses what it cannot listen on, and timeouts that are not finite positive numbers: one sentence,
exit 2, no traceback, terminal escapes shown as escapes, and before the model loads (no one waits for a refusal)."""

from __future__ import annotations

import socket

import pytest

pytest.importorskip("zmq")

from tfdebug.cli import main  # noqa: E402


@pytest.fixture(autouse=True)
def no_model_load(monkeypatch):
    """Every refusal here comes before the model loads: loading fails the test."""
    def refuse(*args, **kwargs):
        raise AssertionError("the model was loaded before the refusal")
    monkeypatch.setattr("tfdebug.commands.common.load_from_args", refuse)


def refused(capsys, *argv: str) -> str:
    assert main(["serve", "--model", "random", *argv]) == 2
    captured = capsys.readouterr()
    err = captured.err
    assert err.startswith("tfdebug: ") and err.count("\n") == 1 and "Traceback" not in err, err
    assert "\x1b" not in err and "\x07" not in err and captured.out == ""
    return err


@pytest.mark.parametrize("value", ["nan", "-5", "inf", "0", "-inf", "1e400"])
def test_a_client_timeout_that_is_not_a_finite_positive_number_is_refused(capsys, value):
    err = refused(capsys, f"--client-timeout={value}")
    assert "--client-timeout takes a finite number of seconds from 0.5 to 86400" in err


def test_a_port_in_use_is_refused_naming_it(capsys):
    taken = socket.socket()
    taken.bind(("127.0.0.1", 0))
    taken.listen()
    port = taken.getsockname()[1]
    try:
        err = refused(capsys, "--port", str(port))
    finally:
        taken.close()
    assert f"Port {port} on 127.0.0.1 is in use" in err and "--port 0" in err


@pytest.mark.parametrize("host, words", [
    ("192.0.2.1", "192.0.2.1 is not an address or interface of this machine"),  # TEST-NET-1: no machine's address
    ("", "--host takes an interface address or name"),
    ("   ", "--host takes an interface address or name"),
    ("\x1b]0;PWN\x07", "not '\\x1b]0;PWN\\x07'"),
    ("no-such-interface-xyz", "no-such-interface-xyz is not an address or interface of this machine"),
])
def test_a_host_it_cannot_listen_on_is_refused_in_a_sentence(capsys, host, words):
    err = refused(capsys, f"--host={host}", "--port", "0")
    assert words in err
