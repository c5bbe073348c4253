"""DeviceBox: a combo box of the devices this machine has, each GPU with its free memory.

An item's data is the device name ("cpu", "cuda:0", "mps"); its text adds what the driver says
is free on a GPU now, read again each time the list opens (a model loaded since takes memory).
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, Qt
from PySide6.QtWidgets import QComboBox, QWidget

from tfdebug.core.devices import gpu_memory
from tfdebug.ui.render.stage_text import fmt_bytes


class DeviceBox(QComboBox):
    """The devices `devices` names; `device()` is the one chosen, `set_device()` chooses one (adding a
    device this machine lacks, as given on the command line, so it can be shown and refused by name)."""

    def __init__(self, devices: list[str], parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("device-box")
        self.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)
        self.set_devices(devices)

    def set_devices(self, devices: list[str]) -> None:
        """List `devices` (the window lists them once torch has said which this machine has), keeping the one
        chosen."""
        chosen = self.device()
        self.blockSignals(True)
        self.clear()
        for name in devices:
            self.addItem(name, name)
        self.blockSignals(False)
        if chosen:
            self.set_device(chosen)
        self.label_devices()

    def device(self) -> str:
        """The device chosen ("" when the box is empty)."""
        return self.currentData() or ""

    def set_device(self, device: str) -> None:
        """Choose `device`, adding it when it is not listed."""
        if self.findData(device) < 0:
            self.addItem(device, device)
        self.setCurrentIndex(self.findData(device))

    def label_devices(self) -> None:
        """Each item's text: the device, and for a GPU the memory free on it now of its total."""
        for i in range(self.count()):
            name = self.itemData(i)
            memory = gpu_memory(name)
            if memory is None:
                self.setItemText(i, name)
                self.setItemData(i, None, Qt.ItemDataRole.ToolTipRole)
                continue
            free, total = memory
            self.setItemText(i, self.tr("{device} · {free} free").format(device=name, free=fmt_bytes(free)))
            self.setItemData(i, self.tr("{free} free of {total}").format(free=fmt_bytes(free), total=fmt_bytes(total)),
                             Qt.ItemDataRole.ToolTipRole)

    def showPopup(self) -> None:
        self.label_devices()  # what is free now, not when the window opened
        super().showPopup()

    def changeEvent(self, event) -> None:
        if event.type() == QEvent.Type.LanguageChange:
            self.label_devices()
        super().changeEvent(event)
