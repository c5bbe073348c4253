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
from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication, QEvent, QPointF, Qt
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QLabel, QMenu, QToolButton, QVBoxLayout, QWidget

from tfdebug.core.display import DisplaySlice
from tfdebug.core.masks import window_size
from tfdebug.core.tiles import Tile, region
from tfdebug.ui.i18n.language import axis_title
from tfdebug.ui.render import colors
from tfdebug.ui.render.plot_paint import keep_text_space, paint_now
from tfdebug.ui.state.controller import DebugController
from tfdebug.ui.widgets.axis_controls import AxisControls
from tfdebug.ui.widgets.heatmap_axes import HistogramLUT, TokenAxis
from tfdebug.ui.widgets.steady_text import SteadyText
from tfdebug.ui.widgets.zoomed_slice import ZoomedSlice

HOVER_HINT = QT_TRANSLATE_NOOP("HeatmapPanel", "Hover over a cell to read its value.")


MIN_VIEW_HEIGHT = 120  # px of the heatmap's plot and colour bar, however many docks share the height

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

        self.controls = AxisControls(ctl)
        for name in ("row_combo", "col_combo", "rows_label", "columns_label", "pin_button"):
            setattr(self, name, getattr(self.controls, name))  # what tests and the window drive
        # The colour scale's options (the View menu shows the same actions) in one menu button: the row
        # stays narrow enough for the docks beside the heatmap. Fit's action is set by the window.
        self.log_action, self.per_row_action = QAction(self), QAction(self)
        self.scale_button = QToolButton()
        self.scale_button.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        self.scale_button.setMenu(QMenu(self.scale_button))
        for option in (self.log_action, self.per_row_action):
            option.setCheckable(True)
            self.scale_button.menu().addAction(option)
        self.log_action.toggled.connect(self._log_toggled)
        self.per_row_action.toggled.connect(self._scale_toggled)
        ctl.colour_scale_changed.connect(self._scale_toggled)
        self.controls.add_tool(self.scale_button)
        self.menu = QMenu(self)  # View ▸ Heatmap: the window adds Fit above the scale's options
        self.menu.addActions([self.log_action, self.per_row_action])
        self.fit_button = QToolButton()
        self.controls.add_tool(self.fit_button)

        self.graphics = pg.GraphicsLayoutWidget()
        self.graphics.setMinimumHeight(MIN_VIEW_HEIGHT)  # the plane is never a strip: docks around it give way or tab
        self.plot = self.graphics.addPlot(row=0, col=0, axisItems={"left": TokenAxis("left"),
                                                                   "bottom": TokenAxis("bottom", rotate_labels=True)},
                                          enableMenu=False)  # no context menu: not built at all (~5 ms a plot)
        self.plot.invertY(True)
        self.view = ZoomedSlice(ctl, self.graphics, self.plot, self.lookup_table, self)
        self.view.changed.connect(lambda: self._caption() if self.slice is not None else None)
        self.zoom, self.base, self.detail = self.view.zoom, self.view.base, self.view.detail
        self.image, self.overlay = self.base.image, self.base.overlay
        self.row_line = pg.InfiniteLine(angle=0, movable=False, pen=pg.mkPen((255, 64, 64), width=1,
                                                                             style=Qt.PenStyle.DashLine))
        self.row_line.setZValue(2)
        self.row_line.setVisible(False)
        self.plot.addItem(self.row_line)
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
        self.readout.setTextFormat(Qt.TextFormat.PlainText)
        self.readout.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        # Two lines whatever the text: a caption that changed its line count (or asked its layout for room) per
        # stage would resize the plot below it, and a resize repaints and re-ranges everything in it.
        self.caption = SteadyText(lines=2, margin=2)

        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(self.controls)
        layout.addWidget(self.caption)
        layout.addWidget(self.graphics, 1)
        layout.addWidget(self.readout)

        ctl.shown.model.stage_changed.connect(self._stage_changed)
        ctl.shown.model.slice_changed.connect(self.show_slice)
        ctl.row_picked.connect(self._show_picked_row)
        self.retranslate_ui()
        self.show_slice(None)  # before the first pass: a caption, no made-up axes

    def hover_hint(self) -> str:
        return self.tr(HOVER_HINT)

    def retranslate_ui(self) -> None:
        self.readout.setText(self.hover_hint())
        self.menu.setTitle(self.tr("Heatmap"))
        self.scale_button.setText(self.tr("Scale"))
        self.scale_button.setToolTip(self.tr("How values map to colours: linear (default), log, per row"))
        self.log_action.setText(self.tr("Log scale"))
        self.log_action.setToolTip(self.tr("Colour by the logarithm of the values: small weights stay "
                                           "distinguishable beside a large one"))
        self.per_row_action.setText(self.tr("Per-row scale"))
        self.per_row_action.setToolTip(self.tr("Scale each row to its own largest value over every column: "
                                               "each query's strongest key is the top colour"))

    def changeEvent(self, event) -> None:
        if event.type() == QEvent.Type.LanguageChange:
            self.retranslate_ui()
            if self.ctl.current is not None:  # axis names, captions and tick titles again
                self._stage_changed()
                self._axes_key = None
                self.show_slice(self.slice)
            else:
                self.show_slice(None)
        super().changeEvent(event)

    # ----- controls ----------------------------------------------------------------------
    @property
    def spin_boxes(self) -> dict:
        """The index box of every axis not shown, by axis name."""
        return self.controls.spin_boxes

    def _stage_changed(self) -> None:
        self.readout.setText(self.hover_hint())  # a value read at the previous stage is not this stage's
        self.controls.stage_changed()

    def _axes_chosen(self) -> None:
        self.controls.axes_chosen()

    # ----- drawing -----------------------------------------------------------------------
    def show_slice(self, sl: DisplaySlice | None) -> None:
        """Draw a DisplaySlice (None clears the view); a zoomed view keeps its cells and reads them again."""
        self.slice = sl
        capture = self.ctl.current
        if sl is None or capture is None:
            self.view.clear()
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
        cmap, levels, _ = colors.scheme(capture.info.kind, sl.stats)
        name = cmap.name if hasattr(cmap, "name") else str(cmap)
        if name != self._scheme_name:
            self.histogram.show_colormap(cmap)  # the map is fixed; its stops are not for editing
            self._scheme_name = name
        self.histogram.set_histogram(sl.stats.hist_edges, sl.stats.hist_counts)
        self._levels = levels
        self._check_log(capture.info.kind)
        self.view.set_scale(self._applied_scale(), redraw=False)  # a signed stage: linear whatever is chosen
        self._show_levels()
        self._label_axes(sl)  # before the zoom: the axes' cells follow the view's range
        self.view.show(sl, levels, self.ctl.shown.indexed_image(sl, levels))
        self._show_picked_row()
        self._caption()
        # Relayouts the new stage asked for (axis titles, the axis controls' boxes, the caption) before the
        # paint: done after it, they would resize the plot and paint the heatmap a second time.
        QCoreApplication.sendPostedEvents(None, QEvent.Type.LayoutRequest)
        # Paint the new image now, before the other panels' updates queue up behind it: the heatmap is what the
        # user is waiting for.
        paint_now(self.graphics)

    def _caption(self) -> None:
        """Stage, size, colour map, masked cells, and what the zoom and the colour scale show."""
        sl, capture = self.slice, self.ctl.current
        rows, cols = sl.source_shape
        signed = self._levels is not None and self._levels[0] < 0
        scale = self.tr("diverging colour map centred on 0") if signed else self.tr("sequential colour map")
        tile = self.view.tile
        if tile is not None:
            (r0, r1), (c0, c1) = tile.rows, tile.cols
            down = self.tr(" · rows {r0}–{r1} × columns {c0}–{c1}").format(r0=r0, r1=r1 - 1, c0=c0, c1=c1 - 1) + (
                self.tr(", every cell") if tile.exact else self.tr(", averaged to {rows}×{cols}").format(
                    rows=tile.values.shape[0], cols=tile.values.shape[1]))
        else:
            down = self.tr(", downsampled to {rows}×{cols}").format(rows=sl.values.shape[0],
                                                                   cols=sl.values.shape[1]) if sl.downsampled else ""
        if self.view.scale.log:
            scale += self.tr(", log scale from {low}").format(low=f"{self.view.scale.describe_floor(self._levels):.0e}")
        elif self.log_action.isChecked():
            scale += self.tr(", linear: the log scale applies to non-negative stages only")
        if self.view.scale.per_row:
            scale += self.tr(", each row scaled to its maximum")
        # Masked cells: −∞ in the reference model, finfo.min in transformers' masks (display_slice makes both −∞).
        masked = self.tr(" · {n} masked cells (−∞ or ≤ finfo.min/2) in grey").format(n=sl.stats.neginf) \
            if sl.stats.neginf else ""
        window = self._window(capture)
        if masked and window is not None:
            masked += self.tr(" · sliding window of {window} keys").format(window=window)
        self.caption.setText(f"{capture.name} · {rows}×{cols}{down} · {scale}{masked}")

    def _levels_dragged(self) -> None:
        """The user moved the colour bar's levels: re-quantise the shown slice and tile between them."""
        levels = tuple(float(v) for v in self.histogram.getLevels())
        if self.histogram.decades is not None:  # a log scale's bar spans powers of ten: its top decade moved
            levels = (self._levels[0], self.histogram.dragged_top()) if self._levels else levels
        if self.slice is not None and levels != self._levels:
            self._levels = levels
            self.view.set_levels(levels)
            self._show_levels()

    def shown_levels(self) -> tuple[float, float] | None:
        """The data values the colour scale spans (its low and high ends)."""
        return self._levels

    # ----- colour scale, picked row -------------------------------------------------------
    @property
    def tile(self) -> Tile | None:
        """The zoomed view's tile drawn over the slice, or None (at Fit, or not read yet)."""
        return self.view.tile

    @property
    def scale(self) -> colors.ColourScale:
        return self.view.scale

    def set_scale(self, log_kinds, per_row: bool) -> None:
        """Colour the stage kinds `log_kinds` by a log scale, and every stage by per-row normalisation or not (the
        View menu's and buttons' options)."""
        self.ctl.set_log_kinds(log_kinds)
        self.per_row_action.setChecked(per_row)  # lands in _scale_toggled
        current = self.ctl.current
        self._check_log(current.info.kind if current is not None else None)

    def _check_log(self, kind: str | None) -> None:
        """Log scale's tick as chosen for the stage kind shown (not a toggle: nothing else changes)."""
        self.log_action.blockSignals(True)
        self.log_action.setChecked(kind is not None and self.ctl.log_scale_for(kind))
        self.log_action.blockSignals(False)

    def _log_toggled(self, on: bool) -> None:
        """Scale ▸ Log scale ticked or not: for the kind of the stage shown (every view colours by it)."""
        current = self.ctl.current
        if current is not None:
            kind = current.info.kind
            self.ctl.set_log_kinds(self.ctl.log_kinds | {kind} if on else self.ctl.log_kinds - {kind})

    def _applied_scale(self) -> colors.ColourScale:
        """The scale chosen, as it applies to the shown stage (the log scale to non-negative stages only)."""
        signed = self._levels is not None and self._levels[0] < 0
        return colors.ColourScale(log=self.log_action.isChecked() and colors.applies_log(signed),
                                  per_row=self.per_row_action.isChecked())

    def _show_levels(self) -> None:
        """The colour bar in the scale shown: the levels, or a log scale's decades."""
        if self._levels is not None:
            scale = self.view.scale
            self.histogram.show_levels(self._levels, scale.log_decades(self._levels) if scale.log else None)

    def _scale_toggled(self) -> None:
        self.view.set_scale(self._applied_scale())
        self._show_levels()
        if self.slice is not None:
            self._caption()  # a signed stage says why it stays linear

    def _show_picked_row(self) -> None:
        """The query the Query Row view plots, marked by a line across its row."""
        row = self.ctl.tiles.picked_row
        shown = self.slice is not None and row is not None and row < self.slice.source_shape[0]
        if shown:
            self.row_line.setPos(row + 0.5)
        self.row_line.setVisible(shown)

    def _clicked(self, event) -> None:
        if event.button() != Qt.MouseButton.LeftButton:
            return
        cell = self.cell_at(QPointF(event.scenePos()))
        if cell is not None:
            self.ctl.tiles.pick_row(cell[0])

    def _window(self, capture) -> int | None:
        """The sliding window a mask stage (or the mask a softmax read) hides keys outside of, or None."""
        window = window_size(capture.info.formula)
        if window is None and capture.info.kind == "softmax":
            sources = (self.ctl.plan.find(name) for name in capture.info.inputs)
            window = next((window_size(c.info.formula) for c in sources if c is not None and c.info.kind == "mask"),
                          None)
        return window

    def _label_axes(self, sl: DisplaySlice) -> None:
        names = self.ctl.axes.names()
        row_name = names[sl.row_axis] if 0 <= sl.row_axis < len(names) else ""
        col_name = names[sl.col_axis] if 0 <= sl.col_axis < len(names) else ""
        self._row_labels = self.ctl.axes.labels(sl.row_axis) if sl.row_axis >= 0 else None
        self._col_labels = self.ctl.axes.labels(sl.col_axis)
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
        sl, tile = self.slice, self.view.tile
        if tile is not None and tile.contains(row, col):  # the zoomed view's cells
            value, exact = tile.value_at(row, col), tile.exact
        else:
            h, w = sl.values.shape
            value, exact = float(sl.values[row * h // sl.source_shape[0], col * w // sl.source_shape[1]]), \
                not sl.downsampled
        names = self.ctl.axes.names()

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
            return float(region(current.tensor, sl.row_axis, sl.col_axis, self.ctl.axes.indices(), (row, row + 1),
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
