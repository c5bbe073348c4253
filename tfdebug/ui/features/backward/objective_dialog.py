"""The objective Debug ▸ Backward differentiates, chosen before it runs: the next-token cross-entropy over the
prompt (the training loss), the cross-entropy at one position, logit(target) − logit(contrast) at a position, or
the sum of one stage's whole tensor (the stage selected in the window by default).

Tokens are typed as text and resolved with the pass's own lookup (`sessions.why.token_id`: `#123` for an id, a
vocabulary entry, or a text the tokenizer reads as one token), here for a local pass and on the server for a
served one. A token or position that does not fit is said in the dialog's note in one sentence, and the dialog
stays open; OK gives the `sessions.backward.Objective`, Cancel nothing. The last choice (`Choice`) is kept by the
window for its session.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Sequence

from PySide6.QtWidgets import (QComboBox, QDialog, QDialogButtonBox, QFormLayout, QLabel, QLineEdit, QSpinBox,
                               QVBoxLayout, QWidget)

from tfdebug.core.errors import TfdebugError
from tfdebug.ui.i18n.language import shown_text

KINDS = ("next_token", "position", "logit_diff", "stage_sum")


@dataclass(frozen=True)
class Choice:
    """What the dialog last said: the kind, the position (None: the last token), the typed target and contrast, the
    stage summed."""

    kind: str = "next_token"
    position: int | None = None
    target: str = ""
    contrast: str = ""
    stage: str = ""


def logits_shape(plan) -> tuple[int, int]:
    """(tokens, vocabulary entries) of the pass's logits stage in `plan`; (1, 0) when unknown."""
    logits = plan.find("logits") if plan is not None else None
    if logits is None:
        return 1, 0
    shape = tuple(logits.shape)
    return (shape[1] if len(shape) == 3 else 1), (shape[-1] if shape else 0)


def token_resolver(source) -> Callable[[str], int]:
    """`text` → the token id it names, by the pass's own lookup: its adapter's here, the server's for a served
    pass (its source's `token_id`)."""
    def resolve(text: str) -> int:
        if text.startswith("#") and text[1:].isdigit():
            return int(text[1:])
        return source.token_id(text)
    return resolve


class ObjectiveDialog(QDialog):
    """Choose the backward's objective; `objective` is set when OK is accepted."""

    def __init__(self, count: int, vocabulary: int, resolve: Callable[[str], int], choice: Choice,
                 stages: Sequence[str] = (), selected: str = "", parent: QWidget | None = None):
        super().__init__(parent)
        self.count, self.vocabulary, self.resolve = max(1, count), vocabulary, resolve
        self.objective = None
        self.setWindowTitle(self.tr("Backward"))
        self.kind = QComboBox()
        for kind, text in zip(KINDS, (self.tr("Next-token loss over the prompt (the training loss)"),
                                      self.tr("Next-token loss at one position"),
                                      self.tr("logit(target) − logit(contrast) at a position"),
                                      self.tr("Sum of one stage's whole tensor"))):
            self.kind.addItem(text, kind)
        self.position = QSpinBox()
        self.position.setRange(0, self.count - 1)
        self.target = QLineEdit(choice.target)
        self.contrast = QLineEdit(choice.contrast)
        self.target.setPlaceholderText(self.tr("a word of the vocabulary, ' Paris' or #123"))
        self.contrast.setPlaceholderText(self.tr("empty: the target's logit alone"))
        self.stage = QComboBox()
        self.stage.addItems(list(stages))
        self.stage.setCurrentIndex(max(0, self.stage.findText(selected or choice.stage)))
        self.note = QLabel()
        self.note.setWordWrap(True)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        form = QFormLayout()
        form.addRow(self.tr("Objective:"), self.kind)
        form.addRow(self.tr("Position:"), self.position)
        form.addRow(self.tr("Target token:"), self.target)
        form.addRow(self.tr("Contrast token:"), self.contrast)
        form.addRow(self.tr("Stage summed:"), self.stage)
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addWidget(self.note)
        layout.addWidget(buttons)
        self.kind.currentIndexChanged.connect(self._kind_changed)
        self.kind.setCurrentIndex(KINDS.index(choice.kind) if choice.kind in KINDS else 0)
        last = self.count - 1
        self.position.setValue(last if choice.position is None else min(choice.position, last))
        self._kind_changed()

    def hint(self) -> str:
        """The one sentence of what fits."""
        return self.tr("A token is one the model reads as a single token (a vocabulary entry, a text such as "
                       "' Paris', or #ID); a position counts the {count} tokens from 0, and the loss at a "
                       "position needs a token after it.").format(count=self.count)

    def _kind_changed(self, *_) -> None:
        kind = self.kind.currentData()
        self.position.setEnabled(kind in ("position", "logit_diff"))
        self.stage.setEnabled(kind == "stage_sum")
        for box in (self.target, self.contrast):
            box.setEnabled(kind == "logit_diff")
        self.note.setText(self.hint())

    def choice(self) -> Choice:
        """The dialog's values, to open it with next time (the last token stays 'the last')."""
        position = self.position.value()
        return Choice(self.kind.currentData(), None if position == self.count - 1 else position,
                      self.target.text(), self.contrast.text(), self.stage.currentText())

    def _objective(self):
        from tfdebug.sessions.backward import Objective

        kind, position = self.kind.currentData(), self.position.value()
        if kind == "next_token":
            return Objective()
        if kind == "stage_sum":
            if not self.stage.currentText():
                raise TfdebugError(self.tr("The pass has no stage to sum."))
            return Objective("stage_sum", stage=self.stage.currentText())
        if kind == "position":
            if position + 1 >= self.count:
                raise TfdebugError(self.tr("Position {position} is the last token: nothing follows it to "
                                           "predict.").format(position=position))
            return Objective("position", position)
        if not self.target.text().strip():
            raise TfdebugError(self.tr("A logit difference needs a target token."))
        target = self.resolve(self.target.text())
        contrast = self.resolve(self.contrast.text()) if self.contrast.text().strip() else None
        for token in (target, contrast):
            if token is not None and self.vocabulary and not 0 <= token < self.vocabulary:
                raise TfdebugError(self.tr("Token id {token} is outside the logits' {count} entries.").format(
                    token=token, count=self.vocabulary))
        return Objective("logit_diff", position, target, contrast)

    def accept(self) -> None:
        """OK: the objective, or the sentence of what does not fit in the note (the dialog stays open)."""
        try:
            self.objective = self._objective()
        except TfdebugError as exc:
            self.note.setText(shown_text(exc.phrase()))
            return
        super().accept()
