"""Debug ▸ Check Against the Model: when a finished live pass is compared with the unmodified model.

Four exclusive choices, as `tfdebug capture --verify` offers: where the check fits in the memory free (the
default), always, each layer's attention only, checked in the pass (no second forward), never, for a pass the window runs itself (a served pass is not checked: the entries are
disabled while one is on screen, and say so). The choice is the run settings' `verify` (`ui.models.run.RunModel`), which the loader
reads when a pass finishes; it is remembered in the window's settings (`SETTING_KEY`) and restored at the next
launch, a stored value that is not one of the choices read as the default.
"""

from __future__ import annotations

from typing import Callable

from PySide6.QtCore import QCoreApplication, QEvent, QSettings, QT_TRANSLATE_NOOP
from PySide6.QtGui import QAction, QActionGroup
from PySide6.QtWidgets import QMenu

from tfdebug.sessions.peak import VERIFY
from tfdebug.ui.models.run import RunModel

SETTING_KEY = "check/verify"

# each choice's entry, in the order of VERIFY
TITLES = {"auto": QT_TRANSLATE_NOOP("CheckMenu", "When It Fits in Memory"),
          "always": QT_TRANSLATE_NOOP("CheckMenu", "Always"),
          "attention": QT_TRANSLATE_NOOP("CheckMenu", "Attention Only, in the Pass (Faster)"),
          "never": QT_TRANSLATE_NOOP("CheckMenu", "Never")}
TITLE = QT_TRANSLATE_NOOP("MainWindow", "Check Against the Model")


def stored_policy(settings: QSettings) -> str:
    """The choice saved last time; "auto" when none was saved or the saved one is not a choice."""
    value = settings.value(SETTING_KEY)
    return value if isinstance(value, str) and value in VERIFY else "auto"


class CheckMenu(QMenu):
    """The submenu: one checkable entry per choice, the run settings' current one checked; choosing one sets it
    and remembers it. Its entries are said again in a new language (as the window's own menus are)."""

    def __init__(self, parent: QMenu, run: RunModel, settings: QSettings, applies: Callable[[], bool]):
        super().__init__(parent)
        self._run, self._applies = run, applies
        self.setToolTipsVisible(True)
        self.setObjectName("menu-check")
        group = QActionGroup(self)
        group.setExclusive(True)
        for policy in VERIFY:
            item = QAction(self)
            item.setObjectName(f"check-{policy}")
            item.setCheckable(True)
            item.triggered.connect(lambda checked=False, p=policy: _choose(run, settings, p))
            group.addAction(item)
            self.addAction(item)
        self.refresh()
        self.aboutToShow.connect(self.refresh)

    def refresh(self) -> None:
        """Each entry's text in the current language, the run settings' choice checked; the entries disabled, and
        saying why, while the pass on screen is one the window does not check (a served pass)."""
        applies = self._applies()
        why = "" if applies else QCoreApplication.translate(
            "CheckMenu", "The pass on screen runs on a server: the window checks only the passes it runs itself.")
        for item in self.actions():
            policy = item.objectName().removeprefix("check-")
            item.setText(QCoreApplication.translate("CheckMenu", str(TITLES[policy])))
            item.setChecked(policy == self._run.verify)
            item.setEnabled(applies)
            item.setToolTip(why)
            item.setStatusTip(why)

    def changeEvent(self, event: QEvent) -> None:  # noqa: N802 (Qt's name)
        """A language change says the entries again."""
        if event.type() == QEvent.Type.LanguageChange:
            self.refresh()
        super().changeEvent(event)


def check_menu(parent: QMenu, run: RunModel, settings: QSettings, applies: Callable[[], bool]) -> QMenu:
    """Debug ▸ Check Against the Model, on the choice saved last time (`stored_policy`); `applies()` says whether
    the pass on screen is one the window checks (asked each time the menu opens)."""
    run.set_verify(stored_policy(settings))
    return CheckMenu(parent, run, settings, applies)


def _choose(run: RunModel, settings: QSettings, policy: str) -> None:
    run.set_verify(policy)
    settings.setValue(SETTING_KEY, policy)
