"""Zoom and pan over a grid of cells in a pyqtgraph plot: the wheel, a drag, keys, and Fit.

The wheel zooms about the pointer and a drag pans (pyqtgraph's own view box handling); with
the plot focused, + and − zoom about the centre, the arrow keys pan by a tenth of the view and
Home fits. The view never leaves the grid. Once the view stops moving (`DELAY_MS` after the
last change) `settled` says which cells are visible and how many pixels show them, so the
owner can read that tile at screen resolution, off the GUI thread.
"""

from __future__ import annotations

import math

import pyqtgraph as pg
from PySide6.QtCore import QEvent, QObject, QPointF, Qt, QTimer, Signal

DELAY_MS = 120       # a wheel turn sends a burst of range changes: read the tile once it ends
ZOOM_STEP = 2.0      # + and − halve or double the visible cells
PAN_SHARE = 0.1      # an arrow key moves the view by a tenth of what it shows
MIN_CELLS = 4        # the closest zoom shows 4 cells across


class ZoomView(QObject):
    """Zoom and pan of `plot` (its view box) over a `rows` × `cols` grid of unit cells, drawn
    inverted (row 0 at the top). Keys go to `widget` (the plot's GraphicsView)."""

    settled = Signal()  # the view stopped moving: `visible()` and `pixels()` say what to read

    def __init__(self, widget: pg.GraphicsView, plot: pg.PlotItem, parent: QObject | None = None):
        super().__init__(parent)
        self.widget, self.plot, self.vb = widget, plot, plot.vb
        self.shape = (0, 0)
        self.vb.setMouseEnabled(True, True)
        widget.setFocusPolicy(Qt.FocusPolicy.StrongFocus)  # a click or Tab gives it the keys
        widget.installEventFilter(self)
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(DELAY_MS)
        self._timer.timeout.connect(self.settled.emit)
        self.vb.sigRangeChanged.connect(lambda *_: self._timer.start())

    # ----- the grid ------------------------------------------------------------------------
    def set_shape(self, rows: int, cols: int) -> bool:
        """Zoom over a grid of `rows` × `cols`. A new size fits the view (True); the same size keeps
        the user's zoom (stepping from scores to probabilities stays on the cells looked at)."""
        if (rows, cols) == self.shape:
            return False
        self.shape = (rows, cols)
        self.vb.setLimits(xMin=0, xMax=cols, yMin=0, yMax=rows, minXRange=min(MIN_CELLS, cols),
                          minYRange=min(MIN_CELLS, rows), maxXRange=cols, maxYRange=rows)
        self.fit()
        return True

    def fit(self) -> None:
        """Show the whole grid."""
        rows, cols = self.shape
        if rows and cols:
            self.vb.setRange(xRange=(0, cols), yRange=(0, rows), padding=0)

    def is_fit(self) -> bool:
        """Whether every cell is visible."""
        (r0, r1), (c0, c1) = self.visible()
        return (r0, c0) == (0, 0) and (r1, c1) == self.shape

    # ----- what is on screen --------------------------------------------------------------------
    def visible(self) -> tuple[tuple[int, int], tuple[int, int]]:
        """(rows [r0, r1), columns [c0, c1)): every cell at least partly in view, within the grid."""
        (x0, x1), (y0, y1) = self.vb.viewRange()
        rows, cols = self.shape

        def cells(lo: float, hi: float, n: int) -> tuple[int, int]:
            a = min(max(0, math.floor(lo + 1e-6)), max(0, n - 1))
            return a, max(a + 1, min(n, math.ceil(hi - 1e-6)))
        return cells(y0, y1, rows), cells(x0, x1, cols)

    def pixels(self) -> tuple[int, int]:
        """(height, width) of the view in device pixels: the finest a tile can show."""
        rect = self.vb.sceneBoundingRect()
        ratio = self.widget.devicePixelRatioF()
        return max(1, round(rect.height() * ratio)), max(1, round(rect.width() * ratio))

    # ----- keys ---------------------------------------------------------------------------------
    def zoom(self, factor: float) -> None:
        """Show `factor` times as many cells across (below 1: zoom in), about the view's centre."""
        self.vb.scaleBy((factor, factor), center=self.vb.viewRect().center())

    def pan(self, rows: float, cols: float) -> None:
        """Move the view by `rows` and `cols` shares of what it shows (positive: down, right)."""
        rect = self.vb.viewRect()
        self.vb.translateBy(QPointF(cols * rect.width(), rows * rect.height()))

    def eventFilter(self, watched, event) -> bool:
        if watched is self.widget and event.type() == QEvent.Type.KeyPress and self.shape != (0, 0):
            key = event.key()
            moves = {Qt.Key.Key_Left: (0, -PAN_SHARE), Qt.Key.Key_Right: (0, PAN_SHARE),
                     Qt.Key.Key_Up: (-PAN_SHARE, 0), Qt.Key.Key_Down: (PAN_SHARE, 0)}
            if key in (Qt.Key.Key_Plus, Qt.Key.Key_Equal):
                self.zoom(1 / ZOOM_STEP)
            elif key in (Qt.Key.Key_Minus, Qt.Key.Key_Underscore):
                self.zoom(ZOOM_STEP)
            elif key in moves:
                self.pan(*moves[key])
            elif key == Qt.Key.Key_Home:
                self.fit()
            else:
                return False
            return True
        return super().eventFilter(watched, event)
