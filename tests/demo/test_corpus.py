"""The generated corpus: its words, the notes' sentences, grammar kept consistently, determinism,
the split, the TSV files, and the hand-written sets kept out of it."""

import pytest

from tfdebug.demo.corpus import HANDWRITTEN_FILES, generate_pairs, load_pairs, load_tsv, normalized, save_tsv, split_pairs
from tfdebug.models.bundled import demo_dir
from tfdebug.models.vocab import BUILTIN_PAIRS, Vocab, tokenize


@pytest.fixture(scope="module")
def pairs():
    return generate_pairs()


def test_tens_of_thousands_of_unique_pairs_with_the_notes_sentences(pairs):
    assert 20_000 <= len(pairs) <= 60_000
    english = [en.lower() for en, _ in pairs]
    assert len(set(english)) == len(english)
    table = dict(pairs)
    for en, zh in BUILTIN_PAIRS:
        assert table[en] == zh
    assert table["The dog didn't cross the river because it was too wide"] == \
        "这只 狗 没有 穿过 那条 河 ， 因为 它 太 宽 了"
    assert "  " not in "".join(zh for _, zh in pairs)


def test_at_least_400_english_words_across_the_topics_a_learner_needs(pairs):
    src = Vocab.build([en for en, _ in pairs], "en")
    tgt = Vocab.build([zh for _, zh in pairs], "zh")
    assert len(src) >= 404 and len(tgt) >= 300
    topics = {
        "family and people": "mom mother dad brother sister grandma friend teacher child children",
        "colours": "red blue green yellow white black pink",
        "weather and time": "weather rain cold warm today yesterday tomorrow morning every",
        "places": "home school park shop hospital library zoo beijing",
        "food and animals": "apple bananas rice noodles tea coffee milk cat dog bird elephant",
        "everyday verbs": "see go come read write like want have give eat drink sleep play study",
        "questions and possessives": "what where who do does did my your his her our their",
        "punctuation": "? . ! ,",
    }
    for topic, words in topics.items():
        missing = [w for w in words.split() if w not in src]
        assert not missing, (topic, missing)
    for word in "我的 你的 他的 很 比 不 没有 吗 什么 哪里 谁 了 在 会 想 ? 。 !".split():
        assert word in tgt, word


def test_chinese_follows_one_grammar_throughout(pairs):
    for en, zh in pairs:
        words = normalized(en)
        # Punctuation is a token of its own and survives translation: ? stays ?, . becomes 。
        assert en.endswith("?") == zh.endswith(" ?"), (en, zh)
        assert en.endswith(".") == zh.endswith(" 。"), (en, zh)
        assert en.endswith("!") == zh.endswith(" !"), (en, zh)
        if en.endswith("?") and words[0] in ("do", "does", "did", "is", "are", "was", "were", "can", "will"):
            assert "吗" in zh.split(), (en, zh)  # yes/no questions end in 吗
        if "than" in words:
            assert "比" in zh.split(), (en, zh)
        # "what time" asks 几点, "what day" 星期几, "what is it like" 怎么样
        question_words = {"where": {"哪里"}, "who": {"谁"}, "what": {"什么", "几点", "星期几", "怎么样"}}.get(words[0])
        if question_words:
            assert question_words & set(zh.split()), (en, zh)
    table = {normalized(en): zh.removesuffix(" ?").removesuffix(" 。").removesuffix(" !") for en, zh in pairs}
    assert table[normalized("I love you")] == "我 爱 你"
    assert table[normalized("Apple is delicious")] == "苹果 很 好吃"


def test_generation_is_deterministic_and_the_split_keeps_the_notes_in_training(pairs):
    assert generate_pairs() == pairs
    assert generate_pairs(seed=1) != pairs
    train, held = split_pairs(pairs, seed=0)
    assert (train, held) == split_pairs(list(pairs), seed=0)
    assert len(train) + len(held) == len(pairs)
    assert 0.03 * len(pairs) < len(held) < 0.1 * len(pairs)
    assert not set(held) & set(train)
    for pair in BUILTIN_PAIRS:
        assert pair in train
    # Held-out template sentences are new combinations of known words, not new words.
    src, tgt = Vocab.build([en for en, _ in train], "en"), Vocab.build([zh for _, zh in train], "zh")
    for en, zh in held:
        assert all(w in src for w in tokenize(en, "en")) and all(w in tgt for w in zh.split()), en


def test_hand_written_sets_are_separate_and_never_generated(pairs):
    held = load_pairs(demo_dir() / "heldout_handwritten.tsv")
    dev = load_pairs(demo_dir() / "dev_handwritten.tsv")
    learner = load_pairs(demo_dir() / "learner_handwritten.tsv")
    assert len(held) >= 60 and len(dev) >= 20 and len(learner) == 60
    assert ("The apple is red", "苹果 是 红色 的") in held and ("Do you love me?", "你 爱 我 吗 ?") in held
    # The sentences issue 52 quotes, as its tester typed them.
    assert {"Thank you very much", "How old are you?", "What time is it?", "I love my family",
            "The cat is under the table"} <= {en for en, _ in learner}
    sets = [{normalized(en) for en, _ in pairs} for pairs in (held, dev, learner)]
    assert sum(map(len, sets)) == len(set.union(*sets))  # no sentence is in two sets
    generated = {normalized(en) for en, _ in pairs}
    for name in HANDWRITTEN_FILES:
        for en, _ in load_pairs(demo_dir() / name):
            assert normalized(en) not in generated, (name, en)
    # Without the exclusion some of them would be generated: the check above is not vacuous.
    assert {normalized(en) for en, _ in generate_pairs(exclude=set())} & {normalized(en) for en, _ in dev}


def test_contractions_and_punctuation_read_as_the_same_sentence():
    assert normalized("I don't like coffee.") == normalized("i do not like coffee")
    assert normalized("It's cold today!") == ("it", "is", "cold", "today")


def test_tsv_round_trip_and_bad_lines(tmp_path, pairs):
    train, held = split_pairs(pairs[:200])
    save_tsv(tmp_path / "c.tsv", train, held)
    assert load_tsv(tmp_path / "c.tsv") == (train, held)
    save_tsv(tmp_path / "c.tsv.gz", train, held)
    assert load_tsv(tmp_path / "c.tsv.gz") == (train, held)
    first = (tmp_path / "c.tsv.gz").read_bytes()
    save_tsv(tmp_path / "c.tsv.gz", train, held)
    assert (tmp_path / "c.tsv.gz").read_bytes() == first  # the packed file is reproducible too
    (tmp_path / "bad.tsv").write_text("# en\tzh\nI love you\n", encoding="utf-8")
    with pytest.raises(ValueError, match="bad.tsv:2: expected 2 tab-separated fields"):
        load_pairs(tmp_path / "bad.tsv")
