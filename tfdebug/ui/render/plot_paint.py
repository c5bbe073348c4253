"""One paint per change of a pyqtgraph view.

pyqtgraph defers auto-ranging and its view matrices to the moment before a paint. Done
there, they mark items dirty again while the scene is painting, and Qt paints the whole
view (and, through QGraphicsScene, the window's other dirty widgets) a second time. Panels
call `settle` once they have changed a view's items, so the first paint is the only one.

The scene's pass over its changed items is queued too: run in the next turn of the event loop, it paints the
view in a window paint of its own, after the one that drew the step's other panels. `paint_now` runs that pass
at once, which paints the window there and then (the heatmap, alone and first: what the user waits for);
`paint_with_step` marks the view's viewport for the window's next paint instead, the one that draws every other
panel the step changed.

What changes a view after its panel settled it (a layout that resized a plot, a colour bar's range) would still
be found by the view's own `prepareForPaint`, inside the window's paint, and queue one more paint of the window:
`settle_before_paint` runs every shown view's deferred updates and its scene's queued pass just before the window
paints (`MainWindow.event`), so that paint is the step's last.
"""

from __future__ import annotations

import weakref
from collections import deque
from typing import Callable

import pyqtgraph as pg
from PySide6.QtCore import QCoreApplication, QEvent, QObject, Qt
from PySide6.QtWidgets import QWidget
from shiboken6 import isValid


_SETTLED: weakref.WeakSet[pg.GraphicsView] = weakref.WeakSet()  # the views panels settle: looked at before a paint


def settle(view: pg.GraphicsView) -> None:
    """Run the view's deferred range and matrix updates now, before its next paint (and before every window paint
    from now on: `settle_before_paint`)."""
    _SETTLED.add(view)
    view.scene().prepareForPaint()


def paint_now(view: pg.GraphicsView) -> None:
    """`settle` the view and run its scene's queued pass over the changed items now, which paints the window now:
    the view's paint is not left to a turn of its own. (A `repaint()` would paint it once now, and the queued pass
    would paint the same items again.)"""
    settle(view)
    if view.isVisible():
        QCoreApplication.sendPostedEvents(view.scene(), QEvent.Type.MetaCall)


def paint_with_step(view: pg.GraphicsView) -> None:
    """`settle` the view and mark its viewport for the window's next paint, with the other panels the step
    changed, rather than one paint later when its scene's queued pass reaches it (that pass finds it drawn and
    repaints only what is still dirty)."""
    settle(view)
    view.viewport().update()


def settle_before_paint(window: QWidget) -> None:
    """Settle every shown view of `window` that a panel has settled before, and run its scene's queued pass over
    changed items: called as the window is about to paint, so what they mark dirty is drawn in that paint rather
    than in one more. (The views are remembered by `settle`: looking them up in the window took up to 1 ms a paint.)"""
    for view in list(_SETTLED):
        if isValid(view) and view.isVisible() and view.window() is window:
            view.scene().prepareForPaint()
            QCoreApplication.sendPostedEvents(view.scene(), QEvent.Type.MetaCall)


def keep_text_space(*axes: pg.AxisItem) -> None:
    """Let the axes' room for tick labels grow but never shrink.

    pyqtgraph sizes an axis from the labels it drew last. Labels that change width from one
    stage to the next (counts 0…1 while the stats are pending, then 0…200000) would resize
    the axis, relayout its plot and repaint it whole, two or three times a step.
    """
    for axis in axes:
        axis.setStyle(autoReduceTextSpace=False)


class AfterPaint(QObject):
    """Runs calls once the window has made the paints already asked for.

    Qt posts a window's paint request (`UpdateRequest`) at `Qt::LowEventPriority`; a call posted here goes below it,
    so in the pass over posted events that paints the window it comes after the paint. With no paint pending it
    runs in the next pass. Calls are dropped with the owner (the window closing)."""

    _TYPE = QEvent.Type(QEvent.registerEventType())
    PRIORITY = Qt.EventPriority.LowEventPriority.value - 1

    def __init__(self, owner: QObject):
        super().__init__(owner)
        self._calls: deque[Callable[[], None]] = deque()

    def call(self, fn: Callable[[], None]) -> None:
        """Run `fn` after the paints asked for so far."""
        self._calls.append(fn)
        QCoreApplication.postEvent(self, QEvent(self._TYPE), self.PRIORITY)

    def event(self, event: QEvent) -> bool:
        if event.type() == self._TYPE:
            if self._calls:
                self._calls.popleft()()
            return True
        return super().event(event)
