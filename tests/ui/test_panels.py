"""Panels: heatmap slicing, hover readout, mask colour, heads, shape transition, stats, values, navigator."""

import numpy as np
import pytest
from PySide6.QtCore import QPointF, Qt

from tests.ui.conftest import wait_paused
from tfdebug.ui.render import colors
from tfdebug.ui.render.stage_text import transition


def goto(window, qtbot, name):
    window.ctl.steps.run_to(name)
    wait_paused(qtbot, window, name)


def test_changing_the_head_index_changes_the_image(window, qtbot):
    goto(window, qtbot, "enc.0.attn.scaled")
    heatmap = window.heatmap_panel
    assert set(heatmap.spin_boxes) == {"batch", "head"}
    before = heatmap.image.image.copy()
    heatmap.spin_boxes["head"].setValue(2)
    assert window.ctl.axes.indices()[1] == 2
    assert not np.array_equal(before, heatmap.image.image)
    # The head stays picked at the next attention stage.
    goto(window, qtbot, "enc.0.attn.probs")
    assert heatmap.spin_boxes["head"].value() == 2


def test_choosing_axes_and_the_batch_index(window, qtbot):
    goto(window, qtbot, "enc.0.attn.q_split")
    heatmap = window.heatmap_panel
    heatmap.row_combo.setCurrentIndex(1)  # head
    heatmap.col_combo.setCurrentIndex(3)  # head_dim
    heatmap._axes_chosen()
    sl = window.current_slice()
    assert (sl.row_axis, sl.col_axis) == (1, 3)
    assert set(heatmap.spin_boxes) == {"batch", "query"}
    before = heatmap.image.image.copy()
    heatmap.spin_boxes["query"].setValue(1)
    assert not np.array_equal(before, heatmap.image.image)
    assert heatmap.spin_boxes["batch"].maximum() == 0  # one sentence: batch index 0 only


def test_token_tick_labels_and_hover_readout(window, qtbot):
    goto(window, qtbot, "dec.0.self_attn.masked")
    heatmap = window.heatmap_panel
    ticks = heatmap.plot.getAxis("bottom").shown_ticks()
    assert [label for _, label in ticks] == ["<bos>", "我", "爱", "你"]
    vb = heatmap.plot.vb
    scene_pos = vb.mapViewToScene(QPointF(2.5, 0.5))  # row 0 (<bos>), column 2 (爱): masked
    view_pos = heatmap.graphics.mapFromScene(scene_pos)
    qtbot.mouseMove(heatmap.graphics.viewport(), view_pos)
    qtbot.waitUntil(lambda: "爱" in heatmap.readout.text())
    text = heatmap.readout.text()
    assert "query 0 '<bos>'" in text and "key 2 '爱'" in text and "−∞ (masked)" in text
    assert "value 0." in heatmap.readout_at(3, 0)


def _pixel(heatmap, row, col):
    image = heatmap.graphics.grab().toImage()
    pos = heatmap.graphics.mapFromScene(heatmap.plot.vb.mapViewToScene(QPointF(col + 0.5, row + 0.5)))
    return image.pixelColor(pos * image.devicePixelRatio())


def test_masked_cells_get_the_mask_colour_not_the_scale_minimum(window, qtbot):
    goto(window, qtbot, "dec.0.self_attn.masked")
    heatmap = window.heatmap_panel
    heatmap.graphics.resize(600, 600)
    masked = _pixel(heatmap, 0, 3)
    assert (masked.red(), masked.green(), masked.blue()) == colors.MASK_RGBA[:3]
    low = heatmap.lookup_table()[0]
    visible = _pixel(heatmap, 3, 0)
    assert (visible.red(), visible.green(), visible.blue()) != colors.MASK_RGBA[:3]
    assert tuple(low[:3]) != colors.MASK_RGBA[:3]
    assert heatmap.overlay.isVisible()
    # At the softmax the masked cells are exact zeros: the mask stage it read says which
    # are masked, and they are drawn in the mask colour too, not as the scale's minimum.
    goto(window, qtbot, "dec.0.self_attn.probs")
    qtbot.waitUntil(lambda: heatmap.overlay.isVisible())
    masked = _pixel(heatmap, 0, 3)
    assert (masked.red(), masked.green(), masked.blue()) == colors.MASK_RGBA[:3]
    visible = _pixel(heatmap, 3, 0)
    assert (visible.red(), visible.green(), visible.blue()) != colors.MASK_RGBA[:3]
    assert "6 masked cells" in heatmap.caption.text()  # 4×4 causal: 3+2+1 above the diagonal
    # Hovering a masked probability reads what the tensor holds there: 0, marked as masked.
    assert heatmap.readout_at(0, 3).endswith("value 0 (masked)")
    assert "(masked)" not in heatmap.readout_at(3, 0)
    # The Stats panel's slice column counts what the softmax holds: zeros, no −∞.
    stats = window.stats_panel
    qtbot.waitUntil(lambda: stats.text("min", 2) == "0")
    assert stats.text("−Inf", 2) == "0" and stats.text("count", 2) == "16"


def test_image_is_lut_indices_drawn_without_conversion_and_levels_requantise(window, qtbot):
    goto(window, qtbot, "enc.0.attn.scaled")
    heatmap = window.heatmap_panel
    image = heatmap.image
    assert image.axisOrder == "row-major"
    # uint8 LUT indices with a 256-entry LUT: pyqtgraph makes an indexed QImage, no per-pixel work.
    assert image.image.dtype == np.uint8 and image.image.flags["C_CONTIGUOUS"]
    assert len(heatmap.lookup_table()) == 256 and tuple(image.getLevels()) == (0, 255)
    lo, hi = heatmap.shown_levels()
    assert lo == -hi and tuple(heatmap.histogram.getLevels()) == pytest.approx((lo, hi))  # diverging, centred on 0
    values = heatmap.slice.values
    assert image.image[np.unravel_index(values.argmax(), values.shape)] == 255
    before = image.image.copy()
    heatmap.histogram.setLevels(lo / 2, hi / 2)  # the user narrows the colour bar's levels
    assert heatmap.shown_levels() == pytest.approx((lo / 2, hi / 2))
    assert (image.image >= before).sum() > 0 and not np.array_equal(before, image.image)
    goto(window, qtbot, "enc.0.attn.probs")
    assert heatmap.shown_levels()[0] == 0  # probabilities: sequential from 0


def test_heads_panel_click_shows_that_head(window, qtbot):
    window.docks["heads"].show()
    goto(window, qtbot, "enc.1.attn.probs")
    heads = window.heads_panel
    qtbot.waitUntil(lambda: len(heads.images) == 4)  # thumbnails are drawn off the GUI thread
    view = heads.views[3]
    pos = heads.graphics.mapFromScene(view.sceneBoundingRect().center())
    qtbot.mouseClick(heads.graphics.viewport(), Qt.LeftButton, pos=pos)
    qtbot.waitUntil(lambda: window.heatmap_panel.spin_boxes["head"].value() == 3)
    goto(window, qtbot, "enc.1.attn.resid")
    assert "no head axis" in heads.note.text()


def test_shape_panel_shows_named_axes_and_the_head_split_transition(window, qtbot):
    goto(window, qtbot, "enc.0.attn.k_split")
    text = window.shape_panel.plain_text()
    assert "batch=1, head=4, key=3, head_dim=16" in text
    assert "(1,3,64) —view→ (1,3,4,16) —transpose→ (1,4,3,16)" in text
    assert "enc.0.attn.k\n" in text or "enc.0.attn.k" in text.split("From")[1]
    assert "attention.py:" in text and "float32" in text and "768 B" in text
    assert transition((1, 4, 10, 64), ("transpose", "view"), (1, 10, 256)) == \
        "(1,4,10,64) —transpose→ (1,10,4,64) —view→ (1,10,256)"


def test_stats_and_values_panels(window, qtbot):
    goto(window, qtbot, "dec.0.self_attn.masked")
    stats = window.stats_panel
    whole = window.ctl.shown.ensure_stats()  # computed off the GUI thread: wait for it as the panel does
    assert str(whole.neginf) != "0"
    qtbot.waitUntil(lambda: stats.text("−Inf") == str(whole.neginf))  # every panel follows one turn later
    assert stats.text("−Inf", 2) == "6"
    values = window.values_panel
    window.docks["values"].raise_()  # a tab beside Stats: it fills its table when shown
    qtbot.waitUntil(values.isVisible)
    assert values.model.rowCount() == 4 and values.model.columnCount() == 4
    assert values.model.headerData(1, Qt.Horizontal) == "1 我"
    assert values.model.data(values.model.index(0, 3)) == "−∞ (masked)"
    goto(window, qtbot, "logits")
    window.heatmap_panel.row_combo.setCurrentIndex(1)
    window.heatmap_panel.col_combo.setCurrentIndex(2)
    window.heatmap_panel._axes_chosen()
    assert values.model.rowCount() == 4  # 4 × 33: small enough to list


def test_navigator_filter_and_greying(window, qtbot):
    nav = window.navigator
    assert nav.items["logits"].foreground(1).color() == nav.items["logits"].foreground(2).color()
    assert nav.items["logits"].foreground(1).color().getRgb()[:3] == (150, 150, 150)
    nav.filter.setText("softmax")
    shown = [n for n, item in nav.items.items() if not item.isHidden()]
    assert shown and all(n.endswith(".probs") for n in shown)
    nav.filter.setText("")
    assert not any(item.isHidden() for item in nav.items.values())


def test_a_hidden_values_panel_fills_its_table_when_shown(window, qtbot):
    from tfdebug.ui.widgets.when_seen import on_screen

    window.docks["stats"].raise_()
    qtbot.waitUntil(lambda: not on_screen(window.values_panel))
    goto(window, qtbot, "dec.0.self_attn.probs")
    values = window.values_panel
    assert values.shown is not window.ctl.shown.current_slice  # no work while hidden
    window.docks["values"].raise_()
    qtbot.waitUntil(lambda: values.shown is window.ctl.shown.current_slice)
    assert values.model.rowCount() == 4



def test_heatmap_caption_shows_a_stage_name_as_text_not_markup(window):
    import torch

    from tfdebug.core.display import display_slice
    from tfdebug.core.recorder import Capture
    from tfdebug.core.stages import StageInfo

    capture = Capture.of(StageInfo("<i>x</i>.probs", "softmax", "head", None, ("query", "key"), "p"),
                         torch.full((2, 2), 0.25))
    window.ctl.shown.model.show(0, capture)  # what the controller shows; the caption shows its name as plain text
    window.heatmap_panel.show_slice(display_slice(capture.tensor, 0, 1, {}, (64, 64)))
    assert window.heatmap_panel.caption.text().startswith("<i>x</i>.probs")
    assert window.heatmap_panel.caption.shown_lines()[0].startswith("<i>x</i>.probs")  # painted as it reads


def test_the_colour_map_follows_the_stage_in_the_heatmap_and_the_thumbnails(window, qtbot):
    """Signed stages are diverging around 0 and probabilities sequential from 0, in both views, whatever
    the slice on screen holds (a slice's own minimum decided it before, so the two views disagreed)."""
    from tests.ui.user_actions import run_to_stage

    window.docks["heads"].show()
    for stage, signed in (("enc.0.attn.scores", True), ("enc.0.attn.probs", False), ("enc.0.attn.dropout", False),
                          ("enc.0.attn.context", True)):
        run_to_stage(window, qtbot, stage)
        qtbot.waitUntil(lambda: window.heads_panel.settled() and window.heads_panel.levels is not None)
        for lo, hi in (window.heatmap_panel.shown_levels(), window.heads_panel.levels):
            assert (lo == -hi) if signed else (lo == 0 and hi > 0), (stage, lo, hi)
        # The colour bar's gradient (recoloured in place when the map switches) holds the map's own stops.
        shown_pos, shown_rgba = window.heatmap_panel.histogram.gradient.colorMap().getStops(mode="byte")
        pos, rgba = (colors.diverging() if signed else colors.sequential()).getStops(mode="byte")
        assert np.array_equal(shown_pos, pos) and np.array_equal(shown_rgba, rgba), stage


def test_a_non_negative_slice_of_a_signed_stage_keeps_the_diverging_map():
    import numpy as np

    from tfdebug.core.stats import Stats

    def stats(lo, hi):
        return Stats(min=lo, max=hi, mean=0.0, std=0.0, nan=0, posinf=0, neginf=0, count=4,
                     hist_counts=np.zeros(0), hist_edges=np.zeros(1))
    _, levels, signed = colors.scheme("scores", stats(0.5, 2.0))
    assert signed and levels == (-2.0, 2.0)
    _, levels, signed = colors.scheme("softmax", stats(0.1, 0.7))
    assert not signed and levels == (0.0, 0.7)
