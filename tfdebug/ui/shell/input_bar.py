"""Input bar: one text field per input the model takes, presets and recent inputs, model, device, Run, Generate.

The fields come from the adapter of the pass on screen (`adapter.inputs`): the
translator shows Source and Target prefix, a language model one Prompt. Until a model
has loaded, the fields are those of the texts Run will use.
"""

from __future__ import annotations

from PySide6.QtCore import QT_TRANSLATE_NOOP, QEvent
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QComboBox, QHBoxLayout, QLabel, QLineEdit, QToolButton, QWidget

from tfdebug.core.view import RunInputs
from tfdebug.ui.i18n.language import translate
from tfdebug.ui.state.controller import DebugController

MAX_RECENT = 10
MIN_FIELD_CHARS = 25
MAX_MODEL_CHARS = 48  # a model folder's path shows whole up to this long (the text fields give way)
REPLAY_TIP = QT_TRANSLATE_NOOP("InputBar", "A recorded pass is shown: its input cannot be edited. Use Debug ▸ New Live "
                               "Pass to run live.")


class InputBar(QWidget):
    """Edits the controller's `inputs`; Run (a registry action) starts a pass with them."""

    def __init__(self, ctl: DebugController, run_action: QAction, generate_action: QAction, models: list[str], devices: list[str],
                 parent: QWidget | None = None, live_action: QAction | None = None):
        super().__init__(parent)
        self.ctl = ctl
        self.run_action = run_action
        self.recent: list[dict[str, str]] = []
        self.fields: dict[str, QLineEdit] = {}
        self._labels: list[QLabel] = []
        self._syncing = False
        self._specs: list[tuple[str, str, str]] = []  # (key, English label, English placeholder) of the fields
        self.preset = QComboBox()
        self.preset.setMinimumContentsLength(14)
        self.preset.activated.connect(self._preset_chosen)
        self.model = QComboBox()
        self.model.setEditable(True)
        self.model.addItems(models)
        self.device = QComboBox()
        self.device.addItems(devices)
        self.run_button = QToolButton()
        self.run_button.setDefaultAction(run_action)
        self.generate_button = QToolButton()  # beside Run: the same texts, token by token
        self.generate_button.setDefaultAction(generate_action)
        # Shown only while a recorded pass greys the bar: the way back to a live pass, where the user looks.
        self.live_button = QToolButton()
        self.live_button.setObjectName("input-live")
        if live_action is not None:
            self.live_button.setDefaultAction(live_action)
        self.live_button.setVisible(False)
        self._layout = QHBoxLayout(self)
        self._layout.setContentsMargins(4, 2, 4, 2)
        self.preset_label, self.model_label, self.device_label = QLabel(), QLabel(), QLabel()
        self._layout.addWidget(self.preset_label)
        self._layout.addWidget(self.preset)
        self._fields_at = self._layout.count()
        for label, widget in ((self.model_label, self.model), (self.device_label, self.device)):
            self._layout.addWidget(label)
            self._layout.addWidget(widget)
        self._layout.addWidget(self.run_button)
        self._layout.addWidget(self.generate_button)
        self._layout.addWidget(self.live_button)
        self.model.currentTextChanged.connect(self._update_inputs)
        # Return (and Ctrl+Return, which the editable box's line edit keeps from the shortcut) runs, as in the fields.
        self.model.lineEdit().returnPressed.connect(self.run_action.trigger)
        self.device.currentTextChanged.connect(self._update_inputs)
        ctl.session_changed.connect(self._session_changed)
        ctl.inputs_changed.connect(self._show_inputs)
        self._build_fields([(k, k.capitalize(), "") for k in ctl.inputs.texts])
        self.retranslate_ui()

    def retranslate_ui(self) -> None:
        self.preset_label.setText(self.tr("Preset"))
        self.model_label.setText(self.tr("Model"))
        self.device_label.setText(self.tr("Device"))
        self.model.setToolTip(self.tr("demo, random, or the path of a model folder"))
        live = self.ctl.stepper is None or self.ctl.session is not None
        self.preset.setToolTip(self.tr("Example inputs for this model, and your recent inputs") if live
                               else self.tr(REPLAY_TIP))
        for widget in [*self.fields.values(), self.model, self.device]:
            if not live:
                widget.setToolTip(self.tr(REPLAY_TIP))
        for (key, label, placeholder), caption in zip(self._specs, self._labels):
            caption.setText(translate("inputs", label))
            self.fields[key].setPlaceholderText(translate("inputs", placeholder) if placeholder else "")
        self._fill_presets()

    def changeEvent(self, event) -> None:
        if event.type() == QEvent.LanguageChange:
            self.retranslate_ui()
        super().changeEvent(event)

    # ----- fields -----------------------------------------------------------------------------
    def _build_fields(self, specs: list[tuple[str, str, str]]) -> None:
        """One labelled line edit per (key, label, placeholder), replacing the previous ones."""
        if specs == self._specs:
            return
        self._specs = list(specs)
        for widget in self._labels + list(self.fields.values()):
            self._layout.removeWidget(widget)
            widget.deleteLater()
        self.fields, self._labels = {}, []
        at = self._fields_at
        for key, label, placeholder in specs:
            caption = QLabel(translate("inputs", label))  # adapters' labels are in the catalogue (core_strings)
            edit = QLineEdit()
            edit.setObjectName(f"input-{key}")
            edit.setPlaceholderText(translate("inputs", placeholder) if placeholder else "")
            edit.setMinimumWidth(edit.fontMetrics().averageCharWidth() * MIN_FIELD_CHARS)
            edit.textChanged.connect(self._update_inputs)
            edit.returnPressed.connect(self.run_action.trigger)
            self._layout.insertWidget(at, caption)
            self._layout.insertWidget(at + 1, edit, 3)
            at += 2
            self.fields[key] = edit
            self._labels.append(caption)
        self._fill_presets()

    def field(self, key: str) -> QLineEdit:
        """The line edit of input `key` (e.g. 'src', 'prompt')."""
        return self.fields[key]

    def texts(self) -> dict[str, str]:
        return {key: edit.text() for key, edit in self.fields.items()}

    def set_values(self, model: str, device: str, texts: dict[str, str]) -> None:
        """Fill the bar (and so the controller's inputs) with a model, a device and texts."""
        self.ctl.set_inputs(RunInputs(model, device, dict(texts)))
        self._show_inputs()

    def _show_inputs(self) -> None:
        """Show the controller's inputs (after a run, a failed run, or set_values)."""
        inputs = self.ctl.inputs
        self._syncing = True
        try:
            if list(inputs.texts) != list(self.fields):
                self._build_fields(self._field_specs(inputs.texts))
            self.model.setCurrentText(inputs.model)
            self._fit_model_box()
            if self.device.findText(inputs.device) < 0:
                self.device.addItem(inputs.device)
            self.device.setCurrentText(inputs.device)
            for key, edit in self.fields.items():
                if edit.text() != inputs.texts.get(key, ""):
                    edit.setText(inputs.texts.get(key, ""))
        finally:
            self._syncing = False
        self._show_matching_preset()

    def _field_specs(self, texts: dict[str, str]) -> list[tuple[str, str, str]]:
        adapter = self.ctl.adapter
        known = {f.key: f for f in adapter.inputs} if adapter is not None else {}
        return [(k, known[k].label if k in known else k.capitalize(), known[k].placeholder if k in known else "")
                for k in texts]

    def _update_inputs(self) -> None:
        if self._syncing:
            return
        self.ctl.set_inputs(RunInputs(self.model.currentText().strip(), self.device.currentText(), self.texts()))
        self._show_matching_preset()

    # ----- presets and recent inputs ----------------------------------------------------------
    def set_recent(self, entries: list[dict[str, str]]) -> None:
        self.recent = [dict(e) for e in entries][:MAX_RECENT]
        self._fill_presets()

    def _presets(self) -> list[dict[str, str]]:
        adapter = self.ctl.adapter
        return [dict(p) for p in adapter.presets] if adapter is not None else []

    def _fill_presets(self) -> None:
        self.preset.clear()
        keys = set(self.fields)
        for texts in self._presets():
            self.preset.addItem("  |  ".join(texts.values()), texts)
        mine = [r for r in self.recent if set(r) == keys]
        if mine:
            self.preset.insertSeparator(self.preset.count())
            for texts in mine:
                self.preset.addItem(self.tr("recent: {texts}").format(texts="  |  ".join(texts.values())), texts)
        self.preset.setPlaceholderText(self.tr("Choose an input…"))
        self._show_matching_preset()

    def _show_matching_preset(self) -> None:
        """Select the preset equal to the current input, or none (the placeholder shows)."""
        current = self.texts()
        matches = [i for i in range(self.preset.count()) if self.preset.itemData(i) == current]
        self.preset.setCurrentIndex(matches[0] if matches else -1)

    def _preset_chosen(self, index: int) -> None:
        texts = self.preset.itemData(index)
        if texts:
            for key, text in texts.items():
                if key in self.fields:
                    self.fields[key].setText(text)

    # ----- the pass on screen -----------------------------------------------------------------
    def _fit_model_box(self) -> None:
        """Widen the Model box to its text (a folder or module spec), up to MAX_MODEL_CHARS: a narrower box
        shows only the end of a path, and which model is loaded cannot be read."""
        box = self.model
        text = box.currentText()[:MAX_MODEL_CHARS]
        # The frame and arrow around the line edit (laid out once the bar shows; before that, about 40 px).
        chrome = box.width() - box.lineEdit().width() if box.isVisible() else 40
        fm = box.fontMetrics()
        text_width = fm.horizontalAdvance(text) + 2 * fm.averageCharWidth()  # the line edit's margins and cursor
        box.setMinimumWidth(max(box.minimumSizeHint().width(), text_width + chrome))

    def _session_changed(self) -> None:
        live = self.ctl.adapter is not None  # a remote pass has its adapter on the server: shown like a replay
        if live:
            adapter = self.ctl.adapter
            self._build_fields([(f.key, f.label, f.placeholder) for f in adapter.inputs])
        else:  # a replay or a remote pass: show the texts it ran, one field per token stream
            labels = self.ctl.replayed.input_labels if self.ctl.replayed is not None else {}
            self._build_fields([(k, labels.get(k) or k.capitalize(), "") for k in self.ctl.tokens])
            self._syncing = True
            for key, edit in self.fields.items():
                edit.setText(" ".join(t for t in self.ctl.tokens.get(key, []) if not _special(t)))
            self._syncing = False
        for widget in [*self.fields.values(), self.model, self.device, self.preset]:
            widget.setEnabled(live)
            widget.setToolTip("" if live else self.tr(REPLAY_TIP))
        self.live_button.setVisible(not live and self.live_button.defaultAction() is not None)
        if live:
            self._show_inputs()
            texts = self.ctl.session.texts
            self.recent = [texts] + [r for r in self.recent if r != texts][:MAX_RECENT - 1]
            self._fill_presets()
        self._show_matching_preset()


def _special(token: str) -> bool:
    """<bos>, <eos>, <pad>: tokens the model adds, not words the user typed."""
    return token.startswith("<") and token.endswith(">")
