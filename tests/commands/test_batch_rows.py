"""Batches sized before they run (issue 53, item 6): a file of 100,000 or 1,000,000 lines given as a batch is
refused from its line count in one sentence, exit 2, before the model loads or anything is tokenized."""

from __future__ import annotations

import pytest

from tfdebug import cli
from tfdebug.commands import common
from tfdebug.core.batches import MAX_BATCH_ROWS


@pytest.mark.parametrize("rows", [100_000, 1_000_000])
def test_a_batch_file_past_the_limit_is_refused_before_the_model_loads(tmp_path, capsys, monkeypatch, rows):
    lines = tmp_path / "rows.txt"
    lines.write_text("the cat sat\n" * rows)
    loaded = []
    from tfdebug.commands import capture, stages

    for module in (common, capture, stages):
        monkeypatch.setattr(module, "load_from_args", lambda args: loaded.append(args))
    for command in (["capture", "--out", str(tmp_path / "x.npz")], ["stages"]):
        code = cli.main([*command, "--model", "tiny-gpt2", "--input-file", f"prompt={lines}"])
        out, err = capsys.readouterr()
        assert code == 2 and err.count("\n") == 1 and "Traceback" not in err, err
        assert f"The batch has {rows:,} rows; one pass takes at most {MAX_BATCH_ROWS:,}" in err
    assert loaded == [] and not (tmp_path / "x.npz").exists()


def test_the_adapters_own_batch_is_held_to_the_same_limit():
    pytest.importorskip("transformers")
    from tfdebug.adapters.registry import load_adapter
    from tfdebug.core.errors import InputError

    adapter = load_adapter("tiny-gpt2")
    with pytest.raises(InputError, match="one pass takes at most"):
        adapter.prepare_batch([{"prompt": "a"}] * (MAX_BATCH_ROWS + 1))
