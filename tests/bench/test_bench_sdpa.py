"""The SDPA bench row: every variant timed against the module's own plain forward, and verified."""

import pytest
import torch

from tfdebug.bench.sdpa import TINY_SDPA, format_sdpa, sdpa_row


def test_sdpa_row_has_each_variant_ratio_and_verification():
    row = sdpa_row(torch.device("cpu"), repeats=2, size=TINY_SDPA)
    assert row["stages"] == 15 and row["n_embd"] == 32
    for name in ("plain", "switches_on", "taps_only", "capture_all", "plain_again"):
        assert row[f"{name}_ms"] > 0
    for name in ("switches_on", "taps_only", "capture_all", "plain_again"):
        assert row[f"ratio_{name}"] == pytest.approx(row[f"{name}_ms"] / row["plain_ms"], rel=0.01)
    assert row["verified_max_abs_diff"] <= 1e-5
    lines = format_sdpa(row)
    assert "capture all" in lines[-1] and "A/A" in lines[-1]
