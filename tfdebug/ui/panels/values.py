"""Values panel: the numbers of the shown slice in a table, when it has at most 4,096 cells."""

from __future__ import annotations

import numpy as np
from PySide6.QtCore import QAbstractTableModel, QEvent, QModelIndex, Qt
from PySide6.QtWidgets import QLabel, QTableView, QVBoxLayout, QWidget

from tfdebug.core.display import DisplaySlice
from tfdebug.ui.render.colors import format_value
from tfdebug.ui.state.controller import DebugController
from tfdebug.ui.widgets.when_seen import WhenSeen

MAX_CELLS = 4096


class SliceModel(QAbstractTableModel):
    """A read-only table over a 2-D float array with optional row/column labels."""

    def __init__(self):
        super().__init__()
        self.values = np.zeros((0, 0), dtype=np.float32)
        self.text: list[list[str]] = []
        self.rows: list[str] = []
        self.cols: list[str] = []

    def set(self, values: np.ndarray, rows: list[str], cols: list[str]) -> None:
        self.beginResetModel()
        self.values, self.rows, self.cols = values, rows, cols
        # Formatted once here: views ask for each cell's text many times.
        self.text = [[format_value(float(x)) for x in row] for row in values.tolist()]
        self.endResetModel()

    def widest(self) -> str:
        """The longest cell or column label, for sizing columns without asking every cell."""
        return max((t for row in self.text for t in row), key=len, default="") if self.text else ""

    def rowCount(self, parent=QModelIndex()) -> int:
        return 0 if parent.isValid() else self.values.shape[0]

    def columnCount(self, parent=QModelIndex()) -> int:
        return 0 if parent.isValid() else self.values.shape[1]

    def data(self, index, role=Qt.ItemDataRole.DisplayRole):
        if role == Qt.ItemDataRole.DisplayRole and index.isValid():
            return self.text[index.row()][index.column()]
        if role == Qt.ItemDataRole.TextAlignmentRole:
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        return None

    def headerData(self, section, orientation, role=Qt.ItemDataRole.DisplayRole):
        if role != Qt.ItemDataRole.DisplayRole:
            return None
        labels = self.rows if orientation == Qt.Orientation.Vertical else self.cols
        return labels[section] if section < len(labels) else str(section)


class ValuesPanel(QWidget):
    """The shown slice as numbers, or a note saying why it is not listed."""

    def __init__(self, ctl: DebugController, parent: QWidget | None = None):
        super().__init__(parent)
        self.ctl = ctl
        self.model = SliceModel()
        self.table = QTableView()
        self.table.setModel(self.model)
        self.note = QLabel("")
        self.note.setTextFormat(Qt.TextFormat.PlainText)
        self.note.setWordWrap(True)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(self.note)
        layout.addWidget(self.table, 1)
        self.when_seen = WhenSeen(self, self._show_current)
        ctl.shown.model.followed.connect(self._followed)

    def changeEvent(self, event) -> None:
        if event.type() == QEvent.Type.LanguageChange:
            self.show_slice(self.shown)
        super().changeEvent(event)

    shown: DisplaySlice | None = None

    def _followed(self, event) -> None:
        if event.new_slice:  # a panel off screen (a tab behind Stats, say) fills its table when it comes back
            self.when_seen.ask()

    def _show_current(self) -> None:
        if self.ctl.shown.current_slice is not self.shown:
            self.show_slice(self.ctl.shown.current_slice)

    def show_slice(self, sl: DisplaySlice | None) -> None:
        self.shown = sl
        if sl is None:
            self.model.set(np.zeros((0, 0), dtype=np.float32), [], [])
            self.note.setText(self.tr("Nothing to show yet."))
            return
        cells = sl.source_shape[0] * sl.source_shape[1]
        if cells > MAX_CELLS or sl.downsampled:
            self.model.set(np.zeros((0, 0), dtype=np.float32), [], [])
            self.note.setText(self.tr("The shown slice has {cells} cells; the table lists slices of at most "
                                      "{most}. Pick smaller axes or read values by hovering over the heatmap.").format(
                cells=f"{cells:,}", most=f"{MAX_CELLS:,}"))
            return
        names = self.ctl.axes.names()
        rows = self._labels(sl.row_axis, sl.values.shape[0], names)
        cols = self._labels(sl.col_axis, sl.values.shape[1], names)
        self.model.set(sl.values, rows, cols)
        self.note.setText(self.tr("{rows} × {cols} values").format(rows=sl.values.shape[0], cols=sl.values.shape[1]))
        # One width from the widest text (resizeColumnsToContents reads every cell: ~50 ms at 4,096).
        metrics = self.table.fontMetrics()
        widest = max([self.model.widest(), *cols], key=len, default="")
        self.table.horizontalHeader().setDefaultSectionSize(metrics.horizontalAdvance(widest) + 16)

    def _labels(self, axis: int, n: int, names) -> list[str]:
        tokens = self.ctl.axes.labels(axis) if axis >= 0 else None
        return [f"{i} {tokens[i]}" for i in range(n)] if tokens else [str(i) for i in range(n)]
