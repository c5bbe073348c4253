"""What each Why This Output tab shows, with its formula, in a line or two above its picture (Learn mode's level:
the notes' words, the window's language)."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel


class LearnText(QLabel):
    """A tab's explanation: plain text, wrapped, in a quieter colour than the tab's own messages."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self.setTextFormat(Qt.TextFormat.PlainText)
        self.setWordWrap(True)
        self.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.setStyleSheet("color: #555;")
