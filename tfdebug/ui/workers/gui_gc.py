"""Python's cyclic garbage collection, run only in the GUI thread, and the costly part only
while the user is not interacting.

Automatic collection runs in whichever thread happens to allocate; when that is a
worker (loading a model, running the forward) and the garbage holds Qt widgets, Qt
objects get destroyed off the GUI thread — which Qt forbids, and which deadlocked the
loader thread against the event loop here. So automatic collection is switched off
and a timer in the GUI thread collects instead. An explicit `gc.collect()` off the GUI
thread (a model's loading code, the reference pass letting its model go) is asked of the
GUI thread instead: it collects at its next tick and the caller gets 0 — an explicit
full collection in a worker once hung the window while it computed a reference pass.

What exists when the collector starts (torch, Qt, pyqtgraph and every other module:
~200,000 objects) lives as long as the process, so it is frozen out of collection
(`gc.freeze`): otherwise every full collection walks all of it in the GUI thread,
~80-230 ms during which the window cannot paint or take a key press.

The young generation is collected every second (a few ms). The older ones walk every
object that survived since the last time — after a model load or a new window, ~100,000
of them, ~170 ms measured — so they wait until no key press, click or scroll has come
and no pass has moved (`note_activity`) for `IDLE_S`: a pause nobody sees instead of a
stutter in the middle of stepping or of a running pass. After `MAX_DEFER_S` of unbroken
activity (a long generation) they run anyway, so garbage never piles up without bound.
"""

from __future__ import annotations

import gc
import threading
import time

from PySide6.QtCore import QEvent, QObject, QTimer
from PySide6.QtGui import QInputEvent
from PySide6.QtWidgets import QApplication

IDLE_S = 1.5  # no input or pass activity for this long: the older generations may be walked
MAX_DEFER_S = 60.0  # the older generations wait for a pause at most this long
_INPUT = frozenset({QEvent.KeyPress, QEvent.KeyRelease, QEvent.MouseButtonPress, QEvent.MouseButtonRelease,
                    QEvent.MouseButtonDblClick, QEvent.Wheel, QEvent.ShortcutOverride})

_collector: "_GuiCollector | None" = None
_real_collect = gc.collect


def _collect(generation: int = 2) -> int:
    """`gc.collect` while the window runs: on the GUI thread as usual, elsewhere asked of the GUI thread."""
    collector = _collector
    if collector is None or threading.current_thread() is collector.thread:
        return _real_collect(generation)
    collector.asked = max(collector.asked, generation)  # an int, set whole: no lock needed
    return 0


class _GuiCollector(QObject):
    """Collects on a timer in the GUI thread; generations 1 and 2 only when activity has paused."""

    def __init__(self, interval_s: float, idle_s: float):
        super().__init__()
        self.idle_s = idle_s
        self.last_activity = self.last_old = time.monotonic()
        self.threshold = gc.get_threshold()
        self.thread = threading.current_thread()
        self.asked = -1  # the generation a collection asked for off the GUI thread, -1 for none
        gc.disable()
        gc.callbacks.append(self._collected)  # whoever collects (a test, a tool), the clock restarts
        QApplication.instance().installEventFilter(self)
        self.timer = QTimer(self)
        self.timer.timeout.connect(self.check)
        self.timer.start(int(interval_s * 1000))

    def eventFilter(self, obj, event) -> bool:
        if isinstance(event, QInputEvent) and event.type() in _INPUT:  # the class first: every event passes here
            self.last_activity = time.monotonic()
        return False

    def _collected(self, phase: str, info: dict) -> None:
        if phase == "stop" and info["generation"] >= 1:
            self.last_old = time.monotonic()

    def check(self) -> int | None:
        """Collect what is due: the generation collected (None when nothing was)."""
        young, middle, old = gc.get_count()
        t0, t1, t2 = self.threshold
        now = time.monotonic()
        if self.asked >= 0:
            generation, self.asked = self.asked, -1
        elif middle > t1 and (now - self.last_activity >= self.idle_s or now - self.last_old >= MAX_DEFER_S):
            generation = 2 if old > t2 else 1
        elif young > t0:
            generation = 0
        else:
            return None
        _real_collect(generation)
        return generation


def note_activity() -> None:
    """A pass moved (a stage captured, shown, stepped to): not the moment for a long collection."""
    if _collector is not None:
        _collector.last_activity = time.monotonic()


def collect_in_gui_thread(interval_s: float = 1.0, idle_s: float = IDLE_S) -> None:
    """Start the GUI-thread collector once per process (call from the GUI thread, with a QApplication)."""
    global _collector
    if _collector is None:
        # The young garbage of start-up goes now, not into the frozen generation. A whole collection here found
        # nothing to free on the window's start and cost 30 ms of it: the older generations are imports.
        gc.collect(0)
        gc.freeze()
        _collector = _GuiCollector(interval_s, idle_s)
        gc.collect = _collect
