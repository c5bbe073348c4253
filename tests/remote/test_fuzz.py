"""Fuzzing the protocol: messages drawn from the schema (right and wrong fields, values of every JSON type, stray
arrays) and byte-level mutations of a real session's messages, sent as the attached window and as a stranger. The
server answers each request (no fault, no silence) and the window steps after every batch. Bounded: well under
60 s on two CPU cores; derandomized. Hypothesis also draws literals found in the modules this process has imported,
so the examples depend on which test files ran before in the same process: a failure in the whole suite reproduces
with the same files before it (`pytest -p no:randomly tests/remote -x`), not always alone."""

from __future__ import annotations

import json
import time

import numpy as np
import pytest

pytest.importorskip("zmq")
hypothesis = pytest.importorskip("hypothesis")

import zmq  # noqa: E402
from hypothesis import HealthCheck, given, settings, strategies as st  # noqa: E402

from tfdebug.core.errors import TfdebugError  # noqa: E402
from tfdebug.remote.protocol import PROTOCOL_VERSION, REQUESTS, SCHEMAS, encode  # noqa: E402
from tfdebug.remote.session import RemoteSession  # noqa: E402

from tests.remote.served import served_here  # noqa: E402

BUDGET_S = 25.0  # each test's fuzzing stops drawing examples after this
NO_REPLY = ("ping", "bye", "transfer")  # answered by no reply when well formed
# As the window: not `bye` (it detaches the window this test steps with) and not `hello` with the token's fields.
WINDOW_KINDS = [k for k in REQUESTS if k not in ("bye", "hello")]

json_leaf = st.one_of(st.none(), st.booleans(), st.integers(-2**70, 2**70), st.floats(allow_nan=False),
                      st.text(max_size=40), st.sampled_from(["nan", "inf", "-inf", "", "0", "a", "step", "window"]))
json_value = st.recursive(json_leaf, lambda inner: st.one_of(st.lists(inner, max_size=5),
                                                             st.dictionaries(st.text(max_size=5), inner, max_size=5)),
                          max_leaves=12)


@st.composite
def messages(draw, kinds):
    """A header for one of `kinds`: some of its schema's fields (any value), now and then an unknown one, a
    missing or wrong `v`/`id`, and now and then arrays."""
    kind = draw(st.sampled_from(kinds))
    names = sorted(SCHEMAS[kind])
    fields = draw(st.dictionaries(st.sampled_from(names), json_value, max_size=len(names))) if names else {}
    header = {"v": draw(st.sampled_from([PROTOCOL_VERSION] * 8 + [None, PROTOCOL_VERSION + 1, "4"])),
              "type": kind, "id": draw(st.integers(1, 2**40)), **fields}
    if draw(st.integers(0, 9)) == 0:
        header[draw(st.text(min_size=1, max_size=8))] = draw(json_value)
    buffers = draw(st.lists(st.sampled_from([np.zeros(3), np.ones((2, 2)), np.arange(4, dtype=np.float32)]),
                            max_size=2))
    return header, buffers


def frames_of(header: dict, buffers) -> list[bytes]:
    if buffers:
        header = {**header, "buffers": [{"dtype": str(b.dtype), "shape": list(b.shape)} for b in buffers]}
    return [json.dumps(header).encode(), *(b.tobytes() for b in buffers)]


@pytest.fixture(scope="module")
def fuzzed():
    """The server, its window and a stranger's socket."""
    with served_here(client_timeout_s=30.0) as server:
        window = RemoteSession.connect(server.address, server.token, timeout_s=60.0)
        stranger = zmq.Context.instance().socket(zmq.DEALER)
        stranger.setsockopt(zmq.LINGER, 0)
        stranger.connect(server.address)
        yield server, window, stranger
        stranger.close()
        window.close()
        assert server.faults.count == 0


@pytest.fixture()
def stop_at():
    """When this test stops drawing examples (made once per test, not per example)."""
    return time.monotonic() + BUDGET_S


def still_served(window) -> None:
    """The window restarts the pass (whatever the fuzzed commands left it doing) and steps from its first stage."""
    window.stepper.wait(30)
    window.stepper.restart()
    assert window.stepper.wait(30) == "paused" and window.stepper.cursor == 0
    window.stepper.step()
    assert window.stepper.wait(30) == "paused" and window.stepper.cursor == 1


def ask_as_window(window, header: dict, buffers) -> None:
    """Send as the attached window; a request that expects a reply must get one (a refusal or a result)."""
    request_id = header["id"]
    future = window.client._link.send(frames_of(header, buffers), request_id, None)
    expects = header["type"] not in NO_REPLY or header.get("v") != PROTOCOL_VERSION
    try:
        future.result(20 if expects else 0.05)
    except TfdebugError as exc:
        assert exc.id != "remote.server_fault", exc.message
    except TimeoutError:
        assert not expects, f"no answer to {header}"
    finally:
        window.client._link.forget(request_id)


@settings(max_examples=150, deadline=None, derandomize=True, database=None,
          suppress_health_check=list(HealthCheck))
@given(batch=st.lists(messages(WINDOW_KINDS), min_size=1, max_size=4))
def test_messages_drawn_from_the_schema_never_fault_the_server(fuzzed, stop_at, batch):
    server, window, _ = fuzzed
    if time.monotonic() > stop_at:
        return
    for header, buffers in batch:
        ask_as_window(window, header, buffers)
    if window.handed_over or window.client.lost is not None:  # an `open` handed the window to a new pass
        pytest.fail("the window lost its session")
    still_served(window)
    assert server.faults.count == 0


def recorded_session() -> list[list[bytes]]:
    """The frames a real window's session sends (recorded from encode's own output)."""
    return [encode("hello", {"token": "x" * 32, "resume": None, "client": "tfdebug window"}, id=1),
            encode("command", {"op": "step"}, id=2),
            encode("slice", {"index": 0, "row": 0, "col": 1, "indices": {}, "max_rows": 64, "max_cols": 64,
                             "moments": True}, id=3),
            encode("overview", {"statistic": "rms", "indices": [0, 1, 2]}, id=4),
            encode("edit", {"op": "fill_csv", "target": "slice", "value": 0.0, "row_axis": 0, "col_axis": 1,
                            "indices": {}}, [np.ones((2, 2))], id=5),
            encode("transfer", {"export": 9, "received": 0, "cancel": False})]


@settings(max_examples=150, deadline=None, derandomize=True, database=None,
          suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_byte_mutations_of_a_real_session_never_fault_the_server(fuzzed, stop_at, data):
    server, window, stranger = fuzzed
    if time.monotonic() > stop_at:
        return
    frames = [bytearray(bytes(f)) for f in data.draw(st.sampled_from(recorded_session()))]
    for _ in range(data.draw(st.integers(1, 6))):
        frame = frames[data.draw(st.integers(0, len(frames) - 1))]
        at = data.draw(st.integers(0, max(len(frame) - 1, 0)))
        how = data.draw(st.sampled_from(["flip", "cut", "dup", "insert"]))
        if how == "flip" and frame:
            frame[at] ^= 1 << data.draw(st.integers(0, 7))
        elif how == "cut":
            del frame[at:]
        elif how == "dup":
            frame[at:at] = frame[at:at + data.draw(st.integers(1, 64))]
        else:
            frame[at:at] = data.draw(st.binary(min_size=1, max_size=16))
    stranger.send_multipart([bytes(f) for f in frames])
    # A stranger gets a refusal for everything (it is not attached); a frame cut to nothing may get none.
    if stranger.poll(5000):
        stranger.recv_multipart()
    else:
        assert not frames[0], "no refusal came"
    still_served(window)
    assert server.faults.count == 0
