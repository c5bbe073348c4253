"""Sentence families that describe (adjectives, weather, colours, comparisons, who and where):
each draws one English–Chinese pair from a seeded RNG.

A family returns (English, Chinese, mood) with mood "statement", "question" or
"greeting"; `phrases.surface` later adds capitals, contractions and punctuation.
Chinese grammar kept throughout: adjectives take 很 (negated with 不, asked with 吗),
colours are "是 红色 的", comparisons "A 比 B 大", the time follows the subject
("我 昨天 吃 了 …"), a finished action takes 了 and is negated with 没有, an action in
progress is "在 + verb", and a place goes before the verb ("在 医院 工作")
(the last three in `templates_actions`).
"""

from __future__ import annotations

import random

from tfdebug.demo import lexicon as lx
from tfdebug.demo.phrases import (Phrase, be, coloured, definite, generic, indefinite, noun, nouns_with, person,
                                    person_object, place, thing, verb_form)

Drawn = tuple[str, str, str]
_WEATHER = [a for a in lx.ADJECTIVES if "weather" in a.kinds]
_NOT_WEATHER = [a for a in lx.ADJECTIVES if a.kinds != ("weather",)]


def _subject_for(adj: lx.Adjective, rng: random.Random) -> Phrase:
    if "person" in adj.kinds and rng.random() < 0.6:
        return person(rng)
    kinds = [k for k in adj.kinds if k not in ("person", "weather")]
    return thing(rng, kinds) if kinds else person(rng)


def adjective(rng: random.Random) -> Drawn:
    """"My brother is tall" -> 我的 哥哥 很 高; negated, asked, with "very", "too" or a time."""
    adj = rng.choice(_NOT_WEATHER)
    s = _subject_for(adj, rng)
    form = rng.random()
    past = rng.random() < 0.15
    if form < 0.4:
        return f"{s.en} {be(s.agr, past)} {adj.en}", f"{s.zh} 很 {adj.zh}", "statement"
    if form < 0.55:
        return f"{s.en} {be(s.agr, past)} not {adj.en}", f"{s.zh} 不 {adj.zh}", "statement"
    if form < 0.75:
        return f"{be(s.agr, past)} {s.en} {adj.en}", f"{s.zh} {adj.zh} 吗", "question"
    if form < 0.83:
        return f"{s.en} {be(s.agr, past)} very {adj.en}", f"{s.zh} 非常 {adj.zh}", "statement"
    if form < 0.9:
        return f"{s.en} {be(s.agr, True)} too {adj.en}", f"{s.zh} 太 {adj.zh} 了", "statement"
    t_en, t_zh = rng.choice(lx.NOW_TIMES)
    if rng.random() < 0.3:  # "I am very happy today" -> 我 今天 非常 高兴
        return f"{s.en} {be(s.agr)} very {adj.en} {t_en}", f"{s.zh} {t_zh} 非常 {adj.zh}", "statement"
    return f"{s.en} {be(s.agr)} {adj.en} {t_en}", f"{s.zh} {t_zh} 很 {adj.zh}", "statement"


def weather(rng: random.Random) -> Drawn:
    """"The weather is nice today" -> 今天 天气 很 好; "It is sunny tomorrow" -> 明天 是 晴天; "It is raining"."""
    form = rng.random()
    if form < 0.3:
        return _weather_state(rng)
    adj = rng.choice(_WEATHER)
    t_en, t_zh, tense = _weather_time(rng)
    past = tense == "past"
    if form < 0.5:
        if rng.random() < 0.25:
            return f"the weather {be('3s', past)} {adj.en}", f"天气 很 {adj.zh}", "statement"
        b_en, b_zh = _be_then(tense, rng)
        return f"the weather {b_en} {adj.en} {t_en}", f"{t_zh} 天气 {b_zh}很 {adj.zh}", "statement"
    if form < 0.68:
        b_en, b_zh = _be_then(tense, rng)
        return f"it {b_en} {adj.en} {t_en}", f"{t_zh} {b_zh}很 {adj.zh}", "statement"
    if form < 0.76 and not adj.zh.startswith("不"):  # never 不 不好
        return f"it {be('3s', past)} not {adj.en} {t_en}", f"{t_zh} 不 {adj.zh}", "statement"
    if form < 0.86:
        return f"{be('3s', past)} it {adj.en} {t_en}", f"{t_zh} {adj.zh} 吗", "question"
    w_en, w_zh = rng.choice((("rain", "下雨"), ("snow", "下雪")))
    if form < 0.91:
        return f"it is {w_en}ing", f"在 {w_zh}", "statement"
    p_en, p_zh = rng.choice(lx.PAST_TIMES[:3])
    f_en, f_zh = rng.choice(lx.FUTURE_TIMES[:2])
    return rng.choice(((f"it {w_en}ed {p_en}", f"{p_zh} {w_zh} 了", "statement"),
                       (f"it will {w_en} {f_en}", f"{f_zh} 会 {w_zh}", "statement")))


def _weather_time(rng: random.Random) -> tuple[str, str, str]:
    """A time for a weather sentence and its tense: now, past or future."""
    tense = rng.choice(("now", "now", "past", "future"))
    pool = {"now": lx.NOW_TIMES, "past": lx.PAST_TIMES[:3], "future": lx.FUTURE_TIMES}[tense]
    t_en, t_zh = rng.choice(pool)
    return t_en, t_zh, tense


def _be_then(tense: str, rng: random.Random) -> tuple[str, str]:
    """"was" in the past; for the future "will be" (会) or the plain "is" learners also write."""
    if tense == "future" and rng.random() < 0.5:
        return "will be", "会 "
    return be("3s", tense == "past"), ""


def _weather_state(rng: random.Random) -> Drawn:
    """"It is sunny tomorrow" -> 明天 是 晴天; "Is it cloudy today?"; "It wasn't windy yesterday"."""
    en, zh, neg_zh = rng.choice(lx.WEATHER_STATES)
    t_en, t_zh, tense = _weather_time(rng)
    form = rng.random()
    if form < 0.6:
        b_en, b_zh = _be_then(tense, rng)
        return f"it {b_en} {en} {t_en}", f"{t_zh} {b_zh}{zh}", "statement"
    if form < 0.8:
        return f"it {be('3s', tense == 'past')} not {en} {t_en}", f"{t_zh} {neg_zh}", "statement"
    return f"{be('3s', tense == 'past')} it {en} {t_en}", f"{t_zh} {zh} 吗", "question"


def colour(rng: random.Random) -> Drawn:
    """"The apple is red" -> 苹果 是 红色 的; "What colour is …?"; "She has a black cat"."""
    c_en, c_zh = rng.choice(lx.COLOURS)
    s = thing(rng, ("animal", "food", "thing", "vehicle", "nature"))
    form = rng.random()
    if form < 0.4:
        return f"{s.en} {be(s.agr)} {c_en}", f"{s.zh} 是 {c_zh} 的", "statement"
    if form < 0.5:
        return f"{s.en} {be(s.agr)} not {c_en}", f"{s.zh} 不 是 {c_zh} 的", "statement"
    if form < 0.65:
        return f"{be(s.agr)} {s.en} {c_en}", f"{s.zh} 是 {c_zh} 的 吗", "question"
    if form < 0.75:
        word = rng.choice(("colour", "color"))
        return f"what {word} {be(s.agr)} {s.en}", f"{s.zh} 是 什么 颜色 的", "question"
    owner = person(rng)
    n = rng.choice(nouns_with(("animal", "thing", "vehicle")))
    obj = coloured(n, rng) or indefinite(n, rng) or generic(n)
    verb = rng.choice((("have", "has", "有"), ("want", "wants", "想要"), ("like", "likes", "喜欢")))
    if verb[0] == "like":
        obj = Phrase(f"the {c_en} {n.one or n.many}", f"{c_zh} 的 {n.zh}")
    return f"{owner.en} {verb_form(owner.agr, verb[0], verb[1])} {obj.en}", f"{owner.zh} {verb[2]} {obj.zh}", \
        "statement"


def comparison(rng: random.Random) -> Drawn:
    """"Dogs are bigger than cats" -> 狗 比 猫 大; "Is Tom taller than Anna?"."""
    adj = rng.choice([a for a in lx.ADJECTIVES if a.comparative and not a.zh.startswith("不")])
    if "person" in adj.kinds and rng.random() < 0.6:
        a, b = person(rng), person_object(rng)
        if a.en.lower() in ("i", "we") and b.en in ("me", "us"):
            b = Phrase("you", "你")
    else:
        kinds = [k for k in adj.kinds if k not in ("person", "weather", "baby")] or ["animal"]
        pool = nouns_with(kinds)
        x, y = rng.sample(pool, 2) if len(pool) > 1 else (pool[0], pool[0])
        if rng.random() < 0.5 and x.many and y.many:
            a, b = generic(x), generic(y)
        else:
            a, b = definite(x, rng), definite(y, rng)
    comp = adj.comparative
    if rng.random() < 0.75:
        return f"{a.en} {be(a.agr)} {comp} than {b.en}", f"{a.zh} 比 {b.zh} {adj.zh}", "statement"
    return f"{be(a.agr)} {a.en} {comp} than {b.en}", f"{a.zh} 比 {b.zh} {adj.zh} 吗", "question"


def identity(rng: random.Random) -> Drawn:
    """"My father is a doctor" -> 我的 爸爸 是 医生; "This is my dog"; "Who is that man?"."""
    form = rng.random()
    if form < 0.35:
        s = person(rng)
        job = noun(rng.choice(lx.JOBS))
        j_en = job.many if s.agr == "p" else f"{'an' if job.one[0] in 'aeiou' else 'a'} {job.one}"
        if rng.random() < 0.6:
            return f"{s.en} {be(s.agr)} {j_en}", f"{s.zh} 是 {job.zh}", "statement"
        if rng.random() < 0.5:
            return f"{s.en} {be(s.agr)} not {j_en}", f"{s.zh} 不 是 {job.zh}", "statement"
        return f"{be(s.agr)} {s.en} {j_en}", f"{s.zh} 是 {job.zh} 吗", "question"
    if form < 0.42:
        return _relation(rng)
    if form < 0.52:
        s = person(rng, plural_ok=False)
        p_en, p_zh = rng.choice(lx.POSSESSIVES)
        rel = noun(rng.choice(lx.FAMILY))
        return f"{s.en} {be(s.agr)} {p_en} {rel.one}", f"{s.zh} 是 {p_zh} {rel.zh}", "statement"
    if form < 0.75:
        d_en, d_zh = rng.choice((("this", "这"), ("that", "那"), ("it", "它")))
        n = rng.choice(nouns_with(("animal", "thing", "vehicle", "food")))
        if not n.one:
            n = noun("book")
        if rng.random() < 0.5:
            p_en, p_zh = rng.choice(lx.POSSESSIVES)
            obj = Phrase(f"{p_en} {n.one}", f"{p_zh} {n.zh}")
        else:
            obj = indefinite(n, rng) or Phrase(n.one, n.zh)
        if rng.random() < 0.7:
            return f"{d_en} is {obj.en}", f"{d_zh} 是 {obj.zh}", "statement"
        return f"is {d_en} {obj.en}", f"{d_zh} 是 {obj.zh} 吗", "question"
    if form < 0.85:
        d_en, d_zh = rng.choice((("this", "这"), ("that", "那")))
        return f"what is {d_en}", f"{d_zh} 是 什么", "question"
    s = person(rng) if rng.random() < 0.7 else definite(rng.choice(lx.PEOPLE), rng, possessive=False)
    return f"who {be(s.agr)} {s.en}", f"{s.zh} 是 谁", "question"


def _relation(rng: random.Random) -> Drawn:
    """"We are friends" -> 我们 是 朋友; "Tom and Anna are classmates"; "They are my friends"."""
    r_en, r_zh = rng.choice(lx.RELATIONS)
    if rng.random() < 0.6:
        s_en, s_zh = rng.choice((("we", "我们"), ("they", "他们"), ("you", "你们")))
    else:
        (a_en, a_zh), (b_en, b_zh) = rng.sample(lx.NAMES, 2)
        s_en, s_zh = f"{a_en} and {b_en}", f"{a_zh} 和 {b_zh}"
    form = rng.random()
    if form < 0.5:
        return f"{s_en} are {r_en}", f"{s_zh} 是 {r_zh}", "statement"
    if form < 0.65:
        return f"{s_en} are not {r_en}", f"{s_zh} 不 是 {r_zh}", "statement"
    if form < 0.8:
        return f"are {s_en} {r_en}", f"{s_zh} 是 {r_zh} 吗", "question"
    p_en, p_zh = rng.choice(lx.POSSESSIVES[:4])  # "they are my friends"; never "we are our friends"
    if s_en == "we":
        s_en, s_zh = "they", "他们"
    return f"{s_en} are {p_en} {r_en}", f"{s_zh} 是 {p_zh} {r_zh}", "statement"


def location(rng: random.Random) -> Drawn:
    """"My mom is at home" -> 我的 妈妈 在 家; "Where is the library?" -> 图书馆 在 哪里 ?."""
    if rng.random() < 0.15:
        p = place(rng, cities=False)
        return f"where is {p.en}", f"{p.zh} 在 哪里", "question"
    s = person(rng) if rng.random() < 0.65 else thing(rng, ("animal", "thing"), possessive=True)
    if rng.random() < 0.3:
        where_en, where_zh = "at home", "家"
    else:
        p = place(rng)
        prep = "at" if p.en == "school" else "in"
        where_en, where_zh = f"{prep} {p.en}", p.zh
    form = rng.random()
    if form < 0.45:
        return f"{s.en} {be(s.agr)} {where_en}", f"{s.zh} 在 {where_zh}", "statement"
    if form < 0.6:
        return f"{s.en} {be(s.agr)} not {where_en}", f"{s.zh} 不 在 {where_zh}", "statement"
    if form < 0.75:
        return f"{be(s.agr)} {s.en} {where_en}", f"{s.zh} 在 {where_zh} 吗", "question"
    return f"where {be(s.agr)} {s.en}", f"{s.zh} 在 哪里", "question"
