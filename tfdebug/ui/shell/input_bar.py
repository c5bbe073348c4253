"""Input bar: one text field per input the model takes, presets and recent inputs, model, device, Run, Generate.

The fields come from the adapter of the pass on screen (`adapter.inputs`): the
translator shows Source and Target prefix, a language model one Prompt. Until a model
has loaded, the fields are those of the texts Run will use.
"""

from __future__ import annotations

import os
from dataclasses import replace

from PySide6.QtCore import QT_TRANSLATE_NOOP, QEvent, Qt
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QCheckBox, QComboBox, QHBoxLayout, QLabel, QLineEdit, QToolButton, QWidget

from tfdebug.adapters.registry import accelerate_available
from tfdebug.core.devices import DTYPES, available_device_maps
from tfdebug.core.view import RunInputs
from tfdebug.ui.i18n.language import phrase_text, translate
from tfdebug.ui.state.controller import DebugController
from tfdebug.ui.widgets.device_box import DeviceBox
from tfdebug.ui.widgets.file_dialog import open_file_name
from tfdebug.ui.widgets.file_field import FileLineEdit
from tfdebug.ui.render.plain_text import columns, one_line, plain_tooltip

MAX_RECENT = 10
MIN_FIELD_CHARS = 25
PRESET_CHARS = 100  # an entry of the Preset box: one line of at most this many characters
MAX_MODEL_CHARS = 48  # a model folder's path shows whole up to this long (the text fields give way)
REPLAY_TIP = QT_TRANSLATE_NOOP("InputBar", "A recorded pass is shown: its input cannot be edited. Use Debug ▸ New Live "
                               "Pass to run live.")


class InputBar(QWidget):
    """Edits the controller's `inputs`; Run (a registry action) starts a pass with them."""

    def __init__(self, ctl: DebugController, run_action: QAction, generate_action: QAction, models: list[str],
                 devices: list[str],
                 parent: QWidget | None = None, live_action: QAction | None = None):
        super().__init__(parent)
        self.ctl = ctl
        self.run_action = run_action
        self.recent: list[dict[str, str]] = []
        self.fields: dict[str, QLineEdit] = {}
        self._labels: list[QLabel] = []
        self._browse: list[QToolButton] = []  # the file picker beside each image field
        self._syncing = False
        self._specs: list[tuple[str, str, str]] = []  # (key, English label, English placeholder) of the fields
        self.preset = QComboBox()
        self.preset.setMinimumContentsLength(14)
        self.preset.activated.connect(self._preset_chosen)
        self.model = QComboBox()
        self.model.setEditable(True)
        self.model.addItems(models)
        self.device = DeviceBox(devices)
        self.dtype = QComboBox()  # the CLI's --dtype
        self.dtype.setObjectName("input-dtype")
        self.dtype.addItems(list(DTYPES))
        self.device_map = QComboBox()  # the CLI's --device-map: "" is none (the model goes on Device)
        self.device_map.setObjectName("input-device-map")
        self._fill_device_maps(devices)
        self.chat = QCheckBox()  # the CLI's --chat: the texts as a user's chat turn
        self.chat.setObjectName("input-chat")
        self.models_button = QToolButton()  # Models… (dialogs.models binds it)
        self.batch_button = QToolButton()  # Batch… (dialogs.batch binds it): more rows of a padded batch
        self._cached_specs: list[str] = []  # the Model box's entries from the Hugging Face cache
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
        self.dtype_label, self.device_map_label = QLabel(), QLabel()
        self._layout.addWidget(self.preset_label)
        self._layout.addWidget(self.preset)
        self._fields_at = self._layout.count()
        for label, widget in ((self.model_label, self.model), (None, self.models_button),
                              (self.device_label, self.device)):
            if label is not None:
                self._layout.addWidget(label)
            self._layout.addWidget(widget)
        # Precision and Device map: a widget of their own, which the window puts on the row below (the
        # input bar's row must still fit a 1280-pixel screen).
        self.placement = QWidget()
        placement = QHBoxLayout(self.placement)
        placement.setContentsMargins(4, 2, 4, 2)
        for widget in (self.dtype_label, self.dtype, self.device_map_label, self.device_map, self.chat,
                       self.batch_button):
            placement.addWidget(widget)
        self._layout.addWidget(self.run_button)
        self._layout.addWidget(self.generate_button)
        self._layout.addWidget(self.live_button)
        self.model.currentTextChanged.connect(self._update_inputs)
        # Return (and Ctrl+Return, which the editable box's line edit keeps from the shortcut) runs, as in the fields.
        self.model.lineEdit().returnPressed.connect(self.run_action.trigger)
        self.device.currentIndexChanged.connect(self._update_inputs)
        self.dtype.currentTextChanged.connect(self._update_inputs)
        self.device_map.currentIndexChanged.connect(self._update_inputs)
        self.chat.toggled.connect(self._update_inputs)
        ctl.session_changed.connect(self._session_changed)
        ctl.run.inputs_changed.connect(self._show_inputs)  # the run model's: typed, run, or restored
        self._build_fields([(k, k.capitalize(), "") for k in ctl.inputs.texts])
        self.retranslate_ui()

    def retranslate_ui(self) -> None:
        self.preset_label.setText(self.tr("Preset"))
        self.model_label.setText(self.tr("Model"))
        self.device_label.setText(self.tr("Device"))
        self.dtype_label.setText(self.tr("Precision"))
        self.device_map_label.setText(self.tr("Device map"))
        self.chat.setText(self.tr("Chat"))
        self.chat.setToolTip(self.tr("Send the text as a user's chat turn: the tokenizer's chat template, ending "
                                     "where the assistant's answer starts (models whose tokenizer has one)"))
        self.model.setToolTip(self.tr("demo, random, a model from the Hugging Face cache (hf:org/name), or the path "
                                      "of a model folder; Models… lists them and downloads"))
        self.dtype.setToolTip(self.tr("The precision the model's weights and stages are in (float32, bfloat16, "
                                      "float16)"))
        self.device_map.setItemText(0, self.tr("none"))
        self.device_map.setToolTip(
            self.tr("Let accelerate place a Hugging Face model (auto, balanced over GPUs, cpu, cuda:N) instead of "
                    "Device; none: the whole model on Device") if accelerate_available()
            else self.tr('Device maps need accelerate: pip install "tfdebug[hf]"'))
        live = self.ctl.source is None or self.ctl.capabilities.runs_texts  # a recording's inputs are fixed
        self.preset.setToolTip(self.tr("Example inputs for this model, and your recent inputs") if live
                               else self.tr(REPLAY_TIP))
        for widget in [*self.fields.values(), self.model, self.device, self.dtype, self.device_map]:
            if not live:
                widget.setToolTip(self.tr(REPLAY_TIP))
        for (key, label, placeholder), caption in zip(self._specs, self._labels):
            caption.setText(translate("inputs", label))
            self.fields[key].setPlaceholderText(translate("inputs", placeholder) if placeholder else "")
        self._fill_presets()

    def changeEvent(self, event) -> None:
        if event.type() == QEvent.Type.LanguageChange:
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
        for button in self._browse:
            self._layout.removeWidget(button)
            button.deleteLater()
        self.fields, self._labels, self._browse = {}, [], []
        # a picture's or a recording's path: a file field (the model's own inputs, where it runs here)
        inputs = self.ctl.adapter.inputs if self.ctl.capabilities.model_here else ()
        files = {f.key: f.kind for f in inputs if f.kind in ("image", "audio")}
        at = self._fields_at
        for key, label, placeholder in specs:
            caption = QLabel(translate("inputs", label))  # adapters' labels are in the catalogue (core_strings)
            edit = FileLineEdit() if key in files else QLineEdit()
            edit.setObjectName(f"input-{key}")
            edit.setPlaceholderText(translate("inputs", placeholder) if placeholder else "")
            edit.setMinimumWidth(columns(edit.fontMetrics(), MIN_FIELD_CHARS))
            edit.textChanged.connect(self._update_inputs)
            edit.returnPressed.connect(self.run_action.trigger)
            self._layout.insertWidget(at, caption)
            self._layout.insertWidget(at + 1, edit, 3)
            at += 2
            if key in files:  # chosen in a file dialog, typed, or dropped on the field
                browse = QToolButton()
                browse.setObjectName(f"input-{key}-browse")
                browse.setText("…")
                audio = files[key] == "audio"
                browse.setToolTip(self.tr("Choose an audio file (WAV), or drop one on the field") if audio else
                                  self.tr("Choose an image file (PNG, JPEG …), or drop one on the field"))
                browse.clicked.connect(lambda _=False, e=edit, a=audio: self._choose_file(e, a))
                self._layout.insertWidget(at, browse)
                self._browse.append(browse)
                at += 1
            self.fields[key] = edit
            self._labels.append(caption)
        self._fill_presets()

    def _choose_file(self, edit: QLineEdit, audio: bool) -> None:
        folder = os.path.dirname(edit.text().strip()) or os.getcwd()
        if audio:
            path = open_file_name(self, self.tr("Choose an audio file"), folder,
                                  self.tr("Audio (*.wav *.flac);;All files (*)"))
        else:
            path = open_file_name(self, self.tr("Choose an image"), folder,
                                  self.tr("Images (*.png *.jpg *.jpeg *.bmp *.gif *.webp);;All files (*)"))
        if path:
            edit.setText(path)

    def field(self, key: str) -> QLineEdit:
        """The line edit of input `key` (e.g. 'src', 'prompt')."""
        return self.fields[key]

    def texts(self) -> dict[str, str]:
        return {key: edit.text() for key, edit in self.fields.items()}

    def set_devices(self, devices: list[str]) -> None:
        """List this machine's `devices` in the Device box and its device maps in Device map, keeping the ones
        chosen: the window opens before torch is imported, on the CPU alone, and learns the GPUs after."""
        self._syncing = True
        try:
            self.device.set_devices(devices)
            self._fill_device_maps(devices)
        finally:
            self._syncing = False

    def _fill_device_maps(self, devices: list[str]) -> None:
        chosen = self.device_map.currentData() or ""
        self.device_map.clear()
        self.device_map.addItem(self.tr("none"), "")  # the model goes on Device
        for name in available_device_maps(devices) if accelerate_available() else []:
            self.device_map.addItem(name, name)
        if self.device_map.findData(chosen) < 0:  # given on the command line, not offered here
            self.device_map.addItem(chosen, chosen)
        self.device_map.setCurrentIndex(self.device_map.findData(chosen))

    def set_values(self, model: str, device: str, texts: dict[str, str],
                   loading: tuple[str, str | None] | None = None) -> None:
        """Fill the bar (and so the controller's inputs) with a model, a device and texts; `loading`
        (dtype, device map) too when given, else the bar keeps the ones chosen."""
        inputs = replace(self.ctl.inputs, model=model, device=device, texts=dict(texts))
        if loading is not None:
            inputs = replace(inputs, dtype=loading[0], device_map=loading[1] or None)
        self.ctl.set_inputs(inputs)
        self._show_inputs()

    def _show_inputs(self) -> None:
        """Show the controller's inputs (after a run, a failed run, or set_values)."""
        inputs = self.ctl.inputs
        self._syncing = True
        try:
            if list(inputs.texts) != list(self.fields):
                self._build_fields(self._field_specs(inputs.texts))
            if self.model_spec() != inputs.model:  # what is typed already says it: leave the user's text alone
                self._show_model(inputs.model)
            else:
                self._fit_model_box()
            self.device.set_device(inputs.device)
            if self.dtype.findText(inputs.dtype) < 0:
                self.dtype.addItem(inputs.dtype)
            self.dtype.setCurrentText(inputs.dtype)
            device_map = inputs.device_map or ""
            if self.device_map.findData(device_map) < 0:  # given on the command line, not offered here
                self.device_map.addItem(device_map, device_map)
            self.device_map.setCurrentIndex(self.device_map.findData(device_map))
            self.chat.setChecked(inputs.chat)
            for key, edit in self.fields.items():
                if edit.text() != inputs.texts.get(key, ""):
                    edit.setText(inputs.texts.get(key, ""))
        finally:
            self._syncing = False
        self._show_matching_preset()

    def _field_specs(self, texts: dict[str, str]) -> list[tuple[str, str, str]]:
        known = {f.key: f for f in self.ctl.adapter.inputs} if self.ctl.capabilities.model_here else {}
        return [(k, known[k].label if k in known else k.capitalize(), known[k].placeholder if k in known else "")
                for k in texts]

    def _update_inputs(self) -> None:
        if self._syncing:
            return
        self.ctl.set_inputs(RunInputs(self.model_spec(), self.device.device(), self.texts(),
                                      dtype=self.dtype.currentText(), device_map=self.device_map.currentData() or None,
                                      chat=self.chat.isChecked(), batch=self.ctl.inputs.batch))
        self._show_matching_preset()

    # ----- presets and recent inputs ----------------------------------------------------------
    def set_recent(self, entries: list[dict[str, str]]) -> None:
        self.recent = [dict(e) for e in entries][:MAX_RECENT]
        self._fill_presets()

    def _presets(self) -> list[dict[str, str]]:
        return [dict(p) for p in self.ctl.adapter.presets] if self.ctl.capabilities.model_here else []

    def _fill_presets(self) -> None:
        self.preset.clear()
        keys = set(self.fields)
        for texts in self._presets():
            self._add_preset("{texts}", texts)
        mine = [r for r in self.recent if set(r) == keys]
        if mine:
            self.preset.insertSeparator(self.preset.count())
            for texts in mine:
                self._add_preset(self.tr("recent: {texts}"), texts)
        self.preset.setPlaceholderText(self.tr("Choose an input…"))
        self._show_matching_preset()

    def _add_preset(self, label: str, texts: dict[str, str]) -> None:
        """One entry of the Preset box on one line (a multi-line or long text cut, whole in its tooltip)."""
        whole = "  |  ".join(texts.values())
        self.preset.addItem(label.format(texts=one_line(whole, PRESET_CHARS)), texts)
        self.preset.setItemData(self.preset.count() - 1, plain_tooltip(whole), Qt.ItemDataRole.ToolTipRole)

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
    def show_cached(self, rows) -> None:
        """List the Hugging Face cache's models (hub.CachedModel rows) in the Model box after the bundled ones,
        each with its architecture, size and support as a tooltip; one tfdebug cannot open is greyed."""
        from tfdebug.ui.render.stage_text import fmt_bytes

        box = self.model
        text = box.currentText()
        for spec in self._cached_specs:
            at = box.findText(spec, Qt.MatchFlag.MatchExactly)
            if at >= 0:
                box.removeItem(at)
        self._cached_specs = []
        for row in rows:
            if box.findText(row.spec, Qt.MatchFlag.MatchExactly) >= 0:
                continue
            box.addItem(row.spec)
            at = box.count() - 1
            support = self.tr("tfdebug opens it") if row.supported else phrase_text(row.reason)
            box.setItemData(at, f"{row.architecture} · {fmt_bytes(row.size_on_disk)} · {support}",
                            Qt.ItemDataRole.ToolTipRole)
            if not row.supported:
                box.model().item(at).setEnabled(False)
            self._cached_specs.append(row.spec)
        self._syncing = True
        box.setCurrentText(text)  # the typed or loaded model stays, whatever the list holds now
        self._syncing = False

    def choose_model(self, spec: str) -> None:
        """Put `spec` in the Model box (the next Run loads it), as choosing it from the list does."""
        self._show_model(spec)

    def model_spec(self) -> str:
        """What the next Run loads: the spec behind the entry shown (a folder shown by its name), else the text
        typed."""
        box, text = self.model, self.model.currentText().strip()
        at = box.currentIndex()
        spec = box.itemData(at) if at >= 0 and box.itemText(at) == text else None
        return spec if isinstance(spec, str) and spec else text

    def _show_model(self, spec: str) -> None:
        """Show `spec` in the Model box: a model folder (a path, `hf:PATH`) as an entry named by the folder, the
        whole path in its tooltip, so the box stays narrow and still says which model it is; any other spec
        (demo, hf:org/name, torch:…) as it is written."""
        box = self.model
        name = folder_name(spec)
        if name is None:
            box.setCurrentText(spec)
        else:
            at = box.findData(spec)
            if at < 0:
                box.addItem(name, spec)
                at = box.count() - 1
                box.setItemData(at, spec, Qt.ItemDataRole.ToolTipRole)
            box.setCurrentIndex(at)
            box.setCurrentText(name)
        self._fit_model_box()

    def _fit_model_box(self) -> None:
        """Widen the Model box to its text (a folder or module spec), up to MAX_MODEL_CHARS: a narrower box
        shows only the end of a path, and which model is loaded cannot be read."""
        box = self.model
        text = box.currentText()[:MAX_MODEL_CHARS]
        # The frame and arrow around the line edit (laid out once the bar shows; before that, about 40 px).
        chrome = box.width() - box.lineEdit().width() if box.isVisible() else 40
        fm = box.fontMetrics()
        text_width = fm.horizontalAdvance(text) + columns(fm, 2)  # the line edit's margins and cursor
        box.setMinimumWidth(max(box.minimumSizeHint().width(), text_width + chrome))

    def _session_changed(self) -> None:
        source = self.ctl.source
        live = self.ctl.capabilities.model_here  # the model runs here: every field and the model box can change
        # A new pass of this model can run on new texts (a served model: they can change, not the model).
        runs = source is not None and source.stepper.is_live
        self._build_fields(source.input_fields if source is not None else [])
        if runs and not live:
            self._syncing = True
            for key, edit in self.fields.items():
                edit.setText(source.texts.get(key, ""))
            self.chat.setChecked(source.chat)  # as the pass ran
            self.model.setCurrentText(source.model_name)  # the model, shown (chosen where it runs)
            self._fit_model_box()
            self._syncing = False
        elif not live:  # a replay: show the texts it ran, one field per token stream
            self._syncing = True
            for key, edit in self.fields.items():
                edit.setText(" ".join(t for t in self.ctl.tokens.get(key, []) if not _special(t)))
            self._syncing = False
        # Only a model whose tokenizer has a chat template can take a chat turn (its tooltip says so).
        self.chat.setEnabled(source is not None and source.can_chat())
        for widget in [*self.fields.values(), self.model, self.device, self.dtype, self.device_map, self.preset]:
            editable = live or (runs and widget in self.fields.values())
            widget.setEnabled(editable)
            widget.setToolTip("" if editable or runs else self.tr(REPLAY_TIP))
        self.live_button.setVisible(not runs and self.live_button.defaultAction() is not None)
        if live:
            self._show_inputs()
            texts = self.ctl.session.texts
            self.recent = [texts] + [r for r in self.recent if r != texts][:MAX_RECENT - 1]
            self._fill_presets()
        self._show_matching_preset()


def folder_name(spec: str) -> str | None:
    """The name a model folder's spec (`/path/to/tiny-gpt2`, `hf:~/models/x`, `./m`) is shown by: its last part;
    None for a spec that is not a path (demo, hf:org/name, torch:pkg.mod:factory)."""
    path = spec.removeprefix("hf:")
    if not path.startswith(("/", "~", ".")):
        return None
    return os.path.basename(os.path.normpath(os.path.expanduser(path))) or path


def _special(token: str) -> bool:
    """<bos>, <eos>, <pad>: tokens the model adds, not words the user typed."""
    return token.startswith("<") and token.endswith(">")
