"""The demo model's parallel corpus: English–Chinese pairs generated from templates.

Every pair comes from a small grammar written for this project (subjects, verbs,
objects, adjectives, times, negation), plus the seed notes' sentences. Chinese is
written with spaces between words, which is how the Chinese vocabulary splits it.
The generator is deterministic: the same seed always gives the same pairs and split.

    python -m tfdebug.models.corpus OUT.tsv     # write the corpus (en, zh, split)
"""

from __future__ import annotations

import random
import sys
from pathlib import Path

from tfdebug.models.vocab import BUILTIN_PAIRS

Pair = tuple[str, str]

# (English, Chinese, agreement): "1s" I, "2" you, "3s" he/she/names, "p" plural.
SUBJECTS = (
    ("I", "我", "1s"), ("you", "你", "2"), ("he", "他", "3s"), ("she", "她", "3s"),
    ("we", "我们", "p"), ("they", "他们", "p"), ("Xiaoming", "小明", "3s"),
    ("Xiaohong", "小红", "3s"), ("my friend", "我的 朋友", "3s"), ("the teacher", "老师", "3s"),
)
PERSON_OBJECTS = (
    ("me", "我"), ("you", "你"), ("him", "他"), ("her", "她"), ("us", "我们"), ("them", "他们"),
    ("Xiaoming", "小明"), ("Xiaohong", "小红"), ("the teacher", "老师"),
)
# Verbs taking a person: (base, third-person singular, Chinese).
PERSON_VERBS = (
    ("love", "loves", "爱"), ("like", "likes", "喜欢"), ("miss", "misses", "想念"),
    ("help", "helps", "帮助"), ("know", "knows", "认识"), ("trust", "trusts", "相信"),
)
# Things in the plural or as a mass noun: (English, Chinese).
THINGS = {
    "apples": "苹果", "bananas": "香蕉", "noodles": "面条", "rice": "米饭", "bread": "面包",
    "tea": "茶", "milk": "牛奶", "books": "书", "cats": "猫", "dogs": "狗", "music": "音乐",
    "learning": "学习",
}
_FOOD = ("apples", "bananas", "noodles", "rice", "bread")
# Verbs taking a thing, with the things they make sense with.
THING_VERBS = (
    ("love", "loves", "爱", tuple(THINGS)),
    ("like", "likes", "喜欢", tuple(THINGS)),
    ("eat", "eats", "吃", _FOOD),
    ("drink", "drinks", "喝", ("tea", "milk")),
    ("buy", "buys", "买", _FOOD + ("tea", "milk", "books")),
    ("want", "wants", "想要", _FOOD + ("tea", "milk", "books", "cats", "dogs")),
    ("read", "reads", "看", ("books",)),
)

# Countable items for the past tense: English with article, Chinese with measure word,
# and the bare forms a negated sentence uses (None: no negated form).
ITEMS = {
    "apple": ("an apple", "一个 苹果", "apples", "苹果"),
    "banana": ("a banana", "一根 香蕉", "bananas", "香蕉"),
    "noodles": ("a bowl of noodles", "一碗 面条", "noodles", "面条"),
    "bread": ("a piece of bread", "一块 面包", "bread", "面包"),
    "book": ("a book", "一本 书", "books", "书"),
    "tea": ("a cup of tea", "一杯 茶", "tea", "茶"),
    "milk": ("a glass of milk", "一杯 牛奶", "milk", "牛奶"),
    "share": ("a share of Apple", "一股 苹果", None, None),
    "car": ("a car", "一辆 车", "cars", "车"),
    "cat": ("a cat", "一只 猫", "cats", "猫"),
    "dog": ("a dog", "一只 狗", "dogs", "狗"),
    "movie": ("a movie", "一部 电影", "movies", "电影"),
}
# (past, base, Chinese, items)
PAST_VERBS = (
    ("ate", "eat", "吃", ("apple", "banana", "noodles", "bread")),
    ("bought", "buy", "买", ("apple", "banana", "book", "tea", "share", "car")),
    ("drank", "drink", "喝", ("tea", "milk")),
    ("read", "read", "看", ("book",)),
    ("saw", "see", "看见", ("cat", "dog", "movie")),
)
TIMES = (("yesterday", "昨天"), ("today", "今天"), ("last night", "昨晚"),
         ("this morning", "今天 早上"), ("last week", "上周"))

# "<thing> is <adjective>": (English, Chinese, adjectives that fit).
_ADJ = {
    "delicious": "好吃", "sweet": "甜", "expensive": "贵", "cheap": "便宜", "fresh": "新鲜",
    "hot": "热", "cold": "冷", "good": "好", "interesting": "有趣", "long": "长",
    "big": "大", "small": "小", "fast": "快",
}
DESCRIBED = (
    ("apple", "苹果", ("delicious", "sweet", "expensive", "cheap", "fresh")),
    ("bread", "面包", ("delicious", "sweet", "expensive", "cheap", "fresh")),
    ("rice", "米饭", ("delicious", "expensive", "cheap", "hot", "cold")),
    ("tea", "茶", ("sweet", "expensive", "cheap", "hot", "cold")),
    ("milk", "牛奶", ("sweet", "expensive", "cheap", "hot", "cold", "fresh")),
    ("the book", "这本 书", ("interesting", "expensive", "cheap", "good", "long")),
    ("the weather", "天气", ("good", "hot", "cold")),
    ("the car", "这辆 车", ("expensive", "cheap", "big", "small", "fast")),
)
# Adjectives describing people: "<subject> is tired" -> "<subject> 很 累".
FEELINGS = (("tired", "累"), ("happy", "高兴"), ("busy", "忙"), ("hungry", "饿"), ("sad", "难过"))

# Xiaoming's apple: "<who> <manner> and bit into a <adjective> <fruit>".
EATERS = (("Xiaoming", "小明"), ("Xiaohong", "小红"), ("he", "他"), ("she", "她"), ("the child", "孩子"))
MANNERS = (("smiled", "笑着"), ("cried", "哭着"), ("sang", "唱着"))
FRUIT_LOOKS = (("sweet", "甜甜的"), ("red", "红红的"), ("crisp", "脆脆的"), ("big", "大大的"))
FRUITS = (("apple", "苹果"), ("pear", "梨"), ("peach", "桃子"))

# The animal and the street: who "it" is depends on the last adjective.
ANIMALS = (("animal", "这只 动物"), ("dog", "这只 狗"), ("cat", "这只 猫"), ("bird", "这只 鸟"),
           ("horse", "这匹 马"))
PLACES = (("street", "那条 街道"), ("road", "那条 马路"), ("river", "那条 河"))
TOO = (("tired", "累"), ("wide", "宽"), ("long", "长"), ("lazy", "懒"), ("hungry", "饿"),
       ("scared", "害怕"))

HELD_OUT_FRACTION = 0.1


def _be(agreement: str, past: bool = False) -> str:
    if past:
        return "were" if agreement in ("2", "p") else "was"
    return {"1s": "am", "2": "are", "p": "are"}.get(agreement, "is")


def _sentence(*words: str) -> str:
    """Join words and capitalise the first letter, as an English sentence is written."""
    text = " ".join(w for w in words if w)
    return text[0].upper() + text[1:]


def present_pairs() -> list[Pair]:
    """Present tense, with and without negation: "He likes apples" -> "他 喜欢 苹果"."""
    pairs = []
    for s_en, s_zh, agr in SUBJECTS:
        objects = [(base, third, v_zh, o_en, o_zh) for base, third, v_zh in PERSON_VERBS
                   for o_en, o_zh in PERSON_OBJECTS]
        objects += [(base, third, v_zh, o_en, THINGS[o_en]) for base, third, v_zh, things in THING_VERBS
                    for o_en in things]
        for base, third, v_zh, o_en, o_zh in objects:
            verb, do = (third, "doesn't") if agr == "3s" else (base, "don't")
            pairs.append((_sentence(s_en, verb, o_en), f"{s_zh} {v_zh} {o_zh}"))
            pairs.append((_sentence(s_en, do, base, o_en), f"{s_zh} 不 {v_zh} {o_zh}"))
    return pairs


def past_pairs() -> list[Pair]:
    """Past tense with a time: "I ate an apple yesterday" -> "我 昨天 吃 了 一个 苹果"."""
    pairs = []
    for s_en, s_zh, _ in SUBJECTS:
        for past, base, v_zh, items in PAST_VERBS:
            for key in items:
                a_en, a_zh, bare_en, bare_zh = ITEMS[key]
                for t_en, t_zh in TIMES:
                    pairs.append((_sentence(s_en, past, a_en, t_en), f"{s_zh} {t_zh} {v_zh} 了 {a_zh}"))
                    if bare_en is not None:
                        # Chinese negates a completed action with 没有 and drops 了.
                        pairs.append((_sentence(s_en, "didn't", base, bare_en, t_en),
                                      f"{s_zh} {t_zh} 没有 {v_zh} {bare_zh}"))
    return pairs


def adjective_pairs() -> list[Pair]:
    """Descriptions: "Apple is delicious" -> "苹果 很 好吃"; "She was too tired" -> "她 太 累 了"."""
    pairs = []
    for n_en, n_zh, adjectives in DESCRIBED:
        for adj in adjectives:
            pairs.append((_sentence(n_en, "is", adj), f"{n_zh} 很 {_ADJ[adj]}"))
            pairs.append((_sentence(n_en, "is not", adj), f"{n_zh} 不 {_ADJ[adj]}"))
    for s_en, s_zh, agr in SUBJECTS:
        for adj, a_zh in FEELINGS:
            pairs.append((_sentence(s_en, _be(agr), adj), f"{s_zh} 很 {a_zh}"))
            pairs.append((_sentence(s_en, _be(agr), "not", adj), f"{s_zh} 不 {a_zh}"))
            pairs.append((_sentence(s_en, _be(agr, past=True), "too", adj), f"{s_zh} 太 {a_zh} 了"))
    return pairs


def story_pairs() -> list[Pair]:
    """The notes' two longer sentences, varied: Xiaoming's apple and the animal and the street."""
    pairs = []
    for w_en, w_zh in EATERS:
        for m_en, m_zh in MANNERS:
            for l_en, l_zh in FRUIT_LOOKS:
                for f_en, f_zh in FRUITS:
                    pairs.append((_sentence(w_en, m_en, "and bit into a", l_en, f_en),
                                  f"{w_zh} {m_zh} 咬了 一口 {l_zh} {f_zh}"))
    for a_en, a_zh in ANIMALS:
        for p_en, p_zh in PLACES:
            for t_en, t_zh in TOO:
                pairs.append((_sentence("the", a_en, "didn't cross the", p_en, "because it was too", t_en),
                              f"{a_zh} 没有 穿过 {p_zh} ， 因为 它 太 {t_zh} 了"))
    return pairs


def generate_pairs() -> list[Pair]:
    """Every template pair plus the notes' sentences, without duplicates, in a fixed order.

    Raises ValueError if one English sentence would get two different translations
    (the model could then not translate it exactly).
    """
    seen: dict[str, str] = {}
    pairs = []
    for en, zh in [*BUILTIN_PAIRS, *present_pairs(), *past_pairs(), *adjective_pairs(), *story_pairs()]:
        key = en.lower()
        if key in seen:
            if seen[key] != zh:
                raise ValueError(f"'{en}' has two translations: '{seen[key]}' and '{zh}'.")
            continue
        seen[key] = zh
        pairs.append((en, zh))
    return pairs


def split_pairs(pairs: list[Pair], seed: int = 0,
                held_out_fraction: float = HELD_OUT_FRACTION) -> tuple[list[Pair], list[Pair]]:
    """A seeded train/held-out split; the notes' sentences always stay in training."""
    protected = {en.lower() for en, _ in BUILTIN_PAIRS}
    rng = random.Random(seed)
    candidates = [p for p in pairs if p[0].lower() not in protected]
    held = set(rng.sample(range(len(candidates)), int(len(candidates) * held_out_fraction)))
    held_pairs = {candidates[i] for i in held}
    train = [p for p in pairs if p not in held_pairs]
    return train, [candidates[i] for i in sorted(held)]


def save_tsv(path: Path, train: list[Pair], held_out: list[Pair]) -> None:
    """One pair a line: English, Chinese, and 'train' or 'heldout', tab-separated."""
    lines = ["# en\tzh\tsplit"]
    lines += [f"{en}\t{zh}\ttrain" for en, zh in train]
    lines += [f"{en}\t{zh}\theldout" for en, zh in held_out]
    Path(path).write_text("\n".join(lines) + "\n", encoding="utf-8")


def load_tsv(path: Path) -> tuple[list[Pair], list[Pair]]:
    """The (train, held_out) pairs of a corpus file written by save_tsv."""
    train, held_out = [], []
    for number, line in enumerate(Path(path).read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip() or line.startswith("#"):
            continue
        fields = line.split("\t")
        if len(fields) != 3 or fields[2] not in ("train", "heldout"):
            raise ValueError(f"{path}:{number}: expected 'en<TAB>zh<TAB>train|heldout'.")
        (train if fields[2] == "train" else held_out).append((fields[0], fields[1]))
    return train, held_out


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if len(argv) != 1:
        print("usage: python -m tfdebug.models.corpus OUT.tsv", file=sys.stderr)
        return 2
    train, held_out = split_pairs(generate_pairs())
    save_tsv(Path(argv[0]), train, held_out)
    print(f"{len(train)} training pairs, {len(held_out)} held out -> {argv[0]}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
