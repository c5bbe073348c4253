"""The Attribution view: logit(target) − logit(contrast) at one position split into the embeddings, every head,
every block and the biases (`sessions.why_view.WhyView.attribute`, wherever the pass runs), as a layers × heads
grid and per-layer bars, with the terms' sum beside the pass's own value. A click on a head goes to its attention
probabilities with the position's query row picked."""

from __future__ import annotations

import math

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtWidgets import (QHBoxLayout, QLabel, QLineEdit, QPushButton, QSpinBox, QSplitter, QVBoxLayout,
                               QWidget)

from tfdebug.ui.features.why.cell_grid import CellGrid
from tfdebug.ui.features.why.learn_text import LearnText
from tfdebug.ui.features.why.reading import WhyReader
from tfdebug.ui.state.controller import DebugController

MOST_BAR_LABELS = 16  # layer numbers under the bars; more layers label every second, third … one


class AttributionView(QWidget):
    """Target, contrast and position fields, Explain, the heads grid, the per-layer bars and the sum."""

    def __init__(self, ctl: DebugController, reader: WhyReader, parent: QWidget | None = None):
        super().__init__(parent)
        self.ctl, self.reader = ctl, reader
        self.result = None
        self.blocks: list[tuple[int, str]] = []  # the grid's rows: (layer, attention block)
        self.target_box, self.contrast_box = QLineEdit(), QLineEdit()
        self.position = QSpinBox()
        self.explain = QPushButton()
        self.labels = [QLabel() for _ in range(3)]
        fields = QHBoxLayout()
        for label, field in zip(self.labels, (self.target_box, self.contrast_box, self.position)):
            fields.addWidget(label)
            fields.addWidget(field, 1 if field is not self.position else 0)
        fields.addWidget(self.explain)
        self.summary = QLabel()
        self.summary.setTextFormat(Qt.TextFormat.PlainText)
        self.summary.setWordWrap(True)
        self.summary.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.grid = CellGrid()
        self.bars = pg.PlotWidget(enableMenu=False)
        self.bars.setMouseEnabled(x=True, y=False)
        split = QSplitter(Qt.Orientation.Horizontal)
        split.addWidget(self.grid)
        split.addWidget(self.bars)
        split.setStretchFactor(0, 3)
        split.setStretchFactor(1, 2)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addLayout(fields)
        self.learn = LearnText()
        layout.addWidget(self.learn)
        layout.addWidget(self.summary)
        layout.addWidget(split, 1)
        self.explain.clicked.connect(self.run)
        self.target_box.returnPressed.connect(self.run)
        self.contrast_box.returnPressed.connect(self.run)
        self.grid.cell_clicked.connect(self._go)
        reader.ready.connect(self._new_pass)
        reader.unavailable.connect(self._unavailable)
        self.retranslate_ui()

    def retranslate_ui(self) -> None:
        """Texts in the window's language."""
        for label, text in zip(self.labels, (self.tr("Target:"), self.tr("not:"), self.tr("at position:"))):
            label.setText(text)
        self.target_box.setPlaceholderText(self.tr("the prediction"))
        self.contrast_box.setPlaceholderText(self.tr("optional contrast token"))
        self.explain.setText(self.tr("Explain"))
        self.learn.setText(self.tr("The residual stream the final norm reads is a sum: embeddings + every head's "
                                   "output + every feed-forward block + biases. With the norm's scale frozen, "
                                   "logit(target) − logit(contrast) = Σ (W_U[target] − W_U[contrast]) · "
                                   "norm(term). Red terms push towards the target, blue ones away from it."))

    def _new_pass(self) -> None:
        count = self.reader.why.count
        self.position.setRange(0, count - 1)
        self.position.setValue(count - 1)
        self.run()

    def _unavailable(self, sentence: str) -> None:
        self.result = None
        self.summary.setText(sentence)
        self.grid.blank()
        self.bars.clear()

    def run(self) -> None:
        """Attribute the typed target (the prediction when empty) against the typed contrast."""
        why = self.reader.why
        if why is None:
            return
        position, typed, against = self.position.value(), self.target_box.text(), self.contrast_box.text()

        def work():  # on a worker: a served pass answers each of these from the server
            target = why.token_id(typed) if typed.strip() else why.prediction(position)
            contrast = why.token_id(against) if against.strip() else None
            return why.attribute(target, contrast, position)
        self.reader.run(work, self.show_result, failed=self.summary.setText)

    def show_result(self, result) -> None:
        """Draw `result` (an Attribution): the heads grid, the per-layer bars and the sum beside the pass's own."""
        self.result = result
        word = self.reader.quoted_word
        what = f"logit({word(result.target)})" + (f" − logit({word(result.contrast)})"
                                                   if result.contrast is not None else "")
        self.summary.setText(self.tr("{what} at position {position}: the pass's own value {own:.5g}; the terms sum "
                                     "to {total:.5g} (gap {gap:.1e}). Convention: {convention}.").format(
            what=what, position=result.position, own=result.logit_diff, total=result.total, gap=result.gap,
            convention=result.convention) + "".join(f" {note}" for note in result.notes))
        heads = result.heads()
        self.blocks = sorted(heads)
        width = max((len(v) for v in heads.values()), default=0)
        values = np.full((len(self.blocks), max(1, width)), np.nan)
        for r, key in enumerate(self.blocks):
            values[r, :len(heads[key])] = heads[key]
        bound = float(np.nanmax(np.abs(values))) if np.isfinite(values).any() else 1.0
        texts = np.vectorize(lambda v: "" if not np.isfinite(v) else f"{v:+.2f}", otypes=[object])(values)
        self.grid.set_axes([f"L{layer} {block.rsplit('.', 1)[-1]}" for layer, block in self.blocks],
                           [f"H{h}" for h in range(width)])
        self.grid.draw(values, (-bound or -1.0, bound or 1.0), diverging=True, texts=texts)
        layers = result.layers()
        layers[-1] = sum(t.value for t in result.terms if t.kind == "embed")  # the embeddings, left of layer 0
        self.bars.clear()
        if layers:
            xs = np.array(sorted(layers), dtype=float)
            ys = np.array([layers[int(x)] for x in xs])
            every = max(1, math.ceil(len(xs) / MOST_BAR_LABELS))  # 30 layers' numbers would run together
            self.bars.getAxis("bottom").setTicks([[(x, self.tr("emb") if x < 0 else str(int(x))) for x in xs
                                                   if x < 0 or int(x) % every == 0]])
            brushes = [pg.mkBrush(60, 110, 200) if y < 0 else pg.mkBrush(200, 60, 60) for y in ys]  # as the grid's map
            self.bars.addItem(pg.BarGraphItem(x=xs, height=ys, width=0.7, brushes=brushes))
            self.bars.setLabel("bottom", self.tr("layer"))
            self.bars.setLabel("left", self.tr("share of the logit difference"))

    def _go(self, row: int, head: int) -> None:
        """To head `head`'s attention probabilities of the clicked block, with the position's query row picked."""
        if self.result is None or not 0 <= row < len(self.blocks):
            return
        block = self.blocks[row][1]
        self.ctl.steps.run_to(f"{block}.probs")
        self.ctl.axes.set_index("head", head)
        self.ctl.tiles.pick_row(self.result.position)
