"""Greedy decoding, unknown words, and the `tfdebug translate` command."""

import torch

from tfdebug.cli import main
from tfdebug.models.loader import load_model
from tfdebug.models.translate import greedy_ids, pad_batch, translate, translate_batch
from tfdebug.models.vocab import UNK


def test_unknown_words_are_listed_and_read_as_unk():
    demo = load_model("demo")
    prepared = demo.prepare("I love zebras")
    assert prepared.unknown == ["zebras"]
    assert prepared.src[0, -1].item() == UNK
    result = translate(demo, "I love zebras")
    assert result.unknown == ["zebras"] and result.src_tokens == ["i", "love", "zebras"]
    assert result.tokens[:2] == ["我", "爱"]


def test_batched_decoding_with_padding_matches_one_by_one():
    demo = load_model("demo")
    sentences = ["I love you", "The animal didn't cross the street because it was too wide", "Tea is hot"]
    batched = translate_batch(demo.model, demo.src_vocab, demo.tgt_vocab, sentences)
    assert batched == [translate(demo, s).tokens for s in sentences]


def test_greedy_stops_at_the_length_limit():
    model = load_model("random").model
    src = pad_batch([[4, 5, 6], [4]])
    out = greedy_ids(model, src, max_len=4)
    assert len(out) == 2 and all(len(row) <= 3 for row in out)
    assert pad_batch([[7], [8, 9]]).tolist() == [[7, 0], [8, 9]]
    assert isinstance(out[0][0] if out[0] else 0, int) and src.dtype == torch.long


def test_translate_command(capsys):
    assert main(["translate", "I love you"]) == 0
    assert capsys.readouterr().out.strip() == "我 爱 你"
    assert main(["translate", "--model", "demo", "Apple", "is", "delicious"]) == 0
    assert capsys.readouterr().out.strip() == "苹果 很 好吃"
    assert main(["translate", "I love zebras"]) == 0
    assert "zebras" in capsys.readouterr().err
    assert main(["translate", "   "]) == 2
    assert "empty" in capsys.readouterr().err
