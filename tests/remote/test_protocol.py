"""The wire format: typed, versioned messages whose every frame is bounded and checked before use."""

from __future__ import annotations

import json

import numpy as np
import pytest
import torch

from tfdebug.core.display import display_slice
from tfdebug.core.stats import tensor_stats
from tfdebug.core.thumbnails import head_thumbnails
from tfdebug.remote import wire
from tfdebug.remote.errors import FrameError, VersionError
from tfdebug.remote.protocol import MAX_FRAMES, PROTOCOL_VERSION, REQUESTS, decode, encode

LIMITS = {"max_header": 64 * 1024, "max_buffer": 2**20, "accept": REQUESTS}


def test_a_request_round_trips_with_its_buffer():
    array = np.arange(12, dtype=np.float32).reshape(3, 4)
    message = decode([bytes(f) for f in encode("replace", {}, [array], id=7)], **LIMITS)
    assert message.type == "replace" and message.id == 7
    np.testing.assert_array_equal(message.buffers[0], array)


def test_nan_and_infinity_travel_as_numbers():
    frames = encode("edit", {"op": "set", "target": "cell", "value": "nan", "row": 0, "col": 0, "head": None,
                             "row_axis": 0, "col_axis": 1, "indices": {}})
    assert np.isnan(decode(frames, **LIMITS)["value"])


def test_another_protocol_version_is_refused_naming_both():
    header = json.dumps({"v": PROTOCOL_VERSION + 1, "type": "ping"}).encode()
    with pytest.raises(VersionError) as caught:
        decode([header], **LIMITS)
    assert f"version {PROTOCOL_VERSION + 1}" in caught.value.message
    assert f"version {PROTOCOL_VERSION}." in caught.value.message


@pytest.mark.parametrize("frames, words", [
    ([b"\xff\xfe not utf-8"], "not a JSON object"),
    ([b"[1, 2, 3]"], "not a JSON object"),
    ([b"{" * 100_000], "larger than the limit"),
    ([json.dumps({"v": PROTOCOL_VERSION, "type": "shutdown"}).encode()], "not expected"),
    ([json.dumps({"v": PROTOCOL_VERSION, "type": "ping", "exec": "rm -rf /"}).encode()], "unknown field"),
    ([json.dumps({"v": PROTOCOL_VERSION, "type": "command", "op": "__del__"}).encode()], "must be one of"),
    ([json.dumps({"v": PROTOCOL_VERSION, "type": "command", "op": "goto", "index": -1}).encode()], "whole number"),
    ([json.dumps({"v": PROTOCOL_VERSION, "type": "ping"}).encode()] * (MAX_FRAMES + 1), f"1 to {MAX_FRAMES} frames"),
    ([json.dumps({"v": PROTOCOL_VERSION, "type": "ping", "id": 1.5}).encode()], "whole number"),
    ([b'{"v": 1, "type": "ping", "id": NaN}'], "not a JSON object"),
])
def test_malformed_messages_are_refused_with_a_sentence(frames, words):
    with pytest.raises(FrameError) as caught:
        decode(frames, **LIMITS)
    assert words in caught.value.message


def test_a_header_claiming_a_terabyte_is_refused_before_anything_is_allocated():
    header = {"v": PROTOCOL_VERSION, "type": "replace", "buffers": [{"dtype": "float32", "shape": [2**20, 2**18]}]}
    with pytest.raises(FrameError) as caught:
        decode([json.dumps(header).encode(), b"\0" * 16], **LIMITS)
    assert "1099511627776 bytes" in caught.value.message and "limit" in caught.value.message


def test_a_buffer_shorter_than_its_description_is_refused():
    header = {"v": PROTOCOL_VERSION, "type": "replace", "buffers": [{"dtype": "float32", "shape": [4, 4]}]}
    with pytest.raises(FrameError, match="declares 64 bytes but carries 60"):
        decode([json.dumps(header).encode(), b"\0" * 60], **LIMITS)


def test_slices_stats_and_thumbnails_arrive_as_they_left():
    tensor = torch.randn(1, 4, 6, 6)
    tensor[0, 1, 2, 3] = float("-inf")
    sl = display_slice(tensor, 2, 3, {1: 1}, (3, 3), kind="mask")
    fields, buffers = wire.slice_fields(sl)
    back = wire.slice_of(json.loads(json.dumps(fields)), buffers)
    np.testing.assert_array_equal(back.values, sl.values)
    assert back.stats.neginf == sl.stats.neginf == 1 and back.stats.min == sl.stats.min
    np.testing.assert_array_equal(back.stats.hist_edges, sl.stats.hist_edges)
    stats = tensor_stats(tensor)
    assert wire.stats_of(*[json.loads(json.dumps(wire.stats_fields(stats)[0]))],
                         *wire.stats_fields(stats)[1]).mean == pytest.approx(stats.mean)
    thumbs = head_thumbnails(tensor, 2, 3, 1, {}, (2, 2))
    back_thumbs = wire.heads_of(*wire.heads_fields(thumbs))
    np.testing.assert_array_equal(back_thumbs.values, thumbs.values)
    np.testing.assert_array_equal(back_thumbs.neginf, thumbs.neginf)


def test_thumbnails_that_do_not_fit_together_are_refused():
    with pytest.raises(FrameError, match="do not fit"):
        wire.heads_of({"source_shape": [2, 2]}, [np.zeros((4, 2, 2), np.float32), np.zeros(3), np.zeros(4),
                                                   np.zeros(4, np.int64)])


def test_an_error_crosses_as_its_id_template_and_values_and_a_hostile_template_is_dropped():
    from tfdebug.core.errors import SnapshotError, StepperStateError
    from tfdebug.core.phrases import Choices, Phrase
    from tfdebug.remote.errors import from_reply, to_reply

    reason = Phrase("Permission denied", id="os.permission")
    sent = SnapshotError("Cannot write {path}: {why} (try {ways}).", id="snapshot.write", path="/tmp/x", why=reason,
                         ways=Choices(["a", "b", "c"]))
    wired = json.loads(json.dumps(to_reply(sent)))  # what crosses is JSON
    back = from_reply(wired)
    assert type(back) is SnapshotError and (back.id, back.template, back.message) == (
        sent.id, sent.template, sent.message)
    assert isinstance(back.params["why"], Phrase) and back.params["why"].id == "os.permission"
    assert back.params["ways"].items == ("a", "b", "c")
    for template, params in (("{why.__class__.__init__.__globals__}", {"why": "x"}), ("{0}", {}),
                             ("{missing}", {}), ("{a[0]}", {"a": "xy"}), ("{a:{b}}", {"a": 1, "b": "d"})):
        hostile = from_reply({"class": "StepperStateError", "id": "x.y", "message": "English.", "template": template,
                              "params": params})
        assert type(hostile) is StepperStateError and hostile.template == "" and hostile.message == "English."
    nested = {"phrase": {"template": "{p.__init__}", "id": "a", "english": "e", "context": "phrases", "params": {}}}
    assert from_reply({"class": "X", "id": "a.b", "message": "m", "template": "{p}", "params": {"p": nested}}
                      ).template == ""


def test_an_export_receipt_is_typed_and_bounded():
    good = decode(encode("transfer", {"export": 3, "received": 4096, "cancel": False}), **LIMITS)
    assert (good["export"], good["received"], good["cancel"]) == (3, 4096, False)
    for fields in ({"export": 3, "received": -1, "cancel": False}, {"export": 3, "received": 1, "cancel": "yes"},
                   {"export": 3, "received": 1, "cancel": False, "bytes": 9}):
        with pytest.raises(FrameError):
            decode(encode("transfer", fields), **LIMITS)
