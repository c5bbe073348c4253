"""The Learn menu: the attention playground (and, beside it, the Explain dock)."""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication

from tfdebug.ui.playground import open_playground


def _tr(text: str) -> str:
    return QCoreApplication.translate("Learn", text)


def install(window) -> None:
    """Add the Learn menu to `window`."""
    menu = window.menuBar().addMenu(_tr("&Learn"))
    menu.setObjectName("menu-learn")
    playground = menu.addAction(_tr("Attention Playground…"), lambda: open_playground(window))
    playground.setObjectName("action-learn-playground")
    playground.setShortcut("Ctrl+Shift+L")
    window.learn_menu = menu
