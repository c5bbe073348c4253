"""Next-token prediction: at a stage with a `vocab` axis (the logits), the top 5 tokens of a chosen row.

What a learner looks for at the end of the pass: after "<bos> 我", which word does the
model put next, and how sure is it?
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, Qt
from PySide6.QtWidgets import QComboBox, QHBoxLayout, QHeaderView, QLabel, QTableWidget, QTableWidgetItem, QVBoxLayout, QWidget

from tfdebug.core.gradients import is_gradient
from tfdebug.core.names import parse_token_ref
from tfdebug.core.prediction import top_predictions
from tfdebug.ui.state.controller import DebugController

TOP_K = 5


def format_probability(p: float) -> str:
    """0.912, or 3.1e-05 where three decimals would round a real chance to 0.000."""
    return f"{p:.3f}" if p >= 0.0005 or p == 0 else f"{p:.1e}"


class PredictionView(QWidget):
    """A row chooser and a table of the 5 most probable next tokens with their probabilities.

    Shown only while the current stage has a `vocab` axis and a position axis beside it.
    """

    def __init__(self, ctl: DebugController, parent: QWidget | None = None):
        super().__init__(parent)
        self.ctl = ctl
        self.row_combo = QComboBox()
        self.row_combo.activated.connect(lambda _i: self.refresh())
        self.table = QTableWidget(0, 2)
        self.table.verticalHeader().setVisible(False)
        self.table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Stretch)
        top = QHBoxLayout()
        self.title = QLabel()
        top.addWidget(self.title)
        top.addWidget(self.row_combo, 1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(top)
        layout.addWidget(self.table)
        self._stage: str | None = None
        self.predictions: list[tuple[str, float]] = []
        ctl.shown.model.stage_shown.connect(self._stage_changed)
        self.setVisible(False)
        self.retranslate_ui()

    def retranslate_ui(self) -> None:
        self.row_combo.setToolTip(self.tr("The position whose prediction is listed (the last one predicts the "
                                          "next word)"))
        self.table.setHorizontalHeaderLabels([self.tr("Next token"), self.tr("Probability")])
        self.title.setText(self.tr("Prediction"))

    def changeEvent(self, event) -> None:
        if event.type() == QEvent.Type.LanguageChange:
            self.retranslate_ui()
            self._stage = None  # the row names again
            self._stage_changed()
        super().changeEvent(event)

    def on_gradient(self) -> bool:
        """Whether the current stage is a gradient over the vocabulary (a backward pass's logits): no prediction."""
        capture = self.ctl.current
        return capture is not None and is_gradient(capture.info) and "vocab" in self.ctl.axes.names()

    def _axes(self) -> tuple[int, int] | None:
        """(position axis, vocab axis) of the current stage, or None when it predicts nothing (a gradient of the
        logits is no distribution over next tokens)."""
        capture = self.ctl.current
        if capture is None or capture.tensor is None or is_gradient(capture.info):
            return None
        names = self.ctl.axes.names()
        if "vocab" not in names:
            return None
        vocab = names.index("vocab")
        position = next((i for i, n in enumerate(names) if n in ("token", "query")), None)
        return None if position is None else (position, vocab)

    def applies(self) -> bool:
        return self._axes() is not None

    def _stage_changed(self) -> None:
        axes = self._axes()
        self.setVisible(axes is not None)
        if axes is None:
            self._stage = None
            return
        capture = self.ctl.current
        if capture.name != self._stage:  # a new stage opens on its last row: the next word
            self._stage = capture.name
            labels = self.ctl.axes.labels(axes[0])
            n = capture.shape[axes[0]]
            first = _first_position(capture.info.tokens.get(self.ctl.axes.names()[axes[0]]))
            self.row_combo.clear()
            # Positions in the whole sequence: a generation step's logits hold one row, the newest token's.
            self.row_combo.addItems([self.tr("after '{token}' (position {i})").format(i=first + i, token=labels[i])
                                     if labels else self.tr("after position {i}").format(i=first + i)
                                     for i in range(n)])
            self.row_combo.setCurrentIndex(n - 1)
        self.refresh()

    def refresh(self) -> None:
        axes = self._axes()
        if axes is None:
            return
        position, vocab = axes
        capture = self.ctl.current
        fixed = {axis: index for axis, index in self.ctl.axes.indices(capture).items() if axis != vocab}
        fixed[position] = max(self.row_combo.currentIndex(), 0)
        words = self.ctl.axes.labels(vocab)
        pairs = top_predictions(capture.tensor, vocab, fixed, TOP_K)
        self.predictions = [(words[i] if words else f"id {i}", p) for i, p in pairs]
        self.table.setRowCount(len(self.predictions))
        for r, (word, p) in enumerate(self.predictions):
            for c, text in enumerate((word, format_probability(p))):
                item = QTableWidgetItem(text)
                side = Qt.AlignmentFlag.AlignLeft if c == 0 else Qt.AlignmentFlag.AlignRight
                item.setTextAlignment(Qt.AlignmentFlag.AlignVCenter | side)
                self.table.setItem(r, c, item)


def _first_position(ref: str | None) -> int:
    """Where the axis starts in its token stream: 3 for 'tgt[3:4]', 0 for a whole stream or none."""
    try:
        start = parse_token_ref(ref)[1] if ref else None
    except ValueError:
        return 0
    return start or 0
