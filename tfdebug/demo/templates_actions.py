"""Sentence families that act: verbs with objects in the present, past, future and in progress,
activities, wanting and being able to, going and living somewhere, giving, requests,
greetings and names. Each draws one English–Chinese pair from a seeded RNG (see `templates`).
"""

from __future__ import annotations

import random

from tfdebug.demo import lexicon as lx
from tfdebug.demo.phrases import (Phrase, article, be, counted, definite, do, generic, indefinite, noun,
                                    nouns_with, person, person_object, place, thing, verb_form)

Drawn = tuple[str, str, str]


def _object(verb: lx.Verb, rng: random.Random, tense: str) -> Phrase:
    """An object that fits the verb: a person, "apples", "a cup of tea", "my book", "two cats"."""
    if "person" in verb.objects and rng.random() < 0.5:
        return person_object(rng)
    if "family" in verb.objects and rng.random() < 0.4:
        rel = noun(rng.choice(lx.FAMILY))
        return counted(rel, rng) if rng.random() < 0.5 else Phrase(f"{article(rel.one)} {rel.one}", f"一个 {rel.zh}")
    if "meal" in verb.objects and rng.random() < 0.4:
        return Phrase(*rng.choice(lx.MEALS))
    pool = nouns_with(verb.objects)
    if not pool:
        return person_object(rng)
    n = rng.choice(pool)
    roll = rng.random()
    if tense == "present" and verb.base in ("like", "love", "eat", "drink", "sell", "read", "learn", "study",
                                            "speak", "teach", "watch", "listen to", "draw", "wash"):
        if roll < 0.6:
            return generic(n)
    if roll < 0.35:
        return indefinite(n, rng) or generic(n)
    if roll < 0.45 and verb.base in ("have", "want", "buy", "need", "see", "eat"):
        return counted(n, rng) or generic(n)
    if roll < 0.55 and n.kind in ("food", "drink", "study") or n.kind == "study":
        return generic(n)
    return definite(n, rng)


def _with_and(obj: Phrase, verb: lx.Verb, rng: random.Random) -> Phrase:
    """Sometimes two objects: "bananas and apples" -> 香蕉 和 苹果."""
    if obj.noun is None or obj.noun.kind not in ("food", "drink", "animal") or rng.random() > 0.15:
        return obj
    other = generic(rng.choice(nouns_with((obj.noun.kind,))))
    if other.en == obj.en or obj.en != generic(obj.noun).en:
        return obj
    return Phrase(f"{obj.en} and {other.en}", f"{obj.zh} 和 {other.zh}")


_WHO_VERBS = ("love", "like", "miss", "help", "know", "meet", "see", "wait for")
_WHAT_VERBS = ("like", "want", "eat", "drink", "buy", "read", "write", "see", "have", "need", "make", "cook",
               "watch", "learn", "study", "sell")
_FREQUENCY = (("often", "经常"), ("always", "总是"), ("sometimes", "有时候"), ("usually", "通常"))


def present(rng: random.Random) -> Drawn:
    """"I don't like coffee" -> 我 不 喜欢 咖啡; "Does she like cats?"; "What do you want?"."""
    verb = rng.choice(lx.TRANSITIVE)
    s = person(rng)
    obj = _with_and(_object(verb, rng, "present"), verb, rng)
    v = verb_form(s.agr, verb.base, verb.third)
    neg_zh = "没有" if verb.zh == "有" else f"不 {verb.zh}"
    form = rng.random()
    if form < 0.3:
        return f"{s.en} {v} {obj.en}", f"{s.zh} {verb.zh} {obj.zh}", "statement"
    if form < 0.45:
        return f"{s.en} {do(s.agr)}n't {verb.base} {obj.en}", f"{s.zh} {neg_zh} {obj.zh}", "statement"
    if form < 0.6:
        return f"{do(s.agr)} {s.en} {verb.base} {obj.en}", f"{s.zh} {verb.zh} {obj.zh} 吗", "question"
    if form < 0.7:
        if verb.base in _WHO_VERBS:
            return f"who {do(s.agr)} {s.en} {verb.base}", f"{s.zh} {verb.zh} 谁", "question"
        if verb.base in _WHAT_VERBS:
            return f"what {do(s.agr)} {s.en} {verb.base}", f"{s.zh} {verb.zh} 什么", "question"
    if form < 0.8:
        return f"who {verb.third} {obj.en}", f"谁 {verb.zh} {obj.zh}", "question"
    if form < 0.9:
        t_en, t_zh = rng.choice(lx.HABIT_TIMES)
        return f"{s.en} {v} {obj.en} {t_en}", f"{s.zh} {t_zh} {verb.zh} {obj.zh}", "statement"
    f_en, f_zh = rng.choice(_FREQUENCY)
    return f"{s.en} {f_en} {v} {obj.en}", f"{s.zh} {f_zh} {verb.zh} {obj.zh}", "statement"


def past(rng: random.Random) -> Drawn:
    """"I saw a bird this morning" -> 我 今天 早上 看见 了 一只 鸟; negated with 没有; "What did you buy?"."""
    verb = rng.choice(lx.TRANSITIVE)
    s = person(rng)
    obj = _object(verb, rng, "past")
    timed = rng.random() < 0.55
    if verb.past == verb.base and not timed:
        timed = True  # "I read books" would read as the present
    t_en, t_zh = rng.choice(lx.PAST_TIMES) if timed else ("", "")
    te, tz = (f" {t_en}", f" {t_zh}") if timed else ("", "")
    form = rng.random()
    if form < 0.45:
        if timed and rng.random() < 0.2:
            return f"{t_en} {s.en} {verb.past} {obj.en}", f"{t_zh} {s.zh} {verb.zh} 了 {obj.zh}", "statement"
        return f"{s.en} {verb.past} {obj.en}{te}", f"{s.zh}{tz} {verb.zh} 了 {obj.zh}", "statement"
    if form < 0.65:
        return f"{s.en} didn't {verb.base} {obj.en}{te}", f"{s.zh}{tz} 没有 {verb.zh} {obj.zh}", "statement"
    if form < 0.8:
        return f"did {s.en} {verb.base} {obj.en}{te}", f"{s.zh}{tz} {verb.zh} 了 {obj.zh} 吗", "question"
    if verb.base in _WHAT_VERBS:
        return f"what did {s.en} {verb.base}{te}", f"{s.zh}{tz} {verb.zh} 了 什么", "question"
    return f"{s.en} {verb.past} {obj.en}{te}", f"{s.zh}{tz} {verb.zh} 了 {obj.zh}", "statement"


def future(rng: random.Random) -> Drawn:
    """"I will go to Beijing tomorrow" -> 我 明天 会 去 北京; "She won't buy a car"."""
    s = person(rng)
    if rng.random() < 0.5:
        p = place(rng)
        vp_en, vp_zh = f"go to {p.en}", f"去 {p.zh}"
    elif rng.random() < 0.5:
        act = rng.choice(lx.ACTIVITIES)
        vp_en, vp_zh = act[0], act[4]
    else:
        verb = rng.choice(lx.TRANSITIVE)
        obj = _object(verb, rng, "future")
        vp_en, vp_zh = f"{verb.base} {obj.en}", f"{verb.zh} {obj.zh}"
    t_en, t_zh = rng.choice(lx.FUTURE_TIMES)
    form = rng.random()
    if form < 0.6:
        return f"{s.en} will {vp_en} {t_en}", f"{s.zh} {t_zh} 会 {vp_zh}", "statement"
    if form < 0.8:
        return f"{s.en} won't {vp_en} {t_en}", f"{s.zh} {t_zh} 不 会 {vp_zh}", "statement"
    return f"will {s.en} {vp_en} {t_en}", f"{s.zh} {t_zh} 会 {vp_zh} 吗", "question"


def progressive(rng: random.Random) -> Drawn:
    """"The cat is sleeping" -> 猫 在 睡觉; "They are playing in the park" -> 他们 在 公园 玩."""
    s = person(rng) if rng.random() < 0.8 else thing(rng, ("animal",), possessive=True)
    form = rng.random()
    if form < 0.15:
        return f"what {be(s.agr)} {s.en} doing", f"{s.zh} 在 做 什么", "question"
    if form < 0.45:
        verb = rng.choice(lx.TRANSITIVE)
        if verb.base in ("have", "know", "need", "love", "like", "want", "see"):
            verb = rng.choice([v for v in lx.TRANSITIVE if v.base in ("eat", "drink", "read", "write", "watch")])
        obj = _object(verb, rng, "progressive")
        if rng.random() < 0.2 and verb.base in _WHAT_VERBS:
            return f"what {be(s.agr)} {s.en} {verb.ing}", f"{s.zh} 在 {verb.zh} 什么", "question"
        return f"{s.en} {be(s.agr)} {verb.ing} {obj.en}", f"{s.zh} 在 {verb.zh} {obj.zh}", "statement"
    act = rng.choice(lx.ACTIVITIES)
    if act[0] in lx.PLACED_ACTIVITIES and rng.random() < 0.4:
        p = place(rng)
        prep = "at" if p.en == "school" else "in"
        return f"{s.en} {be(s.agr)} {act[3]} {prep} {p.en}", f"{s.zh} 在 {p.zh} {act[4]}", "statement"
    if form < 0.8:
        return f"{s.en} {be(s.agr)} {act[3]}", f"{s.zh} 在 {act[4]}", "statement"
    if form < 0.9:
        return f"{s.en} {be(s.agr)} not {act[3]}", f"{s.zh} 没有 在 {act[4]}", "statement"
    return f"{be(s.agr)} {s.en} {act[3]}", f"{s.zh} 在 {act[4]} 吗", "question"


def _activity_past(act: tuple, s: Phrase, te: str, tz: str) -> tuple[str, str]:
    return f"{s.en} {act[2]}{te}", f"{s.zh}{tz} {act[4]} 了"


def activity(rng: random.Random) -> Drawn:
    """"I swim every day" -> 我 每天 游泳; "My father works in a hospital" -> 我的 爸爸 在 医院 工作."""
    act = rng.choice(lx.ACTIVITIES)
    s = person(rng)
    v = verb_form(s.agr, act[0], act[1])
    form = rng.random()
    if form < 0.2:
        return f"{s.en} {v}", f"{s.zh} {act[4]}", "statement"
    if form < 0.4 and act[0] in lx.PLACED_ACTIVITIES:
        p = place(rng)
        prep = "at" if p.en == "school" else "in"
        if rng.random() < 0.3:
            return f"where {do(s.agr)} {s.en} {act[0]}", f"{s.zh} 在 哪里 {act[4]}", "question"
        if p.noun is not None and rng.random() < 0.3:
            p, prep = Phrase(f"{article(p.noun.one)} {p.noun.one}", p.zh), "in"
        return f"{s.en} {v} {prep} {p.en}", f"{s.zh} 在 {p.zh} {act[4]}", "statement"
    if form < 0.5:
        t_en, t_zh = rng.choice(lx.HABIT_TIMES)
        return f"{s.en} {v} {t_en}", f"{s.zh} {t_zh} {act[4]}", "statement"
    if form < 0.6:
        return f"{s.en} {do(s.agr)}n't {act[0]}", f"{s.zh} 不 {act[4]}", "statement"
    if form < 0.7:
        return f"{do(s.agr)} {s.en} {act[0]}", f"{s.zh} {act[4]} 吗", "question"
    t_en, t_zh = rng.choice(lx.PAST_TIMES)
    if act[2] == act[0]:  # "I read yesterday": keep the time, which marks the past
        form = 0.75
    if form < 0.85:
        en, zh = _activity_past(act, s, f" {t_en}", f" {t_zh}")
        return en, zh, "statement"
    if form < 0.93:
        return f"{s.en} didn't {act[0]} {t_en}", f"{s.zh} {t_zh} 没有 {act[4]}", "statement"
    return f"did {s.en} {act[0]} {t_en}", f"{s.zh} {t_zh} {act[4]} 了 吗", "question"


def _verb_phrase(rng: random.Random) -> tuple[str, str, bool]:
    """A base-form verb phrase for "can"/"want to"/"like to": ("read books", "看 书", takes_what)."""
    roll = rng.random()
    if roll < 0.45:
        act = rng.choice(lx.ACTIVITIES)
        return act[0], act[4], False
    if roll < 0.6:
        p = place(rng)
        return (f"go to {p.en}", f"去 {p.zh}", False) if rng.random() < 0.7 else ("go home", "回 家", False)
    verb = rng.choice(lx.TRANSITIVE)
    obj = _object(verb, rng, "present")
    return f"{verb.base} {obj.en}", f"{verb.zh} {obj.zh}", verb.base in _WHAT_VERBS


def modal(rng: random.Random) -> Drawn:
    """"I can swim" -> 我 会 游泳; "I want to go home" -> 我 想 回 家; "What do you want to eat?"."""
    s = person(rng)
    kind = rng.choice(("can", "want", "like", "need"))
    vp_en, vp_zh, _ = _verb_phrase(rng)
    form = rng.random()
    if kind == "can":
        if form < 0.5:
            return f"{s.en} can {vp_en}", f"{s.zh} 会 {vp_zh}", "statement"
        if form < 0.7:
            return f"{s.en} can't {vp_en}", f"{s.zh} 不 会 {vp_zh}", "statement"
        return f"can {s.en} {vp_en}", f"{s.zh} 会 {vp_zh} 吗", "question"
    zh_verb = {"want": "想", "like": "喜欢", "need": "需要"}[kind]
    v = verb_form(s.agr, kind, kind + "s")
    if form < 0.5:
        return f"{s.en} {v} to {vp_en}", f"{s.zh} {zh_verb} {vp_zh}", "statement"
    if form < 0.65:
        return f"{s.en} {do(s.agr)}n't {kind} to {vp_en}", f"{s.zh} 不 {zh_verb} {vp_zh}", "statement"
    if form < 0.8:
        return f"{do(s.agr)} {s.en} {kind} to {vp_en}", f"{s.zh} {zh_verb} {vp_zh} 吗", "question"
    verb = rng.choice([v for v in lx.TRANSITIVE if v.base in _WHAT_VERBS])
    return f"what {do(s.agr)} {s.en} {kind} to {verb.base}", f"{s.zh} {zh_verb} {verb.zh} 什么", "question"


def motion(rng: random.Random) -> Drawn:
    """"We went to the zoo last week" -> 我们 上周 去 了 动物园; "Where do you live?" -> 你 住 在 哪里 ?."""
    s = person(rng)
    p = place(rng)
    form = rng.random()
    if form < 0.15:
        where = rng.choice((*lx.CITIES, *lx.CITIES, ("a big city", "一个 大 城市")))
        if rng.random() < 0.7:
            return f"{s.en} {verb_form(s.agr, 'live', 'lives')} in {where[0]}", f"{s.zh} 住 在 {where[1]}", \
                "statement"
        return f"where {do(s.agr)} {s.en} live", f"{s.zh} 住 在 哪里", "question"
    if form < 0.25:
        v = verb_form(s.agr, "go", "goes")
        if rng.random() < 0.5:
            return f"{s.en} {v} home", f"{s.zh} 回 家", "statement"
        t_en, t_zh = rng.choice(lx.PAST_TIMES)
        return f"{s.en} went home {t_en}", f"{s.zh} {t_zh} 回 家 了", "statement"
    verb = rng.choice((("go", "goes", "went", "去"), ("come", "comes", "came", "来")))
    if form < 0.33 and verb[0] == "come":  # "She will come tomorrow" -> 她 明天 会 来; "He came yesterday"
        if rng.random() < 0.5:
            t_en, t_zh = rng.choice(lx.FUTURE_TIMES)
            return f"{s.en} will come {t_en}", f"{s.zh} {t_zh} 会 来", "statement"
        t_en, t_zh = rng.choice(lx.PAST_TIMES)
        return f"{s.en} came {t_en}", f"{s.zh} {t_zh} 来 了", "statement"
    timed = rng.random() < 0.6
    if form < 0.45:
        t_en, t_zh = rng.choice(lx.HABIT_TIMES) if timed else ("", "")
        en = f"{s.en} {verb_form(s.agr, verb[0], verb[1])} to {p.en} {t_en}".strip()
        return en, " ".join(w for w in (s.zh, t_zh, verb[3], p.zh) if w), "statement"
    t_en, t_zh = rng.choice(lx.PAST_TIMES) if timed else ("", "")
    te, tz = (f" {t_en}", f" {t_zh}") if timed else ("", "")
    if form < 0.65:
        return f"{s.en} {verb[2]} to {p.en}{te}", f"{s.zh}{tz} {verb[3]} 了 {p.zh}", "statement"
    if form < 0.75:
        return f"{s.en} didn't {verb[0]} to {p.en}{te}", f"{s.zh}{tz} 没有 {verb[3]} {p.zh}", "statement"
    if form < 0.82:
        return f"did {s.en} {verb[0]} to {p.en}{te}", f"{s.zh}{tz} {verb[3]} 了 {p.zh} 吗", "question"
    if form < 0.9:
        return f"where did {s.en} go{te}", f"{s.zh}{tz} 去 了 哪里", "question"
    if rng.random() < 0.5:
        return f"where {be(s.agr)} {s.en} going", f"{s.zh} 去 哪里", "question"
    return f"{s.en} {be(s.agr)} going to {p.en}", f"{s.zh} 去 {p.zh}", "statement"


def give(rng: random.Random) -> Drawn:
    """"I gave my friend a book" -> 我 给 了 我的 朋友 一本 书."""
    s, to = person(rng), person_object(rng)
    n = rng.choice(nouns_with(("thing", "food", "drink", "animal")))
    obj = indefinite(n, rng) or counted(n, rng) or generic(n)
    if rng.random() < 0.6:
        t_en, t_zh = rng.choice(lx.PAST_TIMES) if rng.random() < 0.4 else ("", "")
        te, tz = (f" {t_en}", f" {t_zh}") if t_en else ("", "")
        if rng.random() < 0.3:
            return f"{s.en} gave {obj.en} to {to.en}{te}", f"{s.zh}{tz} 给 了 {to.zh} {obj.zh}", "statement"
        return f"{s.en} gave {to.en} {obj.en}{te}", f"{s.zh}{tz} 给 了 {to.zh} {obj.zh}", "statement"
    v = verb_form(s.agr, "give", "gives")
    return f"{s.en} {v} {to.en} {obj.en}", f"{s.zh} 给 {to.zh} {obj.zh}", "statement"


def request(rng: random.Random) -> Drawn:
    """"Please help me!" -> 请 帮助 我 !; "Don't open the window" -> 不要 打开 窗户."""
    if rng.random() < 0.35:
        act = rng.choice(lx.ACTIVITIES)
        vp_en, vp_zh = act[0], act[4]
    else:
        verb = rng.choice(lx.TRANSITIVE)
        obj = _object(verb, rng, "present")
        vp_en, vp_zh = f"{verb.base} {obj.en}", f"{verb.zh} {obj.zh}"
    form = rng.random()
    if form < 0.45:
        return f"please {vp_en}", f"请 {vp_zh}", "statement"
    if form < 0.65:
        return f"{vp_en}, please", f"请 {vp_zh}", "statement"
    if form < 0.85:
        return f"don't {vp_en}", f"不要 {vp_zh}", "statement"
    return f"let's {vp_en}", f"我们 {vp_zh} 吧", "statement"


_FIXED = (("how are you", "你 好 吗", "question"), ("I am fine", "我 很 好", "statement"),
          ("nice to meet you", "很 高兴 认识 你", "statement"), ("see you tomorrow", "明天 见", "statement"),
          ("I don't know", "我 不 知道", "statement"), ("I am sorry", "对不起", "statement"),
          ("happy birthday", "生日 快乐", "greeting"), ("thank you very much", "非常 感谢", "greeting"))


def greeting(rng: random.Random) -> Drawn:
    """"Good morning, Mom!" -> 早上好 ， 妈妈 !; "Thank you" -> 谢谢 你; "How are you?"."""
    if rng.random() < 0.2:
        return rng.choice(_FIXED)
    g_en, g_zh = rng.choice(lx.GREETINGS)
    if rng.random() < 0.35:
        return g_en, g_zh, "greeting"
    if rng.random() < 0.5:
        who_en, who_zh = rng.choice(lx.NAMES)
    else:
        rel = noun(rng.choice(("mom", "dad", "teacher", "grandma", "grandpa", "uncle", "aunt", "doctor")))
        who_en, who_zh = rel.one, rel.zh
    return f"{g_en}, {who_en}", f"{g_zh} ， {who_zh}", "greeting"


def names(rng: random.Random) -> Drawn:
    """"What is your name?" -> 你 叫 什么 名字 ?; "My name is Tom" -> 我 叫 汤姆."""
    owner = rng.choice((("my", "我"), ("your", "你"), ("his", "他"), ("her", "她")))
    if rng.random() < 0.45:  # "your mother's name", "the teacher's name", "his cat's name"
        p_en, p_zh = rng.choice((*lx.POSSESSIVES, ("the", "")))
        n = noun(rng.choice((*lx.FAMILY, "cat", "dog", "teacher", "friend", "doctor")))
        owner = (f"{p_en} {n.one}'s", f"{p_zh} {n.zh}".strip())
    n_en, n_zh = rng.choice(lx.NAMES)
    form = rng.random()
    if form < 0.35:
        return f"what is {owner[0]} name", f"{owner[1]} 叫 什么 名字", "question"
    if form < 0.75:
        return f"{owner[0]} name is {n_en}", f"{owner[1]} 叫 {n_zh}", "statement"
    if form < 0.85:
        return f"is {owner[0]} name {n_en}", f"{owner[1]} 叫 {n_zh} 吗", "question"
    s = rng.choice(lx.PRONOUNS[:4])
    return f"{s[0]} {be(s[2])} {n_en}", f"{s[1]} 是 {n_zh}", "statement"


def have(rng: random.Random) -> Drawn:
    """"I don't have a dog" -> 我 没有 狗; "Do you have a pen?" -> 你 有 笔 吗; "She has two cats"."""
    s = person(rng)
    verb = next(v for v in lx.TRANSITIVE if v.base == "have")
    obj = _object(verb, rng, "present")
    bare = Phrase(obj.en, obj.zh.split(" ", 1)[-1] if obj.zh.startswith("一") else obj.zh)  # 没有 狗, not 没有 一只 狗
    v = verb_form(s.agr, verb.base, verb.third)
    form = rng.random()
    if form < 0.35:
        return f"{s.en} {v} {obj.en}", f"{s.zh} 有 {obj.zh}", "statement"
    if form < 0.65:
        return f"{s.en} {do(s.agr)}n't have {obj.en}", f"{s.zh} 没有 {bare.zh}", "statement"
    if form < 0.85:
        return f"{do(s.agr)} {s.en} have {obj.en}", f"{s.zh} 有 {obj.zh} 吗", "question"
    return f"what {do(s.agr)} {s.en} have", f"{s.zh} 有 什么", "question"


def drinks(rng: random.Random) -> Drawn:
    """Tea and juice by name: "I like green tea" -> 我 喜欢 绿茶; "She drinks milk tea every morning"."""
    s = person(rng)
    d = rng.choice([n for n in lx.DRINKS if " " in (n.one or "")] * 2 + [n for n in lx.DRINKS if n.one])
    verb = rng.choice((("like", "likes", "喜欢"), ("drink", "drinks", "喝"), ("want", "wants", "想要")))
    form = rng.random()
    if form < 0.4:
        return f"{s.en} {verb_form(s.agr, verb[0], verb[1])} {d.one}", f"{s.zh} {verb[2]} {d.zh}", "statement"
    if form < 0.6:
        return f"{s.en} {do(s.agr)}n't {verb[0]} {d.one}", f"{s.zh} 不 {verb[2]} {d.zh}", "statement"
    if form < 0.8:
        return f"{do(s.agr)} {s.en} {verb[0]} {d.one}", f"{s.zh} {verb[2]} {d.zh} 吗", "question"
    t_en, t_zh = rng.choice(lx.HABIT_TIMES)
    return f"{s.en} {verb_form(s.agr, 'drink', 'drinks')} {d.one} {t_en}", f"{s.zh} {t_zh} 喝 {d.zh}", "statement"


def share(rng: random.Random) -> Drawn:
    """The notes' share of Apple: "He bought a share of Apple last week" -> 他 上周 买 了 一股 苹果."""
    s = person(rng)
    t_en, t_zh = rng.choice(lx.PAST_TIMES)
    return f"{s.en} bought a share of Apple {t_en}", f"{s.zh} {t_zh} 买 了 一股 苹果", "statement"
