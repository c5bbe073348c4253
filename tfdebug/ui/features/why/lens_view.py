"""The Lens view: the residual stream read out as the model's prediction, layers × positions.

Each cell is one residual stage (the embeddings, then each block's output) at one token position, coloured by
the target's probability, its rank, the entropy or the KL divergence from the final distribution, with the
most probable token written in it when it is wide enough. Only the positions in view are computed (on a
worker, a block at a time), so a long prompt's lens is never made whole. A click goes to that residual stage
with that position's row picked.
"""

from __future__ import annotations

import math

import numpy as np
from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication, Qt
from PySide6.QtWidgets import QComboBox, QHBoxLayout, QLabel, QLineEdit, QVBoxLayout, QWidget

from tfdebug.ui.features.why.cell_grid import CellGrid
from tfdebug.ui.features.why.learn_text import LearnText
from tfdebug.ui.features.why.reading import WhyReader
from tfdebug.ui.render.token_text import shown_token
from tfdebug.ui.state.controller import DebugController

#: positions shown when a pass opens: the last ones (zoom out or pan to compute more)
FIRST_POSITIONS = 48
#: positions computed per request (the rest follow as the view moves)
BLOCK = 128
MODES = (QT_TRANSLATE_NOOP("LensView", "p(target)"), QT_TRANSLATE_NOOP("LensView", "rank of target (log)"),
         QT_TRANSLATE_NOOP("LensView", "entropy"), QT_TRANSLATE_NOOP("LensView", "KL to final"))


class LensView(QWidget):
    """Layers × positions of the logit lens of the pass on screen."""

    def __init__(self, ctl: DebugController, reader: WhyReader, parent: QWidget | None = None):
        super().__init__(parent)
        self.ctl, self.reader = ctl, reader
        self.cells: dict[int, list] = {}  # position -> its column of LensCells, embeddings first
        self.target: int | None = None
        self.mode = QComboBox()
        self.target_box = QLineEdit()
        self.target_box.setClearButtonEnabled(True)
        self.learn = LearnText()
        self.note = QLabel()
        self.note.setTextFormat(Qt.TextFormat.PlainText)
        self.note.setWordWrap(True)
        self.grid = CellGrid()
        top = QHBoxLayout()
        self.mode_label, self.target_label = QLabel(), QLabel()
        top.addWidget(self.mode_label)
        top.addWidget(self.mode)
        top.addWidget(self.target_label)
        top.addWidget(self.target_box, 1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addLayout(top)
        layout.addWidget(self.learn)
        layout.addWidget(self.note)
        layout.addWidget(self.grid, 1)
        self.mode.currentIndexChanged.connect(lambda _: self.draw(keep_view=True))
        self.target_box.returnPressed.connect(self._target_typed)
        self.grid.range_changed.connect(lambda first, last: self.request(range(first, last + 1)))
        self.grid.cell_clicked.connect(self._go)
        reader.ready.connect(self._new_pass)
        reader.unavailable.connect(self._unavailable)
        self.retranslate_ui()

    def retranslate_ui(self) -> None:
        """Texts in the window's language."""
        index = self.mode.currentIndex()
        self.mode.blockSignals(True)
        self.mode.clear()
        self.mode.addItems([QCoreApplication.translate("LensView", m) for m in MODES])
        self.mode.setCurrentIndex(max(0, index))
        self.mode.blockSignals(False)
        self.mode_label.setText(self.tr("Colour:"))
        self.target_label.setText(self.tr("Target token:"))
        self.target_box.setPlaceholderText(self.tr("each position's final prediction"))
        self.learn.setText(self.tr("The logit lens asks what the model would predict if it stopped after this "
                                   "layer: logits = W_U · norm(h_layer), p = softmax(logits). Early rows are "
                                   "usually vague; the row where the target's rank falls to 1 is where the answer "
                                   "appears."))

    # ----- the pass --------------------------------------------------------------------------------------------
    def _new_pass(self) -> None:
        self.cells = {}
        why = self.reader.why
        count = why.count
        self.note.setText(self.tr("Each row is a residual stage read with the model's own final norm and "
                                  "unembedding; the last row is the logits. Click a cell to go there."))
        labels = why.token_labels()
        self.grid.set_axes([row_label(n) for n in why.rows], [shown_token(t) for t in labels][:count])
        self.draw()
        self.request(range(max(0, count - FIRST_POSITIONS), count), frame=True)

    def _unavailable(self, sentence: str) -> None:
        self.cells = {}
        self.note.setText(sentence)
        self.grid.blank()

    def _target_typed(self) -> None:
        text = self.target_box.text()
        why = self.reader.why
        if why is None:
            return
        if not text.strip():
            self._target_set(None)
            return
        # read where the pass is (a served pass's vocabulary is on the server): on a worker
        self.reader.run(lambda: why.token_id(text), self._target_set, failed=self.note.setText)

    def _target_set(self, target: int | None) -> None:
        self.target = target
        self.cells = {}
        self.draw(keep_view=True)
        self.request(range(*_span(self.grid.visible_columns())))

    def request(self, positions, frame: bool = False) -> None:
        """Compute the cells of `positions` not computed yet (at most BLOCK at a time)."""
        why = self.reader.why
        if why is None:
            return
        wanted = [p for p in positions if p not in self.cells][:BLOCK]
        if not wanted:
            return
        target = self.target
        self.reader.run(lambda: why.lens(wanted, target, k=5), lambda grid: self._arrived(grid, target, frame))

    def _arrived(self, grid, target: int | None, frame: bool) -> None:
        if self.reader.why is None or target != self.target:
            return  # another pass or another target since
        for c, position in enumerate(grid.positions):
            self.cells[position] = [row[c] for row in grid.cells]
        self.draw(keep_view=not frame)
        if frame:
            count = self.reader.why.count
            first = max(0, count - FIRST_POSITIONS)
            self.grid.getViewBox().setRange(xRange=(first, count), padding=0)

    # ----- drawing ---------------------------------------------------------------------------------------------
    def values(self) -> np.ndarray:
        """Rows × positions of the chosen measure (NaN where not computed)."""
        why = self.reader.why
        count = why.count if why is not None else 0
        rows = len(why.rows) if why is not None else 0
        out = np.full((rows, count), np.nan, dtype=np.float64)
        mode = self.mode.currentIndex()
        for position, column in self.cells.items():
            for r, cell in enumerate(column):
                out[r, position] = (cell.p_target, math.log10(cell.rank), cell.entropy, cell.kl)[mode]
        return out

    def draw(self, keep_view: bool = False) -> None:
        """Colour the computed cells and write their top tokens."""
        why = self.reader.why
        if why is None:
            return
        values = self.values()
        texts = np.full(values.shape, "", dtype=object)
        for position, column in self.cells.items():
            for r, cell in enumerate(column):
                top = cell.top[0][0]
                word = why.word(top)
                texts[r, position] = shown_token(word) if word is not None else f"#{top}"
        finite = values[np.isfinite(values)]
        mode = self.mode.currentIndex()
        size = why.vocabulary_size
        high = (1.0, math.log10(max(2, size)), math.log(max(2, size)),
                float(finite.max()) if finite.size else 1.0)[mode]
        self.grid.draw(values, (0.0, high or 1.0), texts=texts, keep_view=keep_view)

    def _go(self, row: int, position: int) -> None:
        """To the residual stage of `row`, with `position`'s row of it picked."""
        why = self.reader.why
        if why is None:
            return
        self.ctl.steps.run_to(why.rows[row])
        self.ctl.tiles.pick_row(position)


def row_label(name: str) -> str:
    """'dec.3.ffn.resid' -> 'L3', an embeddings stage by its name."""
    parts = name.split(".")
    return f"L{parts[1]}" if len(parts) >= 4 and parts[1].isdigit() else name


def _span(columns: tuple[int, int]) -> tuple[int, int]:
    return columns[0], columns[1] + 1
