"""The window validates what the server sends (issue 53, item 6): a reply whose `checks` is a number, whose
`result` is a list or null, moments without their arrays, an oversized picture — each is one sentence, the
connection is closed cleanly (the window told once, a `bye` sent) and the client can attach again."""

from __future__ import annotations

import types

import numpy as np
import pytest

from tfdebug.remote import client as client_module
from tfdebug.remote import wire
from tfdebug.remote.client import RemoteClient
from tfdebug.remote.display import RemoteDisplay
from tfdebug.remote.errors import FrameError
from tfdebug.remote.protocol import CLIENT_MAX_BUFFER, CLIENT_MAX_HEADER, MAX_IMAGE, decode, encode


class FakeLink:
    def __init__(self):
        self.sent, self.closed, self.failed = [], False, []

    def send(self, frames, request_id, on_chunk):
        self.sent.append(decode(frames, max_header=CLIENT_MAX_HEADER, max_buffer=CLIENT_MAX_BUFFER,
                                accept=("bye",)).type)

    def close(self, flush=False):
        self.closed = True

    def _fail(self, error, tell=True):
        self.failed.append(error)


def served(result, buffers=()):
    """A client whose server answers every request with `result` (and `buffers`), as the wire decodes it."""
    lost = []
    client = RemoteClient("tcp://127.0.0.1:1", "token", on_lost=lost.append)
    link = client._link = FakeLink()
    frames = encode("reply", {"ok": True, "result": result, "error": None, "state": None}, list(buffers), id=1)
    reply = decode([bytes(f) for f in frames], max_header=CLIENT_MAX_HEADER, max_buffer=CLIENT_MAX_BUFFER,
                   accept=("reply",))
    client.request = lambda *a, **k: reply
    stepper = types.SimpleNamespace(position_of=lambda name: 0)
    display = RemoteDisplay(types.SimpleNamespace(answer=client.answer, stepper=stepper))
    return client, link, lost, display


def capture():
    return types.SimpleNamespace(name="dec.0.self_attn.probs")


@pytest.mark.parametrize("result,buffers,ask", [
    ({"checks": 7}, (), lambda d: d.checks_of(capture())),
    ([1, 2], (), lambda d: d.checks_of(capture())),
    ([1, 2], (), lambda d: d.slice_of(capture(), 0, 1, {}, (8, 8))),
    (None, (), lambda d: d.slice_of(capture(), 0, 1, {}, (8, 8))),
    ({"stats": {"min": 0}}, (), lambda d: d.moments_of(capture(), 0, 1, {}, None)),
    (None, (), lambda d: d.moments_of(capture(), 0, 1, {}, None)),
    ({"stats": {}}, (np.zeros(3),), lambda d: d.stats_of(capture())),
    ("text", (), lambda d: d.heads_of(capture(), 0, 1, 0, {}, (8, 8))),
    (None, (), lambda d: d.statistics_of([capture()], "rms")),
], ids=["checks a number", "checks of a list", "slice of a list", "slice of null", "moments without arrays",
        "moments of null", "stats with one array", "heads of a text", "overview without values"])
def test_a_malformed_reply_is_one_sentence_and_closes_the_connection(result, buffers, ask):
    client, link, lost, display = served(result, buffers)
    with pytest.raises(FrameError) as caught:
        ask(display)
    text = str(caught.value)
    assert "\n" not in text and ("malformed" in text or "server" in text.lower()), text
    assert lost == [caught.value] and link.closed and link.sent == ["bye"]
    assert client._link is None and client.lost is caught.value  # `connect` makes a new link at once


def test_a_well_formed_reply_still_reads():
    from tfdebug.core.checks import Check

    client, link, lost, display = served({"checks": [wire.check(Check(True, "no NaN", ""))]})
    checks = display.checks_of(capture())
    assert len(checks) == 1 and lost == [] and not link.closed


def test_a_pushed_message_that_breaks_the_readers_closes_the_connection():
    client, link, lost, _ = served(None)
    client.on_message = lambda message: message["event"]["stage"]  # a reader of a pushed event
    pushed = decode([bytes(f) for f in encode("event", {"event": 3})], max_header=CLIENT_MAX_HEADER,
                    max_buffer=CLIENT_MAX_BUFFER, accept=("event",))
    real = client_module._Link.__new__(client_module._Link)
    real.client, real._lock, real._pending = client, __import__("threading").Lock(), {}
    real._deliver(pushed)
    assert len(lost) == 1 and "malformed" in str(lost[0]) and link.closed


def test_a_picture_over_the_protocols_cap_is_refused():
    from tfdebug.core.images import InputImage

    side = int((MAX_IMAGE / 3) ** 0.5) + 64
    image = InputImage(np.zeros((1, side, side, 3), np.uint8), (1, 1), (), "img")
    with pytest.raises(FrameError, match="larger than"):
        wire.image_of(image.to_manifest())
    small = InputImage(np.zeros((1, 8, 8, 3), np.uint8), (1, 1), (), "img")
    assert wire.image_of(small.to_manifest()).pixels.shape == (1, 8, 8, 3)


hypothesis = pytest.importorskip("hypothesis")
from hypothesis import HealthCheck, given, settings, strategies as st  # noqa: E402

JSON = st.recursive(st.none() | st.booleans() | st.integers(-2**40, 2**40) | st.text(max_size=8),
                    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.sampled_from(
                        ["stats", "checks", "ok", "text", "detail", "min", "max", "slices", "row_axis", "view"]), inner,
                        max_size=4), max_leaves=12)
ASKS = [lambda d: d.checks_of(capture()), lambda d: d.slice_of(capture(), 0, 1, {}, (8, 8)),
        lambda d: d.moments_of(capture(), 0, 1, {}, None), lambda d: d.stats_of(capture()),
        lambda d: d.heads_of(capture(), 0, 1, 0, {}, (8, 8)),
        lambda d: d.tile_of(capture(), 0, 1, {}, (0, 1), (0, 1), (8, 8)),
        lambda d: d.statistics_of([capture()], "rms")]


@settings(max_examples=200, deadline=None, derandomize=True, database=None, suppress_health_check=list(HealthCheck))
@given(result=JSON, n=st.integers(0, 3), ask=st.sampled_from(ASKS))
def test_any_reply_is_read_or_closes_the_connection_in_one_sentence(result, n, ask):
    client, link, lost, display = served(result, [np.zeros(2, np.float32)] * n)
    try:
        ask(display)
    except FrameError as exc:
        assert "\n" not in str(exc) and lost == [exc] and link.closed


def test_over_a_real_socket_a_malformed_reply_closes_cleanly_and_the_window_attaches_again():
    """A server (a bare ROUTER socket here) that welcomes the window, then answers `checks` with a number: the
    window gets one sentence, the server gets a `bye`, and the same client attaches again at once."""
    import threading

    import zmq

    from tfdebug.remote.protocol import ATTACHED_MAX_HEADER, REQUESTS

    context = zmq.Context.instance()
    router = context.socket(zmq.ROUTER)
    router.setsockopt(zmq.LINGER, 0)
    port = router.bind_to_random_port("tcp://127.0.0.1")
    seen, stop = [], threading.Event()

    def serve():
        while not stop.is_set():
            if not router.poll(50):
                continue
            peer, *frames = router.recv_multipart()
            message = decode(frames, max_header=ATTACHED_MAX_HEADER, max_buffer=1 << 20, accept=REQUESTS)
            seen.append(message.type)
            if message.type == "hello":
                router.send_multipart([peer, *encode("welcome", {"server": {"version": "x", "device": "cpu"},
                                                                 "resume": "r", "heartbeat_s": 0.2}, id=message.id)])
            elif message.type == "checks":
                router.send_multipart([peer, *encode("reply", {"ok": True, "result": {"checks": 7}}, id=message.id)])

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    lost = []
    client = RemoteClient(f"tcp://127.0.0.1:{port}", "token", on_lost=lost.append, timeout_s=30)
    try:
        client.connect(timeout=10)
        display = RemoteDisplay(types.SimpleNamespace(answer=client.answer,
                                                      stepper=types.SimpleNamespace(position_of=lambda n: 0)))
        with pytest.raises(FrameError, match="The server's checks message is malformed"):
            display.checks_of(capture())
        assert len(lost) == 1 and not client.connected
        for _ in range(100):
            if "bye" in seen:
                break
            __import__("time").sleep(0.05)
        assert "bye" in seen
        client.connect(timeout=10)
        assert client.connected and seen.count("hello") == 2
    finally:
        client.close()
        stop.set()
        thread.join(5)
        router.close(0)


@pytest.mark.parametrize("result", [{"peak": -1}, {"peak": "1 GB"}, {"peak": True}, {"peak": 2**70}, {}, None, [3]],
                         ids=["negative", "text", "true", "too large", "no peak", "null", "a list"])
def test_a_malformed_make_room_reply_is_one_sentence_and_closes_the_connection(result):
    """The stated peak a served backward's `make_room` answers is a whole number of bytes, or the window lets go."""
    from tfdebug.remote.backwards import request_room

    client, link, lost, _ = served(result)
    with pytest.raises(FrameError) as caught:
        request_room(types.SimpleNamespace(answer=client.answer))
    assert "\n" not in str(caught.value) and lost == [caught.value] and link.closed
    client, link, lost, _ = served({"peak": 123_456})
    assert request_room(types.SimpleNamespace(answer=client.answer)) == 123_456 and lost == []
