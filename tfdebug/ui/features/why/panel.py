"""The Why This Output dock: the Lens, Attribution and Patching views of the pass on screen, as tabs, and the action
that shows it (View ▸ Why This Output, Ctrl+Shift+W)."""

from __future__ import annotations

from typing import Any, Callable

from PySide6.QtCore import QT_TRANSLATE_NOOP, QEvent, Qt
from PySide6.QtWidgets import QTabWidget, QVBoxLayout, QWidget

from tfdebug.ui.actions import registry as actions
from tfdebug.ui.actions.context import ActionContext
from tfdebug.ui.features.why.attribution_view import AttributionView
from tfdebug.ui.features.why.lens_view import LensView
from tfdebug.ui.features.why.patch_one_view import PatchOneView
from tfdebug.ui.features.why.patching_view import PatchingView
from tfdebug.ui.features.why.reading import WhyReader
from tfdebug.ui.state.controller import DebugController
from tfdebug.ui.widgets.when_seen import WhenSeen


class WhyPanel(QWidget):
    """Tabs Lens | Attribution | Patching | Patch Stage over one WhyReader, which reads the pass only while the dock
    is on screen; `compare()` gives the window's Compare tool (the patched pass is shown there), or None; `shade(names)`
    shades the stages a patch moved in the Stages tree."""

    def __init__(self, ctl: DebugController, compare: Callable[[], Any] = lambda: None,
                 shade: Callable[[list[str]], None] = lambda _names: None, parent: QWidget | None = None):
        super().__init__(parent)
        self.reader = WhyReader(ctl, self)
        self.lens = LensView(ctl, self.reader)
        self.attribution = AttributionView(ctl, self.reader)
        self.patching = PatchingView(ctl, self.reader)
        self.patch_one = PatchOneView(ctl, self.reader, compare, shade)
        self.tabs = QTabWidget()
        for view in (self.lens, self.attribution, self.patching, self.patch_one):
            self.tabs.addTab(view, "")
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.tabs)
        self.when_seen = WhenSeen(self, self.reader.refresh)
        ctl.session_changed.connect(self.when_seen.ask)
        ctl.state_changed.connect(self.when_seen.ask)
        self.retranslate_ui()

    def changeEvent(self, event) -> None:
        if event.type() == QEvent.Type.LanguageChange:
            self.retranslate_ui()
            self.lens.retranslate_ui()
            self.attribution.retranslate_ui()
            self.patching.retranslate_ui()
            self.patch_one.retranslate_ui()
        super().changeEvent(event)

    def retranslate_ui(self) -> None:
        """Tab titles in the window's language."""
        self.tabs.setTabText(0, self.tr("Lens"))
        self.tabs.setTabText(1, self.tr("Attribution"))
        self.tabs.setTabText(2, self.tr("Patching"))
        self.tabs.setTabText(3, self.tr("Patch Stage"))


@actions.action("tfdebug.view.why", QT_TRANSLATE_NOOP("actions", "Why This Output"), "Ctrl+Shift+W",
                QT_TRANSLATE_NOOP("actions", "Show or hide the logit lens and the attribution of the finished pass"),
                toolbar=False)
def toggle_why(ctx: ActionContext) -> None:
    window = ctx.window
    dock = window.docks["why"]
    if not dock.isVisible() and not dock.isFloating() and not window.tabifiedDockWidgets(dock):
        # Tabbed beside the heatmap when first shown, so its grids get the heatmap's room (tabbed while hidden,
        # Qt would leave a lone "Heatmap" tab bar on screen).
        window.tabifyDockWidget(window.docks["heatmap"], dock)
    dock.setVisible(not dock.isVisible())
    if dock.isVisible():
        dock.raise_()
        ctx.window.why_panel.reader.refresh()


def install(window) -> WhyPanel:
    """Add the Why This Output dock, hidden until View ▸ Why This Output or Ctrl+Shift+W (which tabs it beside the
    heatmap)."""
    panel = WhyPanel(window.ctl, lambda: window.tools.compare, window.navigator.shade_moved)
    window.add_dock(QT_TRANSLATE_NOOP("MainWindow", "Why This Output"), "why", panel,
                    Qt.DockWidgetArea.RightDockWidgetArea,
                 action_id="tfdebug.view.why")
    return panel
