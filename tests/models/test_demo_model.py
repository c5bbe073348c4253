"""The shipped demo translator: its files, exact translations, sentences a learner types, reported
figures that match the model, and attention that means something."""

import json
from pathlib import Path

import pytest

from tfdebug.demo.corpus import load_pairs, load_tsv
from tfdebug.models.bundled import demo_dir
from tfdebug.models.loader import default_model_name, load_model
from tfdebug.demo.train_demo import CORPUS_FILE, cross_attention_check, score
from tfdebug.models.translate import translate, translate_batch
from tfdebug.models.vocab import BUILTIN_PAIRS

DEMO = Path(__file__).resolve().parents[2] / "resources" / "demo"


@pytest.fixture(scope="module")
def demo():
    return load_model("demo")


@pytest.fixture(scope="module")
def metrics():
    return json.loads((DEMO / "metrics.json").read_text(encoding="utf-8"))


def test_the_demo_files_are_bundled_and_small():
    assert (demo_dir() / "model.safetensors").is_file()
    names = {p.name for p in DEMO.iterdir()}
    assert {"config.json", "model.safetensors", "vocab.en.txt", "vocab.zh.txt", CORPUS_FILE,
            "heldout_handwritten.tsv", "learner_handwritten.tsv"} <= names
    assert sum(p.stat().st_size for p in DEMO.rglob("*") if p.is_file()) < 6 * 1024 * 1024
    assert default_model_name() == "demo"


def test_the_notes_sentences_translate_exactly(demo):
    assert translate(demo, "I love you").text == "我 爱 你"
    assert translate(demo, "Apple is delicious").text == "苹果 很 好吃"
    for en, zh in BUILTIN_PAIRS:
        assert translate(demo, en).text == zh, en


def test_sentences_a_learner_types(demo):
    assert translate(demo, "The apple is red").text == "苹果 是 红色 的"
    assert translate(demo, "Do you love me?").text == "你 爱 我 吗 ?"
    assert translate(demo, "I love my mother").text == "我 爱 我的 妈妈"


def test_training_sentences_translate(demo):
    train, _ = load_tsv(DEMO / CORPUS_FILE)
    sample = train[::300]  # a spread over every sentence family; the full set is scored at training time
    outputs = translate_batch(demo.model, demo.src_vocab, demo.tgt_vocab, [en for en, _ in sample])
    right = sum(" ".join(out) == zh for (_, zh), out in zip(sample, outputs))
    assert right >= 0.97 * len(sample)


def test_reported_figures_are_the_shipped_models(demo, metrics):
    held = load_pairs(DEMO / "heldout_handwritten.tsv")
    figures = score(demo.model, demo.src_vocab, demo.tgt_vocab, held, shown=100)
    assert figures == metrics["heldout_handwritten"]
    assert figures["exact_match"] >= 0.7  # the acceptance bar for sentences written by hand
    assert metrics["train_exact_match"] >= 0.95 and metrics["held_out_exact_match"] >= 0.95


def test_the_learners_everyday_sentences(demo, metrics):
    learner = load_pairs(DEMO / "learner_handwritten.tsv")
    figures = score(demo.model, demo.src_vocab, demo.tgt_vocab, learner, shown=100)
    assert figures == metrics["learner_handwritten"]
    assert figures["exact_match"] >= 0.9  # issue 52's bar: at least 54 of the 60
    quoted = {"Thank you very much", "How old are you?", "What time is it?", "I love my family",
              "The cat is under the table"}  # the sentences the issue quotes, wrong before
    assert not quoted & {miss["en"] for miss in figures["misses"]}


def test_a_last_layer_cross_attention_head_reads_love_when_predicting_ai(demo):
    check = cross_attention_check(demo.model, demo.src_vocab, demo.tgt_vocab)
    assert check["stage"] == f"dec.{demo.args.n_layer - 1}.cross_attn.probs"
    # Row of 我 in "<bos> 我 爱 你" (its logits predict 爱), column of "love" in "i love you".
    assert (check["row"], check["column"]) == (1, 1)
    assert check["heads_with_max"], check["weights_on_key"]
