"""Heads panel: every head of an attention stage as small multiples; clicking one shows it."""

from __future__ import annotations

import dataclasses

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QRectF, QTimer
from PySide6.QtWidgets import QLabel, QVBoxLayout, QWidget

from tfdebug.ui import colors
from tfdebug.ui.controller import DebugController

THUMB = (48, 48)
SELECTED_PEN = pg.mkPen((255, 140, 0), width=3)
PLAIN_PEN = pg.mkPen((160, 160, 160), width=1)


class HeadsPanel(QWidget):
    """One thumbnail per head, same axes and colour levels as the heatmap, in a grid."""

    def __init__(self, ctl: DebugController, parent: QWidget | None = None):
        super().__init__(parent)
        self.ctl = ctl
        self.note = QLabel("")
        self.graphics = pg.GraphicsLayoutWidget()
        self.graphics.scene().sigMouseClicked.connect(self._clicked)
        self.views: list[pg.ViewBox] = []
        self.images: list[pg.ImageItem] = []
        self._dirty = True
        # Redrawn after the heatmap has painted: thumbnails cost one slice per head.
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(0)
        self._timer.timeout.connect(self.refresh)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(self.note)
        layout.addWidget(self.graphics, 1)
        ctl.slice_changed.connect(self._changed)

    def _changed(self, _slice=None) -> None:
        self._dirty = True
        if self.isVisible():
            self._timer.start()

    def showEvent(self, event) -> None:
        super().showEvent(event)
        if self._dirty:
            self.refresh()

    def head_axis(self) -> int | None:
        names = self.ctl.axis_names()
        if "head" not in names:
            return None
        axis = names.index("head")
        return None if axis in (self.ctl.view.row_axis, self.ctl.view.col_axis) else axis

    def refresh(self) -> None:
        """Redraw every head of the current stage (or say why there are none)."""
        self._dirty = False
        capture = self.ctl.current
        axis = self.head_axis() if capture is not None and capture.tensor is not None else None
        if axis is None:
            self._clear()
            self.note.setText("This stage has no head axis." if capture is not None else "Nothing to show yet.")
            return
        n = capture.shape[axis]
        slices = [self.ctl.slice_of(capture, {"head": h}, THUMB) for h in range(n)]
        if len(self.views) != n:
            self._build(n)
        lo = min((s.stats.min for s in slices if s.stats.min == s.stats.min), default=0.0)
        hi = max((s.stats.max for s in slices if s.stats.max == s.stats.max), default=1.0)
        probe = dataclasses.replace(slices[0].stats, min=lo, max=hi)
        cmap, levels, _ = colors.scheme(capture.info.kind, probe)
        lut = cmap.getLookupTable(nPts=colors.LUT_SIZE)
        selected = self.ctl.indices(capture).get(axis, 0)
        for h, (sl, view, image) in enumerate(zip(slices, self.views, self.images)):
            data, overlay = colors.split_nonfinite(sl.values, levels[0])
            if overlay is not None:
                # Thumbnails are small: paint the special cells straight into an RGBA copy.
                span = (levels[1] - levels[0]) or 1.0
                idx = np.clip((data - levels[0]) / span * (len(lut) - 1), 0, len(lut) - 1).astype(np.intp)
                rgba = np.empty(data.shape + (4,), dtype=np.uint8)
                rgba[..., :3] = lut[idx][..., :3]
                rgba[..., 3] = 255
                special = overlay[..., 3] > 0
                rgba[special] = overlay[special]
                image.setImage(rgba, autoLevels=False)
            else:
                image.setImage(data, lut=lut, levels=levels, autoLevels=False)
            image.setRect(QRectF(0, 0, sl.source_shape[1], sl.source_shape[0]))
            view.setBorder(SELECTED_PEN if h == selected else PLAIN_PEN)
            view.autoRange(padding=0)
        self.note.setText(f"{n} heads of {capture.name} · click a head to show it in the heatmap")

    def _clear(self) -> None:
        self.graphics.clear()
        self.views, self.images = [], []

    def _build(self, n: int) -> None:
        self._clear()
        per_row = 4 if n <= 8 else 8
        for h in range(n):
            row, col = divmod(h, per_row)
            self.graphics.addLabel(f"head {h}", row=2 * row, col=col, size="8pt")
            view = self.graphics.addViewBox(row=2 * row + 1, col=col, lockAspect=False, enableMouse=False)
            view.invertY(True)
            image = pg.ImageItem(axisOrder="row-major")
            view.addItem(image)
            self.views.append(view)
            self.images.append(image)

    def _clicked(self, event) -> None:
        for h, view in enumerate(self.views):
            if view.sceneBoundingRect().contains(event.scenePos()):
                self.select(h)
                return

    def select(self, head: int) -> None:
        """Show head `head` in the heatmap (and every panel)."""
        self.ctl.set_index("head", head)
