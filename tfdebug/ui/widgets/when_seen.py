"""WhenSeen: a panel's refresh that runs only while the panel is on screen.

A dock tabbed behind another or closed still hears every step; redrawing it then costs the GUI thread
while nobody sees it. A panel that asks through `WhenSeen.ask()` is redrawn at once when on screen, and
otherwise once, when its dock comes back (the window connects the dock's `visibilityChanged`, which tab
switches emit too, to `seen`).
"""

from __future__ import annotations

from typing import Callable

from PySide6.QtWidgets import QWidget


def on_screen(widget: QWidget) -> bool:
    """Whether `widget` is drawn: not in a hidden or closed dock, and not covered as a tab behind another.
    Before its window is shown, every widget the window would show counts as on screen."""
    window = widget.window()
    if not widget.isVisibleTo(window) and widget is not window:
        return False
    return not window.isVisible() or not widget.visibleRegion().isEmpty()


class WhenSeen:
    """`ask()` runs `refresh()` now when `panel` is on screen, else when `seen(True)` says it came back."""

    def __init__(self, panel: QWidget, refresh: Callable[[], None]):
        self.panel, self.refresh = panel, refresh
        self.due = False

    def ask(self) -> None:
        """The panel's content changed: redraw it now, or when it is on screen again."""
        if on_screen(self.panel):
            self.due = False
            self.refresh()
        else:
            self.due = True

    def seen(self, visible: bool) -> None:
        """The panel's dock was shown (True) or hidden: a redraw asked for while hidden runs now."""
        if visible and self.due:
            self.due = False
            self.refresh()
