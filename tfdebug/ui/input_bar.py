"""Input bar: source sentence, target prefix, presets and recent inputs, model, device, Run."""

from __future__ import annotations

from PySide6.QtGui import QAction
from PySide6.QtWidgets import QComboBox, QHBoxLayout, QLabel, QLineEdit, QToolButton, QWidget

from tfdebug.ui.controller import DebugController

MAX_RECENT = 10
REPLAY_TIP = "A recorded pass is shown: its input cannot be edited. Use Debug ▸ New Live Pass to run live."


class InputBar(QWidget):
    """Edits the controller's `inputs`; Run (a registry action) starts a pass with them."""

    def __init__(self, ctl: DebugController, run_action: QAction, models: list[str], devices: list[str],
                 presets: list[tuple[str, str]], parent: QWidget | None = None):
        super().__init__(parent)
        self.ctl = ctl
        self.presets = list(presets)
        self.recent: list[tuple[str, str]] = []
        self.preset = QComboBox()
        self.preset.setToolTip("Sentences from the notes, and your recent inputs")
        self.preset.setMinimumContentsLength(18)
        self.preset.activated.connect(self._preset_chosen)
        self.src = QLineEdit()
        self.src.setPlaceholderText("Source sentence (English)")
        self.tgt = QLineEdit()
        self.tgt.setPlaceholderText("Target prefix (Chinese, words split by spaces)")
        self.model = QComboBox()
        self.model.setEditable(True)
        self.model.addItems(models)
        self.model.setToolTip("demo, random, or the path of a model folder")
        self.device = QComboBox()
        self.device.addItems(devices)
        self.run_button = QToolButton()
        self.run_button.setDefaultAction(run_action)
        self.unknown = QLabel("")
        self.unknown.setStyleSheet("color: #b35c00")
        layout = QHBoxLayout(self)
        layout.setContentsMargins(4, 2, 4, 2)
        for label, widget, stretch in (("Preset", self.preset, 0), ("Source", self.src, 3),
                                       ("Target prefix", self.tgt, 2), ("Model", self.model, 0),
                                       ("Device", self.device, 0)):
            layout.addWidget(QLabel(label))
            layout.addWidget(widget, stretch)
        layout.addWidget(self.run_button)
        layout.addWidget(self.unknown)
        for signal in (self.src.textChanged, self.tgt.textChanged, self.model.currentTextChanged,
                       self.device.currentTextChanged):
            signal.connect(self._update_inputs)
        self.src.returnPressed.connect(run_action.trigger)
        self.tgt.returnPressed.connect(run_action.trigger)
        ctl.session_changed.connect(self._session_changed)
        ctl.info.connect(self._info)
        self._fill_presets()

    def set_values(self, model: str, device: str, src: str, tgt: str) -> None:
        self.model.setCurrentText(model)
        if self.device.findText(device) < 0:
            self.device.addItem(device)
        self.device.setCurrentText(device)
        self.src.setText(src)
        self.tgt.setText(tgt)
        self._update_inputs()
        self._show_matching_preset()

    def _update_inputs(self) -> None:
        self.ctl.inputs = (self.model.currentText().strip(), self.device.currentText(), self.src.text(),
                           self.tgt.text())

    def set_recent(self, pairs: list[tuple[str, str]]) -> None:
        self.recent = [tuple(p) for p in pairs][:MAX_RECENT]
        self._fill_presets()

    def _fill_presets(self) -> None:
        self.preset.clear()
        for src, tgt in self.presets:
            self.preset.addItem(f"{src}  |  {tgt}", (src, tgt))
        if self.recent:
            self.preset.insertSeparator(self.preset.count())
            for src, tgt in self.recent:
                self.preset.addItem(f"recent: {src}  |  {tgt}", (src, tgt))
        self.preset.setPlaceholderText("Choose a sentence…")
        self._show_matching_preset()

    def _show_matching_preset(self) -> None:
        """Select the preset equal to the current input, or none (the placeholder shows)."""
        current = (self.src.text(), self.tgt.text())
        matches = [i for i in range(self.preset.count()) if self.preset.itemData(i) == current]
        self.preset.setCurrentIndex(matches[0] if matches else -1)

    def _preset_chosen(self, index: int) -> None:
        pair = self.preset.itemData(index)
        if pair:
            self.src.setText(pair[0])
            self.tgt.setText(pair[1])

    def _session_changed(self) -> None:
        live = self.ctl.session is not None
        for widget in (self.src, self.tgt, self.model, self.device, self.preset):
            widget.setEnabled(live)
            widget.setToolTip("" if live else REPLAY_TIP)
        self.unknown.setText("")
        if not live:  # a replay: show the sentence it recorded, not what the bar held before
            tokens = self.ctl.tokens
            self.src.setText(" ".join(tokens.get("src", [])))
            self.tgt.setText(" ".join(t for t in tokens.get("tgt", []) if t != "<bos>"))
            self._show_matching_preset()
        if live:
            pair = (self.ctl.session.src_text, self.ctl.session.tgt_text)
            self.recent = [pair] + [p for p in self.recent if p != pair][:MAX_RECENT - 1]
            self._fill_presets()

    def _info(self, message: str) -> None:
        if message.startswith("Not in the vocabulary"):
            self.unknown.setText(message)
