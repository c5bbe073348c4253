"""The line in a dialog where a problem is said in one sentence (the edit, compare, conditions and decoding dialogs)."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel


def sentence_label() -> QLabel:
    """The line in a dialog where a problem is said in one sentence (plain text, never rich text)."""
    label = QLabel("")
    label.setWordWrap(True)
    label.setTextFormat(Qt.TextFormat.PlainText)
    label.setStyleSheet("color: #b00020")
    return label
