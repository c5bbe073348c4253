"""`tfdebug lens` and `tfdebug attribute` as a user runs them: their JSON and CSV, and one sentence with exit 2
for what they cannot do."""

from __future__ import annotations

import csv
import io
import json

import pytest

from tests.adapters import hf_tokenizers
from tests.adapters.hf_tiny import bert, llama, save_folder
from tfdebug.cli import main

transformers = pytest.importorskip("transformers")

PROMPT = ["--model", "tiny-gpt2", "--input", "prompt=the cat is on the mat ="]


def test_lens_json_has_a_row_per_residual_stage_and_its_last_row_is_the_prediction(capsys):
    assert main(["lens", *PROMPT, "--json", "--positions", "0", "-1", "--top", "3"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["rows"] == ["tok.pos", "dec.0.ffn.resid", "dec.1.ffn.resid"]
    assert data["positions"] == [0, 7] and data["tokens"] == ["<|endoftext|>", "="]
    for cell in data["cells"][-1]:
        assert cell["rank"] == 1 and cell["kl"] == pytest.approx(0, abs=1e-6)
        assert cell["top"][0][0] == cell["target"] and cell["top_tokens"][0] == cell["target_token"]
        assert len(cell["top"]) == 3


def test_lens_with_a_target_word_follows_that_token(capsys):
    assert main(["lens", *PROMPT, "--csv", "--target", "猫", "--positions", "-1"]) == 0
    rows = list(csv.DictReader(io.StringIO(capsys.readouterr().out)))
    assert [r["stage"] for r in rows] == ["tok.pos", "dec.0.ffn.resid", "dec.1.ffn.resid"]
    assert {r["target"] for r in rows} == {"猫"}
    assert int(rows[-1]["rank"]) <= int(rows[0]["rank"])


def test_attribute_terms_sum_to_the_logit_difference(capsys):
    assert main(["attribute", *PROMPT, "--contrast", "的", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["contrast_token"] == "的"
    assert sum(t["value"] for t in data["terms"]) == pytest.approx(data["logit_diff"], rel=1e-5)
    assert data["total"] == pytest.approx(data["logit_diff"], rel=1e-5)
    heads = [(t["layer"], t["head"]) for t in data["terms"] if t["kind"] == "head"]
    assert heads == [(layer, h) for layer in range(2) for h in range(4)]
    assert "frozen" in data["convention"]


def test_attribute_over_a_chat_template(tmp_path, capsys):
    folder = hf_tokenizers.chat_llama_folder(tmp_path / "chat")
    assert main(["attribute", "--model", f"hf:{folder}", "--chat", "--input", "prompt=what is the capital of france?",
                 "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["total"] == pytest.approx(data["logit_diff"], rel=1e-5)
    assert data["contrast"] is None


@pytest.mark.parametrize("extra, says", [
    (["--target", "#99999"], "outside the vocabulary"),
    (["--target", "unheardofword"], "not a token"),
    (["--position", "40"], "outside the prompt"),
])
def test_what_attribute_cannot_do_is_one_sentence(extra, says, capsys):
    assert main(["attribute", *PROMPT, *extra]) == 2
    err = capsys.readouterr().err
    assert says in err and "Traceback" not in err and len(err.strip().splitlines()) == 1


def test_an_encoder_has_no_lens_and_says_so(tmp_path, capsys):
    folder = save_folder(bert(), tmp_path / "bert")
    assert main(["lens", "--model", f"hf:{folder}", "--input", "text=I love you"]) == 2
    assert "no language-model head" in capsys.readouterr().err


def test_patch_localises_the_changed_word(capsys):
    assert main(["patch", "--model", "tiny-gpt2", "--input", "prompt=the cat is on the mat =",
                 "--corrupt", "prompt=the dog is on the mat =", "--json"]) == 0
    captured = capsys.readouterr()
    assert "3 rows × 8 positions: 24 cells in 1 forwards of 24" in captured.err
    data = json.loads(captured.out)
    assert (data["target_token"], data["contrast_token"]) == ("猫", "狗")
    recovered = data["recovered"]
    assert recovered[0][2] == pytest.approx(1.0, abs=1e-5)  # the embeddings: only the changed word matters
    assert max(abs(x) for i, x in enumerate(recovered[0]) if i != 2) < 1e-6
    assert recovered[-1][-1] == pytest.approx(1.0, abs=1e-5)  # the last block: only the last position


def test_patch_heads_is_a_layers_by_heads_table_of_the_head_sweep(capsys):
    from tfdebug.adapters.registry import load_adapter
    from tfdebug.sessions.patching import Patcher

    clean, corrupt = "the cat is on the mat =", "the dog is on the mat ="
    assert main(["patch", "--model", "tiny-gpt2", "--input", f"prompt={clean}", "--corrupt", f"prompt={corrupt}",
                 "--heads", "--json"]) == 0
    captured = capsys.readouterr()
    assert "2 attentions × 4 heads: 8 cells in 1 forwards of 8" in captured.err
    data = json.loads(captured.out)
    assert data["across"] == "head" and data["positions"] == [0, 1, 2, 3] and "tokens" not in data
    patcher = Patcher(load_adapter("tiny-gpt2"), {"prompt": clean}, {"prompt": corrupt})
    sweep = patcher.head_sweep(data["target"], data["contrast"], -1)  # core's sweep (held to plain hooks there)
    assert data["rows"] == sweep.rows
    assert all(got == pytest.approx(want, abs=1e-6) for got, want in zip(data["ld_patched"], sweep.patched))
    assert main(["patch", "--model", "tiny-gpt2", "--input", f"prompt={clean}", "--corrupt", f"prompt={corrupt}",
                 "--heads"]) == 0
    table = capsys.readouterr().out.splitlines()
    assert table[1].split() == ["stage", "head", "0", "head", "1", "head", "2", "head", "3"]
    assert table[2].startswith("dec.0.self_attn.context")


def test_patch_heads_per_position_patches_each_head_at_each_position(capsys):
    from tfdebug.adapters.registry import load_adapter
    from tfdebug.sessions.patching import Patcher

    clean, corrupt = "the cat is on the mat =", "the dog is on the mat ="
    base = ["patch", "--model", "tiny-gpt2", "--input", f"prompt={clean}", "--corrupt", f"prompt={corrupt}",
            "--heads", "--per-position"]
    assert main([*base, "--json", "--batch", "5"]) == 0
    captured = capsys.readouterr()
    assert "2 attentions × 4 heads × 8 positions: 64 cells in 13 forwards of 5" in captured.err
    data = json.loads(captured.out)
    assert data["across"] == "head_position" and data["heads"] == [0, 1, 2, 3]
    assert data["positions"] == list(range(8)) and len(data["tokens"]) == 8
    assert data["columns"][:2] == [[0, 0], [0, 1]] and len(data["recovered"][0]) == 32
    assert (data["forwards"], data["batch"], data["batches"]) == (64, 5, 13)
    patcher = Patcher(load_adapter("tiny-gpt2"), {"prompt": clean}, {"prompt": corrupt}, batch=1)
    sweep = patcher.head_sweep(data["target"], data["contrast"], -1, positions=range(8))
    assert all(got == pytest.approx(want, abs=1e-5) for got, want in zip(data["ld_patched"], sweep.patched))
    assert main([*base, "--csv"]) == 0
    rows = capsys.readouterr().out.splitlines()
    assert rows[0] == "stage,head,position,token,recovered,ld_patched" and len(rows) == 1 + 64
    assert rows[2].startswith("dec.0.self_attn.context,0,1,")
    assert main(base) == 0
    table = capsys.readouterr().out.splitlines()
    assert "64 cells in" in table[0] and table[2] == "dec.0.self_attn.context"
    assert table[3].split()[0] == "head" and table[4].split()[0] == "0" and len(table[4].split()) == 9
    assert main(["patch", "--model", "tiny-gpt2", "--input", f"prompt={clean}", "--corrupt", f"prompt={corrupt}",
                 "--per-position"]) == 2
    assert "goes with --heads" in capsys.readouterr().err


def test_patch_with_texts_of_different_lengths_pairs_their_positions(capsys):
    from tfdebug.adapters.registry import load_adapter
    from tfdebug.sessions.patching import Patcher

    clean, longer = "the cat is on the mat =", "the big dog is on the mat ="
    assert main(["patch", "--model", "tiny-gpt2", "--input", f"prompt={clean}", "--corrupt", f"prompt={longer}",
                 "--json"]) == 0
    captured = capsys.readouterr()
    assert "The clean text has 8 tokens and the corrupted one 9: 8 positions pair up" in captured.err
    data = json.loads(captured.out)
    own = Patcher(load_adapter("tiny-gpt2"), {"prompt": clean}, {"prompt": longer})
    assert data["alignment"]["pairs"] == [list(p) for p in own.alignment.pairs]
    assert data["positions"] == list(range(9)) and data["tokens"] == own.corrupt.token_labels()
    unpaired = [p for p in range(9) if own.alignment.clean_of(p) is None]
    assert len(unpaired) == 1 and all(row[unpaired[0]] is None or row[unpaired[0]] != row[unpaired[0]]
                                      for row in data["recovered"])
    assert data["recovered"][-1][-1] == pytest.approx(1.0, abs=1e-5)
    # by hand: the same pairs give the same table; a pair outside the text is one sentence
    pairs = ",".join(f"{a}:{b}" for a, b in own.alignment.pairs)
    assert main(["patch", "--model", "tiny-gpt2", "--input", f"prompt={clean}", "--corrupt", f"prompt={longer}",
                 "--align", pairs, "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["ld_patched"] == data["ld_patched"]
    assert main(["patch", "--model", "tiny-gpt2", "--input", f"prompt={clean}", "--corrupt", f"prompt={longer}",
                 "--align", "0:0,8:1"]) == 2
    err = capsys.readouterr().err
    assert "outside the clean text's 8 tokens" in err and len(err.strip().splitlines()) == 1


def test_backward_lists_every_stage_s_gradient_logits_first(capsys):
    assert main(["backward", *PROMPT, "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    names = [row["stage"] for row in data["stages"]]
    assert names[0] == "logits" and names[-1] == "tok.embed" and len(names) == len(set(names))
    assert data["first_nonfinite"] is None and data["loss"] > 0
    assert all(row["nan"] == 0 and row["inf"] == 0 for row in data["stages"])
    assert "layer 0" in data["parameter_norms"] and len(data["saliency"]) == 8


def test_backward_of_a_logit_difference_needs_a_target(capsys):
    assert main(["backward", *PROMPT, "--objective", "logit_diff"]) == 2
    assert "needs --target" in capsys.readouterr().err


@pytest.mark.parametrize("command", [["lens", "--positions", "0", "-1"], ["attribute", "--contrast", "的"]])
def test_a_snapshot_gives_the_same_json_as_the_live_pass(command, tmp_path, capsys):
    snapshot = tmp_path / "pass.safetensors"
    assert main(["capture", *PROMPT, "--out", str(snapshot)]) == 0
    capsys.readouterr()
    assert main([command[0], *PROMPT, *command[1:], "--json"]) == 0
    live = json.loads(capsys.readouterr().out)
    assert main([command[0], "--snapshot", str(snapshot), *command[1:], "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == live


def test_a_snapshot_whose_model_is_not_here_is_one_sentence(tmp_path, capsys):
    folder = save_folder(llama(), tmp_path / "model")
    snapshot = tmp_path / "pass.safetensors"
    assert main(["capture", "--model", f"hf:{folder}", "--input", "prompt=the cat sat", "--out", str(snapshot)]) == 0
    (folder / "config.json").unlink()
    capsys.readouterr()
    assert main(["lens", "--snapshot", str(snapshot)]) == 2
    err = capsys.readouterr().err
    assert "cannot be opened here" in err and len(err.strip().splitlines()) == 1


def test_patch_one_stage_prints_the_fraction_recovered_and_what_moved(capsys):
    from tfdebug.adapters.registry import load_adapter
    from tfdebug.sessions.patch_one import patch_one
    from tfdebug.sessions.patching import Patcher

    assert main(["patch", "--model", "tiny-gpt2", "--input", "prompt=the cat is on the mat =",
                 "--corrupt", "prompt=the dog is on the mat =", "--stage", "dec.0.self_attn.context", "--head", "1",
                 "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    own = patch_one(Patcher(load_adapter("tiny-gpt2"), {"prompt": "the cat is on the mat ="},
                            {"prompt": "the dog is on the mat ="}), "dec.0.self_attn.context", head=1)
    assert data["scope"] == "head 1" and data["recovered"] == pytest.approx(own.recovered, rel=1e-9)
    assert data["moved"] == own.moved_stages() and data["first_moved"] == "dec.0.self_attn.context"
    assert data["target_token"] == "猫" and data["contrast_token"] == "狗"


@pytest.mark.parametrize("extra, says", [(["--at", "2"], "give --stage too"),
                                         (["--stage", "tok.pos", "--heads"], "are sweeps"),
                                         (["--stage", "tok.pos", "--head", "0"], "has no head axis")])
def test_what_patch_stage_cannot_do_is_one_sentence(extra, says, capsys):
    assert main(["patch", "--model", "tiny-gpt2", "--input", "prompt=the cat is on the mat =",
                 "--corrupt", "prompt=the dog is on the mat =", *extra]) == 2
    err = capsys.readouterr().err
    assert says in err and "Traceback" not in err and len(err.strip().splitlines()) == 1
