"""Sentence families of where things and people are and how they get there: under, on, in,
next to, behind; "there is"; where someone was; going by bus; quantities ("a lot of",
"two cups of"); and one's family. Each draws one English–Chinese pair from a seeded RNG
(see `templates`).

Chinese kept throughout: a position is 在 + the noun + the side word ("在 桌子 下面"); "there
is" turns round to the place first ("花园 里 有 一只 猫"); the way of travelling comes before
the verb ("坐 公交车 去 学校").
"""

from __future__ import annotations

import random

from tfdebug.demo import lexicon as lx
from tfdebug.demo import lexicon_everyday as le
from tfdebug.demo.phrases import (Phrase, be, counted, definite, do, generic, indefinite, measured, noun,
                                    nouns_with, person, place, verb_form)
from tfdebug.demo.templates_everyday import kin

Drawn = tuple[str, str, str]
# What is found somewhere: animals and things small enough to be under a table.
_SMALL = ("animal", "book", "pen", "pencil", "bag", "phone", "ball", "cup", "key", "umbrella", "toy", "hat", "shoes",
          "letter", "picture", "photo", "newspaper", "map", "ticket", "gift", "box", "flower", "computer")
_PEOPLE_VERBS = [v for v in lx.TRANSITIVE if "person" in v.objects and v.base not in ("need", "listen to")]


def _landmark(rng: random.Random) -> tuple[str, str, Phrase]:
    """A side of a thing: ("under", "下面", the table) -> "under the table" / 桌子 下面."""
    p_en, p_zh, fits = rng.choice(le.POSITIONS)
    n = noun(rng.choice(fits))
    if rng.random() < 0.7:
        return p_en, p_zh, Phrase(f"the {n.one}", n.zh, "3s", n)
    o_en, o_zh = rng.choice(lx.POSSESSIVES)
    return p_en, p_zh, Phrase(f"{o_en} {n.one}", f"{o_zh} {n.zh}", "3s", n)


def position(rng: random.Random) -> Drawn:
    """"The cat is under the table" -> 猫 在 桌子 下面; "Is the ball in the box?"; "There is a cat …"."""
    form = rng.random()
    if form < 0.25:
        return _there_is(rng)
    if form < 0.35:
        return _was_at(rng)
    p_en, p_zh, y = _landmark(rng)
    if rng.random() < 0.2:
        x = person(rng)
    else:
        n = rng.choice([n for n in nouns_with(_SMALL) if n is not y.noun])
        x = definite(n, rng, plural=rng.random() < 0.25)
    where_en, where_zh = f"{p_en} {y.en}", f"{y.zh} {p_zh}"
    if form < 0.7:
        return f"{x.en} {be(x.agr)} {where_en}", f"{x.zh} 在 {where_zh}", "statement"
    if form < 0.8:
        return f"{x.en} {be(x.agr)} not {where_en}", f"{x.zh} 不 在 {where_zh}", "statement"
    if form < 0.93:
        return f"{be(x.agr)} {x.en} {where_en}", f"{x.zh} 在 {where_zh} 吗", "question"
    return f"{x.en} {be(x.agr, past=True)} {where_en}", f"{x.zh} 在 {where_zh}", "statement"


def _there_is(rng: random.Random) -> Drawn:
    """"There is a cat in the garden" -> 花园 里 有 一只 猫; "There are five apples on the table"."""
    if rng.random() < 0.4:
        p = place(rng, cities=False)
        where_en, where_zh = f"in {p.en}", f"{p.zh} 里"
    else:
        p_en, p_zh, y = _landmark(rng)
        where_en, where_zh = f"{p_en} {y.en}", f"{y.zh} {p_zh}"
    if rng.random() < 0.15:
        q_en, _ = rng.choice(le.QUANTITY)
        return f"there are {q_en} people {where_en}", f"{where_zh} 有 很多 人", "statement"
    n = rng.choice(nouns_with((*_SMALL, "food")))
    many = rng.random() < 0.4 and n.measure in ("个", "只") and counted(n, rng)
    obj = many or indefinite(n, rng) or generic(n)
    verb = "are" if many else "is"
    if rng.random() < 0.8:
        return f"there {verb} {obj.en} {where_en}", f"{where_zh} 有 {obj.zh}", "statement"
    return f"{verb} there {obj.en} {where_en}", f"{where_zh} 有 {obj.zh} 吗", "question"


def _was_at(rng: random.Random) -> Drawn:
    """"I was at home yesterday" -> 我 昨天 在 家; "Where were you last night?" -> 你 昨晚 在 哪里 ?."""
    s = person(rng)
    t_en, t_zh = rng.choice(lx.PAST_TIMES)
    if rng.random() < 0.4:
        where_en, where_zh = "at home", "家"
    else:
        p = place(rng)
        where_en, where_zh = f"{'at' if p.en == 'school' else 'in'} {p.en}", p.zh
    was = be(s.agr, past=True)
    form = rng.random()
    if form < 0.5:
        return f"{s.en} {was} {where_en} {t_en}", f"{s.zh} {t_zh} 在 {where_zh}", "statement"
    if form < 0.65:
        return f"{s.en} {was} not {where_en} {t_en}", f"{s.zh} {t_zh} 不 在 {where_zh}", "statement"
    if form < 0.8:
        return f"{was} {s.en} {where_en} {t_en}", f"{s.zh} {t_zh} 在 {where_zh} 吗", "question"
    return f"where {was} {s.en} {t_en}", f"{s.zh} {t_zh} 在 哪里", "question"


def transport(rng: random.Random) -> Drawn:
    """"I go to school by bus" -> 我 坐 公交车 去 学校; "How do you go to work?" -> 你 怎么 去 …?."""
    s = person(rng)
    m_en, m_zh = rng.choice(le.TRANSPORT)
    if rng.random() < 0.2:
        go_en, go_zh = "home", "回 家"
    else:
        p = place(rng)
        go_en, go_zh = f"to {p.en}", f"去 {p.zh}"
    form = rng.random()
    if form < 0.35:
        return f"{s.en} {verb_form(s.agr, 'go', 'goes')} {go_en} {m_en}", f"{s.zh} {m_zh} {go_zh}", "statement"
    if form < 0.55:
        t_en, t_zh = rng.choice(lx.PAST_TIMES)
        went_zh = go_zh.replace(" ", " 了 ", 1) if go_zh.startswith("去") else go_zh + " 了"
        return f"{s.en} went {go_en} {m_en} {t_en}", f"{s.zh} {t_zh} {m_zh} {went_zh}", "statement"
    if form < 0.7:
        t_en, t_zh = rng.choice(lx.FUTURE_TIMES)
        return f"{s.en} will go {go_en} {m_en} {t_en}", f"{s.zh} {t_zh} 会 {m_zh} {go_zh}", "statement"
    if form < 0.85:
        return f"{do(s.agr)} {s.en} go {go_en} {m_en}", f"{s.zh} {m_zh} {go_zh} 吗", "question"
    return f"how {do(s.agr)} {s.en} go {go_en}", f"{s.zh} 怎么 {go_zh}", "question"


# Verbs that take a quantity, and the kinds of noun they count.
_COUNTING_VERBS = (("have", ("thing", "animal", "food", "friend")), ("want", ("food", "drink", "thing")),
                   ("need", ("thing", "drink")), ("buy", ("food", "drink", "thing")), ("eat", ("food",)),
                   ("drink", ("drink",)))


def quantity(rng: random.Random) -> Drawn:
    """"I have a lot of homework" -> 我 有 很多 作业; "I want two cups of tea" -> 我 想要 两杯 茶."""
    s = person(rng)
    base, kinds = rng.choice(_COUNTING_VERBS)
    verb = next(v for v in lx.TRANSITIVE if v.base == base)
    n = rng.choice(nouns_with(kinds))
    obj = measured(n, rng) if rng.random() < 0.35 else None
    if obj is None:
        q_en, q_zh = rng.choice(le.QUANTITY if n.many else le.QUANTITY[:2])
        obj = Phrase(f"{q_en} {n.many or n.one}", f"{q_zh} {n.zh}", "p", n)
    neg_zh = "没有" if verb.zh == "有" else f"不 {verb.zh}"
    form = rng.random()
    if form < 0.55 or (form >= 0.85 and base == "have"):
        return f"{s.en} {verb_form(s.agr, base, verb.third)} {obj.en}", f"{s.zh} {verb.zh} {obj.zh}", "statement"
    if form < 0.7:
        return f"{s.en} {do(s.agr)}n't {base} {obj.en}", f"{s.zh} {neg_zh} {obj.zh}", "statement"
    if form < 0.85:
        return f"{do(s.agr)} {s.en} {base} {obj.en}", f"{s.zh} {verb.zh} {obj.zh} 吗", "question"
    t_en, t_zh = rng.choice(lx.PAST_TIMES)
    return f"{s.en} {verb.past} {obj.en} {t_en}", f"{s.zh} {t_zh} {verb.zh} 了 {obj.zh}", "statement"


def family(rng: random.Random) -> Drawn:
    """"I love my family" -> 我 爱 我的 家人; "I have a little sister" -> 我 有 一个 妹妹; "Who is your aunt?"."""
    form = rng.random()
    if form < 0.4:
        return _kin_object(rng)
    if form < 0.55:
        s = person(rng)
        n = rng.choice([n for n in le.KIN if n.one and n.many])
        if rng.random() < 0.6:
            obj = Phrase(f"a {n.one}", f"一个 {n.zh}")
        else:
            obj = counted(n, rng)
        if rng.random() < 0.7:
            return f"{s.en} {verb_form(s.agr, 'have', 'has')} {obj.en}", f"{s.zh} 有 {obj.zh}", "statement"
        return f"{do(s.agr)} {s.en} have {obj.en}", f"{s.zh} 有 {obj.zh} 吗", "question"
    k = kin(rng)
    roll = rng.random()
    if roll < 0.3:
        adj = rng.choice([a for a in lx.ADJECTIVES if "person" in a.kinds])
        return f"{k.en} {be(k.agr)} {adj.en}", f"{k.zh} 很 {adj.zh}", "statement"
    if roll < 0.5:
        p = place(rng, cities=False)
        where_en, where_zh = ("at home", "家") if rng.random() < 0.5 else (f"in {p.en}", p.zh)
        return f"{k.en} {be(k.agr)} {where_en}", f"{k.zh} 在 {where_zh}", "statement"
    if roll < 0.7:
        job = noun(rng.choice(lx.JOBS))
        j_en = job.many if k.agr == "p" else f"{'an' if job.one[0] in 'aeiou' else 'a'} {job.one}"
        return f"{k.en} {be(k.agr)} {j_en}", f"{k.zh} 是 {job.zh}", "statement"
    if roll < 0.85:
        d_en, d_zh = rng.choice((("this", "这"), ("that", "那")) if k.agr == "3s" else (("these", "这"), ("those", "那")))
        return f"{d_en} {be(k.agr)} {k.en}", f"{d_zh} 是 {k.zh}", "statement"
    return f"who {be(k.agr)} {k.en}", f"{k.zh} 是 谁", "question"


def _kin_object(rng: random.Random) -> Drawn:
    """"I love my family"; "She visited her grandmother last week" -> 她 上周 看望 了 她的 奶奶."""
    s, k = person(rng), kin(rng)
    verb = rng.choice((le.VISIT, le.VISIT, *_PEOPLE_VERBS))
    form = rng.random()
    if form < 0.4:
        return f"{s.en} {verb_form(s.agr, verb.base, verb.third)} {k.en}", f"{s.zh} {verb.zh} {k.zh}", "statement"
    if form < 0.5:
        return f"{s.en} {do(s.agr)}n't {verb.base} {k.en}", f"{s.zh} 不 {verb.zh} {k.zh}", "statement"
    if form < 0.6:
        return f"{do(s.agr)} {s.en} {verb.base} {k.en}", f"{s.zh} {verb.zh} {k.zh} 吗", "question"
    if form < 0.85:
        t_en, t_zh = rng.choice(lx.PAST_TIMES)
        return f"{s.en} {verb.past} {k.en} {t_en}", f"{s.zh} {t_zh} {verb.zh} 了 {k.zh}", "statement"
    t_en, t_zh = rng.choice(lx.FUTURE_TIMES)
    return f"{s.en} will {verb.base} {k.en} {t_en}", f"{s.zh} {t_zh} 会 {verb.zh} {k.zh}", "statement"
