"""Edits of a paused tensor: each operation's values, bad edits refused whole, undo, restart unedited."""

import pytest
import torch

from tfdebug.adapters.reference import ReferenceAdapter
from tfdebug.sessions.session import DebugSession
from tfdebug.core.edits import (CELL, COLUMN, FILL_CSV, KEEP_HEAD, ROW, SCALE, SET, SLICE, TENSOR, ZERO_HEAD, Edit,
                                Region, apply_edit, parse_number, read_csv_values)
from tfdebug.core.errors import EditError, ReplacementError

AXES = ("batch", "head", "query", "key")


@pytest.fixture()
def probs():
    return torch.arange(2 * 3 * 4 * 5, dtype=torch.float32).reshape(2, 3, 4, 5)


REGION = Region(2, 3, {0: 1, 1: 2})  # query × key of batch 1, head 2


def test_set_cell_row_column_slice_touch_only_their_cells(probs):
    cases = {CELL: (1, 3), ROW: (1, None), COLUMN: (None, 3), SLICE: (None, None)}
    for target, (row, col) in cases.items():
        out = apply_edit(probs, Edit(SET, target, 7.0, row=row, col=col), REGION, AXES)
        expected = probs.clone()
        shown = expected[1, 2]
        if target == CELL:
            shown[1, 3] = 7
        elif target == ROW:
            shown[1, :] = 7
        elif target == COLUMN:
            shown[:, 3] = 7
        else:
            shown[:] = 7
        assert torch.equal(out, expected), target
    assert probs[1, 2, 1, 3] == 1 * 60 + 2 * 20 + 1 * 5 + 3  # the original is untouched


def test_transposed_view_rows_are_the_row_axis(probs):
    region = Region(3, 2, {0: 0, 1: 0})  # key as rows, query as columns
    out = apply_edit(probs, Edit(SET, ROW, -1.0, row=4), region, AXES)
    assert (out[0, 0, :, 4] == -1).all() and (out[0, 0, :, :4] == probs[0, 0, :, :4]).all()
    values = tuple(tuple(float(10 * r + c) for c in range(4)) for r in range(5))  # 5 keys × 4 queries
    out = apply_edit(probs, Edit(FILL_CSV, values=values), region, AXES)
    assert out[0, 0, 2, 3] == 32 and out[0, 0, 0, 4] == 40 and torch.equal(out[1], probs[1])


def test_scale_and_whole_tensor(probs):
    out = apply_edit(probs, Edit(SCALE, SLICE, 0.5), REGION, AXES)
    assert torch.equal(out[1, 2], probs[1, 2] * 0.5) and torch.equal(out[0], probs[0])
    out = apply_edit(probs, Edit(SCALE, TENSOR, 2.0), REGION, AXES)
    assert torch.equal(out, probs * 2)


def test_zero_a_head_or_keep_only_one(probs):
    out = apply_edit(probs, Edit(ZERO_HEAD, head=0), REGION, AXES)
    assert (out[:, 0] == 0).all() and torch.equal(out[:, 1:], probs[:, 1:])
    out = apply_edit(probs, Edit(KEEP_HEAD, head=1), REGION, AXES)
    assert torch.equal(out[:, 1], probs[:, 1]) and (out[:, 0] == 0).all() and (out[:, 2] == 0).all()


def test_csv_plain_or_as_exported_with_labels():
    plain = "1,2,3\n4,5,6\n"
    labelled = ",i,love,you\n<bos>,1,2,3\n我,4,5,6\n"
    assert read_csv_values(plain, (2, 3)) == read_csv_values(labelled, (2, 3)) == ((1, 2, 3), (4, 5, 6))
    assert read_csv_values("-inf, 0\n1, 2", (2, 2))[0][0] == float("-inf")


@pytest.mark.parametrize("call, sentence", [
    (lambda: read_csv_values("1,2\n3,4\n", (2, 3)), "holds 2 rows × 2 columns; the shown slice is 2 × 3"),
    (lambda: read_csv_values("1,2,3\n4,x,6\n", (2, 3)), "Row 2 of the CSV file holds 'x' is not a number"),
    (lambda: parse_number("abc"), "The value 'abc' is not a number."),
    (lambda: apply_edit(torch.zeros(2, 3), Edit(ZERO_HEAD, head=0), Region(0, 1), ("token", "model")),
     "no head axis"),
    (lambda: apply_edit(torch.zeros(1, 3, 2, 2), Edit(KEEP_HEAD, head=3), Region(2, 3), AXES), "heads 0 to 2"),
    (lambda: apply_edit(torch.zeros(2, 3), Edit(SET, ROW, row=2), Region(0, 1), ("token", "model")),
     "no row 2"),
    (lambda: apply_edit(torch.zeros(2, 3, dtype=torch.long), Edit(SET), Region(0, 1), ()), "floating-point"),
])
def test_bad_edits_are_one_sentence(call, sentence):
    with pytest.raises(EditError) as info:
        call()
    assert sentence in info.value.message and info.value.message.count(". ") <= 1


def test_parse_number_reads_what_people_type():
    assert parse_number(" -1e-3 ") == -1e-3 and parse_number("−∞") == float("-inf")


@pytest.fixture()
def session(loaded):
    session = DebugSession(ReferenceAdapter(loaded), {"src": "I love you", "tgt": "我 爱 你"})
    yield session
    session.close()


def test_edit_flows_downstream_undo_takes_it_back_restart_is_unedited(session):
    stepper = session.stepper
    stepper.start()
    stepper.wait()
    stepper.run_to("dec.1.cross_attn.probs")
    stepper.wait()
    original = stepper.current.tensor
    edited = apply_edit(original, Edit(ZERO_HEAD, head=0), Region(2, 3), stepper.current.info.axes)
    stepper.replace(edited)
    stepper.replace(apply_edit(edited, Edit(SCALE, TENSOR, 2.0), Region(2, 3), stepper.current.info.axes))
    assert stepper.edits_to_undo == 2 and stepper.current.edited
    stepper.undo_replace()
    assert torch.equal(stepper.current.tensor, edited) and stepper.current.edited
    stepper.undo_replace()
    assert stepper.current.tensor is original and not stepper.current.edited and stepper.edits_to_undo == 0
    with pytest.raises(ReplacementError, match="no edit of the paused stage"):
        stepper.undo_replace()
    stepper.continue_()
    stepper.wait()
    unedited = stepper.output.clone()

    stepper.restart()
    stepper.wait()
    stepper.run_to("dec.1.cross_attn.probs")
    stepper.wait()
    stepper.replace(apply_edit(stepper.current.tensor, Edit(ZERO_HEAD, head=0), Region(2, 3), AXES))
    stepper.step_back()  # an earlier stage has already run: it cannot be edited
    with pytest.raises(ReplacementError, match="has already run"):
        stepper.replace(stepper.current.tensor)
    stepper.continue_()
    stepper.wait()
    assert stepper.state == "finished"
    assert not torch.allclose(stepper.output, unedited)
    assert [c.name for c in stepper.history if c.edited] == ["dec.1.cross_attn.probs"]

    stepper.restart()
    stepper.wait()
    stepper.continue_()
    stepper.wait()
    assert torch.equal(stepper.output, unedited)  # Restart runs the unedited pass
    assert not any(c.edited for c in stepper.history)


def test_an_edit_stays_on_the_tensor_device(device):
    probs = torch.rand(1, 4, 3, 3, device=device)
    out = apply_edit(probs, Edit(ZERO_HEAD, head=2), Region(2, 3), AXES)
    assert out.device == probs.device and (out[:, 2] == 0).all()
    out = apply_edit(probs, Edit(FILL_CSV, values=((1, 2, 3),) * 3), Region(2, 3, {1: 1}), AXES)
    assert out.device == probs.device and out[0, 1, 2, 2].item() == 3
