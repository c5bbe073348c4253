"""A small horizontal colour bar labelled with its low and high values (thumbnails' shared scale)."""

from __future__ import annotations

import numpy as np
from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QImage, QPainter
from PySide6.QtWidgets import QSizePolicy, QWidget

from tfdebug.ui.render import colors


class ColourBar(QWidget):
    """A small horizontal colour bar with its low and high values: the thumbnails' own scale."""

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.lut = np.zeros((colors.LUT_SIZE, 3), dtype=np.uint8)
        self.lo, self.hi = 0.0, 1.0
        self.decades: tuple[int, int] | None = None
        self.setFixedHeight(self.fontMetrics().height() + 4)
        self.setMinimumWidth(180)
        self.setSizePolicy(QSizePolicy.Policy.Fixed, QSizePolicy.Policy.Fixed)

    def set_scale(self, lut: np.ndarray, levels: tuple[float, float], decades: tuple[int, int] | None = None) -> None:
        """Colour `lut` between `levels`, or with `decades` (a log scale's floor and top powers of ten) labelled in
        those: 1e-6 … 1."""
        self.lut = np.ascontiguousarray(lut[:, :3], dtype=np.uint8)
        self.lo, self.hi = float(levels[0]), float(levels[1])
        self.decades = decades
        low, high = self.labels()
        self.setToolTip(self.tr("Colour scale of every thumbnail: {lo} to {hi}, over all heads").format(lo=low,
                                                                                                        hi=high))
        self.update()

    def labels(self) -> tuple[str, str]:
        """What the bar's two ends read: values, or powers of ten under a log scale."""
        if self.decades is not None:
            return colors.decade_label(self.decades[0]), colors.decade_label(self.decades[1])
        return colors.format_value(self.lo), colors.format_value(self.hi)

    def text_range(self) -> tuple[float, float]:
        """The low and high values the bar is labelled with."""
        return self.lo, self.hi

    def paintEvent(self, _event) -> None:
        painter = QPainter(self)
        metrics = self.fontMetrics()
        lo, hi = self.labels()
        left, right = metrics.horizontalAdvance(lo) + 4, metrics.horizontalAdvance(hi) + 4
        width = max(self.width() - left - right, 8)
        row = np.ascontiguousarray(self.lut[None, :, :])
        strip = QImage(row.data, row.shape[1], 1, row.strides[0], QImage.Format.Format_RGB888)
        painter.drawImage(QRectF(left, 2, width, self.height() - 4), strip)
        painter.setPen(self.palette().windowText().color())
        painter.drawText(QRectF(0, 0, left, self.height()),
                         Qt.AlignmentFlag.AlignVCenter | Qt.AlignmentFlag.AlignLeft, lo)
        painter.drawText(QRectF(left + width, 0, right, self.height()),
                         Qt.AlignmentFlag.AlignVCenter | Qt.AlignmentFlag.AlignRight, hi)
        painter.end()
