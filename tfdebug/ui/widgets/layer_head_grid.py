"""A grid of small images, one row per stage and one column per head, that says which cell was clicked.

The images are one RGBA mosaic drawn with one `drawImage` (448 small images drawn one by one took
~150 ms a paint at 28 × 16 on the development machine); a row without images is a row of empty boxes.
The cells are square, from CELL to MAX_CELL pixels: `fit(size)` picks the largest that lets every row and
head fit in `size` (a 4-layer × 4-head model fills its panel; a 30-layer one scrolls at CELL)."""

from __future__ import annotations

import numpy as np
from PySide6.QtCore import QPoint, QRect, QSize, Qt, Signal
from PySide6.QtGui import QColor, QImage, QPainter, QPen
from PySide6.QtWidgets import QSizePolicy, QWidget

CELL = 28  # the least pixels per cell, the thumbnail and its gap
MAX_CELL = 128  # the most: a thumbnail this size shows a plane's structure; larger adds nothing
GAP = 2
SELECTED = QColor(255, 140, 0)
EMPTY = QColor(200, 200, 200)


class LayerHeadGrid(QWidget):
    """Rows labelled on the left, heads numbered on top; a cell without an image is an empty box.

    `cell_clicked(row, head)` is emitted when a cell with an image is clicked.
    """

    cell_clicked = Signal(int, int)

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.row_labels: list[str] = []
        self.heads = 0
        self.mosaic = np.zeros((0, 0, 4), dtype=np.uint8)  # (rows·cell, heads·cell, RGBA)
        self.drawn_rows: set[int] = set()
        self.selected: tuple[int, int] | None = None
        self.cell = CELL  # pixels per cell now (see fit)
        self.setSizePolicy(QSizePolicy.Policy.Fixed, QSizePolicy.Policy.Fixed)

    def set_shape(self, row_labels: list[str], heads: int) -> None:
        """The rows and the number of head columns; the images are forgotten."""
        self.row_labels, self.heads = list(row_labels), heads
        self._new_mosaic()

    def fit(self, size: QSize) -> bool:
        """Size the cells so that every row and head fit in `size` (between CELL and MAX_CELL pixels); True
        when the cell size changed (the images are then forgotten: set them again)."""
        rows, heads = max(len(self.row_labels), 1), max(self.heads, 1)
        room = min((size.width() - self._left() - GAP) // heads, (size.height() - self._top() - GAP) // rows)
        cell = max(CELL, min(MAX_CELL, room))
        if cell == self.cell:
            return False
        self.cell = cell
        self._new_mosaic()
        return True

    def _new_mosaic(self) -> None:
        self.mosaic = np.zeros((len(self.row_labels) * self.cell, self.heads * self.cell, 4), dtype=np.uint8)
        self.drawn_rows = set()
        self.updateGeometry()
        self.resize(self.sizeHint())
        self.update()

    def set_row_images(self, row: int, rgba: np.ndarray) -> None:
        """Row `row`'s images: `rgba[h]` is head h's (height, width, 4) uint8 image, scaled to the cell
        (nearest neighbour: each value stays one flat block)."""
        heads, height, width = rgba.shape[:3]
        cell = self.cell
        size = cell - GAP
        up = rgba[:, (np.arange(size) * height) // size][:, :, (np.arange(size) * width) // size]
        block = np.zeros((size, self.heads, cell, 4), dtype=np.uint8)
        block[:, :heads, :size] = up.transpose(1, 0, 2, 3)
        self.mosaic[row * cell:row * cell + size] = block.reshape(size, self.heads * cell, 4)
        self.drawn_rows.add(row)
        self.update()

    def set_selected(self, cell: tuple[int, int] | None) -> None:
        if cell != self.selected:
            self.selected = cell
            self.update()

    def _left(self) -> int:
        metrics = self.fontMetrics()
        return max((metrics.horizontalAdvance(t) for t in self.row_labels), default=0) + 8

    def _top(self) -> int:
        return self.fontMetrics().height() + 4

    def sizeHint(self) -> QSize:
        return QSize(self._left() + self.heads * self.cell + GAP, self._top() + len(self.row_labels) * self.cell + GAP)

    def cell_rect(self, row: int, head: int) -> QRect:
        """Where cell (row, head)'s image is drawn, in this widget's coordinates."""
        cell = self.cell
        return QRect(self._left() + head * cell, self._top() + row * cell, cell - GAP, cell - GAP)

    def cell_at(self, point: QPoint) -> tuple[int, int] | None:
        """The cell (row, head) under `point`, or None."""
        x, y = point.x() - self._left(), point.y() - self._top()
        if x < 0 or y < 0:
            return None
        head, row = x // self.cell, y // self.cell
        return (row, head) if row < len(self.row_labels) and head < self.heads else None

    def mousePressEvent(self, event) -> None:
        cell = self.cell_at(event.position().toPoint())
        if cell is not None and cell[0] in self.drawn_rows and event.button() == Qt.MouseButton.LeftButton:
            self.cell_clicked.emit(*cell)
        super().mousePressEvent(event)

    def paintEvent(self, _event) -> None:
        painter = QPainter(self)
        text = self.palette().windowText().color()
        painter.setPen(text)
        left, top, cell = self._left(), self._top(), self.cell
        step = max(1, (self.fontMetrics().horizontalAdvance("000") + 4) // cell + 1)
        for head in range(0, self.heads, step):
            painter.drawText(QRect(left + head * cell, 0, cell * step, top),
                             Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter, str(head))
        for row, label in enumerate(self.row_labels):
            painter.setPen(text)
            painter.drawText(QRect(0, top + row * cell, left - 6, cell),
                             Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter, label)
            if row not in self.drawn_rows:
                painter.setPen(QPen(EMPTY, 1, Qt.PenStyle.DotLine))
                for head in range(self.heads):
                    painter.drawRect(self.cell_rect(row, head).adjusted(0, 0, -1, -1))
        if self.drawn_rows and self.mosaic.size:
            image = QImage(self.mosaic.data, self.mosaic.shape[1], self.mosaic.shape[0], self.mosaic.strides[0],
                           QImage.Format.Format_RGBA8888)
            painter.drawImage(left, top, image)
        if self.selected is not None:
            painter.setPen(QPen(SELECTED, 2))
            painter.drawRect(self.cell_rect(*self.selected).adjusted(-1, -1, 0, 0))
        painter.end()
