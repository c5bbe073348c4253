"""Batch…: several texts for the model's first input, run as one batch padded by its tokenizer.

The CLI's repeated `--input text=A --input text=B`: the text in the input bar is the first row,
each line here one more row (`RunInputs.batch`). Run prepares them with the adapter's
`prepare_batch` (the tokenizer pads, its mask reaches the model and the mask stages, the
heatmap's batch selector walks the rows). The button beside Chat says how many rows there are.
"""

from __future__ import annotations

import dataclasses

from PySide6.QtCore import QT_TRANSLATE_NOOP
from PySide6.QtWidgets import QDialog, QDialogButtonBox, QLabel, QPlainTextEdit, QVBoxLayout, QWidget

from tfdebug.ui.actions import registry as actions
from tfdebug.ui.actions.context import ActionContext


@actions.action("tfdebug.session.batch", QT_TRANSLATE_NOOP("actions", "Batch…"),
                tip=QT_TRANSLATE_NOOP("actions", "More texts for the first input, one per line: Run pads them with "
                                                 "the text in the input bar into one batch"),
                toolbar=False, enabled=lambda ctl: not ctl.loader.busy and not ctl.capabilities.passes_there, live_only=True)
def edit_batch(ctx: ActionContext) -> None:
    ctx.tools.batch.open()


class BatchDialog(QDialog):
    """One text per line; OK keeps the non-empty lines as the batch's further rows."""

    def __init__(self, rows: tuple[str, ...], parent: QWidget | None = None):
        super().__init__(parent)
        self.setWindowTitle(self.tr("Batch"))
        self.note = QLabel(self.tr("The text in the input bar is the first row; each line below is one more row "
                                   "of the batch. The tokenizer pads the rows to one length and masks the "
                                   "padding. Leave it empty for one text."))
        self.note.setWordWrap(True)
        self.rows = QPlainTextEdit("\n".join(rows))
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(self.note)
        layout.addWidget(self.rows)
        layout.addWidget(buttons)

    def texts(self) -> tuple[str, ...]:
        """The further rows typed (blank lines left out)."""
        return tuple(line.strip() for line in self.rows.toPlainText().splitlines() if line.strip())


class BatchTools:
    """The Batch… dialog and the input bar's button showing the rows."""

    def __init__(self, window):
        self.window = window
        self.dialog: BatchDialog | None = None
        window.input_bar.batch_button.setDefaultAction(window.actions_by_id["tfdebug.session.batch"])

    def open(self) -> BatchDialog:
        ctl = self.window.ctl
        self.dialog = BatchDialog(ctl.inputs.batch, self.window)
        self.dialog.accepted.connect(lambda: ctl.set_inputs(dataclasses.replace(ctl.inputs,
                                                                                 batch=self.dialog.texts())))
        self.dialog.show()
        return self.dialog
