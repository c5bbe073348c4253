"""The Compare dock: two passes stage by stage, the first divergent stage, and A, B, A − B side by side.

File → Compare With… (Ctrl+Shift+D, features/compare/tools) opens CompareDialog; the comparison (core.compare)
runs as a Job and lands here: a table in forward order with the first divergent stage
highlighted and a button that goes to it, and for the selected stage three heatmaps — A,
B and A − B on a diverging map centred on 0, cells masked in both in grey.
"""

from __future__ import annotations

import math

import pyqtgraph as pg
from PySide6.QtCore import QT_TRANSLATE_NOOP, QEvent, QRectF, Qt
from PySide6.QtGui import QBrush, QColor, QFont
from PySide6.QtWidgets import (
    QAbstractItemView,
    QLabel,
    QPushButton,
    QSplitter,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from tfdebug.core.compare import COMPARED, Comparison, format_delta
from tfdebug.core.errors import TfdebugError
from tfdebug.core.view import axis_names
from tfdebug.ui.i18n.language import axis_title, error_text, phrase_text, said, shown_text
from tfdebug.ui.render import colors
from tfdebug.ui.widgets.heatmap_axes import MAX_INDEX_TICKS, tick_step

COLUMNS = (QT_TRANSLATE_NOOP("CompareView", "Stage"), QT_TRANSLATE_NOOP("CompareView", "Status"),
           QT_TRANSLATE_NOOP("CompareView", "max |Δ|"), QT_TRANSLATE_NOOP("CompareView", "mean |Δ|"),
           QT_TRANSLATE_NOOP("CompareView", "rel err"), QT_TRANSLATE_NOOP("CompareView", "over tol"))
FIRST_BG = QColor(255, 200, 120)
DIVERGES_FG = QColor(176, 0, 32)
PANEL_SIZE = (256, 256)
MAX_TOKEN_TICKS = 32
SMALL_PLOT_TICKS = 5  # labels that fit under a third of the dock's width
MIN_PLOT_HEIGHT = 120  # px of each of A, B and A − B inside its title and axes: never less
PLOT_CHROME = 90  # px of a plot's title and its bottom axis with token labels
MIN_TABLE_ROWS = 4  # the table shows at least this many rows


class CompareView(QWidget):
    """The table of a Comparison and the A / B / A − B heatmaps of the selected stage."""

    def __init__(self, tools, parent: QWidget | None = None):  # tools: features.compare.tools.CompareTools
        super().__init__(parent)
        self.tools = tools
        self._summary: str | None = None  # what the summary says once a comparison is shown (a Said)
        self.summary = QLabel()
        self.summary.setWordWrap(True)
        self.summary.setTextFormat(Qt.PlainText)
        self.table = QTableWidget(0, len(COLUMNS))
        self.table.setEditTriggers(QAbstractItemView.NoEditTriggers)
        self.table.setSelectionBehavior(QAbstractItemView.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SingleSelection)
        self.table.verticalHeader().setVisible(False)
        self.table.itemSelectionChanged.connect(self._selected)
        self.table.itemDoubleClicked.connect(lambda item: self.go(self.table.item(item.row(), 0).text()))
        self.go_button = QPushButton()
        self.go_button.setEnabled(False)
        self.go_button.clicked.connect(self.go_first)
        self.caption = QLabel("")
        self.caption.setTextFormat(Qt.PlainText)
        self.graphics = pg.GraphicsLayoutWidget()
        self.plots, self.images = [], []
        for col, title in enumerate(("A", "B", "A − B")):
            plot = self.graphics.addPlot(row=0, col=col, title=title, enableMenu=False)  # no menu built (~5 ms)
            plot.invertY(True)
            plot.setAspectLocked(False)
            image = pg.ImageItem(axisOrder="row-major")
            plot.addItem(image)
            self.plots.append(plot)
            self.images.append(image)
        left = QWidget()
        left_layout = QVBoxLayout(left)
        left_layout.setContentsMargins(0, 0, 0, 0)
        left_layout.addWidget(self.table, 1)
        left_layout.addWidget(self.go_button)
        right = QWidget()
        right_layout = QVBoxLayout(right)
        right_layout.setContentsMargins(0, 0, 0, 0)
        right_layout.addWidget(self.caption)
        right_layout.addWidget(self.graphics, 1)
        # Minimums the dock keeps (its minimum size holds them against the docks around it): the plots never crushed.
        self.graphics.setMinimumHeight(MIN_PLOT_HEIGHT + PLOT_CHROME)
        self.table.setMinimumHeight(self.table.horizontalHeader().sizeHint().height()
                                    + MIN_TABLE_ROWS * self.table.verticalHeader().defaultSectionSize() + 4)
        split = QSplitter()
        split.addWidget(left)
        split.addWidget(right)
        split.setSizes([600, 700])
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(self.summary)
        layout.addWidget(split, 1)
        self.rows: dict[str, int] = {}
        self.retranslate_ui()

    def retranslate_ui(self) -> None:
        """Texts, the verdicts of the table and the caption of the stage shown, in the current language."""
        self.table.setHorizontalHeaderLabels([self.tr(c) for c in COLUMNS])
        self.go_button.setText(self.tr("Go to First Divergent Stage"))
        self.summary.setText(shown_text(self._summary) if self._summary is not None
                             else self.tr("Compare two passes with File → Compare With…."))
        result = self.tools.result
        if result is not None and self.rows:
            for row in result.stages:
                item = self.table.item(self.rows[row.name], 1)
                if item is not None:
                    item.setText(phrase_text(row.verdict))
            self._selected()

    def changeEvent(self, event) -> None:
        if event.type() == QEvent.LanguageChange:
            self.retranslate_ui()
        super().changeEvent(event)

    def show_result(self, result: Comparison, summary: str) -> None:
        """Fill the table in forward order, highlight the first divergent stage and select it.
        `summary` is a Message content (a Said follows a language switch)."""
        self._summary = summary
        self.summary.setText(shown_text(summary))
        first = result.first_divergent
        self.table.setRowCount(len(result.stages))
        self.rows = {}
        bold = QFont()
        bold.setBold(True)
        for i, row in enumerate(result.stages):
            share = "" if row.over_share is None else f"{100 * row.over_share:.1f}%"
            cells = (row.name, phrase_text(row.verdict), format_delta(row.max_abs), format_delta(row.mean_abs),
                     format_delta(row.rel_error), share)
            for col, text in enumerate(cells):
                item = QTableWidgetItem(text)
                if row is first:
                    item.setBackground(QBrush(FIRST_BG))
                    item.setFont(bold)
                if row.diverges:
                    item.setForeground(QBrush(DIVERGES_FG))
                self.table.setItem(i, col, item)
            self.rows[row.name] = i
        self.table.resizeColumnsToContents()
        self.go_button.setEnabled(first is not None)
        if first is not None:
            self.select(first.name)
        elif result.stages:
            self.select(result.stages[0].name)

    def select(self, name: str) -> None:
        """Select the stage's row (its heatmaps follow) and scroll to it."""
        i = self.rows[name]
        self.table.selectRow(i)
        self.table.scrollToItem(self.table.item(i, 0), QAbstractItemView.PositionAtCenter)

    def selected_stage(self) -> str | None:
        rows = self.table.selectionModel().selectedRows()
        return self.table.item(rows[0].row(), 0).text() if rows else None

    def go_first(self) -> None:
        first = self.tools.result.first_divergent if self.tools.result is not None else None
        if first is not None:
            self.select(first.name)
            self.go(first.name)

    def go(self, name: str) -> None:
        """Show `name` in the window (from history when it has run, else the pass runs to it)."""
        ctl = self.tools.ctl
        if name not in ctl.plan:
            ctl.fail(said(lambda: self.tr("The pass on screen has no stage {name}.").format(name=name)))
            return
        ctl.steps.run_to(name)

    def _selected(self) -> None:
        name = self.selected_stage()
        if name is not None:
            self.show_stage(name)

    def show_stage(self, name: str) -> None:
        """Draw A, B and A − B of stage `name` (its last two axes, other axes at the window's indices)."""
        for image in self.images:
            image.clear()
        row = self.tools.result[name]
        if row.status != COMPARED or not row.cells:
            self.caption.setText(self.tr("{name}: {verdict} — nothing to draw side by side.").format(
                name=name, verdict=phrase_text(row.verdict)))
            return
        try:
            planes = self.tools.planes(name, dict(self.tools.ctl.view.indices_by_name), PANEL_SIZE)
            capture, _ = self.tools.capture_a(name)
        except (TfdebugError, ValueError, RuntimeError) as exc:
            self.caption.setText(self.tr("Cannot draw {name}: {why}").format(
                name=name, why=error_text(exc) if isinstance(exc, TfdebugError) else exc))
            return
        slices, indices, kind = planes.slices, planes.indices, capture.info.kind
        names = axis_names(capture.info.axes, capture.shape)
        self._label_axes(name, planes.row_axis, planes.col_axis, slices[0].source_shape)
        cmap, levels, _ = colors.scheme(kind, slices[0].stats)
        m = max(abs(slices[2].stats.min), abs(slices[2].stats.max))
        m = m if m == m and m > 0 else 1.0
        schemes = ((cmap, levels), (cmap, levels), (colors.diverging(), (-m, m)))
        for image, plot, sl, (scheme_map, lv) in zip(self.images, self.plots, slices, schemes):
            lut = scheme_map.getLookupTable(0.0, 1.0, colors.LUT_SIZE)
            image.setImage(colors.to_rgba(sl.values, lut, lv), autoLevels=False)
            rows, cols = sl.source_shape
            image.setRect(QRectF(0, 0, cols, rows))
            plot.setRange(xRange=(0, cols), yRange=(0, rows), padding=0)
        fixed = ", ".join(f"{axis_title(names[a])} {i}" for a, i in indices.items())
        shown = (f"{axis_title(names[planes.row_axis])} × {axis_title(names[planes.col_axis])}" if len(names) >= 2
                 else self.tr("values"))
        at = self.tr(" at {fixed}").format(fixed=fixed) if fixed else ""
        self.caption.setText(self.tr("{name}: {shown}{at} · A − B from {lo} to {hi}, masked in both in grey").format(
            name=name, shown=shown, at=at, lo=f"{-m:.3g}", hi=f"{m:.3g}"))


    def _label_axes(self, name: str, row_axis: int, col_axis: int, shape: tuple[int, int]) -> None:
        """Token strings (of pass A) on token axes, integer ticks at cell centres elsewhere."""
        capture, tokens = self.tools.capture_a(name)
        names = axis_names(capture.info.axes, capture.shape)
        for side, axis, n in (("left", row_axis, shape[0]), ("bottom", col_axis, shape[1])):
            stream = capture.info.tokens.get(names[axis]) if 0 <= axis < len(names) else None
            labels = tokens.get(stream) if stream else None
            words = labels if labels and len(labels) == n <= MAX_TOKEN_TICKS else [str(i) for i in range(n)]
            for plot in self.plots:
                plot.getAxis(side).setTicks(_small_plot_ticks(words))
                plot.setLabel(side, axis_title(names[axis]) if 0 <= axis < len(names) else "")


def _small_plot_ticks(words: list[str]) -> list[list[tuple[float, str]]]:
    """Tick levels for one of the three plots (a third of the dock wide): at most SMALL_PLOT_TICKS labels
    always drawn, the others in a second level pyqtgraph draws only when they fit (as the plot grows)."""
    step = tick_step(math.ceil(len(words) * MAX_INDEX_TICKS / SMALL_PLOT_TICKS))  # n / step ≤ SMALL_PLOT_TICKS
    major = [(i + 0.5, w) for i, w in enumerate(words) if i % step == 0]
    minor = [(i + 0.5, w) for i, w in enumerate(words) if i % step]
    return [major, minor] if minor else [major]
