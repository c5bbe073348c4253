"""`tfdebug bench --quick --json` on the tiny configuration produces every section and key (figures not asserted)."""

import json
import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import pytest  # noqa: E402

from tfdebug.bench.noise import TOO_BUSY, halves_ratio, verdict  # noqa: E402
from tfdebug.bench.report import format_report  # noqa: E402
from tfdebug.cli import main  # noqa: E402


@pytest.fixture(scope="module")
def result(qapp):
    import contextlib
    import io

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(["bench", "--quick", "--json", "--tiny", "--threads", "1"]) == 0
    return json.loads(out.getvalue())


def test_bench_json_has_every_key(result):
    for section in ("capture_overhead", "step_latency_ms", "memory", "snapshots", "host_syncs", "cuda", "targets",
                    "verdicts"):
        assert section in result
    assert result["machine"]["torch_threads"] == 1
    row = result["capture_overhead"][0]
    for key in ("config", "n_layer", "n_embd", "seq_len", "plain_ms", "taps_only_ms", "capture_all_ms",
                "ratio_taps_only", "ratio_capture_all", "ratio_plain_again", "tuned", "peers"):
        assert key in row
    assert row["plain_ms"] > 0 and row["capture_all_ms"] > 0
    assert row["tuned"]["allocator_tuned"] is True  # the tuned row ran in a process that opted in
    assert {p["peer"] for p in row["peers"]} == {"TransformerLens", "nnsight"}
    assert all(p["status"] in ("ok", "not installed") for p in row["peers"])
    assert [r["size"] for r in result["step_latency_ms"]] == [64, 128]
    for r in result["step_latency_ms"]:
        assert 0 < r["painted_median"] <= r["settled_median"]
    memory = result["memory"]
    assert memory["held_bytes"] == memory["distinct_stage_bytes"] <= memory["stage_bytes"]
    # The bench never tunes itself; the report says whether this process was (other tests' CLI runs may have).
    from tfdebug.core.memory import allocator_tuned
    assert memory["peak_rss_bytes"] > 0 and memory["allocator_tuned"] is allocator_tuned()
    for key in ("save_s", "save_file_s", "ratio_save_throughput", "open_one_stage_s", "aa_ratio"):
        assert key in result["snapshots"]
    assert result["host_syncs"]["captured_forward"] == 1 and result["host_syncs"]["heads"] == 1
    assert "host_syncs_per_captured_forward" in result["cuda"]


def test_table_names_absent_peers_and_warns_when_too_busy(result):
    text = format_report(json.loads(json.dumps(result)))
    assert "Capture overhead" in text and "to painted heatmap" in text and "Snapshots" in text
    assert "Hugging Face GPT-2 through the adapter" in text  # the hf extra is part of the test install
    assert "None" not in text
    noisy = json.loads(json.dumps(result))
    noisy["capture_overhead"][0]["ratio_plain_again"] = 1.3
    noisy["step_latency_ms"][0]["aa_ratio"] = 0.7
    noisy["step_latency_ms"][0]["aa_ratio_settled"] = 0.7
    noisy["snapshots"]["aa_ratio"] = 1.2
    noisy["capture_overhead"][0]["n_embd"] = 512  # judged rows are the wide ones
    from tfdebug.bench.report import _verdicts
    noisy["verdicts"] = _verdicts(noisy)
    text = format_report(noisy)
    assert TOO_BUSY in text and "WARNING" in text and "too busy" in text
    absent = json.loads(json.dumps(result))
    absent["capture_overhead"][0]["peers"] = [{"peer": "TransformerLens", "status": "not installed"}]
    assert "TransformerLens not installed" in format_report(absent)


def test_verdicts_refuse_to_judge_a_noisy_run():
    assert verdict(1.05, 1.10, aa_ratio=1.0) == "pass"
    assert verdict(1.2, 1.10, aa_ratio=1.0) == "fail"
    assert verdict(1.05, 1.10, aa_ratio=1.2) == TOO_BUSY
    assert verdict(1.05, 1.10, aa_ratio=None) == TOO_BUSY
    assert halves_ratio([10, 10, 20, 20]) == 2.0 and halves_ratio([1.0]) is None


def test_bench_output_has_no_qt_plugin_warnings(capfd, qapp):
    assert main(["bench", "--quick", "--tiny", "--threads", "1"]) == 0
    captured = capfd.readouterr()
    assert "propagateSizeHints" not in captured.out + captured.err
    assert "tfdebug bench" in captured.out


def test_bad_thread_count_is_one_sentence(capsys):
    assert main(["bench", "--threads", "0"]) == 2
    assert "--threads must be at least 1." in capsys.readouterr().err


def test_generation_rows_time_every_variant_at_each_prompt(result):
    rows = result["generation"]
    assert [r["prompt"] for r in rows] == [4, 8]
    for r in rows:
        for name in ("no_cache", "cache", "capture_all", "cache_again"):
            assert r[f"{name}_ms"] > 0
        assert r["speedup_cache"] == pytest.approx(r["no_cache_ms"] / r["cache_ms"], rel=0.02)
        assert r["aa_ratio"] == pytest.approx(r["cache_again_ms"] / r["cache_ms"], rel=0.02)
        assert r["stages_captured"] > 0
    assert "Generation, per token" in format_report(json.loads(json.dumps(result)))


def test_bench_generation_alone(capsys):
    assert main(["bench", "--generation", "--tiny", "--threads", "1"]) == 0
    text = capsys.readouterr().out
    assert "Generation, per token" in text and "speedup_cache" in text and "load average" in text
