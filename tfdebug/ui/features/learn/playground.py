"""The attention playground: the notes' toy example (a query, three keys, three values) as editable tables.

Every edit recomputes the scores q·kⱼ, the optional ÷√d_k, the softmax weights and the
output Σ wⱼ·vⱼ at once (tfdebug.models.toy_attention, exact doubles). A note under the
results says where the notes round and what that changes. Learn → Attention Playground
(the registry action tfdebug.learn.playground; the window keeps one, `window.tools.learn.playground`).
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, Qt
from PySide6.QtGui import QColor, QPalette
from PySide6.QtWidgets import (
    QCheckBox,
    QDialog,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QStyledItemDelegate,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from tfdebug.models import toy_attention as toy

BAD_CELL = QColor(255, 205, 205)
BAD_SELECTED = QColor(200, 40, 40)  # a selected bad cell: still red, not the selection's blue
BAD_ROLE = Qt.ItemDataRole.UserRole + 1  # set on a cell whose text is not a number


class _BadCellDelegate(QStyledItemDelegate):
    """Draws a cell marked bad in red also while it is selected (the selection colour would hide it)."""

    def initStyleOption(self, option, index) -> None:
        super().initStyleOption(option, index)
        if index.data(BAD_ROLE):
            for group in (QPalette.ColorGroup.Active, QPalette.ColorGroup.Inactive):
                option.palette.setColor(group, QPalette.ColorRole.Highlight, BAD_SELECTED)


def fmt(x: float) -> str:
    """Four decimals, the precision the tests pin."""
    return f"{x:.4f}"


def fmt_vector(xs) -> str:
    return "[" + ", ".join(fmt(x) for x in xs) + "]"


class PlaygroundDialog(QDialog):
    """q (1×2), K and V (3×2, one row per word) editable; scores, weights and output recomputed on every edit."""

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("attention-playground")
        self.result: toy.ToyAttention | None = None
        self._filling = False

        self.query = self._matrix((toy.QUERY,))
        self.keys = self._matrix(toy.KEYS)
        self.values = self._matrix(toy.VALUES)
        self.scale = QCheckBox()
        self.scale.toggled.connect(self.recompute)
        self.reset_button = QPushButton()
        self.reset_button.clicked.connect(self.reset)
        self.results = QTableWidget(3, 3)
        self.results.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        self.results.setFixedHeight(self.results.horizontalHeader().height() + 30 * 3 + 4)
        self.output = QLabel()
        self.output.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.problem = QLabel()
        self.problem.setStyleSheet("color: #b00020")
        self.note = QLabel()
        self.note.setWordWrap(True)
        self.note.setStyleSheet("color: #555")
        self.labels = [QLabel() for _ in range(4)]  # Query q, Keys K, Values V, the results' heading

        grid = QGridLayout()
        for row, table in enumerate((self.query, self.keys, self.values)):
            grid.addWidget(self.labels[row], row, 0, Qt.AlignmentFlag.AlignTop)
            grid.addWidget(table, row, 1)
        controls = QHBoxLayout()
        controls.addWidget(self.scale)
        controls.addStretch(1)
        controls.addWidget(self.reset_button)
        layout = QVBoxLayout(self)
        layout.addLayout(grid)
        layout.addLayout(controls)
        layout.addWidget(self.labels[3])
        layout.addWidget(self.results)
        layout.addWidget(self.output)
        layout.addWidget(self.problem)
        layout.addWidget(self.note)
        for table in (self.query, self.keys, self.values):
            table.itemChanged.connect(self._edited)
        self.resize(560, 640)
        self.retranslate_ui()

    def retranslate_ui(self) -> None:
        """Every text of the dialog in the current language; the figures are computed again."""
        self.setWindowTitle(self.tr("Attention Playground"))
        words = [self.tr("apple"), self.tr("banana"), self.tr("chair")]
        for table, rows in ((self.query, [self.tr("q (fruit)")]), (self.keys, words), (self.values, words)):
            table.setHorizontalHeaderLabels([self.tr("dim {n}").format(n=i + 1) for i in range(table.columnCount())])
            table.setVerticalHeaderLabels(rows)
        for label, text in zip(self.labels, (self.tr("Query q"), self.tr("Keys K"), self.tr("Values V"),
                                             self.tr("Scores, weights and output"))):
            label.setText(text)
        self.scale.setText(self.tr("Divide the scores by √d_k"))
        self.scale.setToolTip(self.tr("Scaled dot-product attention: softmax(q·Kᵀ / √d_k)·V, with d_k the "
                                      "length of q and of every key"))
        self.reset_button.setText(self.tr("The Notes' Example"))
        self.reset_button.setToolTip(self.tr("Put back q, K and V as the notes give them"))
        self.results.setHorizontalHeaderLabels([self.tr("score q·k"), self.tr("scaled"), self.tr("weight")])
        self.results.setVerticalHeaderLabels(words)
        self.note.setText(self._notes_note())
        self.recompute()

    def changeEvent(self, event) -> None:
        if event.type() == QEvent.Type.LanguageChange:
            self.retranslate_ui()
        super().changeEvent(event)

    def _notes_note(self) -> str:
        """Where the notes round, and the exact figures of their example (computed, not typed in)."""
        exact, scaled = toy.attend(), toy.attend(scale=True)  # the notes' own q, K and V
        return self.tr(
            "About the notes: they round the unscaled weights to {rounded} and multiply those, which gives "
            "{printed}. The exact weights of their example are {weights} and the output {output}; with ÷√2 "
            "they are {scaled_weights} and {scaled_output}.").format(
            rounded="[" + ", ".join(f"{x:.2f}" for x in toy.NOTES_WEIGHTS) + "]",
            printed="[" + ", ".join(f"{x:.2f}" for x in toy.notes_output()) + "]",
            weights=fmt_vector(exact.weights), output=fmt_vector(exact.output),
            scaled_weights=fmt_vector(scaled.weights), scaled_output=fmt_vector(scaled.output))

    def _matrix(self, rows) -> QTableWidget:
        table = QTableWidget(len(rows), len(rows[0]))
        table.setItemDelegate(_BadCellDelegate(table))
        table.setFixedHeight(table.horizontalHeader().height() + 30 * len(rows) + 4)
        self._fill(table, rows)
        return table

    def _fill(self, table: QTableWidget, rows) -> None:
        self._filling = True
        try:
            for r, row in enumerate(rows):
                for c, value in enumerate(row):
                    table.setItem(r, c, QTableWidgetItem(f"{value:g}"))
        finally:
            self._filling = False

    def reset(self) -> None:
        """Back to the notes' q, K and V (the scaling toggle stays as it is)."""
        for table, rows in ((self.query, (toy.QUERY,)), (self.keys, toy.KEYS), (self.values, toy.VALUES)):
            self._fill(table, rows)
        self.recompute()

    def _edited(self, _item) -> None:
        if not self._filling:
            self.recompute()

    def _read(self, table: QTableWidget) -> tuple[tuple[float, ...], ...] | None:
        """The table's numbers, or None after colouring every cell that is not a number."""
        rows, ok = [], True
        for r in range(table.rowCount()):
            row = []
            for c in range(table.columnCount()):
                item = table.item(r, c)
                try:
                    row.append(float(item.text().replace(",", ".")))
                    bad = False
                except ValueError:
                    bad, ok = True, False
                self._filling = True
                item.setBackground(BAD_CELL if bad else QColor(0, 0, 0, 0))
                item.setData(BAD_ROLE, bad)
                self._filling = False
            rows.append(tuple(row))
        return tuple(rows) if ok else None

    def recompute(self) -> None:
        """Scores, scaled scores, weights and output from the tables as they are now."""
        q, k, v = self._read(self.query), self._read(self.keys), self._read(self.values)
        if q is None or k is None or v is None:
            self.problem.setText(self.tr("A cell is not a number (marked in red): the figures below are "
                                         "from the last table that was."))
            return
        self.problem.setText("")
        self.result = r = toy.attend(q[0], k, v, scale=self.scale.isChecked())
        for row in range(3):
            for col, value in enumerate((r.scores[row], r.scaled[row], r.weights[row])):
                item = QTableWidgetItem(fmt(value))
                item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
                self.results.setItem(row, col, item)
        scores = (self.tr("scores ÷ √{d_k}").format(d_k=len(q[0])) if self.scale.isChecked() else self.tr("scores"))
        self.output.setText(self.tr("weights w = softmax({scores}) = {weights}   (sum {total})\n"
                                    "output w·V = {output}").format(
            scores=scores, weights=fmt_vector(r.weights), total=fmt(r.weights_sum), output=fmt_vector(r.output)))
