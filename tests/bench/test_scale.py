"""`tfdebug bench --scale` at tiny sizes: every variant runs in a process of its own and its row has the fields
the docs' table reads; a variant above the cap is stated with its need, not run."""

import json

import pytest

pytest.importorskip("transformers")

from tfdebug.bench.scale import VARIANTS, scale_section, transformer_lens_need, _config  # noqa: E402
from tfdebug.bench.tables import scale_table  # noqa: E402
from tfdebug.cli import main  # noqa: E402

MACHINE = {"torch": "2.13.0+cpu", "torch_threads": 1, "cpu_count": 2, "load_average": [0.4, 0.5, 0.6]}


@pytest.mark.slow
def test_the_scale_section_runs_at_tiny_sizes_and_its_json_has_the_fields(tmp_path, capsys):
    out = tmp_path / "scale.json"
    assert main(["bench", "--tiny", "--scale", "--json", "--out", str(out), "--max-load", "0"]) == 0
    result = json.loads(out.read_text())
    scale = result["scale"]
    rows = {r["variant"]: r for r in scale["rows"]}
    assert set(rows) == set(VARIANTS) and {r["seq_len"] for r in scale["rows"]} == {16}
    for name in ("plain", "tfdebug", "materialised"):
        row = rows[name]
        assert row["status"] == "ok", row
        # a fresh process each: its peak is its own, at least what it held before the pass
        assert row["peak_rss_bytes"] >= row["rss_before_bytes"] > 0 and row["peak_above_before_bytes"] >= 0
    t, m = rows["tfdebug"], rows["materialised"]
    assert t["recipes"] == 4 and m["recipes"] == 0 and t["stages"] == m["stages"]
    # the planes kept whole are held on top of what the recipes keep: exactly the planes' bytes more
    assert m["held_bytes"] - t["held_bytes"] == t["plane_bytes"] > 0
    assert t["held_bytes_per_token"] == round(t["held_bytes"] / 16)
    assert t["plan_bytes"] == m["plan_bytes"] and t["show_one_head_ms"] > 0 and t["shown_pixels"] == [16, 16]
    assert rows["transformer_lens"]["status"] in ("ok", "not installed")
    w = rows["window"]  # F10 onto each recipe stage of the last layer in the real window, the plane painted
    assert w["status"] == "ok", w
    assert [s["stage"].rsplit(".", 1)[1] for s in w["recipe_steps"]] == ["scores", "scaled", "masked", "probs"]
    assert all(0 < s["painted_ms"] <= s["settled_ms"] and s["head_pixels"] == [16, 16] for s in w["recipe_steps"])
    assert w["f10_painted_probs_ms"] == w["recipe_steps"][-1]["painted_ms"]
    table = scale_table({**result, "machine": MACHINE})
    assert "| 16 |" in table and f"{t['held_bytes_per_token'] / 1e3:,.1f}" in table
    assert f"{w['f10_painted_probs_ms']:,.0f} |" in table
    # the plan's stated peak against the measured one (issue 54 item 1), at the tiny profile's length
    [peak] = scale["plan_peak"]
    assert peak["status"] == "ok" and peak["held"] and peak["peak_rss_bytes"] <= peak["stated_peak_bytes"], peak


def test_a_variant_above_the_cap_is_stated_with_its_need_and_not_run():
    result = scale_section("tiny", lengths=(64,), cap_bytes=1, plan_peak=False)
    assert [r["status"] for r in result["rows"]] == ["not run: needs more than the cap"] * len(VARIANTS)
    tl = next(r for r in result["rows"] if r["variant"] == "transformer_lens")
    assert tl["need_bytes"] == transformer_lens_need(_config("tiny", 64))
    table = scale_table({"machine": MACHINE, "scale": result})
    assert "not run: needs ~" in table
