"""A line edit for a file's path: a file dropped on it (from a file manager) fills in its path."""

from __future__ import annotations

from PySide6.QtWidgets import QLineEdit


class FileLineEdit(QLineEdit):
    """A QLineEdit whose text is a path; dropping a local file on it puts that file's path there."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self.setAcceptDrops(True)

    def _local_file(self, event) -> str | None:
        urls = event.mimeData().urls() if event.mimeData().hasUrls() else []
        return urls[0].toLocalFile() if urls and urls[0].isLocalFile() else None

    def dragEnterEvent(self, event) -> None:
        if self._local_file(event):
            event.acceptProposedAction()
        else:
            super().dragEnterEvent(event)

    def dragMoveEvent(self, event) -> None:
        if self._local_file(event):
            event.acceptProposedAction()
        else:
            super().dragMoveEvent(event)

    def dropEvent(self, event) -> None:
        path = self._local_file(event)
        if path:
            self.setText(path)
            event.acceptProposedAction()
        else:
            super().dropEvent(event)
