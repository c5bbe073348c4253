"""Deferred: a dock's content built the first time it is shown or asked for.

Docks hidden when the window opens (Compare, Overview, Query Row) cost the start tens of milliseconds each
to build, mostly their pyqtgraph plots, before anyone has looked at them. Their dock holds a Deferred
instead; the panel is built when the dock is first shown, or earlier when code asks for it (`panel()`).
"""

from __future__ import annotations

from typing import Callable

from PySide6.QtWidgets import QVBoxLayout, QWidget


class Deferred(QWidget):
    """A container whose one child, made by `build()`, is built on the first `panel()` or show."""

    def __init__(self, build: Callable[[], QWidget], parent: QWidget | None = None):
        super().__init__(parent)
        self._build: Callable[[], QWidget] | None = build
        self._panel: QWidget | None = None
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)

    @property
    def when_seen(self):
        """The built panel's WhenSeen (widgets.when_seen), if it has one: the window tells it its dock's visibility."""
        return getattr(self._panel, "when_seen", None)

    def panel(self) -> QWidget:
        """The panel, built now if it was not yet."""
        if self._panel is None:
            build, self._build = self._build, None
            self._panel = build()
            self.layout().addWidget(self._panel)
        return self._panel

    def showEvent(self, event) -> None:
        self.panel()
        super().showEvent(event)
