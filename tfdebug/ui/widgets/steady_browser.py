"""SteadyBrowser: a text browser that keeps its document when it is given the HTML it already shows.

`QTextBrowser.setHtml` parses the HTML, lays the whole text out again, scrolls back to the top and repaints,
whatever it held. The Shape and Explain docks are given their stage's HTML again when nothing in it changed (the
dock shown again, the stage shown anew once its tensor was read whole): the same text laid out and painted once
more (issue 54, "the window in two frames").
"""

from __future__ import annotations

from PySide6.QtWidgets import QTextBrowser, QWidget


class SteadyBrowser(QTextBrowser):
    """A QTextBrowser whose text is given by `show_html`, which does nothing when the HTML is the one shown."""

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self._html: str | None = None

    def show_html(self, html: str) -> None:
        """Show `html`, unless it is what the browser shows now."""
        if html != self._html:
            self._html = html
            self.setHtml(html)
