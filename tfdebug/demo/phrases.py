"""Building blocks of the demo corpus's sentences: noun phrases in both languages, verb agreement,
and the surface variety a learner types (contractions, final punctuation).

Every function takes a seeded `random.Random`, so the corpus stays deterministic.
"""

from __future__ import annotations

import functools
import random
import re
from dataclasses import dataclass

from tfdebug.demo import lexicon as lx
from tfdebug.demo.lexicon import Noun

# Containers English uses to count a mass noun, by the Chinese measure word.
_CONTAINER = {"杯": ("a cup of", "a glass of"), "瓶": ("a bottle of",), "碗": ("a bowl of",),
              "块": ("a piece of",)}


@dataclass(frozen=True)
class Phrase:
    """A noun phrase: English, Chinese, verb agreement ("1s", "2", "3s", "p") and the noun behind it."""

    en: str
    zh: str
    agr: str = "3s"
    noun: Noun | None = None


def tags(noun: Noun) -> set[str]:
    """What a noun can be selected by: its kind and its own English forms (and 'story' for books, films …)."""
    out = {noun.kind} | {w for w in (noun.one, noun.many) if w}
    if noun.one in lx.STORY_THINGS:
        out.add("story")
    if noun.kind == "study" and (noun.one, noun.zh) in lx.LANGUAGES:
        out.add("language")
    return out


STUDY = [Noun(en, None, zh, "门", "study") for en, zh in lx.SUBJECTS_OF_STUDY]
ALL_NOUNS = [*lx.PEOPLE, *lx.ANIMALS, *lx.FOODS, *lx.DRINKS, *lx.THINGS, *lx.VEHICLES, *lx.NATURE, *lx.PLACES,
             *STUDY]
_BY_WORD = {n.one or n.many: n for n in ALL_NOUNS}


def noun(word: str) -> Noun:
    """The noun whose singular (or plural-only) English form is `word`."""
    return _BY_WORD[word]


_TAGS = [(n, tags(n)) for n in ALL_NOUNS]


@functools.lru_cache(maxsize=None)
def _nouns_with(wanted: frozenset) -> tuple[Noun, ...]:
    return tuple(n for n, t in _TAGS if t & wanted)


def nouns_with(wanted) -> tuple[Noun, ...]:
    """Nouns having any of the tags in `wanted` (kinds or words), in lexicon order."""
    return _nouns_with(frozenset(wanted))


def article(word: str) -> str:
    return "an" if word[0] in "aeiou" else "a"


def _zh_many(n: Noun) -> str:
    """Chinese for a plural with "the"/"my": people take 们 ("朋友们"); things and "parents" stay bare."""
    return n.zh + "们" if n.kind == "person" and n.one else n.zh


def definite(n: Noun, rng: random.Random, possessive: bool = True, plural: bool = False) -> Phrase:
    """"the X", "my X", "this X" or "that X" (or their plurals) with their Chinese."""
    if plural and n.many:
        choice = rng.choice(("the", "poss") if possessive else ("the",))
        zh = _zh_many(n)
        if choice == "the":
            return Phrase(f"the {n.many}", zh, "p", n)
        p_en, p_zh = rng.choice(lx.POSSESSIVES)
        return Phrase(f"{p_en} {n.many}", f"{p_zh} {zh}", "p", n)
    en = n.one or n.many
    agr = "3s" if n.one else "p"
    options = ["the", "this", "that"] + (["poss", "poss"] if possessive else [])
    choice = rng.choice(options)
    if choice == "the":
        return Phrase(f"the {en}", n.zh, agr, n)
    if choice == "poss":
        p_en, p_zh = rng.choice(lx.POSSESSIVES)
        return Phrase(f"{p_en} {en}", f"{p_zh} {n.zh}", agr, n)
    zh_word = "这" if choice == "this" else "那"
    if not n.one:  # "these shoes": no measure word for a plural-only noun in this corpus
        return Phrase(f"the {en}", n.zh, agr, n)
    return Phrase(f"{choice} {en}", f"{zh_word}{n.measure} {n.zh}", agr, n)


def generic(n: Noun) -> Phrase:
    """Things in general: "apples", "tea", "noodles" -> 苹果, 茶, 面条."""
    if n.many:
        return Phrase(n.many, n.zh, "p", n)
    return Phrase(n.one, n.zh, "3s", n)


def indefinite(n: Noun, rng: random.Random) -> Phrase | None:
    """"a book" -> 一本 书; "a cup of tea" -> 一杯 茶; None where English has no such phrase."""
    if n.one and n.many:
        return Phrase(f"{article(n.one)} {n.one}", f"一{n.measure} {n.zh}", "3s", n)
    if n.one and n.measure in _CONTAINER:
        return Phrase(f"{rng.choice(_CONTAINER[n.measure])} {n.one}", f"一{n.measure} {n.zh}", "3s", n)
    return None


def counted(n: Noun, rng: random.Random) -> Phrase | None:
    """"two apples" -> 两个 苹果 (numbers from two up); None for nouns without a plural."""
    if not (n.one and n.many):
        return None
    en, zh = rng.choice(lx.NUMBERS[1:])
    return Phrase(f"{en} {n.many}", f"{zh}{n.measure} {n.zh}", "p", n)


def measured(n: Noun, rng: random.Random) -> Phrase | None:
    """"two cups of tea" -> 两杯 茶; None for a noun English does not count by container."""
    if n.many or n.measure not in _CONTAINER:
        return None
    word = rng.choice(_CONTAINER[n.measure]).split()[1]  # "a glass of" -> glass
    container = word + ("es" if word.endswith("s") else "s") + " of"
    en, zh = rng.choice(lx.NUMBERS[1:3])  # two or three: each number joined to each container is a new word
    return Phrase(f"{en} {container} {n.one}", f"{zh}{n.measure} {n.zh}", "p", n)


def coloured(n: Noun, rng: random.Random) -> Phrase | None:
    """"a red car" -> 一辆 红色 的 车."""
    if not (n.one and n.many):
        return None
    c_en, c_zh = rng.choice(lx.COLOURS)
    return Phrase(f"{article(c_en)} {c_en} {n.one}", f"一{n.measure} {c_zh} 的 {n.zh}", "3s", n)


def person(rng: random.Random, plural_ok: bool = True) -> Phrase:
    """A person as a subject: a pronoun, a name, "my mom", "the teachers", "that man"."""
    roll = rng.random()
    if roll < 0.35:
        en, zh, agr = rng.choice(lx.PRONOUNS)
        return Phrase(en, zh, agr)
    if roll < 0.55:
        en, zh = rng.choice(lx.NAMES)
        return Phrase(en, zh, "3s")
    n = rng.choice(lx.PEOPLE)
    return definite(n, rng, plural=plural_ok and rng.random() < 0.25)


def person_object(rng: random.Random) -> Phrase:
    """A person as an object: "me", "him", "Xiaoming", "my sister", "the children"."""
    roll = rng.random()
    if roll < 0.35:
        en, zh = rng.choice(lx.OBJECT_PRONOUNS[:6])
        return Phrase(en, zh)
    if roll < 0.5:
        en, zh = rng.choice(lx.NAMES)
        return Phrase(en, zh)
    return definite(rng.choice(lx.PEOPLE), rng, plural=rng.random() < 0.2)


def thing(rng: random.Random, wanted, possessive: bool = True) -> Phrase:
    """A non-person subject of one of the wanted kinds: "the apple", "my cat", "dogs", "this book"."""
    n = rng.choice(nouns_with(wanted))
    if rng.random() < 0.3 and (n.many or n.kind in ("food", "drink", "study")):
        return generic(n)
    return definite(n, rng, possessive=possessive)


def place(rng: random.Random, cities: bool = True) -> Phrase:
    """A place after "to"/"in"/"at": "the park" / "school" / "Beijing" -> 公园 / 学校 / 北京."""
    if cities and rng.random() < 0.25:
        en, zh = rng.choice(lx.CITIES)
        return Phrase(en, zh)
    n = rng.choice(lx.PLACES)
    if n.one == "school" and rng.random() < 0.7:
        return Phrase("school", n.zh, "3s", n)
    return Phrase(f"the {n.one}", n.zh, "3s", n)


def be(agr: str, past: bool = False) -> str:
    if past:
        return "were" if agr in ("2", "p") else "was"
    return {"1s": "am", "2": "are", "p": "are"}.get(agr, "is")


def do(agr: str) -> str:
    return "does" if agr == "3s" else "do"


def verb_form(agr: str, base: str, third: str) -> str:
    return third if agr == "3s" else base


# Surface variety: contractions a learner types, and the full forms.
_CONTRACT = [(r"\bI am\b", "I'm"), (r"\byou are\b", "you're"), (r"\bwe are\b", "we're"),
             (r"\bthey are\b", "they're"), (r"\bhe is\b", "he's"), (r"\bshe is\b", "she's"),
             (r"\bit is\b", "it's"), (r"\bis not\b", "isn't"), (r"\bare not\b", "aren't"),
             (r"\bwhat is\b", "what's"), (r"\bwhere is\b", "where's"), (r"\bwho is\b", "who's"),
             (r"\bwas not\b", "wasn't"), (r"\bwere not\b", "weren't")]
_EXPAND = [(r"\bdon't\b", "do not"), (r"\bdoesn't\b", "does not"), (r"\bdidn't\b", "did not"),
           (r"\bcan't\b", "cannot"), (r"\bwon't\b", "will not")]
_ZH_MARK = {".": "。", "!": "!", "?": "?"}


def surface(en: str, zh: str, mood: str, rng: random.Random) -> tuple[str, str]:
    """Capitalise, maybe contract or expand, and maybe end with punctuation (copied into the Chinese)."""
    roll = rng.random()
    for pattern, repl in _CONTRACT if roll < 0.3 else _EXPAND if roll < 0.45 else []:
        en = re.sub(pattern, repl, en, flags=re.IGNORECASE)
    marks = {"question": (("?", 0.8), ("", 0.2)),
             "greeting": (("!", 0.5), (".", 0.1), ("", 0.4))}.get(mood, (("", 0.55), (".", 0.35), ("!", 0.1)))
    mark = rng.choices([m for m, _ in marks], [w for _, w in marks])[0]
    en = en[0].upper() + en[1:]
    if mark:
        return en + mark, f"{zh} {_ZH_MARK[mark]}"
    return en, zh
