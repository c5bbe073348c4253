"""Qt's side of the window probes in `tfdebug bench` (tfdebug.bench.window_clock, step_latency, user_path).

The bench is Qt-free (tests/test_layering.py): it drives and times the real window through these
few primitives — an offscreen window of benchmark size, a hook on the heatmap image's paint, a
hook on the window's paints, key presses, and one pass of the event loop.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
import time
from contextlib import contextmanager
from typing import Callable

import pyqtgraph as pg
from PySide6.QtCore import QEvent, QEventLoop, QObject, QSettings, Qt, QTimer, qInstallMessageHandler
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication

from tfdebug.ui.shell.window import MainWindow

KEYS = {"F10": Qt.Key.Key_F10, "Return": Qt.Key.Key_Return, "F5": Qt.Key.Key_F5, "B": Qt.Key.Key_B}


@contextmanager
def image_paints(on_paint: Callable[[pg.ImageItem], None]):
    """Call `on_paint(item)` after every pyqtgraph image item paints (its `paint` converts the data to
    colours). Installed before the window exists: PySide resolves a Python override of a virtual once."""
    image_paint = pg.ImageItem.paint

    def paint(item, *args):
        result = image_paint(item, *args)
        on_paint(item)
        return result

    pg.ImageItem.paint = paint
    try:
        yield
    finally:
        pg.ImageItem.paint = image_paint


class _WindowPaints(QObject):
    """Runs the window's update requests itself: every widget of the window paints inside one (the
    heatmap's immediate paint sends one too), so `on_paint()` after it is when that paint ended."""

    def __init__(self, window: MainWindow, on_paint: Callable[[], None]):
        super().__init__(window)
        self._on_paint = on_paint
        window.installEventFilter(self)

    def eventFilter(self, watched, event) -> bool:
        if event.type() == QEvent.Type.UpdateRequest:
            watched.event(event)  # the paint itself, now, to see when it ends
            self._on_paint()
            return True
        return False


def watch_paints(window: MainWindow, on_paint: Callable[[], None]) -> None:
    """Call `on_paint()` each time a paint of the window (any of its widgets) has ended."""
    _WindowPaints(window, on_paint)


def press(window: MainWindow, key: str, shift: bool = False, control: bool = False) -> None:
    """A key press on the window as a person makes it: `key` is "F10" or "Return"."""
    modifiers = Qt.KeyboardModifier.NoModifier
    if shift:
        modifiers |= Qt.KeyboardModifier.ShiftModifier
    if control:
        modifiers |= Qt.KeyboardModifier.ControlModifier
    QTest.keyClick(window, KEYS[key], modifiers)


def activate(window: MainWindow) -> None:
    """Make the window the active one, as a person's click on it does (the offscreen platform can leave a closed
    dialog active, and the keys would go nowhere)."""
    import warnings

    window.activateWindow()
    if QApplication.activeWindow() is not window:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)
            QApplication.setActiveWindow(window)


def objective_by_keys(window: MainWindow, timeout_s: float = 30.0) -> None:
    """Debug ▸ Backward by its keys (Ctrl+Shift+B), then Return in the objective dialog (its first objective, the
    next-token loss); TimeoutError when no dialog opens."""
    import time

    old = window.dialogs.get("backward")
    activate(window)
    press(window, "B", shift=True, control=True)
    deadline = time.perf_counter() + timeout_s
    while window.dialogs.get("backward") in (None, old) or not window.dialogs["backward"].isVisible():
        if time.perf_counter() > deadline:
            raise TimeoutError("Ctrl+Shift+B opened no objective dialog")
        next_events()
    dialog = window.dialogs["backward"]
    dialog.activateWindow()
    deadline = time.perf_counter() + 5.0
    while dialog.focusWidget() is None and time.perf_counter() < deadline:
        next_events()
    QTest.keyClick(dialog.focusWidget() or dialog, Qt.Key.Key_Return)


def next_events() -> None:
    """One pass of the event loop, sleeping until something happens (a 5 ms tick wakes it in a probe window)."""
    QApplication.instance().processEvents(QEventLoop.ProcessEventsFlag.WaitForMoreEvents)


def pump(times: int = 1) -> None:
    """Pass through the events already queued, `times` times, without sleeping."""
    for _ in range(times):
        QApplication.instance().processEvents()


@contextmanager
def probe_window(heads: bool = True, **window_args):
    """An offscreen window of benchmark size with its own settings file (and the Heads dock shown when
    `heads`; else the default docks); a 5 ms tick wakes waiting loops, and no caret blinks (a blink would
    be a repaint no step caused). `window_args` go to MainWindow (models, devices, persist)."""
    app = QApplication.instance() or QApplication([])
    with tempfile.TemporaryDirectory(prefix="tfdebug-bench-") as folder:
        settings = QSettings(os.path.join(folder, "bench.ini"), QSettings.Format.IniFormat)
        window = MainWindow(settings=settings, **window_args)
        window.resize(1600, 1000)
        window.show()
        if heads:
            window.docks["heads"].show()
        app.processEvents()
        tick = QTimer()
        tick.start(5)
        flash = app.cursorFlashTime()
        app.setCursorFlashTime(0)
        try:
            yield window
        finally:
            tick.stop()
            app.setCursorFlashTime(flash)
            window.ctl.close()
            window.close()
            window.deleteLater()
            app.processEvents()


@contextlib.contextmanager
def quiet_qt_messages():
    """Drop the offscreen platform plugin's chatter (e.g. "This plugin does not support
    propagateSizeHints()") while measuring: it says nothing about the measurement."""
    def handler(mode, context, message):
        if "plugin" not in message and not (context.category or "").startswith("qt.qpa"):
            print(f"Qt: {message}")
    previous = qInstallMessageHandler(handler)
    try:
        yield
    finally:
        qInstallMessageHandler(previous)


def choose_capture_budget(window: MainWindow, budget_mb: float | None) -> None:
    """Debug ▸ Capture Budget… as a person answers it: 'At most' `budget_mb` MB (None: the default, half of the
    free memory), then OK; the keys that follow go to the window again."""
    def answer() -> None:
        dialog = window.dialogs["budget"]
        if budget_mb is None:
            dialog.auto.setChecked(True)
        else:
            dialog.mb.setValue(budget_mb)
        dialog.accept()
    QTimer.singleShot(0, answer)
    window.capture_budget_action.trigger()
    window.activateWindow()
    deadline = time.perf_counter() + 30.0
    while QApplication.activeWindow() is not window and time.perf_counter() < deadline:
        next_events()
