"""Garbage collection in the GUI thread: the young generation every second, the older ones
(which walk every object that survived since, ~170 ms after a model load) only when input
has paused, so a collection never lands in the middle of stepping."""

import gc
import time

from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QLineEdit

from tfdebug.ui.workers import gui_gc


def test_older_generations_wait_for_a_pause_in_input(qapp):
    collector = gui_gc._GuiCollector(interval_s=3600, idle_s=0.5)
    try:
        for _ in range(collector.threshold[1] + 1):
            gc.collect(0)  # survivors of enough young collections: a middle-generation collection is due
        box = QLineEdit()
        box.show()
        QTest.keyClick(box, Qt.Key_A)  # the user is typing
        assert time.monotonic() - collector.last_activity < 0.5
        assert collector.check() in (None, 0)
        assert gc.get_count()[1] > collector.threshold[1]  # still due, not done
        collector.last_activity = time.monotonic() - 1.0  # a second without input
        assert collector.check() in (1, 2)
        assert gc.get_count()[1] == 0
        assert not gc.isenabled()  # never in a worker thread's allocation
        # A minute of unbroken activity (a long generation): they run anyway, garbage stays bounded.
        for _ in range(collector.threshold[1] + 1):
            gc.collect(0)
        collector.last_activity = time.monotonic()
        assert collector.check() in (None, 0)
        collector.last_old = time.monotonic() - gui_gc.MAX_DEFER_S
        assert collector.check() in (1, 2)
    finally:
        collector.timer.stop()
        gc.callbacks.remove(collector._collected)
        QApplication.instance().removeEventFilter(collector)

