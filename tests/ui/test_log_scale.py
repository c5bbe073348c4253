"""Scale ▸ Log scale tells the truth (issue 52, item 3 of the problems): the colour bar reads in the scale the
cells are coloured in (powers of ten, 1e-6 … 1 for probabilities), and a signed stage stays linear and says so."""

import numpy as np
from PySide6.QtGui import QImage, QPainter

from tests.ui.user_actions import choose_in_menu_button, run_to_stage

PROBS, LOGITS = "enc.0.attn.probs", "logits"


def colour_bar_labels(heatmap) -> list[str]:
    """The tick labels the colour bar draws, as pyqtgraph lays them out for its size and range."""
    axis = heatmap.histogram.axis
    image = QImage(10, 10, QImage.Format_ARGB32)
    painter = QPainter(image)
    try:
        specs = axis.generateDrawSpecs(painter)
    finally:
        painter.end()
    return [text for _rect, _flags, text in specs[2]]


def test_the_colour_bar_reads_powers_of_ten_under_the_log_scale(window, qtbot):
    heatmap = window.heatmap_panel
    run_to_stage(window, qtbot, PROBS)
    linear = colour_bar_labels(heatmap)
    assert not any("e-" in label for label in linear)
    choose_in_menu_button(heatmap.scale_button, heatmap.log_action)
    assert heatmap.scale.log
    decades = ["1e-6", "1e-5", "1e-4", "1e-3", "1e-2", "1e-1", "1"]
    qtbot.waitUntil(lambda: colour_bar_labels(heatmap) == decades, timeout=5000)  # the bar's range follows at its paint
    assert "log scale from 1e-06" in heatmap.caption.text()
    # The cells are coloured on the same decades the bar shows: 1e-3 sits half way up, 1 at the top.
    values = np.where(np.isfinite(heatmap.slice.values), heatmap.slice.values, 0).astype(np.float32)
    expected = np.clip((np.log10(np.maximum(values, 1e-6)) + 6) / 6 * 255, 0, 255).astype(np.uint8)
    assert np.abs(heatmap.image.image.astype(int) - expected.astype(int)).max() <= 1


def test_a_signed_stage_stays_linear_under_the_log_scale_and_says_so(window, qtbot):
    heatmap = window.heatmap_panel
    run_to_stage(window, qtbot, PROBS)
    choose_in_menu_button(heatmap.scale_button, heatmap.log_action)
    run_to_stage(window, qtbot, LOGITS)
    qtbot.waitUntil(lambda: heatmap.slice is window.ctl.shown.current_slice and heatmap.slice is not None)
    # Chosen for the probabilities' kind, not carried onto the logits.
    assert not heatmap.log_action.isChecked() and not heatmap.scale.log
    assert "log scale" not in heatmap.caption.text()
    choose_in_menu_button(heatmap.scale_button, heatmap.log_action)  # chosen here too: a signed stage
    assert heatmap.log_action.isChecked() and not heatmap.scale.log  # chosen, not applied here
    assert "linear: the log scale applies to non-negative stages only" in heatmap.caption.text()
    assert "log scale from" not in heatmap.caption.text()
    qtbot.waitUntil(lambda: not any(label.startswith("1e") for label in colour_bar_labels(heatmap)), timeout=5000)
    low, high = heatmap.shown_levels()
    assert low < 0 < high and tuple(heatmap.histogram.getLevels()) == (low, high)
    run_to_stage(window, qtbot, PROBS)  # back at the probabilities: still in log, as chosen for their kind
    qtbot.waitUntil(lambda: heatmap.slice is window.ctl.shown.current_slice and heatmap.scale.log)
    assert heatmap.log_action.isChecked() and window.ctl.log_kinds == {"softmax", "logits"}


def test_the_log_scale_is_kept_per_stage_kind(window, qtbot):
    """Issue 52: the log scale chosen at the probabilities opened the demo's embedding (another kind, its
    values non-negative here or not) saturated; it is now remembered for the kind it was chosen at."""
    heatmap = window.heatmap_panel
    run_to_stage(window, qtbot, PROBS)
    choose_in_menu_button(heatmap.scale_button, heatmap.log_action)
    assert window.ctl.log_kinds == {"softmax"}
    run_to_stage(window, qtbot, "enc.0.attn.scores")  # another kind: linear, unticked
    qtbot.waitUntil(lambda: heatmap.slice is window.ctl.shown.current_slice and heatmap.slice is not None)
    assert not heatmap.log_action.isChecked() and not heatmap.scale.log
    run_to_stage(window, qtbot, "dec.0.self_attn.probs")  # the same kind in another block: log
    qtbot.waitUntil(lambda: heatmap.slice is window.ctl.shown.current_slice and heatmap.scale.log)
    assert heatmap.log_action.isChecked()
    choose_in_menu_button(heatmap.scale_button, heatmap.log_action)  # off for the kind
    assert window.ctl.log_kinds == set() and not heatmap.scale.log


def test_the_heads_colour_by_the_same_log_scale(window, qtbot):
    heads, heatmap = window.heads_panel, window.heatmap_panel
    run_to_stage(window, qtbot, PROBS)
    qtbot.waitUntil(lambda: heads.settled() and heads.images and heads.colour_bar.labels()[0] == "0")
    choose_in_menu_button(heatmap.scale_button, heatmap.log_action)
    qtbot.waitUntil(lambda: heads.settled() and heads.colour_bar.labels() == ("1e-6", "1"), timeout=10000)
    # head 0's thumbnail: each cell's colour is the LUT entry of its log10 between 1e-6 and 1, as in the heatmap
    probs = window.ctl.current.tensor[0, 0].numpy()
    lut = heads.colour_bar.lut
    expected = lut[np.clip((np.log10(np.maximum(probs, 1e-6)) + 6) / 6 * 255, 0, 255).astype(np.uint8)]
    drawn = heads.images[0].image[..., :3]
    assert drawn.shape[:2] == probs.shape
    assert np.abs(drawn.astype(int) - expected.astype(int)).max() <= 8  # a LUT step at most (float32 rounding)


def test_the_model_view_colours_by_the_same_log_scale(window, qtbot):
    from tests.ui.test_model_view import _open

    heatmap = window.heatmap_panel
    view = _open(window, qtbot)
    probs = [c.name for c in window.ctl.plan if c.info.kind == "softmax"]
    run_to_stage(window, qtbot, probs[-1])  # every attention has run: each row drawn
    qtbot.waitUntil(lambda: set(view.thumbs) == set(probs), timeout=30000)
    assert view.colour_bar.labels()[0] == "0"
    choose_in_menu_button(heatmap.scale_button, heatmap.log_action)  # for the probabilities, the kind drawn
    qtbot.waitUntil(lambda: view.colour_bar.labels() == ("1e-6", "1"), timeout=10000)
    # The first row's head 0 in the grid: each cell the LUT entry of its log10 between 1e-6 and 1.
    tensor = window.ctl.stepper.captured(probs[0]).tensor[0, 0].numpy()
    lut = view.colour_bar.lut
    expected = lut[np.clip((np.log10(np.maximum(tensor, 1e-6)) + 6) / 6 * 255, 0, 255).astype(np.uint8)]
    drawn = view.rgba[probs[0]][0][..., :3]
    finite = np.isfinite(view.thumbs[probs[0]].values[0])  # masked cells keep the masked colour
    assert np.abs(drawn.astype(int) - expected.astype(int))[finite].max() <= 8
    choose_in_menu_button(heatmap.scale_button, heatmap.log_action)  # off again: linear from 0
    qtbot.waitUntil(lambda: view.colour_bar.labels()[0] == "0", timeout=10000)


def test_a_picture_export_is_coloured_by_the_log_scale_it_shows(window, qtbot, tmp_path):
    from PySide6.QtCore import QPointF

    heatmap = window.heatmap_panel
    run_to_stage(window, qtbot, PROBS)
    choose_in_menu_button(heatmap.scale_button, heatmap.log_action)
    qtbot.waitUntil(lambda: colour_bar_labels(heatmap)[0] == "1e-6", timeout=5000)
    path = tmp_path / "probs.png"
    assert window.exports.export_view(str(path), ".png")
    picture = QImage(str(path))
    values = heatmap.slice.values
    lut = heatmap.lookup_table()
    checked = 0
    for (r, c), value in np.ndenumerate(values):
        if not np.isfinite(value) or value <= 0:
            continue
        scene = heatmap.image.mapToScene(QPointF(c + 0.5, r + 0.5))
        point = heatmap.graphics.mapFromScene(scene)
        pixel = picture.pixelColor(point.x(), point.y())
        index = int(np.clip((np.log10(max(value, 1e-6)) + 6) / 6 * 255, 0, 255))
        assert max(abs(pixel.red() - int(lut[index][0])), abs(pixel.green() - int(lut[index][1])),
                   abs(pixel.blue() - int(lut[index][2]))) <= 8, (r, c, value)
        checked += 1
    assert checked >= 4
