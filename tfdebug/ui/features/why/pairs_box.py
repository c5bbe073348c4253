"""The Pairs box of the patching tabs: which clean position goes into which corrupted one, typed as
CLEAN:CORRUPTED pairs (`sessions.alignment.Alignment.parse`), or empty for the default pairing."""

from __future__ import annotations

from PySide6.QtWidgets import QLineEdit, QWidget


class PairsBox(QLineEdit):
    """A line for the positions' pairs; `value()` is None while it is empty."""

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.setMaximumWidth(160)
        self.retranslate_ui()

    def retranslate_ui(self) -> None:
        """Texts in the window's language."""
        self.setPlaceholderText(self.tr("pairs: automatic"))
        self.setToolTip(self.tr("Which clean position goes into which corrupted one, as CLEAN:CORRUPTED pairs "
                                "(e.g. 0:0,4:3; negative from the end). Empty: position by position, or for texts "
                                "of different lengths the shared first tokens, then the rest from the end."))

    def value(self) -> str | None:
        """The pairs typed, or None for the default pairing."""
        return self.text().strip() or None
