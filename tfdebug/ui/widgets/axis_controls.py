"""The heatmap's controls row: which two axes are shown, the index of every other axis, the pin,
and room at its end for the view's own tools (the colour scale's options, Fit).

The choices go to the controller's axes (`set_axes`, `set_index`, `pin`); the row follows the shown stage
(`stage_changed`) and subscribes to the view's events (`tfdebug.core.view.ViewSelection`: the axes, an index,
the pin), whoever changed it.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QSize
from PySide6.QtWidgets import (QComboBox, QHBoxLayout, QLabel, QSpinBox, QStyle, QStyleOptionComboBox,
                               QToolButton, QWidget)

from tfdebug.ui.i18n.language import axis_title


def hold_size(box: QWidget, width: int | None = None) -> None:
    """Fix `box`'s size at the widest its contents have needed so far (`width`, else its size hint: an index box's
    range and prefix): a fixed-size box asks its layout for nothing when its contents change (each request would
    lay out the window's docks again); it asks once more only when it must grow."""
    hint = box.sizeHint()
    width = hint.width() if width is None else width
    if width > box.minimumWidth() or box.minimumHeight() != box.maximumHeight():
        box.setFixedSize(max(width, box.minimumWidth()), hint.height())


def items_width(combo: QComboBox, items: list[str]) -> int:
    """The width `combo` needs to show the widest of `items`, as the style draws it. (A box told to adjust to its
    contents works this out itself, but 20 ms after each change of its items, and repaints then: one more paint
    of the window after a step.)"""
    option = QStyleOptionComboBox()
    combo.initStyleOption(option)
    metrics = combo.fontMetrics()
    text = max((metrics.horizontalAdvance(item) for item in items), default=0)
    return combo.style().sizeFromContents(QStyle.ContentsType.CT_ComboBox, option,
                                          QSize(text, metrics.height()), combo).width()


def offer(combo: QComboBox, items: list[str]) -> None:
    """Make `items` the choices of `combo`, quietly (its signals blocked: offering is not choosing), touching only
    what differs: a stage with as many axes renames the items in place (a box filled anew lays its list out
    again)."""
    if [combo.itemText(i) for i in range(combo.count())] == items:
        return
    combo.blockSignals(True)
    if combo.count() == len(items):
        for i, text in enumerate(items):
            combo.setItemText(i, text)
    else:
        combo.clear()
        combo.addItems(items)
    combo.blockSignals(False)
    hold_size(combo, items_width(combo, items))


class AxisControls(QWidget):
    """Rows and Columns combo boxes, one index box per other axis, the pin; `add_tool(widget)` appends."""

    def __init__(self, ctl, parent: QWidget | None = None):
        super().__init__(parent)
        self.ctl = ctl
        self.row_combo = QComboBox()
        self.col_combo = QComboBox()
        self.row_combo.activated.connect(self.axes_chosen)
        self.col_combo.activated.connect(self.axes_chosen)
        self.spin_boxes: dict[str, QSpinBox] = {}  # the shown stage's index boxes, by axis name
        self._spin_pool: dict[str, QSpinBox] = {}  # every box made so far: reused, never rebuilt per step
        self._index_row = QHBoxLayout()
        self._layout = controls = QHBoxLayout(self)
        controls.setContentsMargins(0, 0, 0, 0)
        self.rows_label, self.columns_label = QLabel(), QLabel()
        controls.addWidget(self.rows_label)
        controls.addWidget(self.row_combo)
        controls.addWidget(self.columns_label)
        controls.addWidget(self.col_combo)
        controls.addLayout(self._index_row)
        controls.addStretch(1)
        self.pin_button = QToolButton()
        self.pin_button.setCheckable(True)
        self.pin_button.toggled.connect(self._pin_toggled)
        controls.addWidget(self.pin_button)
        # A fixed height: a row whose height follows its index boxes (taller than the combos)
        # would resize the plot below it, and a resize relayouts and repaints the whole plot.
        self.setFixedHeight(max(QSpinBox().sizeHint().height(), self.row_combo.sizeHint().height(),
                                self.pin_button.sizeHint().height()))
        self.retranslate_ui()
        view = ctl.view
        view.axes_changed.connect(self._axes_changed)
        view.index_changed.connect(self._index_changed)
        view.pinned_changed.connect(self._pinned_changed)

    def add_tool(self, widget: QWidget) -> None:
        """Put `widget` at the end of the row."""
        self._layout.addWidget(widget)

    def retranslate_ui(self) -> None:
        self.row_combo.setToolTip(self.tr("Axis shown as rows"))
        self.col_combo.setToolTip(self.tr("Axis shown as columns"))
        self.rows_label.setText(self.tr("Rows"))
        self.columns_label.setText(self.tr("Columns"))
        self.pin_button.setToolTip(self.tr("Choosing axes pins them: every stage that has both shows them. "
                                           "Unpinned, each stage opens on its last two axes"))
        self._show_pin()

    def changeEvent(self, event) -> None:
        if event.type() == QEvent.Type.LanguageChange:
            self.retranslate_ui()  # the panel offers the axes again, by their names in the new language
        super().changeEvent(event)

    def stage_changed(self) -> None:
        """Offer the shown stage's axes and index boxes."""
        capture = self.ctl.current
        names = self.ctl.axes.names()
        self._show_pin()
        items = [f"{axis_title(n)} ({capture.shape[i]})" for i, n in enumerate(names)] if capture else []
        for combo in (self.row_combo, self.col_combo):
            offer(combo, items)
        enough = len(names) >= 2
        self.row_combo.setEnabled(enough)
        self.col_combo.setEnabled(enough)
        self._rebuild_spin_boxes()

    def _axes_changed(self, row: int, col: int) -> None:
        """The view shows other axes: select them and offer an index box for each of the others."""
        self._rebuild_spin_boxes()

    def _index_changed(self, name: str, index: int) -> None:
        """An axis not shown is fixed elsewhere (its box, a click on a head, the Why dock …): its box shows it."""
        spin = self.spin_boxes.get(name)
        if spin is not None and spin.value() != index:
            spin.blockSignals(True)  # showing the view's index is not the user choosing one
            spin.setValue(index)  # clamped to the stage's size, as the slice is
            spin.blockSignals(False)

    def _pinned_changed(self, pinned) -> None:
        self._show_pin()

    def _rebuild_spin_boxes(self) -> None:
        """One index box per axis not shown, in axis order (boxes are reused by axis name; the
        row is laid out again only when the set of boxes changes: hiding and showing costs ~1 ms a box)."""
        capture = self.ctl.current
        names = self.ctl.axes.names() if capture is not None else []
        indices = self.ctl.axes.indices() if capture is not None else {}
        wanted = [names[axis] for axis in indices]
        if list(self.spin_boxes) != wanted:
            while self._index_row.count():
                self._index_row.takeAt(0)
            for name, spin in self.spin_boxes.items():
                if name not in wanted:
                    spin.hide()
            self.spin_boxes = {}
            for name in wanted:
                spin = self._spin_pool.get(name)
                if spin is None:
                    spin = self._spin_pool[name] = QSpinBox()
                    spin.valueChanged.connect(lambda value, n=name: self.ctl.axes.set_index(n, value))
                self._index_row.addWidget(spin)
                self.spin_boxes[name] = spin
        if capture is None:
            return
        view = self.ctl.view
        if len(names) >= 2:
            for combo, axis in ((self.row_combo, view.row_axis), (self.col_combo, view.col_axis)):
                if combo.currentIndex() != axis:
                    combo.blockSignals(True)
                    combo.setCurrentIndex(axis)
                    combo.blockSignals(False)
        for axis, index in indices.items():
            name = names[axis]
            spin = self.spin_boxes[name]
            spin.blockSignals(True)  # setting the stage's range and index is not the user choosing one
            prefix = f"{axis_title(name)} "  # the language may have changed since the box was made
            if spin.prefix() != prefix:
                spin.setPrefix(prefix)
            spin.setRange(0, capture.shape[axis] - 1)
            spin.setValue(index)
            spin.blockSignals(False)
            hold_size(spin)
            tip = self.tr("Index along the {axis} axis (size {size})").format(axis=axis_title(name),
                                                                             size=capture.shape[axis])
            if spin.toolTip() != tip:
                spin.setToolTip(tip)
            if spin.isHidden():
                spin.show()

    def axes_chosen(self) -> None:
        """The user picked axes in a combo box: show them (which pins them; the view's events redraw the row)."""
        self.ctl.axes.set_axes(self.row_combo.currentIndex(), self.col_combo.currentIndex())
        self._rebuild_spin_boxes()  # equal axes were swapped in: the combos show what the view holds

    def _pin_toggled(self, on: bool) -> None:
        self.ctl.axes.pin(on)
        self._show_pin()  # a pin refused (fewer than two axes) unticks the button

    def _show_pin(self) -> None:
        """The pin says which axes it keeps, so a carried choice is never silent (choosing axes pins them)."""
        pinned = self.ctl.view.pinned
        self.pin_button.blockSignals(True)
        self.pin_button.setChecked(pinned is not None)
        self.pin_button.blockSignals(False)
        self.pin_button.setText(self.tr("Pinned: {row} × {col}").format(row=axis_title(pinned[0]),
                                                                        col=axis_title(pinned[1]))
                                if pinned else self.tr("Pin axes"))
