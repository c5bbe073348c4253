"""Words of the everyday families (`templates_everyday`, `templates_places`): numbers for ages and
the clock, days and months, more family words, where things are, getting about, and the set
phrases of politeness.

Written for this project, beside `lexicon`. As there, a number is joined to the word that
counts with it: "ten years old" -> 十岁, "three o'clock" -> 三点.
"""

from __future__ import annotations

from tfdebug.demo import lexicon as lx
from tfdebug.demo.lexicon import Verb, noun_table

# Numbers past the lexicon's, for the clock and ages: (English, digits, Chinese) from one to twelve.
_MORE_NUMBERS = (("seven", "七"), ("eight", "八"), ("nine", "九"), ("eleven", "十一"), ("twelve", "十二"))
_CHINESE = dict(lx.NUMBERS + _MORE_NUMBERS)
HOURS = tuple((en, str(i), _CHINESE[en]) for i, en in
              enumerate("one two three four five six seven eight nine ten eleven twelve".split(), 1))
# Ages a grown-up has: "thirty years old" -> 三十岁.
TENS = (("twenty", "二十"), ("thirty", "三十"), ("forty", "四十"), ("fifty", "五十"), ("sixty", "六十"),
        ("seventy", "七十"), ("eighty", "八十"))

DAYS = (("Monday", "星期一"), ("Tuesday", "星期二"), ("Wednesday", "星期三"), ("Thursday", "星期四"),
        ("Friday", "星期五"), ("Saturday", "星期六"), ("Sunday", "星期天"))
MONTHS = (("January", "一月"), ("February", "二月"), ("March", "三月"), ("April", "四月"), ("May", "五月"),
          ("June", "六月"), ("July", "七月"), ("August", "八月"), ("September", "九月"), ("October", "十月"),
          ("November", "十一月"), ("December", "十二月"))
# The days that "today", "tomorrow" and "yesterday" can be: (English, Chinese, past).
DAY_WORDS = (("today", "今天", False), ("tomorrow", "明天", False), ("yesterday", "昨天", True))

# Family words the main lexicon lacks; several English words can name one Chinese word.
KIN = noun_table("person", "个", """
little_sister little_sisters 妹妹
younger_sister younger_sisters 妹妹
little_brother little_brothers 弟弟
younger_brother younger_brothers 弟弟
big_sister big_sisters 姐姐
older_sister older_sisters 姐姐
big_brother big_brothers 哥哥
older_brother older_brothers 哥哥
- parents 父母
family - 家人
""")

# Where one thing is beside another: (English, Chinese after the noun, the nouns it fits).
_ANYWHERE = ("table", "chair", "bed", "door", "window", "box", "bag", "tree", "house", "car", "computer", "bus")
POSITIONS = (("under", "下面", ("table", "chair", "bed", "tree", "car", "box")),
             ("on", "上", ("table", "chair", "bed", "box", "car", "computer")),
             ("in", "里", ("box", "bag", "house", "car", "bus")),
             ("next to", "旁边", _ANYWHERE), ("behind", "后面", _ANYWHERE), ("in front of", "前面", _ANYWHERE),
             ("near", "附近", _ANYWHERE))

# Getting somewhere: "by bus" -> 坐 公交车 before the verb.
TRANSPORT = (("by bus", "坐 公交车"), ("by train", "坐 火车"), ("by plane", "坐 飞机"), ("by boat", "坐 船"),
             ("by car", "坐 车"), ("by bike", "骑 自行车"), ("on foot", "走路"))

# Things a learner thanks someone for: "thanks for your help" -> 谢谢 你的 帮助.
THANKS_FOR = (("help", "帮助"), ("gift", "礼物"), ("letter", "信"), ("flowers", "花"), ("cake", "蛋糕"),
              ("dinner", "晚饭"))
# Farewells that name when: "see you tomorrow" -> 明天 见.
SEE_YOU = (("tomorrow", "明天"), ("next week", "下周"), ("tonight", "今晚"))
# Set phrases that stand alone or before a name: (English, Chinese).
POLITE = (("thank you very much", "非常 感谢"), ("thank you so much", "非常 感谢"), ("you are welcome", "不 客气"),
          ("I am sorry", "对不起"), ("nice to meet you", "很 高兴 认识 你"), ("it is nice to meet you", "很 高兴 认识 你"),
          ("nice to meet you too", "我 也 很 高兴 认识 你"), ("I am fine, thank you", "我 很 好 ， 谢谢"),
          ("I am fine, thanks", "我 很 好 ， 谢谢"))
# What a learner apologises for, after "sorry,": (English with {s}, {be} and {do}, Chinese with {s}).
EXCUSES = (("{s} {be} late", "{s} 迟到 了"), ("{s} {do}n't know", "{s} 不 知道"),
           ("{s} {do}n't understand", "{s} 不 明白"), ("{s} {be} busy", "{s} 很 忙"))
QUANTITY = (("a lot of", "很多"), ("lots of", "很多"), ("many", "很多"))
VISIT = Verb("visit", "visits", "visited", "visiting", "看望", ("person",))
