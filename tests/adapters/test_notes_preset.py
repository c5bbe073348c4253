"""The `notes` preset shows the notes' shapes, and its masks say what they hide in each pass."""

import json

import pytest
import torch

from tfdebug.adapters.notes import FULL_PAIR
from tfdebug.adapters.registry import available_models, load_adapter
from tfdebug.sessions.session import DebugSession
from tfdebug.cli import main
from tfdebug.core.errors import InputError
from tfdebug.core.masks import mask_parts


@pytest.fixture(scope="module")
def notes():
    return load_adapter("notes")


def test_stages_json_shows_the_notes_shapes(capsys):
    assert main(["stages", "--model", "notes", "--json"]) == 0
    rows = {r["name"]: r for r in json.loads(capsys.readouterr().out)}
    assert rows["src.pos"]["shape"] == [32, 10, 512]
    assert rows["enc.0.attn.q"]["shape"] == [32, 10, 512]
    assert rows["enc.0.attn.q_split"]["shape"] == [32, 8, 10, 64]
    assert rows["enc.0.attn.q_split"]["axes"] == ["batch", "head", "query", "head_dim"]
    assert rows["dec.0.self_attn.masked"]["shape"] == [32, 8, 10, 10]
    assert rows["dec.0.self_attn.merged"]["shape"] == [32, 10, 512]
    # The first preset has exactly 10 tokens on both sides: nothing padded, only the future masked.
    assert "enc.0.attn.masked" not in rows and "dec.0.cross_attn.masked" not in rows
    assert mask_parts(rows["dec.0.self_attn.masked"]["formula"]) == ("causal",)
    assert rows["src.pe"]["shape"] == [10, 512] and rows["src.pe"]["kind"] == "positional_encoding"


def test_the_notes_preset_is_listed_and_fills_a_batch_of_32(notes):
    assert "notes" in available_models()
    assert notes.config()["n_embd"] == 512 and notes.config()["n_heads"] == 8
    prepared = notes.prepare({"src": FULL_PAIR[0], "tgt": FULL_PAIR[1]})
    src, tgt = prepared.args
    assert src.shape == tgt.shape == (32, 10)
    assert bool((src == src[0]).all()) and bool((tgt == tgt[0]).all())
    assert len(prepared.tokens["src"]) == len(prepared.tokens["tgt"]) == 10


def test_a_short_sentence_is_padded_and_its_masks_say_padding(notes):
    session = DebugSession(notes, {"src": "I love you", "tgt": "我 爱 你"})
    assert session.tokens["src"] == ["i", "love", "you"] + ["<pad>"] * 7
    assert session.tokens["tgt"] == ["<bos>", "我", "爱", "你"] + ["<pad>"] * 6
    formulas = {c.name: c.info.formula for c in session.plan if c.info.kind == "mask"}
    assert mask_parts(formulas["enc.0.attn.masked"]) == ("padding",)
    assert "above the diagonal" not in formulas["enc.0.attn.masked"]
    assert mask_parts(formulas["dec.0.self_attn.masked"]) == ("causal", "padding")
    assert mask_parts(formulas["dec.0.cross_attn.masked"]) == ("padding",)
    captures, _ = session.capture_all()
    masked = next(c for c in captures if c.name == "enc.0.attn.masked").tensor
    # Padding hides the same keys (columns 3…9) from every query of every sentence and head.
    assert bool(torch.isinf(masked[..., 3:]).all()) and not bool(torch.isinf(masked[..., :3]).any())
    session.close()


def test_more_than_ten_tokens_is_one_sentence(notes):
    with pytest.raises(InputError, match="at most 10"):
        notes.prepare({"src": "I love you " * 4, "tgt": ""})


def test_a_typed_special_token_is_flagged_not_used(notes):
    prepared = notes.prepare({"src": "I love <pad> you", "tgt": "我 <eos>"})
    assert prepared.unknown == ["<pad>", "<eos>"]
    src, tgt = prepared.args
    assert src[0, 2].item() == 3 and tgt[0, 2].item() == 3  # <unk>, not <pad> or <eos>
