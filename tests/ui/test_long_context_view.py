"""Viewing long context, driven by keys, the wheel and clicks through the real loading path: a 1,500-token
prompt on a 2-layer Llama-style model. Zoomed in, the heatmap shows the stage's real cells (read as a tile
at screen resolution), every token labelled; a clicked row's Query Row plot is that row of the tensor;
the log and per-row colour scales colour by what they say, and are remembered."""

import json

import numpy as np
import pytest
import torch
from PySide6.QtCore import QPoint, QPointF, Qt
from PySide6.QtGui import QWheelEvent
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication

from tests.ui.conftest import wait_paused
from tests.ui.long_context import long_llama
from tests.ui.user_actions import choose_in_menu_button, press, run_to_stage
from tfdebug.core.display import held_values
from tfdebug.ui.render import colors
from tfdebug.ui.render.token_text import shown_token

pytest.importorskip("transformers")

TOKENS = 1500  # over the 1024² the whole-slice image holds: zooming must read tiles
STAGE = "dec.1.self_attn.probs"


@pytest.fixture(scope="module")
def long_model(tmp_path_factory):
    return long_llama(tmp_path_factory.mktemp("long") / "llama", TOKENS)


@pytest.fixture()
def shown(make_window, qtbot, long_model):
    """A window paused at the last layer's probabilities of the long prompt."""
    folder, prompt = long_model
    window = make_window()
    window.resize(1600, 1000)
    window.input_bar.set_values(f"hf:{folder}", "cpu", {"prompt": prompt})
    press(window, Qt.Key_Return, Qt.ControlModifier)  # Run
    wait_paused(qtbot, window, "tok.embed", timeout=120000)
    run_to_stage(window, qtbot, STAGE)
    heatmap = window.heatmap_panel  # a plane over 1024² is cut on the display worker: wait for its image
    qtbot.waitUntil(lambda: window.ctl.shown.current_slice is not None and heatmap.slice is window.ctl.shown.current_slice
                    and heatmap.slice.source_shape == (TOKENS, TOKENS), timeout=60000)
    yield window
    window.ctl.close()


def _view_pos(heatmap, row, col):
    return heatmap.graphics.mapFromScene(heatmap.plot.vb.mapViewToScene(QPointF(col + 0.5, row + 0.5)))


def _width(heatmap):
    (_, _), (c0, c1) = heatmap.zoom.visible()
    return c1 - c0


def _tile_shown(qtbot, heatmap):
    """Wait until the tile of the cells in view is drawn; return it."""
    def ready():
        tile = heatmap.tile
        assert tile is not None and (tile.rows, tile.cols) == heatmap.zoom.visible()
    qtbot.waitUntil(ready, timeout=30000)
    return heatmap.tile


def test_zoomed_in_the_heatmap_shows_the_real_cells_with_every_token_labelled(shown, qtbot):
    window, heatmap = shown, shown.heatmap_panel
    probs = window.ctl.current.tensor
    tokens = window.ctl.session.tokens["prompt"]
    assert heatmap.slice.source_shape == (TOKENS, TOKENS) and heatmap.slice.downsampled
    left, bottom = heatmap.plot.getAxis("left"), heatmap.plot.getAxis("bottom")
    at_fit = len(bottom.shown_ticks())
    assert 1 < at_fit < TOKENS // 10 and heatmap.tile is None  # at Fit: a legible subset, the whole-slice image

    qtbot.mouseClick(heatmap.graphics.viewport(), Qt.LeftButton, pos=_view_pos(heatmap, 900, 10))  # focus
    for _ in range(5):
        QTest.keyClick(heatmap.graphics, Qt.Key_Plus)  # 1,500 → ~47 cells across
    tile = _tile_shown(qtbot, heatmap)
    (r0, r1), (c0, c1) = tile.rows, tile.cols
    assert r1 - r0 <= 64 and c1 - c0 <= 64 and tile.exact
    expected = probs[0, 0, r0:r1, c0:c1].numpy()
    assert np.array_equal(held_values(tile.values, "softmax"), expected)  # the tensor's cells, bit for bit
    assert np.isneginf(tile.values).sum() == np.triu(np.ones((TOKENS, TOKENS), bool), 1)[r0:r1, c0:c1].sum()
    drawn = heatmap.detail.image.image  # the LUT indices on screen: the cells quantised, not a block average
    assert drawn.shape == expected.shape
    assert np.array_equal(drawn, colors.quantize(np.where(np.isfinite(tile.values), tile.values, 0),
                                                 heatmap.shown_levels()))
    readout = heatmap.readout_at(r1 - 1, c0)
    assert colors.format_value(float(probs[0, 0, r1 - 1, c0])) in readout and "block average" not in readout
    assert f"rows {r0}–{r1 - 1} × columns {c0}–{c1 - 1}, every cell" in heatmap.caption.text()

    for _ in range(2):  # closer still: every visible token has its label, on both axes
        if len(left.shown_ticks()) == r1 - r0 and len(bottom.shown_ticks()) == c1 - c0:
            break
        QTest.keyClick(heatmap.graphics, Qt.Key_Plus)
        tile = _tile_shown(qtbot, heatmap)
        (r0, r1), (c0, c1) = tile.rows, tile.cols
    assert left.shown_ticks() == [(r, shown_token(tokens[r])) for r in range(r0, r1)]
    assert bottom.shown_ticks() == [(c, shown_token(tokens[c])) for c in range(c0, c1)]
    labels = {text for _, text in bottom.shown_ticks()}
    assert "⏎" in labels and "<|endoftext|>" in labels and "␣love" in labels  # newlines, specials, spaces seen

    QTest.keyClick(heatmap.graphics, Qt.Key_Right)  # pan right by keys: the next cells are read
    moved = _tile_shown(qtbot, heatmap)
    assert moved.cols[0] > c0 and moved.rows == (r0, r1)
    assert np.array_equal(held_values(moved.values, "softmax"),
                          probs[0, 0, slice(*moved.rows), slice(*moved.cols)].numpy())
    heatmap.graphics.setFocus()
    pos = heatmap.graphics.viewport().rect().center()
    QTest.mouseMove(heatmap.graphics.viewport(), pos)
    before = _width(heatmap)
    event = QWheelEvent(QPointF(pos), QPointF(heatmap.graphics.viewport().mapToGlobal(pos)), QPoint(0, 0),
                        QPoint(0, -240), Qt.NoButton, Qt.NoModifier, Qt.NoScrollPhase, False)
    QApplication.sendEvent(heatmap.graphics.viewport(), event)  # the wheel turned towards the user: zoom out
    qtbot.waitUntil(lambda: _width(heatmap) > before)
    assert _tile_shown(qtbot, heatmap).cols[1] - _tile_shown(qtbot, heatmap).cols[0] == _width(heatmap)

    press(window, Qt.Key_0, Qt.ControlModifier)  # Fit
    qtbot.waitUntil(lambda: heatmap.zoom.is_fit() and heatmap.tile is None, timeout=10000)

    # Another head keeps the zoom and reads its own cells.
    for _ in range(5):
        QTest.keyClick(heatmap.graphics, Qt.Key_Plus)
    head0 = _tile_shown(qtbot, heatmap)
    heatmap.spin_boxes["head"].setValue(3)
    qtbot.waitUntil(lambda: heatmap.tile not in (None, head0), timeout=30000)
    tile = heatmap.tile
    assert (tile.rows, tile.cols) == heatmap.zoom.visible() == (head0.rows, head0.cols)
    assert np.array_equal(held_values(tile.values, "softmax"), probs[0, 3, slice(*tile.rows), slice(*tile.cols)].numpy())


def test_a_clicked_row_is_plotted_over_every_key_with_its_strongest_keys(shown, qtbot):
    window, heatmap = shown, shown.heatmap_panel
    probs = window.ctl.current.tensor
    tokens = window.ctl.session.tokens["prompt"]
    row = heatmap.cell_at(heatmap.graphics.mapToScene(_view_pos(heatmap, 1200, 3)))[0]
    qtbot.mouseClick(heatmap.graphics.viewport(), Qt.LeftButton, pos=_view_pos(heatmap, 1200, 3))
    panel = window.query_row
    qtbot.waitUntil(lambda: window.docks["query_row"].isVisible() and panel.row == row, timeout=30000)
    assert window.ctl.tiles.picked_row == row and heatmap.row_line.isVisible()
    assert np.array_equal(held_values(panel.values, "softmax"), probs[0, 0, row].numpy())  # the tensor's row
    x, y = panel.curve.getData()
    assert len(x) == TOKENS and np.array_equal(y[: row + 1], probs[0, 0, row, : row + 1].numpy())
    assert np.isnan(y[row + 1:]).all()  # masked keys left out of the plot
    top = torch.topk(probs[0, 0, row], 10)
    assert panel.top_keys() == [f"{i} '{shown_token(tokens[i])}' {colors.format_value(float(v))}"
                                for v, i in zip(top.values.tolist(), top.indices.tolist())]
    assert f"row {row} '{shown_token(tokens[row])}' over {TOKENS} columns" in panel.title.text()

    press(window, Qt.Key_F10, Qt.ShiftModifier)  # back to the masked scores: the same query's row there
    wait_paused(qtbot, window)
    masked = window.ctl.current
    qtbot.waitUntil(lambda: panel.values is not None and panel.title.text().startswith(masked.name), timeout=30000)
    held = masked.tensor[0, 0, row].numpy()  # transformers marks masked keys by finfo.min: drawn as −∞
    assert np.array_equal(np.where(held <= np.finfo(np.float32).min / 2, -np.inf, held), panel.values)


def test_log_and_per_row_colour_scales_colour_by_what_they_say_and_are_remembered(shown, qtbot, settings):
    window, heatmap = shown, shown.heatmap_panel
    sl = heatmap.slice
    levels = heatmap.shown_levels()
    top = levels[1]
    choose_in_menu_button(heatmap.scale_button, heatmap.log_action)
    assert heatmap.scale.log and json.loads(settings.value("heatmap/log_scale")) == ["softmax"]  # for its kind
    values = np.where(np.isfinite(sl.values), sl.values, 0).astype(np.float32)
    floor = top * 1e-6
    expected = np.clip((np.log10(np.maximum(values, floor)) - np.log10(floor)) / (np.log10(top) - np.log10(floor))
                       * 255, 0, 255).astype(np.uint8)
    assert np.abs(heatmap.image.image.astype(int) - expected.astype(int)).max() <= 1  # float32 rounding at most
    small = (values >= floor * 10) & (values < top / 256)  # the linear scale's bottom colour, a decade over the log's
    assert small.any() and (heatmap.image.image[small] > 0).all()
    assert f"log scale from {floor:.0e}" in heatmap.caption.text()
    overlay = heatmap.overlay.image  # masked cells keep their own colour under the log scale
    assert (overlay[np.isneginf(sl.values)] == colors.MASK_RGBA).all()

    choose_in_menu_button(heatmap.scale_button, heatmap.per_row_action)
    assert heatmap.scale.per_row and settings.value("heatmap/per_row_scale", type=bool)
    choose_in_menu_button(heatmap.scale_button, heatmap.log_action)  # per-row alone
    finite = np.isfinite(sl.values)
    strongest = np.where(finite, sl.values, -1).argmax(axis=1)
    assert (heatmap.image.image[np.arange(len(strongest)), strongest] == 255).all()  # each row's maximum at the top

    heatmap.graphics.setFocus()
    for _ in range(5):  # zoomed: the tile divides by each row's maximum over every key, not only those in view
        QTest.keyClick(heatmap.graphics, Qt.Key_Plus)
    qtbot.waitUntil(lambda: heatmap.tile is not None and heatmap.tile.row_max is not None, timeout=30000)
    tile = heatmap.tile
    probs = window.ctl.current.tensor[0, 0]
    assert np.array_equal(tile.row_max, probs[slice(*tile.rows)].amax(1).numpy())
    window.close()

    from tfdebug.ui.shell.window import MainWindow
    again = MainWindow(settings=settings)  # the next window opens with the scales last chosen
    qtbot.addWidget(again)
    assert again.heatmap_panel.per_row_action.isChecked() and not again.ctl.log_kinds
    again.close()
