"""Heatmap panel: the shown 2-D slice of the current stage, zoomable to its every cell.

The whole slice (downsampled to at most 1024² by the controller) is drawn through the colour
scale as LUT indices (`ScaledImage`: quantised by the display worker for planes over 1024²,
else here). Zooming and panning (`ZoomView`: wheel, drag, keys, Fit) read the visible tile at
the view's resolution on the display worker once the view settles, and draw it over the whole
slice: zoomed into 64×64 cells of an 8,000² plane, the 64×64 real cells show, not a blown-up
block average. The colour levels stay the whole slice's, so colours keep their meaning while
zooming. Axes label as many tokens as fit at each zoom (`TokenAxis`). A click on a row picks
that query for the Query Row view. The histogram beside it is drawn from core's stats.
"""

from __future__ import annotations

import math

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication, QEvent, QPointF, QRectF, Qt
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QComboBox, QHBoxLayout, QLabel, QSpinBox, QToolButton, QVBoxLayout, QWidget

from tfdebug.core.display import DisplaySlice
from tfdebug.core.masks import window_size
from tfdebug.core.tiles import Tile, region
from tfdebug.ui.i18n.language import axis_title
from tfdebug.ui.render import colors
from tfdebug.ui.render.plot_paint import keep_text_space, settle
from tfdebug.ui.state.controller import DebugController
from tfdebug.ui.widgets.heatmap_axes import HistogramLUT, TokenAxis
from tfdebug.ui.widgets.scaled_image import ScaledImage
from tfdebug.ui.widgets.zoom import ZoomView

HOVER_HINT = QT_TRANSLATE_NOOP("HeatmapPanel", "Hover over a cell to read its value.")


class HeatmapPanel(QWidget):
    """Axis choice, indices of the other axes, the image with its LUT, and a hover readout."""

    def __init__(self, ctl: DebugController, parent: QWidget | None = None):
        super().__init__(parent)
        self.ctl = ctl
        self.slice: DisplaySlice | None = None
        self._scheme_name = ""
        self._row_labels: list[str] | None = None
        self._col_labels: list[str] | None = None
        self._axes_key: tuple | None = None

        self.row_combo = QComboBox()
        self.col_combo = QComboBox()
        for combo in (self.row_combo, self.col_combo):
            combo.setSizeAdjustPolicy(QComboBox.AdjustToContents)
        self.row_combo.activated.connect(self._axes_chosen)
        self.col_combo.activated.connect(self._axes_chosen)
        self.spin_boxes: dict[str, QSpinBox] = {}  # the shown stage's index boxes, by axis name
        self._spin_pool: dict[str, QSpinBox] = {}  # every box made so far: reused, never rebuilt per step
        self._index_row = QHBoxLayout()
        controls_row = QWidget()
        controls = QHBoxLayout(controls_row)
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
        # The colour scale's options (View menu and these buttons share the actions) and Fit (set by the window).
        self.scale = colors.ColourScale()
        self.log_action, self.per_row_action = QAction(self), QAction(self)
        for option in (self.log_action, self.per_row_action):
            option.setCheckable(True)
            option.toggled.connect(self._scale_toggled)
            button = QToolButton()
            button.setDefaultAction(option)
            controls.addWidget(button)
        self.fit_button = QToolButton()
        controls.addWidget(self.fit_button)
        # A fixed height: a row whose height follows its index boxes (taller than the combos)
        # would resize the plot below it, and a resize relayouts and repaints the whole plot.
        controls_row.setFixedHeight(max(QSpinBox().sizeHint().height(), self.row_combo.sizeHint().height(),
                                        self.pin_button.sizeHint().height()))

        self.graphics = pg.GraphicsLayoutWidget()
        self.plot = self.graphics.addPlot(row=0, col=0, axisItems={"left": TokenAxis("left"),
                                                                   "bottom": TokenAxis("bottom", rotate_labels=True)})
        self.plot.invertY(True)
        self.plot.setMenuEnabled(False)
        self.base = ScaledImage(self.plot, z=0)        # the whole slice
        self.detail = ScaledImage(self.plot, z=0.5)    # the zoomed view's tile, over it
        self.image, self.overlay = self.base.image, self.base.overlay
        self.tile: Tile | None = None
        self._tile_asked: tuple | None = None  # what the last tile request was for (a result for another is stale)
        self.row_line = pg.InfiniteLine(angle=0, movable=False, pen=pg.mkPen((255, 64, 64), width=1, style=Qt.DashLine))
        self.row_line.setZValue(2)
        self.row_line.setVisible(False)
        self.plot.addItem(self.row_line)
        self.zoom = ZoomView(self.graphics, self.plot, self)
        self.zoom.settled.connect(self.read_view)
        # Not linked to the image: the image holds LUT indices (uint8, quantised between the
        # levels) that pyqtgraph draws without converting a pixel; moving the levels re-quantises.
        self.histogram = HistogramLUT()
        self.histogram.region.setBrush(pg.mkBrush(None))  # a filled band costs a large alpha fill per paint
        self.histogram.sigLevelChangeFinished.connect(self._levels_dragged)
        self._levels: tuple[float, float] | None = None
        self.graphics.addItem(self.histogram, row=0, col=1)
        keep_text_space(self.plot.getAxis("left"), self.plot.getAxis("bottom"), self.histogram.axis)
        self.graphics.scene().sigMouseMoved.connect(self._mouse_moved)
        self.graphics.scene().sigMouseClicked.connect(self._clicked)

        # Plain text: stage names and token strings come from a model or a file.
        self.readout = QLabel()
        self.readout.setTextFormat(Qt.PlainText)
        self.readout.setTextInteractionFlags(Qt.TextSelectableByMouse)
        self.caption = QLabel("")
        self.caption.setTextFormat(Qt.PlainText)
        self.caption.setWordWrap(True)
        # A fixed height: a caption that changes its line count per stage would resize the
        # plot below it, and a resize repaints and re-ranges everything in it.
        self.caption.setFixedHeight(2 * self.caption.fontMetrics().lineSpacing() + 4)

        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(controls_row)
        layout.addWidget(self.caption)
        layout.addWidget(self.graphics, 1)
        layout.addWidget(self.readout)

        ctl.stage_changed.connect(self._stage_changed)
        ctl.slice_changed.connect(lambda: self.show_slice(ctl.current_slice))
        ctl.row_picked.connect(self._show_picked_row)
        self.retranslate_ui()
        self.show_slice(None)  # before the first pass: a caption, no made-up axes

    def hover_hint(self) -> str:
        return self.tr(HOVER_HINT)

    def retranslate_ui(self) -> None:
        self.row_combo.setToolTip(self.tr("Axis shown as rows"))
        self.col_combo.setToolTip(self.tr("Axis shown as columns"))
        self.rows_label.setText(self.tr("Rows"))
        self.columns_label.setText(self.tr("Columns"))
        self.pin_button.setToolTip(self.tr("Choosing axes pins them: every stage that has both shows them. "
                                           "Unpinned, each stage opens on its last two axes"))
        self.readout.setText(self.hover_hint())
        self.log_action.setText(self.tr("Log scale"))
        self.log_action.setToolTip(self.tr("Colour by the logarithm of the values: small weights stay "
                                           "distinguishable beside a large one"))
        self.per_row_action.setText(self.tr("Per-row scale"))
        self.per_row_action.setToolTip(self.tr("Scale each row to its own largest value over every column: "
                                               "each query's strongest key is the top colour"))
        self._show_pin()

    def changeEvent(self, event) -> None:
        if event.type() == QEvent.LanguageChange:
            self.retranslate_ui()
            if self.ctl.current is not None:  # axis names, captions and tick titles again
                self._stage_changed()
                self._axes_key = None
                self.show_slice(self.slice)
            else:
                self.show_slice(None)
        super().changeEvent(event)

    # ----- controls ----------------------------------------------------------------------
    def _stage_changed(self) -> None:
        capture = self.ctl.current
        names = self.ctl.axis_names()
        self.readout.setText(self.hover_hint())  # a value read at the previous stage is not this stage's
        self._show_pin()
        for combo in (self.row_combo, self.col_combo):
            combo.blockSignals(True)
            combo.clear()
            combo.addItems([f"{axis_title(n)} ({capture.shape[i]})" for i, n in enumerate(names)] if capture else [])
            combo.blockSignals(False)
        enough = len(names) >= 2
        self.row_combo.setEnabled(enough)
        self.col_combo.setEnabled(enough)
        self._rebuild_spin_boxes()

    def _rebuild_spin_boxes(self) -> None:
        """One index box per axis not shown, in axis order (boxes are reused by axis name; the
        row is laid out again only when the set of boxes changes: hiding and showing costs ~1 ms a box)."""
        capture = self.ctl.current
        names = self.ctl.axis_names() if capture is not None else []
        indices = self.ctl.indices() if capture is not None else {}
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
                    spin.valueChanged.connect(lambda value, n=name: self.ctl.set_index(n, value))
                self._index_row.addWidget(spin)
                self.spin_boxes[name] = spin
        if capture is None:
            return
        view = self.ctl.view
        if len(names) >= 2:
            self.row_combo.setCurrentIndex(view.row_axis)
            self.col_combo.setCurrentIndex(view.col_axis)
        for axis, index in indices.items():
            name = names[axis]
            spin = self.spin_boxes[name]
            spin.blockSignals(True)  # setting the stage's range and index is not the user choosing one
            spin.setRange(0, capture.shape[axis] - 1)
            spin.setValue(index)
            spin.blockSignals(False)
            prefix = f"{axis_title(name)} "  # the language may have changed since the box was made
            if spin.prefix() != prefix:
                spin.setPrefix(prefix)
            tip = self.tr("Index along the {axis} axis (size {size})").format(axis=axis_title(name),
                                                                             size=capture.shape[axis])
            if spin.toolTip() != tip:
                spin.setToolTip(tip)
            if spin.isHidden():
                spin.show()

    def _axes_chosen(self) -> None:
        self.ctl.set_axes(self.row_combo.currentIndex(), self.col_combo.currentIndex())
        self._rebuild_spin_boxes()
        self._show_pin()

    def _pin_toggled(self, on: bool) -> None:
        names = self.ctl.axis_names()
        view = self.ctl.view
        view.pin((names[view.row_axis], names[view.col_axis]) if on and len(names) >= 2 else None)
        self._show_pin()

    def _show_pin(self) -> None:
        """The pin says which axes it keeps, so a carried choice is never silent (choosing axes pins them)."""
        pinned = self.ctl.view.pinned
        self.pin_button.blockSignals(True)
        self.pin_button.setChecked(pinned is not None)
        self.pin_button.blockSignals(False)
        self.pin_button.setText(self.tr("Pinned: {row} × {col}").format(row=axis_title(pinned[0]), col=axis_title(pinned[1]))
                                if pinned else self.tr("Pin axes"))

    # ----- drawing -----------------------------------------------------------------------
    def show_slice(self, sl: DisplaySlice | None) -> None:
        """Draw a DisplaySlice (None clears the view); a zoomed view keeps its cells and reads them again."""
        self.slice = sl
        self._drop_tile()
        capture = self.ctl.current
        if sl is None or capture is None:
            self.base.clear()
            for side in ("left", "bottom"):  # no axes of an earlier stage over an empty plot
                self.plot.getAxis(side).set_title("")
                self.plot.getAxis(side).set_cells(0)
            if capture is None:
                self.caption.setText(self.tr("Nothing to show yet."))
            elif capture.dropped:
                self.caption.setText(self.tr("{name} was not kept: the capture budget dropped it. Restart and "
                                             "run to it to see it.").format(name=capture.name))
            else:
                self.caption.setText("")
            return
        names = self.ctl.axis_names()
        for axis, index in self.ctl.indices().items():
            spin = self.spin_boxes.get(names[axis])
            if spin is not None and spin.value() != index:
                spin.blockSignals(True)
                spin.setValue(index)
                spin.blockSignals(False)
        cmap, levels, _ = colors.scheme(capture.info.kind, sl.stats)
        name = cmap.name if hasattr(cmap, "name") else str(cmap)
        if name != self._scheme_name:
            self.histogram.show_colormap(cmap)  # the map is fixed; its stops are not for editing
            self._scheme_name = name
        self.histogram.set_histogram(sl.stats.hist_edges, sl.stats.hist_counts)
        rows, cols = sl.source_shape
        self._set_levels(levels)
        self.base.draw(sl.values, QRectF(0, 0, cols, rows), self.lookup_table(), levels, self.scale,
                       indexed=self.ctl.indexed_image(sl, levels))
        self._label_axes(sl)
        if not self.zoom.set_shape(rows, cols):
            self.read_view()  # the same cells of this stage
        self._show_picked_row()
        self._caption()
        settle(self.graphics)
        if self.graphics.isVisible():
            # Paint the new image now, before the other panels' updates queue up behind it:
            # the heatmap is what the user is waiting for. The scene's own queued pass over its
            # changed items is what paints (Qt sends the window's update request from it); a
            # repaint() here would paint once, and that pass would paint the same items again.
            QCoreApplication.sendPostedEvents(self.graphics.scene(), QEvent.MetaCall)

    def _caption(self) -> None:
        """Stage, size, colour map, masked cells, and what the zoom and the colour scale show."""
        sl, capture = self.slice, self.ctl.current
        rows, cols = sl.source_shape
        signed = self._levels is not None and self._levels[0] < 0
        scale = self.tr("diverging colour map centred on 0") if signed else self.tr("sequential colour map")
        tile = self.tile
        if tile is not None:
            (r0, r1), (c0, c1) = tile.rows, tile.cols
            down = self.tr(" · rows {r0}–{r1} × columns {c0}–{c1}").format(r0=r0, r1=r1 - 1, c0=c0, c1=c1 - 1) + (
                self.tr(", every cell") if tile.exact else self.tr(", averaged to {rows}×{cols}").format(
                    rows=tile.values.shape[0], cols=tile.values.shape[1]))
        else:
            down = self.tr(", downsampled to {rows}×{cols}").format(rows=sl.values.shape[0],
                                                                   cols=sl.values.shape[1]) if sl.downsampled else ""
        if self.scale.log:
            scale += self.tr(", log scale from {low}").format(low=f"{self.scale.describe_floor(self._levels):.0e}")
        if self.scale.per_row:
            scale += self.tr(", each row scaled to its maximum")
        # Masked cells: −∞ in the reference model, finfo.min in transformers' masks (display_slice makes both −∞).
        masked = self.tr(" · {n} masked cells (−∞ or ≤ finfo.min/2) in grey").format(n=sl.stats.neginf) \
            if sl.stats.neginf else ""
        window = self._window(capture)
        if masked and window is not None:
            masked += self.tr(" · sliding window of {window} keys").format(window=window)
        self.caption.setText(f"{capture.name} · {rows}×{cols}{down} · {scale}{masked}")

    def _set_levels(self, levels: tuple[float, float]) -> None:
        self._levels = levels
        self.histogram.blockSignals(True)  # setting levels from the data is not a drag
        self.histogram.setLevels(*levels)
        self.histogram.blockSignals(False)

    def _redraw(self) -> None:
        """Draw the slice and the tile again under the current levels and scale."""
        for layer in (self.base, self.detail):
            layer.redraw(self.lookup_table(), self._levels, self.scale)

    def _levels_dragged(self) -> None:
        """The user moved the colour bar's levels: re-quantise the shown slice and tile between them."""
        levels = tuple(float(v) for v in self.histogram.getLevels())
        if self.slice is not None and levels != self._levels:
            self._levels = levels
            self._redraw()

    def shown_levels(self) -> tuple[float, float] | None:
        """The data values the colour scale spans (its low and high ends)."""
        return self._levels

    # ----- colour scale and zoom ----------------------------------------------------------
    def set_scale(self, log: bool, per_row: bool) -> None:
        """Colour by a log scale and/or per-row normalisation (the View menu's and buttons' options)."""
        for option, on in ((self.log_action, log), (self.per_row_action, per_row)):
            option.setChecked(on)  # each toggle lands in _scale_toggled

    def _scale_toggled(self) -> None:
        scale = colors.ColourScale(log=self.log_action.isChecked(), per_row=self.per_row_action.isChecked())
        if scale == self.scale:
            return
        per_row_changed = scale.per_row != self.scale.per_row
        self.scale = scale
        if self.slice is None or self._levels is None:
            return
        self.base.row_max = None if per_row_changed else self.base.row_max  # the slice's own rows' maxima
        self._redraw()
        if per_row_changed and self.tile is not None:
            self._drop_tile()
            self.read_view()  # the tile's rows' maxima over every column
        self._caption()

    def _drop_tile(self) -> None:
        self.tile, self._tile_asked = None, None
        self.detail.clear()

    def read_view(self) -> None:
        """Read the visible cells at the view's resolution when the whole-slice image is coarser (off the GUI
        thread; the tile is drawn over the slice when it arrives). At Fit the slice alone shows."""
        sl = self.slice
        if sl is None or self.zoom.shape != sl.source_shape:
            return
        rows, cols = self.zoom.visible()
        if not sl.downsampled or self.zoom.is_fit():
            if self.tile is not None:
                self._drop_tile()
                self._caption()
            return
        height, width = self.zoom.pixels()
        max_size = (min(rows[1] - rows[0], height), min(cols[1] - cols[0], width))
        asked = (sl, rows, cols, max_size, self.scale.per_row)
        tile = self.tile
        if asked == self._tile_asked or (tile is not None and (sl, tile.rows, tile.cols, tile.values.shape,
                                                                tile.row_max is not None) == asked):
            return
        self._tile_asked = asked
        self.ctl.request_tile(rows, cols, max_size, self.scale.per_row, lambda t: self._tile_ready(asked, t))

    def _tile_ready(self, asked: tuple, tile: Tile) -> None:
        if asked is not self._tile_asked or self.slice is not asked[0]:
            return  # the view or the stage moved on: a newer tile is coming
        self.tile = tile
        (r0, r1), (c0, c1) = tile.rows, tile.cols
        self.detail.draw(tile.values, QRectF(c0, r0, c1 - c0, r1 - r0), self.lookup_table(), self._levels,
                         self.scale, tile.row_max)
        self._caption()

    def _show_picked_row(self) -> None:
        """The query the Query Row view plots, marked by a line across its row."""
        row = self.ctl.picked_row
        shown = self.slice is not None and row is not None and row < self.slice.source_shape[0]
        if shown:
            self.row_line.setPos(row + 0.5)
        self.row_line.setVisible(shown)

    def _clicked(self, event) -> None:
        if event.button() != Qt.LeftButton:
            return
        cell = self.cell_at(QPointF(event.scenePos()))
        if cell is not None:
            self.ctl.pick_row(cell[0])

    def _window(self, capture) -> int | None:
        """The sliding window a mask stage (or the mask a softmax read) hides keys outside of, or None."""
        window = window_size(capture.info.formula)
        if window is None and capture.info.kind == "softmax":
            sources = (self.ctl.plan.find(name) for name in capture.info.inputs)
            window = next((window_size(c.info.formula) for c in sources if c is not None and c.info.kind == "mask"),
                          None)
        return window

    def _label_axes(self, sl: DisplaySlice) -> None:
        names = self.ctl.axis_names()
        row_name = names[sl.row_axis] if 0 <= sl.row_axis < len(names) else ""
        col_name = names[sl.col_axis] if 0 <= sl.col_axis < len(names) else ""
        self._row_labels = self.ctl.axis_labels(sl.row_axis) if sl.row_axis >= 0 else None
        self._col_labels = self.ctl.axis_labels(sl.col_axis)
        key = (row_name, col_name, self._row_labels, self._col_labels, sl.source_shape)
        if key == self._axes_key:
            return  # relabelling costs a relayout: skip it when nothing changed
        self._axes_key = key
        self.plot.getAxis("left").set_title(axis_title(row_name))
        self.plot.getAxis("bottom").set_title(axis_title(col_name))
        rows, cols = sl.source_shape
        self.plot.getAxis("left").set_cells(rows, self._row_labels)
        self.plot.getAxis("bottom").set_cells(cols, self._col_labels)

    # ----- hover ---------------------------------------------------------------------------
    def cell_at(self, scene_pos: QPointF) -> tuple[int, int] | None:
        """(source row, source column) under a scene position, or None outside the image."""
        if self.slice is None or not self.plot.vb.sceneBoundingRect().contains(scene_pos):
            return None
        p = self.plot.vb.mapSceneToView(scene_pos)
        rows, cols = self.slice.source_shape
        r, c = math.floor(p.y()), math.floor(p.x())
        return (r, c) if 0 <= r < rows and 0 <= c < cols else None

    def readout_at(self, row: int, col: int) -> str:
        """The hover text for source cell (row, col): its tokens/indices and its value."""
        sl, tile = self.slice, self.tile
        if tile is not None and tile.contains(row, col):  # the zoomed view's cells
            value, exact = tile.value_at(row, col), tile.exact
        else:
            h, w = sl.values.shape
            value, exact = float(sl.values[row * h // sl.source_shape[0], col * w // sl.source_shape[1]]), \
                not sl.downsampled
        names = self.ctl.axis_names()

        def where(axis: int, i: int, labels) -> str:
            name = axis_title(names[axis]) if 0 <= axis < len(names) else self.tr("row")
            return f"{name} {i} '{labels[i]}'" if labels else f"{name} {i}"
        current = self.ctl.current
        if value == float("-inf") and current is not None and current.info.kind == "softmax":
            shown = self.tr("0 (masked)")  # drawn as masked; the tensor holds exactly 0 there
        elif value == float("-inf") and exact and (held := self._held_value(row, col)) is not None \
                and held != value:
            # Drawn as masked; the tensor holds a finite stand-in (transformers' finfo.min).
            shown = self.tr("{value} (masked)").format(value=colors.format_value(held))
        else:
            shown = colors.format_value(value)
        approx = "" if exact else self.tr(" (block average)")
        return (f"{where(sl.row_axis, row, self._row_labels)} · {where(sl.col_axis, col, self._col_labels)}"
                " · " + self.tr("value {value}").format(value=shown) + approx)

    def _held_value(self, row: int, col: int) -> float | None:
        """The value the shown stage's tensor holds at source cell (row, col) of the shown slice."""
        current, sl = self.ctl.current, self.slice
        if current is None or current.tensor is None:
            return None
        try:
            # One cell read by indexing (a plane computed on demand computes that cell alone).
            return float(region(current.tensor, sl.row_axis, sl.col_axis, self.ctl.indices(), (row, row + 1),
                                (col, col + 1))[0, 0])
        except (IndexError, RuntimeError, ValueError):  # a 1-D stage, or axes changed under the pointer
            return None

    def _mouse_moved(self, scene_pos) -> None:
        cell = self.cell_at(QPointF(scene_pos))
        if cell is not None:
            self.readout.setText(self.readout_at(*cell))

    # ----- export --------------------------------------------------------------------------
    def lookup_table(self) -> np.ndarray:
        """The LUT the image is drawn with (256 × RGB(A))."""
        return self.histogram.getLookupTable()

    def render_png(self, path: str) -> None:
        """Draw the heatmap (image, axes, colour bar) as it is shown into `path`: the temporary file
        the export registry renames into place (io.exports: atomic, after the output checks)."""
        if not self.graphics.grab().save(str(path), "PNG"):
            raise OSError(f"Could not write {path}.")

    def render_svg(self, path: str) -> None:
        """Draw the heatmap (image, axes, colour bar) as SVG into `path` (a temporary file, as for
        render_png), rendered through Qt's SVG generator.

        pyqtgraph's own SVGExporter fails on current Qt versions (pyqtgraph issue #3485).
        The image cells are embedded as a bitmap; axes and labels stay vector text.
        """
        from PySide6.QtCore import QRect, QSize
        from PySide6.QtGui import QPainter
        from PySide6.QtSvg import QSvgGenerator

        size = self.graphics.size()
        generator = QSvgGenerator()
        generator.setFileName(str(path))
        generator.setSize(QSize(size.width(), size.height()))
        generator.setViewBox(QRect(0, 0, size.width(), size.height()))
        # Same resolution as the widget, or bitmaps (the heatmap cells) come out rescaled.
        generator.setResolution(self.graphics.logicalDpiX())
        generator.setTitle(self.ctl.current.name if self.ctl.current is not None else "tfdebug heatmap")
        painter = QPainter()
        if not painter.begin(generator):
            raise OSError(f"Could not write {path}.")
        try:
            self.graphics.render(painter)
        finally:
            painter.end()
