"""Colour choices for heatmaps: which map and levels a stage gets, and the non-finite overlay.

A stage's kind chooses the map: probabilities get a sequential one, every other
stage a diverging map centred on zero. −∞ (masked), NaN and +∞ cells get colours of
their own, drawn by an RGBA overlay, so they never read as the scale's minimum.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
import pyqtgraph as pg

from tfdebug.core.stats import Stats
from tfdebug.core.quantise import LUT_SIZE, levels_of, quantize

MASK_RGBA = (96, 96, 96, 255)      # −∞: a masked cell
NAN_RGBA = (255, 0, 255, 255)      # NaN
POSINF_RGBA = (255, 160, 0, 255)   # +∞


GRADIENT_STOPS = 16  # the LUT is interpolated from this many stops of the named map


@lru_cache(maxsize=None)
def _resampled(name: str) -> pg.ColorMap:
    """The named map resampled to a few stops: the histogram's gradient editor makes one
    tick item per stop, and pyqtgraph's 256-stop maps cost ~18 ms per switch of scheme."""
    full = pg.colormap.get(name)
    pos = np.linspace(0.0, 1.0, GRADIENT_STOPS)
    cmap = pg.ColorMap(pos, full.map(pos, mode="byte"))
    cmap.name = name
    return cmap


def diverging() -> pg.ColorMap:
    return _resampled("CET-D1")


def sequential() -> pg.ColorMap:
    return _resampled("viridis")


def scheme(kind: str, stats: Stats) -> tuple[pg.ColorMap, tuple[float, float], bool]:
    """(colour map, levels, signed) for data with `stats` from a stage of `kind`.

    The map follows the stage, not the slice on screen: probabilities get the sequential map,
    every other kind the diverging one centred on 0 (a slice that happens to be non-negative
    keeps the map its stage has, so the heatmap and the head thumbnails of one stage agree).
    """
    levels, signed = levels_of(kind, stats)  # tfdebug.core.quantise: the numbers, here the map
    return (diverging() if signed else sequential()), levels, signed


def thumbnail_scale(kind: str, mins: np.ndarray, maxs: np.ndarray) -> tuple[np.ndarray, tuple[float, float]]:
    """(256-entry LUT, levels) of one colour scale over thumbnails whose finite extremes are `mins`/`maxs`
    (NaN where a thumbnail has none), chosen as `scheme` chooses for a stage of `kind`."""
    lo, hi = np.asarray(mins, dtype=np.float64), np.asarray(maxs, dtype=np.float64)
    lo, hi = lo[~np.isnan(lo)], hi[~np.isnan(hi)]
    probe = Stats(min=float(lo.min()) if lo.size else 0.0, max=float(hi.max()) if hi.size else 1.0, mean=0.0,
                  std=0.0, nan=0, posinf=0, neginf=0, count=0, hist_counts=np.zeros(0), hist_edges=np.zeros(1))
    cmap, levels, _ = scheme(kind, probe)
    return cmap.getLookupTable(nPts=LUT_SIZE), levels


def split_nonfinite(values: np.ndarray, fill: float) -> tuple[np.ndarray, np.ndarray | None]:
    """(image data with non-finite cells set to `fill`, RGBA overlay or None when all finite)."""
    finite = np.isfinite(values)
    if finite.all():
        return values, None
    data = np.where(finite, values, np.float32(fill)).astype(np.float32, copy=False)
    overlay = np.zeros(values.shape + (4,), dtype=np.uint8)
    overlay[np.isneginf(values)] = MASK_RGBA
    overlay[np.isnan(values)] = NAN_RGBA
    overlay[np.isposinf(values)] = POSINF_RGBA
    return np.ascontiguousarray(data), overlay


def to_rgba(values: np.ndarray, lut: np.ndarray, levels: tuple[float, float],
            scale: ColourScale | None = None) -> np.ndarray:
    """`values` painted through `lut` between `levels` (under a log `scale` when given, as the heatmap colours)
    as an (h, w, 4) uint8 image, with −∞, NaN and +∞ cells in their own colours (small images: head thumbnails)."""
    data, overlay = split_nonfinite(values, levels[0])
    if scale is not None and scale.log:
        idx = scale.indices(data.astype(np.float32, copy=False), levels).astype(np.intp)
    else:
        span = (levels[1] - levels[0]) or 1.0
        idx = np.clip((data - levels[0]) / span * (len(lut) - 1), 0, len(lut) - 1).astype(np.intp)
    rgba = np.empty(data.shape + (4,), dtype=np.uint8)
    rgba[..., :3] = lut[idx][..., :3]
    rgba[..., 3] = 255
    if overlay is not None:
        special = overlay[..., 3] > 0
        rgba[special] = overlay[special]
    return rgba


def format_value(x: float) -> str:
    if x != x:
        return "NaN"
    if x == float("-inf"):
        return "−∞ (masked)"
    if x == float("inf"):
        return "+∞"
    return f"{x:.4g}"


LOG_DECADES = 6  # a log scale spans this many powers of ten below its top level


@dataclass(frozen=True)
class ColourScale:
    """How values map onto the colour map, beyond the stage's linear levels.

    `per_row`: each row is divided by its own largest |value| (over every key, see
    `tfdebug.core.tiles.Tile.row_max`), so the levels become 0 … 1 (−1 … 1 for signed data): each
    query's strongest key is the top colour. `log`: non-negative data (probabilities) is coloured
    by log10 over LOG_DECADES whole decades below the power of ten at or above the top level (a
    probability's 1e-6 … 1), values under that floor at the bottom; signed data by a symmetric log,
    sign(x)·log10(1 + |x|/c) with c = top / 10^LOG_DECADES (the window applies the log scale to
    non-negative stages only: `applies_log`).
    Non-finite cells are not touched: the overlay paints them in their own colours.
    """

    log: bool = False
    per_row: bool = False

    def levels(self, levels: tuple[float, float]) -> tuple[float, float]:
        """The data levels this scale colours between (before `log` is applied)."""
        if not self.per_row:
            return levels
        return (-1.0, 1.0) if levels[0] < 0 else (0.0, 1.0)

    def indices(self, values: np.ndarray, levels: tuple[float, float], row_max: np.ndarray | None = None) -> np.ndarray:
        """`values` (finite; see `split_nonfinite`) as uint8 LUT indices under this scale between `levels`
        (the stage's linear levels); `row_max` (one per row) is what per-row normalisation divides by."""
        levels = self.levels(levels)
        if self.per_row and row_max is not None:
            scale = np.where(row_max > 0, row_max, np.float32(1)).astype(np.float32)
            values = values / scale[:, None]
        if not self.log:
            return quantize(values, levels)
        top = max(abs(levels[0]), abs(levels[1])) or 1.0
        if levels[0] >= 0:
            low, high = self.log_decades(levels)
            logged = np.log10(np.maximum(values, np.float32(10.0 ** low)), dtype=np.float32)
            return quantize(logged, (float(low), float(high)))
        c = np.float32(top * 10.0 ** -LOG_DECADES)
        logged = np.sign(values) * np.log10(np.float32(1) + np.abs(values) / c, dtype=np.float32)
        edge = float(np.log10(1.0 + top / float(c)))
        return quantize(logged.astype(np.float32, copy=False), (-edge, edge))

    def log_decades(self, levels: tuple[float, float]) -> tuple[int, int]:
        """The powers of ten a log scale's colours span over non-negative data between `levels`: the one at or
        above the top level, and LOG_DECADES below it (the colour bar's ticks, 1e-6 … 1 for probabilities)."""
        levels = self.levels(levels)
        top = max(abs(levels[0]), abs(levels[1])) or 1.0
        high = math.ceil(round(math.log10(top), 9))  # 1.0 and 0.1 are their own decades, not the next
        return high - LOG_DECADES, high

    def describe_floor(self, levels: tuple[float, float]) -> float:
        """The value at the bottom of a log scale's colours (10^LOG_DECADES below its top decade; for signed
        data, its top level / 10^LOG_DECADES)."""
        if self.levels(levels)[0] >= 0:
            return 10.0 ** self.log_decades(levels)[0]
        levels = self.levels(levels)
        return (max(abs(levels[0]), abs(levels[1])) or 1.0) * 10.0 ** -LOG_DECADES


def applies_log(signed: bool) -> bool:
    """Whether Scale ▸ Log scale colours a stage: only a non-negative one (probabilities). A signed stage
    (logits, residuals) stays linear on its diverging map, and the caption says so."""
    return not signed


def decade_label(power: float) -> str:
    """A log colour bar's tick at 10^`power`: "1" at 10⁰, else "1e-6", "1e3" …."""
    power = round(power)
    return "1" if power == 0 else f"1e{power}"
