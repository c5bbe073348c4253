"""Hostile requests, round 4: each is refused in a sentence that carries its request id, no handler's failure ends
the server, and the attached window steps after every one (a server in this process: its handlers can be made to
fail and its fault log read)."""

from __future__ import annotations

import json
import logging
import time

import numpy as np
import pytest

pytest.importorskip("zmq")

from tfdebug.core.errors import TfdebugError  # noqa: E402
from tfdebug.remote.handlers import ServedSession  # noqa: E402
from tfdebug.remote.protocol import (ATTACHED_MAX_HEADER, MAX_OVERVIEW, PROTOCOL_VERSION, REQUEST_BUFFERS,  # noqa: E402
                                     REQUESTS, SCHEMAS, encode)

from tests.remote.served import answer, raw_peer, served_here, still_served  # noqa: E402

PROBS = "dec.0.self_attn.probs"


@pytest.fixture(scope="module")
def server():
    with served_here(client_timeout_s=6.0) as served:
        yield served


def refusal(window, kind: str, fields: dict, buffers=()) -> TfdebugError:
    """The error the server's reply to this request (sent as the attached window) carries; it must come at once."""
    started = time.monotonic()
    with pytest.raises(TfdebugError) as caught:
        window.request(kind, fields, buffers, timeout=10)
    assert time.monotonic() - started < 5, "the refusal did not reach its request"
    assert caught.value.id != "remote.no_answer"
    return caught.value


@pytest.mark.parametrize("header", [
    {"v": PROTOCOL_VERSION, "type": "hello", "id": 1},                       # no token at all
    {"v": PROTOCOL_VERSION, "type": "hello", "id": 1, "token": None},
    {"v": PROTOCOL_VERSION, "type": "hello", "id": 1, "token": ["a"]},
    {"v": PROTOCOL_VERSION, "type": "hello", "id": 1, "token": {"encode": 1}},
    {"v": PROTOCOL_VERSION, "type": "hello", "id": 1, "resume": "x"},
])
def test_a_hello_without_a_text_token_is_refused_with_its_id_and_the_server_serves_on(server, window, header):
    peer = raw_peer(server)
    peer.send_multipart([json.dumps(header).encode()])
    reply = answer(peer)
    assert reply is not None and reply.id == 1 and not reply["ok"]
    assert reply["error"]["id"] in ("remote.missing_field", "remote.field")
    assert "token" in reply["error"]["message"]
    peer.close()
    still_served(window)
    assert server.faults.count == 0


@pytest.mark.parametrize("kind", [k for k in REQUESTS if any(getattr(c, "required", False)
                                                             for c in SCHEMAS[k].values()) and k != "hello"])
def test_a_request_without_its_required_fields_is_refused_before_any_handler(server, window, kind):
    error = refusal(window, kind, {})
    assert error.id == "remote.missing_field" and kind in error.message
    assert server.faults.count == 0
    still_served(window)


@pytest.mark.parametrize("kind", [k for k in REQUESTS if k not in REQUEST_BUFFERS])
def test_arrays_on_a_request_that_takes_none_are_refused(server, window, kind):
    error = refusal(window, kind, {}, [np.zeros(3, dtype=np.float32)])
    assert error.id in ("remote.arrays_taken", "remote.missing_field")
    still_served(window)


def test_a_fill_csv_edit_with_a_flat_buffer_is_refused_in_a_sentence(server, window):
    window.stepper.run_to(PROBS)
    window.stepper.wait()
    cursor = window.stepper.cursor
    fields = {"op": "fill_csv", "target": "slice", "value": 0.0, "row_axis": 2, "col_axis": 3,
              "indices": {"0": 0, "1": 0}}
    error = refusal(window, "edit", fields, [np.arange(5, dtype=np.float64)])
    assert error.id == "remote.edit_values" and "rows × columns" in error.message and "(5,)" in error.message
    error = refusal(window, "edit", {**fields, "op": "set"}, [np.ones((2, 2))])  # values for an op taking none
    assert error.id == "remote.edit_values"
    assert not window.stepper.current.edited and window.stepper.cursor == cursor
    assert server.faults.count == 0
    still_served(window)


def test_next_token_on_a_single_pass_is_always_refused_the_same_way(server, window):
    """Paused, running on (Continue) or finished: the same sentence, never 'the forward pass is running'."""
    for prepare in (lambda: None, window.stepper.continue_, lambda: None, window.stepper.step_back):
        prepare()
        for _ in range(3):
            error = refusal(window, "command", {"op": "next_token"})
            assert error.id == "remote.not_generating", error.message
            error = refusal(window, "command", {"op": "run_to_token", "index": 2})
            assert error.id == "remote.not_generating", error.message
        window.stepper.wait()
    window.stepper.restart()
    window.stepper.wait()
    still_served(window)


def test_an_overview_of_the_most_indices_the_schema_allows_is_answered(server, window):
    """65,536 indices at the largest position: above the unattached peers' header limit, within the window's."""
    error = refusal(window, "overview", {"statistic": "rms", "indices": [2**40] * MAX_OVERVIEW})
    assert error.id == "stepper.no_position"
    still_served(window)


def test_a_header_too_large_to_read_is_refused_with_its_request_id(server, window):
    frames = encode("overview", {"statistic": "rms", "indices": [1], "padding": "x" * (ATTACHED_MAX_HEADER + 10)},
                    id=424242)
    future = window.client._link.send(frames, 424242, None)  # the window's own connection, its id pending
    with pytest.raises(TfdebugError, match="larger than the limit") as caught:
        future.result(5)
    assert caught.value.id == "remote.header_size"
    still_served(window)
    peer = raw_peer(server)  # the same from a peer not attached, over its smaller limit
    peer.send_multipart(encode("hello", {"token": "t" * 70_000}, id=77))
    reply = answer(peer)
    assert reply.id == 77 and reply["error"]["id"] == "remote.header_size"
    peer.close()


@pytest.mark.parametrize("header", [
    # the fuzz test's finding: not JSON (Infinity) and a version that is a text: refused as not JSON, with its id
    '{"v": "4", "type": "overview", "id": 1919, "indices": {"": [-Infinity]}, "statistic": 1e287}',
    '{"v": "4", "type": "overview", "id": 1919, "indices": [NaN], "statistic": "rms"}',
    '{"v": "4", "type": "overview", "id": 1919, "indices": [1, 2', # cut short: the leading fields tell the id
    '{"v": null, "type": "stats", "id": 1919, "index": 0, "pad": "' + "x" * (ATTACHED_MAX_HEADER + 10) + '"}',
])
def test_a_header_that_is_no_json_or_too_large_with_any_version_is_refused_with_its_request_id(server, window,
                                                                                               header):
    future = window.client._link.send([header.encode()], 1919, None)
    try:
        with pytest.raises(TfdebugError) as caught:
            future.result(5)
    finally:
        window.client._link.forget(1919)
    assert caught.value.id in ("remote.not_json", "remote.header_size", "remote.version")
    assert server.faults.count == 0
    still_served(window)


def test_a_handler_that_fails_unexpectedly_answers_with_a_sentence_and_the_server_serves_on(
        server, window, monkeypatch, caplog):
    def broken(self, m):
        raise TypeError("'numpy.float64' object is not iterable")
    monkeypatch.setattr(ServedSession, "_on_stats", broken)
    faults = server.faults.count
    with caplog.at_level(logging.ERROR, logger="tfdebug"):
        for _ in range(3):
            error = refusal(window, "stats", {"index": 0})
            assert error.id == "remote.server_fault"
            assert "stats request" in error.message and "TypeError" in error.message
            assert "goes on serving" in error.message
    assert server.faults.count == faults + 3
    logged = [r.getMessage() for r in caplog.records if "fault" in r.getMessage()]
    assert len(logged) == 1  # the same failure again is counted, not logged each time
    assert "stats request" in logged[0] and "TypeError" in logged[0] and "test_hostile_requests.py" in logged[0]
    monkeypatch.undo()
    still_served(window)
    assert window.stepper.wait() == "paused"


def test_a_chore_that_fails_every_turn_is_logged_once_and_the_window_is_served(server, window, monkeypatch,
                                                                                 caplog):
    calls = []

    def _answer_comparisons():
        calls.append(1)
        raise RuntimeError("a chore broke")
    with caplog.at_level(logging.ERROR, logger="tfdebug"):
        monkeypatch.setattr(server, "_answer_comparisons", _answer_comparisons)
        deadline = time.monotonic() + 10
        while len(calls) < 20 and time.monotonic() < deadline:
            still_served(window)
        monkeypatch.undo()
    assert len(calls) >= 20
    logged = [r.getMessage() for r in caplog.records if "a chore broke" in r.getMessage()]
    assert 1 <= len(logged) <= 2 and "answer comparisons" in logged[0]
    still_served(window)
