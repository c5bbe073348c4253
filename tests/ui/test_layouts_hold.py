"""Layouts that hold on a small screen and with any font: an empty Heads dock (a stage with no head axis)
gives its height to the heatmap and takes its share back at a stage with heads; the Architecture map's
labels fit or are cut with the name on hover; the Shape dock shows its rows unscrolled (at 1280×720 up
to Formula, the docks under it giving their spare height, the heatmap untouched); the stage filter
and its buttons are not cut. Proportions and measured text, not pixel figures of one font."""

from tests.ui.user_actions import run_to_stage, tooltip_as_read


def hover(widget, pos) -> None:
    """The mouse moved over `pos` of `widget` (QTest's mouseMove reaches no widget on the offscreen platform)."""
    from PySide6.QtCore import QEvent, Qt
    from PySide6.QtGui import QMouseEvent
    from PySide6.QtWidgets import QApplication

    QApplication.sendEvent(widget, QMouseEvent(QEvent.MouseMove, pos, widget.mapToGlobal(pos), Qt.NoButton,
                                               Qt.NoButton, Qt.NoModifier))


def heads_share(window) -> float:
    heat, heads = window.docks["heatmap"].height(), window.docks["heads"].height()
    return heads / (heat + heads)


def test_an_empty_heads_dock_gives_its_height_to_the_heatmap(window, qtbot):
    window.resize(1280, 720)
    qtbot.waitUntil(lambda: window.width() == 1280 and window.height() == 720)
    run_to_stage(window, qtbot, "enc.0.attn.scores")
    qtbot.waitUntil(lambda: len(window.heads_panel.views) == 4)
    with_heads = heads_share(window)
    assert with_heads > 0.2  # the thumbnails have room
    run_to_stage(window, qtbot, "enc.0.attn.q")  # (batch, token, model): no head axis
    note = window.heads_panel.note
    qtbot.waitUntil(lambda: note.text() == "This stage has no head axis.")
    qtbot.waitUntil(lambda: heads_share(window) < 0.2)
    assert note.isVisible() and note.visibleRegion().boundingRect().height() >= note.fontMetrics().height()  # still read
    assert window.docks["heatmap"].height() >= 4 * window.docks["heads"].height()
    run_to_stage(window, qtbot, "enc.0.attn.probs")
    qtbot.waitUntil(lambda: heads_share(window) > 0.2)
    assert abs(heads_share(window) - with_heads) < 0.05  # the share it had, not a height of another size


def test_architecture_labels_fit_their_boxes_or_are_cut_with_the_whole_name_on_hover(window, qtbot):
    from PySide6.QtCore import Qt
    from PySide6.QtGui import QFontMetrics

    from tfdebug.ui.i18n.language import title

    window.resize(1280, 720)
    qtbot.waitUntil(lambda: window.width() == 1280 and window.height() == 720)
    nav, arch = window.docks["navigator"], window.docks["architecture"]
    total = nav.height() + arch.height()
    window.resizeDocks([nav, arch], [total - 260, 260], Qt.Vertical)  # the separator dragged down: a short map
    amap = window.architecture_map
    qtbot.waitUntil(lambda: amap.height() <= 260)
    amap.repaint()
    metrics = QFontMetrics(amap.label_font())
    cut = 0
    for part in amap.parts:
        flags, text = amap.shown_label(part)
        box = part.rect.adjusted(4, 0, -4, 0).toRect()
        drawn = metrics.boundingRect(box, int(flags), text)
        assert drawn.height() <= box.height() and drawn.width() <= box.width(), (part.label, text)
        if text != title(part.label):
            cut += 1
            assert text.endswith("…") and title(part.label).startswith(text[:-1])
            hover(amap, part.rect.center())
            assert title(part.label) in tooltip_as_read(amap.toolTip()).replace("\xa0", " ")
    assert any(len(title(p.label)) > 20 for p in amap.parts)  # "Masked self-attention" is among them
    print(f"{cut} of {len(amap.parts)} labels cut at {amap.width()}×{amap.height()}")


def test_the_shape_dock_shows_its_rows_without_scrolling_at_the_default_size(window, qtbot):
    window.resize(1600, 1000)
    qtbot.waitUntil(lambda: window.width() == 1600 and window.height() == 1000)
    text = window.shape_panel.text
    for stage in ("enc.0.attn.scores", "dec.0.self_attn.masked"):  # From and Formula, a mask's long formula
        run_to_stage(window, qtbot, stage)
        qtbot.waitUntil(lambda: stage in text.toPlainText())
        shown = text.toPlainText()
        assert all(row in shown for row in ("Shape", "dtype", "From", "Formula"))
        qtbot.waitUntil(lambda: text.verticalScrollBar().maximum() == 0)  # every row in view
    assert window.docks["shape"].height() <= 0.4 * window.height() + 1


def formula_bottom(text) -> int:
    """Where the Shape dock's Formula row ends, in its viewport's pixels (the row's value is the next block)."""
    from PySide6.QtGui import QTextCursor

    cursor = text.document().find("Formula")
    assert not cursor.isNull()
    cursor.movePosition(QTextCursor.NextBlock)
    cursor.movePosition(QTextCursor.EndOfBlock)
    return text.cursorRect(cursor).bottom()


def test_on_a_small_screen_the_shape_dock_shows_formula_unscrolled_and_the_heatmap_keeps_its_room(window, qtbot):
    window.resize(1280, 720)
    qtbot.waitUntil(lambda: window.height() == 720)
    text, docks, stats = window.shape_panel.text, window.docks, window.stats_panel
    for stage in ("enc.0.attn.scores", "dec.0.self_attn.masked"):  # a From of two lines, a long formula
        run_to_stage(window, qtbot, stage)
        qtbot.waitUntil(lambda: stage in text.toPlainText())
        assert all(row in text.toPlainText() for row in ("Shape", "dtype", "From", "Formula"))
        # The rows up to Formula in view without scrolling (the docks under Shape gave their spare height).
        qtbot.waitUntil(lambda: text.verticalScrollBar().value() == 0
                        and formula_bottom(text) <= text.viewport().height())
        assert docks["shape"].height() <= 0.4 * window.height() + 1
    # Not at the heatmap's cost: it keeps the widest column and most of the centre's height; the Stats
    # table keeps every row and the histogram its minimum.
    heat = docks["heatmap"]
    assert heat.width() >= max(docks["navigator"].width(), docks["shape"].width())
    assert heat.height() >= 0.5 * (heat.height() + docks["heads"].height())
    count = stats.row_titles["count"]
    assert count.isVisible() and count.mapTo(stats, count.rect().bottomLeft()).y() <= stats.height()
    assert stats.plot.height() >= stats.plot.minimumHeight()


def test_the_stage_filter_and_its_buttons_are_not_cut(window, qtbot):
    from PySide6.QtWidgets import QStyle, QStyleOptionFrame

    for width, height in ((1280, 720), (1600, 1000)):
        window.resize(width, height)
        qtbot.waitUntil(lambda: window.width() == width and window.height() == height)
        nav = window.navigator
        qtbot.waitUntil(lambda: nav.filter.width() > 0)
        field = nav.filter
        option = QStyleOptionFrame()
        field.initStyleOption(option)
        room = field.style().subElementRect(QStyle.SE_LineEditContents, option, field).width()
        clear = field.height()  # the clear button's room, about as wide as the field is high
        assert field.fontMetrics().horizontalAdvance(field.placeholderText()) <= room - clear, (width, room)
        for button in (nav.kind_button, nav.conditions_button):
            assert button.width() >= button.sizeHint().width(), (width, button.text())


def test_a_long_message_is_cut_with_an_ellipsis_and_whole_in_its_tooltip(window, qtbot):
    from tfdebug.ui.state.messages import Message

    window.resize(1280, 720)
    qtbot.waitUntil(lambda: window.width() == 1280 and window.height() == 720)
    sentence = ("The capture budget (512 MB, half the free memory when this pass was planned) keeps the stages "
                "nearest where you are; this pass keeps 96 of its 1,211 stages and leaves out the rest, which "
                "Run to Stage brings back by running the pass again up to the one you ask for. ") * 2
    window.show_message(Message("warning", sentence))
    qtbot.wait(50)
    label = window.message_bar.label
    shown = label.shown_text()
    assert shown.endswith("…") and sentence.startswith(shown[:-1].rstrip())  # its start, then "…": not cut mid-letter
    assert label.fontMetrics().horizontalAdvance(shown) <= label.contentsRect().width()
    assert len(shown) > 0.5 * label.contentsRect().width() / label.fontMetrics().averageCharWidth()  # the room is used
    assert " ".join(tooltip_as_read(label.toolTip()).split()) == sentence.strip()  # the whole sentence
    assert window.width() == 1280  # the message did not widen the window


def test_the_window_title_holds_the_start_of_a_long_prompt_not_all_of_it(window, qtbot):
    from tfdebug.ui.shell.window import TITLE_CHARS

    prompt = "Once upon a time\nthere was a very long story " + "and it went on " * 2200  # ~33,000 characters
    window.ctl.source._title = prompt  # the title of a pass run on that prompt (session.title: the texts on one line)
    window.ctl.session_changed.emit()
    title = window.windowTitle()
    assert title.startswith("tfdebug — Once upon a time there was") and title.endswith("…")
    assert len(title) <= len("tfdebug — ") + TITLE_CHARS and "\n" not in title


def test_the_shape_dock_keeps_its_first_rows_however_the_docks_below_pull(window, qtbot):
    """#40: at 1280×720, the docks under Shape cannot squeeze it below its name, kind, Shape, dtype and Device
    rows, unwrapped."""
    from PySide6.QtCore import Qt

    from tfdebug.ui.panels.shape import MIN_CHARS, MIN_LINES

    window.resize(1280, 720)
    qtbot.waitUntil(lambda: window.width() == 1280 and window.height() == 720)
    docks, text = window.docks, window.shape_panel.text
    window.resizeDocks([docks["shape"], docks["explain"], docks["stats"]], [1, 2000, 2000], Qt.Vertical)
    window.resizeDocks([docks["navigator"], docks["heatmap"], docks["shape"]], [600, 2000, 1], Qt.Horizontal)
    metrics = text.fontMetrics()
    qtbot.waitUntil(lambda: text.height() >= metrics.lineSpacing() * MIN_LINES)
    assert text.width() >= metrics.averageCharWidth() * MIN_CHARS
    shown = text.toPlainText().splitlines()
    assert any(line.startswith("Shape") for line in shown[:4]) and "dtype" in text.toPlainText()
