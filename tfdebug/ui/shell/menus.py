"""The menu bar, built from the registry's declarations (`tfdebug.ui.actions.registry`): every action that names
a menu is an entry of it, the entries sorted by (group, order) with a separator between two groups; the
entries filled at run time (`SUBMENUS`: Open Recent, the breakpoint kinds, the docks, Language, the heatmap's
menu) are declared there too and filled here by the window's `fillers`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

from PySide6.QtCore import QCoreApplication
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QMenu, QMenuBar

from tfdebug.ui.actions import registry


@dataclass
class MenuBar:
    """The menus built (by id), the separator that opens each group after a menu's first ((menu, group)), and
    the titled entries' menus (by id) that `retranslate` titles."""

    menus: dict[str, QMenu] = field(default_factory=dict)
    separators: dict[tuple[str, int], QAction] = field(default_factory=dict)
    titled: dict[str, tuple[QMenu, str, str]] = field(default_factory=dict)  # id → (menu, title, context)

    def retranslate(self) -> None:
        """Every menu's and titled submenu's title in the current language."""
        for spec in registry.MENUS:
            self.menus[spec.id].setTitle(QCoreApplication.translate(spec.context, spec.title))
        for menu, title, context in self.titled.values():
            menu.setTitle(QCoreApplication.translate(context, title))


def build_menu_bar(bar: QMenuBar, actions: dict[str, QAction],
                   fillers: dict[str, Callable[[QMenu], QMenu | None]]) -> MenuBar:
    """Add the declared menus to `bar`, each with its bound `actions` and its run-time entries: `fillers[id]`,
    given the menu that holds the entry `id` of `SUBMENUS`, returns the submenu to add there, or adds the
    entries itself and returns None."""
    built = MenuBar()
    entries: dict[str, list[tuple[int, int, str, str]]] = {spec.id: [] for spec in registry.MENUS}
    for spec in registry.REGISTRY.values():
        if spec.menu is not None and spec.id in actions:
            entries[spec.menu].append((spec.group, spec.order, "action", spec.id))
    for sub in registry.SUBMENUS:
        entries[sub.menu].append((sub.group, sub.order, "filled", sub.id))
    titles = {sub.id: sub for sub in registry.SUBMENUS}
    for spec in registry.MENUS:
        menu = built.menus[spec.id] = bar.addMenu("")
        menu.setObjectName(f"menu-{spec.id}")
        group: int | None = None
        for entry_group, _order, kind, entry_id in sorted(entries[spec.id]):
            if group is not None and entry_group != group:
                built.separators[(spec.id, entry_group)] = menu.addSeparator()
            group = entry_group
            if kind == "action":
                menu.addAction(actions[entry_id])
                continue
            submenu = fillers[entry_id](menu)
            if submenu is not None:
                menu.addMenu(submenu)
            if submenu is not None and titles[entry_id].title:
                built.titled[entry_id] = (submenu, titles[entry_id].title, titles[entry_id].context)
    built.retranslate()
    return built
