"""One paint per change of a pyqtgraph view.

pyqtgraph defers auto-ranging and its view matrices to the moment before a paint. Done
there, they mark items dirty again while the scene is painting, and Qt paints the whole
view (and, through QGraphicsScene, the window's other dirty widgets) a second time. Panels
call `settle` once they have changed a view's items, so the first paint is the only one.
"""

from __future__ import annotations

import pyqtgraph as pg


def settle(view: pg.GraphicsView) -> None:
    """Run the view's deferred range and matrix updates now, before its next paint."""
    view.scene().prepareForPaint()


def keep_text_space(*axes: pg.AxisItem) -> None:
    """Let the axes' room for tick labels grow but never shrink.

    pyqtgraph sizes an axis from the labels it drew last. Labels that change width from one
    stage to the next (counts 0…1 while the stats are pending, then 0…200000) would resize
    the axis, relayout its plot and repaint it whole, two or three times a step.
    """
    for axis in axes:
        axis.setStyle(autoReduceTextSpace=False)
