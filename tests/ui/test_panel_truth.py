"""Panels tell the truth (issue 16): where data comes from, heads, axes, logits, navigator, key repeat."""

import time

from PySide6.QtCore import QEvent, QPointF, Qt
from PySide6.QtTest import QTest

from tests.ui.conftest import wait_paused
from tests.ui.user_actions import choose_axes, click_stage, press, run_to_stage
from tfdebug.core.stages import KIND_TITLES, KINDS, kind_title
from tfdebug.ui.panels.heatmap import HOVER_HINT
from tfdebug.ui.panels.navigator import CURRENT_BG
from tfdebug.ui.render import colors
from tfdebug.ui.render.token_text import shown_token
from tfdebug.ui.widgets.prediction import format_probability


def from_line(window):
    text = window.shape_panel.plain_text()
    return text.split("From", 1)[1].split("Formula", 1)[0]


def test_from_names_the_stages_a_tensor_is_computed_from(window, qtbot):
    run_to_stage(window, qtbot, "enc.0.attn.v")
    assert "enc.0.attn.norm" in from_line(window)  # V reads the norm output, not K
    run_to_stage(window, qtbot, "enc.0.attn.scores")
    line = from_line(window)
    assert "enc.0.attn.q_split (1,4,3,16) and enc.0.attn.k_split (1,4,3,16)" in line
    assert "→ (1,4,3,3)" in line
    run_to_stage(window, qtbot, "dec.0.cross_attn.k")
    line = from_line(window)
    assert "enc.norm" in line and "dec.0.cross_attn.q" not in line
    assert "(1,3,64) → (1,3,64)" in line
    run_to_stage(window, qtbot, "dec.0.cross_attn.probs")  # no mask ran here: the scaled scores
    assert "dec.0.cross_attn.scaled" in from_line(window)
    run_to_stage(window, qtbot, "tgt.embed")
    assert "token ids" in from_line(window)


def _thumb_pixel(heads, h, row, col):
    image = heads.graphics.grab().toImage()
    scene = heads.views[h].mapViewToScene(QPointF(col + 0.5, row + 0.5))
    pos = heads.graphics.mapFromScene(scene)
    c = image.pixelColor(pos * image.devicePixelRatio())
    return c.red(), c.green(), c.blue()


def _assert_masked_thumbnails(window):
    heads = window.heads_panel
    assert len(heads.views) == 4
    for h in range(4):
        assert _thumb_pixel(heads, h, 0, 3) == colors.MASK_RGBA[:3]  # above the diagonal: masked grey
        for row, col in ((3, 0), (2, 1), (3, 3)):
            pixel = _thumb_pixel(heads, h, row, col)
            assert pixel != colors.MASK_RGBA[:3] and pixel != (255, 255, 255), (h, row, col, pixel)


def test_masked_head_thumbnails_are_coloured_however_the_stage_is_reached(window, qtbot):
    window.docks["heads"].show()
    run_to_stage(window, qtbot, "dec.0.self_attn.scaled")
    press(window, Qt.Key_F10)                        # step
    wait_paused(qtbot, window, "dec.0.self_attn.masked")
    qtbot.waitUntil(lambda: window.ctl.shown.settled() and window.heads_panel.settled())
    _assert_masked_thumbnails(window)
    press(window, Qt.Key_F10)
    wait_paused(qtbot, window, "dec.0.self_attn.probs")
    qtbot.waitUntil(lambda: window.ctl.shown.settled() and window.heads_panel.settled())
    _assert_masked_thumbnails(window)                # the softmax's masked cells (zeros) too
    press(window, Qt.Key_F10, Qt.ShiftModifier)      # step back
    wait_paused(qtbot, window, "dec.0.self_attn.masked")
    qtbot.waitUntil(lambda: window.ctl.shown.settled() and window.heads_panel.settled())
    _assert_masked_thumbnails(window)
    run_to_stage(window, qtbot, "dec.1.self_attn.masked")  # run to, from a probability stage
    qtbot.waitUntil(lambda: window.ctl.shown.settled() and window.heads_panel.settled())
    _assert_masked_thumbnails(window)


def test_exactly_one_head_is_outlined_and_the_thumbnails_carry_their_scale(window, qtbot):
    window.docks["heads"].show()
    run_to_stage(window, qtbot, "enc.0.attn.scaled")
    heads = window.heads_panel
    qtbot.waitUntil(lambda: window.ctl.shown.settled() and heads.settled())
    window.heatmap_panel.spin_boxes["head"].setValue(2)
    qtbot.waitUntil(lambda: heads.outlined() == [2])
    # The thumbnails' own colour bar states their range, which covers every head's values.
    lo, hi = heads.levels
    stage = window.ctl.current.tensor
    assert lo <= float(stage.min()) and hi >= float(stage.max())
    assert heads.colour_bar.isVisible() and heads.colour_bar.text_range() == (lo, hi)
    view = heads.views[1]
    pos = heads.graphics.mapFromScene(view.sceneBoundingRect().center())
    qtbot.mouseClick(heads.graphics.viewport(), Qt.LeftButton, pos=pos)
    qtbot.waitUntil(lambda: heads.outlined() == [1])


def test_head_as_a_heatmap_axis_gets_integer_ticks_and_an_honest_heads_note(window, qtbot):
    window.docks["heads"].show()
    run_to_stage(window, qtbot, "enc.0.attn.q_split")
    heatmap = window.heatmap_panel
    choose_axes(window, qtbot, "head", "head_dim")
    ticks = heatmap.plot.getAxis("left").shown_ticks()
    assert ticks == [(0, "0"), (1, "1"), (2, "2"), (3, "3")]  # every head, by its integer index
    heads = window.heads_panel
    qtbot.waitUntil(lambda: window.ctl.shown.settled() and heads.settled())
    assert "no head axis" not in heads.note.text() and "rows" in heads.note.text()
    assert not heads.graphics.isVisible()


def test_axis_choices_carry_only_while_pinned_and_the_pin_is_visible(window, qtbot):
    run_to_stage(window, qtbot, "enc.0.attn.q_split")
    heatmap = window.heatmap_panel
    assert not heatmap.pin_button.isChecked() and heatmap.pin_button.text() == "Pin axes"
    choose_axes(window, qtbot, "head", "head_dim")   # choosing axes pins them, and says so
    assert heatmap.pin_button.isChecked() and heatmap.pin_button.text() == "Pinned: head × head_dim"
    press(window, Qt.Key_F10)
    wait_paused(qtbot, window, "enc.0.attn.k_split")
    sl = window.current_slice()
    assert (sl.row_axis, sl.col_axis) == (1, 3)
    press(window, Qt.Key_F10)
    wait_paused(qtbot, window, "enc.0.attn.v_split")
    press(window, Qt.Key_F10)                         # scores have no head_dim: their natural axes
    wait_paused(qtbot, window, "enc.0.attn.scores")
    sl = window.current_slice()
    assert (sl.row_axis, sl.col_axis) == (2, 3)
    assert heatmap.pin_button.text() == "Pinned: head × head_dim"  # still pinned, visibly
    qtbot.mouseClick(heatmap.pin_button, Qt.LeftButton)            # unpin
    assert not heatmap.pin_button.isChecked() and heatmap.pin_button.text() == "Pin axes"
    press(window, Qt.Key_F10, Qt.ShiftModifier)
    wait_paused(qtbot, window, "enc.0.attn.v_split")
    press(window, Qt.Key_F10, Qt.ShiftModifier)
    wait_paused(qtbot, window, "enc.0.attn.k_split")  # back where head × head_dim was shown
    sl = window.current_slice()
    names = window.ctl.axes.names()
    assert (names[sl.row_axis], names[sl.col_axis]) == ("key", "head_dim")
    qtbot.mouseClick(heatmap.pin_button, Qt.LeftButton)            # pin what is shown now
    assert heatmap.pin_button.text() == "Pinned: key × head_dim"


def test_hover_readout_is_cleared_when_the_stage_changes(window, qtbot):
    run_to_stage(window, qtbot, "dec.0.self_attn.masked")
    heatmap = window.heatmap_panel
    # Column 3 (你): Qt drops a move to where the cursor already is, and other tests hover column 2.
    scene_pos = heatmap.plot.vb.mapViewToScene(QPointF(3.5, 0.5))
    qtbot.mouseMove(heatmap.graphics.viewport(), heatmap.graphics.mapFromScene(scene_pos))
    qtbot.waitUntil(lambda: "你" in heatmap.readout.text())
    press(window, Qt.Key_F10)
    wait_paused(qtbot, window, "dec.0.self_attn.probs")
    assert heatmap.readout.text() == HOVER_HINT  # nothing read at the previous stage stays


def test_heads_dock_shows_a_short_note_not_a_black_box_without_heads(window, qtbot):
    window.docks["heads"].show()
    run_to_stage(window, qtbot, "enc.0.attn.resid")
    heads = window.heads_panel
    qtbot.waitUntil(lambda: window.ctl.shown.settled() and heads.settled())
    assert not heads.graphics.isVisible()
    assert "no head axis" in heads.note.text()
    press(window, Qt.Key_F10, Qt.ShiftModifier)
    wait_paused(qtbot, window, "enc.0.attn.out")
    press(window, Qt.Key_F10, Qt.ShiftModifier)
    wait_paused(qtbot, window, "enc.0.attn.merged")
    press(window, Qt.Key_F10, Qt.ShiftModifier)
    wait_paused(qtbot, window, "enc.0.attn.context")
    qtbot.waitUntil(lambda: heads.graphics.isVisible() and len(heads.views) == 4)


def test_a_single_click_on_a_captured_stage_shows_it_and_the_current_mark_stays(window, qtbot):
    run_to_stage(window, qtbot, "enc.0.attn.scores")
    nav = window.navigator
    click_stage(window, qtbot, "enc.0.attn.k")             # captured: one click shows it
    wait_paused(qtbot, window, "enc.0.attn.k")
    assert window.ctl.stepper.history[-1].name == "enc.0.attn.scores"  # from history, nothing ran
    click_stage(window, qtbot, "dec.0.self_attn.probs")    # not run yet: selected only
    qtbot.waitUntil(lambda: window.ctl.selected_stage == "dec.0.self_attn.probs")
    assert window.ctl.current.name == "enc.0.attn.k"
    current = nav.items["enc.0.attn.k"]
    assert nav.tree.currentItem() is nav.items["dec.0.self_attn.probs"]
    assert not current.icon(1).isNull() and current.background(1).color() == CURRENT_BG
    assert nav.items["dec.0.self_attn.probs"].icon(1).isNull()
    # Selected and current at once: the highlight shows through the translucent selection.
    click_stage(window, qtbot, "enc.0.attn.q")
    wait_paused(qtbot, window, "enc.0.attn.q")
    item = nav.items["enc.0.attn.q"]
    assert nav.tree.currentItem() is item and not item.icon(1).isNull()
    rect = nav.tree.visualItemRect(item)
    image = nav.tree.viewport().grab().toImage()
    x = nav.tree.header().sectionViewportPosition(2) + 4   # the Shape column, beside the text
    pixel = image.pixelColor(x * image.devicePixelRatio(), rect.center().y() * image.devicePixelRatio())
    assert pixel.red() > 200 and pixel.green() > 180, pixel.getRgb()  # still yellow, not the plain selection


def test_break_on_kind_lists_readable_names(window, qtbot):
    menu = window.navigator.kind_button.menu()
    titles = [a.text() for a in menu.actions()]
    assert "Softmax" in titles and "Q projection" in titles and "q_proj" not in titles
    assert set(KINDS) <= set(KIND_TITLES)
    shown = [a.text() for a in menu.actions() if a.isVisible()]
    assert sorted(shown) == sorted({kind_title(c.info.kind) for c in window.ctl.plan})  # this pass's kinds
    assert "Rotary embedding" in titles and "Rotary embedding" not in shown
    softmax = next(a for a in menu.actions() if a.text() == "Softmax")
    softmax.trigger()                                      # check it, as a click on the entry does
    press(window, Qt.Key_F5)
    wait_paused(qtbot, window, "enc.0.attn.probs")
    stage_menu = window.navigator.stage_menu("enc.0.attn.q")
    assert "Break on Every Q projection" in [a.text() for a in stage_menu.actions()]


def test_logits_are_labelled_with_words_and_the_top_5_next_tokens_are_listed(window, qtbot):
    window.docks["heads"].show()
    run_to_stage(window, qtbot, "logits")
    words = window.ctl.adapter.vocabulary()
    heatmap = window.heatmap_panel
    axis = heatmap.plot.getAxis("bottom")
    at_fit = axis.shown_ticks()  # as many words as fit side by side upright (here all of them)
    assert len(at_fit) > 1 and all(shown_token(words[cell]) == label for cell, label in at_fit)
    heatmap.graphics.setFocus()
    for _ in range(6):                                # zoomed in by keys, every visible column has its word
        QTest.keyClick(heatmap.graphics, Qt.Key_Plus)
    (_, _), (c0, c1) = heatmap.zoom.visible()
    assert [cell for cell, _ in axis.shown_ticks()] == list(range(c0, c1)) and c1 - c0 < len(words)
    assert [label for _, label in axis.shown_ticks()] == [shown_token(w) for w in words[c0:c1]]
    window.docks["values"].raise_()
    values = window.values_panel
    qtbot.waitUntil(lambda: values.model.columnCount() == len(words))
    assert values.model.headerData(5, Qt.Horizontal) == f"5 {words[5]}"
    prediction = window.heads_panel.prediction
    assert prediction.isVisible() and prediction.row_combo.currentText() == "after '你' (position 3)"
    logits = window.ctl.current.tensor[0].float()
    probs = logits.softmax(-1)
    for row in (3, 1):
        expected = probs[row].topk(5)
        got = prediction.predictions
        assert [w for w, _ in got] == [words[i] for i in expected.indices.tolist()]
        assert [round(p, 4) for _, p in got] == [round(float(p), 4) for p in expected.values]
        assert prediction.table.item(0, 0).text() == got[0][0]
        assert prediction.table.item(0, 1).text() == format_probability(got[0][1])
        assert format_probability(0.91234) == "0.912" and format_probability(3.14e-5) == "3.1e-05"
        # Choose the row after '我' from the list, as a person would.
        combo = prediction.row_combo
        combo.showPopup()
        view = combo.view()
        qtbot.waitUntil(view.isVisible)
        qtbot.mouseClick(view.viewport(), Qt.LeftButton, pos=view.visualRect(view.model().index(1, 0)).center())
        qtbot.waitUntil(lambda: combo.currentIndex() == 1)
    press(window, Qt.Key_F10, Qt.ShiftModifier)       # dec.norm: no vocabulary, no prediction
    wait_paused(qtbot, window, "dec.norm")
    assert not prediction.isVisible()


def _hold(window, key, repeats):
    """Key events as holding a key delivers them: a press, `repeats` more presses, then one release.

    Each press goes through Qt's shortcut handling like a real one (QTest cannot flag them as
    auto-repeats; QAction's autoRepeat is on, so they would be handled alike). Nothing is
    processed between them: they arrive faster than a stage runs.
    """
    window.activateWindow()
    for _ in range(repeats + 1):
        QTest.keyPress(window, key)
    QTest.keyRelease(window, key)


def _slow_stages(window, seconds=0.1):
    """Each stage takes `seconds` to compute (a big model): the worker sleeps as it captures one."""
    window.ctl.stepper.subscribe(lambda event: time.sleep(seconds) if event.type == "captured" else None)


def test_holding_f10_steps_once_per_key_event(window, qtbot):
    plan = [c.name for c in window.ctl.plan]
    _slow_stages(window)
    _hold(window, Qt.Key_F10, 11)                      # 12 key presses, faster than stages run
    assert window.ctl.steps.queued_steps > 0
    wait_paused(qtbot, window, plan[12])
    assert [c.name for c in window.ctl.stepper.history] == plan[:13]
    assert window.ctl.steps.queued_steps == 0
    # Through history (back, then forward again) every key event counts too.
    _hold(window, Qt.Key_F10, 0)
    wait_paused(qtbot, window, plan[13])
    for _ in range(5):
        press(window, Qt.Key_F10, Qt.ShiftModifier)
    wait_paused(qtbot, window, plan[8])
    _hold(window, Qt.Key_F10, 9)                       # 5 from history, 5 live
    wait_paused(qtbot, window, plan[18])
    assert len(window.ctl.stepper.history) == 19


def _repeat(window, key, action_id):
    """One auto-repeat of a held key, delivered as Qt delivers it: a ShortcutOverride key event flagged
    auto-repeat to the focused widget, then the shortcut's action (QTest cannot flag a press as a repeat)."""
    from PySide6.QtGui import QKeyEvent
    from PySide6.QtWidgets import QApplication

    QApplication.sendEvent(QApplication.focusWidget() or window, QKeyEvent(QEvent.ShortcutOverride, key,
                                                                            Qt.NoModifier, "", True))
    window.actions_by_id[action_id].trigger()


def test_a_held_f10_stops_stepping_when_it_is_released(window, qtbot):
    """Repeats that arrive while the last step still runs are dropped: after the release at most the step
    in flight finishes, instead of one step per repeat for seconds."""
    plan = [c.name for c in window.ctl.plan]
    _slow_stages(window, 0.2)
    window.activateWindow()
    QTest.keyPress(window, Qt.Key_F10)                   # the press itself: a step
    for _ in range(10):                                  # ~0.4 s of repeats while that stage runs
        _repeat(window, Qt.Key_F10, "tfdebug.step.next")
    QTest.keyRelease(window, Qt.Key_F10)
    assert window.ctl.steps.queued_steps == 0
    wait_paused(qtbot, window, plan[1])
    qtbot.wait(300)                                      # nothing more runs after the release
    assert len(window.ctl.stepper.history) == 2 and window.ctl.current.name == plan[1]
    # Once the stage is shown, the next repeat steps again: holding the key keeps stepping at that rate.
    _repeat(window, Qt.Key_F10, "tfdebug.step.next")
    wait_paused(qtbot, window, plan[2])


def test_a_breakpoint_ends_a_run_of_queued_steps(window, qtbot):
    plan = [c.name for c in window.ctl.plan]
    _slow_stages(window)
    window.ctl.breakpoints.toggle_stage(plan[3])
    _hold(window, Qt.Key_F10, 9)
    wait_paused(qtbot, window)
    qtbot.waitUntil(lambda: window.ctl.steps.queued_steps == 0 and window.ctl.stepper.state == "paused")
    assert window.ctl.current.name == plan[3] and len(window.ctl.stepper.history) == 4


def test_small_screen_keeps_fields_and_stages_readable_and_a_big_one_widens_the_heatmap(window, qtbot):
    window.resize(1280, 720)
    qtbot.waitUntil(lambda: window.width() == 1280 and window.height() == 720)
    qtbot.wait(50)
    for key in ("src", "tgt"):
        edit = window.input_bar.field(key)
        assert edit.isVisible() and edit.width() >= 25 * edit.fontMetrics().averageCharWidth()
    tree = window.navigator.tree
    assert tree.viewport().height() // tree.sizeHintForRow(0) >= 15
    heat, nav, shape = (window.docks[n].width() for n in ("heatmap", "navigator", "shape"))
    assert heat >= nav + shape - 20                   # the heatmap keeps half the width
    window.resize(1920, 1080)
    qtbot.waitUntil(lambda: window.width() == 1920)
    qtbot.wait(50)
    assert window.docks["heatmap"].width() - heat >= 0.9 * 640   # the extra width went to the heatmap
    assert window.docks["navigator"].width() == nav and window.docks["shape"].width() == shape
    assert tree.viewport().height() // tree.sizeHintForRow(0) >= 15


def _heatmap_share(window) -> float:
    heat, heads = window.docks["heatmap"].height(), window.docks["heads"].height()
    return heat / (heat + heads)


def test_the_heatmap_keeps_most_of_the_height_on_a_small_screen_and_beside_the_overview(window, qtbot):
    # Heads (with Generation tabbed behind it) sits under the heatmap: the heatmap is what a user reads.
    assert _heatmap_share(window) >= 0.6
    window.resize(1280, 720)
    qtbot.waitUntil(lambda: window.width() == 1280 and window.height() == 720)
    qtbot.wait(50)
    assert _heatmap_share(window) >= 0.6
    window.docks["overview"].toggleViewAction().trigger()  # View ▸ Overview: a dock across the bottom
    qtbot.waitUntil(window.docks["overview"].isVisible)
    qtbot.wait(50)
    assert _heatmap_share(window) >= 0.5 and window.docks["heatmap"].height() >= 250
    window.resize(1600, 1000)
    qtbot.waitUntil(lambda: window.height() == 1000)
    qtbot.wait(50)
    assert _heatmap_share(window) >= 0.6  # growing back, the height goes to the heatmap again
