"""`tfdebug bench --quick --json` on the tiny configuration produces every section and key (figures not asserted)."""

import json
import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from tfdebug.cli import main


def test_bench_json_has_every_key(capsys, qapp):
    assert main(["bench", "--quick", "--json", "--tiny"]) == 0
    result = json.loads(capsys.readouterr().out)
    for section in ("capture_overhead", "step_latency_ms", "memory", "snapshots", "cuda", "targets"):
        assert section in result
    row = result["capture_overhead"][0]
    for key in ("config", "n_layer", "n_embd", "seq_len", "plain_ms", "taps_only_ms", "capture_all_ms",
                "ratio_taps_only", "ratio_capture_all", "transformer_lens_ms", "transformer_lens_plain_ms"):
        assert key in row
    assert row["plain_ms"] > 0 and row["capture_all_ms"] > 0
    assert [r["size"] for r in result["step_latency_ms"]] == [64, 128]
    assert all(set(r) == {"size", "median", "p95"} for r in result["step_latency_ms"])
    memory = result["memory"]
    assert memory["held_bytes"] == memory["distinct_stage_bytes"] <= memory["stage_bytes"]
    assert memory["peak_rss_bytes"] > 0
    for key in ("save_s", "save_file_s", "ratio_save_throughput", "open_one_stage_s", "safe_open_one_stage_s"):
        assert key in result["snapshots"]
    assert "host_syncs_per_captured_forward" in result["cuda"]


def test_bench_table_prints(capsys, qapp):
    assert main(["bench", "--quick", "--tiny"]) == 0
    out = capsys.readouterr().out
    assert "Capture overhead" in out and "Step latency" in out and "Snapshots" in out
