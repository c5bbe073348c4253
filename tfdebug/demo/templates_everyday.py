"""Sentence families of everyday talk: ages, the clock, days and months, politeness, and the
questions how much, how many, why, when and what the weather is like. Each draws one
English–Chinese pair from a seeded RNG (see `templates`).

Chinese kept throughout: an age is the number joined to 岁 with no verb ("我 十岁"), the hour
joined to 点 goes after the subject like any time ("我 七点 起床"), a day is named with 是
("今天 是 星期一") and a birthday month with 在 ("我的 生日 在 五月").
"""

from __future__ import annotations

import random

from tfdebug.demo import lexicon as lx
from tfdebug.demo import lexicon_everyday as le
from tfdebug.demo.phrases import Phrase, be, definite, do, noun, nouns_with, person, place, thing, verb_form

Drawn = tuple[str, str, str]
_PERSON_ADJECTIVES = [a for a in lx.ADJECTIVES if "person" in a.kinds]
# Measure words "how many" is asked with (几个, 几只, 几本, 几辆): a few, to keep the vocabulary small.
_ASKED = ("个", "只", "本", "辆")
_WEATHER = [a for a in lx.ADJECTIVES if "weather" in a.kinds and not a.zh.startswith("不")]


def _number(entry: tuple[str, ...], rng: random.Random) -> tuple[str, str]:
    """(English, Chinese) of a number as a learner types it: mostly the word, up to twelve sometimes digits."""
    return (entry[1] if len(entry) == 3 and rng.random() < 0.2 else entry[0]), entry[-1]


def _someone(rng: random.Random) -> Phrase:
    """Whose age or plans: a person, a relative ("my little sister") or a pet ("your dog")."""
    roll = rng.random()
    if roll < 0.7:
        return person(rng)
    if roll < 0.85:
        return kin(rng)
    return thing(rng, ("animal",))


def kin(rng: random.Random) -> Phrase:
    """A relative with a possessive: "my little sister" -> 我的 妹妹, "her parents" -> 她的 父母."""
    n = rng.choice((*le.KIN, *(noun(w) for w in lx.FAMILY)))
    p_en, p_zh = rng.choice(lx.POSSESSIVES)
    return Phrase(f"{p_en} {n.one or n.many}", f"{p_zh} {n.zh}", "3s" if n.one else "p", n)


def ages(rng: random.Random) -> Drawn:
    """"How old are you?" -> 你 多大 了 ?; "My son is five years old" -> 我的 儿子 五岁."""
    s = _someone(rng)
    entry = rng.choice(le.HOURS[1:] + le.TENS if s.noun is None or s.noun.kind == "person" else le.HOURS)
    n_en, n_zh = _number(entry, rng)
    age_en = f"{n_en} {'year' if entry[0] == 'one' else 'years'} old"
    form = rng.random()
    if form < 0.35:
        return f"how old {be(s.agr)} {s.en}", f"{s.zh} 多大 了", "question"
    if form < 0.75:
        return f"{s.en} {be(s.agr)} {age_en}", f"{s.zh} {n_zh}岁", "statement"
    if form < 0.9:
        return f"{be(s.agr)} {s.en} {age_en}", f"{s.zh} {n_zh}岁 吗", "question"
    t_en, t_zh = rng.choice((("last year", "去年"), ("next year", "明年")))
    b = be(s.agr, past=True) if t_en == "last year" else "will be"
    return f"{s.en} {b} {age_en} {t_en}", f"{s.zh} {t_zh} {n_zh}岁", "statement"


def _routine(rng: random.Random) -> tuple[str, str, str, str]:
    """Something done at an hour: (base, third person, past, Chinese): "get up" -> 起床, "eat lunch" -> 吃 午饭."""
    roll = rng.random()
    if roll < 0.25:
        m_en, m_zh = rng.choice(lx.MEALS)
        return f"eat {m_en}", f"eats {m_en}", f"ate {m_en}", f"吃 {m_zh}"
    if roll < 0.45:
        p = place(rng, cities=False)
        return f"go to {p.en}", f"goes to {p.en}", f"went to {p.en}", f"去 {p.zh}"
    if roll < 0.5:
        return "go to bed", "goes to bed", "went to bed", "睡觉"
    if roll < 0.55:
        return "go home", "goes home", "went home", "回 家"
    act = rng.choice(lx.ACTIVITIES)
    return act[0], act[1], act[2], act[4]


def clock(rng: random.Random) -> Drawn:
    """"What time is it?" -> 现在 几点 了 ?; "I get up at seven o'clock" -> 我 七点 起床."""
    hour = rng.choice(le.HOURS)
    h_en, h_zh = _number(hour, rng)
    h_en, h_zh = f"{h_en} o'clock", f"{h_zh}点"
    form = rng.random()
    if form < 0.15:
        if rng.random() < 0.5:  # "What time is it in London?" -> 伦敦 现在 几点 了 ?
            c_en, c_zh = rng.choice(lx.CITIES)
            return f"what time is it {rng.choice(('', 'now '))}in {c_en}", f"{c_zh} 现在 几点 了", "question"
        return rng.choice(("what time is it", "what time is it now", "what is the time")), "现在 几点 了", "question"
    if form < 0.3:
        return f"it is {h_en}{rng.choice(('', ' now'))}", f"现在 {h_zh}", "statement"
    s = person(rng)
    base, third, past, zh = _routine(rng)
    if form < 0.6:
        return f"{s.en} {verb_form(s.agr, base, third)} at {h_en}", f"{s.zh} {h_zh} {zh}", "statement"
    if form < 0.75:
        return f"what time {do(s.agr)} {s.en} {base}", f"{s.zh} 几点 {zh}", "question"
    if form < 0.85:
        t_en, t_zh = rng.choice(lx.FUTURE_TIMES[:3])
        return f"{s.en} will {base} at {h_en} {t_en}", f"{s.zh} {t_zh} {h_zh} 会 {zh}", "statement"
    t_en, t_zh = rng.choice(lx.PAST_TIMES[:3])
    return f"{s.en} {past} at {h_en} {t_en}", f"{s.zh} {t_zh} {h_zh} {zh} 了", "statement"


def calendar(rng: random.Random) -> Drawn:
    """"Today is Monday" -> 今天 是 星期一; "What day is it today?" -> 今天 星期几 ?; plans on a day."""
    d_en, d_zh = rng.choice(le.DAYS)
    w_en, w_zh, was = rng.choice(le.DAY_WORDS)
    b = "was" if was else "is"
    form = rng.random()
    if form < 0.2:
        return f"{w_en} {b} {d_en}", f"{w_zh} 是 {d_zh}", "statement"
    if form < 0.25:
        return f"{w_en} {b} not {d_en}", f"{w_zh} 不 是 {d_zh}", "statement"
    if form < 0.32:
        return f"{b} {w_en} {d_en}", f"{w_zh} 是 {d_zh} 吗", "question"
    if form < 0.42:
        return rng.choice((f"what day {b} it {w_en}", f"what day {b} {w_en}")), f"{w_zh} 星期几", "question"
    if form < 0.7:
        return _on_a_day(rng, d_en, d_zh)
    return _month(rng)


def _on_a_day(rng: random.Random, d_en: str, d_zh: str) -> Drawn:
    """"I will go to Shanghai on Saturday" -> 我 星期六 会 去 上海; "What day do you swim?"."""
    s = _someone(rng) if rng.random() < 0.2 else person(rng)
    roll = rng.random()
    if roll < 0.3:
        p = place(rng)
        return f"{s.en} will go to {p.en} on {d_en}", f"{s.zh} {d_zh} 会 去 {p.zh}", "statement"
    if roll < 0.55:
        p = place(rng)
        return f"{s.en} went to {p.en} on {d_en}", f"{s.zh} {d_zh} 去 了 {p.zh}", "statement"
    act = rng.choice(lx.ACTIVITIES)
    if roll < 0.62:
        return f"what day {do(s.agr)} {s.en} {act[0]}", f"{s.zh} 星期几 {act[4]}", "question"
    if roll < 0.75:
        return f"{s.en} will {act[0]} on {d_en}", f"{s.zh} {d_zh} 会 {act[4]}", "statement"
    if roll < 0.88:
        return f"{s.en} {act[2]} on {d_en}", f"{s.zh} {d_zh} {act[4]} 了", "statement"
    return f"{s.en} {verb_form(s.agr, act[0], act[1])} every {d_en}", f"{s.zh} 每个 {d_zh} {act[4]}", "statement"


def _month(rng: random.Random) -> Drawn:
    """"My birthday is in May" -> 我的 生日 在 五月; "When is your birthday?"; "It is cold in January"."""
    m_en, m_zh = rng.choice(le.MONTHS)
    if rng.random() < 0.75:
        o_en, o_zh = rng.choice(lx.POSSESSIVES)
        form = rng.random()
        if form < 0.4:
            return f"{o_en} birthday is in {m_en}", f"{o_zh} 生日 在 {m_zh}", "statement"
        if form < 0.6:
            return f"when is {o_en} birthday", f"{o_zh} 生日 是 什么 时候", "question"
        if form < 0.75:
            return f"is {o_en} birthday in {m_en}", f"{o_zh} 生日 在 {m_zh} 吗", "question"
        d_en, d_zh = rng.choice(le.DAYS)
        return f"{o_en} birthday is on {d_en}", f"{o_zh} 生日 是 {d_zh}", "statement"
    adj = rng.choice(_WEATHER)
    return f"it is {adj.en} in {m_en}", f"{m_zh} 很 {adj.zh}", "statement"


def _addressee(rng: random.Random) -> tuple[str, str]:
    """Who a set phrase is said to: a name or "Mom", "teacher" …"""
    if rng.random() < 0.5:
        return rng.choice(lx.NAMES)
    rel = noun(rng.choice(("mom", "dad", "teacher", "grandma", "grandpa", "friend", "doctor")))
    return rel.one, rel.zh


def courtesy(rng: random.Random) -> Drawn:
    """"Thank you very much" -> 非常 感谢; "Sorry, I am late." -> 对不起 ， 我 迟到 了 。; "See you tomorrow"."""
    form = rng.random()
    if form < 0.4:
        en, zh = rng.choice(le.POLITE)
    elif form < 0.5:
        f_en, f_zh = rng.choice(le.THANKS_FOR)
        en, zh = f"{rng.choice(('thanks', 'thank you'))} for your {f_en}", f"谢谢 你的 {f_zh}"
    elif form < 0.62:
        t_en, t_zh = rng.choice(le.SEE_YOU)
        if rng.random() < 0.3:  # "see you on Monday" -> 星期一 见
            d_en, t_zh = rng.choice(le.DAYS)
            t_en = f"on {d_en}"
        en, zh = f"see you {t_en}", f"{t_zh} 见"
    elif form < 0.85:
        return _excuse(rng)
    else:
        return _how_is(rng)
    if rng.random() < 0.55:
        a_en, a_zh = _addressee(rng)
        return f"{en}, {a_en}", f"{zh} ， {a_zh}", "greeting"
    return en, zh, "greeting"


def _excuse(rng: random.Random) -> Drawn:
    """"Sorry, I am late" -> 对不起 ， 我 迟到 了; "He doesn't understand" -> 他 不 明白."""
    s = person(rng)
    en, zh = rng.choice(le.EXCUSES)
    en, zh = en.format(s=s.en, be=be(s.agr), do=do(s.agr)), zh.format(s=s.zh)
    roll = rng.random()
    if roll < 0.5:
        return f"{rng.choice(('sorry', 'I am sorry'))}, {en}", f"对不起 ， {zh}", "statement"
    if roll < 0.8 or "n't" not in en:
        return en, zh, "statement"
    return f"{do(s.agr)} {s.en} understand", f"{s.zh} 明白 吗", "question"


def _how_is(rng: random.Random) -> Drawn:
    """"How are you today?" -> 你 今天 好 吗 ?; "How is your mother?" -> 你的 妈妈 好 吗 ?."""
    s = person(rng) if rng.random() < 0.6 else kin(rng)
    t_en, t_zh = rng.choice((("", ""), ("", ""), ("today", "今天"), ("now", "现在")))
    en = " ".join(w for w in ("how", be(s.agr), s.en, t_en) if w)
    return en, " ".join(w for w in (s.zh, t_zh, "好 吗") if w), "question"


def questions(rng: random.Random) -> Drawn:
    """How much, how many, why, when, and what the weather is like."""
    form = rng.random()
    if form < 0.2:
        return _how_much(rng)
    if form < 0.35:
        return _how_many(rng)
    if form < 0.55:
        return _why(rng)
    if form < 0.7:
        return _when(rng)
    return _weather_talk(rng)


def _how_much(rng: random.Random) -> Drawn:
    """"How much is this?" -> 这个 多少 钱 ?; "How much is that red bag?"."""
    if rng.random() < 0.3:
        d_en, d_zh = rng.choice((("this", "这个"), ("that", "那个")))
        return rng.choice((f"how much is {d_en}", f"how much is {d_en} one", f"how much does {d_en} cost")), \
            f"{d_zh} 多少 钱", "question"
    n = rng.choice(nouns_with(("thing", "vehicle", "food", "drink")))
    obj = definite(n, rng, plural=rng.random() < 0.2)
    if rng.random() < 0.3:
        return f"how much {do(obj.agr)} {obj.en} cost", f"{obj.zh} 多少 钱", "question"
    return f"how much {be(obj.agr)} {obj.en}", f"{obj.zh} 多少 钱", "question"


def _how_many(rng: random.Random) -> Drawn:
    """"How many cats do you have?" -> 你 有 几只 猫 ?."""
    s = person(rng)
    n = rng.choice([n for n in nouns_with(("animal", "thing", "vehicle")) if n.one and n.many and n.measure in _ASKED] +
                   [noun(w) for w in lx.FAMILY[:12]])
    return f"how many {n.many} {do(s.agr)} {s.en} have", f"{s.zh} 有 几{n.measure} {n.zh}", "question"


def _why(rng: random.Random) -> Drawn:
    """"Why are you sad?" -> 你 为什么 难过 ?; "Why does he like cats?" -> 他 为什么 喜欢 猫 ?."""
    s = person(rng)
    roll = rng.random()
    if roll < 0.45:
        adj = rng.choice(_PERSON_ADJECTIVES)
        return f"why {be(s.agr)} {s.en} {adj.en}", f"{s.zh} 为什么 {adj.zh}", "question"
    act = rng.choice(lx.ACTIVITIES)
    if roll < 0.7:
        return f"why {do(s.agr)} {s.en} {act[0]}", f"{s.zh} 为什么 {act[4]}", "question"
    if roll < 0.85:
        return f"why {do(s.agr)}n't {s.en} {act[0]}", f"{s.zh} 为什么 不 {act[4]}", "question"
    return f"why {be(s.agr)} {s.en} {act[3]}", f"{s.zh} 为什么 在 {act[4]}", "question"


def _when(rng: random.Random) -> Drawn:
    """"When do you get up?" -> 你 什么 时候 起床 ?; "When will she go to Beijing?"."""
    s = person(rng)
    base, _, _, zh = _routine(rng)
    if rng.random() < 0.6:
        return f"when {do(s.agr)} {s.en} {base}", f"{s.zh} 什么 时候 {zh}", "question"
    return f"when will {s.en} {base}", f"{s.zh} 什么 时候 会 {zh}", "question"


def _weather_talk(rng: random.Random) -> Drawn:
    """"What is the weather like today?" -> 今天 天气 怎么样 ?; "It is very hot today" -> 今天 非常 热."""
    t_en, t_zh, tense = rng.choice((("today", "今天", "now"), ("now", "现在", "now"), ("tomorrow", "明天", "future"),
                                    ("yesterday", "昨天", "past"), ("", "", "now")))
    te, tz = (f" {t_en}", f"{t_zh} ") if t_en else ("", "")
    b = {"now": "is", "past": "was", "future": "will be"}[tense]
    if rng.random() < 0.45:
        if tense == "future":
            return f"what will the weather be like{te}", f"{tz}天气 怎么样", "question"
        if rng.random() < 0.5:
            return f"what {b} the weather like{te}", f"{tz}天气 怎么样", "question"
        return f"how {b} the weather{te}", f"{tz}天气 怎么样", "question"
    if not t_en:
        t_en, t_zh, te, tz = "today", "今天", " today", "今天 "
    adj = rng.choice(_WEATHER)
    roll = rng.random()
    if roll < 0.5:
        return f"it {b} very {adj.en}{te}", f"{tz}非常 {adj.zh}", "statement"
    if roll < 0.7:
        return f"the weather {b} very {adj.en}{te}", f"{tz}天气 非常 {adj.zh}", "statement"
    return f"it {b} too {adj.en}{te}", f"{tz}太 {adj.zh} 了", "statement"
