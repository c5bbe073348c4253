"""The Model View dock, driven as a person does: Ctrl+Shift+M, Continue, a click on a cell."""

from __future__ import annotations

import numpy as np
import pytest
from PySide6.QtCore import Qt

from tests.ui.conftest import SRC, TGT, wait_paused
from tests.ui.user_actions import open_snapshot, pick, press
from tfdebug.adapters.reference import ReferenceAdapter
from tfdebug.sessions.session import DebugSession
from tfdebug.io.recording import Recording
from tfdebug.io.snapshot import save_snapshot


def _open(window, qtbot):
    press(window, Qt.Key_M, Qt.ControlModifier | Qt.ShiftModifier)
    dock = window.docks["model_view"]
    qtbot.waitUntil(dock.isVisible)
    return window.model_view


def _probs(window):
    return [c for c in window.ctl.plan if c.info.kind == "softmax"]


def _click(qtbot, view, name, head):
    rect = view.grid.cell_rect(*view.cell_of(name, head))
    qtbot.mouseClick(view.grid, Qt.LeftButton, pos=rect.center())


def test_every_layer_and_head_is_drawn_as_the_pass_runs_and_a_click_shows_that_stage(window, qtbot):
    view = _open(window, qtbot)
    probs = _probs(window)
    assert view.rows == [c.name for c in probs] and len(probs) >= 4
    assert view.grid.heads == probs[0].shape[1]
    assert not view.thumbs  # paused at the first stage: no attention has run, every cell is empty
    assert "0 of the stages drawn" in view.note.text()

    press(window, Qt.Key_F5)  # Continue to the end
    qtbot.waitUntil(lambda: window.ctl.stepper.state == "finished", timeout=30000)
    qtbot.waitUntil(lambda: len(view.thumbs) == len(probs), timeout=30000)
    assert view.grid.drawn_rows == set(range(len(probs)))
    for capture in probs:  # each cell is that head's probabilities (small planes are not downsampled)
        tensor = window.ctl.stepper.captured(capture.name).tensor
        thumbs = view.thumbs[capture.name]
        assert thumbs.values.shape[0] == tensor.shape[1]
        expected, drawn = tensor[0].float().numpy(), thumbs.values
        masked = np.isneginf(drawn)  # the cells the mask took out are drawn in the masked colour
        np.testing.assert_allclose(drawn[~masked], expected[~masked], rtol=0, atol=1e-6)
        assert (expected[masked] == 0).all()
    assert view.colour_bar.text_range()[0] == 0.0  # one sequential scale from 0 for probabilities

    name, head = probs[-1].name, view.grid.heads - 1
    _click(qtbot, view, name, head)
    wait_paused(qtbot, window, name)
    qtbot.waitUntil(lambda: window.ctl.view.indices_by_name.get("head") == head)
    qtbot.waitUntil(lambda: window.heatmap_panel.slice is not None
                    and window.heatmap_panel.slice.values.shape == tuple(probs[-1].shape[2:]))
    expected = window.ctl.stepper.captured(name).tensor[0, head].float().numpy()
    np.testing.assert_allclose(window.heatmap_panel.slice.values, expected, atol=1e-6)
    assert view.grid.selected == view.cell_of(name, head)

    # Another kind from the box: one row per masked stage, drawn at once (the pass has run them).
    pick(qtbot, view.kinds, view.kinds.itemText(view.kinds.findData("mask")))
    masks = [c.name for c in window.ctl.plan if c.info.kind == "mask"]
    assert view.rows == masks
    qtbot.waitUntil(lambda: set(view.thumbs) == set(masks), timeout=30000)


def test_a_replayed_snapshot_is_drawn_whole(make_window, loaded, qtbot, tmp_path):
    path = tmp_path / "pass.safetensors"
    save_snapshot(Recording.from_session(DebugSession(ReferenceAdapter(loaded), {"src": SRC, "tgt": TGT})), path)
    window = make_window()
    assert open_snapshot(qtbot, window, path)
    wait_paused(qtbot, window)
    view = _open(window, qtbot)
    probs = _probs(window)
    assert view.rows == [c.name for c in probs]
    qtbot.waitUntil(lambda: len(view.thumbs) == len(probs), timeout=30000)
    _click(qtbot, view, probs[0].name, 1)
    wait_paused(qtbot, window, probs[0].name)
    qtbot.waitUntil(lambda: window.ctl.view.indices_by_name.get("head") == 1)
    press(window, Qt.Key_M, Qt.ControlModifier | Qt.ShiftModifier)  # the same shortcut hides it
    qtbot.waitUntil(lambda: not window.docks["model_view"].isVisible())



@pytest.mark.parametrize("size", [(1280, 720), (1600, 1000)])
def test_the_model_view_opens_with_room_for_a_30_layer_model(make_window, qtbot, tmp_path, size):
    """A 30-layer tiny Llama (random weights): the dock opens with a share of the window's height (at the
    bottom where the side columns leave room, else as a tab beside the heatmap), not as a strip of two rows;
    several rows show, each as tall as a line of its label, and the heatmap stays on screen or a tab away."""
    from tests.adapters.hf_tiny import llama, save_folder, word_tokenizer
    from tests.ui.user_actions import run_model
    from tfdebug.ui.panels.model_view import MODEL_VIEW_SHARE

    folder = save_folder(llama(n_layer=30), tmp_path / "tiny-llama-30", word_tokenizer())
    window = make_window()
    window.resize(*size)
    qtbot.waitUntil(lambda: (window.width(), window.height()) == size)
    run_model(qtbot, window, f"hf:{folder}", {"prompt": "the cat sat on the mat"})
    view = _open(window, qtbot)
    dock = window.docks["model_view"]
    assert len(view.rows) == 30
    qtbot.waitUntil(lambda: dock.height() >= 0.9 * MODEL_VIEW_SHARE * window.height())
    line = view.grid.fontMetrics().height()
    first, second = (view.grid.cell_rect(r, 0) for r in (0, 1))
    assert second.top() - first.top() >= line  # a row label fits its row
    shown_rows = view.grid.visibleRegion().boundingRect().height() / (second.top() - first.top())
    assert shown_rows >= 4, shown_rows
    heatmap = window.docks["heatmap"]
    assert heatmap in window.tabifiedDockWidgets(dock) or heatmap.height() >= 0.25 * window.height()
    window.ctl.close()


def test_the_thumbnails_grow_to_fill_the_panel(window, qtbot):
    """Issue 52: at 1600×1000 a small model's Model View drew ~20 px thumbnails in a mostly empty panel; the
    cells now take the panel's room (every row and head still in view) and shrink back with it."""
    from tfdebug.ui.widgets.layer_head_grid import CELL, MAX_CELL

    window.resize(1600, 1000)
    qtbot.waitUntil(lambda: (window.width(), window.height()) == (1600, 1000))
    view = _open(window, qtbot)
    press(window, Qt.Key_F5)
    qtbot.waitUntil(lambda: len(view.thumbs) == len(_probs(window)), timeout=30000)
    grid, room = view.grid, view.scroll.viewport()
    qtbot.waitUntil(lambda: grid.cell > CELL)
    assert grid.cell <= MAX_CELL
    assert grid.width() <= room.width() and grid.height() <= room.height()  # no scrolling
    # Either the width or the height is used up (to a cell): the cells are as large as the panel lets them be.
    spare_w, spare_h = room.width() - grid.width(), room.height() - grid.height()
    assert grid.cell == MAX_CELL or min(spare_w // grid.heads, spare_h // len(view.rows)) < 1 + 1
    # The images are drawn at that size, each head's plane filling its cell.
    rect = grid.cell_rect(0, 0)
    assert rect.width() == grid.cell - 2 and grid.mosaic.shape[0] == len(view.rows) * grid.cell
    assert grid.mosaic[rect.top() - grid._top() + rect.height() - 1, rect.width() - 1, 3] == 255  # painted to its edge
    dock = window.docks["model_view"]
    dock.setFloating(True)
    dock.resize(300, 200)
    qtbot.waitUntil(lambda: grid.cell == CELL)  # a small panel: the least cell, scrolled
