"""A large slice read a band of rows at a time (tfdebug.core.bands) shows and summarises what the whole slice read at
once shows: the same picture (NaN and ±∞ where they dominate a block), the same extremes and counts, the same mean
and std, a histogram of the same cells' range; and a recipe plane read so never computes more than a band.

The reference is the unbanded path of the same functions (`BAND_CELLS` out of reach), which tests/core/test_display.py
and test_tiles.py hold to torch's own pooling and statistics."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch

from tfdebug.core import bands, recipes
from tfdebug.core.display import display_slice
from tfdebug.core.stats import tensor_stats
from tfdebug.core.recipes import Plane, Scores, step
from tfdebug.core.thumbnails import head_thumbnails
from tfdebug.core.tiles import read_tile


def _same_stats(a, b, *, hist: bool = True):
    assert (a.min, a.max, a.nan, a.posinf, a.neginf, a.count) == (b.min, b.max, b.nan, b.posinf, b.neginf, b.count)
    assert a.mean == pytest.approx(b.mean, rel=1e-9, abs=1e-12)
    assert a.std == pytest.approx(b.std, rel=1e-7, abs=1e-12)
    assert not a.partial
    if hist:  # a sample of the same cells over the same range: the bars' shares agree
        assert np.allclose(a.hist_edges, b.hist_edges)
        share_a, share_b = a.hist_counts / a.hist_counts.sum(), b.hist_counts / b.hist_counts.sum()
        assert np.abs(share_a - share_b).max() < 0.02


def _whole(monkeypatch):
    monkeypatch.setattr(bands, "BAND_CELLS", 1 << 40)


def _softmax_plane(tokens: int, heads: int = 2, seed: int = 0) -> Plane:
    """A causal attention plane as a recipe: scores, scaled, masked (−∞ above the diagonal), softmax."""
    g = torch.Generator().manual_seed(seed)
    q = torch.randn(1, heads, tokens, 8, generator=g)
    k = torch.randn(1, heads, tokens, 8, generator=g)
    mask = torch.full((tokens, tokens), float("-inf")).triu(1)[None, None]
    return step(step(step(Scores(q, k), "scale", value=8 ** -0.5), "mask", tensor=mask), "softmax")


@pytest.mark.parametrize("shape,out", [((1000, 700), (333, 250)), ((960, 640), (96, 64)), ((300, 5000), (300, 77)),
                                       ((1000, 700), (1000, 700))])
def test_a_banded_slice_shows_and_summarises_what_the_whole_slice_does(shape, out, monkeypatch):
    g = torch.Generator().manual_seed(1)
    t = torch.randn(3, *shape, generator=g) * 5 + 2
    t[1, 7, 3] = float("nan")
    t[1, 200:260, 100:180] = float("-inf")  # a masked region: whole blocks of it draw −∞
    t[1, 10, 600] = float("inf")
    t[1, -1, :] = float("nan")  # a last row of NaN: the blocks it touches draw NaN
    monkeypatch.setattr(bands, "BAND_CELLS", 20_000)  # bands of a few rows: many bands, windows across them
    part = display_slice(t, 1, 2, {0: 1}, out)
    _whole(monkeypatch)
    whole = display_slice(t, 1, 2, {0: 1}, out)
    assert part.values.shape == whole.values.shape == out
    assert np.array_equal(np.isnan(part.values), np.isnan(whole.values))
    assert np.array_equal(np.isposinf(part.values), np.isposinf(whole.values))
    assert np.array_equal(np.isneginf(part.values), np.isneginf(whole.values))
    finite = np.isfinite(whole.values)
    assert np.allclose(part.values[finite], whole.values[finite], rtol=1e-5, atol=1e-5)
    _same_stats(part.stats, whole.stats)
    assert part.source_shape == whole.source_shape == shape


def test_a_banded_tile_of_a_recipe_plane_never_computes_more_than_a_band(monkeypatch):
    plane = _softmax_plane(400)
    rows_computed = []
    scores = plane.steps()[0]
    original = type(scores).block

    def counted(self, batch, heads, rows=recipes.ALL, keep=None):
        out = original(self, batch, heads, rows, keep)
        rows_computed.append(out.shape[1] * out.shape[2])
        return out

    monkeypatch.setattr(type(scores), "block", counted)
    monkeypatch.setattr(bands, "BAND_CELLS", 400 * 40)  # bands of ~40 rows (a display row is 2 rows)
    masked = plane.steps()[-2]  # the mask stage the softmax read: from the same computation (Plane.tile's `also`)
    tile = read_tile(plane, 2, 3, {0: 0, 1: 1}, (0, 400), (0, 400), (200, 200), kind="softmax", mask=masked,
                     row_max=True)
    assert rows_computed and max(rows_computed) <= 48  # a band, aligned to recipes.ROW_ALIGN
    assert sum(rows_computed) < 2 * 400  # each row about once
    _whole(monkeypatch)
    whole = read_tile(plane, 2, 3, {0: 0, 1: 1}, (0, 400), (0, 400), (200, 200), kind="softmax", mask=masked,
                      row_max=True)
    assert np.array_equal(np.isneginf(tile.values), np.isneginf(whole.values))
    finite = np.isfinite(whole.values)
    assert np.allclose(tile.values[finite], whole.values[finite], rtol=1e-5, atol=1e-7)
    assert np.array_equal(tile.row_max, whole.row_max)
    _same_stats(tile.stats, whole.stats)
    exact = plane[0, 1]  # the plane itself, against which both are held
    assert tile.stats.max == pytest.approx(float(exact.max()))
    assert tile.stats.count == 400 * 400 and tile.stats.neginf == 400 * 399 // 2  # masked cells above the diagonal


def test_a_recipe_plane_s_stats_are_merged_from_its_blocks(monkeypatch):
    plane = _softmax_plane(96, heads=3)
    monkeypatch.setattr(recipes, "BLOCK_BYTES", 96 * 4 * 16)  # blocks of 16 rows of one head
    merged = tensor_stats(plane)
    whole = tensor_stats(plane.materialize())
    _same_stats(merged, whole)
    assert merged.count == 3 * 96 * 96 and merged.min == 0.0
    assert merged.mean == pytest.approx(1 / 96, rel=1e-6)  # every row sums to 1


@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float16, torch.int32])
def test_a_large_tensor_of_a_narrower_dtype_is_summarised_in_parts(dtype, monkeypatch):
    """Bfloat16 logits are summarised `BAND_CELLS` cells at a time (never their whole float32 copy): the same extremes,
    counts, mean and std as the whole tensor read at once, NaN and ±∞ counted in each part, a mask's marked cells too."""
    g = torch.Generator().manual_seed(3)
    x = (torch.randn(97, 301, generator=g) * 4 + 1).to(dtype)
    if dtype.is_floating_point:
        x[5, 7], x[60, 3], x[96, 300] = float("nan"), float("inf"), float("-inf")
    monkeypatch.setattr(bands, "BAND_CELLS", 1000)  # 30 parts, the last one short
    read, part_stats = [], bands.part_stats
    monkeypatch.setattr(bands, "part_stats", lambda part, bins: read.append(part.numel()) or part_stats(part, bins))
    parts = tensor_stats(x)
    assert len(read) == 30 and max(read) == 1000  # never more than a part at once
    _whole(monkeypatch)
    _same_stats(parts, tensor_stats(x))
    if dtype.is_floating_point:
        assert (parts.nan, parts.posinf, parts.neginf) == (1, 1, 1)
        mask = torch.zeros(97, 301, dtype=dtype).masked_fill(torch.ones(97, 301).triu(1).bool(), torch.finfo(dtype).min)
        monkeypatch.setattr(bands, "BAND_CELLS", 1000)
        marked = tensor_stats(mask, kind="mask")
        assert marked.neginf == int(torch.ones(97, 301).triu(1).sum()) and marked.max == 0.0


def test_a_thumbnail_grid_of_a_recipe_plane_computes_only_its_rows(monkeypatch):
    plane = _softmax_plane(400, heads=2)
    whole = plane.materialize()
    expected = head_thumbnails(whole, 2, 3, 1, {0: 0}, (24, 24))
    rows_computed = []
    scores = plane.steps()[0]
    original = type(scores).block

    def counted(self, batch, heads, rows=recipes.ALL, keep=None):
        out = original(self, batch, heads, rows, keep)
        rows_computed.append(out.shape[2])
        return out

    monkeypatch.setattr(type(scores), "block", counted)
    got = head_thumbnails(plane, 2, 3, 1, {0: 0}, (24, 24))  # every 2nd row (400 // (8 × 24)) of each head
    assert rows_computed and max(rows_computed) == 200
    assert np.array_equal(got.values, expected.values)
    assert torch.equal(plane[0, 1, 5::7, ::3], whole[0, 1, 5::7, ::3])  # 57 rows gathered: bit for bit
    rows_computed.clear()
    assert torch.equal(plane[0, 1, 5::60], whole[0, 1, 5::60])  # 7 rows: in their aligned bands of 16
    assert rows_computed == [7 * recipes.ROW_ALIGN]


def test_merged_stats_of_no_finite_cell_say_so():
    t = torch.full((4, 5), float("nan"))
    stats = bands.merged_stats([bands.part_stats(t[:2]), bands.part_stats(t[2:])], bands.finite_sample(t, 1))
    assert math.isnan(stats.mean) and stats.nan == 20 and stats.count == 20 and stats.hist_counts.sum() == 0
