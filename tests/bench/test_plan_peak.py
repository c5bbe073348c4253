"""Issue 54 item 1: the peak `tfdebug capture` states before the pass is an upper bound of the peak it reaches.

Measured as the process's whole peak RSS (`ru_maxrss`, the kernel's high-water mark, set to the RSS just before
the command), not a tracked allocation count: the promise is about the process (what `--help` and the docs say
of RAM, what the kernel kills for), and an allocation count would miss what is not torch's (the file's write,
the libraries' buffers, glibc's freed-but-kept heap). RSS noise at this size is tens of MB; the shape (2 small
layers, a 65,536-word vocabulary, 512 tokens) makes what is in flight at the end of the pass large beside it:
the logits are 134 MB, and the check's old whole-stage comparison of them (a difference, its absolute value and a
masked copy) reached 0.96 GB against a stated 0.71 GB. Run in a fresh process of its own (`bench.child`), so no
earlier test's memory counts.
"""

from __future__ import annotations

import pytest

pytest.importorskip("transformers")


@pytest.mark.slow
def test_the_stated_peak_holds_the_measured_one_at_a_size_ci_affords():
    from tfdebug.bench.plan_peak import format_plan_peak, plan_peak_rows

    [row] = plan_peak_rows("tiny", timeout=600)
    assert row["status"] == "ok" and row["exit"] == 0, row
    assert row["peak_rss_bytes"] <= row["stated_peak_bytes"], format_plan_peak([row])
    # the end of the pass is what is measured: the check and the write came after the pass, and were sampled
    assert {"pass", "check", "write"} <= set(row["phase_peaks_bytes"])
    assert row["stated_check_bytes"] > 0 and row["held"]
    # the parts timed, and the plain forward of the same model on the same ids beside them
    assert row["plain_tokens"] == row["seq_len"] and row["pass_s"] > 0 and row["check_s"] > 0
    assert row["plain_eager_s"] > 0 and row["plain_sdpa_s"] > 0 and row["plain_aa"] > 0
    assert row["checked_over_eager"] > row["capture_over_eager"] > 0
    assert "with the check" in "\n".join(format_plan_peak([row]))
    # the check in the pass (--verify attention): its pass, the check in it, and no check after it
    assert row["in_pass_exit"] == 0 and row["in_pass_s"] > 0 and row["in_pass_check_s"] == 0
    assert 0 < row["in_pass_over_eager"] < row["checked_over_eager"]
    assert "with the check in the pass" in "\n".join(format_plan_peak([row]))
    # the pass again without the check (--verify never), each round after the plain forwards of that round
    assert row["never_exit"] == 0 and row["never_check_s"] == 0 and len(row["never_rounds_s"]) == 2
    assert row["never_s"] == min(row["never_rounds_s"]) > 0 and row["never_over_eager"] > 0
    assert len(row["in_pass_rounds_s"]) == 2
    assert "interleaved with the plain forwards (--verify never)" in "\n".join(format_plan_peak([row]))
    # every layer's attention opens from the written snapshot, and one head of the last shows
    assert row["attention_stages"] == row["attention_opened"] == 2 and row["show_one_head_ms"] > 0
    # and the window's whole work on that stage (picture, every head's thumbnail, stats, checks) as it prepares it
    assert row["window_stage_s"] > 0 and row["window_stage_thumbnails"] == 4 and row["window_stage_peak_bytes"] >= 0
    assert row["window_stage_checks_passed"] == "3 of 3"
    assert "the window's work on it" in "\n".join(format_plan_peak([row]))
    # the plain forward as a person's own fresh process runs it once, twice for its A/A
    assert row["cold_eager_s"] > 0 and row["cold_aa"] > 0 and row["capture_over_cold_eager"] > 0
    assert "in a fresh process of its own" in "\n".join(format_plan_peak([row]))
