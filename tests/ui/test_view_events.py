"""The view selection's events in the window: whoever changes it (a key in an index box, a click on a head in
the Heads dock), the axis controls and the shown slice follow its event, never a call from the controller."""

import numpy as np
from PySide6.QtCore import QPoint, QPointF, Qt
from PySide6.QtTest import QTest

from tests.ui.user_actions import choose_axes, run_to_stage


def _click_head(qtbot, heads, h):
    scene = heads.views[h].mapViewToScene(QPointF(0.5, 0.5))
    pos = heads.graphics.mapFromScene(scene)
    qtbot.mouseClick(heads.graphics.viewport(), Qt.LeftButton, pos=QPoint(pos.x(), pos.y()))


def _shows_head(window, h) -> bool:
    sl = window.heatmap_panel.slice
    plane = window.ctl.current.tensor[0, h].float().numpy()
    return sl is not None and sl.values.shape == plane.shape and np.allclose(sl.values, plane, atol=1e-6)


def test_an_index_set_anywhere_reaches_the_controls_and_the_slice_by_the_views_event(window, qtbot):
    window.docks["heads"].show()
    run_to_stage(window, qtbot, "enc.0.attn.probs")
    ctl, heatmap, heads = window.ctl, window.heatmap_panel, window.heads_panel
    heard = []
    ctl.view.index_changed.connect(lambda name, index: heard.append((name, index)))
    spin = heatmap.spin_boxes["head"]
    qtbot.waitUntil(lambda: ctl.shown.settled() and heads.settled() and len(heads.views) == 4)

    _click_head(qtbot, heads, 2)  # the Heads dock sets the index; the heatmap's box hears of it at once
    assert heard == [("head", 2)] and spin.value() == 2
    qtbot.waitUntil(lambda: _shows_head(window, 2))

    spin.setFocus()
    QTest.keyClick(spin, Qt.Key_Up)  # a key in the box: one event, the slice cut again
    assert heard[1:] == [("head", 3)] and dict(ctl.view.indices_by_name)["head"] == 3
    qtbot.waitUntil(lambda: _shows_head(window, 3))
    qtbot.waitUntil(lambda: heads.settled() and heads.outlined() == [3])


def test_axes_chosen_pin_and_redraw_through_the_views_events(window, qtbot):
    run_to_stage(window, qtbot, "enc.0.attn.q_split")
    ctl, heatmap = window.ctl, window.heatmap_panel
    heard = []
    ctl.view.axes_changed.connect(lambda row, col: heard.append(("axes", row, col)))
    ctl.view.pinned_changed.connect(lambda pinned: heard.append(("pinned", pinned)))
    choose_axes(window, qtbot, "head", "head_dim")
    assert heard[-1] == ("axes", 1, 3) and ("pinned", ("head", "head_dim")) in heard
    assert heatmap.row_combo.currentIndex() == 1 and heatmap.col_combo.currentIndex() == 3
    assert set(heatmap.spin_boxes) == {"batch", "query"}
    qtbot.waitUntil(lambda: (heatmap.slice.row_axis, heatmap.slice.col_axis) == (1, 3))
    ctl.view.pin(None)  # unpinned elsewhere (a test stands in for another panel): the pin button hears it
    assert not heatmap.pin_button.isChecked() and heatmap.pin_button.text() == "Pin axes"
