"""Display math: 2-D slices, on-device downsampling, stats with NaN/±Inf counts."""

import numpy as np
import pytest
import torch

from tfdebug.core.display import display_slice, select_2d
from tfdebug.core.stats import tensor_stats


def test_slice_picks_axes_and_indices():
    t = torch.arange(2 * 3 * 4 * 5, dtype=torch.float32).reshape(2, 3, 4, 5)
    d = display_slice(t, 2, 3, {0: 1, 1: 2})
    assert d.values.dtype == np.float32 and d.values.flags.c_contiguous
    np.testing.assert_array_equal(d.values, t[1, 2].numpy())
    assert not d.downsampled and d.source_shape == (4, 5)
    swapped = display_slice(t, 3, 2, {0: 1, 1: 2})
    np.testing.assert_array_equal(swapped.values, t[1, 2].T.numpy())
    with pytest.raises(IndexError):
        select_2d(t, 2, 3, {0: 5})


def test_downsample_averages_blocks_and_keeps_masked_and_nan_cells():
    t = torch.ones(8, 8)
    t[:, 4:] = 3.0
    t[0:2, 0:2] = float("-inf")  # a fully masked block
    t[6, 6] = float("nan")
    d = display_slice(t, 0, 1, max_size=(4, 4))
    assert d.values.shape == (4, 4) and d.downsampled and d.source_shape == (8, 8)
    assert np.isneginf(d.values[0, 0])
    assert d.values[1, 1] == 1.0 and d.values[1, 3] == 3.0
    assert np.isnan(d.values[3, 3])
    assert d.source_row(3) == 6
    assert d.stats.neginf == 4 and d.stats.nan == 1  # stats are of the full slice


def test_a_masked_slice_downsamples_and_counts_as_the_general_path_does():
    """−∞ alone (a causal mask's cells) takes the short way: no NaN or +∞ pass, and −∞ pooled by itself;
    the picture and the stats are those the general path makes of the same plane."""
    from tfdebug.core.display import _downsample

    torch.manual_seed(0)
    t = torch.randn(96, 96)
    t = t.masked_fill(torch.ones(96, 96, dtype=torch.bool).triu(1), float("-inf"))
    d = display_slice(t, 0, 1, max_size=(16, 16))
    general = _downsample(t, 16, 16)
    np.testing.assert_array_equal(d.values, general.numpy())
    assert np.isneginf(d.values[0, -1]) and np.isfinite(d.values[-1, 0])
    assert (d.stats.nan, d.stats.posinf, d.stats.neginf) == (0, 0, int(torch.isneginf(t).sum()))
    finite = t[torch.isfinite(t)]
    assert (d.stats.min, d.stats.max) == (float(finite.min()), float(finite.max()))
    t[5, 3] = float("nan")  # then the other kinds are still looked for
    assert display_slice(t, 0, 1, max_size=(16, 16)).stats.nan == 1


def test_downsample_bounds_huge_slices():
    t = torch.randn(4096, 3000)
    d = display_slice(t, 0, 1, max_size=(512, 512))
    assert d.values.shape == (512, 512)
    assert abs(float(d.values.mean()) - float(t.mean())) < 1e-3


def test_stats_count_specials_and_ignore_them_in_moments():
    t = torch.tensor([1.0, 2.0, 3.0, float("nan"), float("inf"), float("-inf"), float("-inf")])
    s = tensor_stats(t)
    assert (s.min, s.max, s.mean, s.std) == (1.0, 3.0, 2.0, 1.0)
    assert (s.nan, s.posinf, s.neginf, s.count) == (1, 1, 2, 7)
    assert s.hist_counts.sum() == 3 and len(s.hist_edges) == len(s.hist_counts) + 1
    empty = tensor_stats(torch.tensor([float("nan")]))
    assert np.isnan(empty.min) and empty.to_dict()["min"] is None


def test_half_precision_and_device_inputs(device):
    t = torch.randn(3, 16, 16, device=device).to(torch.bfloat16)
    d = display_slice(t, 1, 2, {0: 2}, max_size=(8, 8))
    assert d.values.shape == (8, 8) and d.values.dtype == np.float32


def test_host_and_device_paths_agree():
    """The CPU fast path and the branch-free path used on GPUs give the same stats."""
    from tfdebug.core.stats import HIST_BINS, _host_stats, _stats_tensor, _unpack_stats

    torch.manual_seed(0)
    clean = torch.randn(300, 200)
    dirty = clean.clone()
    dirty[0, :5] = float("-inf")
    dirty[1, 0] = float("nan")
    dirty[2, 3] = float("inf")
    for t in (clean, dirty, torch.full((4,), float("-inf")), torch.tensor([2.5])):
        host = _host_stats(t, HIST_BINS)
        device = _unpack_stats(_stats_tensor(t, HIST_BINS).numpy(), HIST_BINS)
        assert (host.nan, host.posinf, host.neginf, host.count) == (device.nan, device.posinf, device.neginf,
                                                                    device.count)
        np.testing.assert_allclose([host.min, host.max, host.mean, host.std],
                                   [device.min, device.max, device.mean, device.std], rtol=1e-5, atol=1e-6)
        assert abs(int(host.hist_counts.sum()) - int(device.hist_counts.sum())) == 0


def test_a_softmax_shows_the_cells_its_mask_stage_masked_and_nothing_else():
    """Masked cells of a softmax are exact zeros; the mask it read marks them, not their value:
    an fp16 probability that underflowed to 0 is not masked."""
    import torch

    from tfdebug.core.display import display_slice
    from tfdebug.core.thumbnails import head_thumbnails

    masked = torch.zeros(1, 2, 3, 3)
    masked[..., 0, 1:] = torch.finfo(torch.float32).min  # transformers' way: a finite minimum
    masked[..., 1, 2] = float("-inf")                     # the reference model's way
    probs = torch.softmax(masked, dim=-1)
    assert (probs[..., 0, 1:] == 0).all()
    sl = display_slice(probs, 2, 3, {0: 0, 1: 1}, kind="softmax", mask=masked)
    assert np.isneginf(sl.values[0, 1:]).all() and np.isneginf(sl.values[1, 2])
    assert sl.stats.neginf == 3 and sl.stats.min > 0
    thumbs = head_thumbnails(probs, 2, 3, 1, {0: 0}, kind="softmax", mask=masked)
    assert thumbs.neginf.tolist() == [3, 3]
    # Without a mask (or with one of another shape) a zero probability is a value like any other.
    underflow = torch.tensor([[1.0, 0.0], [0.5, 0.5]], dtype=torch.float16)
    plain = display_slice(underflow, 0, 1, kind="softmax")
    assert plain.stats.neginf == 0 and plain.values[0, 1] == 0
    assert display_slice(probs, 2, 3, kind="softmax", mask=masked[..., :2]).stats.neginf == 0


def test_std_is_exact_when_the_mean_dominates_the_spread():
    """A softmax (values near 1/n) or an offset signal: the sum-of-squares shortcut would
    cancel away the spread; the shown std matches a float64 reference."""
    from tfdebug.core.stats import tensor_stats
    generator = torch.Generator().manual_seed(0)
    probs = torch.randn(4, 64, 300, generator=generator).mul(0.1).softmax(-1)
    offset = torch.randn(300_000, generator=generator) * 1e-3 + 1000.0
    wide = torch.randn(300_000, generator=generator)
    for tensor in (probs, offset, wide):
        stats = tensor_stats(tensor)
        std, mean = torch.std_mean(tensor.double())
        assert abs(stats.mean - float(mean)) <= 1e-6 * abs(float(mean)) + 1e-9
        assert abs(stats.std - float(std)) <= 1e-4 * float(std)
