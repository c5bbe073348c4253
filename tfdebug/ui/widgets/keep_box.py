"""The Capture Budget dialog's "What to keep" part: near or first, and the kinds always kept."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QGroupBox, QLabel, QListWidget, QListWidgetItem, QRadioButton, QVBoxLayout, QWidget

from tfdebug.core.budget import FIRST, NEAR
from tfdebug.core.stages import KINDS
from tfdebug.ui.i18n.language import kind_title
from tfdebug.ui.state.keeping import KeepChoice


class KeepBox(QGroupBox):
    """The dialog's 'What to keep' part: near or first, and the kinds always kept (checkable list)."""

    def __init__(self, keep: KeepChoice, parent: QWidget | None = None):
        super().__init__(self.tr("When not every stage fits, keep"), parent)
        self.near = QRadioButton(self.tr("The stages near the one you look at and the one the pass has reached "
                                         "(default)"))
        self.first = QRadioButton(self.tr("The stages that run first"))
        (self.near if keep.mode == NEAR else self.first).setChecked(True)
        self.kinds = QListWidget()
        self.kinds.setObjectName("pinned-kinds")
        for kind in KINDS:
            item = QListWidgetItem(f"{kind_title(kind)}  ({kind})")
            item.setData(Qt.ItemDataRole.UserRole, kind)
            item.setFlags(item.flags() | Qt.ItemFlag.ItemIsUserCheckable)
            item.setCheckState(Qt.CheckState.Checked if kind in keep.pinned else Qt.CheckState.Unchecked)
            self.kinds.addItem(item)
        note = QLabel(self.tr("Always keep the stages of these kinds, in every layer, before any other (they take "
                              "at most half of the budget):"))
        note.setWordWrap(True)
        layout = QVBoxLayout(self)
        for widget in (self.near, self.first, note, self.kinds):
            layout.addWidget(widget)

    def mode(self) -> str:
        return NEAR if self.near.isChecked() else FIRST

    def pinned(self) -> tuple[str, ...]:
        items = (self.kinds.item(i) for i in range(self.kinds.count()))
        return tuple(item.data(Qt.ItemDataRole.UserRole) for item in items
                     if item.checkState() == Qt.CheckState.Checked)
