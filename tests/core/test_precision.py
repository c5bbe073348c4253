"""Half precision at its edges: dtype ranges, near-overflow notes, NaN/±Inf conditions and the display in bf16/fp16."""

from __future__ import annotations

import pytest
import torch

from tfdebug.core.breakpoints import Breakpoint, condition_flags
from tfdebug.core.display import display_slice
from tfdebug.core.stats import tensor_stats
from tfdebug.core.precision import HALF_MAX, dtype_range, half_overflow_note, overflow_note

HALF = (torch.float16, torch.bfloat16)


def test_dtype_ranges():
    fp16, bf16 = dtype_range(torch.float16), dtype_range(torch.bfloat16)
    assert fp16.max == 65504.0 and bf16.max > 3e38 and bf16.eps > fp16.eps
    assert fp16.describe() == "float16: ±65504, eps 9.8e-04"
    assert dtype_range(torch.int64) is None
    assert fp16.headroom(6550.4) == pytest.approx(10.0)


def test_values_near_fp16_overflow_are_flagged_and_fp32_ones_are_not():
    note = overflow_note(torch.float16, -40000.0, 12.0)
    assert note is not None and "65504" in note and note.id == "precision.near_overflow"
    assert overflow_note(torch.float32, -40000.0, 12.0) is None
    assert overflow_note(torch.float16, -float("inf"), 3.0) is None  # masked cells are not values
    assert overflow_note(torch.float16, -100.0, 20000.0) is None


@pytest.mark.parametrize("dtype", HALF)
def test_nan_and_inf_conditions_fire_in_half_precision(dtype):
    conditions = [Breakpoint.on_nan(), Breakpoint.on_inf(), Breakpoint.on_abs_above(1000.0)]
    clean = torch.randn(4, 8).to(dtype)
    assert condition_flags(clean, "scores", conditions).tolist() == [False, False, False]
    grown = clean.clone()
    grown[0, 0] = 300.0
    grown = grown * grown  # 90,000: past float16's 65,504 (+Inf there), finite in bfloat16
    expected = [False, True, False] if dtype == torch.float16 else [False, False, True]
    assert condition_flags(grown, "scores", conditions).tolist() == expected
    nan = clean.clone()
    nan[1, 2] = float("nan")
    assert condition_flags(nan, "softmax", conditions)[0]


@pytest.mark.parametrize("dtype", HALF)
def test_a_mask_in_half_precision_is_masked_not_infinite_or_huge(dtype):
    scores = torch.randn(1, 2, 5, 5).to(dtype)
    causal = torch.ones(5, 5, dtype=torch.bool).triu(1)
    masked = scores.masked_fill(causal, torch.finfo(dtype).min)  # how transformers masks
    conditions = [Breakpoint.on_inf(), Breakpoint.on_abs_above(1000.0)]
    assert condition_flags(masked, "mask", conditions).tolist() == [False, False]
    stats = tensor_stats(masked, kind="mask")
    assert stats.neginf == 2 * 10 and overflow_note(dtype, stats.min, stats.max) is None


@pytest.mark.parametrize("dtype", HALF)
def test_the_display_shows_float32_of_the_slice_and_leaves_the_stage_in_its_dtype(dtype):
    stage = torch.randn(3, 4, 6, 6).to(dtype)
    shown = display_slice(stage, 2, 3, {0: 1, 1: 2})
    assert stage.dtype == dtype and shown.values.dtype.name == "float32"
    assert torch.equal(torch.from_numpy(shown.values), stage[1, 2].float())
    assert shown.stats.max == pytest.approx(float(stage[1, 2].float().max()))


def test_values_that_would_overflow_a_float16_pass_are_flagged_in_other_dtypes():
    limit = float(torch.finfo(torch.float16).max)
    for dtype in (torch.float32, torch.bfloat16):
        beyond = float(torch.tensor(limit * 2, dtype=dtype))
        note = half_overflow_note(dtype, -1.0, beyond)
        assert note is not None and note.id == "precision.half_overflow" and "would hold ±Inf" in note
        assert torch.isinf(torch.tensor(beyond).half())  # torch agrees: float16 cannot hold it
        assert half_overflow_note(dtype, -limit, limit) is None  # float16's largest value still fits
        assert half_overflow_note(dtype, float("-inf"), 1.0) is None  # a mask's −∞ is not a value
    assert half_overflow_note(torch.float16, 0.0, 60000.0) is None  # float16 stages: overflow_note judges
    assert half_overflow_note(torch.int64, 0, 10**9) is None


def test_the_float16_limit_written_without_torch_is_torchs():
    # Written as a number so that importing tfdebug.core.precision (the window does, before torch loads) needs no torch.
    assert HALF_MAX == float(torch.finfo(torch.float16).max)
    assert half_overflow_note(torch.float32, 0.0, HALF_MAX) is None
    assert half_overflow_note(torch.float32, 0.0, HALF_MAX * 1.01) is not None
