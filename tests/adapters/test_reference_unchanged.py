"""The reference model behind the adapter seam prints the same stages, shapes and values as before it.

tests/data/stages_random_before_adapters.json is `tfdebug stages --model random --json` as
printed by the last version without adapters. Since then the positional-encoding table
became a stage of its own (`src.pe`, `tgt.pe`, issue 13): those two are new, every stage
of the golden is still there, in the same order, with the same facts and values.
"""

import json
from pathlib import Path

from tfdebug.cli import main

BEFORE = Path(__file__).resolve().parents[1] / "data" / "stages_random_before_adapters.json"
KEYS = ("name", "kind", "site", "layer", "shape", "dtype", "axes", "formula")
# Stages added after the golden was written, each just before the stage named beside it.
ADDED = {"src.pe": "src.pos", "tgt.pe": "tgt.pos"}


def test_stages_json_of_the_random_model_is_unchanged(capsys):
    assert main(["stages", "--model", "random", "--json"]) == 0
    everything = json.loads(capsys.readouterr().out)
    names = [r["name"] for r in everything]
    for added, before_stage in ADDED.items():
        assert names.index(added) == names.index(before_stage) - 1
    now = [r for r in everything if r["name"] not in ADDED]
    before = json.loads(BEFORE.read_text(encoding="utf-8"))
    assert [r["name"] for r in now] == [r["name"] for r in before]
    for a, b in zip(now, before):
        assert {k: a[k] for k in KEYS} == {k: b[k] for k in KEYS}, a["name"]
        for stat, value in b["stats"].items():
            if isinstance(value, float):
                assert abs(a["stats"][stat] - value) <= 1e-5 * max(1.0, abs(value)), (a["name"], stat)
            else:
                assert a["stats"][stat] == value, (a["name"], stat)


def test_src_and_tgt_are_shorthands_for_input(capsys):
    assert main(["stages", "--model", "random", "--src", "I love you", "--tgt", "我", "--json"]) == 0
    short = json.loads(capsys.readouterr().out)
    assert main(["stages", "--model", "random", "--input", "src=I love you", "--input", "tgt=我", "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == short
    assert short[-1]["shape"] == [1, 2, len(short[-1]["axes"]) and short[-1]["shape"][2]]


def test_an_input_the_model_does_not_take_is_one_sentence(capsys):
    assert main(["stages", "--model", "random", "--input", "prompt=hello"]) == 2
    err = capsys.readouterr().err
    assert "takes no input called 'prompt'" in err and "Traceback" not in err
    assert main(["stages", "--model", "random", "--input", "no-equals-sign"]) == 2
    assert "KEY=TEXT" in capsys.readouterr().err
