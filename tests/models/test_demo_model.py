"""The shipped demo translator: its files, exact translations, and attention that means something."""

import json
from pathlib import Path

import pytest

from tfdebug.models.corpus import load_tsv
from tfdebug.models.loader import _demo_dir, default_model_name, load_model
from tfdebug.models.train_demo import cross_attention_check
from tfdebug.models.translate import translate, translate_batch
from tfdebug.models.vocab import BUILTIN_PAIRS

DEMO = Path(__file__).resolve().parents[2] / "resources" / "demo"


@pytest.fixture(scope="module")
def demo():
    return load_model("demo")


def test_the_demo_files_are_bundled_and_small():
    assert (_demo_dir() / "model.safetensors").is_file()
    names = {p.name for p in DEMO.iterdir()}
    assert {"config.json", "model.safetensors", "vocab.en.txt", "vocab.zh.txt", "corpus.tsv"} <= names
    assert sum(p.stat().st_size for p in DEMO.rglob("*") if p.is_file()) < 5 * 1024 * 1024
    assert default_model_name() == "demo"


def test_the_notes_sentences_translate_exactly(demo):
    assert translate(demo, "I love you").text == "我 爱 你"
    assert translate(demo, "Apple is delicious").text == "苹果 很 好吃"
    for en, zh in BUILTIN_PAIRS:
        assert translate(demo, en).text == zh, en


def test_training_sentences_translate_exactly(demo):
    train, _ = load_tsv(DEMO / "corpus.tsv")
    sample = train[::40]  # a spread over every template family; the full set is checked at training time
    outputs = translate_batch(demo.model, demo.src_vocab, demo.tgt_vocab, [en for en, _ in sample])
    misses = [(en, zh, " ".join(out)) for (en, zh), out in zip(sample, outputs) if " ".join(out) != zh]
    assert not misses


def test_reported_metrics_match_the_shipped_model():
    metrics = json.loads((DEMO / "metrics.json").read_text(encoding="utf-8"))
    assert metrics["train_exact_match"] == 1.0
    assert metrics["held_out_exact_match"] >= 0.9


def test_a_last_layer_cross_attention_head_reads_love_when_predicting_ai(demo):
    check = cross_attention_check(demo.model, demo.src_vocab, demo.tgt_vocab)
    assert check["stage"] == f"dec.{demo.args.n_layer - 1}.cross_attn.probs"
    # Row of 我 in "<bos> 我 爱 你" (its logits predict 爱), column of "love" in "i love you".
    assert (check["row"], check["column"]) == (1, 1)
    assert check["heads_with_max"], check["weights_on_key"]
