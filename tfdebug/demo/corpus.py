"""The demo model's parallel corpus: English–Chinese pairs drawn from sentence families.

Every pair comes from a grammar written for this project (`lexicon`, `lexicon_everyday`,
`phrases`, `templates`, `templates_actions`, `templates_everyday`, `templates_places`):
people, colours, weather, times, places, food, animals, school and work, everyday verbs,
adjectives with 很 and comparisons with 比, negation with 不 and 没有, yes/no questions
with 吗, what/where/who questions, possessives, plural subjects, requests and greetings;
ages, the clock, days and months, thanks and apologies, how much / how many / why / when,
where things are (under, on, next to), getting about, quantities and one's family; plus
the seed notes' sentences, which always stay in training. Chinese is written with spaces between words, which is
how the Chinese vocabulary splits it; final punctuation is kept as a token.

The generator is deterministic: the same seed always gives the same pairs and split.
Sentences of the hand-written dev, held-out and learner's sets (`resources/demo/*_handwritten.tsv`)
are never generated into the corpus, so those sets stay unseen.

    python -m tfdebug.demo.corpus OUT.tsv     # write the corpus (en, zh, split); OUT.tsv.gz packs it
"""

from __future__ import annotations

import gzip
import io
import random
import sys
from pathlib import Path

from tfdebug.demo import templates as tp
from tfdebug.demo import templates_actions as ta
from tfdebug.demo import templates_everyday as te
from tfdebug.demo import templates_places as tl
from tfdebug.demo.phrases import surface
from tfdebug.models.vocab import BUILTIN_PAIRS, tokenize

Pair = tuple[str, str]

# How many pairs each family contributes (before removing duplicates).
FAMILIES = (
    (tp.adjective, 4000), (tp.weather, 2400), (tp.colour, 2600), (tp.comparison, 2200), (tp.identity, 2600),
    (tp.location, 2400), (ta.present, 5600), (ta.past, 4800), (ta.future, 1600), (ta.progressive, 2800),
    (ta.activity, 2800), (ta.modal, 2800), (ta.motion, 2800), (ta.give, 1200), (ta.request, 1200),
    (ta.greeting, 500), (ta.names, 3000), (ta.have, 2400), (ta.drinks, 1200), (ta.share, 150),
    (te.ages, 1000), (te.clock, 1200), (te.calendar, 1600), (te.courtesy, 2000), (te.questions, 1600),
    (tl.position, 2200), (tl.transport, 900), (tl.quantity, 1000), (tl.family, 1600),
)
HELD_OUT_FRACTION = 0.05
HANDWRITTEN_FILES = ("dev_handwritten.tsv", "heldout_handwritten.tsv", "learner_handwritten.tsv")

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

# Contractions read as their full forms when comparing sentences.
_FULL = {"don't": "do not", "doesn't": "does not", "didn't": "did not", "can't": "cannot", "won't": "will not",
         "isn't": "is not", "aren't": "are not", "wasn't": "was not", "weren't": "were not", "i'm": "i am",
         "you're": "you are", "we're": "we are", "they're": "they are", "he's": "he is", "she's": "she is",
         "it's": "it is", "what's": "what is", "where's": "where is", "who's": "who is", "let's": "let us"}


def _sentence(*words: str) -> str:
    """Join words and capitalise the first letter, as an English sentence is written."""
    text = " ".join(w for w in words if w)
    return text[0].upper() + text[1:]


def normalized(en: str) -> tuple[str, ...]:
    """The words of an English sentence without punctuation, contractions spelt out, lower-cased."""
    words = []
    for token in tokenize(en, "en"):
        if token.isalnum() or "'" in token:
            words.extend(_FULL.get(token, token).split())
    return tuple(words)


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


def family_pairs(family, count: int, rng: random.Random) -> list[Pair]:
    """`count` draws of one sentence family, with capitals, contractions and punctuation added."""
    return [surface(*family(rng), rng) for _ in range(count)]


def handwritten_sentences(folder: Path | None = None) -> set[tuple[str, ...]]:
    """Normalised English of the hand-written sets, HANDWRITTEN_FILES (kept out of the corpus)."""
    if folder is None:
        from tfdebug.models.bundled import demo_dir  # the bundled folder, from a checkout or a wheel
        folder = demo_dir()
    folder = Path(folder)
    out = set()
    for name in HANDWRITTEN_FILES:
        if (folder / name).is_file():
            out |= {normalized(en) for en, _ in load_pairs(folder / name)}
    return out


def generate_pairs(seed: int = 0, exclude: set[tuple[str, ...]] | None = None) -> list[Pair]:
    """The notes' sentences, their story variations and every family's draws, without duplicates.

    Sentences whose normalised English is in `exclude` (by default the hand-written
    sets) are left out. Raises ValueError if one English sentence
    would get two different translations (the model could then not learn it exactly).
    """
    exclude = handwritten_sentences() if exclude is None else exclude
    rng = random.Random(seed)
    drawn = [*BUILTIN_PAIRS, *story_pairs()]
    for family, count in FAMILIES:
        drawn += family_pairs(family, count, rng)
    seen: dict[str, str] = {}
    pairs = []
    protected = {en for en, _ in BUILTIN_PAIRS}
    for en, zh in drawn:
        key = en.lower()
        if key in seen:
            if seen[key] != zh:
                raise ValueError(f"'{en}' has two translations: '{seen[key]}' and '{zh}'.")
            continue
        if en not in protected and normalized(en) in exclude:
            continue
        seen[key] = zh
        pairs.append((en, zh))
    return pairs


def split_pairs(pairs: list[Pair], seed: int = 0,
                held_out_fraction: float = HELD_OUT_FRACTION) -> tuple[list[Pair], list[Pair]]:
    """A seeded train/held-out split; the notes' sentences always stay in training.

    The held-out pairs test new combinations of known words: one with a word that no training
    pair has (a rare measure word with a rare number) goes back to training.
    """
    protected = {en.lower() for en, _ in BUILTIN_PAIRS}
    rng = random.Random(seed)
    candidates = [p for p in pairs if p[0].lower() not in protected]
    held = set(rng.sample(range(len(candidates)), int(len(candidates) * held_out_fraction)))
    held_pairs = {candidates[i] for i in held}
    train = [p for p in pairs if p not in held_pairs]
    en_words = {w for en, _ in train for w in tokenize(en, "en")}
    zh_words = {w for _, zh in train for w in zh.split()}
    known = [all(w in en_words for w in tokenize(en, "en")) and all(w in zh_words for w in zh.split())
             for en, zh in (candidates[i] for i in sorted(held))]
    kept = [candidates[i] for i, ok in zip(sorted(held), known) if ok]
    returned = {candidates[i] for i, ok in zip(sorted(held), known) if not ok}
    return [p for p in pairs if p not in held_pairs or p in returned], kept


def save_tsv(path: Path, train: list[Pair], held_out: list[Pair]) -> None:
    """One pair a line: English, Chinese, and 'train' or 'heldout', tab-separated; gzip for a '.gz' name."""
    lines = ["# en\tzh\tsplit"]
    lines += [f"{en}\t{zh}\ttrain" for en, zh in train]
    lines += [f"{en}\t{zh}\theldout" for en, zh in held_out]
    data = ("\n".join(lines) + "\n").encode("utf-8")
    if str(path).endswith(".gz"):
        # No name and no time in the gzip header: the same corpus gives the same bytes.
        buffer = io.BytesIO()
        with gzip.GzipFile(filename="", mode="wb", fileobj=buffer, mtime=0) as f:
            f.write(data)
        data = buffer.getvalue()
    Path(path).write_bytes(data)


def _rows(path: Path, width: int):
    """(line number, fields) of a tab-separated file's data lines ('#' starts a comment); '.gz' is unpacked."""
    data = Path(path).read_bytes()
    if str(path).endswith(".gz"):
        data = gzip.decompress(data)
    for number, line in enumerate(data.decode("utf-8").splitlines(), 1):
        if line.strip() and not line.startswith("#"):
            fields = line.split("\t")
            if len(fields) != width:
                raise ValueError(f"{path}:{number}: expected {width} tab-separated fields.")
            yield number, fields


def load_tsv(path: Path) -> tuple[list[Pair], list[Pair]]:
    """The (train, held_out) pairs of a corpus file written by save_tsv."""
    train, held_out = [], []
    for number, (en, zh, split) in _rows(path, 3):
        if split not in ("train", "heldout"):
            raise ValueError(f"{path}:{number}: expected 'en<TAB>zh<TAB>train|heldout'.")
        (train if split == "train" else held_out).append((en, zh))
    return train, held_out


def load_pairs(path: Path) -> list[Pair]:
    """The pairs of a two-column file (English, Chinese), such as the hand-written held-out set."""
    return [(en, zh) for _, (en, zh) in _rows(path, 2)]


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if len(argv) != 1:
        print("usage: python -m tfdebug.demo.corpus OUT.tsv", file=sys.stderr)
        return 2
    train, held_out = split_pairs(generate_pairs())
    save_tsv(Path(argv[0]), train, held_out)
    print(f"{len(train)} training pairs, {len(held_out)} held out -> {argv[0]}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
