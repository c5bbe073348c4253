"""Garbage collection in the GUI thread: the young generation every second, the older ones
(which walk every object that survived since, ~170 ms after a model load) only when input
has paused, so a collection never lands in the middle of stepping."""

import gc
import threading
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



class _Garbage:
    """A cycle whose finalizer notes the thread that collected it (a window's Qt objects, in the app)."""

    def __init__(self, threads):
        self.threads, self.me = threads, self

    def __del__(self):
        self.threads.append(threading.current_thread())


def test_a_collection_asked_for_off_the_gui_thread_happens_on_it(make_window):
    """A worker's explicit gc.collect() (a model's loading code, the reference pass letting its model go)
    once destroyed a window's Qt objects off the GUI thread and hung the window: it is asked of the GUI
    thread, which collects at its next tick."""
    make_window()  # the window starts the GUI thread's collector
    threads = []
    _Garbage(threads)
    worker = threading.Thread(target=lambda: threads.append(gc.collect()))
    worker.start()
    worker.join(10)
    assert threads == [0]  # nothing collected there
    assert gui_gc._collector.check() == 2  # the GUI thread's next tick: the full collection asked for
    assert threads == [0, threading.main_thread()]
