"""MainWindow: menus, toolbar, input bar, dock panels, status bar, settings.

The window wires panels to one DebugController; panels never call each other. Every
menu item is an action from the registry (`ui/actions/registry.py`), bound to the window's
ActionContext and placed where it declares (`ui/shell/menus.py` builds the menu bar); the tools
behind them (opening snapshots, exporting, editing, comparing, conditions) are created here and
registered in `self.tools` (the context's tools). Dock modules (compare, overview) extend the window
through `add_dock` and `settings`; an action keeps the dialog it opened in `dialogs`.
"""

from __future__ import annotations

from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication, QEvent, QSettings, Qt
from PySide6.QtWidgets import QDockWidget, QMainWindow, QMenu, QToolBar, QWidget

from tfdebug.core.stepper import Stepper
from tfdebug.core.view import RunInputs

# these modules register their actions before `actions.bind` reads the registry
from tfdebug.ui.actions import heatmap as heatmap_tools
from tfdebug.ui.actions import registry as actions
from tfdebug.ui.actions.context import ActionContext
from tfdebug.ui.actions.snapshots import SnapshotActions
from tfdebug.ui.remote import connection as remote_tools
from tfdebug.ui.dialogs.conditions import ConditionTools
from tfdebug.ui.dialogs.batch import BatchTools
from tfdebug.ui.dialogs.decoding import DecodingTools
from tfdebug.ui.dialogs.models import ModelTools
from tfdebug.ui.i18n import language as i18n
from tfdebug.ui.features.check.menu import check_menu
from tfdebug.ui.features.compare import tools as compare_feature
from tfdebug.ui.features.edit import dialog as edit_feature
from tfdebug.ui.features.export.tools import ExportActions
from tfdebug.ui.features.generation.data import is_generation
from tfdebug.ui.features.generation import panel as generation_feature
from tfdebug.ui.features.learn import tools as learn_feature
from tfdebug.ui.features.long_context import query_row
from tfdebug.ui.features.reference.tools import ReferenceTools
from tfdebug.ui.features.backward import action as _backward_action  # noqa: F401  (registers Debug ▸ Backward)
from tfdebug.ui.features.backward import summary_panel as backward_feature
from tfdebug.ui.features.why import panel as why_feature
from tfdebug.ui.panels import explain as explain_panel
from tfdebug.ui.panels import image_view, model_view, overview
from tfdebug.ui.panels.archmap import ArchitectureMap
from tfdebug.ui.panels.heads import HeadsPanel
from tfdebug.ui.panels.heatmap import HeatmapPanel
from tfdebug.ui.panels.navigator import NavigatorPanel
from tfdebug.ui.panels.shape import ShapePanel
from tfdebug.ui.panels.stats import StatsPanel
from tfdebug.ui.panels.values import ValuesPanel
from tfdebug.ui.render.plain_text import one_line
from tfdebug.ui.render.plot_paint import settle_before_paint
from tfdebug.ui.shell.input_bar import InputBar
from tfdebug.ui.shell.menus import build_menu_bar
from tfdebug.ui.shell.message_bar import MessageBar
from tfdebug.ui.shell.status_line import StatusLine
from tfdebug.ui.shell.settings_file import user_settings
from tfdebug.ui.shell.window_layout import WindowLayout
from tfdebug.ui.dialogs import capture_budget
from tfdebug.ui.state.controller import DebugController
from tfdebug.ui.state.messages import Message
from tfdebug.ui.actions.breakpoint_menu import kind_menu
from tfdebug.ui.workers.gui_gc import collect_in_gui_thread

TITLE_CHARS = 80  # of the texts in the window title; a title bar shows about that many
TOOLBAR_ACTIONS = ("tfdebug.step.continue", "tfdebug.step.next", "tfdebug.step.into", "tfdebug.step.out",
                   "tfdebug.step.back", "tfdebug.step.restart", "tfdebug.step.stop", "tfdebug.gen.next_token")


def default_settings() -> QSettings:
    """The user's settings (tfdebug.ui.shell.settings_file: only a small regular file is read)."""
    return user_settings()


def _seen(widget: QWidget, visible: bool) -> None:
    """Tell `widget`'s WhenSeen, when it has one, that its dock was shown or hidden."""
    when_seen = getattr(widget, "when_seen", None)
    if when_seen is not None:
        when_seen.seen(visible)


class MainWindow(WindowLayout, QMainWindow):
    """The debugger window. `settings` defaults to the user's tfdebug settings.

    persist=False (screenshot mode) neither restores nor saves layout and inputs, so a
    screenshot looks the same on every machine. `devices` default to this machine's, which imports
    torch; tfdebug.ui.app opens the window on ["cpu"] and lists the GPUs once torch is imported.
    """

    def __init__(self, settings: QSettings | None = None, models: list[str] | None = None,
                 devices: list[str] | None = None, persist: bool = True, parent: QWidget | None = None):
        super().__init__(parent)
        collect_in_gui_thread()  # before any worker thread starts allocating
        from tfdebug.adapters.registry import available_models
        from tfdebug.core.devices import available_devices

        self.settings = settings if settings is not None else default_settings()
        self.ctl = DebugController(self)
        self.last_error: str | None = None
        # What the window is loading while busy ("torch" as it opens, "model" for start()'s pass; None after):
        # the status bar says so (tfdebug.ui.app opens the window before torch is imported).
        self.starting: str | None = None
        self.dialogs: dict[str, QWidget] = {}  # the last dialog each action opened, by name ("budget" …): tests read it
        self.persist = persist
        self.setObjectName("tfdebug-main")
        self.setWindowTitle("tfdebug")
        self.setDockNestingEnabled(True)
        self.action_context = ActionContext(self.ctl, self)
        self.tools = self.action_context.tools
        self.actions_by_id = actions.bind(self, self.action_context)

        self.tools.decoding = DecodingTools(self)  # before a pass can start: Generate reads its settings
        models = models or available_models()
        self.input_bar = InputBar(self.ctl, self.actions_by_id["tfdebug.session.run"],
                                  self.actions_by_id["tfdebug.session.generate"],
                                  models, devices if devices is not None else available_devices(),
                                  live_action=self.actions_by_id["tfdebug.session.live"])
        self.input_bar.models_button.setDefaultAction(self.actions_by_id["tfdebug.session.models"])
        self.tools.models = ModelTools(self, models)  # scans the Hugging Face cache off the GUI thread
        self.tools.batch = BatchTools(self)
        self._build_toolbars()
        self._build_panels()
        self._build_menus()
        self._build_status_bar()
        self.ctl.message.connect(self.show_message)
        self.ctl.clear_messages.connect(self.clear_topic)
        self.ctl.info.connect(lambda text: self.show_message(Message("info", text)))
        self.ctl.session_changed.connect(self._session_changed)
        self.ctl.busy_changed.connect(lambda busy: busy or setattr(self, "starting", None))
        self.ctl.close_requested.connect(self.close)
        self._install_extensions()
        if persist:  # after every dock exists (Compare, Overview too), so each gets its saved place
            self.restore_settings()
            self._hide_stale_tab_bars()  # restoreState makes new tab bars and leaves the old ones shown

    # ----- construction -------------------------------------------------------------------
    def _build_toolbars(self) -> None:
        bar = self.input_toolbar = QToolBar()
        bar.setObjectName("toolbar-input")
        bar.addWidget(self.input_bar)
        self.addToolBar(Qt.ToolBarArea.TopToolBarArea, bar)
        self.addToolBarBreak()
        self.debug_toolbar = QToolBar()
        self.debug_toolbar.setObjectName("toolbar-debug")
        self.debug_toolbar.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextOnly)
        for action_id in TOOLBAR_ACTIONS:
            self.debug_toolbar.addAction(self.actions_by_id[action_id])
        self.addToolBar(Qt.ToolBarArea.TopToolBarArea, self.debug_toolbar)
        self.placement_toolbar = QToolBar()  # the input bar's Precision and Device map, beside the debug actions
        self.placement_toolbar.setObjectName("toolbar-placement")
        self.placement_toolbar.addWidget(self.input_bar.placement)
        self.addToolBar(Qt.ToolBarArea.TopToolBarArea, self.placement_toolbar)


    def add_dock(self, title: str, name: str, widget: QWidget, area, action_id: str | None = None) -> QDockWidget:
        """Add and return a dock called `name` in `area` holding `widget`: the window's API for the docks of
        panels and features. `title` is English, marked QT_TRANSLATE_NOOP("MainWindow", …) by the caller and
        translated here and at every language change; with `action_id` the dock starts hidden and its View entry
        is that registry action."""
        dock = QDockWidget(QCoreApplication.translate("MainWindow", title), self)
        self._dock_titles[name] = title
        dock.setObjectName(f"dock-{name}")
        dock.setWidget(widget)
        self.addDockWidget(area, dock)
        self.docks[name] = dock
        dock.installEventFilter(self)  # its separator moved: the sizes the layout keeps (WindowLayout.eventFilter)
        # A panel that redraws only on screen catches up when its dock comes back (a deferred one once built).
        dock.visibilityChanged.connect(lambda visible: _seen(widget, visible))
        if hasattr(self, "view_menu"):  # docks added after the menus (Compare, Overview, Capture, Explain)
            self.view_menu.insertAction(self._view_docks_end, dock.toggleViewAction())
        if action_id is not None:  # hidden; its View entry is the registry's action (which carries the shortcut)
            dock.hide()
            self.view_menu.insertAction(dock.toggleViewAction(), self.actions_by_id[action_id])
            self.view_menu.removeAction(dock.toggleViewAction())
        return dock

    def _build_panels(self) -> None:
        self.docks: dict[str, QDockWidget] = {}
        self._dock_titles: dict[str, str] = {}
        ctl = self.ctl
        self.navigator = NavigatorPanel(ctl)
        self.architecture_map = ArchitectureMap(ctl)
        self.heatmap_panel = HeatmapPanel(ctl)
        self.shape_panel = ShapePanel(ctl)
        self.heads_panel = HeadsPanel(ctl)
        self.stats_panel = StatsPanel(ctl)
        self.values_panel = ValuesPanel(ctl)
        left, right = Qt.DockWidgetArea.LeftDockWidgetArea, Qt.DockWidgetArea.RightDockWidgetArea
        nav = self.add_dock(QT_TRANSLATE_NOOP("MainWindow", "Stages"), "navigator", self.navigator, left)
        arch = self.add_dock(QT_TRANSLATE_NOOP("MainWindow", "Architecture"), "architecture", self.architecture_map,
                          left)
        self.splitDockWidget(nav, arch, Qt.Orientation.Vertical)
        heat = self.add_dock(QT_TRANSLATE_NOOP("MainWindow", "Heatmap"), "heatmap", self.heatmap_panel, right)
        shape = self.add_dock(QT_TRANSLATE_NOOP("MainWindow", "Shape"), "shape", self.shape_panel, right)
        self.splitDockWidget(heat, shape, Qt.Orientation.Horizontal)
        heads = self.add_dock(QT_TRANSLATE_NOOP("MainWindow", "Heads"), "heads", self.heads_panel, right)
        self.splitDockWidget(heat, heads, Qt.Orientation.Vertical)
        stats = self.add_dock(QT_TRANSLATE_NOOP("MainWindow", "Stats"), "stats", self.stats_panel, right)
        self.splitDockWidget(shape, stats, Qt.Orientation.Vertical)
        values = self.add_dock(QT_TRANSLATE_NOOP("MainWindow", "Values"), "values", self.values_panel, right)
        self.tabifyDockWidget(stats, values)
        stats.raise_()
        self.generation_panel = generation_feature.install(self, heads)
        self.size_first_docks()

    def _build_menus(self) -> None:
        """The menu bar from the registry's declarations; the window fills the entries made at run time."""
        self.snapshots = self.tools.snapshots = SnapshotActions(self.ctl, self.settings, self)
        self.exports = self.tools.exports = ExportActions(self.ctl, self.settings, self.heatmap_panel, self)
        self.tools.conditions = ConditionTools(self)
        self.navigator.conditions_requested.connect(self.actions_by_id["tfdebug.breakpoints.conditions"].trigger)
        self.menus = build_menu_bar(self.menuBar(), self.actions_by_id, {
            "recent": self._recent_menu, "check": lambda menu: check_menu(menu, self.ctl.run, self.settings,
                                             lambda: self.ctl.source is None or self.ctl.capabilities.reruns_here),
            "breakpoint_kinds": lambda menu: kind_menu(self.ctl, menu),
            "docks": lambda menu: menu.addActions([d.toggleViewAction() for d in self.docks.values()]),
            "language": lambda menu: i18n.language_menu(self, self.settings),
            "heatmap": lambda menu: self.heatmap_panel.menu})
        menus = self.menus.menus
        self.file_menu, self.debug_menu, self.view_menu = menus["file"], menus["debug"], menus["view"]
        self.breakpoints_menu, self.learn_menu = menus["breakpoints"], menus["learn"]
        self.language_menu = self.menus.titled["language"][0]
        self._view_docks_end = self.menus.separators[("view", 1)]  # `add_dock` puts later docks' toggles before it

    def _recent_menu(self, file_menu: QMenu) -> QMenu:
        self.recent_menu = QMenu(file_menu)
        self.recent_menu.setObjectName("menu-recent")
        self.recent_menu.aboutToShow.connect(self.rebuild_recent)
        self.rebuild_recent()
        return self.recent_menu

    def rebuild_recent(self) -> None:
        """Fill File → Open Recent from the settings (before it shows, and after Clear Recent)."""
        self.snapshots.fill_recent(self.recent_menu, self.actions_by_id["tfdebug.file.clear_recent"])

    def _build_status_bar(self) -> None:
        self.message_bar = MessageBar(self)
        self.status = StatusLine(self, self.ctl, lambda: self.starting)
        self.status_stage, self.status_model, self.status_device, self.status_memory, self.status_state = \
            self.status.labels

    def _install_extensions(self) -> None:
        """The features and the docks added after the menus (edit, Compare, Overview …), each through its `install`."""
        self.tools.edit = self.edit_tools = edit_feature.install(self)
        self.tools.compare = self.compare_tools = compare_feature.install(self, ReferenceTools)
        overview.install(self)
        self.model_view = model_view.install(self)
        self.why_panel = why_feature.install(self)
        self.backward_panel = backward_feature.install(self)
        query_row.install(self)
        self.image_panel = image_view.install(self)
        heatmap_tools.install(self)
        self.explain_panel = explain_panel.install(self)
        self.tools.learn = learn_feature.install(self, self.explain_panel)
        self.capture_panel = capture_budget.install(self)
        self.tools.remote = remote_tools.install(self)
        self.setAcceptDrops(True)
        self.retranslate_ui()
        self._hide_stale_tab_bars()

    # ----- interface for other modules ---------------------------------------------------------
    @property
    def capture_budget_action(self):
        """Debug ▸ Capture Budget… (dialogs.capture_budget), which the Capture dock's panel retitles."""
        return self.actions_by_id["tfdebug.capture.budget"]

    @property
    def overview(self):
        """The Overview dock's panel (panels.overview.OverviewPanel), built when first read or shown."""
        return self.docks["overview"].widget().panel()

    @property
    def query_row(self):
        """The Query Row dock's panel (features.long_context.query_row.QueryRowPanel), built when first read or shown."""
        return self.docks["query_row"].widget().panel()

    @property
    def stepper(self) -> Stepper | None:
        return self.ctl.stepper

    @property
    def session(self):
        return self.ctl.session

    def current_slice(self):
        """The DisplaySlice the heatmap shows, or None."""
        return self.ctl.shown.current_slice

    def start(self, inputs: RunInputs, failed=None) -> None:
        """Fill the input bar and run that pass (it pauses at the first stage); `failed(sentence)`, when given,
        is called when the model does not load or the texts do not fit it (tfdebug.ui.state.loading.Loader.run)."""
        self.input_bar.set_values(inputs.model, inputs.device, inputs.texts, (inputs.dtype, inputs.device_map))
        self.starting = "model"
        self.ctl.loader.run(inputs, failed)

    def show_starting(self, what: str) -> None:
        """Say in the status bar that the window is loading `what` ("torch", "model") until it is no longer busy."""
        self.starting = what

    def new_session(self) -> None:
        """File ▸ New Session: the demo's first example on this machine's defaults, as the first start shows it,
        with nothing the last session carried (a generation, the heatmap's scale, the restored session's notice)."""
        from tfdebug.ui.state.session_start import default_inputs

        self.forget_session_options()
        self.clear_topic("restored")  # the restored session's notice no longer holds
        self.start(default_inputs())

    def forget_session_options(self) -> None:
        """What a session carries besides its inputs, back to the defaults (New Session, `tfdebug --fresh`):
        one pass, not a generation; the heatmap's linear scale over the whole slice."""
        self.ctl.run.set_generation(None)
        self.heatmap_panel.set_scale(frozenset(), False)

    def open_snapshot(self, path: str) -> None:
        """Show the snapshot at `path` in replay mode once it is read off the UI thread (a bad file
        shows its sentence)."""
        self.snapshots.open(path)

    def show_message(self, message: Message) -> None:
        if message.level == "error":
            self.last_error = message.text
        self.message_bar.show_message(message)

    def clear_topic(self, topic: str) -> None:
        """Clear the message bar's message when it is about `topic`."""
        self.message_bar.clear_topic(topic)

    def update_status(self) -> None:
        """The status bar's labels from the controller's state now."""
        self.status.update()

    # ----- language ------------------------------------------------------------------------
    def retranslate_ui(self) -> None:
        """Every text the window itself owns, in the current language (panels do their own)."""
        self.input_toolbar.setWindowTitle(self.tr("Input"))
        self.debug_toolbar.setWindowTitle(self.tr("Debug"))
        self.placement_toolbar.setWindowTitle(self.tr("Precision and placement"))
        for name, title in self._dock_titles.items():
            self.docks[name].setWindowTitle(self.tr(title))
        self.menus.retranslate()
        actions.retranslate(self.actions_by_id, self.ctl)
        self.rebuild_recent()  # its "No recent snapshots" entry
        self.update_status()
        self._session_changed()

    def changeEvent(self, event) -> None:
        if event.type() == QEvent.Type.LanguageChange:
            self.retranslate_ui()
        super().changeEvent(event)

    def event(self, event) -> bool:
        if event.type() == QEvent.Type.UpdateRequest:  # about to paint: the plots' pending changes go in this paint
            settle_before_paint(self)
        return super().event(event)

    def _session_changed(self) -> None:
        title = one_line(self.ctl.title, TITLE_CHARS)  # a long prompt: its start, not all of it
        self.setWindowTitle(f"tfdebug — {title}" if title else "tfdebug")
        if is_generation(self.ctl.plan):
            self.docks["generation"].raise_()
            self._fit_generation()

    def closeEvent(self, event) -> None:
        if self.persist:
            self.save_settings()
        # Gone at once: a pass inside a long op (or a model loading) unwinds behind a hidden window, not in sight.
        self.status_state.setText(self.tr("closing…"))
        self.status_state.repaint()
        self.hide()
        self.ctl.shutdown()
        super().closeEvent(event)

    def dragEnterEvent(self, event) -> None:
        if event.mimeData().hasUrls():
            event.acceptProposedAction()

    def dropEvent(self, event) -> None:
        paths = [u.toLocalFile() for u in event.mimeData().urls() if u.isLocalFile()]
        if paths:
            self.snapshots.drop(paths)
            event.acceptProposedAction()

