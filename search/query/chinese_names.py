"""A Chinese surname with a title or 老/小, as Chinese users name a person: 王医生, 李老师, 张总, 老王, 小王, 欧阳主任.

Read as "a person of that surname" (search.query.authors.wrote), as a surname alone is (王): 王医生 is anyone
recorded with the surname 王 (王建国, 王芳), where it was one word no author holds, and ``author="王医生"`` found
nothing for 王建国's mail. Only a
surname this module knows (the common ones and the two-character ones) with a title it knows, the whole name asked
so: 老师 (teacher) is no 老 + 师, 王建国 no title, and a person recorded as 王医生 is still found as written.
"""
from __future__ import annotations

import re
from functools import lru_cache

# the common single-character surnames (about 90% of people in China), Simplified and Traditional, and the
# two-character ones
SURNAMES = frozenset(
    "王李张張刘劉陈陳杨楊黄黃赵趙吴吳周徐孙孫马馬朱胡郭何林罗羅高郑鄭梁谢謝宋唐许許韩韓冯馮邓鄧曹彭曾肖萧蕭田董潘袁蔡"
    "蒋蔣余于於杜叶葉程魏苏蘇吕呂丁任卢盧姚沈钟鍾姜崔谭譚陆陸范汪廖石金韦韋贾賈夏付傅方邹鄒熊白孟秦邱侯江尹薛闫閆段雷"
    "龙龍黎史陶贺賀毛郝顾顧龚龔邵万萬覃武钱錢戴严嚴欧歐莫孔向常汤湯康易乔喬赖賴文施洪辛柯庄莊樊殷凌兰蘭齐齊")
COMPOUND = frozenset("欧阳 歐陽 司马 司馬 诸葛 諸葛 上官 东方 東方 皇甫 令狐 慕容 司徒 夏侯 尉迟 尉遲 公孙 公孫 长孙 長孫 宇文 "
                     "轩辕 軒轅 端木 独孤 獨孤 南宫 南宮 西门 西門 百里 申屠 万俟 萬俟".split())
# what follows a surname to name a person by it: a job or rank, a courtesy, a family word said of an elder
TITLES = ("医生", "醫生", "大夫", "医师", "醫師", "护士", "護士", "老师", "老師", "教授", "博士", "主任", "经理", "經理",
          "总经理", "總經理", "总监", "總監", "总工", "總工", "总", "總", "工", "董", "董事长", "董事長", "院长", "院長",
          "校长", "校長", "局长", "局長", "处长", "處長", "科长", "科長", "部长", "部長", "厂长", "廠長", "所长", "所長",
          "队长", "隊長", "组长", "組長", "书记", "書記", "主席", "老板", "老闆", "律师", "律師", "会计", "會計", "秘书",
          "秘書", "工程师", "工程師", "师傅", "師傅", "先生", "女士", "小姐", "太太", "阿姨", "同学", "同學", "警官",
          "哥", "姐", "叔", "姨")
_SURNAME = "|".join(sorted(COMPOUND) + sorted(SURNAMES))
_TITLE = "|".join(sorted(TITLES, key=len, reverse=True))
ADDRESSED = re.compile(f"(?:[老小](?P<told>{_SURNAME})|(?P<named>{_SURNAME})(?:{_TITLE}))")
GIVEN_MOST = 2  # characters of a given name at most (王建国: 建国)
HAN = re.compile("[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]+")


@lru_cache(maxsize=64)  # a name asked for, against thousands of authors
def surname(name: str) -> str | None:
    """The surname a name asked for gives with a title or 老/小 (王医生, 老王: 王), or alone (王, 欧阳: author='王' found
    no one, no person's name being the one character); None for any other name."""
    whole = "".join(name.split())
    if whole in SURNAMES or whole in COMPOUND:
        return whole
    match = ADDRESSED.fullmatch(whole)
    return match and (match["told"] or match["named"])


# the pinyin of a surname as said, where it is not its character's most said reading (pypinyin's): 曾 is Zeng as a
# surname, 吕 is written Lu and Lyu as often as Lv
SAID_AS = {"曾": ("zeng",), "覃": ("qin", "tan"), "萬俟": ("moqi",), "尉遲": ("yuchi",), "吕": ("lv", "lu", "lyu"),
           "呂": ("lv", "lu", "lyu")}


@lru_cache(maxsize=64)  # asked of every sender, as ``surname``
def families(name: str) -> tuple[str, ...]:
    """The surnames a name asked for gives: ``surname``'s (王医生, 王), or those written in Chinese that a surname
    alone in pinyin says ('Wang': 王 and 汪, pinyin not telling them apart; 'Ouyang': 欧阳, 歐陽), where author='Wang'
    found no one recorded as 王医生; () for any other name."""
    family = surname(name)
    if family:
        return (family,)
    words = re.findall(r"[^\W\d_]+", name)
    if len(words) != 1 or not name.isascii():
        return ()
    return _pinyin_surnames().get(words[0].lower(), ())


@lru_cache(maxsize=1)
def _pinyin_surnames() -> dict[str, tuple[str, ...]]:
    """Each surname's pinyin -> the surnames (Simplified and Traditional) said so."""
    from search.query import pinyin
    said: dict[str, tuple[str, ...]] = {}
    for family in sorted(SURNAMES | COMPOUND):
        for key in SAID_AS.get(family, (pinyin.name_key(family),)):
            said[key] = (*said.get(key, ()), family)
    return said


def how_named(name: str) -> str:
    """How a name ``surname`` reads gives the surname, in words: '老 and a surname' (老王), 'a surname and a title'
    (王医生). 老王 was said to be read as 'a surname and a title', which it has none of."""
    joined = "".join(name.split())
    match = ADDRESSED.fullmatch(joined)
    return f"{joined[0]} and a surname" if match and match["told"] else "a surname and a title"


def of_surname(person: tuple[str, ...], family: str) -> bool:
    """Whether a person recorded (its words, as search.query.authors.persons gives them) is a Chinese name of the
    surname ``family`` (王建国, 王 建国 of 王): the surname and a given name of one or two characters, all Chinese; or
    that name in pinyin, in either order ('Wang Jianguo', 'Jianguo Wang': the pinyin of 汪 too, as said)."""
    whole = "".join(person)
    if HAN.fullmatch(whole):
        return whole.startswith(family) and 0 < len(whole) - len(family) <= GIVEN_MOST
    if len(person) != 2 or not whole.isascii() or not whole.isalpha():
        return False
    from search.query import pinyin
    said = pinyin.name_key(family)
    return any(first == said and 0 < len(pinyin.syllables(given) or ()) <= GIVEN_MOST
               for first, given in (person, person[::-1]))


def said_in(recorded: str, family: str) -> bool:
    """Whether an author recorded in ASCII may hold the pinyin of ``family`` (``of_surname``), told without reading
    its words: asked of every sender of a mail archive."""
    from search.query import pinyin
    said = pinyin.name_key(family)
    return bool(said) and said in recorded.lower()
