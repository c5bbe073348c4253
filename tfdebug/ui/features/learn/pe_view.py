"""The positional-encoding curves: PE[pos, d] over the positions, one curve per chosen dimension.

Dots are this pass's table (the `src.pe`/`tgt.pe` stage, one row per token); the thin lines
the sin/cos formula between the positions, so the fast low dimensions and the slow high
ones can be told apart even for a ten-token sentence. Opened from the Explain dock of a
positional stage.
"""

from __future__ import annotations

import math

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QEvent
from PySide6.QtWidgets import QDialog, QHBoxLayout, QLabel, QSpinBox, QVBoxLayout, QWidget

SHOWN = 4  # dimensions drawn at once: two sin/cos pairs
PALETTE = ((31, 119, 180), (255, 127, 14), (44, 160, 44), (214, 39, 40))


def formula_curve(d: int, d_model: int, positions: np.ndarray) -> np.ndarray:
    """sin(pos / 10000^(2i/d_model)) for an even dimension d = 2i, cos(…) for the odd one d = 2i + 1."""
    i = d // 2
    angle = positions / math.pow(10000.0, 2 * i / d_model)
    return np.sin(angle) if d % 2 == 0 else np.cos(angle)


class PositionalEncodingView(QDialog):
    """`table` is the (positions, d_model) PE stage of this pass; `first` the first dimension drawn."""

    def __init__(self, table: np.ndarray, name: str, parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("pe-view")
        self.table = np.asarray(table, dtype=np.float64)
        self.name = name
        self.first = QSpinBox()
        self.first.setRange(0, max(0, self.table.shape[1] - SHOWN))
        self.first.setSingleStep(2)
        self.first.valueChanged.connect(self.redraw)
        self.first_label = QLabel()
        self.plot = pg.PlotWidget(background="w")
        self.plot.showGrid(x=True, y=True, alpha=0.3)
        self.plot.setYRange(-1.1, 1.1)
        self.plot.setLimits(yMin=-1.5, yMax=1.5)
        self.legend = self.plot.addLegend(offset=(-10, 10), labelTextColor="k", brush=pg.mkBrush(255, 255, 255, 230),
                                          pen=pg.mkPen(180, 180, 180))
        controls = QHBoxLayout()
        controls.addWidget(self.first_label)
        controls.addWidget(self.first)
        controls.addStretch(1)
        layout = QVBoxLayout(self)
        layout.addLayout(controls)
        layout.addWidget(self.plot)
        self.resize(720, 420)
        self.retranslate_ui()

    def dimensions(self) -> list[int]:
        return list(range(self.first.value(), min(self.first.value() + SHOWN, self.table.shape[1])))

    def redraw(self) -> None:
        self.plot.clear()
        self.legend.clear()
        positions, d_model = self.table.shape
        fine = np.linspace(0, max(positions - 1, 1), 200)
        rows = np.arange(positions)
        for colour, d in zip(PALETTE, self.dimensions()):
            wave = self.tr("sin") if d % 2 == 0 else self.tr("cos")
            label = self.tr("dim {d} ({wave})").format(d=d, wave=wave)
            self.plot.plot(fine, formula_curve(d, d_model, fine), pen=pg.mkPen(colour, width=1))
            self.plot.plot(rows, self.table[:, d], pen=None, symbol="o", symbolSize=7, symbolBrush=colour,
                           name=label)

    def retranslate_ui(self) -> None:
        self.setWindowTitle(self.tr("Positional Encoding Curves: {name}").format(name=self.name))
        self.first_label.setText(self.tr("First dimension"))
        self.plot.setLabel("bottom", self.tr("position"))
        self.plot.setLabel("left", self.tr("PE[pos, dim]"))
        self.redraw()

    def changeEvent(self, event) -> None:
        if event.type() == QEvent.Type.LanguageChange:
            self.retranslate_ui()
        super().changeEvent(event)
