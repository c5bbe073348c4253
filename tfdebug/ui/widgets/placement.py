"""A dtype, a device, an attention kernel and (optionally) another folder of the same weights to run a reference
pass with (the divergence condition, Compare With…): the picker, the pass on screen's own placement, and a
placement said in words."""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication, QEvent, Signal
from PySide6.QtWidgets import QComboBox, QGridLayout, QLabel, QLineEdit, QWidget

from tfdebug.sessions.crosscheck import Placement, available_kernels
from tfdebug.core.devices import DTYPES, available_devices
from tfdebug.ui.widgets.device_box import DeviceBox


def default_reference_dtype(dtype_on_screen: str) -> str:
    """float32 beside a half-precision pass, float16 beside anything else (where would it overflow?)."""
    return "float32" if dtype_on_screen in ("float16", "bfloat16") else "float16"


def on_screen_placement(ctl) -> tuple[str, str]:
    """(dtype, device) of the pass on screen: its model's, the server's for a served pass, else float32 on cpu
    (a dtype a reference pass cannot take reads as float32)."""
    source = ctl.source
    if source is not None and source.runs_on:  # its model's (a served pass: the server's)
        dtype, device = source.dtype, source.runs_on
    else:
        dtype, device = "float32", "cpu"
    return (dtype if dtype in DTYPES else "float32"), device


def placement_text(placement: Placement) -> str:
    """'float16 on cpu' in the window's language, with the kernel and the other weights when chosen."""
    text = QCoreApplication.translate("ReferenceTools", "{dtype} on {device}").format(dtype=placement.dtype,
                                                                                      device=placement.device)
    if placement.attention != "eager":
        text = QCoreApplication.translate("ReferenceTools", "{placement}, {kernel} attention").format(
            placement=text, kernel=placement.attention)
    if placement.model:
        text = QCoreApplication.translate("ReferenceTools", "{placement}, weights from {model}").format(
            placement=text, model=placement.model)
    return text


class PlacementPicker(QWidget):
    """The dtype (float32, bfloat16, float16), a device this machine has, the attention kernel (tfdebug's eager,
    transformers' sdpa …) and the folder the weights come from (empty: the model on screen)."""

    changed = Signal()

    def __init__(self, dtype: str = "float32", device: str = "cpu", parent: QWidget | None = None):
        super().__init__(parent)
        self.dtype = QComboBox()
        self.dtype.addItems(list(DTYPES))
        self.device = DeviceBox(available_devices())
        self.kernel = QComboBox()
        self.kernel.addItems(list(available_kernels()))
        self.weights = QLineEdit()
        self.on, self.with_label, self.from_label = QLabel(), QLabel(), QLabel()
        self._fixed_device: str | None = None  # a server's device: not chosen here
        layout = QGridLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.dtype, 0, 0)
        layout.addWidget(self.on, 0, 1)
        layout.addWidget(self.device, 0, 2)
        layout.addWidget(self.with_label, 1, 0)
        layout.addWidget(self.kernel, 1, 1, 1, 2)
        layout.addWidget(self.from_label, 2, 0)
        layout.addWidget(self.weights, 2, 1, 1, 2)
        layout.setColumnStretch(3, 1)
        self.set(Placement(dtype, device))
        self.dtype.currentIndexChanged.connect(lambda _: self.changed.emit())
        self.device.currentIndexChanged.connect(lambda _: self.changed.emit())
        self.kernel.currentIndexChanged.connect(lambda _: self.changed.emit())
        self.weights.textChanged.connect(lambda _: self.changed.emit())
        self.retranslate_ui()

    def retranslate_ui(self) -> None:
        """The words beside the boxes, in the window's language."""
        self.on.setText(self.tr("on"))
        self.with_label.setText(self.tr("attention"))
        self.from_label.setText(self.tr("weights from"))
        self.weights.setPlaceholderText(self.tr("the model on screen, or another folder of its weights"))

    def changeEvent(self, event) -> None:
        if event.type() == QEvent.Type.LanguageChange:
            self.retranslate_ui()
        super().changeEvent(event)

    def set(self, placement: Placement) -> None:
        """Show `placement` (a device this machine lacks is left as chosen before)."""
        self.dtype.setCurrentText(placement.dtype)
        if self.device.findData(str(placement.device)) >= 0:
            self.device.setCurrentIndex(self.device.findData(str(placement.device)))
        self.kernel.setCurrentText(placement.attention)
        self.weights.setText(placement.model or "")

    def fix_device(self, device: str) -> None:
        """Offer the dtype and the kernel only: the pass runs on `device`, a server's, which this machine's list
        does not name, with the weights the server loaded (a client does not name folders on the server)."""
        self._fixed_device = device
        for widget in (self.device, self.on, self.weights, self.from_label):
            widget.hide()

    def placement(self) -> Placement:
        """The dtype, device, kernel and weights chosen (a folder typed without hf: gets it)."""
        folder = self.weights.text().strip() if self._fixed_device is None else ""
        model = (folder if folder.startswith("hf:") else f"hf:{folder}") if folder else None
        return Placement(self.dtype.currentText(), self._fixed_device or self.device.device(),
                         attention=self.kernel.currentText(), model=model)
