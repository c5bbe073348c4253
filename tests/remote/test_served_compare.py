"""Compare over a real `tfdebug serve --model tiny-gpt2` process: the per-stage comparison runs on the server and
only its table crosses; the table equals the one `tfdebug.core.compare` makes of the same two passes here. The
divergence condition is evaluated on the server and stops where the same condition stops the pass here."""

from __future__ import annotations

import json

import numpy as np
import pytest

from tests.remote.served import attached, start_server, stop_server
from tfdebug.sessions.crosscheck import Placement, compare_placements, fill_reference, find_divergence
from tfdebug.adapters.registry import load_adapter
from tfdebug.sessions.session import DebugSession
from tfdebug.core.breakpoints import Breakpoint
from tfdebug.core.compare import compare
from tfdebug.core.reference import ReferencePass
from tfdebug.core.edits import Edit, Region
from tfdebug.core.errors import CompareError, ExportError, SnapshotError, StepperStateError
from tfdebug.io.passes import open_pass
from tfdebug.io.snapshot import save_snapshot
from tfdebug.models.sampling import DecodingSettings
from tfdebug.remote.comparing import compare_on_server, divergence_on_server, planes_on_server
from tfdebug.remote.errors import FrameError
from tfdebug.remote.protocol import REQUESTS, SERVER_MAX_HEADER, decode, encode
from tfdebug.remote.session import RemoteSession
from tfdebug.sessions.compare_sides import BEFORE_EDIT, FILE, INPUT, LIVE, PLACED, Held, Side

ATOL, RTOL = 1e-5, 1e-4


@pytest.fixture(scope="module")
def gpt2_server(tmp_path_factory):
    served = start_server(tmp_path_factory.mktemp("exports"), "--client-timeout", "6", model="tiny-gpt2")
    yield served
    stop_server(served)


@pytest.fixture()
def remote(gpt2_server):
    with attached(gpt2_server) as session:
        yield session


def run_to_the_end(session: RemoteSession) -> None:
    session.stepper.continue_()
    session.stepper.wait()
    assert session.stepper.state == "finished"


def test_against_another_dtype_the_server_gives_the_local_comparisons_table(remote):
    run_to_the_end(remote)
    # The served float32 pass as B, this input in bfloat16 on the server as A (the reference): the table the
    # local path (two placements of the same model compared here) makes of the same two passes.
    got = compare_on_server(remote, "placed", 1e-2, 1e-2, on_screen="b", dtype="bfloat16")
    want = compare_placements("tiny-gpt2", remote.texts, Placement("bfloat16", "cpu"), Placement("float32", "cpu"),
                              atol=1e-2, rtol=1e-2)
    assert [s.name for s in got.stages] == [s.name for s in want.stages] == remote.plan.names()
    assert got.to_dict() == want.to_dict()
    assert any(s.max_abs > 0 for s in got.stages)  # bfloat16 rounds: the numbers are not all zero
    assert {s.dtype_a for s in got.stages} == {"bfloat16"} and {s.dtype_b for s in got.stages} == {"float32"}


def test_against_sdpa_the_server_gives_the_local_table_and_transplant(remote):
    """This input with transformers' sdpa on the server as A, the served eager pass as B: the table and the
    transplant `tfdebug diff --against sdpa` makes here (the first stage that differs, put into B)."""
    run_to_the_end(remote)
    got, grafted = divergence_on_server(remote, "placed", ATOL, RTOL, on_screen="b", dtype="float32",
                                        attention="sdpa")
    want, transplant = find_divergence("tiny-gpt2", remote.texts, Placement("float32", "cpu", attention="sdpa"),
                                       Placement("float32", "cpu"), atol=ATOL, rtol=RTOL)
    assert got.to_dict() == want.to_dict() and grafted.to_dict() == transplant.to_dict()
    assert any(s.status == "only_b" and s.name.endswith(".probs") for s in got.stages)  # sdpa makes none
    assert grafted.output == "logits" and grafted.before == got["logits"].max_abs


def test_against_a_snapshot_in_the_export_folder_the_table_equals_the_local_one(remote, gpt2_server, tmp_path):
    run_to_the_end(remote)
    served = tmp_path / "served.safetensors"
    remote.export(served)  # the served pass, streamed here
    with open_pass(served) as recording:  # the same pass with one stage scaled: the other side
        changed = next(c for c in recording.captures if c.info.kind == "ffn_hidden")
        changed.tensor = recording.tensor(changed) * 1.5
        save_snapshot(recording, gpt2_server.export_dir / "scaled.safetensors")
    got = compare_on_server(remote, "file", ATOL, RTOL, path="scaled.safetensors")
    with open_pass(served) as a, open_pass(gpt2_server.export_dir / "scaled.safetensors") as b:
        want = compare(a, b, atol=ATOL, rtol=RTOL)
    assert got.to_dict() == want.to_dict()
    assert got.first_divergent.name == changed.name and got[changed.name].max_abs > 0
    assert json.loads(json.dumps(got.to_dict())) == got.to_dict()  # what crossed is plain JSON


def test_the_compare_docks_planes_are_cut_on_the_server_from_the_passes_it_compared(remote, gpt2_server, tmp_path):
    """A, B and A − B of a stage in the last comparison come from the server (only the three planes cross): A is
    the served pass as its own slice request cuts it, B the snapshot with that stage scaled by 1.5."""
    run_to_the_end(remote)
    served = tmp_path / "served.safetensors"
    remote.export(served)
    with open_pass(served) as recording:
        changed = next(c for c in recording.captures if c.info.kind == "ffn_hidden")
        changed.tensor = recording.tensor(changed) * 1.5
        save_snapshot(recording, gpt2_server.export_dir / "scaled_planes.safetensors")
    compare_on_server(remote, "file", ATOL, RTOL, path="scaled_planes.safetensors")
    planes = planes_on_server(remote, changed.name, {}, (64, 64))
    a, b, a_minus_b = (sl.values for sl in planes.slices)
    capture = remote.stepper.captured(changed.name)
    own = remote.display.slice_of(capture, planes.row_axis, planes.col_axis, planes.indices, (64, 64))
    np.testing.assert_array_equal(a, own.values)
    np.testing.assert_allclose(b, 1.5 * a, rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(a_minus_b, -0.5 * a, rtol=1e-5, atol=1e-6)
    assert np.abs(a).max() > 0 and a.shape == b.shape == a_minus_b.shape


def test_against_the_unedited_pass_the_first_divergent_stage_is_the_edited_one(remote):
    stage = next(c for c in remote.plan if c.info.kind == "ffn_hidden")
    remote.stepper.run_to(stage.name)
    remote.stepper.wait()
    with pytest.raises(StepperStateError, match="paused mid-forward") as caught:  # the model is the pass's now
        compare_on_server(remote, "unedited", ATOL, RTOL)
    assert caught.value.id == "remote.compare_alive"
    remote.stepper.edit(Edit("set", "cell", 7.0, row=0, col=0), Region(1, 2, {0: 0}))
    run_to_the_end(remote)
    got = compare_on_server(remote, "unedited", ATOL, RTOL)
    names = [s.name for s in got.stages]
    assert got.first_divergent.name == stage.name and got["logits"].diverges
    assert all(s.max_abs == 0 for s in got.stages[:names.index(stage.name)])


def test_what_the_server_cannot_compare_is_refused_with_a_sentence(remote, gpt2_server):
    remote.stepper.step()
    remote.stepper.wait()
    for name in ("../escape.safetensors", "/etc/passwd", "notes.txt", ".hidden.safetensors"):
        with pytest.raises(ExportError, match="export folder"):
            compare_on_server(remote, "file", ATOL, RTOL, path=name)
    with pytest.raises(SnapshotError, match="does not exist"):  # read on the server's job thread: refused there
        compare_on_server(remote, "file", ATOL, RTOL, path="absent.safetensors")
    with pytest.raises(FrameError, match="dtype"):
        compare_on_server(remote, "placed", ATOL, RTOL)
    for atol in ("nan", "inf", -1.0):
        with pytest.raises(FrameError, match="atol and rtol"):
            remote.request("compare", {"against": "unedited", "on_screen": "a", "atol": atol, "rtol": RTOL})
    assert remote.stepper.current is not None  # the window is still attached and served


def test_compare_with_makes_the_other_side_on_the_server_and_refuses_what_it_cannot(remote):
    """File ▸ Compare With… over a served pass (`RemoteSession.compare_with`): the side that is not the pass on
    screen is made on the server and compared there, only the table crossing (no passes here, nothing to close);
    a side the server cannot make is refused with its sentence before any request."""
    run_to_the_end(remote)
    bfloat16 = Side(PLACED, placement=Placement("bfloat16", "cpu"))
    compared = remote.compare_with(bfloat16, Side(LIVE), 1e-2, 1e-2, Held())(lambda: None)
    want = compare_on_server(remote, "placed", 1e-2, 1e-2, on_screen="b", dtype="bfloat16")
    assert compared.comparison.to_dict() == want.to_dict() and compared.passes is None and compared.opened == []
    refusals = [(Side(FILE), Side(PLACED, placement=Placement("bfloat16")), "compare.remote_sides"),
                (Side(LIVE), Side(INPUT, texts={"text": "other"}), "compare.remote_input"),
                (Side(LIVE), Side(FILE, "/home/me/pass.safetensors"), "compare.remote_local_file"),
                (Side(LIVE), Side(FILE), "compare.no_file"),
                (Side(BEFORE_EDIT), Side(LIVE), "compare.no_edit")]
    for a, b, why in refusals:
        with pytest.raises(CompareError) as caught:
            remote.compare_with(a, b, ATOL, RTOL, Held())
        assert caught.value.id == why


@pytest.mark.parametrize("fields, why", [
    ({"against": "model.pkl", "on_screen": "a", "atol": 0, "rtol": 0}, "must be one of"),
    ({"against": "file", "on_screen": "c", "atol": 0, "rtol": 0}, "must be one of"),
    ({"against": "placed", "on_screen": "a", "dtype": "float8", "atol": 0, "rtol": 0}, "must be one of"),
    ({"against": "file", "on_screen": "a", "path": "x" * 300, "atol": 0, "rtol": 0}, "at most 255"),
    ({"against": "file", "on_screen": "a", "atol": "1e-5", "rtol": 0}, "a number"),
    ({"against": "file", "on_screen": "a", "atol": 0, "rtol": 0, "exec": "rm"}, "unknown field"),
])
def test_a_hostile_compare_frame_is_refused_before_anything_runs(fields, why):
    with pytest.raises(FrameError, match=why):
        decode(encode("compare", fields, id=1), max_header=SERVER_MAX_HEADER, max_buffer=0, accept=REQUESTS)


def test_a_hostile_compare_frame_over_the_connection_leaves_the_server_serving(remote):
    with pytest.raises(FrameError, match="must be one of"):
        remote.request("compare", {"against": "shell", "on_screen": "a", "atol": 0, "rtol": 0})
    remote.stepper.step()
    remote.stepper.wait()
    assert remote.stepper.cursor == 1


def divergence_stop_here(texts: dict, atol: float, rtol: float) -> str:
    """Where the same condition stops the same pass run here: tiny-gpt2 against this input in bfloat16."""
    session = DebugSession(load_adapter("tiny-gpt2"), texts)
    reference = ReferencePass(("tiny-gpt2", "bfloat16"), "bfloat16 on cpu")
    fill_reference(reference, "tiny-gpt2", texts, Placement("bfloat16", "cpu"), to_host=False)
    session.stepper.reference = reference
    session.stepper.add_breakpoint(Breakpoint.on_divergence(atol, rtol))
    try:
        session.stepper.start()
        session.stepper.wait()
        session.stepper.continue_()
        session.stepper.wait()
        assert session.stepper.state == "paused"
        return session.stepper.current.name
    finally:
        session.close()


def test_the_divergence_condition_is_evaluated_on_the_server_and_stops_where_it_stops_here(remote):
    atol, rtol = 1e-3, 1e-3
    remote.set_reference(Placement("bfloat16"))  # computed on the server, on a thread of its own
    try:
        remote.stepper.add_breakpoint(Breakpoint.on_divergence(atol, rtol))
        assert Breakpoint.on_divergence(atol, rtol) in remote.stepper.breakpoints  # its rtol crossed and came back
        remote.stepper.restart()  # from the first stage with the condition set, as the pass here starts
        remote.stepper.wait()
        remote.stepper.continue_()
        remote.stepper.wait()
        stage = remote.stepper.current.name
        assert remote.stepper.state == "paused" and stage == divergence_stop_here(remote.texts, atol, rtol)
        table = compare_on_server(remote, "placed", atol, rtol, on_screen="b", dtype="bfloat16")  # the held one
        names = [s.name for s in table.stages]
        assert table[stage].diverges  # and no stage between the first and it: the condition stopped at the first
        assert not any(s.diverges for s in table.stages[1:names.index(stage)])
    finally:
        remote.stepper.clear_breakpoints()
        remote.set_reference(None)


def test_a_divergence_condition_the_server_cannot_hold_is_refused(remote):
    with pytest.raises(FrameError, match="must be one of"):
        remote.set_reference(Placement("float8"))
    with pytest.raises(FrameError, match="breakpoint cannot be read"):  # no rtol: not a divergence condition
        remote.request("breakpoint", {"op": "add", "by": "condition", "value": "diverges", "threshold": 1e-3})
    with pytest.raises(FrameError, match="breakpoint cannot be read"):
        remote.request("breakpoint", {"op": "add", "by": "condition", "value": "diverges", "threshold": 1e-3,
                                      "rtol": -1})
    generation = remote.reopen(remote.texts, generate=DecodingSettings(max_new_tokens=2, stop_at_eos=False))
    try:
        with pytest.raises(StepperStateError, match="a generation has none"):
            generation.set_reference(Placement("bfloat16"))
        generation.set_reference(None)  # no reference: nothing to refuse
    finally:
        generation.reopen(generation.texts).close()  # the next test's window finds one pass served
