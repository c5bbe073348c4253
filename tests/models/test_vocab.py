"""Vocabularies: special tokens typed as text are refused, and unknown words get a suggestion."""

import pytest

from tfdebug.cli import main
from tfdebug.models import vocab
from tfdebug.models.loader import load_model
from tfdebug.models.vocab import EOS, PAD, UNK, Vocab, edit_distance, suggest, unknown_sentences

EN = Vocab.build(["I love my mom", "She likes apples and bananas", "We are playing", "He is happy"], "en")
ZH = Vocab.build(["我 爱 我的 妈妈", "她 喜欢 苹果 和 香蕉"], "zh")


@pytest.mark.parametrize("special", ["<pad>", "<bos>", "<eos>", "<unk>"])
def test_a_typed_special_token_is_flagged_not_turned_into_its_id(special):
    src = EN.encode(f"I love {special} mom")
    assert src.tokens == ["i", "love", special, "mom"]
    assert src.ids[2] == UNK and src.unknown == [special]
    tgt = ZH.encode(f"我 爱 {special}")
    assert tgt.ids[2] == UNK and tgt.unknown == [special]


def test_a_typed_eos_does_not_end_the_decoder_input():
    prepared = load_model("random").prepare("I love you", "我 <eos> <pad>")
    assert EOS not in prepared.tgt[0, 1:].tolist() and PAD not in prepared.tgt[0].tolist()
    assert prepared.unknown == ["<eos>", "<pad>"]


def test_suggestions_for_inflections_synonyms_and_typing_slips():
    assert suggest("apple", EN) == "apples"
    assert suggest("plays", EN) is None  # "play" is not known either, and "playing" is two edits away
    assert suggest("mum", EN) == "mom" and suggest("Mommy", EN) == "mom"
    assert suggest("banan", EN) == "bananas"
    assert suggest("bananass", EN) == "bananas"
    assert suggest("hapy", EN) == "happy"
    assert suggest("zebras", EN) is None and suggest("<eos>", EN) is None
    assert suggest("妈", ZH) is None  # one character is too little to guess from


def test_edit_distance_counts_swaps_as_one_edit():
    assert edit_distance("mom", "mom") == 0
    assert edit_distance("hapy", "happy") == 1
    assert edit_distance("teh", "the") == 1
    assert edit_distance("kitten", "sitting") == 3


def test_one_sentence_per_unknown_word():
    assert unknown_sentences(["mum", "zebras", "<eos>", "斑马"], [EN, ZH]) == [
        "mum is not in the vocabulary; did you mean mom?",
        "zebras is not in the vocabulary; it is read as <unk>.",
        "<eos> is a special token, not a word; it is read as <unk>.",
        "斑马 is not in the vocabulary; it is read as <unk>.",
    ]


def test_the_cli_names_unknown_words_with_a_suggestion(capsys):
    assert main(["translate", "I love bananna"]) == 0
    err = capsys.readouterr().err
    assert "bananna is not in the vocabulary; did you mean banana?" in err
    assert main(["stages", "--src", "I love <eos>", "--tgt", "我 爱"]) == 0
    assert "<eos> is a special token, not a word" in capsys.readouterr().err


@pytest.mark.parametrize("word", ["bananas" * 20_000, "苹果" * 22_000])
def test_a_pasted_130_kb_word_measures_no_distance_and_is_named_by_its_start(monkeypatch, word):
    """No known word is within three edits of a word 100,000 characters longer: none is measured (each would
    cost a 140,000 × 7 table, ~40 s over a vocabulary)."""
    measured = []
    monkeypatch.setattr(vocab, "edit_distance", lambda a, b: measured.append(b) or edit_distance(a, b))
    assert suggest(word, EN) is None and suggest(word, ZH) is None and measured == []
    assert suggest("banan", EN) == "bananas" and measured  # a word of a usual length still is
    sentence, = unknown_sentences([word], [EN, ZH])
    assert sentence == f"{word[:40]}… is not in the vocabulary; it is read as <unk>."


def test_the_cli_runs_a_130_kb_source_word_and_names_it_by_its_start(capsys):
    assert main(["stages", "--src", "a" * 130_000, "--tgt", "我 爱"]) == 0
    err = capsys.readouterr().err
    assert f"tfdebug: {'a' * 40}… is not in the vocabulary" in err and len(err) < 2000


def test_43000_unknown_characters_name_twenty_words_and_count_the_rest(monkeypatch):
    """A pasted text of 43,000 distinct unknown characters looked up 43,000 suggestions (50 s in `stages`): only
    the first MAX_NAMED_WORDS distinct words are named (and looked up), a repeated word once."""
    looked_up = []
    monkeypatch.setattr(vocab, "suggest", lambda word, v: looked_up.append(word))
    words = [chr(0x4E00 + i) for i in range(43_000)]
    sentences = unknown_sentences(["mum", "mum", *words], [EN, ZH])
    assert len(sentences) == vocab.MAX_NAMED_WORDS + 1 and len(looked_up) == vocab.MAX_NAMED_WORDS
    assert sentences[0].startswith("mum is not") and sentences[1].startswith(f"{words[0]} is not")
    assert sentences[-1] == f"{43_001 - vocab.MAX_NAMED_WORDS} more words are not in the vocabulary either."
