"""The positional-encoding table is a stage of its own: the rows added to the tokens, exactly."""

import json
import math

import torch

from tfdebug.adapters.registry import load_adapter
from tfdebug.sessions.session import DebugSession
from tfdebug.cli import main
from tfdebug.core.masks import mask_formula, mask_parts, mask_shape


def _captures(spec="random", texts=None):
    session = DebugSession(load_adapter(spec), texts or {"src": "I ate an apple yesterday", "tgt": "我 昨天"})
    captures, _ = session.capture_all()
    session.close()
    return {c.name: c for c in captures}


def test_row_0_is_exactly_0_1_0_1():
    pe = _captures()["src.pe"]
    assert pe.info.kind == "positional_encoding" and pe.info.axes == ("token", "model")
    assert pe.shape == (5, 64)
    row0 = pe.tensor[0].tolist()
    assert row0 == [0.0, 1.0] * 32  # sin 0 and cos 0, not approximately


def test_the_table_follows_the_formula_and_is_what_pos_adds():
    c = _captures()
    pe = c["src.pe"].tensor.double()
    pos, i = 3, 5  # PE[3, 10] = sin(3 / 10000^(10/64)), PE[3, 11] = cos(…)
    angle = pos / 10000 ** (2 * i / 64)
    assert abs(pe[pos, 2 * i].item() - math.sin(angle)) < 1e-6
    assert abs(pe[pos, 2 * i + 1].item() - math.cos(angle)) < 1e-6
    assert torch.equal(c["src.pos"].tensor, c["src.embed"].tensor + c["src.pe"].tensor)
    assert c["src.pos"].info.inputs == ("src.embed", "src.pe")
    assert c["tgt.pe"].shape == (3, 64) and torch.equal(c["tgt.pe"].tensor, c["src.pe"].tensor[:3])


def test_cli_json_has_src_pe_row_0(capsys):
    assert main(["stages", "--model", "random", "--stages", "src.pe", "--json"]) == 0
    (row,) = json.loads(capsys.readouterr().out)
    assert row["name"] == "src.pe" and row["axes"] == ["token", "model"]
    assert row["stats"]["min"] >= -1.0 and row["stats"]["max"] == 1.0


def test_mask_labels_read_back_and_mask_shapes():
    for causal, padding in ((True, False), (False, True), (True, True)):
        parts = mask_parts(mask_formula(causal, padding))
        assert ("causal" in parts, "padding" in parts) == (causal, padding)
    assert mask_parts("something else") is None
    assert mask_shape(("causal",), (32, 8, 10, 10)) == (1, 1, 10, 10)
    assert mask_shape(("padding",), (32, 8, 10, 10)) == (32, 1, 1, 10)
    assert mask_shape(("causal", "padding"), (32, 8, 10, 10)) == (32, 1, 10, 10)
