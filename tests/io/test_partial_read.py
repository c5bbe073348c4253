"""One plane of a stored stage read alone (issue 54): the bytes of `tensor[batch, head]` are one range of the
file, read and checked as a whole stage is; an index outside the stage, or a part the entry does not hold,
is refused with one sentence. Expected values come from safetensors' own reader."""

import os

import pytest
import torch
from safetensors import safe_open

from tfdebug.core.errors import SnapshotError
from tfdebug.io.safetensors_file import TensorEntry, part_of_entry
from tfdebug.io.snapshot import open_snapshot

PLANE = "enc.0.attn.scores"  # (batch, head, query, key)


def test_a_part_is_the_plane_safetensors_reads(snapshot_path):
    with safe_open(str(snapshot_path), framework="pt") as f:
        theirs = f.get_tensor(PLANE)
    with open_snapshot(snapshot_path) as rec:
        capture = rec[PLANE]
        for head in range(capture.shape[1]):
            part = rec.part(capture, (0, head))
            assert part is not None and torch.equal(part, theirs[0, head])
        assert torch.equal(rec.part(capture, (0,)), theirs[0])
        assert capture.tensor is None  # the stage itself was not read


def test_a_part_through_the_replay_stepper_leaves_the_stage_unread(snapshot_path):
    with open_snapshot(snapshot_path) as rec:
        stepper = rec.stepper()
        capture = stepper.history[stepper.position_of(PLANE)]
        part = stepper.part_of(capture, (0, 1))
        assert part is not None and capture.tensor is None
        stepper.tensor_of(capture)
        assert torch.equal(part, capture.tensor[0, 1])
        assert stepper.part_of(capture, (0, 1)) is None  # read whole: nothing to read in part


@pytest.mark.parametrize("leading", [(1, 0), (0, 4), (0, -1), (0, 0, 0, 0), (0, True), (0, 1.0)])
def test_an_index_outside_the_stage_is_refused_in_one_sentence(snapshot_path, leading):
    with open_snapshot(snapshot_path) as rec:
        with pytest.raises(SnapshotError, match=r"has no part .* of tensor 'enc\.0\.attn\.scores' \(of shape "
                                                 r"\[1, 4, 3, 3\]\)\.$"):
            rec.part(rec[PLANE], leading)


def test_a_part_the_entry_does_not_hold_is_refused():
    # An entry whose offsets are too short for its shape (read_header refuses one; a part is still checked).
    short = TensorEntry("x", "F32", (2, 4, 4), begin=0, end=64)
    assert part_of_entry(short, (0,), "The file f") == (0, (4, 4))
    with pytest.raises(SnapshotError, match=r"^The file f has no part \[1\] of tensor 'x' \(of shape \[2, 4, 4\]\)\.$"):
        part_of_entry(short, (1,), "The file f")


def test_a_part_of_a_file_truncated_underneath_says_so(snapshot_path):
    with open_snapshot(snapshot_path) as rec:
        os.truncate(snapshot_path, 200)
        with pytest.raises(SnapshotError, match="changed on disk after it was opened"):
            rec.part(rec[PLANE], (0, 0))


def test_a_read_that_may_stop_stops_between_pieces_and_can_be_read_again(snapshot_path, monkeypatch):
    import tfdebug.io.safetensors_file as safetensors_file
    from tfdebug.core.errors import ReadStoppedError

    monkeypatch.setattr(safetensors_file, "STOP_CHUNK_BYTES", 16)  # a piece of four floats
    asked = []

    def stop() -> bool:
        asked.append(True)
        return len(asked) > 2  # two pieces read, then no longer wanted
    with open_snapshot(snapshot_path) as rec:
        stepper = rec.stepper()
        capture = stepper.history[stepper.position_of(PLANE)]
        with pytest.raises(ReadStoppedError, match="^The read was stopped"):
            stepper.tensor_of(capture, stop=stop)
        assert len(asked) == 3 and capture.tensor is None
        with safe_open(str(snapshot_path), framework="pt") as f:
            assert torch.equal(stepper.tensor_of(capture, stop=lambda: False), f.get_tensor(PLANE))
