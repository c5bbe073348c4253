"""The Patch Stage view: the stage on screen, taken from the clean pass (the one on screen) into a corrupted text's
pass — whole, at one position, for one head, or one head at one position — and the rest of the corrupted pass run
again (`sessions.patch_one`). It says the fraction of the logit difference brought back, shades every stage the
patch moved in the Stages tree, and hands the corrupted and the patched pass to the Compare dock, whose table marks
them too."""

from __future__ import annotations

from typing import Any, Callable

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (QComboBox, QHBoxLayout, QLabel, QLineEdit, QPushButton, QSpinBox, QVBoxLayout,
                               QWidget)

from tfdebug.ui.features.why.learn_text import LearnText
from tfdebug.ui.features.why.pairs_box import PairsBox
from tfdebug.ui.features.why.reading import WhyReader
from tfdebug.ui.state.controller import DebugController

SCOPES = ("whole", "position", "head", "head_position")  # the scope box's entries, in order


class PatchOneView(QWidget):
    """A corrupted text, the shown stage, a scope, Patch and Continue, and what it brought back."""

    def __init__(self, ctl: DebugController, reader: WhyReader, compare: Callable[[], Any],
                 shade: Callable[[list[str]], None] = lambda _names: None, parent: QWidget | None = None):
        super().__init__(parent)
        self.ctl, self.reader, self.compare, self.shade = ctl, reader, compare, shade
        self.result = None  # the last sessions.patch_one.PatchedPass
        self.corrupt_label, self.stage_label = QLabel(), QLabel()
        self.corrupt_box = QLineEdit()
        self.pairs = PairsBox()
        self.scope = QComboBox()
        self.scope.addItems([""] * len(SCOPES))
        self.position, self.head = QSpinBox(), QSpinBox()
        self.position.setRange(0, 0)
        self.head.setRange(0, 0)
        self.position_label, self.head_label = QLabel(), QLabel()
        self.run_button = QPushButton()
        self.summary = QLabel()
        self.summary.setTextFormat(Qt.TextFormat.PlainText)
        self.summary.setWordWrap(True)
        self.learn = LearnText()
        text_row, scope_row = QHBoxLayout(), QHBoxLayout()
        text_row.addWidget(self.corrupt_label)
        text_row.addWidget(self.corrupt_box, 1)
        text_row.addWidget(self.pairs)
        for widget in (self.stage_label, self.scope, self.position_label, self.position, self.head_label, self.head):
            scope_row.addWidget(widget)
        scope_row.addStretch(1)
        scope_row.addWidget(self.run_button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addLayout(text_row)
        layout.addLayout(scope_row)
        layout.addWidget(self.learn)
        layout.addWidget(self.summary)
        layout.addStretch(1)
        self.run_button.clicked.connect(self.run)
        self.corrupt_box.returnPressed.connect(self.run)
        self.pairs.returnPressed.connect(self.run)
        self.scope.currentIndexChanged.connect(self._scope_changed)
        ctl.state_changed.connect(self._follow)
        ctl.row_picked.connect(self._follow)
        reader.unavailable.connect(self._unavailable)
        self._scope_changed()
        self.retranslate_ui()

    def retranslate_ui(self) -> None:
        """Texts in the window's language."""
        self.corrupt_label.setText(self.tr("Corrupted text:"))
        self.corrupt_box.setPlaceholderText(self.tr("the clean text with one word changed"))
        self.pairs.retranslate_ui()
        self.position.setToolTip(self.tr("The corrupted text's position (the clean one's where both texts have as "
                                         "many tokens)"))
        for index, text in enumerate((self.tr("Whole stage"), self.tr("One position"), self.tr("One head"),
                                      self.tr("One head at one position"))):
            self.scope.setItemText(index, text)
        self.position_label.setText(self.tr("position"))
        self.head_label.setText(self.tr("head"))
        self.run_button.setText(self.tr("Patch and Continue"))
        self.learn.setText(self.tr("The stage on screen is taken from this (clean) pass into the corrupted text's "
                                   "pass, whole or in part, and the corrupted pass runs on from there. Recovered = "
                                   "(LD_patched − LD_corrupt) / (LD_clean − LD_corrupt), LD being logit(clean "
                                   "prediction) − logit(corrupted prediction) at the last position. The Compare dock "
                                   "then shows the corrupted pass (A) against the patched one (B): every stage the "
                                   "patch moved."))
        self._follow()

    def showEvent(self, event) -> None:
        self._follow()  # the head shown and the row picked since the tab was last seen
        super().showEvent(event)

    def _scope_changed(self) -> None:
        scope = SCOPES[self.scope.currentIndex()]
        for widgets, shown in (((self.position_label, self.position), "position" in scope),
                               ((self.head_label, self.head), "head" in scope)):
            for widget in widgets:
                widget.setVisible(shown)

    def _follow(self) -> None:
        """Name the stage on screen; start the position and head at the picked row and the shown head."""
        current = self.ctl.current
        self.stage_label.setText(self.tr("Stage: {stage}").format(stage=current.name) if current is not None
                                 else self.tr("Stage: none"))
        capture = current
        axes = list(capture.info.axes) if capture is not None else []
        shape = list(capture.shape) if capture is not None and capture.shape is not None else []
        for box, names in ((self.position, ("token", "query")), (self.head, ("head",))):
            axis = next((axes.index(n) for n in names if n in axes), None)
            box.setRange(0, max(0, (shape[axis] if axis is not None and axis < len(shape) else 1) - 1))
        picked = self.ctl.tiles.picked_row
        if picked is not None:
            self.position.setValue(picked)
        head = self.ctl.view.indices_by_name.get("head")
        if head is not None:
            self.head.setValue(head)

    def _unavailable(self, sentence: str) -> None:
        self.result = None
        self.summary.setText(sentence)

    def run(self) -> None:
        """Patch the stage on screen into the corrupted text's pass and run on, on a worker."""
        why, source, current = self.reader.why, self.ctl.source, self.ctl.current
        text = self.corrupt_box.text()
        if why is None or source is None or current is None or not text.strip():
            return
        # the input the corrupted text goes in: the pass's typed one (a snapshot's recorded stream)
        key = next(iter(source.texts), None) or next((field[0] for field in source.input_fields), None)
        if key is None:
            self.summary.setText(self.tr("This pass keeps no typed text, so there is nothing to patch into."))
            return
        scope = SCOPES[self.scope.currentIndex()]
        stage = current.name
        position = self.position.value() if "position" in scope else None
        head = self.head.value() if "head" in scope else None
        align = self.pairs.value()
        self.summary.setText(self.tr("Patching {stage} and running on…").format(stage=stage))
        self.run_button.setEnabled(False)

        def work():  # two passes of the texts, then the corrupted one again with the patch, where the model is
            return why.patch_one({key: text}, stage, position, head, align)

        def failed(sentence: str) -> None:
            self.run_button.setEnabled(True)
            self.summary.setText(sentence)
        self.reader.run(work, self._arrived, failed=failed)

    def _arrived(self, result) -> None:
        self.run_button.setEnabled(True)
        self.result = result
        word = self.reader.quoted_word
        moved = result.moved_stages()
        self.summary.setText(self.tr(
            "Patched {stage} ({scope}) into the corrupted pass and ran on. logit({target}) − logit({contrast}) at "
            "the last position: clean {clean:.4g}, corrupted {corrupt:.4g}, patched {patched:.4g}: {recovered:.2f} "
            "recovered. {moved} stages moved; the Compare dock shows them.").format(
            stage=result.stage, scope=result.scope, target=word(result.target), contrast=word(result.contrast),
            clean=result.clean, corrupt=result.corrupt, patched=result.patched, recovered=result.recovered,
            moved=len(moved)))
        self.shade(moved)  # the Stages tree shades what moved
        compare = self.compare()
        if compare is not None:  # the passes here, or on the server that patched (its planes cut there)
            compare.show_compared(result.moved, result.passes(), self.tr("the corrupted pass"),
                                  self.tr("the corrupted pass with {stage} patched ({scope})").format(
                                      stage=result.stage, scope=result.scope), select=result.stage)
