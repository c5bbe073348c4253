"""Tiles of the shown slice (core.tiles) and head thumbnails read a stage only by indexing the region
shown — the contract a plane computed on demand relies on — and equal the tensor's own cells."""

import numpy as np
import pytest
import torch

from tfdebug.core.display import display_slice
from tfdebug.core.thumbnails import head_thumbnails
from tfdebug.core.tiles import read_tile


class Plane:
    """A stand-in for a plane computed on demand: shape, dtype, device, dim(), detach() and indexing
    (recorded, and each asked cell counted); any torch operation on the whole of it fails."""

    def __init__(self, tensor):
        self._tensor, self.asked, self.cells = tensor, [], 0
        self.shape, self.dtype, self.device = tensor.shape, tensor.dtype, tensor.device

    def dim(self):
        return self._tensor.dim()

    def detach(self):
        return self

    def __getitem__(self, index):
        part = self._tensor[index]
        self.asked.append(index)
        self.cells += part.numel()
        return part.clone()

    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        raise AssertionError(f"{func.__name__} on the whole plane")


def _causal(n=96, heads=3, seed=0):
    torch.manual_seed(seed)
    scores = torch.randn(1, heads, n, n)
    masked = scores.masked_fill(torch.triu(torch.ones(n, n, dtype=torch.bool), 1), torch.finfo(torch.float32).min)
    return masked, torch.softmax(masked, -1)


def test_a_tile_is_the_tensors_cells_read_by_indexing_that_region_only():
    masked, probs = _causal()
    plane, mask = Plane(probs), Plane(masked)
    tile = read_tile(plane, 2, 3, {0: 0, 1: 2}, (40, 72), (10, 42), (512, 512), kind="softmax", mask=mask)
    assert tile.exact and tile.source_shape == (96, 96)
    expected = probs[0, 2, 40:72, 10:42].numpy()
    drawn = tile.values
    assert np.array_equal(np.where(np.isneginf(drawn), 0, drawn), expected)
    assert np.array_equal(np.isneginf(drawn), np.triu(np.ones((96, 96), bool), 1)[40:72, 10:42])
    assert plane.asked == [(0, 2, slice(40, 72), slice(10, 42))] and plane.cells == 32 * 32
    assert mask.asked == plane.asked  # the mask of a softmax: the same region
    assert tile.stats.max == pytest.approx(float(expected.max())) and tile.stats.neginf == (expected == 0).sum()


def test_a_tile_larger_than_the_screen_is_block_averaged_as_the_whole_slice_is():
    _, probs = _causal(n=128)
    whole = read_tile(probs, 2, 3, {1: 1}, (0, 128), (0, 128), (32, 32))
    assert np.array_equal(whole.values, display_slice(probs, 2, 3, {1: 1}, (32, 32)).values)
    part = read_tile(probs, 2, 3, {1: 1}, (64, 128), (0, 64), (16, 16))
    assert not part.exact and part.values.shape == (16, 16)
    assert part.value_at(64, 0) == pytest.approx(float(probs[0, 1, 64:68, 0:4].mean()), rel=1e-6)


def test_rows_maxima_cover_every_column_and_transposed_axes_read_the_same_cells():
    masked, probs = _causal()
    plane = Plane(probs)
    tile = read_tile(plane, 2, 3, {1: 0}, (8, 24), (0, 16), (64, 64), row_max=True)
    assert np.array_equal(tile.row_max, probs[0, 0, 8:24].amax(1).numpy())  # over all 96 keys, not the 16 shown
    assert all(index[2] == slice(8, 24) for index in plane.asked)  # the maxima read those rows only
    keys_as_rows = read_tile(probs, 3, 2, {1: 0}, (5, 9), (0, 96), (64, 128))
    assert np.array_equal(keys_as_rows.values, probs[0, 0, :, 5:9].T.numpy())
    with pytest.raises(ValueError, match="outside"):
        read_tile(probs, 2, 3, {}, (90, 97), (0, 4), (8, 8))


def test_head_thumbnails_index_each_head_alone():
    masked, probs = _causal(n=512, heads=4)
    plane, mask = Plane(probs), Plane(masked)
    thumbs = head_thumbnails(plane, 2, 3, 1, {0: 0}, (16, 16), kind="softmax", mask=mask)
    assert [index[1] for index in plane.asked] == [0, 1, 2, 3]  # one head per read, on the strided grid
    assert all(index[2] == slice(None, None, 4) and index[3] == slice(None, None, 4) for index in plane.asked)
    direct = head_thumbnails(probs, 2, 3, 1, {0: 0}, (16, 16), kind="softmax", mask=masked)
    assert np.array_equal(thumbs.values, direct.values) and np.array_equal(thumbs.maxs, direct.maxs)


def test_a_downsampled_softmax_slice_is_summarised_as_its_tensor_holds_it():
    from tfdebug.core.stats import held_stats, tensor_stats

    masked, probs = _causal(n=1000, heads=1)
    shown = display_slice(probs, 2, 3, {}, (100, 100), kind="softmax", mask=masked)
    assert shown.downsampled and shown.stats.neginf == 1000 * 999 // 2  # drawn as masked
    held, truth = held_stats(shown.stats, "softmax"), tensor_stats(probs[0, 0].double())  # float64: exact sums
    assert (held.min, held.max, held.neginf, held.count) == (0.0, float(probs.max()), 0, 1000 * 1000)
    assert held.mean == pytest.approx(truth.mean, rel=1e-5) and held.std == pytest.approx(truth.std, rel=1e-4)
    share = lambda st: st.hist_counts / st.hist_counts.sum()  # noqa: E731 - bars of samples of different strides
    assert np.abs(share(held) - share(truth)).max() < 0.01 and share(held)[0] > 0.49  # the zeros in the bar at 0
