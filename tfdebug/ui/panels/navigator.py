"""Stage navigator: every stage of the pass as a tree, with a breakpoint gutter.

Stages not reached yet are grey, the current one is bold, highlighted and marked ▶.
Clicking the gutter toggles a breakpoint; clicking a stage that has run shows it;
double-clicking a stage runs to it; its context menu offers Run to Stage, breakpoints and
"Always Keep Every <kind>" (the capture budget keeps that kind first, tfdebug.ui.state.keeping).
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QPointF, Qt, Signal
from PySide6.QtGui import QBrush, QColor, QFont, QIcon, QPainter, QPalette, QPen, QPixmap, QPolygonF
from PySide6.QtWidgets import (
    QHBoxLayout,
    QHeaderView,
    QLineEdit,
    QMenu,
    QPushButton,
    QStyle,
    QStyledItemDelegate,
    QStyleOptionViewItem,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from tfdebug.core.breakpoints import Breakpoint
from tfdebug.core.recorder import Capture
from tfdebug.core.stages import kind_title as english_kind_title
from tfdebug.ui.actions import registry as actions
from tfdebug.ui.i18n.language import formula_text, kind_title, phrase_text, said, title
from tfdebug.ui.render.plain_text import plain_tooltip
from tfdebug.ui.state.controller import DebugController
from tfdebug.ui.actions.breakpoint_menu import kind_menu

GUTTER, NAME, SHAPE = range(3)
NAME_ROLE = Qt.ItemDataRole.UserRole + 1
UNREACHED = QColor(150, 150, 150)
CURRENT_BG = QColor(255, 224, 130)
MOVED_BG = QColor(255, 208, 208)  # a stage a patch moved (the Why dock's Patch Stage), until another pass is shown
BREAK_FG = QColor(200, 30, 30)
CURRENT_MARK = QColor(230, 120, 0)
EDITED = QColor(179, 92, 0)
SHAPE_ROLE = Qt.ItemDataRole.UserRole + 2  # the shape text without the edited or not-kept mark
TIP_ROLE = Qt.ItemDataRole.UserRole + 3  # the name tooltip without why the budget let the stage go


def _current_icon(size: int = 12) -> QIcon:
    """An orange ▶ beside the current stage: it stays visible when another row is selected."""
    pixmap = QPixmap(size, size)
    pixmap.fill(Qt.GlobalColor.transparent)
    painter = QPainter(pixmap)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    painter.setPen(Qt.PenStyle.NoPen)
    painter.setBrush(CURRENT_MARK)
    painter.drawPolygon(QPolygonF([QPointF(1, 1), QPointF(size - 1, size / 2), QPointF(1, size - 1)]))
    painter.end()
    return QIcon(pixmap)


class _CurrentStaysVisible(QStyledItemDelegate):
    """Draws a selected row that has its own background (the current stage) in that background
    with a selection frame, instead of letting the selection colour hide it."""

    def paint(self, painter, option, index) -> None:
        brush = index.data(Qt.ItemDataRole.BackgroundRole)
        if brush is None or not option.state & QStyle.StateFlag.State_Selected:
            super().paint(painter, option, index)
            return
        painter.fillRect(option.rect, brush)
        plain = QStyleOptionViewItem(option)
        plain.state &= ~QStyle.StateFlag.State_Selected
        super().paint(painter, plain, index)
        painter.save()
        painter.setPen(QPen(option.palette.color(QPalette.ColorRole.Highlight), 2))
        painter.drawLine(option.rect.topLeft(), option.rect.topRight())
        painter.drawLine(option.rect.bottomLeft(), option.rect.bottomRight())
        painter.restore()


class NavigatorPanel(QWidget):
    """The stage tree, its filter box, and the kind / condition breakpoint buttons."""

    # the Conditions… button was pressed (the window opens the condition dialog)
    conditions_requested = Signal()

    def __init__(self, ctl: DebugController, parent: QWidget | None = None):
        super().__init__(parent)
        self.ctl = ctl
        self.items: dict[str, QTreeWidgetItem] = {}
        self._current: str | None = None
        self._marked: dict[str, str] = {}  # stage -> "todo" / "run" / "edited" / "dropped" as last drawn
        self.moved: set[str] = set()  # stages shaded as moved by a patch (`shade_moved`)
        self.filter = QLineEdit()
        self.filter.setClearButtonEnabled(True)
        self.filter.textChanged.connect(self.apply_filter)
        # A push button draws its menu's arrow beside the text (a tool button's overlapped "Break on kind").
        self.kind_button = QPushButton()
        self.kind_button.setMenu(kind_menu(ctl, self))
        conditions = self.conditions_button = QPushButton()
        conditions.clicked.connect(self.conditions_requested)
        # The filter on a row of its own: beside the buttons its placeholder was cut ("Filter stages (na…").
        buttons = QHBoxLayout()
        buttons.addWidget(self.kind_button)
        buttons.addWidget(conditions)
        buttons.addStretch(1)
        top = QVBoxLayout()
        top.addWidget(self.filter)
        top.addLayout(buttons)

        self.tree = QTreeWidget()
        self.tree.setColumnCount(3)
        self.tree.setTreePosition(NAME)  # the gutter stays a narrow column without indentation
        self.tree.setColumnWidth(GUTTER, 28)
        # The stage names take what the shapes leave (the shape column is fitted to the pass's
        # widest shape when the tree is built): no shape is clipped in a narrow dock.
        header = self.tree.header()
        header.setStretchLastSection(False)
        header.setSectionResizeMode(NAME, QHeaderView.ResizeMode.Stretch)
        self.tree.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.tree.customContextMenuRequested.connect(self._context_menu)
        self.tree.itemClicked.connect(self._clicked)
        self.tree.itemDoubleClicked.connect(self._double_clicked)
        self.tree.setItemDelegate(_CurrentStaysVisible(self.tree))
        # Every row one line high: the current stage's arrow moving to another row then repaints those two rows,
        # not the whole tree (an icon appearing is a size change the tree otherwise lays out again for).
        self.tree.setUniformRowHeights(True)
        self.current_icon = _current_icon()

        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addLayout(top)
        layout.addWidget(self.tree, 1)

        ctl.session_changed.connect(self.rebuild)
        ctl.state_changed.connect(self.refresh)
        ctl.shown.model.stage_shown.connect(self.refresh)
        # The current row moves with the heatmap's picture, in its turn (two rows repaint); greying what ran
        # (every row looked at) follows with the other panels.
        ctl.shown.model.stage_changed.connect(self._mark_current)
        # The gutter follows the window's breakpoints (ctl.breakpoints.model): a stage's dot at its own event.
        model = ctl.breakpoints.model
        model.added.connect(self._breakpoint_added)
        model.removed.connect(self._breakpoint_removed)
        model.cleared.connect(self._breakpoints_cleared)
        model.refused.connect(self._breakpoint_refused)
        self.retranslate_ui()

    def retranslate_ui(self) -> None:
        """Texts of the panel and its tree (group titles, tooltips, the edited mark) in the current language."""
        self.filter.setPlaceholderText(self.tr("Filter stages (name or kind)…"))
        self.kind_button.setText(self.tr("Break on kind"))
        self.conditions_button.setText(self.tr("Conditions…"))
        self.conditions_button.setToolTip(self.tr("Break on NaN, ±Inf or |x| above a threshold"))
        self.tree.setHeaderLabels(["●", self.tr("Stage"), self.tr("Shape")])
        self.tree.headerItem().setToolTip(GUTTER, self.tr("Click a stage's gutter to toggle a breakpoint"))

    def changeEvent(self, event) -> None:
        if event.type() == QEvent.Type.LanguageChange:
            self.retranslate_ui()
            if self.items:
                self.rebuild()
        super().changeEvent(event)

    # ----- building -----------------------------------------------------------------------
    def rebuild(self) -> None:
        """One leaf per planned stage, under its layer and block."""
        self.tree.clear()
        self._marked = {}
        self.moved = set()
        self.items = {}
        self._current = None
        groups: dict[tuple[str, ...], QTreeWidgetItem] = {}
        for capture in self.ctl.plan:
            parent = None
            path = self.ctl.layout.group_path(capture.name)
            for depth in range(len(path)):
                key = tuple(path[:depth + 1])
                if key not in groups:
                    group = QTreeWidgetItem(["", title(path[depth]), ""])
                    group.setFirstColumnSpanned(False)
                    (parent.addChild(group) if parent else self.tree.addTopLevelItem(group))
                    groups[key] = group
                parent = groups[key]
            item = self._leaf(capture, short=bool(path))
            (parent.addChild(item) if parent else self.tree.addTopLevelItem(item))
            self.items[capture.name] = item
        self.tree.expandToDepth(0)
        self._fit_shape_column()
        self.refresh()
        self.refresh_breakpoints()
        self.apply_filter(self.filter.text())

    def _fit_shape_column(self) -> None:
        """The shape column as wide as the widest shape of the pass (or its title)."""
        metrics = self.tree.fontMetrics()
        texts = [self.tree.headerItem().text(SHAPE)] + [item.data(SHAPE, SHAPE_ROLE) for item in self.items.values()]
        self.tree.setColumnWidth(SHAPE, max(metrics.horizontalAdvance(text) for text in texts) + 16)

    @staticmethod
    def _leaf(capture: Capture, short: bool) -> QTreeWidgetItem:
        label = capture.name.rsplit(".", 1)[-1] if short else capture.name
        shape = "×".join(map(str, capture.shape))
        item = QTreeWidgetItem(["", label, shape])
        item.setData(NAME, NAME_ROLE, capture.name)
        item.setData(SHAPE, SHAPE_ROLE, shape)
        tip = f"{capture.name} — {kind_title(capture.info.kind)}\n{formula_text(capture.info.formula)}"
        item.setData(NAME, TIP_ROLE, tip)
        item.setToolTip(NAME, plain_tooltip(tip))
        item.setTextAlignment(GUTTER, Qt.AlignmentFlag.AlignCenter)
        return item

    # ----- state ----------------------------------------------------------------------------
    def refresh(self) -> None:
        """Grey what has not run, highlight the current stage.

        Only rows whose state changed are touched: every item setter is a model change the
        tree view processes, and a step changes one or two of hundreds of rows.
        """
        stepper = self.ctl.stepper
        history = stepper.history if stepper is not None else []
        states = {c.name: "edited" if c.edited else "dropped" if c.dropped else "run" for c in history}
        marks = {"edited": self.tr(" · edited"), "dropped": self.tr(" · not kept")}
        reasons = stepper.drop_reasons if stepper is not None and "dropped" in states.values() else {}
        for name, item in self.items.items():
            state = states.get(name, "todo")
            if self._marked.get(name) == state:
                continue
            self._marked[name] = state
            colour = QBrush(EDITED) if state == "edited" else QBrush() if state == "run" else QBrush(UNREACHED)
            item.setForeground(NAME, colour)
            item.setForeground(SHAPE, colour)
            item.setText(SHAPE, item.data(SHAPE, SHAPE_ROLE) + marks.get(state, ""))
            # Why the capture budget let it go (core.budget's reasons): the user learns what to change.
            why = phrase_text(reasons[name]) if name in reasons else ""
            item.setToolTip(NAME, plain_tooltip(item.data(NAME, TIP_ROLE) + (f"\n{why}" if why else "")))
            item.setToolTip(SHAPE, plain_tooltip(why) if why else "")  # the mark may be cut off: its reason
        self._mark_current()

    def _mark_current(self, *_capture) -> None:
        """Highlight the shown stage's row (bold, the arrow, scrolled to) and no other."""
        current = self.ctl.current.name if self.ctl.current is not None else None
        if current != self._current:
            font = QFont()
            if self._current in self.items:
                old = self.items[self._current]
                for col in (NAME, SHAPE):
                    old.setBackground(col, self._background(self._current))
                    old.setFont(col, font)
                old.setIcon(NAME, QIcon())
            if current in self.items:
                item = self.items[current]
                font.setBold(True)
                for col in (NAME, SHAPE):
                    item.setBackground(col, QBrush(CURRENT_BG))
                    item.setFont(col, font)
                item.setIcon(NAME, self.current_icon)
                parent = item.parent()
                while parent is not None:
                    parent.setExpanded(True)
                    parent = parent.parent()
                self.tree.scrollToItem(item)
            self._current = current

    def shade_moved(self, names) -> None:
        """Shade the rows of the stages `names` (what a patch moved, in forward order) until another pass is shown;
        the shown stage keeps its own highlight."""
        names = [name for name in names if name in self.items]
        self.moved = set(names)
        for name, item in self.items.items():
            if name != self._current:
                for col in (NAME, SHAPE):
                    item.setBackground(col, self._background(name))
        if names:  # the first stage it moved in view, its layer opened
            self.tree.scrollToItem(self.items[names[0]], QTreeWidget.ScrollHint.PositionAtTop)

    def _background(self, name: str | None) -> QBrush:
        """A row's background when it is not the shown stage's: shaded when a patch moved it."""
        return QBrush(MOVED_BG) if name in self.moved else QBrush()

    def refresh_breakpoints(self) -> None:
        """Every row's gutter from the window's set (a new pass's tree)."""
        for name in self.items:
            self._show_breakpoint(name, Breakpoint.on_stage(name) in self.ctl.breakpoints.points)

    def _show_breakpoint(self, name: str, on: bool) -> None:
        item = self.items.get(name)
        if item is not None:
            item.setText(GUTTER, "●" if on else "")
            item.setForeground(GUTTER, QBrush(BREAK_FG))

    def _breakpoint_added(self, bp: Breakpoint) -> None:
        if bp.by == "stage":
            self._show_breakpoint(bp.value, True)

    def _breakpoint_removed(self, bp: Breakpoint) -> None:
        if bp.by == "stage":
            self._show_breakpoint(bp.value, False)

    def _breakpoints_cleared(self, gone: frozenset) -> None:
        for bp in gone:
            self._breakpoint_removed(bp)

    def _breakpoint_refused(self, bp: Breakpoint | None) -> None:
        if bp is not None and bp.by == "stage":  # the gutter shows the set, not what was asked
            self._show_breakpoint(bp.value, bp in self.ctl.breakpoints.points)

    def current_item(self) -> QTreeWidgetItem | None:
        return self.items.get(self._current) if self._current else None

    # ----- interaction --------------------------------------------------------------------
    def _clicked(self, item: QTreeWidgetItem, column: int) -> None:
        name = item.data(NAME, NAME_ROLE)
        if not name:
            return
        if column == GUTTER:
            self.ctl.breakpoints.toggle_stage(name)
        self.ctl.select_stage(name)
        current = self.ctl.current.name if self.ctl.current is not None else None
        if (column != GUTTER and name != current and self.ctl.steps.reached(name) is not None
                and actions.applies("tfdebug.step.run_to", self.ctl)):
            # A stage that has run is shown at once (from history: nothing runs again).
            self.ctl.steps.run_to(name)

    def _double_clicked(self, item: QTreeWidgetItem, column: int) -> None:
        name = item.data(NAME, NAME_ROLE)
        if name and column != GUTTER:
            self.ctl.steps.run_to(name)

    def _context_menu(self, pos) -> None:
        item = self.tree.itemAt(pos)
        name = item.data(NAME, NAME_ROLE) if item is not None else None
        if not name:
            return
        self.stage_menu(name).popup(self.tree.viewport().mapToGlobal(pos))

    def stage_menu(self, name: str) -> QMenu:
        """The context menu of one stage: Run to Stage, breakpoints."""
        menu = QMenu(self)
        run_to = menu.addAction(self.tr("Run to Stage") if self.ctl.steps.reached(name) is None else self.tr("Show Stage"))
        run_to.setEnabled(self.ctl.steps.reached(name) is not None or self.ctl.steps.can_advance())
        run_to.triggered.connect(lambda: self.ctl.steps.run_to(name))
        toggle = menu.addAction(self.tr("Toggle Breakpoint"))
        toggle.triggered.connect(lambda: self.ctl.breakpoints.toggle_stage(name))
        capture = self.ctl.plan.find(name)
        if capture is not None:
            kind = capture.info.kind
            bp = Breakpoint.on_kind(kind)
            every = menu.addAction(self.tr("Break on Every {kind}").format(kind=kind_title(kind)))
            every.setCheckable(True)
            every.setChecked(bp in self.ctl.breakpoints.points)
            every.toggled.connect(lambda on: self.ctl.breakpoints.set(bp, on))
            keep = menu.addAction(self.tr("Always Keep Every {kind}").format(kind=kind_title(kind)))
            keep.setCheckable(True)
            keep.setChecked(kind in self.ctl.keep.pinned)
            keep.toggled.connect(lambda on: self._pin(kind, on))
        return menu

    def _pin(self, kind: str, on: bool) -> None:
        """Keep every stage of `kind` before any other when the capture budget is full (from the next Run)."""
        self.ctl.keep.pin(kind, on)
        title = kind_title(kind)
        self.ctl.inform(said(lambda: (
            self.tr("Every {kind} stage is kept first when the capture budget is full, from the next Run.") if on
            else self.tr("{kind} stages are no longer kept first, from the next Run.")).format(kind=title)))

    def apply_filter(self, text: str) -> None:
        """Show only stages whose name or kind contains `text` (and the groups above them)."""
        text = text.strip().lower()
        kinds = {c.name: c.info.kind for c in self.ctl.plan}

        def visit(item: QTreeWidgetItem) -> bool:
            name = item.data(NAME, NAME_ROLE)
            if name:
                kind = kinds.get(name, "")
                shown = (not text or text in name.lower() or text in kind or text in kind_title(kind).lower()
                         or text in english_kind_title(kind).lower())
            else:
                shown = False
                for i in range(item.childCount()):
                    shown = visit(item.child(i)) or shown
            item.setHidden(not shown)
            return shown

        for i in range(self.tree.topLevelItemCount()):
            visit(self.tree.topLevelItem(i))
        if text:
            self.tree.expandAll()
