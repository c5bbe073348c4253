"""A widget in a scroll area that fits it to the viewport: a dock holding it can be shorter than its minimum."""

from __future__ import annotations

from PySide6.QtWidgets import QScrollArea, QWidget


class _FitScroller(QScrollArea):
    """A frameless scroll area that gives its widget the viewport's size, never less than the widget's minimum
    (QScrollArea's own resizing follows a word-wrapped label's height-for-width and keeps the widget at its
    preferred height, scrolling content that would fit)."""

    def __init__(self, widget: QWidget):
        super().__init__()
        self.setFrameShape(QScrollArea.Shape.NoFrame)
        self.setWidget(widget)

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        widget, minimum = self.widget(), self.widget().minimumSizeHint()
        widget.resize(max(self.viewport().width(), minimum.width()), max(self.viewport().height(), minimum.height()))


def scrolled(widget: QWidget) -> QScrollArea:
    """`widget` in a scroll area: a dock holding it can be shorter than the widget's minimum."""
    return _FitScroller(widget)
