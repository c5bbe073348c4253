"""ElidedLabel: a one-line label that, when its text is wider than it, shows the text cut with "…".

Qt's QLabel clips a long line mid-word at its edge (a status message read "The capture budg").
This label draws the text elided at the right instead; `text()` stays the whole text (what
is said, for tests and for a language change) and the caller puts the whole of it in the tooltip.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QPainter
from PySide6.QtWidgets import QLabel


class ElidedLabel(QLabel):
    """A QLabel drawn on one line, elided at the right when it does not fit."""

    def shown_text(self) -> str:
        """What the label draws: its text on one line, cut with "…" to the label's width."""
        one_line = " ".join(self.text().split())
        return self.fontMetrics().elidedText(one_line, Qt.TextElideMode.ElideRight, max(0, self.contentsRect().width()))

    def paintEvent(self, event) -> None:
        painter = QPainter(self)
        self.style().drawItemText(painter, self.contentsRect(),
                                  Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter, self.palette(),
                                  self.isEnabled(), self.shown_text(), self.foregroundRole())
