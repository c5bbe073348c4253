"""The K and V cache of one layer and head as two heatmaps that grow by a row per generation step.

Rows are the cached keys (labelled with their tokens), columns the head dimension.
The rows the shown step appended are outlined, so the new key and value stand out.
Both maps share one diverging scale centred on zero.
"""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QRectF
from PySide6.QtGui import QColor
from PySide6.QtWidgets import QGraphicsRectItem, QVBoxLayout, QWidget

from tfdebug.ui.render.colors import diverging, quantize
from tfdebug.ui.widgets.heatmap_axes import label_ticks

ROLES = ("k", "v")


class CacheView(QWidget):
    """K and V cache heatmaps side by side; `show_cache` draws them, `clear` says why there are none."""

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.graphics = pg.GraphicsLayoutWidget()
        self.graphics.setMinimumHeight(150)
        self.plots: dict[str, pg.PlotItem] = {}
        self.images: dict[str, pg.ImageItem] = {}
        self.outlines: dict[str, QGraphicsRectItem] = {}
        lut = diverging().getLookupTable(0.0, 1.0, 256, alpha=False)
        for col, role in enumerate(ROLES):
            plot = self.graphics.addPlot(row=0, col=col, enableMenu=False)  # no menu built (~5 ms a plot)
            plot.invertY(True)
            plot.hideButtons()
            plot.setMouseEnabled(False, False)
            image = pg.ImageItem(axisOrder="row-major")
            image.setLookupTable(lut)
            plot.addItem(image)
            outline = QGraphicsRectItem()
            outline.setPen(pg.mkPen(QColor(255, 64, 64), width=2, cosmetic=True))
            outline.setZValue(10)
            plot.addItem(outline)
            self.plots[role], self.images[role], self.outlines[role] = plot, image, outline
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.graphics)
        self.shown: dict[str, np.ndarray] = {}
        self.new_rows = 0

    def show_cache(self, planes: dict[str, np.ndarray], labels: list[str], new_rows: int, titles: dict[str, str]) -> None:
        """Draw `planes` ('k', 'v' → (keys, head_dim) float32) with row `labels`; outline the last `new_rows` rows."""
        finite = [np.abs(p[np.isfinite(p)]).max(initial=0.0) for p in planes.values()]
        top = float(max(finite, default=0.0)) or 1.0
        self.shown, self.new_rows = dict(planes), new_rows
        for role in ROLES:
            plot, image, outline = self.plots[role], self.images[role], self.outlines[role]
            plane = planes.get(role)
            plot.setTitle(titles.get(role, ""))
            self._show_axes(plot, plane is not None)
            if plane is None:
                image.clear()
                outline.setVisible(False)
                continue
            rows, cols = plane.shape
            image.setImage(quantize(plane, (-top, top)), levels=(0, 255), autoLevels=False)
            image.setRect(QRectF(0, 0, cols, rows))
            plot.getAxis("left").setTicks(label_ticks(labels))
            plot.setRange(xRange=(0, cols), yRange=(0, rows), padding=0.02)
            outline.setRect(QRectF(0, rows - new_rows, cols, new_rows))
            outline.setVisible(new_rows > 0)

    def clear(self, note: str) -> None:
        """No cache to draw: `note` says why, over no axes (empty axes would read as a cache of zeros)."""
        self.shown, self.new_rows = {}, 0
        for role in ROLES:
            self.images[role].clear()
            self.outlines[role].setVisible(False)
            self.plots[role].setTitle(note if role == "k" else "")
            self._show_axes(self.plots[role], False)

    @staticmethod
    def _show_axes(plot: pg.PlotItem, shown: bool) -> None:
        for side in ("left", "bottom"):
            plot.showAxis(side, shown)
