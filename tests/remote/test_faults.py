"""Faults and hostility against a real `tfdebug serve` process: each refused in bounded time and
memory while the attached window is served throughout."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import threading
import time

import pytest

from tfdebug.remote.errors import AuthError, ConnectionLostError
from tfdebug.remote.protocol import PROTOCOL_VERSION, encode
from tfdebug.remote.session import RemoteSession

from tests.remote.served import ROOT, answer, raw_peer, start_server, still_served, stop_server

PROBS = "dec.0.self_attn.probs"


def rss_kb(pid: int) -> int:
    with open(f"/proc/{pid}/status") as f:
        return next(int(line.split()[1]) for line in f if line.startswith("VmRSS"))


def test_a_wrong_token_is_refused_with_a_sentence(server, window):
    with pytest.raises(AuthError, match="token is wrong"):
        RemoteSession.connect(server.address, "not-the-token", timeout_s=3.0)
    still_served(window)


def test_a_second_window_is_refused_while_one_is_attached(server, window):
    with pytest.raises(AuthError, match="Another window is attached"):
        RemoteSession.connect(server.address, server.token, timeout_s=3.0)
    still_served(window)


def test_another_protocol_version_is_refused_naming_both_versions(server, window):
    peer = raw_peer(server)
    peer.send_multipart([json.dumps({"v": PROTOCOL_VERSION + 41, "type": "hello", "token": server.token}).encode()])
    reply = answer(peer)
    assert reply is not None and not reply["ok"]
    sentence = reply["error"]["message"]
    assert f"version {PROTOCOL_VERSION + 41}" in sentence and f"version {PROTOCOL_VERSION}." in sentence
    peer.close()
    still_served(window)


@pytest.mark.parametrize("frames", [
    [b"\x00\xff garbage"],
    [b"{" * 200_000],
    [json.dumps({"v": PROTOCOL_VERSION, "type": "command", "op": "step"}).encode()],  # not attached
    [json.dumps({"v": PROTOCOL_VERSION, "type": "hello", "token": 5}).encode()],
    [b"{}"] * 20,
])
def test_malformed_frames_get_one_refusal_and_change_nothing(server, window, frames):
    peer = raw_peer(server)
    cursor = window.stepper.cursor
    peer.send_multipart(frames)
    reply = answer(peer)
    assert reply is not None and reply.type == "reply" and not reply["ok"] and reply["error"]["message"]
    assert window.stepper.cursor == cursor
    peer.close()
    still_served(window)


def test_an_oversized_frame_disconnects_its_sender_and_only_it(server, window):
    peer = raw_peer(server)
    peer.send_multipart([b"x" * (300 * 2**20)])  # above the server's message size limit
    assert answer(peer, 2000) is None  # ZeroMQ dropped the peer; nothing was read into a message
    peer.close()
    still_served(window)


def test_an_attached_frame_claiming_a_terabyte_tensor_is_refused(server, window):
    window.stepper.run_to(PROBS)
    window.stepper.wait()
    peer = window.client
    header = {"buffers": [{"dtype": "float32", "shape": [2**20, 2**18]}]}
    frames = encode("replace", {}, id=999_999)
    frames[0] = json.dumps({**json.loads(bytes(frames[0])), **header}).encode()
    link = peer._link  # the window's own connection: the refusal must not detach it
    future = link.send([frames[0], b"\0" * 64], 999_999, None)
    with pytest.raises(Exception, match="1099511627776 bytes"):
        future.result(5)
    assert not window.stepper.current.edited
    still_served(window)


def test_a_slow_loris_is_dropped_while_the_window_is_served(server, window):
    raw = socket.create_connection(("127.0.0.1", server.port), timeout=10)
    greeting = b"\xff" + b"\0" * 8 + b"\x7f"
    closed = threading.Event()

    def dribble():
        try:
            for byte in greeting[:5]:
                raw.send(bytes([byte]))
                time.sleep(0.4)
            while raw.recv(4096):
                pass
        except OSError:
            pass
        closed.set()
    thread = threading.Thread(target=dribble, daemon=True)
    thread.start()
    for _ in range(5):
        still_served(window)
    assert closed.wait(15), "the server kept a peer that never finished its greeting"
    raw.close()


def test_a_thousand_connects_in_a_row_cost_bounded_memory(server, window):
    rss = rss_kb(server.process.pid)
    for _ in range(1000):
        s = socket.create_connection(("127.0.0.1", server.port), timeout=5)
        s.close()
    for _ in range(50):  # and some that speak ZeroMQ, with the wrong token
        peer = raw_peer(server)
        peer.send_multipart(encode("hello", {"token": "guess"}, id=1))
        assert not answer(peer)["ok"]
        peer.close()
    still_served(window)
    assert rss_kb(server.process.pid) - rss < 64 * 1024


def test_a_lost_window_leaves_the_pass_paused_for_the_next_one(server, window):
    window.close()  # this test's window is another process that loses its connection
    script = (f"import os; from tfdebug.remote.session import RemoteSession\n"
              f"s = RemoteSession.connect({server.address!r}, {server.token!r}, timeout_s=3.0)\n"
              f"s.stepper.run_to({PROBS!r}); s.stepper.wait(); print(s.stepper.cursor, flush=True); os._exit(0)\n")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120,
                          env={**os.environ, "PYTHONPATH": str(ROOT), "OMP_NUM_THREADS": "1"})
    cursor = int(done.stdout.split()[-1])
    deadline = time.monotonic() + 20
    while True:  # refused as "another window" until the server lets the lost one go (6 s here)
        try:
            again = RemoteSession.connect(server.address, server.token, timeout_s=3.0)
            break
        except AuthError:
            assert time.monotonic() < deadline
            time.sleep(0.3)
    try:
        assert again.stepper.state == "paused" and again.stepper.cursor == cursor
        assert again.stepper.current.name == PROBS and len(again.stepper.history) == cursor + 1
        again.reconnect()  # Reconnect while still attached (a blip): the same window is let in at once
        assert again.stepper.current.name == PROBS
        still_served(again)
    finally:
        again.close()


def test_killing_the_server_mid_step_is_noticed_within_a_second(tmp_path):
    served = start_server(tmp_path)
    lost = []
    noticed = threading.Event()
    try:
        session = RemoteSession.connect(served.address, served.token, timeout_s=1.0)
        session.on_lost = lambda error: (lost.append((time.monotonic(), error)), noticed.set())
        session.stepper.step()
        killed = time.monotonic()
        served.process.kill()
        assert noticed.wait(10)
        delay, error = lost[0][0] - killed, lost[0][1]
        assert isinstance(error, ConnectionLostError) and error.message.startswith("Connection lost")
        assert delay < 2.0  # the heartbeat timeout is 1 s; the rest is this busy machine's scheduling
        with pytest.raises(ConnectionLostError):
            session.stepper.step()
        session.close()
    finally:
        stop_server(served)
