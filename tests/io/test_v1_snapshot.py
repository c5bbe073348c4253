"""A version-1 snapshot written by tfdebug before format 2 existed still opens, replays and exports.

`data/v1_random.safetensors` was made with the format-1 code:
    tfdebug capture --model random --src "I love you" --tgt "我 爱" \
        --stages 'src.*' 'enc.0.attn.*' dec.0.cross_attn.probs dec.norm logits --out v1_random.safetensors
It is kept byte for byte; nothing rewrites it.
"""

import json
import shutil
from pathlib import Path

import pytest
import torch
from safetensors.torch import load_file

from tfdebug import cli
from tfdebug.io.exports import export_pass, load_export
from tfdebug.io.snapshot import open_snapshot, read_manifest

V1 = Path(__file__).parent / "data" / "v1_random.safetensors"
NAMES = ["src.embed", "src.pos", "enc.0.attn.norm", "enc.0.attn.q", "enc.0.attn.k", "enc.0.attn.v",
         "enc.0.attn.q_split", "enc.0.attn.k_split", "enc.0.attn.v_split", "enc.0.attn.scores",
         "enc.0.attn.scaled", "enc.0.attn.probs", "enc.0.attn.dropout",
         "enc.0.attn.context", "enc.0.attn.merged", "enc.0.attn.out", "enc.0.attn.resid",
         "dec.0.cross_attn.probs", "dec.norm", "logits"]


@pytest.fixture()
def v1_path(tmp_path):
    path = tmp_path / "v1.safetensors"
    shutil.copyfile(V1, path)
    return path


def test_the_fixture_is_format_1():
    doc = read_manifest(V1)
    assert doc["format_version"] == 1
    assert doc["tokens"] == {"src": ["i", "love", "you"], "tgt": ["<bos>", "我", "爱"]}


def test_a_v1_snapshot_opens_with_its_recorded_streams(v1_path):
    with open_snapshot(v1_path) as rec:
        assert rec.names() == NAMES
        assert rec.tokens == {"src": ["i", "love", "you"], "tgt": ["<bos>", "我", "爱"]}
        assert rec.model_name == "random" and rec.model_config["n_layer"] == 2
        assert rec["enc.0.attn.probs"].info.axes == ("batch", "head", "query", "key")


def test_a_v1_snapshot_replays_every_stage_as_written(v1_path):
    stored = load_file(str(V1))
    with open_snapshot(v1_path) as rec:
        stepper = rec.stepper()
        seen = [stepper.current.name]
        while stepper.cursor < len(stepper.history) - 1:
            stepper.step_forward()
            seen.append(stepper.current.name)
        assert seen == rec.names()
        for capture in stepper.history:
            assert torch.equal(capture.tensor, stored[capture.name]), capture.name
        probs = stepper.history[rec.names().index("enc.0.attn.probs")].tensor
        assert torch.allclose(probs.sum(-1), torch.ones(1, 4, 3))  # softmax rows still sum to 1
        stepper.step_back()
        assert stepper.current.name == seen[-2]


@pytest.mark.parametrize("suffix", [".safetensors", ".npz", ".pt"])
def test_a_v1_snapshot_exports_and_reads_back(v1_path, tmp_path, suffix):
    stored = load_file(str(V1))
    out = tmp_path / f"export{suffix}"
    with open_snapshot(v1_path) as rec:
        export_pass(rec, out)
    back = load_export(out)
    assert back.names() == NAMES
    assert back.tokens["src"] == ["i", "love", "you"]
    for capture in back.captures:
        assert torch.equal(back.tensor(capture), stored[capture.name]), capture.name


def test_info_reads_a_v1_snapshot(capsys):
    assert cli.main(["info", str(V1), "--verify"]) == 0
    out = capsys.readouterr().out
    assert "format 1" in out and "i love you" in out and "<bos> 我 爱" in out
    assert cli.main(["info", str(V1), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["format_version"] == 1
