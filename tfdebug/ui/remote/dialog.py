"""The Connect to Server dialog: the address, token and (for an encrypted server) key tfdebug serve printed.

Pasting the whole printed line into the address field fills all three.
"""

from __future__ import annotations

from PySide6.QtWidgets import QDialog, QDialogButtonBox, QFormLayout, QLabel, QLineEdit, QVBoxLayout, QWidget

from tfdebug.remote.client import parse_connect_line


class ConnectDialog(QDialog):
    """Address, token and server key; `values()` once accepted."""

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.setWindowTitle(self.tr("Connect to Server"))
        self.address = QLineEdit()
        self.address.setPlaceholderText("127.0.0.1:5757")
        self.token = QLineEdit()
        self.token.setEchoMode(QLineEdit.EchoMode.Password)
        self.server_key = QLineEdit()
        self.server_key.setPlaceholderText(self.tr("only for an encrypted server"))
        self._typed = 0
        self.address.textEdited.connect(self._maybe_line)
        form = QFormLayout()
        form.addRow(self.tr("Address"), self.address)
        form.addRow(self.tr("Token"), self.token)
        form.addRow(self.tr("Server key"), self.server_key)
        hint = QLabel(self.tr("Paste the line tfdebug serve printed, or its address and token. From another "
                              "machine, forward the port first: ssh -N -L PORT:127.0.0.1:PORT server."))
        hint.setWordWrap(True)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(hint)
        layout.addLayout(form)
        layout.addWidget(buttons)

    def _maybe_line(self, text: str) -> None:
        pasted, self._typed = len(text) - self._typed > 1, len(text)
        if pasted:  # a paste brings the whole line at once; typed, it is read when the dialog is accepted
            self._fill_from(text)

    def _fill_from(self, text: str) -> None:
        parsed = parse_connect_line(text)
        if parsed is not None:
            address, token, key = parsed
            self.address.setText(address)
            self.token.setText(token)
            self.server_key.setText(key or "")

    def values(self) -> tuple[str, str, str | None]:
        """(address, token, server key or None), the line typed into Address read first."""
        self._fill_from(self.address.text())
        return self.address.text().strip(), self.token.text().strip(), self.server_key.text().strip() or None
