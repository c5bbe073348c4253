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
        assert main(["bench", "--json", "--tiny", "--threads", "1", "--max-load", "0"]) == 0
    return json.loads(out.getvalue())


def test_bench_json_has_every_key(result):
    for section in ("capture_overhead", "session", "hf", "step_latency_ms", "memory", "snapshots", "host_syncs",
                    "sdpa", "levers", "generation", "cuda", "targets", "verdicts", "run"):
        assert section in result, section
    assert result["run"]["skipped"] == {} and set(result["run"]["section_s"]) >= {"capture", "session", "latency"}
    assert result["machine"]["torch_threads"] == 1
    row = result["capture_overhead"][0]
    for key in ("config", "n_layer", "n_embd", "seq_len", "plain_ms", "taps_only_ms", "capture_all_ms",
                "ratio_taps_only", "ratio_capture_all", "ratio_plain_again", "tuned", "peers"):
        assert key in row
    assert row["plain_ms"] > 0 and row["capture_all_ms"] > 0
    assert row["tuned"]["allocator_tuned"] is True  # the tuned row ran in a process that opted in
    assert {p["peer"] for p in row["peers"]} == {"TransformerLens", "nnsight"}
    assert all(p["status"] in ("ok", "not installed") for p in row["peers"])
    assert [(r["size"], r["source"]) for r in result["step_latency_ms"]] == [
        (64, "memory"), (64, "snapshot"), (128, "memory"), (128, "snapshot")]
    for r in result["step_latency_ms"]:
        assert 0 < r["painted_median"] <= r["settled_median"] and 0 < r["named_median"] <= r["settled_median"]
        assert 0 < r["gui_cpu_median"]  # the GUI thread's CPU time until settled
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
    from tfdebug.bench.report import verdicts
    noisy["verdicts"] = verdicts(noisy)
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
    # Steps to cheap stages first, then to dear ones: the halves differ by what was stepped to, not by the
    # machine; paired by stage, each half holds both.
    stages, ms = ["q", "q", "q", "p", "p", "p"], [1.0, 1.1, 1.0, 10.0, 10.2, 10.0]
    assert halves_ratio(ms) > 9 and halves_ratio(ms, stages) == 1.0
    assert halves_ratio([2.0, 4.0, 2.0, 4.0], ["a", "b", "a", "b"]) == 1.0


def test_bench_output_has_no_qt_plugin_warnings(capfd, qapp):
    assert main(["bench", "--tiny", "--threads", "1", "--max-load", "0", "--section", "syncs"]) == 0
    captured = capfd.readouterr()
    assert "propagateSizeHints" not in captured.out + captured.err
    assert "tfdebug bench" in captured.out


def test_bad_thread_count_is_one_sentence(capsys):
    assert main(["bench", "--threads", "0"]) == 2
    assert "--threads must be at least 1." in capsys.readouterr().err


def test_generation_rows_time_every_variant_at_each_prompt(result):
    rows = [r for r in result["generation"] if "generate_ms" not in r]
    assert [r["prompt"] for r in rows] == [4, 8]
    for r in rows:
        for name in ("no_cache", "cache", "capture_all", "cache_again"):
            assert r[f"{name}_ms"] > 0
        assert r["speedup_cache"] == pytest.approx(r["no_cache_ms"] / r["cache_ms"], rel=0.02)
        assert r["aa_ratio"] == pytest.approx(r["cache_again_ms"] / r["cache_ms"], rel=0.02)
        assert r["stages_captured"] > 0
    assert "Generation, per token" in format_report(json.loads(json.dumps(result)))


def test_the_generation_row_against_model_generate_chooses_the_same_tokens(result):
    (row,) = [r for r in result["generation"] if "generate_ms" in r]
    assert row["same_tokens"] is True and row["stages_captured"] > 0
    for name in ("generate", "tfdebug_run", "tfdebug_capture_all", "generate_again"):
        assert row[f"{name}_ms"] > 0
    assert row["ratio_capture_all"] == pytest.approx(row["tfdebug_capture_all_ms"] / row["generate_ms"], rel=0.02)
    text = format_report(json.loads(json.dumps(result)))
    assert "against model.generate" in text and "model.generate per token" in text


def test_bench_generation_alone(capsys):
    assert main(["bench", "--generation", "--tiny", "--threads", "1", "--max-load", "0"]) == 0
    text = capsys.readouterr().out
    assert "Generation, per token" in text and "speedup_cache" in text and "load average" in text
    # the real path's row (a 2-layer Llama of the same kind here), measured in a child process
    assert "against model.generate on SmolLM-135M's shape" in text and "ratio_window" in text


def test_the_real_path_row_chooses_the_tokens_generate_chose_on_both_tfdebug_paths():
    from tfdebug.bench.generation_real import hf_real_generation_row

    row = hf_real_generation_row(1, "tiny")
    assert row is not None and row["same_tokens"] is True and row["stages_captured"] > 0
    for name in ("generate", "capture_all", "window", "generate_again"):
        assert row[f"{name}_ms"] > 0 and row[f"{name}_cpu_ms"] > 0
    assert row["ratio_window"] == pytest.approx(row["window_ms"] / row["generate_ms"], rel=0.02)
    # every step's K/V cache is a view of one buffer (adapters.hf.kv_rows): the captures hold less than their sizes
    assert 0 < row["captures_hold_mb"] < row["captured_mb"]


def test_a_busy_machine_is_refused_with_a_sentence(monkeypatch, capsys):
    monkeypatch.setattr(os, "getloadavg", lambda: (9.5, 9.0, 8.0))
    assert main(["bench", "--tiny", "--section", "syncs", "--max-load", "3"]) == 2
    err = capsys.readouterr().err
    assert "too busy" in err and "9.5" in err and "--max-load" in err


def test_load_climbing_during_a_run_stops_it_at_the_next_section(monkeypatch):
    from tfdebug.bench import runner

    loads = iter([0.5, 20.0])  # quiet for the first section, then busy
    monkeypatch.setattr(runner, "load_average", lambda: next(loads, 20.0))
    run = runner.Run(runner.PROFILES["tiny"], limit=2.0)
    assert run.section("syncs", lambda: "ran") == "ran"
    assert run.section("memory", lambda: "ran") is None
    assert run.section("sdpa", lambda: "ran") is None
    summary = run.summary()
    assert set(summary["skipped"]) == {"memory", "sdpa"} and "too busy" in summary["skipped"]["memory"]


def test_a_section_that_would_pass_the_time_budget_is_skipped_and_named():
    from dataclasses import replace

    from tfdebug.bench import runner

    profile = replace(runner.PROFILES["quick"], budget_s=10.0, estimates={"hf": 60.0})
    run = runner.Run(profile, limit=None)
    assert run.section("syncs", lambda: 1) == 1
    assert run.section("hf", lambda: 1) is None
    assert "time budget" in run.summary()["skipped"]["hf"]


def test_sections_are_chosen_by_name_and_an_unknown_one_is_refused(capsys):
    import contextlib
    import io

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(["bench", "--tiny", "--json", "--max-load", "0", "--section", "syncs", "--section", "memory"]) == 0
    result = json.loads(out.getvalue())
    assert "host_syncs" in result and "memory" in result and "capture_overhead" not in result
    assert list(result["run"]["section_s"]) == ["memory", "syncs"]
    from tfdebug.bench.runner import choose_sections
    from tfdebug.core.errors import ConfigError
    with pytest.raises(ConfigError, match="no bench section 'nope'"):
        choose_sections(["nope"])


def test_every_section_the_runner_has_is_a_choice_of_the_command_line():
    """`--section startup` was refused by the command line while the runner had it (two lists of one fact)."""
    import argparse

    from tfdebug.bench.runner import SECTIONS
    from tfdebug.commands.bench import add_arguments

    parser = argparse.ArgumentParser()
    add_arguments(parser)
    for name in SECTIONS:
        assert parser.parse_args(["--section", name]).section == [name]


def test_out_writes_the_json_result(tmp_path, capsys):
    path = tmp_path / "bench.json"
    assert main(["bench", "--tiny", "--max-load", "0", "--section", "syncs", "--out", str(path)]) == 0
    assert json.loads(path.read_text())["host_syncs"]["captured_forward"] == 1


class _FakeClock:
    """A timer the test drives: each variant advances it by the milliseconds it is told to take."""

    def __init__(self):
        self.now = 0.0

    def perf_counter(self) -> float:
        return self.now

    def take(self, ms: float) -> None:
        self.now += ms / 1000.0


def _aa_section(clock: _FakeClock, again_ms: list[float]):
    """A section timed the way the bench times one: the plain forward and the same again, interleaved."""
    from tfdebug.bench.timing import interleaved_ms, median

    def run():
        slow = again_ms.pop(0)
        times = interleaved_ms({"plain": lambda: clock.take(10.0), "plain_again": lambda: clock.take(slow)},
                               repeats=3, warmup=0)
        return [{"config": "fake", "ratio_plain_again": round(median(times["plain_again"]) / median(times["plain"]),
                                                              4)}]
    return run


def test_a_noisy_section_is_retried_once_and_kept_when_the_retry_holds(monkeypatch):
    import time as time_module

    from tfdebug.bench import runner

    clock = _FakeClock()
    monkeypatch.setattr(time_module, "perf_counter", clock.perf_counter)
    run = runner.Run(runner.PROFILES["tiny"], limit=None)
    rows = run.section("capture", _aa_section(clock, [13.0, 10.2]))  # A/A 1.3, then 1.02
    assert rows == [{"config": "fake", "ratio_plain_again": 1.02}]
    summary = run.summary()
    assert summary["retried"] == ["capture"] and summary["too_busy"] == [] and summary["aa_held"] is True


def test_a_section_noisy_twice_says_machine_too_busy_and_no_table_is_made_from_it(monkeypatch, tmp_path):
    import time as time_module

    from tfdebug.bench import runner
    from tfdebug.bench.tables import update_document

    clock = _FakeClock()
    monkeypatch.setattr(time_module, "perf_counter", clock.perf_counter)
    run = runner.Run(runner.PROFILES["tiny"], limit=None)
    calls = [13.0, 8.0, 10.0]
    rows = run.section("capture", _aa_section(clock, calls))
    assert calls == [10.0], "retried once, not twice"
    assert rows == [{"config": "fake", "ratio_plain_again": 0.8, "status": "machine too busy"}]
    summary = run.summary()
    assert summary["too_busy"] == ["capture"] and summary["aa_held"] is False
    result = {"machine": {"torch": "2", "torch_threads": 1, "cpu_count": 2, "load_average": [3.0, 3.0, 3.0]},
              "run": summary, "scale": {}}
    (tmp_path / "run.json").write_text(json.dumps(result))
    doc = tmp_path / "page.md"
    doc.write_text("<!-- bench:scale run.json -->\nold\n<!-- /bench:scale -->\n")
    with pytest.raises(ValueError, match="machine too busy"):
        update_document(doc)
    text = format_report({**result, "verdicts": []})
    assert "capture: A/A outside 0.95–1.05 twice" in text


def test_a_section_without_an_aa_ratio_runs_once():
    from tfdebug.bench import runner

    calls = []
    run = runner.Run(runner.PROFILES["tiny"], limit=None)
    assert run.section("syncs", lambda: calls.append(1) or {"captured_forward": 1}) == {"captured_forward": 1}
    assert calls == [1] and run.summary()["aa_held"] is True


def test_the_why_section_times_the_lens_the_attribution_and_a_sweep_beside_the_plain_forward(capsys):
    pytest.importorskip("transformers")
    assert main(["bench", "--tiny", "--max-load", "0", "--section", "why"]) == 0
    out = capsys.readouterr().out
    for row in ("capture_all_stages", "lens_screen", "attribution", "sweep"):
        assert row in out
    assert "cells" in out and "forwards of" in out and "A/A" in out


def test_the_why_section_times_transformer_lens_on_the_same_model_where_it_is_installed():
    pytest.importorskip("transformer_lens")
    from tfdebug.bench.why import why_section

    section = why_section("tiny", repeats=2)
    ours, theirs = section["rows"], section["transformer_lens"]["rows"]
    assert [r["row"] for r in theirs] == [r["row"] for r in ours]
    for mine, peer in zip(ours, theirs):
        assert mine["tokens"] == peer["tokens"] and mine["plain_forward_ms"] == peer["plain_forward_ms"]
        assert peer["median_ms"] > 0 and peer["ratio"] > 0
    assert theirs[-1]["forwards"] == 2 * 8  # resid_pre: one cell per layer × position, one forward each


def test_the_backward_section_times_the_captured_backward_beside_plain_loss_backward(capsys):
    pytest.importorskip("transformers")
    assert main(["bench", "--tiny", "--max-load", "0", "--section", "backward"]) == 0
    out = capsys.readouterr().out
    assert "Backward (HF GPT-2 shape" in out and "plain A/A" in out
    for tokens in (8, 16):
        assert f"{tokens:>5} tokens  plain" in out
        for variant in ("plain", "tfdebug"):
            assert f"{tokens:>5} tokens  {variant:<8} peak RSS" in out
    assert "of plain's" in out and "plain loss.backward() (8 tokens)" in out
    # the real-size row's kind (tiny: 2 layers): the peak stated before the backward beside the one measured
    assert "real size: tiny in float32 at 64 tokens" in out and "peak stated before it ran" in out


def test_the_peers_sweep_samples_cells_spread_evenly_over_the_layers_and_positions():
    pytest.importorskip("pandas")
    from tfdebug.bench.why import _spread_cells

    every = _spread_cells(30, 64, None)
    assert len(every) == 30 * 64 and list(every.columns) == ["layer", "pos"]
    sampled = _spread_cells(30, 64, 128)
    assert len(sampled) == 128 and len(set(map(tuple, sampled.values.tolist()))) == 128
    assert sampled["layer"].min() == 0 and sampled["layer"].max() == 29  # every depth is timed
    assert sampled["pos"].nunique() > 32  # and most positions
    assert len(_spread_cells(2, 8, 128)) == 16  # fewer cells than asked: every one


def test_interleaved_runs_between_before_every_timed_run_and_times_none_of_it(monkeypatch):
    import time as time_module

    from tfdebug.bench.timing import interleaved_ms

    clock, order = _FakeClock(), []

    def between():
        order.append("between")
        clock.take(50.0)  # untimed: no variant's time includes it

    variants = {name: (lambda name=name: (order.append(name), clock.take(10.0))) for name in ("a", "a_again")}
    monkeypatch.setattr(time_module, "perf_counter", clock.perf_counter)
    times = interleaved_ms(variants, repeats=2, warmup=1, between=between)
    assert {name: [round(t, 6) for t in values] for name, values in times.items()} == {"a": [10.0, 10.0],
                                                                                        "a_again": [10.0, 10.0]}
    assert order == ["a", "a_again"] + ["between", "a", "between", "a_again"] * 2


def test_the_labelled_aa_pairs_each_stage_with_itself_and_sees_a_drift_through_the_stages_costs():
    costs = {"q": 12.0, "scores": 40.0, "probs": 70.0}
    labels = [stage for _ in range(4) for stage in costs]
    steady = [costs[stage] for stage in labels]
    assert halves_ratio(steady, labels) == 1.0
    # The machine 10% slower for the second half: every pair says so, whatever the stages cost.
    drifted = [cost * (1.1 if i >= len(labels) // 2 else 1.0) for i, cost in enumerate(steady)]
    assert halves_ratio(drifted, labels) == 1.1
