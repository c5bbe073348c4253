"""The docs' benchmark tables are generated from bench JSON, and the committed page matches its JSON."""

import json
from pathlib import Path

from tfdebug.bench.tables import TABLES, update_document

DOCS = Path(__file__).resolve().parents[2] / "docs"

MACHINE = {"torch": "2.13.0+cpu", "torch_threads": 1, "cpu_count": 2, "load_average": [0.4, 0.5, 0.6]}


def test_the_performance_page_matches_the_json_it_names():
    page = DOCS / "performance.md"
    assert "<!-- bench:" in page.read_text(encoding="utf-8")
    assert update_document(page) == page.read_text(encoding="utf-8"), \
        "docs/performance.md is stale: run python -m tfdebug.bench.tables docs/performance.md"


def test_a_block_is_rewritten_from_its_file(tmp_path):
    result = {"machine": MACHINE, "run": {"load_after_section": {"peers": 1.2}}, "peers": {
        "config": "hf-gpt2 6x768", "n_heads": 12, "seq_len": 256, "vocab_size": 1000, "allocator_tuned": False,
        "repeats": 5, "aa_ratio": 1.01, "rows": [
            {"variant": "hf_eager", "status": "ok", "ms": 100.0, "ratio_own_plain": 1.0, "ratio_hf_sdpa": 1.1,
             "tensors_kept": 1, "bytes_held": 2_000_000, "faults_per_pass": 12345},
            {"variant": "nnsight", "status": "not installed"}]}}
    (tmp_path / "run.json").write_text(json.dumps(result))
    doc = tmp_path / "page.md"
    doc.write_text("before\n<!-- bench:peers run.json -->\nold figures\n<!-- /bench:peers -->\nafter\n")
    text = update_document(doc)
    assert "old figures" not in text and text.startswith("before\n") and text.endswith("after\n")
    assert "| hf_eager | – | 100.0 | 1.000× | 1.100× | 1 | 2 | 12,345 |" in text
    assert "nnsight | – | not installed" in text and "A/A (HF eager timed twice) 1.010" in text
    assert "load average 0.4 at the start (after each section: peers 1.2)" in text


def test_every_table_has_a_formatter():
    assert set(TABLES) == {"peers", "session", "capture_overhead", "levers", "scale"}
