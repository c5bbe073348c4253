"""The real-size bench section, at a tiny size: every row is there and the pass really ran (no timing asserted)."""

from __future__ import annotations

import json

import pytest

pytest.importorskip("transformers")

from tfdebug.bench.real_size import LLAMA_1B, build_random  # noqa: E402
from tfdebug.cli import main  # noqa: E402


def test_the_llama_1b_shape_has_its_parameter_count_on_the_meta_device():
    import torch
    import transformers

    with torch.device("meta"):
        model = transformers.LlamaForCausalLM(transformers.LlamaConfig(**LLAMA_1B))
    assert 1.23e9 < sum(p.numel() for p in model.parameters()) < 1.25e9


def test_a_random_model_is_materialised_tied_and_finite():
    import torch

    from tfdebug.bench.real_size import TINY

    model = build_random(TINY, torch.bfloat16)
    assert model.lm_head.weight.data_ptr() == model.model.embed_tokens.weight.data_ptr()
    assert all(p.dtype == torch.bfloat16 and torch.isfinite(p).all() for p in model.parameters())
    assert torch.isfinite(model.model.rotary_emb.inv_freq).all()


def test_cli_bench_real_size_tiny(capsys):
    assert main(["bench", "--real-size", "--tiny", "--seq-len", "12", "--json"]) == 0
    row = json.loads(capsys.readouterr().out)
    assert row["seq_len"] == 12 and row["dtype"] == "bfloat16" and row["stages"] > 40
    assert row["kept"] == row["stages"] and row["captured_bytes"] <= row["stage_bytes"]
    for key in ("build_s", "save_s", "load_s", "first_stage_s", "rest_of_pass_s", "plain_forward_s",
                "peak_rss_bytes"):
        assert row[key] > 0, key


def test_cli_bench_real_size_in_the_window_tiny(capsys):
    """The window section at a tiny size: Run through the input bar in bfloat16, then eight F10 presses, each
    stopping at the next stage of the plan with its heatmap painted (no timing asserted)."""
    assert main(["bench", "--real-size", "--in-window", "--tiny", "--seq-len", "12", "--json"]) == 0
    row = json.loads(capsys.readouterr().out)
    window = row["window"]
    assert window["first_stage"] == "tok.embed" and window["dtype"] == "bfloat16"
    stages = [step["stage"] for step in window["steps"]]
    assert len(stages) == 8 and len(set(stages)) == 8 and stages[0].startswith("dec.0.")
    assert all(0 < step["painted_ms"] <= step["settled_ms"] for step in window["steps"])
    assert 0 < window["run_to_pass_on_screen_s"] <= window["run_to_first_stage_painted_s"]
    assert row["peak_rss_bytes"] > 0 and row["parameters"] > 0


def test_cli_bench_real_size_whole_pass_in_the_window_tiny(capsys, tmp_path):
    """The whole pass stepped by F10 in the window at a tiny size, under a capture budget chosen in the window's
    Capture Budget dialog: every stage of the plan reached in order, the budget applied, the log written."""
    log = tmp_path / "steps.jsonl"
    assert main(["bench", "--real-size", "--in-window", "--whole-pass", "--tiny", "--seq-len", "12",
                 "--max-capture-mb", "0.05", "--log", str(log)]) == 0
    row = json.loads(capsys.readouterr().out)
    assert row["every_stage_reached_by_f10"] and row["reached"] == row["stages"] > 40 and row["not_reached"] == []
    assert row["budget_bytes"] == 50_000 and row["kept_bytes"] <= row["budget_bytes"] < row["plan_bytes"]
    assert row["dropped"] > 0 and row["recipe_stages"] > 0 and row["verified"] is True
    # the kernel's high-water mark and the sampled RSS count pages a little differently: they agree within 5%
    assert row["sampled_peak_rss_bytes"] > 0 and abs(row["peak_rss_bytes"] / row["sampled_peak_rss_bytes"] - 1) < 0.05
    steps = [json.loads(line) for line in log.read_text().splitlines()]
    assert sum("stage" in s for s in steps) == row["stages"] - 1 and steps[-1]["finished"]
