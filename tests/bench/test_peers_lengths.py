"""`tfdebug bench --peers` at several lengths: a run per length, a variant above the cap stated with its need,
and the too-large row planned (nothing run) against the peers' needs."""

import pytest

pytest.importorskip("transformers")

from tfdebug.bench.peers import PLANES_AND_WIDTHS, peer_need, peers_section  # noqa: E402
from tfdebug.bench.tables import peers_table  # noqa: E402

MACHINE = {"torch": "2.13.0+cpu", "torch_threads": 1, "cpu_count": 2, "load_average": [0.4, 0.5, 0.6]}


@pytest.mark.slow
def test_a_run_per_length_and_the_too_large_row_planned():
    # cap 1 byte: every peer stated with its need, tfdebug and the plain forwards timed
    result = peers_section("tiny", repeats=2, lengths=(8, 16), cap_bytes=1, too_large=64)
    assert [run["seq_len"] for run in result["runs"]] == [8, 16]
    for run in result["runs"]:
        rows = {r["variant"]: r for r in run["rows"]}
        assert rows["tfdebug_capture_all"]["status"] == "ok" and rows["tfdebug_capture_all"]["bytes_held"] > 0
        for name in PLANES_AND_WIDTHS:
            assert rows[name]["status"].startswith("not run: needs ~")
            assert rows[name]["need_bytes"] == peer_need(name, 1, 4, 32, run["seq_len"])
    big = result["too_large"]
    t = big["tfdebug"]
    assert big["seq_len"] == 64 and t["recipes"] == 4 and t["kept"] + t["dropped"] == t["stages"]
    # the recipes hold no plane: what the plan holds is less than the stages' sum by every plane (4 heads × 64²)
    assert t["planes_kept_whole_bytes"] - t["held_bytes"] == 4 * 4 * 64 * 64 * 4
    text = peers_table({"machine": MACHINE, "peers": result})
    assert "seq 8," in text and "seq 16," in text and "At 64 tokens" in text
    assert f"~{peer_need('transformer_lens', 1, 4, 32, 64) / 1e9:,.0f} GB" in text


def test_transformer_lens_needs_two_planes_per_head():
    # TransformerLens keeps attn_scores and pattern: at 4,096 tokens on the GPT-2 shape that alone is 9.7 GB
    assert peer_need("transformer_lens", 6, 12, 768, 4096) >= 2 * 6 * 12 * 4096 ** 2 * 4
