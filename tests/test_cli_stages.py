"""`tfdebug stages`: the console table and its JSON form."""

import json

from tfdebug.cli import main


def test_stages_json_lists_every_stage_with_stats(capsys):
    assert main(["stages", "--model", "random", "--src", "I love you", "--tgt", "我 爱", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert rows[0]["name"] == "src.embed" and rows[-1]["name"] == "logits"
    for row in rows:
        assert set(row) == {"name", "kind", "site", "layer", "shape", "dtype", "axes", "formula", "stats"}
        assert set(row["stats"]) == {"min", "max", "mean", "std", "nan", "posinf", "neginf"}
    by_name = {r["name"]: r for r in rows}
    assert by_name["dec.0.cross_attn.scores"]["shape"] == [1, 4, 3, 3]
    assert by_name["enc.norm"]["layer"] is None and by_name["enc.norm"]["site"] == "enc"
    assert by_name["dec.0.self_attn.masked"]["stats"]["neginf"] > 0


def test_stages_table_and_bad_input(capsys):
    assert main(["stages", "--model", "random", "--stages", "logits"]) == 0
    out = capsys.readouterr().out
    assert "logits" in out and "1 stages" in out
    assert main(["stages", "--model", "random", "--src", ""]) == 2
    assert "source sentence is empty" in capsys.readouterr().err


def test_a_stage_pattern_that_matches_nothing_is_named(capsys):
    # A typo (attention blocks are 'attn' / 'self_attn') printed "0 stages" and exit 0.
    assert main(["stages", "--model", "random", "--stages", "logits", "enc.*.attention.probs"]) == 2
    err = capsys.readouterr().err
    assert "No stage matches 'enc.*.attention.probs'; stage names look like enc.1.attn.probs." in err


def test_a_near_miss_model_or_stage_name_gets_the_closest_one_named(capsys):
    from tfdebug.cli import main

    assert main(["stages", "--model", "tinygpt2"]) == 2
    assert "did you mean tiny-gpt2?" in capsys.readouterr().err
    from tfdebug.adapters import load_adapter
    from tfdebug.sessions.session import DebugSession

    session = DebugSession(load_adapter("random"), {"src": "I love you", "tgt": "我"})
    import pytest

    from tfdebug.core.errors import UnknownStageError

    with pytest.raises(UnknownStageError, match="did you mean dec.0.self_attn.masked"):
        session.stepper.run_to("dec.0.self_atn.masked")
