"""SteadyText: plain text a step changes, in a widget whose size does not follow its text.

A QLabel asks its layout for room again at every `setText` (`updateGeometry`), and Qt carries that request up
through every layout to the main window, which lays out its docks once more and repaints their separators: a
step that changes five labels' texts cost the window three more paints after the one that showed the stage
(issue 54, "settled in two frames"). This widget paints its text itself and keeps its size hint: `setText`
repaints it and nothing else. With `grow`, the width it asks for follows the widest text it has shown, so the
layout is asked again only the first time a text is wider than any before (a status bar's fields settle
after the first few steps); otherwise it takes the width its layout gives and elides what does not fit.
`lines` > 1 wraps the text over that many lines, the last one elided; `margin` pixels surround the text (none,
as a QLabel).
"""

from __future__ import annotations

from PySide6.QtCore import QRect, QSize, Qt
from PySide6.QtGui import QPainter, QTextLayout
from PySide6.QtWidgets import QSizePolicy, QWidget


class SteadyText(QWidget):
    """Plain text painted in a fixed number of `lines`; see the module's docstring for `grow`."""

    def __init__(self, text: str = "", lines: int = 1, grow: bool = False, margin: int = 0,
                 parent: QWidget | None = None):
        super().__init__(parent)
        self._text, self._lines, self._grow = "", max(1, lines), grow
        self._width = 0  # the widest text shown so far, with `grow`
        self.margin = margin
        self.setSizePolicy(QSizePolicy.Policy.Fixed if grow else QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Fixed)
        self.setFixedHeight(self._lines * self.fontMetrics().lineSpacing() + 2 * self.margin)
        self.setText(text)

    def text(self) -> str:
        """The whole text (what is said; the painted one may be elided)."""
        return self._text

    def setText(self, text: str) -> None:
        """Show `text`; the layout is asked for room only when `grow` and the text is wider than any before."""
        if text == self._text:
            return
        self._text = text
        if self._grow:
            width = self.fontMetrics().horizontalAdvance(" ".join(text.split()))
            if width > self._width:
                self._width = width
                self.updateGeometry()
        self.update()

    def sizeHint(self) -> QSize:
        """The widest text shown so far (with `grow`), else a few characters; the fixed height."""
        return QSize(self._width + 2 * self.margin if self._grow else 8 * self.fontMetrics().averageCharWidth(),
                     self.height())

    def minimumSizeHint(self) -> QSize:
        """As `sizeHint` with `grow`; else nothing across (the layout's width is taken, the text elided)."""
        return self.sizeHint() if self._grow else QSize(0, self.height())

    def shown_lines(self) -> list[str]:
        """What is painted: the text wrapped at word breaks to the widget's width, at most `lines` lines, the last
        one elided with "…" when the text goes on."""
        width = max(0, self.width() - 2 * self.margin)
        metrics = self.fontMetrics()
        one_line = " ".join(self._text.split())
        if self._lines == 1:  # whole where it fits (elidedText cuts a text exactly as wide as the room it has)
            fits = metrics.horizontalAdvance(one_line) <= width
            return [one_line if fits else metrics.elidedText(one_line, Qt.TextElideMode.ElideRight, width)]
        layout = QTextLayout(one_line, self.font())
        layout.beginLayout()
        starts = []
        while len(starts) < self._lines:
            line = layout.createLine()
            if not line.isValid():
                break
            line.setLineWidth(width)
            starts.append((line.textStart(), line.textLength()))
        layout.endLayout()
        shown = [one_line[start:start + length].rstrip() for start, length in starts]
        if starts and sum(starts[-1]) < len(one_line):  # more text than lines: the last line elided
            shown[-1] = metrics.elidedText(one_line[starts[-1][0]:], Qt.TextElideMode.ElideRight, width)
        return shown

    def paintEvent(self, event) -> None:
        painter = QPainter(self)
        painter.setPen(self.palette().color(self.foregroundRole()))
        spacing = self.fontMetrics().lineSpacing()
        for i, line in enumerate(self.shown_lines()):
            painter.drawText(QRect(self.margin, self.margin + i * spacing, self.width() - 2 * self.margin, spacing),
                             int(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter), line)
