"""The demo corpus's words: English with the Chinese each one is written as, grouped by use.

Written for this project. Chinese is split into words with spaces; a measure word is
joined to its number or demonstrative ("一只", "这本", "两个"), as the notes write "一个 苹果".
Each noun carries the measure word Chinese counts it with and a kind, which decides the
verbs and adjectives that make sense with it.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Noun:
    """A noun: singular and plural English (None where there is no such form), Chinese, measure word, kind."""

    one: str | None
    many: str | None
    zh: str
    measure: str
    kind: str


def noun_table(kind: str, measure: str, table: str) -> list[Noun]:
    """Parse lines 'singular plural 中文 [measure]'; '-' marks a missing form, '_' a space in English."""
    nouns = []
    for line in table.strip().splitlines():
        one, many, zh, *rest = line.split()
        nouns.append(Noun(None if one == "-" else one.replace("_", " "),
                          None if many == "-" else many.replace("_", " "), zh, rest[0] if rest else measure, kind))
    return nouns


PEOPLE = noun_table("person", "个", """
mom moms 妈妈
mother mothers 妈妈
dad dads 爸爸
father fathers 爸爸
brother brothers 哥哥
sister sisters 姐姐
grandma grandmas 奶奶
grandmother grandmothers 奶奶
grandpa grandpas 爷爷
grandfather grandfathers 爷爷
son sons 儿子
daughter daughters 女儿
uncle uncles 叔叔
aunt aunts 阿姨
wife wives 妻子
husband husbands 丈夫
friend friends 朋友
teacher teachers 老师
student students 学生
classmate classmates 同学
doctor doctors 医生
nurse nurses 护士
driver drivers 司机
farmer farmers 农民
worker workers 工人
singer singers 歌手
writer writers 作家
waiter waiters 服务员
policeman policemen 警察
boss bosses 老板
child children 孩子
baby babies 宝宝
boy boys 男孩
girl girls 女孩
man men 男人
woman women 女人
neighbor neighbors 邻居
""")
# Jobs a person can be: "She is a nurse" -> "她 是 护士".
JOBS = ("teacher", "student", "doctor", "nurse", "driver", "farmer", "worker", "singer", "writer", "waiter",
        "policeman", "boss")
FAMILY = ("mom", "mother", "dad", "father", "brother", "sister", "grandma", "grandmother", "grandpa",
          "grandfather", "son", "daughter", "uncle", "aunt", "wife", "husband", "friend", "teacher",
          "classmate", "neighbor", "boss", "baby")
NAMES = (("Xiaoming", "小明"), ("Xiaohong", "小红"), ("Tom", "汤姆"), ("Anna", "安娜"), ("Lily", "莉莉"),
         ("Jack", "杰克"), ("Mary", "玛丽"), ("Wang", "小王"))

ANIMALS = noun_table("animal", "只", """
cat cats 猫
dog dogs 狗
bird birds 鸟
fish fish 鱼 条
horse horses 马 匹
cow cows 牛 头
pig pigs 猪 头
sheep sheep 羊
rabbit rabbits 兔子
panda pandas 熊猫
tiger tigers 老虎
elephant elephants 大象 头
monkey monkeys 猴子
duck ducks 鸭子
mouse mice 老鼠
lion lions 狮子
""")

FOODS = noun_table("food", "个", """
apple apples 苹果
banana bananas 香蕉 根
pear pears 梨
peach peaches 桃子
egg eggs 鸡蛋
watermelon watermelons 西瓜
tomato tomatoes 西红柿
potato potatoes 土豆
strawberry strawberries 草莓
sandwich sandwiches 三明治
dumpling dumplings 饺子
cake cakes 蛋糕 块
ice_cream - 冰淇淋
rice - 米饭 碗
- noodles 面条 碗
bread - 面包 块
meat - 肉 块
chicken - 鸡肉 块
soup - 汤 碗
- vegetables 蔬菜
fruit - 水果
chocolate - 巧克力 块
candy - 糖 块
""")
MEALS = (("breakfast", "早饭"), ("lunch", "午饭"), ("dinner", "晚饭"))

DRINKS = noun_table("drink", "杯", """
tea - 茶
coffee - 咖啡
milk - 牛奶
water - 水
juice - 果汁
beer - 啤酒 瓶
green_tea - 绿茶
black_tea - 红茶
milk_tea - 奶茶
orange_juice - 橙汁
apple_juice - 苹果汁
""")

THINGS = noun_table("thing", "个", """
book books 书 本
pen pens 笔 支
pencil pencils 铅笔 支
bag bags 包
phone phones 手机 部
computer computers 电脑 台
dress dresses 裙子 条
shirt shirts 衬衫 件
coat coats 外套 件
hat hats 帽子 顶
- shoes 鞋 双
ball balls 球
cup cups 杯子
table tables 桌子 张
chair chairs 椅子 把
bed beds 床 张
door doors 门 扇
window windows 窗户 扇
letter letters 信 封
picture pictures 画 幅
photo photos 照片 张
box boxes 盒子
key keys 钥匙 把
umbrella umbrellas 伞 把
flower flowers 花 朵
toy toys 玩具
newspaper newspapers 报纸 份
story stories 故事
song songs 歌 首
movie movies 电影 部
game games 游戏
map maps 地图 张
ticket tickets 票 张
gift gifts 礼物
house houses 房子 座
- clothes 衣服 件
homework - 作业 份
money - 钱 笔
""")
VEHICLES = noun_table("vehicle", "辆", """
car cars 车
bike bikes 自行车
bus buses 公交车
train trains 火车 列
plane planes 飞机 架
boat boats 船 条
""")
NATURE = noun_table("nature", "个", """
sky - 天空
sun - 太阳
moon - 月亮
grass - 草 片
sea - 大海 片
river rivers 河 条
mountain mountains 山 座
tree trees 树 棵
snow - 雪 片
""")
# Places: "in the kitchen" / "at school" -> "在 厨房" / "在 学校".
PLACES = noun_table("place", "个", """
school schools 学校
park parks 公园
shop shops 商店 家
supermarket supermarkets 超市 家
hospital hospitals 医院 家
library libraries 图书馆
office offices 办公室
restaurant restaurants 饭店 家
zoo zoos 动物园
cinema cinemas 电影院 家
station stations 车站
market markets 市场
kitchen kitchens 厨房
classroom classrooms 教室
room rooms 房间
garden gardens 花园
bank banks 银行 家
museum museums 博物馆
beach beaches 海边
hotel hotels 酒店 家
airport airports 机场
farm farms 农场
city cities 城市 座
""")
CITIES = (("Beijing", "北京"), ("Shanghai", "上海"), ("China", "中国"), ("London", "伦敦"), ("Japan", "日本"),
          ("England", "英国"), ("America", "美国"))
LANGUAGES = (("Chinese", "中文"), ("English", "英语"), ("Japanese", "日语"), ("French", "法语"))
SUBJECTS_OF_STUDY = LANGUAGES + (("math", "数学"), ("music", "音乐"), ("history", "历史"), ("art", "美术"),
                                 ("science", "科学"))

COLOURS = (("red", "红色"), ("blue", "蓝色"), ("green", "绿色"), ("yellow", "黄色"), ("white", "白色"),
           ("black", "黑色"), ("pink", "粉色"), ("purple", "紫色"), ("brown", "棕色"), ("grey", "灰色"),
           ("gray", "灰色"), ("orange", "橙色"))


@dataclass(frozen=True)
class Adjective:
    """An adjective: English, Chinese, the comparative ("bigger"/"more beautiful"), and the kinds it describes."""

    en: str
    zh: str
    comparative: str
    kinds: tuple[str, ...]


def _adjectives(table: str) -> list[Adjective]:
    """Parse lines 'english 中文 comparative kind,kind'; '_' is a space in the comparative."""
    out = []
    for line in table.strip().splitlines():
        en, zh, comparative, kinds = line.split()
        out.append(Adjective(en, zh, comparative.replace("_", " "), tuple(kinds.split(","))))
    return out


ADJECTIVES = _adjectives("""
tall 高 taller person,tree,mountain
short 矮 shorter person
big 大 bigger animal,thing,place,vehicle,food
small 小 smaller animal,thing,place,vehicle,food
old 老 older person
young 年轻 younger person
happy 高兴 happier person
sad 难过 sadder person
tired 累 more_tired person,animal
hungry 饿 hungrier person,animal
thirsty 渴 thirstier person,animal
busy 忙 busier person
beautiful 漂亮 more_beautiful person,thing,place,nature
cute 可爱 cuter animal,baby
smart 聪明 smarter person,animal
kind 善良 kinder person
nice 好 nicer person,weather
good 好 better food,drink,story,weather
angry 生气 angrier person
lazy 懒 lazier person,animal
fat 胖 fatter person,animal
thin 瘦 thinner person,animal
strong 强壮 stronger person,animal
fast 快 faster animal,vehicle
slow 慢 slower animal,vehicle
delicious 好吃 more_delicious food
sweet 甜 sweeter food,drink
hot 热 hotter food,drink,weather
cold 冷 colder food,drink,weather
warm 暖和 warmer weather
cool 凉快 cooler weather
bad 不好 worse weather
cheap 便宜 cheaper food,drink,thing,vehicle
expensive 贵 more_expensive food,drink,thing,vehicle
fresh 新鲜 fresher food,drink
new 新 newer thing,vehicle
clean 干净 cleaner thing,place,animal
dirty 脏 dirtier thing,place,animal
heavy 重 heavier thing,animal
interesting 有趣 more_interesting story,study
boring 无聊 more_boring story,study
easy 容易 easier study
difficult 难 more_difficult study
long 长 longer story,river
quiet 安静 quieter place,person
far 远 farther place
""")
# Things a story-like adjective fits: books, films, songs, games, stories.
STORY_THINGS = ("book", "story", "movie", "song", "game")

# Times: (English, Chinese). Chinese puts the time after the subject: "我 昨天 吃 了 …".
PAST_TIMES = (("yesterday", "昨天"), ("last night", "昨晚"), ("last week", "上周"), ("this morning", "今天 早上"),
              ("yesterday morning", "昨天 早上"), ("last year", "去年"), ("yesterday evening", "昨天 晚上"))
FUTURE_TIMES = (("tomorrow", "明天"), ("next week", "下周"), ("tonight", "今晚"), ("tomorrow morning", "明天 早上"),
                ("next year", "明年"))
HABIT_TIMES = (("every day", "每天"), ("every morning", "每天 早上"), ("every evening", "每天 晚上"),
               ("every week", "每周"))
# Weather that Chinese says with a noun or a phrase rather than 很 + adjective: (English, the
# predicate, its negation). "It is sunny tomorrow" -> 明天 是 晴天; "It was windy" -> 风 很 大.
WEATHER_STATES = (("sunny", "是 晴天", "不 是 晴天"), ("cloudy", "是 阴天", "不 是 阴天"),
                  ("windy", "风 很 大", "风 不 大"), ("rainy", "下雨", "不 下雨"), ("snowy", "下雪", "不 下雪"),
                  ("foggy", "有 雾", "没有 雾"))
# What people are to each other, said of two or more: "We are friends" -> 我们 是 朋友.
RELATIONS = (("friends", "朋友"), ("good friends", "好 朋友"), ("classmates", "同学"), ("neighbors", "邻居"),
             ("neighbours", "邻居"))
NOW_TIMES = (("today", "今天"), ("now", "现在"), ("tonight", "今晚"), ("this morning", "今天 早上"))
NUMBERS = (("one", "一"), ("two", "两"), ("three", "三"), ("four", "四"), ("five", "五"), ("six", "六"),
           ("ten", "十"))


@dataclass(frozen=True)
class Verb:
    """A verb: base, third-person singular, past, -ing forms, Chinese, and the kinds of object it takes."""

    base: str
    third: str
    past: str
    ing: str
    zh: str
    objects: tuple[str, ...]


def _verbs(table: str) -> list[Verb]:
    """Parse lines 'base third past ing 中文 kind,kind'; '_' is a space in English."""
    out = []
    for line in table.strip().splitlines():
        base, third, past, ing, zh, kinds = line.split()
        words = (w.replace("_", " ") for w in (base, third, past, ing))
        out.append(Verb(*words, zh, tuple(kinds.split(","))))
    return out


# Object kinds: person, animal, food, drink, thing, vehicle, story, study, language, meal.
TRANSITIVE = _verbs("""
love loves loved loving 爱 person,animal,food,drink,study
like likes liked liking 喜欢 person,animal,food,drink,thing,study,story
want wants wanted wanting 想要 food,drink,thing,animal,vehicle
need needs needed needing 需要 thing,drink,person
have has had having 有 thing,animal,vehicle,family
eat eats ate eating 吃 food,meal
drink drinks drank drinking 喝 drink
buy buys bought buying 买 food,drink,thing,vehicle
sell sells sold selling 卖 food,thing,vehicle
see sees saw seeing 看见 person,animal,vehicle
watch watches watched watching 看 movie,game
read reads read reading 看 book,letter,newspaper,story
write writes wrote writing 写 letter,story,song,book
make makes made making 做 cake,meal
cook cooks cooked cooking 做 meal,noodles
open opens opened opening 打开 door,window,box,book,bag
close closes closed closing 关上 door,window,box,book
find finds found finding 找到 key,book,pen,phone,bag,ball,animal
wash washes washed washing 洗 clothes,car,fruit
clean cleans cleaned cleaning 打扫 room
help helps helped helping 帮助 person
know knows knew knowing 认识 person
miss misses missed missing 想念 person
meet meets met meeting 见 person
learn learns learned learning 学习 study
study studies studied studying 学习 study
teach teaches taught teaching 教 study
speak speaks spoke speaking 说 language
listen_to listens_to listened_to listening_to 听 song,person
wait_for waits_for waited_for waiting_for 等 person,vehicle
draw draws drew drawing 画 animal,flower,tree,house
drive drives drove driving 开 car,bus
ride rides rode riding 骑 bike,horse
""")

# Activities without an object: (base, third, past, ing, Chinese).
ACTIVITIES = tuple(tuple(w.replace("_", " ") for w in line.split()[:4]) + (" ".join(line.split()[4:]),)
                   for line in """
sleep sleeps slept sleeping 睡觉
swim swims swam swimming 游泳
sing sings sang singing 唱歌
dance dances danced dancing 跳舞
run runs ran running 跑步
walk walks walked walking 散步
cook cooks cooked cooking 做饭
study studies studied studying 学习
work works worked working 工作
play plays played playing 玩
read reads read reading 看书
write writes wrote writing 写字
draw draws drew drawing 画画
cry cries cried crying 哭
laugh laughs laughed laughing 笑
rest rests rested resting 休息
travel travels traveled traveling 旅行
get_up gets_up got_up getting_up 起床
play_football plays_football played_football playing_football 踢 足球
play_basketball plays_basketball played_basketball playing_basketball 打 篮球
play_games plays_games played_games playing_games 玩 游戏
play_the_piano plays_the_piano played_the_piano playing_the_piano 弹 钢琴
watch_TV watches_TV watched_TV watching_TV 看 电视
do_homework does_homework did_homework doing_homework 做 作业
listen_to_music listens_to_music listened_to_music listening_to_music 听 音乐
go_shopping goes_shopping went_shopping going_shopping 购物
""".strip().splitlines())
# Activities that happen somewhere: "work in a hospital" -> "在 医院 工作".
PLACED_ACTIVITIES = ("sleep", "swim", "sing", "dance", "run", "walk", "cook", "study", "work", "play", "read",
                     "rest", "play football", "play basketball", "play games", "watch TV", "do homework")

GREETINGS = (("hello", "你好"), ("hi", "你好"), ("good morning", "早上好"), ("good evening", "晚上好"),
             ("good night", "晚安"), ("goodbye", "再见"), ("bye", "再见"), ("thank you", "谢谢 你"),
             ("thanks", "谢谢"), ("sorry", "对不起"), ("welcome", "欢迎"))
POSSESSIVES = (("my", "我的"), ("your", "你的"), ("his", "他的"), ("her", "她的"), ("our", "我们的"),
               ("their", "他们的"))
# (English subject, Chinese, agreement): "1s" I, "2" you, "3s" he/she, "p" plural.
PRONOUNS = (("I", "我", "1s"), ("you", "你", "2"), ("he", "他", "3s"), ("she", "她", "3s"), ("we", "我们", "p"),
            ("they", "他们", "p"))
OBJECT_PRONOUNS = (("me", "我"), ("you", "你"), ("him", "他"), ("her", "她"), ("us", "我们"), ("them", "他们"),
                   ("it", "它"))
