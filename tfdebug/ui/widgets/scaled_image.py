"""Cells drawn through a colour scale: an indexed image and the overlay of its non-finite cells.

The image item receives uint8 LUT indices (pyqtgraph wraps them in an indexed QImage without
converting a pixel), levels (0, 255) and the 256-entry LUT; masked (−∞), NaN and +∞ cells are
painted over by an RGBA overlay in colours of their own, under every colour scale. The heatmap
draws its whole slice with one and the zoomed tile on top of it with another.

The indexed picture is turned into 32-bit pixels once, when the item renders it (`PixelImage`): Qt's raster
painter converts an indexed QImage at every drawImage, the whole 1024² slice each time the view paints (about
5 ms a paint on the 2-core machine, against about 1 ms for the same picture in 32-bit pixels and 0.5 ms to
convert it once).
"""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QRectF
from PySide6.QtGui import QImage

from tfdebug.ui.render import colors


def row_maxima(values: np.ndarray) -> np.ndarray:
    """Each row's largest finite |value| (0 where none): per-row normalisation of cells that span every column."""
    return np.where(np.isfinite(values), np.abs(values), np.float32(0)).max(axis=1).astype(np.float32)


class PixelImage(pg.ImageItem):
    """An image item whose indexed picture (LUT indices and a colour table) is converted to 32-bit pixels once per
    render, not by the painter at every paint; other pictures are drawn as pyqtgraph made them."""

    def render(self):
        super().render()
        picture = self.qimage
        if picture is not None and picture.format() == QImage.Format.Format_Indexed8:
            self.qimage = picture.convertToFormat(QImage.Format.Format_ARGB32_Premultiplied if picture.hasAlphaChannel()
                                                  else QImage.Format.Format_RGB32)


class ScaledImage:
    """Two image items in `plot` (at `z` and just above it) showing float32 cells in a rectangle."""

    def __init__(self, plot: pg.PlotItem, z: float = 0.0):
        self.image = PixelImage(axisOrder="row-major")
        self.overlay = pg.ImageItem(axisOrder="row-major")
        self.image.setZValue(z)
        self.overlay.setZValue(z + 0.1)
        plot.addItem(self.image)
        plot.addItem(self.overlay)
        self.values: np.ndarray | None = None
        self.rect = QRectF()
        self.row_max: np.ndarray | None = None

    def draw(self, values: np.ndarray, rect: QRectF, lut: np.ndarray, levels: tuple[float, float],
             scale: colors.ColourScale, row_max: np.ndarray | None = None, indexed: np.ndarray | None = None) -> None:
        """Show `values` in `rect` (plot coordinates) through `lut` between `levels` under `scale`.

        `row_max`: what per-row normalisation divides each row by (default: the row's own maximum,
        right when the cells span every column). `indexed`: LUT indices already computed for this
        linear scale (the display worker's), used as they are."""
        self.values, self.rect = values, QRectF(rect)
        self.row_max = row_max if row_max is not None or not scale.per_row else row_maxima(values)
        data, overlay = colors.split_nonfinite(values, levels[0])
        if indexed is None or scale != colors.ColourScale():
            indexed = scale.indices(data, levels, self.row_max)
        self.image.setImage(indexed, levels=(0, colors.LUT_SIZE - 1), lut=lut, autoLevels=False)
        self.image.setRect(self.rect)
        self.image.setVisible(True)
        if overlay is None:
            self.overlay.setVisible(False)
        else:
            self.overlay.setImage(overlay, autoLevels=False, levels=(0, 255))
            self.overlay.setRect(self.rect)
            self.overlay.setVisible(True)

    def redraw(self, lut: np.ndarray, levels: tuple[float, float], scale: colors.ColourScale) -> None:
        """Draw the same cells again (the levels were dragged, or the scale changed)."""
        if self.values is not None:
            row_max = self.row_max if scale.per_row and self.row_max is not None else None
            self.draw(self.values, self.rect, lut, levels, scale, row_max)

    def clear(self) -> None:
        """Show nothing."""
        self.values, self.row_max = None, None
        self.image.clear()
        self.image.setVisible(False)
        self.overlay.setVisible(False)
