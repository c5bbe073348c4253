"""A step lays nothing out again: the texts and boxes a step changes keep their sizes, so no layout request climbs
to the main window (which would lay out its docks once more and repaint: issue 54, "settled in two frames")."""

from PySide6.QtCore import QEvent, Qt
from PySide6.QtWidgets import QApplication, QVBoxLayout, QWidget

from tests.ui.conftest import EventCount, wait_paused
from tests.ui.user_actions import press
from tfdebug.ui.widgets.steady_text import SteadyText


def _settle():
    for _ in range(5):
        QApplication.processEvents()


def _at_q_split(window, qtbot):
    """The window at benchmark size, paused at the first encoder layer's q_split, active (its keys reach it)."""
    window.resize(1600, 1000)
    qtbot.waitUntil(lambda: window.width() == 1600)
    window.ctl.steps.run_to("enc.0.attn.q_split")
    wait_paused(qtbot, window, "enc.0.attn.q_split")
    window.activateWindow()
    qtbot.waitUntil(window.isActiveWindow)


def test_steady_text_asks_its_layout_for_room_only_when_it_must_grow(qtbot):
    parent = QWidget()
    qtbot.addWidget(parent)
    layout = QVBoxLayout(parent)
    fixed, growing = SteadyText("one"), SteadyText("one", grow=True)
    layout.addWidget(fixed)
    layout.addWidget(growing)
    parent.resize(400, 100)
    parent.show()
    _settle()
    requests = EventCount(parent, QEvent.Type.LayoutRequest)
    fixed.setText("a much longer text than before, wider than the first")
    growing.setText("two")  # as wide as "one": no room asked
    _settle()
    assert requests.count == 0 and fixed.text().startswith("a much longer")
    growing.setText("a much longer text than before")
    _settle()
    assert requests.count == 1 and growing.sizeHint().width() >= growing.fontMetrics().horizontalAdvance(
        "a much longer text than before")
    assert growing.shown_lines() == ["a much longer text than before"]  # the room it asked for: shown whole
    growing.setText("short")  # narrower: the room it has is kept, nothing asked
    _settle()
    assert requests.count == 1


def test_steady_text_wraps_over_its_lines_and_elides_the_last(qtbot):
    text = SteadyText(lines=2)
    qtbot.addWidget(text)
    text.resize(text.fontMetrics().horizontalAdvance("word " * 6), text.height())
    text.setText(" ".join(f"word{i}" for i in range(40)))
    shown = text.shown_lines()
    assert len(shown) == 2 and shown[0].startswith("word0 word1") and shown[1].endswith("…")
    assert text.height() == 2 * text.fontMetrics().lineSpacing()
    text.setText("short")
    assert text.shown_lines() == ["short"]


def test_stepping_back_and_forth_asks_the_main_window_for_no_layout(window, qtbot):
    """Once each stage has been shown (the status bar's and the Stats table's fields have grown to their texts),
    F10 and Shift+F10 over the same stages send the main window no layout request."""
    _at_q_split(window, qtbot)

    def walk():
        for key, modifier in [(Qt.Key_F10, Qt.NoModifier)] * 4 + [(Qt.Key_F10, Qt.ShiftModifier)] * 4:
            before = window.ctl.stepper.cursor
            press(window, key, modifier)
            qtbot.waitUntil(lambda: window.ctl.stepper.cursor != before)
            wait_paused(qtbot, window)
            qtbot.waitUntil(lambda: window.ctl.shown.settled() and window.heads_panel.settled())
            _settle()

    walk()  # the first visit of each stage: fields may grow to its texts once
    requests = EventCount(window, QEvent.Type.LayoutRequest)
    walk()
    assert requests.count == 0


def test_a_step_over_stages_shown_before_paints_the_window_twice(window, qtbot):
    """The heatmap alone (what the user waits for), then every other panel: no plot left with a change of range or
    layout that its own paint finds and paints once more (the Stats histogram did, a turn after the rest), and no
    axis box filled anew (its list view laid out on a timer and repainted the row)."""
    _at_q_split(window, qtbot)
    keys = [(Qt.Key_F10, Qt.NoModifier)] * 4 + [(Qt.Key_F10, Qt.ShiftModifier)] * 4

    def step(key, modifier):
        before = window.ctl.stepper.cursor
        press(window, key, modifier)
        qtbot.waitUntil(lambda: window.ctl.stepper.cursor != before)
        wait_paused(qtbot, window)
        qtbot.waitUntil(lambda: window.ctl.shown.settled() and window.heads_panel.settled()
                        and not window.ctl.shown.reading_ahead())
        qtbot.wait(60)  # a paint queued behind the step's (Qt waits 5 ms between a window's paints) comes by then

    for key, modifier in keys:  # the first visits: the fields grow to their texts, the neighbours are read
        step(key, modifier)
    paints = []
    for key, modifier in keys:
        count = EventCount(window, QEvent.Type.UpdateRequest)
        step(key, modifier)
        paints.append(count.count)
        window.removeEventFilter(count)
    assert paints == [2] * len(keys)
