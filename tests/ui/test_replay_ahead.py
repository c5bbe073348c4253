"""Stepping through a replayed snapshot shows each stage's own numbers, though the display worker
reads and slices the neighbouring stages ahead (tfdebug.sessions.display_cache); a jump (a click in the
Stages tree) to a stage not read yet is read there too, never on the GUI thread.

The expected values are read from the file by safetensors' own reader, not by tfdebug's."""

import threading
import time

import numpy as np
import pytest
import torch
from PySide6.QtCore import Qt
from safetensors import safe_open

from tests.ui.conftest import SRC, TGT, wait_paused
from tests.ui.user_actions import click_stage, open_snapshot, press, run_to_stage
from tfdebug.adapters.reference import ReferenceAdapter
from tfdebug.sessions.session import DebugSession
from tfdebug.io.recording import Recording
from tfdebug.io import snapshot as snapshot_io
from tfdebug.io.snapshot import save_snapshot

HEADED = "enc.0.attn.scores"  # (batch, head, query, key): the head picked applies to the next stages too


@pytest.fixture()
def snapshot(loaded, tmp_path):
    path = tmp_path / "pass.safetensors"
    save_snapshot(Recording.from_session(DebugSession(ReferenceAdapter(loaded), {"src": SRC, "tgt": TGT})), path)
    return path


def idle(qtbot, window):
    """Wait, as a person looking at the stage does, until the worker has done everything, ahead included."""
    qtbot.waitUntil(lambda: not window.ctl.display.busy() and not window.ctl.shown.reading_ahead())


def shown_plane(window, path) -> np.ndarray:
    """The plane the window's view selects, cut from the tensor safetensors reads from the file."""
    ctl = window.ctl
    capture = ctl.current
    with safe_open(str(path), framework="pt") as f:
        tensor = f.get_tensor(capture.name).float()
    index = [slice(None)] * tensor.dim()
    for axis, i in ctl.axes.indices().items():
        index[axis] = i
    plane = tensor[tuple(index)]
    return (plane if ctl.view.row_axis < ctl.view.col_axis else plane.t()).numpy()


def assert_shows_the_file(window, path):
    sl = window.heatmap_panel.slice
    assert sl is not None and not sl.downsampled
    plane = shown_plane(window, path)
    finite = np.isfinite(sl.values)  # masked cells are drawn −∞ (a softmax holds 0 there)
    np.testing.assert_allclose(sl.values[finite], plane[finite], rtol=1e-6, atol=1e-6)
    assert sl.stats.max == pytest.approx(float(plane[finite].max()), rel=1e-6)


def test_stepping_forward_and_back_shows_each_stage_read_from_the_file(make_window, snapshot, qtbot):
    window = make_window()
    assert open_snapshot(qtbot, window, snapshot)
    wait_paused(qtbot, window, "src.embed")
    names = window.ctl.replayed.names()
    assert all(c.tensor is None for c in window.ctl.replayed.captures[2:])  # only the neighbour is read ahead
    run_to_stage(window, qtbot, HEADED)
    start = names.index(HEADED)
    for offset in list(range(1, 7)) + list(range(5, -1, -1)):  # on through the block, then back
        idle(qtbot, window)
        press(window, Qt.Key_F10, Qt.ShiftModifier if offset < window.ctl.stepper.cursor - start else Qt.NoModifier)
        wait_paused(qtbot, window, names[start + offset])
        assert_shows_the_file(window, snapshot)
        qtbot.waitUntil(lambda: window.ctl.shown.current_stats is not None)
        with safe_open(str(snapshot), framework="pt") as f:
            tensor = f.get_tensor(names[start + offset]).float()
        finite = tensor[torch.isfinite(tensor)]
        assert window.ctl.shown.current_stats.max == pytest.approx(float(finite.max()), rel=1e-6)


def test_a_head_picked_after_the_next_stage_was_read_ahead_is_the_one_shown(make_window, snapshot, qtbot):
    window = make_window()
    assert open_snapshot(qtbot, window, snapshot)
    run_to_stage(window, qtbot, HEADED)
    idle(qtbot, window)  # the next stage is prepared for head 0
    spin = window.heatmap_panel.spin_boxes["head"]
    spin.setFocus()
    qtbot.keyClick(spin, Qt.Key_Up)  # head 1, as a person picks it
    qtbot.waitUntil(lambda: window.ctl.axes.indices()[1] == 1)
    press(window, Qt.Key_F10)
    names = window.ctl.replayed.names()
    wait_paused(qtbot, window, names[names.index(HEADED) + 1])
    assert window.ctl.axes.indices()[1] == 1
    assert_shows_the_file(window, snapshot)


@pytest.fixture()
def reads(monkeypatch):
    """Every stage the snapshot reader reads, with whether the GUI thread read it."""
    seen: list[tuple[str, bool]] = []
    load = snapshot_io._Reader.load

    def noted(reader, capture, **how):
        seen.append((capture.name, threading.current_thread() is threading.main_thread()))
        return load(reader, capture, **how)
    monkeypatch.setattr(snapshot_io._Reader, "load", noted)
    return seen


def test_a_click_in_the_stages_tree_reads_the_stage_off_the_gui_thread(make_window, snapshot, reads, qtbot):
    window = make_window()
    assert open_snapshot(qtbot, window, snapshot)
    wait_paused(qtbot, window, "src.embed")
    idle(qtbot, window)
    far = "dec.0.cross_attn.probs"  # (batch, head, query, key), far from the stages read ahead
    assert window.ctl.replayed[far].tensor is None
    click_stage(window, qtbot, far)
    wait_paused(qtbot, window, far)
    assert (far, False) in reads
    assert_shows_the_file(window, snapshot)
    qtbot.waitUntil(lambda: window.ctl.shown.current_stats is not None)
    with safe_open(str(snapshot), framework="pt") as f:
        tensor = f.get_tensor(far).float()
    assert window.ctl.shown.current_stats.max == pytest.approx(float(tensor.max()), rel=1e-6)
    idle(qtbot, window)
    assert not [name for name, on_gui in reads if on_gui]  # no stage was read on the GUI thread


def test_of_two_quick_clicks_the_last_stage_clicked_is_the_one_shown(make_window, snapshot, reads, qtbot):
    window = make_window()
    assert open_snapshot(qtbot, window, snapshot)
    wait_paused(qtbot, window, "src.embed")
    first, last = "enc.1.attn.scores", "dec.1.self_attn.masked"
    click_stage(window, qtbot, first)
    click_stage(window, qtbot, last)  # before or after the first has shown: the second click wins
    wait_paused(qtbot, window, last)
    idle(qtbot, window)
    assert window.ctl.current.name == last and window.navigator.current_item() is window.navigator.items[last]
    assert_shows_the_file(window, snapshot)
    assert not [name for name, on_gui in reads if on_gui]


def test_a_step_onto_a_prepared_stage_draws_every_panel_in_its_turn(make_window, snapshot, qtbot):
    """Stats, every head's thumbnail and the Explain dock's checks of the next stage were worked out ahead:
    the F10 that lands there leaves the worker nothing to do, and what they show is the file's stage."""
    from tfdebug.core.checks import stage_checks
    from tfdebug.core.thumbnails import head_thumbnails

    window = make_window()
    window.docks["heads"].show()
    window.docks["explain"].show()
    assert open_snapshot(qtbot, window, snapshot)
    wait_paused(qtbot, window, "src.embed")
    run_to_stage(window, qtbot, HEADED)
    idle(qtbot, window)
    submitted = []
    submit = window.ctl.display.submit
    window.ctl.display.submit = lambda kind, *args: (submitted.append(kind), submit(kind, *args))
    press(window, Qt.Key_F10)
    target = window.ctl.replayed.names()[window.ctl.replayed.names().index(HEADED) + 1]
    wait_paused(qtbot, window, target)
    qtbot.waitUntil(lambda: window.heads_panel.settled())
    assert [k for k in submitted if k != "ahead"] == []  # nothing of the shown stage went to the worker
    with safe_open(str(snapshot), framework="pt") as f:
        tensor = f.get_tensor(target).float()
    ctl = window.ctl
    assert ctl.shown.current_stats.max == pytest.approx(float(tensor[torch.isfinite(tensor)].max()), rel=1e-6)
    axis = window.heads_panel.head_axis()
    thumbs = head_thumbnails(tensor, ctl.view.row_axis, ctl.view.col_axis, axis, ctl.axes.indices(), (48, 48),
                             kind=ctl.current.info.kind, mask=ctl.shown.mask_of(ctl.current))
    assert len(window.heads_panel.images) == tensor.shape[axis]
    for mine, theirs in zip(window.heads_panel.images, thumbs.values):
        assert mine.image.shape[:2] == theirs.shape
    explain = window.explain_panel if hasattr(window, "explain_panel") else window.docks["explain"].widget()
    expected = stage_checks(ctl.current.info, tensor, lambda name: next(
        (c for c in ctl.stepper.history if c.name == name), None))
    assert explain.checks and [(str(c.text), c.ok) for c in explain.checks] == [(str(c.text), c.ok) for c in expected]


def test_f10_onto_a_large_stage_not_read_yet_reads_it_off_the_gui_thread(make_window, snapshot, reads, qtbot):
    """A large stage (an 8k-token plane) is not read ahead; F10 and Shift+F10 onto one read it on the display
    worker, as a jump does, so the keys answer while gigabytes are read (issue 54)."""
    window = make_window()
    window.ctl.shown.large_stage_bytes = 1  # every stage is large: none is read ahead
    assert open_snapshot(qtbot, window, snapshot)
    wait_paused(qtbot, window, "src.embed")
    idle(qtbot, window)
    start = len(reads)
    for key in [Qt.NoModifier] * 4 + [Qt.ShiftModifier] * 2:
        before = window.ctl.stepper.cursor
        press(window, Qt.Key_F10, key)
        qtbot.waitUntil(lambda: window.ctl.stepper.cursor == before + (1 if key == Qt.NoModifier else -1))
        wait_paused(qtbot, window)
        qtbot.waitUntil(lambda: window.heatmap_panel.slice is not None)
        idle(qtbot, window)
    names = window.ctl.replayed.names()
    assert [name for name, _ in reads[start:]] == names[1:5]  # each stage F10 went to was read, once
    assert not [name for name, on_gui in reads if on_gui]  # and none on the GUI thread
    assert window.ctl.current.name == names[2]


def test_f10_onto_a_large_plane_paints_the_head_read_alone_before_the_stage_is_read(make_window, snapshot, qtbot,
                                                                                    monkeypatch):
    """An 8k-token plane's first picture comes from the one (batch, head) plane shown, read alone on the display
    worker: the heatmap paints the file's plane before the whole stage is read, which the worker reads next
    (issue 54). Nothing is read on the GUI thread."""
    events: list[tuple] = []  # ("part" | "whole", stage, on the GUI thread) and ("painted", stage, the stage read)
    load, part = snapshot_io._Reader.load, snapshot_io._Reader.part

    def noted(what, read):
        def reading(reader, capture, *args, **how):
            events.append((what, capture.name, threading.current_thread() is threading.main_thread()))
            return read(reader, capture, *args, **how)
        return reading
    monkeypatch.setattr(snapshot_io._Reader, "load", noted("whole", load))
    monkeypatch.setattr(snapshot_io._Reader, "part", noted("part", part))
    window = make_window()
    window.ctl.shown.large_stage_bytes = 1  # every stage is large: none is read ahead
    assert open_snapshot(qtbot, window, snapshot)
    wait_paused(qtbot, window, "src.embed")
    run_to_stage(window, qtbot, HEADED)
    idle(qtbot, window)
    spin = window.heatmap_panel.spin_boxes["head"]
    spin.setFocus()
    qtbot.keyClick(spin, Qt.Key_Up)  # head 1
    qtbot.waitUntil(lambda: window.ctl.axes.indices()[1] == 1)
    idle(qtbot, window)
    names = window.ctl.replayed.names()
    target = names[names.index(HEADED) + 1]
    assert window.ctl.replayed[target].tensor is None
    first: list[np.ndarray] = []

    def painted(sl):
        current = window.ctl.current
        if sl is not None and current is not None and current.name == target:
            events.append(("painted", target, current.tensor is not None))
            if not first:
                first.append(sl.values.copy())
    window.ctl.shown.model.slice_changed.connect(painted)
    start = len(events)
    press(window, Qt.Key_F10)
    wait_paused(qtbot, window, target)
    qtbot.waitUntil(lambda: window.heatmap_panel.slice is not None)
    idle(qtbot, window)
    window.ctl.shown.model.slice_changed.disconnect(painted)
    assert events[start:start + 3] == [("part", target, False), ("painted", target, False), ("whole", target, False)]
    assert window.ctl.current.tensor is not None  # read whole after the picture, on the worker
    assert window.ctl.axes.indices()[1] == 1
    with safe_open(str(snapshot), framework="pt") as f:
        plane = f.get_tensor(target)[0, 1].float().numpy()
    finite = np.isfinite(first[0])
    np.testing.assert_array_equal(first[0][finite], plane[finite])
    assert_shows_the_file(window, snapshot)
    stats = window.ctl.shown.current_slice.stats  # its mean and std came after the picture
    assert not stats.partial and stats.mean == pytest.approx(float(plane.mean()), rel=1e-5, abs=1e-6)
    assert not [e for e in events if e[0] != "painted" and e[2]]  # nothing read on the GUI thread


def test_a_large_softmax_drawn_from_its_plane_shows_the_cells_its_mask_hid(make_window, snapshot, reads, qtbot,
                                                                           monkeypatch):
    """A softmax's masked cells (zeros the mask stage marks) are drawn masked in a picture cut from one plane too;
    the mask stage is read on the worker, not on the GUI thread."""
    parts: list[str] = []
    part = snapshot_io._Reader.part
    monkeypatch.setattr(snapshot_io._Reader, "part",
                        lambda reader, capture, leading: (parts.append(capture.name), part(reader, capture, leading))[1])
    window = make_window()
    window.ctl.shown.large_stage_bytes = 1
    assert open_snapshot(qtbot, window, snapshot)
    wait_paused(qtbot, window, "src.embed")
    idle(qtbot, window)
    target = "dec.0.self_attn.probs"  # reads dec.0.self_attn.masked, a causal mask
    click_stage(window, qtbot, target)
    wait_paused(qtbot, window, target)
    qtbot.waitUntil(lambda: window.heatmap_panel.slice is not None)
    idle(qtbot, window)
    assert_shows_the_file(window, snapshot)
    with safe_open(str(snapshot), framework="pt") as f:
        mask = f.get_tensor("dec.0.self_attn.masked")[0, 0]
    hidden = int((mask <= torch.finfo(mask.dtype).min / 2).sum())
    assert hidden and int(np.isneginf(window.heatmap_panel.slice.values).sum()) == hidden
    assert parts[-1] == target  # drawn from its plane
    assert not [name for name, on_gui in reads if on_gui]


def test_a_step_on_stops_the_whole_read_of_the_large_stage_left(make_window, snapshot, qtbot, monkeypatch):
    """F10 again while the stage just drawn from its plane is still being read whole: that read stops, the next
    stage's picture does not wait for it, and nothing is said (the stage is read again when shown again)."""
    load = snapshot_io._Reader.load
    held: dict[str, str] = {}  # the stage whose whole read lasts until it is no longer wanted
    stopped: list[bool] = []

    def holding(reader, capture, stop=None):
        if stop is not None and capture.name == held.get("name"):
            deadline = time.monotonic() + 10
            while not stop() and time.monotonic() < deadline:
                time.sleep(0.005)
            stopped.append(stop())
        return load(reader, capture, stop=stop)
    monkeypatch.setattr(snapshot_io._Reader, "load", holding)
    window = make_window()
    window.ctl.shown.large_stage_bytes = 1
    said: list = []
    monkeypatch.setattr(window.ctl, "fail", said.append)
    assert open_snapshot(qtbot, window, snapshot)
    wait_paused(qtbot, window, "src.embed")
    run_to_stage(window, qtbot, HEADED)
    idle(qtbot, window)
    names = window.ctl.replayed.names()
    first, second = names[names.index(HEADED) + 1], names[names.index(HEADED) + 2]
    held["name"] = first
    press(window, Qt.Key_F10)
    wait_paused(qtbot, window, first)
    qtbot.waitUntil(lambda: window.heatmap_panel.slice is not None and window.ctl.current.name == first)
    press(window, Qt.Key_F10)
    wait_paused(qtbot, window, second)
    qtbot.waitUntil(lambda: window.heatmap_panel.slice is not None and window.ctl.current.name == second)
    idle(qtbot, window)
    assert stopped == [True] and window.ctl.replayed[first].tensor is None
    assert_shows_the_file(window, snapshot)
    assert said == []


def test_the_neighbours_are_read_ahead_only_once_the_step_has_painted(make_window, snapshot, qtbot):
    """An F10 paints the heatmap, then the other panels (the Shape dock's text among them); only then does the display
    worker start reading, cutting and summarising the next neighbours: beside the step's own turn and paint they took
    the cores and the interpreter's lock from the GUI thread (issue 54, "the window in two frames")."""
    from PySide6.QtCore import QEvent

    from tests.ui.conftest import EventCount

    window = make_window()
    assert open_snapshot(qtbot, window, snapshot)
    wait_paused(qtbot, window, "src.embed")
    run_to_stage(window, qtbot, HEADED)
    idle(qtbot, window)
    shape = window.shape_panel.text.viewport()
    assert shape.isVisible()
    paints = EventCount(shape, QEvent.Type.Paint)
    at_submit = []
    submit = window.ctl.display.submit
    window.ctl.display.submit = lambda kind, *args: (at_submit.append((kind, paints.count)), submit(kind, *args))
    target = window.ctl.replayed.names()[window.ctl.replayed.names().index(HEADED) + 1]
    press(window, Qt.Key_F10)
    wait_paused(qtbot, window, target)
    qtbot.waitUntil(lambda: any(kind == "ahead" for kind, _ in at_submit))
    assert "Shape" in window.shape_panel.plain_text() and target in window.shape_panel.plain_text()
    assert [painted for kind, painted in at_submit if kind == "ahead"][0] >= 1  # the stage's text painted first
