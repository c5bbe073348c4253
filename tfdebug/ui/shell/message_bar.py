"""MessageBar: errors, warnings and notices in one line at the foot of the window.

It lives in the status bar, so showing or clearing a message never moves the rest of
the layout. A long sentence is elided (the whole of it in the tooltip); technical
details, when there are any, sit behind a Details button; ✕ dismisses. A message on a
topic ("run", "unknown-words") is cleared when that topic succeeds later. Text is
always plain text: data from files is never rendered as rich text.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, Qt, QTimer
from PySide6.QtWidgets import QHBoxLayout, QMainWindow, QMessageBox, QSizePolicy, QToolButton, QWidget

from tfdebug.ui.render.plain_text import plain_tooltip
from tfdebug.ui.state.messages import Message
from tfdebug.ui.widgets.elided_label import ElidedLabel

STYLES = {
    "error": "background: #fde2e1; color: #8a0000;",
    "warning": "background: #fff1d6; color: #7a4b00;",
    "info": "color: #1f3b66;",
}
INFO_MS = 8000


class MessageBar(QWidget):
    """The one place the window speaks to the user; `current` is the Message shown (or None)."""

    def __init__(self, window: QMainWindow):
        super().__init__(window)
        self.setObjectName("message-bar")
        self.current: Message | None = None
        self.label = ElidedLabel("")  # a long sentence ends in "…", whole in the tooltip
        self.label.setTextFormat(Qt.TextFormat.PlainText)
        self.label.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.details = QToolButton()
        self.details.clicked.connect(self.show_details)
        self.dismiss_button = QToolButton()
        self.dismiss_button.setText("✕")
        self.retranslate_ui()
        self.dismiss_button.clicked.connect(self.dismiss)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(4, 0, 4, 0)
        layout.addWidget(self.label, 1)
        layout.addWidget(self.details)
        layout.addWidget(self.dismiss_button)
        self._expire = QTimer(self)
        self._expire.setSingleShot(True)
        self._expire.timeout.connect(self._expire_info)
        window.statusBar().addWidget(self, 1)
        self._show(None)

    def retranslate_ui(self) -> None:
        self.details.setText(self.tr("Details…"))
        self.dismiss_button.setToolTip(self.tr("Dismiss"))

    def changeEvent(self, event) -> None:
        if event.type() == QEvent.Type.LanguageChange:
            self.retranslate_ui()
            self._show(self.current)  # the message keeps what it says, not its words: said again
        super().changeEvent(event)

    def show_message(self, message: Message) -> None:
        """Show `message`; an info never hides a standing error or warning."""
        if message.level == "info" and self.current is not None and self.current.level != "info":
            return
        self._show(message)
        if message.level == "info":
            self._expire.start(INFO_MS)
        else:
            self._expire.stop()

    def clear_topic(self, topic: str) -> None:
        """Clear the message when it is about `topic` ("" clears any)."""
        if self.current is not None and (not topic or self.current.topic == topic):
            self._show(None)

    def dismiss(self) -> None:
        self._show(None)

    def text(self) -> str:
        return self.current.text if self.current is not None else ""

    def show_details(self) -> None:
        if self.current is None:
            return
        box = QMessageBox(QMessageBox.Icon.Information, self.tr("Details"), self.current.text,
                          QMessageBox.StandardButton.Close,
                          self.window())
        box.setTextFormat(Qt.TextFormat.PlainText)
        box.setDetailedText(self.current.details)
        box.setObjectName("message-details")
        box.open()

    def _expire_info(self) -> None:
        if self.current is not None and self.current.level == "info":
            self._show(None)

    def _show(self, message: Message | None) -> None:
        self.current = message
        shown = message is not None
        self.label.setText(message.text if shown else "")
        self.label.setToolTip(plain_tooltip(message.text) if shown else "")  # messages quote names
        self.setStyleSheet(f"QLabel {{ {STYLES.get(message.level, '')} padding: 1px 6px; }}" if shown else "")
        self.details.setVisible(shown and bool(message.details))
        self.dismiss_button.setVisible(shown and message.level != "info")
