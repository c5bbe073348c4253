"""A heatmap's colour levels and LUT indices, worked out from its numbers alone (no colour map, no Qt).

A stage's kind chooses its levels: probabilities run from 0 to their largest value (a sequential map), every
other stage is centred on zero (a diverging map), so the heatmap and the head thumbnails of one stage agree.
`quantize` turns a slice into uint8 indices between those levels, which the window draws through a 256-entry
LUT (tfdebug.ui.render.colors holds the maps themselves); the display cache
(tfdebug.sessions.display_cache) quantises a slice off the GUI thread with these.
"""

from __future__ import annotations

import numpy as np

from tfdebug.core.stats import Stats

LUT_SIZE = 256
PROBABILITY_KINDS = frozenset({"softmax", "attn_dropout"})


def levels_of(kind: str, stats: Stats) -> tuple[tuple[float, float], bool]:
    """(levels, signed) for data with `stats` from a stage of `kind`.

    The levels follow the stage, not the slice on screen: probabilities run from 0 to their largest value
    (unsigned), every other kind is centred on 0 (signed; a slice that happens to be non-negative keeps the
    levels its kind has).
    """
    lo, hi = stats.min, stats.max
    if kind in PROBABILITY_KINDS:
        top = hi if hi == hi and hi > 0 else 1.0
        return (0.0, float(top)), False
    if lo != lo or hi != hi:  # no finite value at all
        return (-1.0, 1.0), True
    m = max(abs(lo), abs(hi)) or 1.0
    return (-float(m), float(m)), True


def quantize(values: np.ndarray, levels: tuple[float, float]) -> np.ndarray:
    """`values` as LUT indices (uint8, 0–255 between `levels`; non-finite cells 0: the overlay
    paints them). pyqtgraph draws uint8 data with a 256-entry LUT as an indexed QImage,
    with no per-pixel conversion of its own."""
    span = (levels[1] - levels[0]) or 1.0
    scaled = np.subtract(values, np.float32(levels[0]), dtype=np.float32)
    scaled *= np.float32((LUT_SIZE - 1) / span)
    np.clip(scaled, 0, LUT_SIZE - 1, out=scaled)
    np.nan_to_num(scaled, copy=False, nan=0.0)
    return scaled.astype(np.uint8)
