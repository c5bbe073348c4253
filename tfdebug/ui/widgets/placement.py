"""A dtype and a device to run a reference pass in (the divergence condition, Compare With…)."""

from __future__ import annotations

from PySide6.QtCore import QEvent, Signal
from PySide6.QtWidgets import QComboBox, QHBoxLayout, QLabel, QWidget

from tfdebug.sessions.crosscheck import Placement
from tfdebug.core.devices import DTYPES, available_devices
from tfdebug.ui.widgets.device_box import DeviceBox


def default_reference_dtype(dtype_on_screen: str) -> str:
    """float32 beside a half-precision pass, float16 beside anything else (where would it overflow?)."""
    return "float32" if dtype_on_screen in ("float16", "bfloat16") else "float16"


class PlacementPicker(QWidget):
    """Two combo boxes: the dtype (float32, bfloat16, float16) and a device this machine has."""

    changed = Signal()

    def __init__(self, dtype: str = "float32", device: str = "cpu", parent: QWidget | None = None):
        super().__init__(parent)
        self.dtype = QComboBox()
        self.dtype.addItems(list(DTYPES))
        self.device = DeviceBox(available_devices())
        self.on = QLabel()
        self._fixed_device: str | None = None  # a server's device: not chosen here
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.dtype)
        layout.addWidget(self.on)
        layout.addWidget(self.device)
        layout.addStretch(1)
        self.set(Placement(dtype, device))
        self.dtype.currentIndexChanged.connect(lambda _: self.changed.emit())
        self.device.currentIndexChanged.connect(lambda _: self.changed.emit())
        self.retranslate_ui()

    def retranslate_ui(self) -> None:
        """The word between the two boxes, in the window's language."""
        self.on.setText(self.tr("on"))

    def changeEvent(self, event) -> None:
        if event.type() == QEvent.LanguageChange:
            self.retranslate_ui()
        super().changeEvent(event)

    def set(self, placement: Placement) -> None:
        """Show `placement` (a device this machine lacks is left as chosen before)."""
        self.dtype.setCurrentText(placement.dtype)
        if self.device.findData(str(placement.device)) >= 0:
            self.device.setCurrentIndex(self.device.findData(str(placement.device)))

    def fix_device(self, device: str) -> None:
        """Offer the dtype only: the pass runs on `device`, a server's, which this machine's list does not name."""
        self._fixed_device = device
        self.device.hide()
        self.on.hide()

    def placement(self) -> Placement:
        """The dtype and device chosen."""
        return Placement(self.dtype.currentText(), self._fixed_device or self.device.device())
