"""The main window's layout and its memory: settings saved and restored, the heatmap's
share of the width kept as the window resizes, the Generation dock's height.

`WindowLayout` is a plain base class of `MainWindow` holding the layout's own Qt event handlers (a show, a
resize, a side dock's separator moved) and the stale tab bars' cure; it uses the window's `settings`, `docks`, `input_bar`, `ctl`,
`generation_panel`, `heads_panel`, `shape_panel`, `_side_sizes`, `_bottom_heights`, `_heads_share`,
`_plane_room_kept` and `_laid_out_at`.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QByteArray, QCoreApplication, QEvent, QSettings, Qt, QTimer
from PySide6.QtWidgets import QDockWidget, QMainWindow, QTabBar

from tfdebug.core.devices import DTYPES, available_device_maps
from tfdebug.core.view import RunInputs
from tfdebug.ui.i18n.language import said
from tfdebug.ui.state.messages import Message
from tfdebug.ui.state.stored import json_setting

LOADING_KEY = "input/loading"  # {"dtype": "bfloat16", "device_map": "auto" or null}
CHAT_KEY = "input/chat"  # true: the texts go through the tokenizer's chat template
MAX_SHAPE_SHARE = 0.4  # of the window's height, the most the Shape dock takes to show its rows unscrolled
MIN_HEATMAP_SHARE = 0.5  # of the width of the three columns, when the window is too narrow for the sides
MIN_PLANE_SHARE = 0.5  # of the height the heatmap shares with the docks under it, in a layout restored at launch
# What a window manager's frame (title bar, borders) adds around the window: the first window leaves it room.
FRAME_ALLOWANCE = (16, 48)
# Side docks tabbed together, in this order, when the docks shown need more height than the window has (a Compare
# dock opened at the bottom of a 768-pixel-high window): the first of each pair stays in front.
FOLDS = (("navigator", "architecture"), ("stats", "explain"), ("stats", "shape"), ("heatmap", "heads"))


if TYPE_CHECKING:  # the checker reads the window's methods on it; at run time MainWindow brings QMainWindow
    from tfdebug.ui.state.controller import DebugController

    _Window = QMainWindow
else:
    _Window = object


class WindowLayout(_Window):
    """Saving and restoring the window, and how its docks share the space."""

    # what it reads of the window (MainWindow sets them)
    settings: QSettings
    docks: dict[str, QDockWidget]
    ctl: DebugController
    input_bar: Any
    heads_panel: Any
    shape_panel: Any
    generation_panel: Any

    def show_message(self, message: Message) -> None:
        """Show `message` in the message bar (MainWindow's)."""
        raise NotImplementedError

    def size_first_docks(self) -> None:
        """The first docks' sizes in a new window (Stages, Architecture, Heatmap, Shape, Heads, Stats), the
        layout's memory of them, and Heads and Shape fitted to each stage shown."""
        nav, arch, heat, shape, heads, stats = (self.docks[name] for name in (
            "navigator", "architecture", "heatmap", "shape", "heads", "stats"))
        self.resize(1600, 1000)
        self.resizeDocks([nav, heat, shape], [330, 860, 400], Qt.Orientation.Horizontal)
        self.resizeDocks([nav, arch], [520, 380], Qt.Orientation.Vertical)
        self.resizeDocks([heat, heads], [640, 260], Qt.Orientation.Vertical)
        self.resizeDocks([shape, stats], [380, 520], Qt.Orientation.Vertical)
        # Qt hands a growing window's width to the left dock area (there is no central widget):
        # the side columns keep the sizes the user left them at, and the heatmap takes the rest.
        self._side_sizes: tuple[int, int, int, int] = (330, 400, 520, 380)  # as resized above
        self._bottom_heights: dict[str, int] = {}  # the docks at the bottom keep these as the window resizes
        self._laid_out_at = self.size()
        self._heads_share: float | None = None  # the Heads' share of the height an empty Heads dock lends the heatmap
        self._plane_room_kept = False  # a restored layout's heatmap given its room (keep_plane_room), once
        shown = self.ctl.shown.model.stage_shown
        shown.connect(self.fit_heads)
        # Its thumbnails are hidden later, on its own timer: fitted again once the layout has taken that in.
        self.heads_panel.content_changed.connect(lambda: QTimer.singleShot(0, self.fit_heads))
        shown.connect(self.fit_shape)  # after the Shape panel's own refresh (connected before)
        heads.visibilityChanged.connect(lambda visible: visible and self.fit_heads())

    def save_settings(self) -> None:
        s = self.settings
        s.setValue("window/geometry", self.saveGeometry())
        s.setValue("window/state", self.saveState())
        s.setValue("input/recent", json.dumps(self.input_bar.recent, ensure_ascii=False))
        worked = self.ctl.worked  # the model and texts of the last pass that started, never a choice that failed
        if worked is not None:
            s.setValue("input/last", json.dumps(worked.to_list(), ensure_ascii=False))
        # The precision, device map and Chat toggle are choices among what this machine offers, kept as chosen.
        s.setValue(LOADING_KEY, json.dumps({"dtype": self.ctl.inputs.dtype, "device_map": self.ctl.inputs.device_map}))
        s.setValue(CHAT_KEY, json.dumps(self.ctl.inputs.chat))
        s.sync()

    def restore_settings(self) -> None:
        """Restore the saved layout and inputs; a damaged setting is dropped and said once, never fatal."""
        s = self.settings
        dropped: list[str] = []
        for key, restore in (("window/geometry", self.restoreGeometry), ("window/state", self.restoreState)):
            value = s.value(key)
            if value is None:
                continue
            # Stored by hand or by another program as text or a number: Qt would raise, not restore.
            if not isinstance(value, (QByteArray, bytes)) or not restore(QByteArray(value)):
                s.remove(key)
                dropped.append(key)
        recent = json_setting(s, "input/recent", dropped)
        if isinstance(recent, list):
            self.input_bar.set_recent([r for r in recent if isinstance(r, dict)
                                       and all(isinstance(k, str) and isinstance(v, str) for k, v in r.items())])
        json_setting(s, "input/last", dropped)  # checked now, so a damaged one is said with the rest
        loading_setting(s, dropped)
        if dropped:
            keys = ", ".join(dropped)
            self.show_message(Message("warning", said(lambda: QCoreApplication.translate(
                "MainWindow", "Some saved window settings were damaged and have been reset: {keys}.").format(
                keys=keys))))

    def last_inputs(self) -> RunInputs | None:
        """The inputs of the last session, from settings (None when absent or unreadable)."""
        return RunInputs.from_list(json_setting(self.settings, "input/last"))

    def last_chat(self) -> bool:
        """Whether the Chat toggle was on last time (off when unset or unreadable)."""
        return json_setting(self.settings, CHAT_KEY) is True

    def last_loading(self) -> tuple[str | None, str | None]:
        """The precision and device map chosen last time (None and None when unset or unreadable)."""
        return loading_setting(self.settings)

    def _bottom_docks(self) -> dict:
        """The docks shown at the bottom of the window (Query Row, Model View …), by name."""
        return {name: d for name, d in self.docks.items() if d.isVisible() and not d.isFloating()
                and self.dockWidgetArea(d) == Qt.DockWidgetArea.BottomDockWidgetArea}

    def _remember_sides(self) -> None:
        self._bottom_heights = {name: d.height() for name, d in self._bottom_docks().items()}
        if self._default_columns():
            d = self.docks
            self._side_sizes = (d["navigator"].width(), d["shape"].width(), d["navigator"].height(),
                                d["architecture"].height())

    def _default_columns(self) -> bool:
        """Stages, Heatmap and Shape docked side by side as built (not moved, floated or hidden)."""
        d = self.docks
        return (all(d[n].isVisible() and not d[n].isFloating() for n in ("navigator", "architecture", "heatmap",
                                                                         "shape"))
                and self.dockWidgetArea(d["navigator"]) == Qt.DockWidgetArea.LeftDockWidgetArea
                and self.dockWidgetArea(d["heatmap"]) == self.dockWidgetArea(d["shape"])
                == Qt.DockWidgetArea.RightDockWidgetArea)

    def keep_bottom_heights(self, heights: dict[str, int]) -> None:
        """After a resize: the docks at the bottom keep the `heights` they had (Qt gives a taller window's height
        to them: a Query Row opened at 1366×768 became a 300 px empty plot at 1920×1080, the heatmap unchanged)."""
        bottom, heat = self._bottom_docks(), self.docks["heatmap"]
        kept = [name for name in bottom if name in heights]
        extra = sum(bottom[n].height() - heights[n] for n in kept)
        if extra > 0 and heat.isVisible() and not heat.isFloating() and heat not in bottom.values():
            # Named with the heatmap, which takes the height (a bottom dock resized alone does not move).
            self.resizeDocks([heat, *(bottom[n] for n in kept)], [heat.height() + extra, *(heights[n] for n in kept)],
                             Qt.Orientation.Vertical)

    def keep_heatmap_share(self) -> None:
        """After a resize: extra width goes to the heatmap; the Stages tree keeps its share of the height."""
        if not self._default_columns():
            return
        nav_w, shape_w, nav_h, arch_h = self._side_sizes
        d = self.docks
        total = d["navigator"].width() + d["heatmap"].width() + d["shape"].width()
        if nav_w + shape_w > total * (1 - MIN_HEATMAP_SHARE):  # a small screen: the sides give way too
            scale = total * (1 - MIN_HEATMAP_SHARE) / (nav_w + shape_w)
            nav_w, shape_w = round(nav_w * scale), round(shape_w * scale)
        self.resizeDocks([d["navigator"], d["heatmap"], d["shape"]], [nav_w, total - nav_w - shape_w, shape_w],
                         Qt.Orientation.Horizontal)
        if nav_h + arch_h > 0:
            height = d["navigator"].height() + d["architecture"].height()
            tree = round(height * nav_h / (nav_h + arch_h))
            self.resizeDocks([d["navigator"], d["architecture"]], [tree, height - tree], Qt.Orientation.Vertical)
        self.fit_heads()
        self.fit_shape()

    def fit_heads(self) -> None:
        """Heads with nothing to draw (a stage with no head axis and no prediction) keep the room of their note
        only: the heatmap above them takes the rest. Their share of the height comes back with heads to draw."""
        heat, heads = self.docks["heatmap"], self.docks["heads"]
        if heads.isFloating() or heat.isFloating() or heads.visibleRegion().isEmpty() or self.ctl.current is None:
            return
        total = heat.height() + heads.height()
        empty = "head" not in self.ctl.axes.names() and not self.heads_panel.prediction.applies()
        if empty:
            if self._heads_share is None:
                self._heads_share = heads.height() / total
            panel = self.heads_panel
            note = panel.note.heightForWidth(panel.width()) if panel.note.hasHeightForWidth() else -1
            chrome = heads.height() - panel.height()  # the dock's title bar
            need = chrome + max(note, panel.note.sizeHint().height()) + 2 * panel.layout().spacing() + 8
            if heads.height() > need:
                self.resizeDocks([heat, heads], [total - need, need], Qt.Orientation.Vertical)
        elif self._heads_share is not None:
            height, self._heads_share = round(total * min(self._heads_share, 0.5)), None
            self.resizeDocks([heat, heads], [total - height, height], Qt.Orientation.Vertical)

    def fit_shape(self) -> None:
        """The Shape dock grows to the height its rows need (shape, dtype, From, Formula, Source), up to
        MAX_SHAPE_SHARE of the window's height; the docks below it give way."""
        shape = self.docks["shape"]
        if not self._default_columns():
            return
        text = self.shape_panel.text
        document = text.document().clone()  # measured at the viewport's width, the shown one left as it is
        document.setTextWidth(text.viewport().width())
        need = int(document.size().height()) + shape.height() - text.viewport().height() + 2
        need = min(need, round(self.height() * MAX_SHAPE_SHARE))
        below = [d for d in self.docks.values() if d is not shape and d.isVisible() and not d.isFloating()
                 and d.geometry().left() == shape.geometry().left() and d.geometry().top() > shape.geometry().top()]
        if shape.height() >= need or not below:
            return
        # The docks under it give the height, the one right under it first, each down to its minimum (on a
        # small screen that one alone has too little; the Stats histogram further down gives the rest); every
        # one is named in the resize, or Qt spreads the change over the whole column.
        below.sort(key=lambda d: d.geometry().top())
        sizes = [d.height() for d in below]
        short = need - shape.height()
        for i in range(len(below)):
            give = max(0, min(short, sizes[i] - below[i].minimumSizeHint().height()))
            sizes[i] -= give
            short -= give
        self.resizeDocks([shape, *below], [need - short, *sizes], Qt.Orientation.Vertical)

    def fit_screen(self) -> None:
        """The first launch (no saved geometry): the window and its frame within the screen's available geometry
        (the desktop less panels and docks), at most the size it was built at, its top at the top of that area."""
        screen = self.screen()
        if screen is None:
            return
        area = screen.availableGeometry()
        width = min(self.width(), area.width() - FRAME_ALLOWANCE[0])
        height = min(self.height(), area.height() - FRAME_ALLOWANCE[1])
        self.resize(width, height)
        self.move(area.x() + max(0, (area.width() - self.width()) // 2), area.y())

    def show_dock_within(self, dock) -> None:
        """Show `dock` (raised) at no less than its minimum height without the window growing past its size (off
        the screen): side docks are tabbed together (FOLDS) while the docks shown need more height than it has."""
        size = self.size()
        dock.show()
        dock.raise_()
        # Its panel's minimum (a deferred panel is built by the show) reaches the window's layout now, not after.
        QCoreApplication.sendPostedEvents()
        for keep, fold in FOLDS:
            self.layout().activate()
            if self.minimumSizeHint().height() <= size.height():
                break
            front, back = self.docks[keep], self.docks[fold]
            docked = all(d.isVisible() and not d.isFloating() for d in (front, back))
            if docked and back not in self.tabifiedDockWidgets(front):
                behind = self.tabifiedDockWidgets(back)  # its tabs go with it: none is left alone in its place
                self.tabifyDockWidget(front, back)
                for other in behind:
                    self.tabifyDockWidget(front, other)
                front.raise_()
        self.layout().activate()
        self.resize(size)
        if not dock.isFloating():
            self.resizeDocks([dock], [max(dock.height(), dock.minimumSizeHint().height())], Qt.Orientation.Vertical)

    def _fit_generation(self) -> None:
        """Give the Generation dock the height its strip, rows and caches ask for, up to half of the height it shares
        with the heatmap."""
        heat, generation = self.docks["heatmap"], self.docks["generation"]
        total = heat.height() + generation.height()
        need = min(self.generation_panel.sizeHint().height() + generation.minimumSizeHint().height(), total // 2)
        if generation.height() < need:
            self.resizeDocks([heat, generation], [total - need, need], Qt.Orientation.Vertical)

    def _hide_stale_tab_bars(self) -> None:
        """Qt leaves a stale copy of the second tabbed dock group's tab bar on screen (found with Heads |
        Generation): it never moves nor retranslates, and showed English tabs across the Heads dock. Hide
        every tab bar that repeats a later one's docks; Qt shows again any bar it lays out itself."""
        seen: set[tuple[str, ...]] = set()
        for bar in reversed(self.findChildren(QTabBar, options=Qt.FindChildOption.FindDirectChildrenOnly)):
            tabs = tuple(bar.tabText(i) for i in range(bar.count()))
            if tabs in seen:
                bar.hide()
            seen.add(tabs)

    # ----- events --------------------------------------------------------------------------
    def eventFilter(self, watched, event) -> bool:
        # A side dock resized while the window keeps its size: the user moved a separator.
        if event.type() == QEvent.Type.Resize and self.size() == self._laid_out_at:
            self._remember_sides()
        return super().eventFilter(watched, event)

    def keep_plane_room(self) -> None:
        """A layout restored at launch gives the heatmap at least MIN_PLANE_SHARE of the height it shares with the
        docks stacked under it (Heads, Generation, Model View …): a remembered layout of a stage with no heads, or
        of a tall Model View, left a 6,917² plane a ~110 px strip. Moving the separator afterwards is the user's."""
        heat = self.docks["heatmap"]
        if not heat.isVisible() or heat.isFloating() or self.tabifiedDockWidgets(heat) and heat.visibleRegion().isEmpty():
            return
        box = heat.geometry()
        below = [d for d in self.docks.values() if d is not heat and d.isVisible() and not d.isFloating()
                 and not d.visibleRegion().isEmpty() and d.geometry().top() > box.top()
                 and d.geometry().left() < box.right() and d.geometry().right() > box.left()]
        total = heat.height() + sum(d.height() for d in below)
        if not below or heat.height() >= MIN_PLANE_SHARE * total:
            return
        share = [round(d.height() * (1 - MIN_PLANE_SHARE) * total / (total - heat.height())) for d in below]
        self.resizeDocks([heat, *below], [total - sum(share), *share], Qt.Orientation.Vertical)

    def showEvent(self, event) -> None:
        super().showEvent(event)
        QTimer.singleShot(0, self._remember_sides)  # the sizes restored from settings, once laid out
        if not self._plane_room_kept:
            self._plane_room_kept = True
            QTimer.singleShot(0, self.keep_plane_room)

    def resizeEvent(self, event) -> None:
        """Extra width goes to the heatmap; the Stages tree keeps its share of the height; the docks at the bottom
        keep their height."""
        super().resizeEvent(event)
        self._laid_out_at = event.size()
        self.keep_heatmap_share()
        # Once Qt has laid the docks out at the new size (their resizes, on the way, are not the user's).
        heights = dict(self._bottom_heights)
        QTimer.singleShot(0, self, lambda: self.keep_bottom_heights(heights))


def loading_setting(settings: QSettings, dropped: list[str] | None = None) -> tuple[str | None, str | None]:
    """(dtype, device map) as saved, when both are ones this machine offers; else (None, None): the defaults
    for this machine (tfdebug.core.devices.initial_dtype), and a
    damaged setting is removed and its key added to `dropped` (a device map saved on a machine with more
    GPUs is not damaged: it is not offered here, so none is used)."""
    doc = json_setting(settings, LOADING_KEY, dropped)
    if doc is None:
        return None, None
    dtype, device_map = (doc.get("dtype"), doc.get("device_map")) if isinstance(doc, dict) else (None, None)
    if dtype not in DTYPES or not (device_map is None or isinstance(device_map, str)):
        if dropped is not None:
            settings.remove(LOADING_KEY)
            dropped.append(LOADING_KEY)
        return None, None
    return dtype, device_map if device_map in available_device_maps() else None
