"""A window's session attached to a real `tfdebug serve` process: everything a local pass does, remotely."""

from __future__ import annotations

import numpy as np
import pytest

from tfdebug.adapters.registry import load_adapter
from tfdebug.sessions.session import DebugSession
from tfdebug.core.breakpoints import Breakpoint, BreakpointSet
from tfdebug.core.edits import Edit, Region
from tfdebug.core.recorder import held_bytes
from tfdebug.core.errors import (ExportCancelledError, ExportError, InputError, SequenceTooLongError, StepperStateError,
                                  UnknownStageError)
from tfdebug.io.atomic import leftover_temp_files
from tfdebug.io.snapshot import open_snapshot
from tfdebug.sessions.display import LocalDisplay
from tfdebug.remote.errors import FrameError
from tfdebug.remote.protocol import EXPORT_CHUNK
from tfdebug.remote.session import RemoteSession

PROBS = "dec.0.self_attn.probs"


@pytest.fixture()
def remote(server):
    # As the `window` fixture: a client starved at load 7 (its heartbeat thread waiting for the GIL) is not lost.
    session = RemoteSession.connect(server.address, server.token, timeout_s=6.0)
    session.stepper.restart()
    session.stepper.clear_breakpoints()
    session.stepper.wait()
    yield session
    session.close()


@pytest.fixture(scope="module")
def local():
    session = DebugSession(load_adapter("random"))
    session.stepper.start()
    session.stepper.wait()
    session.stepper.run_to(PROBS)
    session.stepper.wait()
    yield session
    session.close()


def test_the_pass_metadata_comes_once_with_names_shapes_tokens_and_the_servers_device(remote, local):
    assert remote.plan.names() == local.plan.names()
    assert [c.shape for c in remote.plan] == [c.shape for c in local.plan]
    assert remote.plan.find(PROBS).info.formula == local.plan.find(PROBS).info.formula
    assert remote.tokens == local.tokens and remote.title == local.title
    assert remote.device == "cpu" and remote.host == "127.0.0.1" and remote.model_name == "random"
    assert [b.title for b in remote.layout.blocks.values()] == [b.title for b in local.layout.blocks.values()]
    assert [c.title for c in remote.layout.columns] == [c.title for c in local.layout.columns]


def test_step_run_to_and_step_back_move_like_a_local_stepper(remote):
    stepper, events = remote.stepper, []
    stepper.subscribe(events.append)
    assert stepper.state == "paused" and stepper.current.name == remote.plan[0].name
    stepper.step()
    assert stepper.wait() == "paused" and stepper.cursor == 1
    stepper.run_to(PROBS)
    stepper.wait()
    assert stepper.current.name == PROBS and stepper.at_live_point
    assert stepper.current.info.source  # filled when the stage ran, on the server
    stepper.step_back()  # through history: applied by the time the call returns
    assert stepper.current.name == remote.plan[remote.plan.index_of(PROBS) - 1].name
    assert [e.type for e in events][-1] == "moved"
    with pytest.raises(UnknownStageError, match="no stage named 'nowhere'"):
        stepper.run_to("nowhere")


def test_the_shown_slice_heads_and_stats_are_computed_on_the_server_and_equal_local_ones(remote, local):
    remote.stepper.run_to(PROBS)
    remote.stepper.wait()
    here, there = local.stepper.current, remote.stepper.current
    view = (2, 3, {0: 0, 1: 1}, (64, 64))
    local_display = LocalDisplay(local.stepper)
    expected, got = local_display.slice_of(here, *view), remote.display.slice_of(there, *view)
    np.testing.assert_array_equal(got.values, expected.values)
    assert got.stats.neginf == expected.stats.neginf > 0  # the causal mask's cells, found through the mask stage
    assert got.stats.mean == pytest.approx(expected.stats.mean)
    heads = remote.display.heads_of(there, 2, 3, 1, {0: 0}, (8, 8))
    np.testing.assert_array_equal(heads.values, local_display.heads_of(here, 2, 3, 1, {0: 0}, (8, 8)).values)
    assert remote.display.stats_of(there).count == local_display.stats_of(here).count
    partial = remote.display.slice_of(there, *view[:3], (64, 64), moments=False).stats
    assert remote.display.moments_of(there, *view[:3], partial).std == pytest.approx(expected.stats.std)


def test_a_tile_is_read_on_the_server_where_the_tensor_lives(remote, local):
    """A zoomed heatmap's tile and a query's row: only that region is read, on the server; the cells equal the
    local pass's, and a region outside the slice is refused in a sentence."""
    remote.stepper.run_to(PROBS)
    remote.stepper.wait()
    here, there = local.stepper.current, remote.stepper.current
    tensor = here.tensor
    rows, cols = (1, tensor.shape[2]), (0, 2)
    tile = remote.display.tile_of(there, 2, 3, {0: 0, 1: 1}, rows, cols, (64, 64), row_max=True)
    expected = LocalDisplay(local.stepper).tile_of(here, 2, 3, {0: 0, 1: 1}, rows, cols, (64, 64), row_max=True)
    assert tile.exact and (tile.rows, tile.cols, tile.source_shape) == (rows, cols, expected.source_shape)
    np.testing.assert_array_equal(tile.values, expected.values)
    np.testing.assert_array_equal(tile.row_max, expected.row_max)
    finite = np.isfinite(tile.values)
    np.testing.assert_array_equal(tile.values[finite], tensor[0, 1, 1:, 0:2].numpy()[finite])
    with pytest.raises(Exception) as caught:
        remote.display.tile_of(there, 2, 3, {0: 0, 1: 1}, (0, 99), cols, (64, 64))
    assert "outside" in str(caught.value) and "\n" not in str(caught.value)


def test_captures_hold_what_the_servers_captures_hold(remote, local):
    """The window's "captures hold" over a served pass: the bytes the server's captures hold, as a local pass
    of the same model at the same stage holds them."""
    remote.stepper.run_to(PROBS)
    remote.stepper.wait()
    here = local.stepper.history[:local.stepper.position_of(PROBS) + 1]
    assert remote.held_bytes() == held_bytes(here) > 0


def test_a_stages_live_checks_are_made_on_the_server_and_equal_local_ones(remote, local):
    """The Explain dock's checks of the softmax (rows sum to 1, nothing above the diagonal): made where the tensor
    is, the same verdicts and words as the same stage of a local pass of the same model."""
    remote.stepper.run_to(PROBS)
    remote.stepper.wait()
    there = remote.display.checks_of(remote.stepper.current)
    here = LocalDisplay(local.stepper).checks_of(local.stepper.captured(PROBS))
    assert there == here and len(there) >= 2
    # Each claim comes back as the phrase it is (its id and values), so the window translates it as a local one.
    assert [(c.text.id, c.text.params) for c in there] == [(c.text.id, c.text.params) for c in here]
    assert [getattr(c.detail, "id", None) for c in there] == [getattr(c.detail, "id", None) for c in here]
    assert all(c.ok for c in there)  # a softmax's rows sum to 1 and the causal mask holds


def test_a_followed_view_brings_each_stages_slice_with_its_event(remote, local):
    remote.display.follow(None, {"head": 1}, (64, 64))
    try:
        remote.stepper.run_to(PROBS)
        remote.stepper.wait()
        asked = remote.client.requests
        got = remote.display.slice_of(remote.stepper.current, 2, 3, {0: 0, 1: 1}, (64, 64))
        assert remote.client.requests == asked  # it came with the pause: no round trip
        expected = LocalDisplay(local.stepper).slice_of(local.stepper.current, 2, 3, {0: 0, 1: 1}, (64, 64))
        np.testing.assert_array_equal(got.values, expected.values)
        other = remote.display.slice_of(remote.stepper.current, 2, 3, {0: 0, 1: 2}, (64, 64))  # another head
        assert remote.client.requests == asked + 1 and not np.array_equal(other.values, got.values)
        assert remote.display._pushed_stats is None  # whole-tensor stats were not asked to come along
    finally:
        remote.display.unfollow()


def test_whole_tensor_stats_come_with_the_pause_for_stages_the_window_summarises(remote, local):
    remote.display.follow(None, {}, (64, 64), stats_up_to=2**20)
    try:
        remote.stepper.run_to(PROBS)
        remote.stepper.wait()
        asked = remote.client.requests
        stats = remote.display.stats_of(remote.stepper.current)
        assert remote.client.requests == asked  # no round trip
        expected = LocalDisplay(local.stepper).stats_of(local.stepper.current)
        assert (stats.min, stats.max, stats.count, stats.neginf) == (expected.min, expected.max, expected.count,
                                                                     expected.neginf)
        np.testing.assert_array_equal(stats.hist_counts, expected.hist_counts)
        remote.display.follow(None, {}, (64, 64), stats_up_to=16)  # smaller than any stage: stats are asked for
        remote.stepper.step()
        remote.stepper.wait()
        asked = remote.client.requests
        remote.display.stats_of(remote.stepper.current)
        assert remote.client.requests == asked + 1
    finally:
        remote.display.unfollow()


def test_a_nan_breakpoint_on_the_server_stops_after_an_edited_cell(remote):
    stepper = remote.stepper
    stepper.run_to(PROBS)
    stepper.wait()
    stepper.add_breakpoint(Breakpoint.on_nan())
    assert stepper.breakpoints == {Breakpoint.on_nan()}
    said = stepper.edit(Edit("set", "cell", float("nan"), row=0, col=0), Region(2, 3, {0: 0, 1: 0}))
    assert said == "cell (0, 0) set to nan"
    assert stepper.current.edited and stepper.edits_to_undo == 1
    stepper.continue_()
    assert stepper.wait() == "paused"
    assert stepper.history[stepper.cursor - 1].name == PROBS  # the next stage holds the NaN
    sl = remote.display.slice_of(stepper.current, 2, 3, {0: 0, 1: 0}, (16, 16))
    assert sl.stats.nan > 0


def test_the_windows_set_is_the_one_the_server_checks(remote):
    shared = BreakpointSet()
    lacking = Breakpoint.on_stage("enc.9.attn.q")  # a stage the served model lacks: refused there, kept here
    shared.add(lacking)
    shared.add(Breakpoint.on_kind("mask"))
    stepper = remote.stepper
    stepper.use_breakpoints(shared)  # what attaching does: the server is given the whole set
    assert stepper.breakpoints == {lacking, Breakpoint.on_kind("mask")}
    stepper.continue_()
    assert stepper.wait() == "paused" and stepper.current.info.kind == "mask"
    stepper.remove_breakpoint(Breakpoint.on_kind("mask"))
    assert shared.items == {lacking}
    stepper.continue_()
    assert stepper.wait() == "finished"


def test_a_replaced_tensor_of_the_wrong_shape_is_refused_and_nothing_changes(remote):
    import torch

    stepper = remote.stepper
    with pytest.raises(Exception, match="needs"):
        stepper.replace(torch.zeros(2, 2))
    shape = stepper.current.shape
    stepper.replace(torch.zeros(shape))
    assert stepper.current.edited
    stepper.undo_replace()
    assert not stepper.current.edited


def test_export_streams_a_valid_snapshot_to_this_machine(remote, tmp_path):
    stepper = remote.stepper
    stepper.continue_()
    assert stepper.wait() == "finished"
    seen = []
    note = remote.export(tmp_path / "pass.safetensors", progress=lambda done, total: seen.append((done, total)))
    assert note == "" and seen and seen[-1][0] == seen[-1][1]
    with open_snapshot(tmp_path / "pass.safetensors") as recording:
        assert recording.names() == remote.plan.names()
    assert not leftover_temp_files(tmp_path)
    assert len(seen) == -(-seen[-1][1] // EXPORT_CHUNK)  # one receipt per chunk: the server waited for them


def test_a_served_source_answers_what_the_window_no_longer_asks_by_kind(remote):
    """Export's stage list, whether a stage can be read, and whether a reference would show nothing, answered for a
    served pass: what the server kept, and its dtype with eager attention (it places the reference itself)."""
    from dataclasses import replace

    from tfdebug.sessions.crosscheck import Placement

    stepper = remote.stepper
    stepper.continue_()
    assert stepper.wait() == "finished"
    assert remote.exportable() == [c.name for c in stepper.history] == remote.plan.names()
    first = stepper.history[0]
    assert remote.display.holds(first) and not remote.display.holds(replace(first, dropped=True))
    other = "float16" if remote.dtype != "float16" else "float32"
    assert remote.runs_as(Placement(remote.dtype, "cuda:7")) and not remote.runs_as(Placement(other))
    assert not remote.runs_as(Placement(remote.dtype, attention="sdpa"))


def test_a_cancelled_export_stops_the_server_and_leaves_no_file(remote, tmp_path):
    remote.stepper.continue_()
    remote.stepper.wait()
    with pytest.raises(ExportCancelledError):
        remote.export(tmp_path / "pass.safetensors", progress=lambda done, total: False)
    assert not (tmp_path / "pass.safetensors").exists() and not leftover_temp_files(tmp_path)
    remote.stepper.restart()  # the server still serves this window, and exports again
    remote.stepper.wait()
    remote.export(tmp_path / "again.npz")  # another format: written here from the streamed snapshot
    with np.load(tmp_path / "again.npz", allow_pickle=False) as data:
        assert remote.plan[0].name in data.files


def test_export_on_the_server_writes_only_into_its_export_folder(remote, server):
    remote.stepper.step()
    remote.stepper.wait()
    result = remote.export_on_server("there.safetensors")
    assert (server.export_dir / "there.safetensors").stat().st_size == result["bytes"]
    assert "2 of" in result["note"]
    for name in ("../escape.safetensors", "/tmp/abs.safetensors", "x.txt"):
        with pytest.raises(ExportError, match="export folder"):
            remote.export_on_server(name)


def test_new_inputs_start_a_new_pass_on_the_server(remote):
    first = remote.texts
    remote.stepper.run_to(PROBS)
    remote.stepper.wait()
    refused = [({"src": "", "tgt": "你"}, InputError), ({"src": "you", "tgt": "你", "extra": "x"}, FrameError),   # not a field of the model
               ({"src": "x" * 20001, "tgt": "你"}, FrameError),           # longer than a frame may carry
               ({f"k{i}": "x" for i in range(17)}, FrameError)]           # more fields than a frame may carry
    for texts, error in refused:
        with pytest.raises(error):
            remote.reopen(texts)
        assert not remote.handed_over and remote.stepper.current.name == PROBS  # the pass is where it was
    # Texts the tokenizer takes but the model refuses when planning the pass: the server runs the old ones again.
    again = remote.reopen({"src": "you " * 5000, "tgt": "你"})
    assert isinstance(again.open_error, SequenceTooLongError) and again.texts == first
    assert again.stepper.current.name == again.plan[0].name
    new = again.reopen({"src": "you love me", "tgt": "你"})
    try:
        assert again.handed_over and new.client is remote.client and new.open_error is None
        assert new.texts["src"] == "you love me" and new.stepper.cursor == 0
        assert new.tokens["tgt"] == ["<bos>", "你"] and new.plan[0].name == new.stepper.current.name
        with pytest.raises(StepperStateError, match="Already at the first stage"):
            new.stepper.step_back()
        new.stepper.run_to(PROBS)
        new.stepper.wait()
        assert new.stepper.current.shape[-1] == len(new.tokens["tgt"])  # the new pass's own shapes
        assert [f[0] for f in new.input_fields] == ["src", "tgt"]
    finally:
        new.reopen(first).close()  # the server's other tests run on its first inputs


def test_a_servers_error_comes_back_with_its_id_template_and_values_as_the_same_local_error(remote, local):
    with pytest.raises(UnknownStageError) as there:
        remote.stepper.run_to("dec.0.self_attn.prob")
    with pytest.raises(UnknownStageError) as here:
        local.stepper.run_to("dec.0.self_attn.prob")
    assert (there.value.id, there.value.template, there.value.message) == (
        here.value.id, here.value.template, here.value.message)
    assert {k: getattr(v, "items", v) for k, v in there.value.params.items()} == {
        k: getattr(v, "items", v) for k, v in here.value.params.items()}
    assert type(there.value.params["close"]) is type(here.value.params["close"])  # a list of choices stays one
