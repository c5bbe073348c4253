"""The new token's attention row (1 × T) as a strip of labelled cells: where its query looks.

One `AttentionRow` per kind of attention (self, cross). Each cell is one key: its
token, its weight as a number, and a colour on the sequential map (0 … 1), with the
strongest key outlined, so the row reads at a glance at every step.
"""

from __future__ import annotations

import numpy as np
from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QColor, QFontMetrics, QPainter, QPen
from PySide6.QtWidgets import QSizePolicy, QWidget

from tfdebug.ui.render.colors import sequential
from tfdebug.ui.render.plain_text import plain_tooltip

MIN_CELL = 28  # px: narrower cells drop their labels (the colour still shows)
HEIGHT = 54


class AttentionRow(QWidget):
    """A 1 × T row of attention weights with token labels; `set_row(None, ...)` shows why it is empty."""

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.setMinimumHeight(HEIGHT)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        self.title = ""
        self.labels: list[str] = []
        self.weights: np.ndarray | None = None
        self.note = ""
        self._lut = sequential().getLookupTable(0.0, 1.0, 256, alpha=False)

    def set_row(self, weights: np.ndarray | None, labels: list[str], title: str, note: str = "") -> None:
        """Show `weights` (T,) over keys `labels` under `title`; with no weights, `note` says why."""
        self.weights = None if weights is None else np.asarray(weights, dtype=np.float32)
        self.labels, self.title, self.note = list(labels), title, note
        self.setToolTip(plain_tooltip(self._tooltip()))  # token strings: shown literally
        self.update()

    def _tooltip(self) -> str:
        if self.weights is None:
            return ""
        pairs = sorted(zip(self.weights.tolist(), self.labels), reverse=True)[:5]
        return "\n".join(f"{label}: {w:.3f}" for w, label in pairs)

    def paintEvent(self, _event) -> None:
        painter = QPainter(self)
        metrics = QFontMetrics(self.font())
        line = metrics.height()
        painter.setPen(self.palette().windowText().color())
        painter.drawText(QRectF(2, 0, self.width() - 4, line),
                         Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter,
                         metrics.elidedText(self.title, Qt.TextElideMode.ElideRight, self.width() - 4))
        top, height = line + 2, self.height() - line - 4
        if self.weights is None or not len(self.weights):
            painter.drawText(QRectF(2, top, self.width() - 4, height),
                             Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter, self.note)
            return
        n = len(self.weights)
        width = (self.width() - 4) / n
        best = int(np.argmax(self.weights))
        for i, (w, label) in enumerate(zip(self.weights.tolist(), self.labels)):
            rect = QRectF(2 + i * width, top, width - 1, height)
            r, g, b = (int(c) for c in self._lut[int(np.clip(w, 0.0, 1.0) * 255)][:3])
            painter.fillRect(rect, QColor(r, g, b))
            if i == best:
                painter.setPen(QPen(QColor(255, 64, 64), 2))
                painter.drawRect(rect.adjusted(1, 1, -1, -1))
            if width >= MIN_CELL:
                # Light text on the dark end of the map, dark text on the light end.
                painter.setPen(QColor("white") if (r * 299 + g * 587 + b * 114) < 128_000 else QColor("black"))
                half = QRectF(rect.left(), rect.top(), rect.width(), rect.height() / 2)
                painter.drawText(half, Qt.AlignmentFlag.AlignCenter,
                                 metrics.elidedText(label, Qt.TextElideMode.ElideRight, int(width) - 2))
                painter.drawText(half.translated(0, rect.height() / 2), Qt.AlignmentFlag.AlignCenter, f"{w:.2f}")
        painter.end()
