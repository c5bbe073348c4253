"""Debug ▸ Decoding Settings…: how Generate chooses each token (greedy or sampled) and when it stops.

The settings live in the run model (`ctl.run.decoding`, a DecodingSettings) and in the window's
settings, so the next launch generates the same way. Generate (Ctrl+G, beside Run) uses them.
"""

from __future__ import annotations

import dataclasses
import json

from PySide6.QtCore import QT_TRANSLATE_NOOP, QSettings
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QDoubleSpinBox,
    QFormLayout,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from tfdebug.core.errors import TfdebugError
from tfdebug.models.sampling import DecodingSettings
from tfdebug.ui.actions import registry as actions
from tfdebug.ui.actions.context import ActionContext
from tfdebug.ui.widgets.sentence_label import sentence_label
from tfdebug.ui.i18n.language import error_text
from tfdebug.ui.state.stored import json_setting
from tfdebug.ui.state.controller import DebugController

SETTING_KEY = "generation/decoding"
MAX_TOKENS = 100_000
MAX_SEED = 2**31 - 1


def load_decoding(settings: QSettings) -> DecodingSettings:
    """The decoding settings saved last time; the defaults when none were saved or they do not parse."""
    fields = json_setting(settings, SETTING_KEY)  # None when missing or damaged
    names = {f.name for f in dataclasses.fields(DecodingSettings)}
    if isinstance(fields, dict) and set(fields) <= names:
        try:
            return DecodingSettings(**fields)
        except (TypeError, TfdebugError):
            pass  # values DecodingSettings refuses: the defaults, as on a first launch
    return DecodingSettings()


def save_decoding(settings: QSettings, decoding: DecodingSettings) -> None:
    settings.setValue(SETTING_KEY, json.dumps(dataclasses.asdict(decoding)))


class DecodingDialog(QDialog):
    """Max new tokens, greedy or sampling (temperature, top-k, top-p, seed), stop at <eos>."""

    def __init__(self, ctl: DebugController, settings: QSettings, parent: QWidget | None = None):
        super().__init__(parent)
        self.ctl, self.settings = ctl, settings
        self.setObjectName("decoding-dialog")
        self.setWindowTitle(self.tr("Decoding Settings"))
        d = ctl.decoding
        self.max_new_tokens = QSpinBox()
        self.max_new_tokens.setRange(1, MAX_TOKENS)
        self.max_new_tokens.setValue(d.max_new_tokens)
        self.how = QComboBox()
        self.how.addItem(self.tr("Greedy (the likeliest token)"), False)
        self.how.addItem(self.tr("Sample"), True)
        self.how.setCurrentIndex(1 if d.sample else 0)
        self.temperature = QDoubleSpinBox()
        self.temperature.setRange(0.01, 100.0)
        self.temperature.setDecimals(2)
        self.temperature.setValue(d.temperature)
        self.top_k = QSpinBox()
        self.top_k.setRange(0, 10_000_000)
        self.top_k.setSpecialValueText(self.tr("off"))
        self.top_k.setValue(d.top_k)
        self.top_p = QDoubleSpinBox()
        self.top_p.setRange(0.01, 1.0)
        self.top_p.setDecimals(2)
        self.top_p.setSingleStep(0.05)
        self.top_p.setValue(d.top_p)
        self.seed = QSpinBox()
        self.seed.setRange(0, MAX_SEED)
        self.seed.setValue(min(d.seed, MAX_SEED))
        self.stop_at_eos = QCheckBox(self.tr("Stop at the end-of-sequence token"))
        self.stop_at_eos.setChecked(d.stop_at_eos)
        self.problem = sentence_label()
        form = QFormLayout()
        form.addRow(self.tr("Max new tokens"), self.max_new_tokens)
        form.addRow(self.tr("Next token"), self.how)
        form.addRow(self.tr("Temperature"), self.temperature)
        form.addRow(self.tr("Top-k"), self.top_k)
        form.addRow(self.tr("Top-p"), self.top_p)
        form.addRow(self.tr("Seed"), self.seed)
        form.addRow(self.stop_at_eos)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addWidget(self.problem)
        layout.addWidget(buttons)
        self.how.currentIndexChanged.connect(self._sampling_shown)
        self._sampling_shown()

    def _sampling_shown(self) -> None:
        sampling = bool(self.how.currentData())
        for widget in (self.temperature, self.top_k, self.top_p, self.seed):
            widget.setEnabled(sampling)  # greedy ignores them

    def decoding(self) -> DecodingSettings:
        """The settings as the dialog shows them (InputError when they do not make sense)."""
        return DecodingSettings(max_new_tokens=self.max_new_tokens.value(), sample=bool(self.how.currentData()),
                                temperature=self.temperature.value(), top_k=self.top_k.value(),
                                top_p=self.top_p.value(), seed=self.seed.value(),
                                stop_at_eos=self.stop_at_eos.isChecked())

    def accept(self) -> None:
        try:
            decoding = self.decoding()
        except TfdebugError as exc:
            self.problem.setText(error_text(exc))
            return
        self.ctl.run.set_decoding(decoding)
        save_decoding(self.settings, decoding)
        super().accept()


class DecodingTools:
    """Opens the decoding dialog for the window (Debug ▸ Decoding Settings…)."""

    def __init__(self, window):
        self.window = window
        self.dialog: DecodingDialog | None = None
        window.ctl.run.set_decoding(load_decoding(window.settings))

    def open(self) -> DecodingDialog:
        self.dialog = DecodingDialog(self.window.ctl, self.window.settings, self.window)
        self.dialog.open()
        return self.dialog


@actions.action("tfdebug.session.decoding", QT_TRANSLATE_NOOP("actions", "Decoding Settings…"),
                tip=QT_TRANSLATE_NOOP("actions",
                                      "How Generate chooses each token (greedy or sampled) and when it stops"),
                toolbar=False,
                menu="debug", group=3, order=20)
def decoding_settings(ctx: ActionContext) -> None:
    ctx.tools.decoding.open()
