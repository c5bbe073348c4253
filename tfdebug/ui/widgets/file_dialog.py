"""Choosing a file to open in the window's language.

The system's own file dialog speaks the system's language. When the window speaks another
one (a Chinese window on an English desktop), Qt's own dialog is used instead: its words
come from Qt's qtbase catalogue (loaded by `i18n.language.set_language`, gaps filled by
ours below) and its Date Modified column is written in the window's locale, not the system's.
"""

from __future__ import annotations

from PySide6.QtCore import QT_TRANSLATE_NOOP, QIdentityProxyModel, QLocale, Qt
from PySide6.QtWidgets import QFileDialog, QFileSystemModel, QWidget

from tfdebug.ui.i18n.language import current_language, system_language

DATE_COLUMN = 3  # QFileSystemModel's columns: name, size, type, date modified

# Texts of Qt's file dialog that Qt's own zh_CN catalogue (as PySide6 ships it) lacks: our catalogue,
# asked first, has them under Qt's contexts.
QT_TRANSLATE_NOOP("QFileDialog", "&Look in:")
QT_TRANSLATE_NOOP("QFileDialog", "Files of &type:")
QT_TRANSLATE_NOOP("QAbstractFileIconProvider", "Folder")
QT_TRANSLATE_NOOP("QAbstractFileIconProvider", "Drive")


class _LocalDates(QIdentityProxyModel):
    """The file system model with its dates written in the window's locale (QFileSystemModel uses the system's)."""

    def data(self, index, role=Qt.ItemDataRole.DisplayRole):
        source = self.sourceModel()
        if role == Qt.ItemDataRole.DisplayRole and index.column() == DATE_COLUMN and isinstance(source,
                                                                                                QFileSystemModel):
            when = source.lastModified(self.mapToSource(index))
            return QLocale().toString(when, QLocale.FormatType.ShortFormat)
        return super().data(index, role)


def open_file_name(parent: QWidget, caption: str, folder: str, filters: str) -> str:
    """The path of an existing file the user chose, or "" when they cancelled."""
    if current_language() == system_language():
        return QFileDialog.getOpenFileName(parent, caption, folder, filters)[0]
    dialog = QFileDialog(parent, caption, folder, filters)
    dialog.setObjectName("file-dialog")
    dialog.setOption(QFileDialog.Option.DontUseNativeDialog, True)
    dialog.setFileMode(QFileDialog.FileMode.ExistingFile)
    dialog.setAcceptMode(QFileDialog.AcceptMode.AcceptOpen)
    dialog.setProxyModel(_LocalDates(dialog))
    chosen = dialog.selectedFiles() if dialog.exec() == QFileDialog.DialogCode.Accepted else []
    dialog.deleteLater()
    return chosen[0] if chosen else ""
