"""The Learn menu: the Explain dock and the attention playground."""

from __future__ import annotations

from PySide6.QtCore import QEvent
from PySide6.QtWidgets import QMenu

from tfdebug.ui import explain_panel
from tfdebug.ui.playground import open_playground


class LearnMenu(QMenu):
    """Learn ▸ Explain (the dock's toggle) and Attention Playground…, retitled at every language change."""

    def __init__(self, window):
        super().__init__(window)
        self.setObjectName("menu-learn")
        self.explain = window.docks["explain"].toggleViewAction()
        self.addAction(self.explain)
        self.playground = self.addAction("", lambda: open_playground(window))
        self.playground.setObjectName("action-learn-playground")
        self.playground.setShortcut("Ctrl+Shift+L")
        self.retranslate_ui()

    def retranslate_ui(self) -> None:
        self.setTitle(self.tr("&Learn"))
        self.playground.setText(self.tr("Attention Playground…"))

    def changeEvent(self, event) -> None:
        if event.type() == QEvent.LanguageChange:
            self.retranslate_ui()
        super().changeEvent(event)


def install(window) -> LearnMenu:
    """Add the Explain dock and the Learn menu to `window`."""
    explain_panel.install(window)
    menu = LearnMenu(window)
    window.menuBar().addMenu(menu)
    window.learn_menu = menu
    return menu
