"""The template corpus: size, the notes' sentences, determinism, the split and the TSV file."""

from tfdebug.models.corpus import generate_pairs, load_tsv, save_tsv, split_pairs
from tfdebug.models.vocab import BUILTIN_PAIRS, Vocab, tokenize


def test_a_few_thousand_unique_pairs_with_the_notes_sentences():
    pairs = generate_pairs()
    assert 2000 <= len(pairs) <= 6000
    english = [en.lower() for en, _ in pairs]
    assert len(set(english)) == len(english)
    table = dict(pairs)
    for en, zh in BUILTIN_PAIRS:
        assert table[en] == zh
    assert table["I love you"] == "我 爱 你"
    assert table["Apple is delicious"] == "苹果 很 好吃"
    assert "  " not in "".join(zh for _, zh in pairs)


def test_templates_cover_negation_times_and_adjectives():
    table = dict(generate_pairs())
    assert table["He likes apples"] == "他 喜欢 苹果"
    assert table["She doesn't love me"] == "她 不 爱 我"
    assert table["We bought a book last week"] == "我们 上周 买 了 一本 书"
    assert table["I didn't eat apples yesterday"] == "我 昨天 没有 吃 苹果"
    assert table["Tea is not hot"] == "茶 不 热"
    assert table["They were too tired"] == "他们 太 累 了"
    assert table["The dog didn't cross the river because it was too wide"] == \
        "这只 狗 没有 穿过 那条 河 ， 因为 它 太 宽 了"


def test_split_is_deterministic_and_keeps_the_notes_in_training():
    pairs = generate_pairs()
    train, held = split_pairs(pairs, seed=0)
    assert (train, held) == split_pairs(generate_pairs(), seed=0)
    assert len(train) + len(held) == len(pairs)
    assert 0.05 * len(pairs) < len(held) < 0.15 * len(pairs)
    assert not set(held) & set(train)
    for pair in BUILTIN_PAIRS:
        assert pair in train
    # Held-out sentences are new combinations of known words, not new words.
    src, tgt = Vocab.build([en for en, _ in train], "en"), Vocab.build([zh for _, zh in train], "zh")
    for en, zh in held:
        assert all(w in src for w in tokenize(en, "en")) and all(w in tgt for w in zh.split())


def test_tsv_round_trip(tmp_path):
    train, held = split_pairs(generate_pairs()[:200])
    save_tsv(tmp_path / "c.tsv", train, held)
    assert load_tsv(tmp_path / "c.tsv") == (train, held)
