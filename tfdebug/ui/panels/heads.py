"""Heads panel: every head of an attention stage as small multiples; clicking one shows it."""

from __future__ import annotations

import pyqtgraph as pg
from PySide6.QtCore import QEvent, QRectF, Qt, QTimer, Signal
from PySide6.QtWidgets import QHBoxLayout, QVBoxLayout, QWidget

from tfdebug.core.thumbnails import HeadThumbnails
from tfdebug.sessions.display_cache import HEAD_THUMB, head_axis_of
from tfdebug.ui.render import colors
from tfdebug.ui.render.plot_paint import paint_with_step
from tfdebug.ui.state.controller import DebugController
from tfdebug.ui.widgets.colour_bar import ColourBar
from tfdebug.ui.widgets.prediction import PredictionView
from tfdebug.ui.widgets.steady_text import SteadyText

SELECTED_PEN = pg.mkPen((255, 140, 0), width=3)
NO_PEN = pg.mkPen(None)


class HeadsPanel(QWidget):
    """One thumbnail per head, same axes and colour levels as the heatmap, in a grid."""

    content_changed = Signal()  # the thumbnails or the note replaced them: the dock's room may change

    def __init__(self, ctl: DebugController, parent: QWidget | None = None):
        super().__init__(parent)
        self.ctl = ctl
        self.note = SteadyText(lines=2)  # it names the stage: plain text; two lines whatever it says
        self.colour_bar = ColourBar()
        self.levels: tuple[float, float] = (0.0, 1.0)
        self.graphics = pg.GraphicsLayoutWidget()
        self.graphics.scene().sigMouseClicked.connect(self._clicked)
        self.views: list[pg.ViewBox] = []      # the thumbnails shown now (none while hidden)
        self.images: list[pg.ImageItem] = []
        # The grid last built, kept while hidden: rebuilding 8 views costs ~20 ms on the GUI thread.
        self._grid: tuple[list[pg.ViewBox], list[pg.ImageItem]] = ([], [])
        self._placed: tuple | None = None  # the grid's thumbnails' extent, pixel shapes and outlined head
        self._dirty = True
        self._shown = None  # the stage whose thumbnails are drawn
        # Redrawn after the heatmap has painted: thumbnails cost one slice per head.
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(0)
        self._timer.timeout.connect(self.refresh)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        top = QHBoxLayout()
        top.addWidget(self.note, 1)
        top.addWidget(self.colour_bar)
        layout.addLayout(top)
        # At the logits there are no heads: the dock shows the next-token prediction instead.
        self.prediction = PredictionView(ctl)
        layout.addWidget(self.prediction)
        layout.addWidget(self.graphics, 1)
        layout.addStretch(0)
        ctl.shown.model.followed.connect(self._followed)
        ctl.colour_scale_changed.connect(self._changed)  # Scale ▸ Log scale: drawn again under it

    def changeEvent(self, event) -> None:
        if event.type() == QEvent.Type.LanguageChange:
            self._build(0)  # the "head h" labels are built with the thumbnails
            self._clear()
            self._changed()
        super().changeEvent(event)

    def settled(self) -> bool:
        """Whether the panel shows the current stage (no redraw pending or waiting for thumbnails)."""
        return not self._timer.isActive() and not self._dirty

    def _followed(self, event) -> None:
        # Already a turn after the heatmap's paint: drawn in this turn, with the other panels (one paint).
        if event.new_slice:
            self._dirty = True
            if self.isVisible():
                self.refresh()

    def _changed(self) -> None:
        self._dirty = True
        if self.isVisible():
            self._timer.start()

    def showEvent(self, event) -> None:
        super().showEvent(event)
        if self._dirty:
            self.refresh()

    def head_axis(self) -> int | None:
        return head_axis_of(tuple(self.ctl.axes.names()), self.ctl.view.row_axis, self.ctl.view.col_axis)

    def refresh(self) -> None:
        """Redraw every head of the current stage (or say in a short note why there are none).

        Thumbnails are computed on the display worker: the panel stays dirty until they are drawn.
        """
        capture = self.ctl.current
        shown = capture is not None and self.ctl.shown.ready(capture)
        axis = self.head_axis() if shown else None
        # A stage of any size: each head is read on a strided grid by its own indexing (core.thumbnails).
        if axis is None:
            self.ctl.display.cancel("heads")  # thumbnails asked for before (other axes) must not land now
            self._dirty = False
            self._clear()
            self.note.setText(self._why_no_thumbnails())
            # No black box: the dock keeps only the note until a stage has heads to show.
            self.graphics.setVisible(False)
            self.colour_bar.setVisible(False)
            self.content_changed.emit()
            return
        # Every head in one job on the display worker (one transfer from the device), drawn when it arrives;
        # until then the note says so (a long pass's planes take a while), not what the last stage had.
        if self._shown is not capture:
            self.note.setText(self.tr("Drawing the heads of {stage}…").format(stage=capture.name))
        self.ctl.shown.request_heads(capture, axis, HEAD_THUMB, lambda thumbs: self._draw(capture, axis, thumbs))

    def _draw(self, capture, axis: int, thumbs: HeadThumbnails) -> None:
        self._shown = capture
        n = len(thumbs.values)
        if len(self._grid[0]) != n:
            self._build(n)
        self.views, self.images = self._grid
        lut, levels = colors.thumbnail_scale(capture.info.kind, thumbs.mins, thumbs.maxs)
        self.levels = levels
        # Scale ▸ Log scale, as the heatmap colours: a non-negative stage by its decades, a signed one linear.
        scale = colors.ColourScale(log=self.ctl.log_scale_for(capture.info.kind) and colors.applies_log(levels[0] < 0))
        selected = self.ctl.axes.indices(capture).get(axis, 0)
        rows, cols = thumbs.source_shape
        # The thumbnails' extent and outline as drawn last are kept: a view given its range again recomputes its
        # matrices and tells its items, for nothing when the stage before had the same planes and head picked.
        placed = ((rows, cols), tuple(v.shape[:2] for v in thumbs.values), selected)
        for h, (values, view, image) in enumerate(zip(thumbs.values, self.views, self.images)):
            # Always an explicit RGBA image: levels or a LUT left over from a previous stage
            # would otherwise repaint it (masked stages came out blank white).
            image.setImage(colors.to_rgba(values, lut, levels, scale), lut=None, levels=None, autoLevels=False)
            if placed != self._placed:
                image.setRect(QRectF(0, 0, cols, rows))
                view.setBorder(SELECTED_PEN if h == selected else NO_PEN)
                view.setRange(QRectF(0, 0, cols, rows), padding=0)  # the image's extent: cheaper than autoRange
        self._placed = placed
        self.colour_bar.set_scale(lut, levels, scale.log_decades(levels) if scale.log else None)
        self.graphics.setVisible(True)
        self.colour_bar.setVisible(True)
        paint_with_step(self.graphics)  # with the step's other panels, in one window paint
        self.note.setText(self.tr("{n} heads of {stage}, one colour scale · click a head to show it").format(
            n=n, stage=capture.name))
        self._dirty = False
        self.content_changed.emit()

    def _why_no_thumbnails(self) -> str:
        capture = self.ctl.current
        if capture is None:
            return self.tr("Nothing to show yet.")
        names = self.ctl.axes.names()
        if self.prediction.on_gradient():
            return self.tr("{stage} here is a gradient of the loss, not logits: it has no next-token reading.").format(
                stage=capture.name)
        if self.prediction.applies():
            return self.tr("{stage} has no heads; the most probable next tokens:").format(stage=capture.name)
        if "head" in names:
            if names.index("head") == self.ctl.view.row_axis:
                return self.tr("The heatmap shows the head axis as its rows, so every head is there; "
                               "choose other axes to see each head here.")
            return self.tr("The heatmap shows the head axis as its columns, so every head is there; "
                           "choose other axes to see each head here.")
        return self.tr("This stage has no head axis.")

    def outlined(self) -> list[int]:
        """The heads drawn with the selection outline (one, or none without thumbnails)."""
        return [h for h, view in enumerate(self.views) if view.border.style() != Qt.PenStyle.NoPen]

    def _clear(self) -> None:
        """No thumbnails shown (the grid stays built for the next stage with as many heads)."""
        self.views, self.images = [], []
        self._shown = None

    def _build(self, n: int) -> None:
        self.graphics.clear()
        views, images = [], []
        per_row = 4 if n <= 8 else 8
        for h in range(n):
            row, col = divmod(h, per_row)
            self.graphics.addLabel(self.tr("head {h}").format(h=h), row=2 * row, col=col, size="8pt")
            view = self.graphics.addViewBox(row=2 * row + 1, col=col, lockAspect=False, enableMouse=False,
                                            enableMenu=False)  # its context menu alone costs ~10 ms a head
            view.invertY(True)
            image = pg.ImageItem(axisOrder="row-major")
            view.addItem(image)
            views.append(view)
            images.append(image)
        self._grid = (views, images)
        self._placed = None  # new views: placed anew

    def _clicked(self, event) -> None:
        for h, view in enumerate(self.views):
            if view.sceneBoundingRect().contains(event.scenePos()):
                self.select(h)
                return

    def select(self, head: int) -> None:
        """Show head `head` in the heatmap (and every panel)."""
        self.ctl.axes.set_index("head", head)
