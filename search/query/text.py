"""Text as the keyword index sees it.

Both documents and queries go through ``normalise`` (NFKC, case folding).
Runs of Chinese, Japanese and Korean characters are written out as single
characters followed by their overlapping bigrams, so that FTS5's unicode61
tokenizer (which would keep a whole CJK run as one token) finds a two-character
word like 合同 inside 曲美合同条款. Query words of two or more CJK characters
become their overlapping bigrams, so a passage holding the whole word shares
all of them. A Chinese query word is also looked up as written in the other script
(``other_scripts``: 资料 as 資料 too, and 資料 as 资料), as notes mix both, and a
German one with ae, oe, ue as ä, ö, ü and the other way round (``umlaut_forms``).
"""
from __future__ import annotations

import functools
import re
from itertools import zip_longest
import unicodedata
from pathlib import Path

from search.query.dates import apart, date_forms
from search.query.inflection import fold_yo, inflected_forms, query_languages, surnames, without_elisions
from search.query.joined_words import joined_phrases
from search.query.micro_units import micro_forms

CJK_RANGES = (
    "\u3040-\u30ff"  # hiragana, katakana
    "\u3400-\u4dbf"  # CJK extension A
    "\u4e00-\u9fff"  # CJK unified ideographs
    "\uac00-\ud7af"  # hangul syllables
    "\uf900-\ufaff"  # compatibility ideographs
    "\U00020000-\U0002ffff"  # extensions B and later
)
CJK_RUN = re.compile(f"[{CJK_RANGES}]+")
# What counts as a word of a query: letters and digits (unicode61's idea of a token), and the combining
# diacritics among them, which unicode61 keeps inside a token and removes (remove_diacritics): case folding
# writes İ as i + U+0307, so without them 'İstanbul' would be the two words 'i' and 'stanbul'.
WORD = re.compile(r"[^\W_](?:[^\W_]|[\u0300-\u036f])*", re.UNICODE)
QUERIES_KEPT = 64  # queries whose words are kept (``query_pieces``): a search reads its own many times


def normalise(text: str) -> str:
    return unicodedata.normalize("NFKC", text).casefold()


def _expand_run(run: str) -> str:
    unigrams = " ".join(run)
    if len(run) < 2:
        return f" {unigrams} "
    bigrams = " ".join(run[i:i + 2] for i in range(len(run) - 1))
    words = " ".join(katakana_token(word) for word in KATAKANA_WORD.findall(run))  # サーバー as サーバ too
    return f" {unigrams} {bigrams} {words} " if words else f" {unigrams} {bigrams} "


# A katakana word: a loanword (サーバー, キックオフ) is written as a run of katakana, a word as a Latin word is, and
# a middle dot (・) or any other script ends it. Indexed whole beside its pairs (``_expand_run``), and a query's
# katakana word is looked up whole (``katakana_terms``): by its pairs, キックオフ found and marked バ**ックオフ**, and
# トレードオフ ranked a curry recipe first through the レー of カレー.
KATAKANA = "\u30a1-\u30fa\u30fc"  # the letters (ァ to ヺ) and the long vowel mark ー; not the middle dot ・
KATAKANA_WORD = re.compile(f"[\u30a1-\u30fa][{KATAKANA}]+")
# a word of at least this many characters (its final ー left out) is found as a part of a compound written
# without a middle dot too (データ in データベース, キックオフ in プロジェクトキックオフ); a shorter one only whole (メモ
# not in メモリ, ログ not in ログイン)
KATAKANA_PART = 3


def katakana_form(word: str) -> str:
    """A katakana word as it is indexed and looked up whole: without the long vowel marks that come after its
    first three characters (サーバー and サーバ are one, コンピューター and コンピュータ, ユーザーインタビュー and
    ユーザインタビュー, as JIS Z 8301 and many manuals leave the mark out where others write it, at a word's end or
    at the end of a compound's part), keeping those of a shorter word (カレー, エラー, キー). Half-width forms
    (ｻｰﾊﾞｰ) are full-width already (``normalise``)."""
    kept: list[str] = []
    for char in word:
        if char != "ー" or len(kept) < 3:
            kept.append(char)
    return "".join(kept)


def katakana_token(word: str) -> str:
    """The token a katakana word is indexed and looked up whole by: its ``katakana_form``, after a ー where that
    is two characters, as a run's pairs are (メモ of メモリ): 'ーメモ', which no pair and no word makes (a
    katakana word begins with a letter), so メモ does not find メモリ."""
    form = katakana_form(word)
    return "ー" + form if len(form) == 2 else form


def katakana_terms(word: str) -> list[str]:
    """What keyword search looks a katakana word up by: the word (``katakana_form``), and, for one of KATAKANA_PART
    characters or more, its pairs of characters as a phrase, which a compound written without a middle dot holds
    in a row (データ in ビッグデータ); a word that only shares some pairs with it (バックオフ for キックオフ) holds no
    such phrase."""
    form = katakana_form(word)
    written = word if form.endswith("ー") else word.rstrip("ー")  # the pairs as the run writes them, but its end
    pairs = [written[i:i + 2] for i in range(len(written) - 1)]
    return [form, " ".join(pairs)] if len(form) >= KATAKANA_PART else [katakana_token(word)]


def katakana_split(run: str) -> list[str]:
    """A CJK run cut at its katakana words' ends: 'カレーの隠し味' gives ['カレー', 'の隠し味']. A kana of one
    character between or beside them (the の of 'データの') is left out, as a particle; a run with no katakana word
    is itself."""
    pieces, last = [], 0
    for match in KATAKANA_WORD.finditer(run):
        pieces += [run[last:match.start()], match.group()]
        last = match.end()
    pieces.append(run[last:])
    if len(pieces) == 1:
        return pieces
    return [piece for piece in pieces if piece and not (len(piece) == 1 and _KANA.fullmatch(piece))]


_KANA = re.compile("[\u3040-\u30ff]")


# A line break between two Chinese (Japanese) characters: a paragraph wrapped at a fixed width, as PDFs' lines and
# text copied from them are, cuts words anywhere (消息队 | 列), and Chinese has no space there to lose. Not Korean,
# whose lines break where a space would be. Only where the line before looks wrapped: at least ``_WRAP_MIN``
# columns wide (a CJK character two), and about as wide as the lines near it (``_WRAP_SHARE`` of the widest of
# ``_WRAP_REACH`` lines each side), as every line of a wrapped paragraph but its last is; a list of short lines
# without markers (りんご / みかん, 苹果 / 香蕉) stays a list, where joining them made words of none (ごみ, 果香).
_HAN = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\U00020000-\U0002ffff"
# Chinese (Japanese) punctuation, full-width forms among it (，。、：；（）「」《》【】): a wrapped line may begin or end
# with a mark ('差异' / '，例如'), joined as a break between two characters is ('差异 ，例如' in snippets, and '（ 多跳').
_MARKS = "\u3001-\u3003\u3008-\u3011\u3014-\u301f\uff01-\uff0f\uff1a-\uff20\uff3b-\uff40\uff5b-\uff65"
_WRAPPED = re.compile(f"(?<=[{_HAN}])\n(?=[{_HAN}{_MARKS}])|(?<=[{_MARKS}])\n(?=[{_HAN}])")
_HAN_CHAR = re.compile(f"[{_HAN}]")
_HAN_OR_MARK = re.compile(f"[{_HAN}{_MARKS}]")
_WIDE = re.compile("[\u1100-\u115f\u2e80-\ua4cf\uac00-\ud7a3\uf900-\ufaff\ufe30-\ufe4f\uff00-\uff60"
                   "\uffe0-\uffe6\U00020000-\U0003fffd]")
_WRAP_MIN = 20
_WRAP_SHARE = 0.75
# the lines each side whose width a wrapped line is compared with: a paper's header or title block line over a short
# heading ('中華民國計算語言學學會 論文集' / '三、實驗結果', '北京大学 王选计算机研究所' / '摘要') is narrower than the
# paragraph's lines below the heading, where the heading and the line above alone made it look like a paragraph's
# (indexed as 集三, 所摘; snippets showed 論文集三、實驗結果)
_WRAP_REACH = 2
# a line that begins with a speaker's name and a colon, as a chat's lines do ('我: 收到', '王医生: 好的', Sift's
# conversations: ingest.chat): a message of its own, not the line above wrapped. Joined, a snippet read '发给你了我:
# 收到', two people's messages run into one sentence of the first. Only in a text where a line began so already, as a
# chat's first message does (a message may hold blank lines): a wrapped paragraph's next line holding a half-width
# colon ('…主要来自' / '磁盘写入: 每次…', typed so beside Latin words) was left unjoined, its pair 自磁 lost.
_SPEAKER = re.compile(r"[^\s:：]{1,40}(?: [^\s:：]{1,40}){0,3}: ")
# What a chat has that a note's 'Note: …' line does not: a time (Sift's conversation opens a day with its date,
# 'Saturday 28 November 2026', lowercased in the index form; an export's line begins with one), a speaker who begins two lines, or a message that
# ended (a speaker's line right after another, or after a blank line). A passage whose first line was '注意: …' was
# read as a chat, its wrapped line '磁盘写入: 每次…' left unjoined and the pair 自磁 lost.
_CHAT_TIME = re.compile(r"(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday) \d{1,2} [a-z]+ \d{4}"
                        r"|\[?\d{1,4}[-/.]\d{1,2}[-/.]\d{1,4},? |\[?\d{1,2}:\d{2}", re.IGNORECASE)


def _columns(line: str) -> int:
    return len(line) + len(_WIDE.findall(line))


def unwrapped(text: str) -> str:
    """``text`` without the line breaks that cut a run of Chinese (Japanese) in two, as a reader reads it: 消息队 at a
    line's end and 列 at the next one's start are 消息队列, where the line before looks wrapped (see ``_WRAP_MIN``).
    A line ending in a space (a Markdown hard break) stays."""
    if "\n" not in text or not _WRAPPED.search(text):
        return text
    lines = text.split("\n")
    widths: dict[int, int] = {}

    def width(i: int) -> int:
        if i not in widths:
            widths[i] = _columns(lines[i]) if 0 <= i < len(lines) else 0
        return widths[i]

    out = [lines[0]]
    last = 0 if _SPEAKER.match(lines[0]) else None  # the last line begun by a speaker's name (``_SPEAKER``)
    chat = None  # whether the text has what a chat has (``_CHAT_TIME``, a speaker's two lines): told when needed
    for i in range(1, len(lines)):
        before, line = lines[i - 1], lines[i]
        speaker = last is not None and _SPEAKER.match(line)
        if speaker and last != i - 1 and all(lines[last + 1:i]):  # no message ended since: a chat's, or a label's
            if chat is None:
                chat = _chat(lines)
            speaker = chat
        joined = (before and line and _HAN_OR_MARK.fullmatch(before[-1]) and _HAN_OR_MARK.fullmatch(line[0])
                  and (_HAN_CHAR.fullmatch(before[-1]) or _HAN_CHAR.fullmatch(line[0]))
                  and width(i - 1) >= _WRAP_MIN and not speaker
                  and width(i - 1) >= _WRAP_SHARE * max(width(j) for j in range(i - 1 - _WRAP_REACH, i + _WRAP_REACH)
                                                        if j != i - 1))
        if joined:
            out[-1] += line
        else:
            out.append(line)
            last = i if _SPEAKER.match(line) else last
    return "\n".join(out)


def _chat(lines: list[str]) -> bool:
    """Whether ``lines`` hold what a chat's do (``_CHAT_TIME``): a line begun by a time or a date, or a speaker's name
    beginning two of them."""
    if any(_CHAT_TIME.match(line) for line in lines):
        return True
    names = [found[0] for line in lines if (found := _SPEAKER.match(line))]
    return len(set(names)) < len(names)


def index_form(text: str) -> str:
    """The form of ``text`` stored in the FTS5 table; a run of Chinese wrapped across lines is one run
    (``unwrapped``), so the pair of characters a line break cut (队列 of 消息队 / 列) is found too; Russian ё as e
    (``fold_yo``), which a query looks up as well as the ё it writes. Chinese in Simplified characters
    (``simplified``: 數據庫 as 数据库), which a query in either script looks up (``query_pieces``): held as written,
    a pair was two terms counted apart, and 數據庫備份 ranked a Traditional note saying 數據庫 twice above the
    script that says 备份 and 数据库, whose pairs, rarer in the other script, counted for less."""
    return CJK_RUN.sub(lambda m: _expand_run(simplified(m.group())), unwrapped(fold_yo(normalise(text))))


# A name in code: letters and digits, split into its words where it is written in camelCase or PascalCase.
CODE_WORD = re.compile(r"[A-Za-z][A-Za-z0-9]+")
CAMEL_PARTS = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")


def code_index_form(text: str) -> str:
    """``index_form`` of code: each camelCase or PascalCase name followed by its words ('getUserName' as
    'getusername get user name', 'XMLHttpRequest' as 'xmlhttprequest xml http request'), so that 'user name'
    finds getUserName as 'user_name' finds get_user_name (FTS5 parts words at '_' already); the whole name
    still finds it as written."""
    return index_form(CODE_WORD.sub(_with_parts, text))


def _with_parts(match: re.Match) -> str:
    word = match.group()
    parts = CAMEL_PARTS.split(word)
    return f"{word} {' '.join(parts)}" if len(parts) > 1 else word


def name_phrases(query: str) -> dict[str, str]:
    """{each camelCase or PascalCase name ``query`` writes, folded: its words as a phrase} ('getUser' gives
    {'getuser': 'get user'}, 'UserName' {'username': 'user name'}), which keyword search looks up beside the
    name: code is indexed with each name's words after it (``code_index_form``), so the words of a part of a
    name stand side by side there (getUserName as 'getusername get user name'), as do those of a snake_case
    name (get_user_name); 'getUser' and 'UserName' found nothing there, the index holding no such word. Split as
    the index splits (``CAMEL_PARTS``), and only a name with a small letter (and digits) before a capital or a
    word after capitals (HTMLParser), no part of one letter and no capital's plural: mRNA, IgG, CX3CR1, H3K4me3,
    RNAs and URLs are left whole (prose writes such words, SciFact's claims do, and 'rn as' is no word of theirs)."""
    found: dict[str, str] = {}
    for word in CODE_WORD.findall(unicodedata.normalize("NFKC", query)):
        parts = CAMEL_PARTS.split(word)
        if _CAMEL_NAME.search(word) and len(parts) <= NAME_PARTS_MOST \
                and all(len(part) > 1 and not _PLURAL.fullmatch(part) for part in parts):
            found.setdefault(word.casefold(), " ".join(parts).casefold())
    return found


# a name of more parts is a pasted blob (base64 'Zm9vYmFy…'): its phrase of 3,700 words took snippet's pattern 46 s
NAME_PARTS_MOST = 12
_CAMEL_NAME = re.compile(r"[a-z][0-9]*[A-Z]|[A-Z]{2}[a-z]")  # getUser, utf8Decode, HTMLParser; not CX3CR1
_PLURAL = re.compile(r"[A-Z]s")  # RNA|s is split RN|As, URLs UR|Ls


# Where a file name's words part: a separator, or a capital after a small letter or before a capital and a small one.
NAME_PARTS = re.compile(r"[\s\-_.]+|(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")


def title_text(path: str, title: str | None, meta: dict | None) -> str:
    """The text of a file's title column (search.index.store._fts_title) from its path, title and meta: also of a
    files row, whose pinyin schema V26's fill records."""
    meta = meta or {}
    title = " ".join([title or "", *meta.get("aliases", []), *meta.get("tags", []), meta.get("author", "")])
    return f"{title} {name_words(path, title)}"


def name_words(path: str, held: str = "") -> str:
    """The words of the file's name (its stem) that ``held`` (the title) does not already show: a note titled
    by its first heading was not found by a word of its file name. 'xyzzy-plan.md' gives 'xyzzy plan',
    'PostingsCache.py' 'postingscache postings cache' (the whole too: a search may write it as one word)."""
    name = path.rsplit("/", 1)[-1]
    stem = name.rsplit(".", 1)[0] if name.rfind(".") > 0 else name
    shown = set(WORD.findall(normalise(held)))
    words = WORD.findall(normalise(" ".join([stem, *NAME_PARTS.split(stem)])))
    return " ".join(dict.fromkeys(w for w in words if w not in shown))


def query_terms(query: str) -> list[str]:
    """FTS5 terms for a free-text query (``query_words``), each safely quoted.

    Operators, column filters, quotes and other syntax in the user's text are
    never passed through.
    """
    return ['"' + t.replace('"', '""') + '"' for t in query_words(query)]


def query_words(query: str) -> list[str]:
    """The words of a free-text query, in order, each once.

    Latin words stay whole (FTS5's porter stemming applies to them later); a
    CJK run becomes its overlapping bigrams (a single character stays itself),
    so a passage with the whole run shares the most terms and ranks first,
    while one with only some of its words is still found. The terms of the
    words as written come first, then those of their forms in the other
    Chinese script: a long query cut at MAX_TERMS loses those first.
    """
    return list(_query_words(query))


@functools.lru_cache(maxsize=QUERIES_KEPT)
def _query_words(query: str) -> tuple[str, ...]:
    pieces = query_pieces(query)
    languages, names = query_languages(normalise(query)), surnames(query)
    inflected = [inflected_forms(word, languages, names) for word, _ in pieces]
    forms = {form for its in inflected for form in its}
    others = [t for _, terms in pieces for t in terms if t not in forms]
    # a Russian word's forms last, the most used ending of each word first (``russian_forms``): a long query cut at
    # MAX_TERMS loses the rarest forms of its words, not every form of its last words
    return tuple(dict.fromkeys(written_words(query) + others + [form for row in zip_longest(*inflected)
                                                                for form in row if form]))


def written_words(query: str) -> list[str]:
    """``query_words`` without the forms in the other Chinese script: the words as the query writes them."""
    return list(_written_words(query))


@functools.lru_cache(maxsize=QUERIES_KEPT)
def _written_words(query: str) -> tuple[str, ...]:
    languages, names = query_languages(normalise(query)), surnames(query)
    return tuple(dict.fromkeys(term for word, terms in query_pieces(query) for term in terms
                               if _written(term, word, languages, names)))


def _written(term: str, word: str, languages, names) -> bool:
    if KATAKANA_WORD.fullmatch(word):  # a katakana word's are all its own
        return True
    if CJK_RUN.fullmatch(word):  # Chinese as the index holds it (``index_form``): 數據 of 數據庫 is a form, 数据 written
        return term in simplified(word)
    return term in word and term not in inflected_forms(word, languages, names)  # поиск, not поиска


def query_pieces(query: str) -> list[tuple[str, list[str]]]:
    """Each word of a free-text query, in order and once (a CJK run whole), with the terms keyword search looks
    it up by (``query_words``): the word itself, or the run's overlapping bigrams; for a Chinese word, those of
    its forms in the other script too (``other_scripts``); for a camelCase name, its words as a phrase too
    (``name_phrases``); for the month of a date, the date as the other way of writing it does (``date_forms``).
    Read from the last QUERIES_KEPT queries' (``_pieces``): one search asked for a query's words 15-20 times (its
    keyword step, held and slip forms, spelling note, reordering, snippets), a pasted trace's about 3 ms each."""
    return [(word, list(terms)) for word, terms in _pieces(query)]


@functools.lru_cache(maxsize=QUERIES_KEPT)
def _pieces(query: str) -> tuple[tuple[str, tuple[str, ...]], ...]:
    found: dict[str, list[str]] = {}
    phrases = name_phrases(query)  # getUser as 'get user' too
    # 3月14日 as '03 14' too, 2024-03-14 as '3 月 14'; not casefolded, as 'May 5' is a date where 'may 5' is not
    dated = date_forms(unicodedata.normalize("NFKC", query))
    for doi, phrase in doi_phrases(query).items():  # 10.18653/v1/N19-1423 as one phrase too
        found.setdefault(doi, [phrase])
    for joined, phrase in joined_phrases(query).items():  # 10.0.3.17:5432 as one phrase too
        found.setdefault(joined, [phrase])
    languages = query_languages(normalise(query))  # Italian, German … forms only for a query that shows its language
    names = surnames(query)  # Иванов as иванова, not as иван
    for word in WORD.findall(apart(without_elisions(normalise(query)))):  # l'équipe as équipe
        pieces = split_scripts(word)
        for at, piece in enumerate(pieces):
            if particle_after_name(pieces, at):
                continue
            if piece in found or not CJK_RUN.fullmatch(piece):
                named = [phrases[piece]] if piece in phrases else []
                found.setdefault(piece, [piece, *umlaut_forms(piece), *micro_forms(piece), *named,  # umol as μmol too
                                         *dated.pop(piece, []),
                                         *inflected_forms(piece, languages, names)])  # поиска as поиск … too
                continue
            for part in katakana_split(piece):  # カレーの隠し味 as カレー and の隠し味
                if part in found:
                    continue
                if KATAKANA_WORD.fullmatch(part):  # whole, not by its pairs
                    found[part] = katakana_terms(part)
                    continue
                forms = [simplified(part), part, *other_scripts(part)]  # the index's form first (``index_form``)
                found[part] = list(dict.fromkeys(
                    [form[i:i + 2] for form in forms for i in range(max(1, len(form) - 1))] + korean_stem(part)
                    + [form for month in [m for m in dated if m in part] for form in dated.pop(month)]  # 三月十四日
                    + variant_pairs(part)))
    return tuple((word, tuple(terms)) for word, terms in found.items())


# A DOI as written: '10.', its registrant's number, '/', and a suffix up to a space or a quote (a sentence's last
# mark left out)
DOI = re.compile(r"\b10\.\d{4,9}/[^\s\"'<>]+?(?=[.,;:)\]]*(?:\s|$|[\"'<>]))")


def doi_phrases(query: str) -> dict[str, str]:
    """{each DOI ``query`` writes, folded: its words as a phrase}: keyword search looks the DOI up whole too. Its
    parts alone ('10', '18653', 'v1') are shared by every DOI of that publisher: a search for BERT's DOI ranked
    another entry of ACL's first, its words scattered over the entry as much as the right one's."""
    return {found.casefold(): " ".join(WORD.findall(normalise(found))) for found in DOI.findall(query)
            if len(WORD.findall(found)) > 2}


# Korean particles written after a noun: 책을, 집에서, 차는. A noun of one syllable with its particle is one pair of
# characters (책을), which a note saying 책은 or 책 does not hold. Not the particles that end many nouns of two
# syllables as well (이 of 아이, 의 of 회의, 도 of 정도, 과 of 결과, 가 of 평가, 로 of 도로): 회의 is no 회 and a particle.
_PARTICLE = re.compile("(?<=^[\uac00-\ud7a3])(?:에서|에게|한테|으로|부터|까지|처럼|이랑|[은는을를에])$")


# The same particles (and a few more) after a Latin name or a number, which split_scripts cuts off as a piece of its
# own (Docker를, API는, GPT-4는, S3에): the particle alone was a term, which nearly every Korean note holds, so 'API는
# 어디에' (where is the API?) ranked, in a folder with no API, the notes saying 는, marked 조회되**는** 데이터**는**.
# Not 월, 년, 일, 시, 주차 … after a number: a date's or a count's words.
_NAME_PARTICLE = re.compile("은|는|이|가|을|를|에|의|도|로|으로|와|과|랑|이랑|만|나|이나|란|이란|에서|에게|한테|부터|까지|"
                            "처럼|보다|에는|에서는|으로는|로는|에도|이에요|예요|이야|야")


# after a number a unit, a numeral or a street's part too (10도, degrees; 10만, a hundred thousand: 10만 원 was looked
# up as 10 alone; 종로3가, 세종로)
_AFTER_NUMBER = {"도", "가", "로", "만"}


def particle_after_name(pieces: list[str], at: int) -> bool:
    """Whether ``pieces[at]`` (a word's pieces, ``split_scripts``) is a Korean particle ending a Latin name or a
    number, which search looks up as no word of its own ('Docker를' is Docker)."""
    if at == 0 or CJK_RUN.fullmatch(pieces[at - 1]) or not _NAME_PARTICLE.fullmatch(pieces[at]):
        return False
    return not (pieces[at - 1].isdigit() and pieces[at] in _AFTER_NUMBER)  # 영하 10도: ten degrees


def korean_stem(run: str) -> list[str]:
    """The noun of one syllable that a Korean word of it and a particle writes, as a term of its own: '책을' gives
    ['책'] (the note may say 책은, 책 두 권), '집에서' ['집']; a longer noun's pairs are among its word's already
    (검색 of 검색을), so any other run gives []. '책을 추천' found nothing in notes that say 책은."""
    particle = _PARTICLE.search(run)
    return [run[0]] if particle and _agrees(run[0], particle.group()) else []


def _agrees(syllable: str, particle: str) -> bool:
    """Whether ``particle`` can follow the Hangul ``syllable``: 은, 을, 으로 after one that ends in a consonant, 는, 를
    after one that ends in a vowel. '가을' (autumn) was read as 가 and 을, and looked up 가, a syllable of most
    Korean notes (the particle 가 too); 마을, 노을, 고을 likewise."""
    final = (ord(syllable) - 0xAC00) % 28 != 0  # a final consonant (받침)
    return final if particle in ("은", "을", "으로") else not final if particle in ("는", "를") else True


_TYPED_UMLAUT = re.compile(r"(?<!q)ue|ae|oe")
_UMLAUT = re.compile(r"[äöü]")


def umlaut_forms(word: str) -> list[str]:
    """``word`` written the other way German is: ae, oe, ue as ä, ö, ü, or those as ae, oe, ue ('ueberlagerung'
    gives ['überlagerung'], 'größe' ['groesse']; ß and ss are one already, folded). German typed without umlauts
    found nothing in a text that has them ('no passage contains Ueberlagerung'), nor the other way round. A word
    that is not German may get a form no passage holds ('blue' 'blü'), which adds a term but drops none."""
    typed = _TYPED_UMLAUT.sub(lambda m: {"ae": "ä", "oe": "ö", "ue": "ü"}[m.group()], word)
    written = _UMLAUT.sub(lambda m: {"ä": "ae", "ö": "oe", "ü": "ue"}[m.group()], word)
    return [form for form in dict.fromkeys([typed, written]) if form != word]


def other_scripts(run: str) -> list[str]:
    """``run`` written in Simplified and in Traditional Chinese, those of the two forms that differ from it:
    资料 gives ['資料'], 資料 ['资料'], 資料库 ['资料库', '資料庫']; a run of neither (合同, カタカナ) gives [].
    Each character takes its common form (OpenCC's first: 发 is 發, not 髮), so a word that was never written so
    can come up (后 as 後), which adds a term but drops none."""
    traditional = run.translate(_tables()[1])
    return [form for form in dict.fromkeys([simplified(run), traditional]) if form != run]


def variant_pairs(run: str) -> list[str]:
    """The pairs of a Chinese run with each character in any of its forms, Simplified and Traditional: a Traditional
    text writes some characters as Simplified does, or in a form other than OpenCC's first (台灣, 這裏, 麵條), so
    台湾 (臺灣 in Traditional) missed a note saying 台灣, 面条 (面條) one saying 麵條. Those of the run's other
    scripts (``other_scripts``) are among them; a run with no such character gives none."""
    pairs = []
    for i in range(len(run) - 1):
        firsts, seconds = _variants(run[i]), _variants(run[i + 1])
        if len(firsts) > 1 or len(seconds) > 1:
            pairs += [a + b for a in firsts for b in seconds]
    return pairs


def _variants(char: str) -> list[str]:
    """``char`` and every character written for it in the other script: 台 gives 台, 臺, 檯, 颱; 灣 gives 灣, 湾."""
    plain = char.translate(_tables()[0])
    return [char, *[form for form in _forms_of()[plain] if form != char]] if plain in _forms_of() else [char]


def variant_pattern(run: str) -> str:
    """A pattern matching ``run`` with each character in any of its forms (``variant_pairs``): 台湾 gives
    [台臺檯颱][湾灣], which marks 台灣."""
    return "".join(f"[{''.join(forms)}]" if len(forms := _variants(char)) > 1 else re.escape(char) for char in run)


@functools.cache
def _forms_of() -> dict[str, list[str]]:
    """Each Simplified character with a Traditional form, with all of its forms, itself first."""
    forms: dict[str, list[str]] = {}
    for source, target in _tables()[0].items():
        forms.setdefault(target, [target]).append(chr(source))
    return forms


def simplified(text: str) -> str:
    """``text`` with each Traditional Chinese character in its Simplified form (資料 → 资料)."""
    return text.translate(_tables()[0])


DATA = Path(__file__).resolve().parent / "data"


@functools.cache
def _tables() -> tuple[dict[int, str], dict[int, str]]:
    """(Traditional → Simplified, Simplified → Traditional) character tables, from OpenCC's
    (scripts/make_zh_variants.py)."""
    def read(name: str) -> dict[int, str]:
        pairs = (line.split("\t") for line in (DATA / name).read_text(encoding="utf-8").splitlines())
        return {ord(source): target for source, target in pairs}
    return read("zh-t2s.txt"), read("zh-s2t.txt")


# A quoted phrase: in ASCII double quotes, Chinese curly quotes or corner brackets.
QUOTED = re.compile(r'"([^"]+)"|“([^”]+)”|「([^」]+)」|『([^』]+)』')


def quoted_phrases(query: str) -> list[tuple[str, str]]:
    """The Chinese (Japanese) phrases the query quotes ("付款方式", 「智能推荐」, "Redis 配置") that are more than
    one term to keyword search (a run of three characters or more, or words beside it): each as typed, and in
    ``phrase_form``. A phrase of Latin words only is searched by its words as before: matching it as written
    would lose the stemming that finds 'write ahead logging' for 'write ahead log'."""
    phrases = []
    for match in QUOTED.finditer(query):
        inner = next(group for group in match.groups() if group is not None)
        pieces = [piece for word in WORD.findall(normalise(inner)) for piece in split_scripts(word)]
        chinese = [piece for piece in pieces if CJK_RUN.fullmatch(piece)]
        if chinese and (len(pieces) > 1 or len(chinese[0]) > 2):
            phrases.append((inner.strip(), phrase_form(inner)))
    return list(dict.fromkeys(phrases))


def phrase_form(text: str) -> str:
    """``text`` as a phrase is looked for in it: folded and without spaces or line breaks ('Redis 配置' is
    'redis配置', as Chinese is written with or without a space there; punctuation stays, so 付款，方式 does not
    hold 付款方式), Chinese in Simplified characters (資料庫 is 资料库)."""
    return simplified("".join(normalise(text).split()))


def split_scripts(word: str) -> list[str]:
    """Split a word at the borders between CJK runs and other letters."""
    pieces, last = [], 0
    for match in CJK_RUN.finditer(word):
        if match.start() > last:
            pieces.append(word[last:match.start()])
        pieces.append(match.group())
        last = match.end()
    if last < len(word):
        pieces.append(word[last:])
    return pieces


# A note's reference to a footnote, '[^1]' (not its definition, '[^1]: …'): the chunker embeds a passage with
# the footnotes it cites, and a hit of a footnote's definition says where it is cited (``footnotes``).
FOOTNOTE_REFERENCE = re.compile(r"\[\^([^\]\s]{1,100})\](?!:)")
