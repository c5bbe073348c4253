"""The heatmap's axes and colour bar: tick labels for token and index axes, axes whose
labels never overwrite each other, and the histogram beside the image, drawn from core's
stats with a cached 256-entry LUT. (Also used by the compare, cache and overview views.)"""

from __future__ import annotations

import bisect
import html
import unicodedata

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QPointF

from tfdebug.ui.render import colors

MAX_WORD_TICKS = 4096   # beyond this many words only the major labels are set (pyqtgraph walks every tick)
MAX_INDEX_TICKS = 16


def tick_step(n: int) -> int:
    """Every how many positions a label goes so that at most MAX_INDEX_TICKS show: 1, 2, 5, 10, 20, 50, …"""
    step = 1
    while n / step > MAX_INDEX_TICKS:
        step = step * 5 // 2 if str(step)[0] == "2" else step * 2
    return step


def index_ticks(n: int) -> list[tuple[float, str]]:
    """Integer ticks at cell centres for an axis of `n` positions."""
    return [(i + 0.5, str(i)) for i in range(0, n, tick_step(n))]


def label_ticks(labels: list[str]) -> list[list[tuple[float, str]]]:
    """Tick levels for labelled cells: every `tick_step`-th label, then the rest (pyqtgraph draws
    a level's text only where it fits, so zooming in reveals every word)."""
    step = tick_step(len(labels))
    major = [(i + 0.5, label) for i, label in enumerate(labels) if i % step == 0]
    minor = [(i + 0.5, label) for i, label in enumerate(labels) if i % step]
    return [major, minor] if minor and len(labels) <= MAX_WORD_TICKS else [major]


class NonOverlappingAxis(pg.AxisItem):
    """An axis whose tick labels never overwrite each other: a label that would overlap one
    already placed is left out (pyqtgraph places a level's labels left to right, the major
    level first, so word labels in a narrow heatmap or layer titles that start a few stages
    apart stay readable). Hovering still names every cell or stage."""

    def generateDrawSpecs(self, p):
        specs = super().generateDrawSpecs(p)
        if specs is None:
            return specs
        axis, ticks, texts = specs
        along = 0 if self.orientation in ("top", "bottom") else 1  # labels sit side by side along the axis
        taken: list[tuple[float, float]] = []  # sorted, disjoint spans along the axis of the labels placed
        placed = []
        for spec in texts:
            rect = spec[0]
            lo, hi = (rect.left(), rect.right()) if along == 0 else (rect.top(), rect.bottom())
            i = bisect.bisect_left(taken, (lo, hi))
            if (i > 0 and taken[i - 1][1] > lo) or (i < len(taken) and taken[i][0] < hi):
                continue  # overlaps the label before or after it
            taken.insert(i, (lo, hi))
            placed.append(spec)
        return axis, ticks, placed


    # ----- the axis title ---------------------------------------------------------------------
    _upright = False

    def set_title(self, text: str) -> None:
        """Show `text` as the axis title (plain text). On a vertical axis a title of wide characters
        (查询) stands upright, one character under the other: turned on its side it reads badly."""
        vertical = self.orientation in ("left", "right")
        self._upright = vertical and bool(text) and all(unicodedata.east_asian_width(c) in "WF" for c in text)
        self.label.setRotation(0 if self._upright or not vertical else -90)
        self.setLabel("<br>".join(html.escape(c) for c in text) if self._upright else html.escape(text))
        self.showLabel(bool(text))

    def resizeEvent(self, ev=None):
        super().resizeEvent(ev)
        if self._upright and self.label is not None:  # pyqtgraph places a turned label: centre the upright one
            box = self.label.boundingRect()
            x = -5 if self.orientation == "left" else self.size().width() - box.width() + 5
            self.label.setPos(QPointF(x, int(self.size().height() / 2 - box.height() / 2)))

    def _updateWidth(self):
        super()._updateWidth()
        if self._upright and self.fixedWidth is None and self.label.isVisible():
            box = self.label.boundingRect()  # pyqtgraph counted a turned label's height: count its width
            width = self.maximumWidth() - box.height() * 0.8 + box.width() * 0.8
            self.setMaximumWidth(width)
            self.setMinimumWidth(width)


class HistogramLUT(pg.HistogramLUTItem):
    """HistogramLUTItem with a 256-entry LUT whose histogram comes from core's stats."""

    def __init__(self):
        self._counts: tuple[np.ndarray, np.ndarray] | None = None
        self._luts: dict[tuple, np.ndarray] = {}
        super().__init__(orientation="vertical")

    def set_histogram(self, edges: np.ndarray, counts: np.ndarray) -> None:
        self._counts = ((edges[:-1] + edges[1:]) / 2, counts.astype(float)) if len(counts) else None
        if self._counts is not None:
            self.plot.setData(*self._counts)

    def show_colormap(self, cmap: pg.ColorMap) -> None:
        """Show `cmap` in the gradient, its stops not editable. Maps with as many stops as the one
        shown recolour its tick items in place: pyqtgraph's setColorMap removes and creates one
        item per stop, and stages alternate between two maps (~20 ms a switch under load)."""
        gradient = self.gradient
        ticks = gradient.listTicks()
        if len(ticks) != len(cmap.pos):
            gradient.setColorMap(cmap)
            gradient.showTicks(False)
            return
        blocked = gradient.blockSignals(True)
        for (tick, _), x, colour in zip(ticks, cmap.pos, cmap.getColors(mode="qcolor")):
            tick.color = colour
            gradient.ticks[tick] = float(x)
            tick.setPos(float(x) * gradient.length, tick.pos().y())
        gradient.blockSignals(blocked)
        gradient.sigTicksChanged.emit(gradient)  # as setColorMap ends: the gradient and the LUT follow
        gradient.sigGradientChangeFinished.emit(gradient)

    def getLookupTable(self, img=None, n=None, alpha=None):
        if self.lut is None:
            # Rebuilding a 256-entry table from the gradient costs ~6 ms (4,096 colour lookups):
            # stages alternate between two schemes, so keep each scheme's table.
            positions, stop_colours = self.gradient.colorMap().getStops()
            key = (np.asarray(positions).tobytes(), np.asarray(stop_colours).tobytes(), alpha)
            cached = self._luts.get(key)
            self.lut = cached if cached is not None else self._luts.setdefault(
                key, super().getLookupTable(img, n=colors.LUT_SIZE, alpha=alpha))
        return self.lut
