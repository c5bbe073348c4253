"""The Patching view: the pass on screen is the clean one; type a corrupted text (of another length, its positions
pair as the Pairs box or `sessions.alignment` says), Sweep, and
every residual row × position of the corrupted pass (or, across heads, every head of every attention; or each
head at each position) is replaced by the clean pass's and run again (`sessions.patching`), many patched copies
a forward (batched), with progress and Cancel after each forward. Each cell shows the fraction of the logit
difference it brings back; a click goes to that residual stage and position, or to that attention's context with
that head (and that query row), in the clean pass. Heads × positions shows one layer at a time (heads down,
positions across), the layer picked beside it, first the one whose cell recovers most."""

from __future__ import annotations

import numpy as np
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QComboBox, QHBoxLayout, QLabel, QLineEdit, QPushButton, QVBoxLayout, QWidget

from tfdebug.ui.features.why.cell_grid import CellGrid
from tfdebug.ui.features.why.learn_text import LearnText
from tfdebug.ui.features.why.pairs_box import PairsBox
from tfdebug.ui.features.why.lens_view import row_label
from tfdebug.ui.features.why.reading import WhyReader
from tfdebug.ui.i18n.language import shown_text
from tfdebug.ui.render.token_text import shown_token
from tfdebug.ui.state.controller import DebugController
from tfdebug.ui.workers.jobs import Job


#: the choices of the `across` box, in its order (sessions.patching.ACROSS; torch is not imported with the window)
ACROSS = ("position", "head", "head_position")


class PatchingView(QWidget):
    """A corrupted text, Sweep / Cancel, the recovered fractions as rows × positions."""

    def __init__(self, ctl: DebugController, reader: WhyReader, parent: QWidget | None = None):
        super().__init__(parent)
        self.ctl, self.reader = ctl, reader
        self.sweep = None
        self.job: Job | None = None
        self.corrupt_label = QLabel()
        self.corrupt_box = QLineEdit()
        self.pairs = PairsBox()
        self.across = QComboBox()  # what is patched: residual cells, or heads (sessions.patching.ACROSS)
        self.across.addItems(["", "", ""])
        self.layer_label = QLabel()
        self.layer = QComboBox()  # heads × positions: the attention shown
        self.layer_label.setVisible(False)
        self.layer.setVisible(False)
        self.run_button, self.cancel_button = QPushButton(), QPushButton()
        self.cancel_button.setEnabled(False)
        self.summary = QLabel()
        self.summary.setTextFormat(Qt.TextFormat.PlainText)
        self.summary.setWordWrap(True)
        self.grid = CellGrid()
        fields = QHBoxLayout()
        fields.addWidget(self.corrupt_label)
        fields.addWidget(self.corrupt_box, 1)
        fields.addWidget(self.pairs)
        fields.addWidget(self.across)
        fields.addWidget(self.layer_label)
        fields.addWidget(self.layer)
        fields.addWidget(self.run_button)
        fields.addWidget(self.cancel_button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addLayout(fields)
        self.learn = LearnText()
        layout.addWidget(self.learn)
        layout.addWidget(self.summary)
        layout.addWidget(self.grid, 1)
        self.run_button.clicked.connect(self.run)
        self.corrupt_box.returnPressed.connect(self.run)
        self.pairs.returnPressed.connect(self.run)
        self.cancel_button.clicked.connect(self.cancel)
        self.grid.cell_clicked.connect(self._go)
        self.layer.currentIndexChanged.connect(self._draw)
        reader.ready.connect(self._new_pass)
        reader.unavailable.connect(self._unavailable)
        self.retranslate_ui()

    def retranslate_ui(self) -> None:
        """Texts in the window's language."""
        self.corrupt_label.setText(self.tr("Corrupted text:"))
        self.corrupt_box.setPlaceholderText(self.tr("the clean text with one word changed"))
        self.pairs.retranslate_ui()
        self.across.setItemText(0, self.tr("Residual cells"))
        self.across.setItemText(1, self.tr("Attention heads"))
        self.across.setItemText(2, self.tr("Heads × positions"))
        self.across.setToolTip(self.tr("What each cell patches: a residual row at one position, one head's "
                                       "output (its P·V at every position) in one attention, or one head's output "
                                       "at one position"))
        self.layer_label.setText(self.tr("Attention:"))
        self.layer.setToolTip(self.tr("The attention whose heads × positions are shown (first: the one with the "
                                      "cell that recovers most)"))
        self.run_button.setText(self.tr("Sweep"))
        self.cancel_button.setText(self.tr("Cancel"))
        self.learn.setText(self.tr("Activation patching runs a clean and a corrupted text, puts one cell of the "
                                   "clean run into the corrupted one and measures how much of the answer comes "
                                   "back: (LD_patched − LD_corrupt) / (LD_clean − LD_corrupt). A cell near 1 carries "
                                   "the difference; near 0, it does not matter."))

    def _new_pass(self) -> None:
        self.sweep = None
        self.grid.blank()
        self.summary.setText(self.tr("The pass on screen is the clean one. Type a corrupted text and press Sweep: "
                                     "each residual cell of the clean pass is put into the corrupted one in turn."))

    def _unavailable(self, sentence: str) -> None:
        self.sweep = None
        self.summary.setText(sentence)
        self.grid.blank()

    def run(self) -> None:
        """Sweep every residual row × position (one forward a cell) on a worker."""
        why, source = self.reader.why, self.ctl.source
        if why is None or source is None or (self.job is not None and self.job.running):
            return
        key = next(iter(source.texts), None)
        if key is None or not self.corrupt_box.text().strip():
            return
        corrupt, align = {key: self.corrupt_box.text()}, self.pairs.value()
        across = ACROSS[self.across.currentIndex()]
        cells = len(why.head_rows) * why.heads if across == "head" else \
            len(why.head_rows) * why.heads * why.count if across == "head_position" else len(why.rows) * why.count
        self.summary.setText(self.tr("Sweeping: {n} cells…").format(n=cells))

        def work(job: Job):  # where the pass runs: here, or on the server for a served pass
            return why.sweep(corrupt, progress=lambda done, total: job.report(done, total), across=across,
                             align=align)

        self.job = Job(work, name="patch")
        self.job.progress.connect(lambda done, total: self.summary.setText(
            self.tr("Sweeping: {done} of {total} cells…").format(done=done, total=total)))
        self.job.finished.connect(self._arrived)
        self.job.failed.connect(lambda sentence, _details: self.summary.setText(shown_text(sentence)))
        self.job.cancelled_signal.connect(lambda: self.summary.setText(self.tr("The sweep was cancelled.")))
        for ended in (self.job.finished, self.job.failed, self.job.cancelled_signal):
            ended.connect(self._idle)
        self.run_button.setEnabled(False)
        self.cancel_button.setEnabled(True)
        self.job.start()

    def _idle(self, *_) -> None:
        self.run_button.setEnabled(True)
        self.cancel_button.setEnabled(False)

    def cancel(self) -> None:
        """Stop the sweep after the forward (a batch of cells) running now."""
        if self.job is not None:
            self.job.cancel()

    def _arrived(self, result) -> None:
        sweep, target, contrast = result
        self.sweep = sweep
        word = self.reader.quoted_word
        self.summary.setText(self.tr("logit({target}) − logit({contrast}) at the last position: clean {clean:.4g}, "
                                     "corrupted {corrupt:.4g}. Each cell: the fraction recovered, (LD_patched − "
                                     "LD_corrupt) / (LD_clean − LD_corrupt); {n} cells in {m} forwards of {b}.").format(
            target=word(target), contrast=word(contrast), clean=sweep.clean, corrupt=sweep.corrupt, n=sweep.cells or sweep.forwards,
            m=sweep.batches, b=sweep.batch))
        aligned = sweep.alignment
        if aligned is not None and not aligned.identity:  # texts of different lengths, or pairs typed
            self.summary.setText(self.summary.text() + " " + self.tr(
                "The clean text has {n} tokens and the corrupted one {m}: {k} positions pair up; the columns are the "
                "corrupted text's, blank where a position pairs with none.").format(
                n=aligned.clean_count, m=aligned.corrupt_count, k=len(aligned.pairs)))
        heads = sweep.across == "head_position"
        self.layer_label.setVisible(heads)
        self.layer.setVisible(heads)
        if heads:
            self.layer.blockSignals(True)
            self.layer.clear()
            self.layer.addItems([_head_row_label(n) for n in sweep.rows])
            strongest = np.nan_to_num(np.abs(np.array(sweep.recovered, dtype=np.float64))).max(axis=1)
            self.layer.setCurrentIndex(int(strongest.argmax()) if len(strongest) else 0)
            self.layer.blockSignals(False)
        self._draw()

    def _draw(self, *_) -> None:
        """The sweep's grid: rows × columns, or the picked attention's heads × positions."""
        sweep = self.sweep
        if sweep is None:
            return
        values = np.array(sweep.recovered, dtype=np.float64)
        labels = sweep.labels(self.reader.why.token_labels() if self.reader.why is not None else [])
        tokens = [shown_token(labels[p]) if p < len(labels) else str(p) for p in sweep.positions]
        if sweep.across == "head_position":
            values = values[max(0, self.layer.currentIndex())].reshape(len(sweep.heads), len(sweep.positions))
            self.grid.set_axes([f"h{h}" for h in sweep.heads], tokens)
        elif sweep.across == "head":
            self.grid.set_axes([_head_row_label(n) for n in sweep.rows], [f"h{h}" for h in sweep.positions])
        else:
            self.grid.set_axes([row_label(n) for n in sweep.rows], tokens)
        texts = np.vectorize(lambda v: "" if not np.isfinite(v) else f"{v:+.2f}", otypes=[object])(values)
        self.grid.draw(values, (-1.0, 1.0), diverging=True, texts=texts)

    def _go(self, row: int, column: int) -> None:
        """To that residual stage of the clean pass with that position's row picked, or to that attention's context
        with that head shown."""
        if self.sweep is None:
            return
        if self.sweep.across == "head":
            self.ctl.axes.set_index("head", self.sweep.positions[column])
            self.ctl.steps.run_to(self.sweep.rows[row])
            return
        # the clean pass's position paired with the corrupted one of the column (the same one without an alignment)
        position = self.sweep.positions[column % len(self.sweep.positions)]
        aligned = self.sweep.alignment
        clean = aligned.clean_of(position) if aligned is not None else position
        if clean is None:
            self.summary.setText(self.tr("Position {p} of the corrupted text pairs with no position of the clean "
                                         "one.").format(p=position))
            return
        if self.sweep.across == "head_position":  # heads down, positions across, of the picked attention
            self.ctl.axes.set_index("head", self.sweep.heads[row])
            self.ctl.steps.run_to(self.sweep.rows[max(0, self.layer.currentIndex())])
            self.ctl.tiles.pick_row(clean)
            return
        self.ctl.steps.run_to(self.sweep.rows[row])
        self.ctl.tiles.pick_row(clean)


def _head_row_label(name: str) -> str:
    """'dec.3.cross_attn.context' -> 'L3 cross_attn': an attention by its layer and site."""
    parts = name.split(".")
    return f"L{parts[1]} {parts[2]}" if len(parts) >= 4 and parts[1].isdigit() else name
