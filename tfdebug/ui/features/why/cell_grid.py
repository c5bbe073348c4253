"""A zoomable grid of coloured cells with labelled axes, words written in cells wide enough to hold them, and
the cell a click lands on: what the Lens (layers × positions) and the Attribution (layers × heads) draw."""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Signal
from PySide6.QtGui import QFont

from tfdebug.ui.render import colors
from tfdebug.ui.widgets.heatmap_axes import TokenAxis

#: the most words a grid writes at once (zoom in to read more cells)
MOST_WORDS = 600
#: pixels a cell needs across before its word is written in it
WORD_PX = 34


class CellGrid(pg.PlotWidget):
    """`draw(values, levels, diverging)` draws `values` (rows × columns; NaN: not computed) with row 0 at the
    top; `cell_clicked(row, column)`; `range_changed(first, last)`, the columns in view after a zoom or pan."""

    cell_clicked = Signal(int, int)
    range_changed = Signal(int, int)

    def __init__(self, parent=None):
        self.bottom, self.left = TokenAxis("bottom", rotate_labels=True), TokenAxis("left")
        super().__init__(parent, axisItems={"bottom": self.bottom, "left": self.left}, enableMenu=False)
        self.image = pg.ImageItem(axisOrder="row-major")
        self.addItem(self.image)
        self.getViewBox().invertY(True)
        self.getViewBox().setAspectLocked(False)
        self.words: list[pg.TextItem] = []
        self.texts: np.ndarray | None = None  # rows × columns of words ('' for none)
        self.shape = (0, 0)
        self.light = np.zeros((0, 0), dtype=bool)
        self.image.mouseClickEvent = self._clicked
        self.getViewBox().sigXRangeChanged.connect(self._moved)

    def set_axes(self, row_labels: list[str], column_labels: list[str]) -> None:
        """Label the rows (top to bottom) and the columns."""
        self.left.set_cells(len(row_labels), row_labels)
        self.bottom.set_cells(len(column_labels), column_labels)

    def draw(self, values: np.ndarray, levels: tuple[float, float], diverging: bool = False,
             texts: np.ndarray | None = None, keep_view: bool = False) -> None:
        """Colour each cell of `values`; `texts` (same shape) are written where a cell is wide enough."""
        lut = (colors.diverging() if diverging else colors.sequential()).getLookupTable(nPts=colors.LUT_SIZE,
                                                                                        alpha=True)
        rgba = colors.to_rgba(values.astype(np.float32), lut, levels)
        rgba[~np.isfinite(values)] = (235, 235, 235, 255)  # not computed yet
        self.image.setImage(rgba, autoLevels=False)
        self.light = rgba[..., :3] @ np.array([0.299, 0.587, 0.114]) > 140  # cells a dark word reads on
        reshaped = values.shape != self.shape
        self.shape, self.texts = values.shape, texts
        if reshaped or not keep_view:
            self.getViewBox().setRange(xRange=(0, max(1, values.shape[1])), yRange=(0, max(1, values.shape[0])),
                                       padding=0)
        self._write()

    def blank(self) -> None:
        """No cells and no labels: the pass on screen has not been read (yet)."""
        self.set_axes([], [])
        self.draw(np.full((1, 1), np.nan), (0.0, 1.0))

    def visible_columns(self) -> tuple[int, int]:
        """The first and last column in view."""
        (x0, x1), _ = self.getViewBox().viewRange()
        return max(0, int(np.floor(x0))), min(self.shape[1] - 1, int(np.ceil(x1)))

    def _moved(self) -> None:
        if self.shape[1]:
            self.range_changed.emit(*self.visible_columns())
            self._write()

    def _write(self) -> None:
        """Words in the cells in view when each is wide enough and they are not too many."""
        for item in self.words:
            self.removeItem(item)
        self.words = []
        if self.texts is None or not self.shape[1]:
            return
        first, last = self.visible_columns()
        width_px = self.getViewBox().width() / max(1, last - first + 1)
        if width_px < WORD_PX or (last - first + 1) * self.shape[0] > MOST_WORDS:
            return
        font = QFont()
        font.setPointSize(7)
        for r in range(self.shape[0]):
            for c in range(first, last + 1):
                word = self.texts[r, c]
                if word:
                    ink = (0, 0, 0) if self.light[r, c] else (255, 255, 255)
                    item = pg.TextItem(word, color=ink, anchor=(0.5, 0.5))
                    item.setFont(font)
                    item.setPos(c + 0.5, r + 0.5)
                    self.addItem(item)
                    self.words.append(item)

    def _clicked(self, event) -> None:
        point = event.pos()
        row, column = int(point.y()), int(point.x())
        if 0 <= row < self.shape[0] and 0 <= column < self.shape[1]:
            event.accept()
            self.cell_clicked.emit(row, column)
