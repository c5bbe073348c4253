"""Query Row view: one query's weights over every key of the shown stage, and its strongest keys.

A click on a heatmap row picks the query (the controller's `picked_row`); this view reads that
row of the shown slice cell for cell on the display worker (`request_row`: one indexing of the
stage's tensor, so on a plane computed on demand only that row is computed) and plots it over
the keys, labelled by token as far as they fit (zoom the plot to see more), with the top keys
listed by weight. It follows the stage, the head and the axes the heatmap shows.
"""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QT_TRANSLATE_NOOP, Qt
from PySide6.QtWidgets import QLabel, QSplitter, QVBoxLayout, QWidget

from tfdebug.core.quantise import PROBABILITY_KINDS
from tfdebug.core.tiles import Tile
from tfdebug.ui.actions import registry as actions
from tfdebug.ui.actions.context import ActionContext
from tfdebug.ui.render import colors
from tfdebug.ui.render.token_text import shown_token
from tfdebug.ui.state.controller import DebugController
from tfdebug.ui.widgets.deferred import Deferred
from tfdebug.ui.widgets.heatmap_axes import TokenAxis
from tfdebug.ui.widgets.when_seen import WhenSeen

TOP_K = 10


class QueryRowPanel(QWidget):
    """The picked query's row as a plot over the keys, and its TOP_K keys by weight."""

    def __init__(self, ctl: DebugController, parent: QWidget | None = None):
        super().__init__(parent)
        self.ctl = ctl
        self.values: np.ndarray | None = None  # the row as drawn (float32, one per key; masked keys −∞)
        self.row: int | None = None            # which row of the slice that is
        self.labels: list[str] | None = None   # the keys' tokens
        self.title = QLabel()
        self.title.setTextFormat(Qt.TextFormat.PlainText)  # stage names and tokens come from a model or a file
        self.title.setWordWrap(True)
        self.plot = pg.PlotWidget(axisItems={"bottom": TokenAxis("bottom", rotate_labels=True)},
                                  enableMenu=False)  # no context menu: not built at all (~5 ms a plot)
        self.plot.setMouseEnabled(x=True, y=False)  # zoom along the keys to read their labels
        self.curve = self.plot.plot(pen=pg.mkPen((40, 110, 200), width=1), connect="finite")
        self.top = QLabel()
        self.top.setTextFormat(Qt.TextFormat.PlainText)
        self.top.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.top.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)
        split = QSplitter(Qt.Orientation.Horizontal)
        split.addWidget(self.plot)
        split.addWidget(self.top)
        split.setStretchFactor(0, 4)
        split.setStretchFactor(1, 1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(self.title)
        layout.addWidget(split, 1)
        self.when_seen = WhenSeen(self, self.refresh)  # a closed Query Row dock reads no row
        ctl.row_picked.connect(self.when_seen.ask)
        ctl.shown.model.followed.connect(self._followed)
        self.refresh()

    def _followed(self, event) -> None:
        if event.new_slice:
            self.when_seen.ask()

    def refresh(self) -> None:
        """Read the picked row of the shown slice again (or say why there is none)."""
        if not self.ctl.tiles.request_row(self._arrived):
            self._show(None, None)

    def _arrived(self, tile: Tile) -> None:
        self._show(tile, self.ctl.tiles.picked_row)

    def _show(self, tile: Tile | None, row: int | None) -> None:
        capture = self.ctl.current
        if tile is None or capture is None:
            self.values, self.row, self.labels = None, None, None
            self.curve.setData([], [])
            self.top.setText("")
            self.title.setText(self.tr("Click a row of the heatmap to plot that query's weights over every key.")
                               if capture is None or capture.tensor is not None
                               else self.tr("This stage's values are not here to read."))
            return
        view = self.ctl.view
        kind = capture.info.kind
        self.values, self.row = tile.values[0], row
        self.labels = self.ctl.axes.labels(view.col_axis)
        rows_labels = self.ctl.axes.labels(view.row_axis)
        n = len(self.values)
        y = np.where(np.isfinite(self.values), self.values, np.nan).astype(np.float32)
        self.curve.setData(np.arange(n) + 0.5, y, connect="finite",
                           fillLevel=0 if kind in PROBABILITY_KINDS else None,
                           brush=(40, 110, 200, 90) if kind in PROBABILITY_KINDS else None)
        axis = self.plot.getAxis("bottom")
        axis.set_cells(n, self.labels)
        self.plot.setXRange(0, n, padding=0)
        token = f" '{shown_token(rows_labels[row])}'" if rows_labels else ""
        self.title.setText(self.tr("{stage} · row {row}{token} over {n} columns · masked keys left out").format(
            stage=capture.name, row=row, token=token, n=n))
        self.top.setText(self.tr("Strongest {k}:").format(k=min(TOP_K, n)) + "\n" + "\n".join(self.top_keys()))

    def top_keys(self, k: int = TOP_K) -> list[str]:
        """The row's k largest values (masked keys left out), as 'key token value' lines, largest first."""
        if self.values is None:
            return []
        finite = np.isfinite(self.values)
        order = [i for i in np.argsort(-np.where(finite, self.values, -np.inf), kind="stable")[:k] if finite[i]]
        return [f"{i} " + (f"'{shown_token(self.labels[i])}' " if self.labels else "")
                + colors.format_value(float(self.values[i])) for i in order]


@actions.action("tfdebug.view.query_row", QT_TRANSLATE_NOOP("actions", "Query Row"), "Ctrl+Shift+R",
                QT_TRANSLATE_NOOP("actions", "Show or hide one query's weights over every key (click a heatmap row "
                                             "to pick it; by default the last row in view)"), toolbar=False)
def toggle_query_row(ctx: ActionContext) -> None:
    dock = ctx.window.docks["query_row"]
    if dock.isVisible():
        dock.hide()
    else:
        ctx.window.show_dock_within(dock)  # side docks tabbed rather than the window grown off the screen
        if ctx.ctl.tiles.picked_row is None and ctx.ctl.shown.current_slice is not None:
            ctx.ctl.tiles.pick_row(ctx.window.heatmap_panel.zoom.visible()[0][1] - 1)


def install(window) -> Deferred:
    """Add the Query Row dock (hidden until View ▸ Query Row, Ctrl+Shift+R, or a click on a heatmap row)."""
    deferred = Deferred(lambda: QueryRowPanel(window.ctl))  # built when first shown or read (window.query_row)
    dock = window.add_dock(QT_TRANSLATE_NOOP("MainWindow", "Query Row"), "query_row", deferred,
                        Qt.DockWidgetArea.BottomDockWidgetArea, action_id="tfdebug.view.query_row")

    def picked() -> None:
        if window.ctl.tiles.picked_row is not None and not dock.isVisible():
            window.show_dock_within(dock)
    window.ctl.row_picked.connect(picked)
    return deferred
