"""The heatmap's axes and colour bar: tick labels for token and index axes, axes whose
labels never overwrite each other, and the histogram beside the image, drawn from core's
stats with a cached 256-entry LUT. (Also used by the compare, cache and overview views.)"""

from __future__ import annotations

import bisect
import html
import math
import unicodedata
from collections import OrderedDict

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QFont, QFontMetricsF
from PySide6.QtWidgets import QGraphicsItem

from tfdebug.ui.render import colors
from tfdebug.ui.render.token_text import shown_tokens
from tfdebug.ui.render.plain_text import columns

MAX_WORD_TICKS = 4096   # beyond this many words only the major labels are set (pyqtgraph walks every tick)
MAX_INDEX_TICKS = 16
KEPT_PICTURES = 8  # an axis' pictures kept: a few stages' ranges, stepped back and forth between
# What an axis' look is set by besides its range and size: each forgets its kept pictures.
_LOOK_SETTERS = ("setStyle", "setGrid", "setLogMode", "setTickFont", "setPen", "setTextPen", "setTickPen",
                 "setScale", "setTickDensity", "setTicks", "setTickSpacing")


def nice_step(minimum: float) -> int:
    """The smallest of 1, 2, 5, 10, 20, 50, … that is at least `minimum`."""
    step = 1
    while step < minimum:
        step = step * 5 // 2 if str(step)[0] == "2" else step * 2
    return step


def tick_step(n: int) -> int:
    """Every how many positions a label goes so that at most MAX_INDEX_TICKS show: 1, 2, 5, 10, 20, 50, …"""
    return nice_step(n / MAX_INDEX_TICKS)


def label_ticks(labels: list[str]) -> list[list[tuple[float, str]]]:
    """Tick levels for labelled cells: every `tick_step`-th label, then the rest (pyqtgraph draws
    a level's text only where it fits, so zooming in reveals every word)."""
    step = tick_step(len(labels))
    major = [(i + 0.5, label) for i, label in enumerate(labels) if i % step == 0]
    minor = [(i + 0.5, label) for i, label in enumerate(labels) if i % step]
    return [major, minor] if minor and len(labels) <= MAX_WORD_TICKS else [major]


def _forgetting(name: str):
    def setter(self, *args, **kwargs):
        self.forget_pictures()
        return getattr(pg.AxisItem, name)(self, *args, **kwargs)
    setter.__name__ = setter.__qualname__ = name
    setter.__doc__ = getattr(pg.AxisItem, name).__doc__
    return setter


class KeptAxis(pg.AxisItem):
    """An axis that keeps the pictures it drew for its last few ranges and sizes: stepping back to a stage
    whose levels or histogram it drew before replays that picture instead of working out every tick again
    (pyqtgraph spends milliseconds per axis on that, in Python)."""

    def __init__(self, *args, **kwargs):
        self._kept: OrderedDict[tuple, object] = OrderedDict()
        super().__init__(*args, **kwargs)

    for _name in _LOOK_SETTERS:
        locals()[_name] = _forgetting(_name)
    del _name

    def forget_pictures(self) -> None:
        """Drop the kept pictures (the axis' look changed)."""
        self._kept.clear()
        self.picture = None

    def _picture_key(self) -> tuple:
        bounds = self.mapRectFromParent(self.geometry())
        return (tuple(self.range), bounds.getRect(), self.autoSIPrefixScale, self.style["showValues"])

    def paint(self, p, opt, widget):
        key = self._picture_key()
        if self.picture is None:
            self.picture = self._kept.get(key)
        super().paint(p, opt, widget)
        self._kept[key] = self.picture
        self._kept.move_to_end(key)
        while len(self._kept) > KEPT_PICTURES:
            self._kept.popitem(last=False)


class DecadeAxis(KeptAxis):
    """A colour bar's axis: the data's values, or under a log scale the powers of ten (its range is then
    log10 of the values, and its ticks whole decades labelled 1e-6 … 1)."""

    log_ticks = False

    def set_decades(self, on: bool) -> None:
        """Label whole decades (the range is log10 of the values) or plain values."""
        if on != self.log_ticks:
            self.log_ticks = on
            self.forget_pictures()
            self.update()

    def _picture_key(self) -> tuple:
        return (*super()._picture_key(), self.log_ticks)

    def tickValues(self, minVal, maxVal, size):
        if not self.log_ticks:
            return super().tickValues(minVal, maxVal, size)
        return [(1.0, [float(p) for p in range(math.ceil(minVal - 1e-9), math.floor(maxVal + 1e-9) + 1)])]

    def tickStrings(self, values, scale, spacing):
        if not self.log_ticks:
            return super().tickStrings(values, scale, spacing)
        return [colors.decade_label(v) for v in values]


class NonOverlappingAxis(KeptAxis):
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


class TokenAxis(NonOverlappingAxis):
    """An axis over cells 0 … n−1 that labels as many cells as fit at the current zoom.

    Ticks are computed from the view's range on every zoom and pan: every `step`-th visible cell,
    the step the smallest of 1, 2, 5, 10 … that leaves a label room for its text, so zooming in
    shows more labels until each cell has its own. With token labels (`set_cells(n, labels)`) each
    is shown by `shown_token` (⏎, ␣ …), cut to `max_label_px`; a horizontal axis with
    `rotate_labels` turns them upright (reading up to the axis), so they need only a line's width.
    """

    def __init__(self, orientation: str, rotate_labels: bool = False, max_label_px: int = 110, **kwargs):
        super().__init__(orientation, **kwargs)
        self.rotate_labels = rotate_labels and orientation in ("top", "bottom")
        self.max_label_px = max_label_px
        self._n = 0
        self._labels: tuple[str, ...] | None = None
        self._elided: dict[int, str] = {}

    def set_cells(self, n: int, labels: list[str] | None = None) -> None:
        """Label `n` cells, by `labels` (token strings) or by their indices."""
        shown = shown_tokens(tuple(labels)) if labels else None
        if n == self._n and shown is self._labels:
            return  # the same cells and words: the ticks drawn stay right (and so does the picture)
        self._n = n
        self._labels = shown
        self._elided = {}
        self.setTicks(None)  # and the pictures of other cells go
        self.update()

    @property
    def rotated(self) -> bool:
        return self.rotate_labels and self._labels is not None

    def _metrics(self) -> QFontMetricsF:
        return QFontMetricsF(self.style["tickFont"] or QFont())

    def label_of(self, cell: int) -> str:
        """The text drawn for `cell` (a token cut to fit, or the index: also past the labels given, as while a
        pass with other tokens replaces the one the labels came from)."""
        if self._labels is None or not 0 <= cell < len(self._labels):
            return str(cell)
        text = self._elided.get(cell)
        if text is None:
            text = self._elided[cell] = self._metrics().elidedText(self._labels[cell], Qt.TextElideMode.ElideRight,
                                                                  self.max_label_px)
        return text

    def visible_cells(self, lo: float, hi: float, pixels: float) -> tuple[int, list[int]]:
        """(step, the labelled cells) for a view of cells `lo` … `hi` (either order) over `pixels` pixels."""
        lo, hi = sorted((lo, hi))
        first, last = max(0, math.floor(lo)), min(self._n, math.ceil(hi))
        if last <= first or pixels <= 0:
            return 1, []
        per_cell = pixels / max(hi - lo, 1e-9)
        metrics = self._metrics()
        vertical = self.orientation in ("left", "right")
        if vertical or self.rotated:  # labels stacked along the axis: a line's height each
            room = metrics.height() + (1 if self._labels is not None else 4)
        elif self._labels is not None:  # words side by side (overlapping ones are left out when drawn)
            room = self.max_label_px / 2
        else:  # numbers side by side: the widest one and a gap
            room = metrics.horizontalAdvance(str(last)) + columns(metrics, 2)
        step = nice_step(room / per_cell)
        return step, list(range((first + step - 1) // step * step, last, step))

    def shown_ticks(self) -> list[tuple[int, str]]:
        """(cell, text) of every label at the view's current range and the axis' length."""
        length = self.width() if self.orientation in ("top", "bottom") else self.height()
        return [(c, self.label_of(c)) for c in self.visible_cells(*self.range, length)[1]] if self._n else []

    def tickValues(self, minVal, maxVal, size):
        if not self._n:
            return []
        step, cells = self.visible_cells(minVal, maxVal, size)
        return [(step, [c + 0.5 for c in cells])]

    def tickStrings(self, values, scale, spacing):
        return [self.label_of(int(v)) for v in values]

    def generateDrawSpecs(self, p):
        if not self.rotated:
            return super().generateDrawSpecs(p)
        shown = self.style["showValues"]
        self.style["showValues"] = False  # the axis line and ticks as pyqtgraph draws them; the labels below
        try:
            specs = pg.AxisItem.generateDrawSpecs(self, p)
        finally:
            self.style["showValues"] = shown
        if specs is None:
            return None
        axis_spec, tick_specs, _ = specs
        bounds = self.mapRectFromParent(self.geometry())
        lo, hi = sorted(self.range)
        span = (hi - lo) or 1.0
        metrics = self._metrics()
        line = metrics.height()
        top = bounds.top() + max(0, self.style["tickLength"]) + self.style["tickTextOffset"][1]
        texts, last, longest = [], -math.inf, 0.0
        for _, values in self.tickValues(lo, hi, bounds.width()):
            for value in values:
                x = (value - lo) * bounds.width() / span
                if x < 0 or x > bounds.width() or x - line / 2 < last:
                    continue  # outside the view, or on the label before it
                last = x + line / 2
                text = self.label_of(int(value))
                width = metrics.horizontalAdvance(text)
                longest = max(longest, width)
                texts.append((QRectF(x - line / 2, top, line, width), text))
        self._updateMaxTextSize(int(math.ceil(longest)) + 2)
        return axis_spec, tick_specs, texts

    def drawPicture(self, p, axisSpec, tickSpecs, textSpecs):
        if not self.rotated:
            return super().drawPicture(p, axisSpec, tickSpecs, textSpecs)
        super().drawPicture(p, axisSpec, tickSpecs, [])
        p.setPen(self.textPen())
        for rect, text in textSpecs:  # rect: where the upright label lies (its width is a line's height)
            p.save()
            p.translate(rect.center().x(), rect.top())
            p.rotate(-90)  # reads upwards, ending at the axis
            p.drawText(QRectF(-rect.height() - 1, -rect.width() / 2, rect.height() + 1, rect.width()),
                       int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter), text)
            p.restore()


class HistogramLUT(pg.HistogramLUTItem):
    """HistogramLUTItem with a 256-entry LUT whose histogram comes from core's stats."""

    def __init__(self):
        self._counts: tuple[np.ndarray, np.ndarray] | None = None
        self._luts: dict[tuple, np.ndarray] = {}
        super().__init__(orientation="vertical")
        # pyqtgraph's axis, swapped for one that keeps its pictures (the levels change with every stage)
        self.layout.removeItem(self.axis)
        self.axis.unlinkFromView()
        self.axis.setParentItem(None)
        self.axis = DecadeAxis("left", linkView=self.vb, maxTickLength=-10, parent=self)
        self.layout.addItem(self.axis, 0, 0)
        self.decades: tuple[int, int] | None = None  # a log scale's (floor, top) powers of ten, else None
        # The colour bar's gradient is drawn from a picture of it kept by Qt (made again when its colours change):
        # a step moves the levels and the histogram over it, and filling the gradient anew took ~1 ms a paint.
        self.gradient.gradRect.setCacheMode(QGraphicsItem.CacheMode.DeviceCoordinateCache)

    def set_histogram(self, edges: np.ndarray, counts: np.ndarray) -> None:
        self._counts = ((edges[:-1] + edges[1:]) / 2, counts.astype(float)) if len(counts) else None
        self._plot_counts()

    def show_levels(self, levels: tuple[float, float], decades: tuple[int, int] | None = None) -> None:
        """Span the data `levels` linearly, or with `decades` (a log scale's floor and top powers of ten) the
        log10 of the values: the bar's ticks then read 1e-6 … 1, its histogram drawn on the same axis."""
        if decades != self.decades:
            self.decades = decades
            self.axis.set_decades(decades is not None)
            self._plot_counts()
        blocked = self.blockSignals(True)  # setting levels from the data is not a drag
        self.setLevels(*(decades if decades is not None else levels))
        self.blockSignals(blocked)

    def dragged_top(self) -> float:
        """The top of the colour scale as the user left it, as a value of the data (10^top under a log scale)."""
        top = float(self.getLevels()[1])
        return 10.0 ** top if self.decades is not None else top

    def _plot_counts(self) -> None:
        if self._counts is None:
            return
        x, counts = self._counts
        if self.decades is not None:  # each bin at the log of its centre; those under the floor pile up there
            x = np.log10(np.maximum(x, 10.0 ** self.decades[0]))
        self.plot.setData(x, counts)

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
