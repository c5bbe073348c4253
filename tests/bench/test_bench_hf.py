"""The Hugging Face rows of `tfdebug bench`: every variant timed on the tiny GPT-2 (figures not asserted)."""

import pytest

pytest.importorskip("transformers")

from tfdebug.bench.hf import COLUMNS, hf_section  # noqa: E402


def test_hf_rows_time_every_variant_and_count_the_stages():
    [row] = hf_section("tiny", 3)
    for key in COLUMNS:
        assert key in row, key
    assert row["stages"] == 3 + 19 + 2  # embeddings, one block, final norm, logits
    for key in ("sdpa_ms", "eager_ms", "taps_only_ms", "capture_all_ms", "verify_ms", "eager_again_ms"):
        assert row[key] > 0
    # the ms figures are rounded to 1 µs, and the tiny model's forward takes well under 1 ms
    bound = 0.0005 / row["eager_ms"] + 0.0005 / row["capture_all_ms"] + 1e-4
    assert row["ratio_capture_all"] == pytest.approx(row["capture_all_ms"] / row["eager_ms"], rel=bound)
