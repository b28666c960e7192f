"""Pinyin typed for Chinese: `huancun` (or `huan cun`) for 缓存, `Wang Wei` for 王伟.

A user on a Latin keyboard, or one who remembers a colleague's name as it is said, types pinyin where the notes write
Chinese; keyword search found nothing (no passage holds 'huancun') and e5 did no better. The index records the toneless
pinyin of each Chinese word its passages hold (schema V27, the pairs inside a word V28, the dictionary's words across
two V29; table ``pinyin``: key 'huancun', word 缓存; ``words`` at each write: the words jieba cuts the text into, read
by pypinyin, whose readings go by its phrase dictionary: 重庆 is chongqing). A query's word, or run of words, that is
pinyin of two syllables or more and that no passage holds as written is also searched as the Chinese words its
syllables are the key of (``searched``; shujuku: 数据库). Conservative, as Latin words are English too ('Li', 'man',
'can', 'china'): one syllable alone is never read as pinyin, a word some passage holds never is, nor a common English
word (search.query.english_words: 'women' is not 我们) unless the query or the notes are Chinese (``chinese_meant``),
only a word is (not 吃哪 of 吃哪些 for 'china': schema V26 kept every pair of characters), and without a hit in the
table nothing is searched.

jieba and pypinyin are imported only where pinyin is written (the index's writes of Chinese, an author's name in
Chinese): a query reads the table, and pyspellchecker's English word list once the table has a key of it.
"""
from __future__ import annotations

import math
import re
from functools import lru_cache

# Every toneless syllable of Mandarin, as pypinyin writes it (ü as v: lv, nv); the interjections m, n, ng, hm, hng
# are left out, as they are letters of English words far more often.
SYLLABLES = frozenset("""
a ai an ang ao ba bai ban bang bao bei ben beng bi bian biao bie bin bing bo bu ca cai can cang cao ce cen ceng cha
chai chan chang chao che chen cheng chi chong chou chu chua chuai chuan chuang chui chun chuo ci cong cou cu cuan cui
cun cuo da dai dan dang dao de dei den deng di dia dian diao die ding diu dong dou du duan dui dun duo e ei en eng er
fa fan fang fei fen feng fo fou fu ga gai gan gang gao ge gei gen geng gong gou gu gua guai guan guang gui gun guo ha
hai han hang hao he hei hen heng hong hou hu hua huai huan huang hui hun huo ji jia jian jiang jiao jie jin jing jiong
jiu ju juan jue jun ka kai kan kang kao ke kei ken keng kong kou ku kua kuai kuan kuang kui kun kuo la lai lan lang lao
le lei leng li lia lian liang liao lie lin ling liu lo long lou lu luan lun luo lv lve ma mai man mang mao me mei men
meng mi mian miao mie min ming miu mo mou mu na nai nan nang nao ne nei nen neng ni nian niang niao nie nin ning niu
nong nou nu nuan nun nuo nv nve o ou pa pai pan pang pao pei pen peng pi pian piao pie pin ping po pou pu qi qia qian
qiang qiao qie qin qing qiong qiu qu quan que qun ran rang rao re ren reng ri rong rou ru rua ruan rui run ruo sa sai
san sang sao se sen seng sha shai shan shang shao she shei shen sheng shi shou shu shua shuai shuan shuang shui shun
shuo si song sou su suan sui sun suo ta tai tan tang tao te teng ti tian tiao tie ting tong tou tu tuan tui tun tuo wa
wai wan wang wei wen weng wo wu xi xia xian xiang xiao xie xin xing xiong xiu xu xuan xue xun ya yan yang yao ye yi yin
ying yo yong you yu yuan yue yun za zai zan zang zao ze zei zen zeng zha zhai zhan zhang zhao zhe zhei zhen zheng zhi
zhong zhou zhu zhua zhuai zhuan zhuang zhui zhun zhuo zi zong zou zu zuan zui zun zuo
""".split())
LONGEST = 6  # letters of the longest syllable (zhuang)
MOST_LETTERS = 40  # a longer word is read as no pinyin (a pasted hash or blob; the cut recurses once a syllable)
HAN_LETTERS = "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\U00020000-\U0002ffff"  # Chinese, not kana nor hangul
HAN = re.compile(f"[{HAN_LETTERS}]+")
HAN_PAIR = re.compile(f"(?=([{HAN_LETTERS}]{{2}}))")  # each pair of Chinese characters, overlapping: 数据库 数据 据库
FORMS = 4  # Chinese words a key is searched as at most, those the most passages hold first (shiyan: 实验, 试验 …)
ENGLISH_FEW = 10  # Chinese passages (saying 的) for each English one (saying 'the') under which the notes are Chinese
UNLIKELY = 10  # a dictionary's word across two of a run's cut is read if the likeliest cut through it is at most e^10
# times less likely than the run's (_unlikeliness): 饭后 4.3, 诊治 9.3 are, 数具 13.8 of 大多数具有 is not; beside
# zh-retrieval's first 300 passages, of the 508 words V29 read across two words, the 158 from 10 up are readings as
# 法治 (方法治疗), 染疾 (感染疾病), 儿时 (婴儿时), none a word of its questions (bench/pinyin_readings.py)
ACROSS_COUNT = 10  # times jieba's dictionary counts a word across two, at least, for it to be read: 玩手 of 玩手机 (3)
# and 数具 (4) are entries no sentence means, where 饭后 (243), 诊治 (223) are words; jieba's odds alone did not tell
# 玩手 (6.9) from 饭后 (4.3)
PARTICLES = frozenset("的地")  # a word across two is not read where it takes one of these the likeliest cut leaves
# alone, whatever the odds: the sentence's 的 (or adverbs' 地) then ties what stands before it to what follows, and the
# odds cannot tell (目的 of 项目的 3.9, below 饭后 4.3). Of zh-retrieval's 1,746 words read only across two, 14 do so,
# none a reading a searcher means: 地压 of 有效地压制 (12 passages), 极地 of 积极地, 的哥 of 您的哥哥 (and 间接地, whose
# 间接 is read). Not 得, which is as often the verb 'get' (易得 of 不容易得癫痫, a word of zh-retrieval's questions),
# nor 了, 着, 过, most of whose words are meant (太好了, 查过, 过强)
FLOOD = 10  # passages (a page of hits) from which a common English word's reading may flood the hits ...
FLOOD_SHARE = 100  # ... if one in this many Chinese passages (saying 的) holds it: of the 36 common English words that
# spell a word zh-retrieval holds, `name` 那么 5.7 %, `women` 我们 5.4 %, `julie` 剧烈 1.3 %, `like` 立刻 1.2 % are not
# read, `mike` 泌科 0.5 % and the 31 others are (`fuse` 肤色 0.03 %)
WORD_SYLLABLES = 8  # syllables of the longest word a query's run is read as (a stretch of more is read in parts)


def syllables(word: str) -> list[str] | None:
    """``word`` (lower case a-z) cut into pinyin syllables, the fewest there can be ('xian' is xian, not xi an;
    'fangan' fang an); None if it is no pinyin."""
    if not word.isascii() or not word.isalpha() or len(word) > MOST_LETTERS:
        return None
    return _cut(word.lower())


@lru_cache(maxsize=1024)
def _cut(word: str) -> list[str] | None:
    if not word:
        return []
    best = None
    for end in range(min(LONGEST, len(word)), 0, -1):
        if word[:end] in SYLLABLES and (rest := _cut(word[end:])) is not None:
            if best is None or 1 + len(rest) < len(best):
                best = [word[:end], *rest]
    return best


# --- the index's side: jieba and pypinyin -------------------------------------------------------------------------

# a run of Chinese characters as index_form writes it: each character a term of its own, a space between (its pairs
# follow it), so the run is read back as written: ' 数 据 库 数据 据库' holds 数据库
FORM_RUN = re.compile(f"(?<!\\S)[{HAN_LETTERS}](?: [{HAN_LETTERS}])+(?!\\S)")


def words(forms: list[str], held: set[str] = frozenset()) -> list[tuple[str, str]]:
    """(key, word) of each Chinese word of two characters or more ``forms`` hold but those ``held``, for the index's
    ``pinyin`` table. ``forms``: texts in the index's form (search.query.text.index_form, as store writes them to
    FTS5: in Simplified characters, a run wrapped across lines joined). A word is what jieba cuts a run into, in its
    search mode (数据库迁移: 数据, 数据库, 迁移; 任务调度: 任务, 调度, 任务调度), its dictionary's words and the names and
    new words its HMM finds (王伟, 周会): not every pair of characters, as the table kept before V27, whose pairs
    across two words (吃哪 of 吃哪些, 物含 of 食物含有) made 'china' and 'wuhan' pinyin of the Chinese passages."""
    found = set()
    for form in forms:
        for run in FORM_RUN.findall(form):
            found.update(_cut_words(run.replace(" ", "")))
    found -= held
    return [(key, word) for word in found if (key := _key(word))]


@lru_cache(maxsize=4096)  # a file's title is each of its passages' form
def _cut_words(run: str) -> list[str]:
    """The words of two characters or more jieba's search mode cuts ``run`` into, each pair of characters inside a
    word of three or more (schema V28): 脑梗 of 脑梗塞, a word its dictionary does not hold, so that search mode keeps
    脑梗塞 and 梗塞 alone and 'naogeng' found nothing; and each word of its dictionary the run holds (schema V29, its
    full mode): 饭后 of 晚饭后 and 诊治 of 复诊治疗, which the sentence's cut (晚饭 后, 复诊 治疗) passes over, so that
    'fanhou' and 'zhenzhi' found nothing; not one the sentence plainly does not mean (UNLIKELY: 数具 of 大多数具有 made
    'shuju' 数据 and 数具), nor one that takes the sentence's 的 or 地 (PARTICLES: 目的 of 项目的, which made 'mudi'
    find 项目的进度). Pairs across two words only when the dictionary holds them as a word: not 吃哪 of 吃哪些
    ('china'), nor 物含 of 食物含有 ('wuhan')."""
    jieba = _jieba()
    tokenizer, found = jieba.dt, {}
    for block in jieba.re_han_default.findall(run):  # where jieba's cut splits a run (at a character out of its range)
        dag = tokenizer.get_DAG(block)  # once for its three cuts: jieba's own cut_for_search and cut_all made it again
        route: dict[int, tuple[float, int]] = {}
        tokenizer.calc(block, dag, route)  # the likeliest cut, as jieba's cut reckons it
        cut = [word for word in _search_mode(tokenizer, block, route) if len(word) > 1 and HAN.fullmatch(word)]
        inside = [word[at:at + 2] for word in cut if len(word) > 2 for at in range(len(word) - 1)]
        found.update(dict.fromkeys(cut + inside))
        # full mode: each word of the dictionary the block holds
        if (across := [word for at, ends in dag.items() for end in ends
                       if end > at and (word := block[at:end + 1]) not in found]):
            unlikely = _unlikeliness(tokenizer, block, dag, route)
            found.update(dict.fromkeys(word for word in across if unlikely[word] <= UNLIKELY
                                       and tokenizer.FREQ.get(word, 0) >= ACROSS_COUNT))
    return list(found)


def _search_mode(tokenizer, block: str, route: dict[int, tuple[float, int]]):
    """jieba's cut_for_search of ``block`` (characters of jieba's Chinese range alone) from its likeliest cut
    (``route``, made by its calc): the words of the cut, each run of single characters no word of its dictionary
    read by its HMM (new words and names: 王伟, 周会), and before each word of three or four characters or more the
    dictionary's words of two and three inside it (as jieba 0.42's __cut_DAG and cut_for_search do)."""
    from jieba import finalseg

    def alone(chars: str):  # a run of characters the cut leaves alone
        if len(chars) == 1 or tokenizer.FREQ.get(chars):
            yield from chars
        elif chars:
            yield from finalseg.cut(chars)

    def cut():
        at, chars = 0, ""
        while at < len(block):
            end = route[at][1] + 1
            if end - at == 1:
                chars += block[at]
            else:
                yield from alone(chars)
                chars = ""
                yield block[at:end]
            at = end
        yield from alone(chars)

    for word in cut():
        for size in (2, 3):
            if len(word) > size:
                yield from (gram for at in range(len(word) - size + 1)
                            if tokenizer.FREQ.get(gram := word[at:at + size]))
        yield word


def _unlikeliness(tokenizer, run: str, dag: dict[int, list[int]], route: dict[int, tuple[float, int]]
                  ) -> dict[str, float]:
    """{each word of jieba's dictionary ``run`` holds: how much less likely jieba's likeliest cut of ``run`` through
    it is than its likeliest cut (the log of the ratio, by the dictionary's counts, as jieba's own cut reckons; 0 for
    the cut's words; infinite where it takes a particle, PARTICLES, that cut leaves alone)}. 饭后 of 晚饭后 4.3, 诊治
    of 复诊治疗 9.3; 数具 of 大多数具有 13.8 (大多 数具 有 against 大多数 具有), 法治 of 方法治疗 15.2; 目的 of 项目的 3.9,
    but 的 stands alone in 项目 的: infinite. ``dag`` and ``route``: jieba's DAG of ``run`` and its calc's route
    (route[at]: the odds of the likeliest cut of run[at:], and where its first word ends)."""
    freq, total, log = tokenizer.FREQ, math.log(tokenizer.total), math.log
    pieces = [[(end + 1, run[at:end + 1], log(freq.get(run[at:end + 1]) or 1) - total)  # an unknown piece counts 1
               for end in dag_ends] for at, dag_ends in sorted(dag.items())]
    before = [0.0] + [-math.inf] * len(run)  # the likeliest cut of run[:at]
    for at, its in enumerate(pieces):
        for end, _, odds in its:
            if before[at] + odds > before[end]:
                before[end] = before[at] + odds
    alone, at = set(), 0  # where the likeliest cut leaves a particle alone
    while at < len(run):
        end = route[at][1] + 1
        if end == at + 1 and run[at] in PARTICLES:
            alone.add(at)
        at = end
    best = route[0][0]
    found: dict[str, float] = {}
    for at, its in enumerate(pieces):
        for end, word, odds in its:
            odds = math.inf if end > at + 1 and not alone.isdisjoint(range(at, end)) else \
                best - before[at] - odds - route[end][0]
            found[word] = min(found.get(word, math.inf), odds)
    return found


@lru_cache(maxsize=1)
def _jieba():
    """jieba's tokenizer, its dictionary loaded (once a process, only when a write holds Chinese): 0.65-0.7 s of CPU
    (bench/pinyin_build.py --imports), as much from jieba's cache file (the temp dir's jieba.cache, a marshal of its
    498,000 words and prefixes) as from its dict.txt, so no cache of our own would cut it; seconds of wall clock
    only on a busy machine."""
    import logging

    import jieba  # the index's writes of Chinese alone need it
    jieba.setLogLevel(logging.WARNING)  # not its "Building prefix dict" lines on stderr
    jieba.initialize()
    return jieba


@lru_cache(maxsize=1 << 14)  # the writer remembers the words it wrote (store._pinyin_written): this is for the rest
def _key(word: str) -> str | None:
    """The toneless pinyin of a Chinese word ('huancun'), None if pypinyin has no reading of a character: its phrase
    dictionary's reading of the word (重庆 chongqing), else, for two characters, each one's first (asked of its two
    dictionaries directly: lazy_pinyin, cutting each pair into phrases again, took 6.6 s of zh-retrieval's build,
    these lookups 1 s), and for more, lazy_pinyin's (重庆市: the phrase 重庆, then 市)."""
    from pypinyin.constants import PHRASES_DICT, PINYIN_DICT  # the index's writes alone need them
    phrase = PHRASES_DICT.get(word)
    if phrase and len(phrase) == len(word):
        readings = [r[0] for r in phrase]
    elif len(word) == 2:
        readings = [PINYIN_DICT.get(ord(c), "").split(",")[0] for c in word]
    else:
        from pypinyin import Style, lazy_pinyin
        readings = lazy_pinyin(word, style=Style.TONE, errors=lambda chars: [""] * len(chars))
    if len(readings) != len(word) or not all(readings):
        return None
    return "".join(_plain(r) for r in readings)


@lru_cache(maxsize=4096)
def _plain(reading: str) -> str:
    """A reading without its tone ('huǎn': 'huan'; 'lǜ': 'lv'), as lazy_pinyin's Style.NORMAL writes it."""
    from pypinyin import Style
    from pypinyin.style import convert
    return convert(reading, Style.NORMAL, strict=True)


@lru_cache(maxsize=4096)
def name_key(name: str) -> str | None:
    """The toneless pinyin of a name written in Chinese characters alone ('王伟': 'wangwei'), None otherwise."""
    if not HAN.fullmatch(name):
        return None
    from pypinyin import Style, lazy_pinyin  # only for a name in Chinese
    return "".join(lazy_pinyin(name, style=Style.NORMAL))


def one_in_chinese(recorded: str, name: str) -> bool:
    """Whether one of an author recorded and a name asked for writes Chinese characters and the other does not, so
    that they may be one name as written and as said (``same_name``); a cheap test, asked of every sender."""
    return bool(HAN.search(recorded)) != bool(HAN.search(name))


def same_name(person: tuple[str, ...], asked: tuple[str, ...]) -> bool:
    """Whether a person's name and the name asked for (words, folded) are one name, one in Chinese characters and the
    other its pinyin: 王伟 and ('wang', 'wei'), or 'wei wang' (a Chinese name written in the Western order), or
    'wangwei'. A name in pinyin must be two syllables or more."""
    for chinese, latin in ((person, asked), (asked, person)):
        if len(chinese) == 1 and all(w.isascii() and w.isalpha() for w in latin):
            key = name_key(chinese[0])
            if key and len(syllables("".join(latin)) or []) >= 2 and key in ("".join(latin), "".join(latin[::-1])):
                return True
    return False


# --- the query's side: the table ---------------------------------------------------------------------------------

def runs(words: list[str], held: set[str]) -> list[tuple[list[str], list[str]]]:
    """(words, syllables) of each run of ``words`` in a row that are pinyin and that no passage holds (``held``: the
    words some passage holds), of two syllables or more: 'huancun', 'huan cun', 'Wang Wei'."""
    found, run, cut = [], [], []
    for word in [*words, ""]:
        its = syllables(word) if word and word not in held else None
        if its:
            run.append(word)
            cut += its
            continue
        if len(cut) >= 2:
            found.append((run, cut))
        run, cut = [], []
    return found


def read_words(cut: list[str], lookup: dict[str, list[str]]) -> list[str]:
    """The Chinese words ``cut`` (syllables) is pinyin of, by the words of the index (``lookup``: key -> words): from
    the start on, the longest stretch of two syllables or more that is a word's key (shujuku: 数据库, not 数据)."""
    found, at = [], 0
    while at < len(cut) - 1:
        for end in range(min(len(cut), at + WORD_SYLLABLES), at + 1, -1):
            if (its := lookup.get("".join(cut[at:end]))):
                found += its
                at = end
                break
        else:
            at += 1
    return found


def searched(conn, words: list[str], tokens, documents) -> dict[str, list[str]]:
    """{a word of ``words`` (the query's, as written_words gives them) read as pinyin: the Chinese words searched
    for it too}, the words of a run each mapped to the run's; ``tokens`` of words and ``documents`` holding a token
    are the index's, as keyword search asks them."""
    if not runs(words, set()):  # no run of pinyin even were every word unheld: no lookup of the words' passages
        return {}
    own = dict(zip(words, tokens(words) if words else []))
    held = {w for w, t in own.items() if t and any(documents(token) for token in t)}
    stemmed = {w for w in held if tuple(own[w]) != (w.lower(),)}  # 'exing', whose stem 'ex' the passages hold
    found = {}
    for run, cut, lookup in _looked_up(conn, words, held, documents, stemmed):
        chinese = [w for w in read_words(cut, lookup) if _passages(w, documents)]
        if any(_english(word) for word in run):  # read as pinyin where Chinese is meant (`fuse` 肤色), not as 我们
            chinese = [w for w in chinese if not _floods(w, documents)]
        chinese = sorted(chinese, key=lambda w: -_passages(w, documents))[:FORMS]
        for word in run:
            if chinese:
                found[word] = chinese
    return found


def _looked_up(conn, words: list[str], held: set[str], documents, stemmed: set[str] = frozenset()
               ) -> list[tuple[list[str], list[str], dict[str, list[str]]]]:
    """(words, syllables, the table's words for their keys) of each run of ``words`` the table has a key of. A word of
    two syllables or more that is a common English word (search.query.english_words: `women`, `dire`) ends a run as a
    held word does: an English searcher's word is not read as the Chinese it spells (我们, 低热), unless the query is
    a Chinese searcher's (``chinese_meant``: `fuse` 肤色, `bale` 芭乐). A word the passages hold only by the stem
    FTS5's Porter stemmer cuts it to (``stemmed``) is held if it is an English word (`dining`, as `dine`), and is no
    word the passages write if not: `exing` (恶性) is stemmed `ex`, which English notes say. The list is read only
    when the table has a key, so a query beside English notes alone never loads it."""
    from search.index import pinyin_reads

    def looked_up(held: set[str]) -> list[tuple[list[str], list[str], dict[str, list[str]]]]:
        return [(run, cut, lookup) for run, cut in runs(words, held)
                if (lookup := pinyin_reads.words(conn, keys(cut)))]

    found = looked_up(held - stemmed)
    if not found:
        return []
    from search.query import english_words
    read = {word for run, _, _ in found for word in run}
    english = {word for word in read & stemmed if english_words.known(word)}
    common = {word for word in read if len(syllables(word) or []) >= 2 and english_words.common(word)}
    if common and not chinese_meant(words, documents):
        english |= common
    return looked_up(held - stemmed | english) if english else found


def _english(word: str) -> bool:
    """Whether ``word`` is a common English word of two syllables (the list is loaded: the table had a key)."""
    from search.query import english_words
    return len(syllables(word) or []) >= 2 and english_words.common(word)


def _floods(word: str, documents) -> bool:
    """Whether ``word`` (Chinese) is so common in the notes that an English word read as it would flood the hits with
    passages the searcher did not ask for: FLOOD passages or more, and one in FLOOD_SHARE or more of those saying 的
    (`women` 我们, `name` 那么: 5 % of zh-retrieval's; `fuse` 肤色 0.03 %)."""
    held = _passages(word, documents)
    return held >= FLOOD and held * FLOOD_SHARE >= documents("的")


def chinese_meant(words: list[str], documents) -> bool:
    """Whether a query's common English words are pinyin too: the query writes Chinese beside them (`bale 好吃吗`),
    or the index is of Chinese notes, English passages a few among them: those saying `the`, English's commonest word,
    fewer than one for each ENGLISH_FEW saying 的, Chinese's commonest character. An English searcher's `women` beside
    notes in both languages is English (a reading as 我们 would mix Chinese passages into its English hits); beside
    Chinese notes alone it finds nothing in English, and a Chinese searcher's `fuse` there meant 肤色."""
    return any(HAN.search(word) for word in words) or documents("the") * ENGLISH_FEW < documents("的")


def _passages(word: str, documents) -> int:
    """How many passages hold the rarest pair of ``word`` (0: a pair the table kept of a file since gone)."""
    return min(documents(word[i:i + 2]) for i in range(len(word) - 1))


def pairs_of(words: list[str]) -> list[str]:
    """The pairs keyword search looks ``words`` (Chinese) up by, as it does a query's run (query_words)."""
    return list(dict.fromkeys(w[i:i + 2] for w in words for i in range(len(w) - 1)))


def keys(cut: list[str]) -> list[str]:
    """The table's keys ``read_words`` may ask for ``cut``: each stretch of two to WORD_SYLLABLES syllables."""
    return ["".join(cut[at:end]) for at in range(len(cut))
            for end in range(at + 2, min(len(cut), at + WORD_SYLLABLES) + 1)]


def said(found: dict[str, list[str]]) -> str:
    """The answer's line for the words searched as Chinese too ('huan', 'cun' of one run named together)."""
    by_words: dict[tuple[str, ...], list[str]] = {}
    for typed, words in found.items():
        by_words.setdefault(tuple(words), []).append(typed)
    return "; ".join(f"{' '.join(typed)!r} read as pinyin: also searched as {', '.join(words)}"
                     for words, typed in by_words.items())
