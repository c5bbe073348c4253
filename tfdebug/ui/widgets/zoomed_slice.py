"""The heatmap's picture: the whole slice, and over it the zoomed view's tile read at screen resolution.

The whole slice (at most 1024², from the controller) is drawn once per stage. When the view is
zoomed or panned into a slice larger than that image, `ZoomView` says so once the view settles,
and the visible cells are read as a tile (`TileReads.request_tile`, on the display worker,
indexing only that region of the stage's tensor) at the view's resolution and drawn over the
slice: the real cells when they are fewer than the pixels, else block averages of the cells in
view. A tile for a view or stage no longer shown is dropped. Both images share the colour levels
(the whole slice's) and the colour scale, so colours keep their meaning while zooming.
"""

from __future__ import annotations

from typing import Callable

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QObject, QRectF, Signal

from tfdebug.core.display import DisplaySlice
from tfdebug.core.tiles import Tile
from tfdebug.ui.render import colors
from tfdebug.ui.widgets.scaled_image import ScaledImage
from tfdebug.ui.widgets.zoom import ZoomView


class ZoomedSlice(QObject):
    """The slice and its tile in `plot` (of `graphics`), zoomed by `zoom`; `lut()` gives the colour table."""

    changed = Signal()  # a tile arrived or went, or the scale changed: the caption says what shows

    def __init__(self, ctl, graphics: pg.GraphicsView, plot: pg.PlotItem, lut: Callable[[], np.ndarray],
                 parent: QObject | None = None):
        super().__init__(parent)
        self.ctl, self.lut = ctl, lut
        self.base = ScaledImage(plot, z=0)      # the whole slice
        self.detail = ScaledImage(plot, z=0.5)  # the zoomed view's tile, over it
        self.zoom = ZoomView(graphics, plot, self)
        self.zoom.settled.connect(self.read_view)
        self.slice: DisplaySlice | None = None
        self.levels: tuple[float, float] | None = None
        self.scale = colors.ColourScale()
        self.tile: Tile | None = None
        self._asked: tuple | None = None  # what the last tile request was for (a result for another is stale)

    def show(self, sl: DisplaySlice, levels: tuple[float, float], indexed: np.ndarray | None = None) -> None:
        """Draw `sl` between `levels` (`indexed`: its LUT indices when the worker made them); a view zoomed
        into a slice of the same size keeps its cells and reads them again from this one."""
        self.slice, self.levels = sl, levels
        self._drop_tile()
        rows, cols = sl.source_shape
        self.base.draw(sl.values, QRectF(0, 0, cols, rows), self.lut(), levels, self.scale, indexed=indexed)
        if not self.zoom.set_shape(rows, cols):
            self.read_view()

    def clear(self) -> None:
        self.slice = None
        self._drop_tile()
        self.base.clear()

    def set_levels(self, levels: tuple[float, float]) -> None:
        """Colour between other levels (the colour bar was dragged)."""
        self.levels = levels
        self._redraw()

    def set_scale(self, scale: colors.ColourScale, redraw: bool = True) -> None:
        """Colour under `scale`; turning per-row normalisation on or off reads the tile again (its rows' maxima).
        `redraw=False`: only remember it (a new slice is about to be drawn under it)."""
        if scale == self.scale:
            return
        per_row_changed = scale.per_row != self.scale.per_row
        self.scale = scale
        if self.slice is None or not redraw:
            if per_row_changed:
                self.base.row_max = None
            return
        if per_row_changed:
            self.base.row_max = None  # the slice spans every column: its own rows' maxima
        self._redraw()
        if per_row_changed and self.tile is not None:
            self._drop_tile()
            self.read_view()
        self.changed.emit()

    def _redraw(self) -> None:
        for layer in (self.base, self.detail):
            layer.redraw(self.lut(), self.levels, self.scale)

    def _drop_tile(self) -> None:
        self.tile, self._asked = None, None
        self.detail.clear()

    def read_view(self) -> None:
        """Ask for the visible cells at the view's resolution when the slice's image is coarser than that;
        at Fit (or a slice drawn cell for cell) the slice alone shows."""
        sl = self.slice
        if sl is None or self.zoom.shape != sl.source_shape:
            return
        rows, cols = self.zoom.visible()
        if not sl.downsampled or self.zoom.is_fit():
            if self.tile is not None:
                self._drop_tile()
                self.changed.emit()
            return
        height, width = self.zoom.pixels()
        max_size = (min(rows[1] - rows[0], height), min(cols[1] - cols[0], width))
        asked = (sl, rows, cols, max_size, self.scale.per_row)
        tile = self.tile
        if asked == self._asked or (tile is not None and (sl, tile.rows, tile.cols, tile.values.shape,
                                                          tile.row_max is not None) == asked):
            return
        self._asked = asked
        self.ctl.tiles.request_tile(rows, cols, max_size, self.scale.per_row, lambda t: self._arrived(asked, t))

    def _arrived(self, asked: tuple, tile: Tile) -> None:
        if asked is not self._asked or self.slice is not asked[0]:
            return  # the view or the stage moved on: a newer tile is coming
        self.tile = tile
        (r0, r1), (c0, c1) = tile.rows, tile.cols
        self.detail.draw(tile.values, QRectF(c0, r0, c1 - c0, r1 - r0), self.lut(), self.levels, self.scale,
                         tile.row_max)
        self.changed.emit()
