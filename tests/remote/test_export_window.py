"""A snapshot streamed to the window is never more than EXPORT_WINDOW chunks ahead of the window's receipts:
a raw peer that writes nothing (sends no receipt) gets exactly that many from a real server process, then
one more per chunk it acknowledges."""

from __future__ import annotations

import time

import pytest
import zmq

from tfdebug.bench.remote import _ServedProcess
from tfdebug.remote.protocol import (CLIENT_MAX_BUFFER, CLIENT_MAX_HEADER, EXPORT_CHUNK, EXPORT_WINDOW, decode,
                                     encode)

ACCEPT = ("reply", "welcome", "pass", "event", "heartbeat", "chunk")


@pytest.fixture()
def planes():
    # a 64 MiB stage: its snapshot is 16 chunks and more; a peer starved of CPU for seconds on a loaded machine
    # is still attached (the keep-alive pings below come every second)
    served = _ServedProcess(4096, 3, client_timeout_s=10.0)
    yield served
    served.close()


KEEPALIVE = 99  # the id of the pings that keep the peer attached while the server writes the snapshot


def receive(peer, until) -> list:
    """Messages from the server up to and including the first that `until` accepts (heartbeats and the replies
    to keep-alive pings left out)."""
    got, deadline, pinged = [], time.monotonic() + 60, 0.0
    while True:
        assert time.monotonic() < deadline, "the server sent nothing that was awaited"
        if time.monotonic() - pinged > 1.0:  # a silent peer is let go after the server's client timeout
            peer.send_multipart(encode("ping", {}, id=KEEPALIVE))
            pinged = time.monotonic()
        if not peer.poll(200):
            continue
        message = decode(peer.recv_multipart(), max_header=CLIENT_MAX_HEADER, max_buffer=CLIENT_MAX_BUFFER,
                         accept=ACCEPT)
        if message.type != "heartbeat" and message.id != KEEPALIVE:
            got.append(message)
        if until(message):
            return got


def ASK(id: int) -> list:
    """A request that changes nothing and is answered (a ping is not): the condition mode set to what it is."""
    return encode("breakpoint", {"op": "mode", "mode": "exact"}, id=id)


def chunks(messages) -> list:
    return [m for m in messages if m.type == "chunk"]


def paused(message) -> bool:
    """The pass is paused: its `paused` event, or, when it paused before this peer attached (its event then
    reached no window: a loaded machine starts the pass first), the `attached` event's state."""
    if message.type != "event":
        return False
    kind = (message["event"] or {}).get("type")
    return kind == "paused" or kind == "attached" and message["state"]["state"] == "paused"


def test_at_most_export_window_chunks_are_in_flight(planes):
    peer = zmq.Context.instance().socket(zmq.DEALER)
    peer.setsockopt(zmq.LINGER, 0)
    peer.connect(planes.address)
    try:
        peer.send_multipart(encode("hello", {"token": planes.token}, id=1))
        receive(peer, paused)
        peer.send_multipart(encode("export", {"to": "window"}, id=2))
        first = chunks(receive(peer, lambda m: len(chunks([m])) and m["offset"] == (EXPORT_WINDOW - 1) * EXPORT_CHUNK))
        assert [m["offset"] for m in first] == [i * EXPORT_CHUNK for i in range(EXPORT_WINDOW)]
        assert first[0]["total"] > (EXPORT_WINDOW + 2) * EXPORT_CHUNK  # more to come, held back
        # A request's reply comes after whatever the server would have sent meanwhile: no fifth chunk before it.
        peer.send_multipart(ASK(3))
        assert chunks(receive(peer, lambda m: m.type == "reply" and m.id == 3)) == []
        for acknowledged in (1, 2):  # each chunk written lets exactly one more come
            peer.send_multipart(encode("transfer", {"export": 2, "received": acknowledged * EXPORT_CHUNK,
                                                    "cancel": False}))
            more = chunks(receive(peer, lambda m: m.type == "chunk"))
            assert [m["offset"] for m in more] == [(EXPORT_WINDOW + acknowledged - 1) * EXPORT_CHUNK]
            peer.send_multipart(ASK(10 + acknowledged))
            assert chunks(receive(peer, lambda m: m.type == "reply" and m.id == 10 + acknowledged)) == []
        peer.send_multipart(encode("transfer", {"export": 2, "received": 2 * EXPORT_CHUNK, "cancel": True}))
        ended = receive(peer, lambda m: m.type == "reply" and m.id == 2 and m["ok"] is False)
        assert "cancelled" in ended[-1]["error"]["message"]
    finally:
        peer.send_multipart(encode("bye", {}))
        peer.close()
