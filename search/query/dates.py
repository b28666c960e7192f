"""A date a query writes, looked up as notes write it the other way too.

Daily notes and meetings are named by ISO date (``日记/2024-03-14.md``, ``2024-03-14 OKR 对齐会.md``), while a
Chinese user asks ``3月14日的会议`` or ``3月20号 日记``; the index holds ``2024``, ``03`` and ``14`` for the one and
``3``, ``月``, ``14``, ``日`` for the other, so neither found the other (``3`` is not ``03``): the meeting of 3月14日
came fourth, under notes that say 3月 and 日 elsewhere. A Chinese date (``3月14日``, ``2024年3月14号``) is also
looked up as the phrase ``03 14`` (the month and day zero-padded, side by side: ``2024-03-14``, ``03/14``), with its
year when it names one; an ISO date (``2024-03-14``, ``2024/3/14``) also as ``3 月 14`` (``3月14日``, ``3月14号``),
and as the phrase ``2024 03 14`` (zero-padded), so that the date as written weighs as much as the other form.
An English date (``March 14``, ``Mar 14, 2024``), as an assistant writes when it searches a Chinese user's notes in
English, is looked up as the Chinese one is, in both other forms. A query that is a date alone counts, for
titled-first, as the words of the date: ``2024-03-20`` puts the note titled or named so first.
Each form is a term of the query's month word, as the other script's form is of a Chinese word: it adds a term but
drops none. An English date is also looked up with its month written the other way (``Mar 14`` as ``March 14``, and
the reverse), so a note titled or saying one is found by the other.
A month word that is also a common word (``may``, ``dec``: 'may 5 retries', 'dec 10' in code) is a month only when
capitalised (``May 5``) or with a year (``may 5, 2024``), but not as the first word of a question, capitalised as
any first word is ('May 5 agents share one pool?'); a number a month word is followed by counts when a counted noun
follows it ('May 5 people attended': in May). A day its month does not have is none (Apr 31). The day
may come first (``14 March 2024``); slashes (``3/14``, ``14/3``) write a date when one of the numbers can be no month
(``3/4`` can be a fraction or either of two dates) and nothing around it says it measures or counts: a unit after it
(``3/16 inch``, ``1/16 cup``, ``5/8"``, ``3/16 of an inch``), a page or a whole number before it (``page 1/20``,
``p. 3/14``, ``1 3/16``) make it none; Chinese numerals (``三月十四日``) write one with 日 or 号. A date
written with dots is one zero-padded (``2024.03.01``), with a day of two digits (``2024.3.14``) or in a query that
writes Chinese (``2024.3.1 周会``): ``2024.3.1`` alone is a version number (a JetBrains release) more often. A
date written the German way, its day first, with dots and its year (``18.12.2026``), is one as ``2026-12-18`` is.
The case is read from the query as typed: the functions take it before it is casefolded.
"""
from __future__ import annotations

import calendar
import re
from typing import NamedTuple

# Japanese writes it so too, its year in an era's too (令和6年3月14日: 令和 1 is 2019, 元年 its first year), and Korean
# with its own words for year, month and day (2024년 3월 15일)
_ERAS = {"令和": 2018, "平成": 1988, "昭和": 1925}
_CHINESE = re.compile(r"(?:(?:(?<!\d)(?P<year>\d{4})|(?P<era>令和|平成|昭和)\s*(?P<era_year>\d{1,2}|元))\s*[年년]\s*)?"
                      r"(?<!\d)(?P<month>\d{1,2})\s*[月월]\s*(?P<day>\d{1,2})(?!\d)\s*[日号號일]?")
_MONTH_WORDS = re.compile("[月월]")
# a Hangul syllable right after the number that follows a month, other than 일 (day): a counter word ('3월 1주차', the
# first week of March; '3월 2차 회의', March's second meeting; 5명, 2회, 3시), so that number is no day; a Chinese or
# Japanese counter likewise ('3月1周', the first week of March, was searched as March 1; 3月2次, 3月5个)
_COUNTER = re.compile("(?!일)[\uac00-\ud7a3]|[周週次个個名人份期批轮輪届屆]")
# a date in Chinese numerals (三月十四日, 二〇二四年三月十四日): its day always ends in 日 or 号, as 三月 alone is a month
_NUMERALS = "〇零一二三四五六七八九"
_VALUES = {numeral: value for value, numeral in enumerate("〇一二三四五六七八九")} | {"零": 0}
_CHINESE_WORDS = re.compile(rf"(?:(?P<year>[{_NUMERALS}]{{4}}|\d{{4}})\s*年\s*)?(?P<month>十[一二]?|[一二三四五六七八九])\s*月"
                            rf"\s*(?P<day>[二三]?十[一二三四五六七八九]?|[一二三四五六七八九])\s*[日号號]")
_ISO = re.compile(r"(?<!\d)(?P<year>\d{4})(?P<separator>[-/.])(?P<month>\d{1,2})(?P=separator)(?P<day>\d{1,2})(?!\d)")
# a date as German (and much of Europe) writes it, the day first, with dots and its year: 18.12.2026, 1.3.2024
_DOTTED = re.compile(r"(?<![\w.])(?P<day>\d{1,2})\.(?P<month>\d{1,2})\.(?P<year>\d{4})(?![\w]|\.\d)")
# a date written with slashes as the US (3/14, 3/14/2024) or Europe (14/3) writes it: a date only when one of its
# numbers can be no month (3/4 is a fraction, or the 3rd of April, or March 4th: none is read)
_SLASHED = re.compile(r"(?<![\w/.])(?P<first>\d{1,2})/(?P<second>\d{1,2})(?:/(?P<year>\d{4}))?(?![\w/]|\.\d)")
_MONTHS = ("january", "february", "march", "april", "may", "june", "july", "august", "september", "october",
           "november", "december")
_NAME = r"(?P<month>jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec|" + "|".join(_MONTHS) + ")"
_ENGLISH = re.compile(rf"\b{_NAME}\.?\s+(?P<day>\d{{1,2}})(?P<nth>st|nd|rd|th)?(?!\d)(?:,?\s+(?P<year>\d{{4}})(?!\d))?",
                      re.IGNORECASE)
# the day first, as Britain and most of Europe write it in English: 14 March 2024, 14 Mar, the 14th of March
_DAY_FIRST = re.compile(rf"(?<![\w.,])(?P<day>\d{{1,2}})(?P<nth>st|nd|rd|th)?\s+(?:of\s+)?{_NAME}\b\.?"
                        rf"(?:,?\s+(?P<year>\d{{4}})(?!\d))?", re.IGNORECASE)
_WORDED = (_ENGLISH, _DAY_FIRST)
_DAYS = (31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31)  # in a month of a year not given (29 February: a leap year's)


# month words that are common words too: a month only when capitalised or with a year ('may 5 retries', 'dec 10')
_AMBIGUOUS = {"may", "dec"}
# what a number counts after a month word: 'May 5 people attended', 'March 12 new users' (in May, in March) write no day
_COUNTED = re.compile(r"\s+(?:new\s+|more\s+|other\s+)?(?:people|persons|men|women|kids|children|users|members|attendees|"
                      r"participants|guests|students|visitors|customers|employees|times|attempts|retries|tries|items|"
                      r"tasks|bugs|issues|tickets|hours|days|weeks|months|years|percent|minutes|mins|seconds|"
                      r"workers|threads|jobs|requests|errors|failures|tests|runs|commits|files|pages|lines|rows|"
                      r"points|dollars|euros|km|miles|kg|lbs|pounds)\b", re.IGNORECASE)


# what a slashed pair of numbers measures, counts or pages, written around it: no date ('3/16 inch', '1/16 cup',
# '5/8" plywood', '3/16 of an inch', 'page 1/20', 'p. 3/14', '1 3/16': a whole number and a fraction)
_UNITS = (r"inch(?:es)?|in\.|in$|ft|feet|foot|yds?|yards?|miles?|mm|cm|km|cups?|tsp|tbsp|teaspoons?|tablespoons?|"
          r"oz|ounces?|lbs?|pounds?|pints?|quarts?|gallons?|gal|kg|g|ml|l|sec|s|seconds?|ths?|drill|bit|wrench|"
          r"socket|plywood|screws?|bolts?|threads?|pipe|hose|shank")
# an inch mark stands right after its number ('5/8"'), where a quoted phrase's closing quote stands too: '"standup
# 3/14"' (the query's quotes: a phrase) is a date
_MEASURED = re.compile(rf"(?P<inch>[\"″”′])|\s*(?:-|\s+of\s+an?\s+|\s*)(?:{_UNITS})(?![\w])", re.IGNORECASE)
_PAGED = re.compile(r"(?:\b(?:pages?|pp?|pg|steps?|chapters?|ch|parts?|slides?|lines?|rows?|items?|episodes?|ep|"
                    r"vol|volume|tracks?|questions?|exercises?|problems?|sheets?)\.?|\bno\.|#|(?<![\w.,/])\d{1,3})"
                    r"\s*$", re.IGNORECASE)
_PAGED_CHARS = 12  # of the query before a slashed date looked at for _PAGED
# May as a question's first word asks whether things may do something ('May 5 agents share one pool?': a number of
# things, then what they do); 'May 5 standup: what did we decide?', 'May 12 outage?', 'Dec 12 retro?' ask of a day
# The word after the plural is a verb's base form ('share', 'need', 'bring'), not a noun ('figures'), a past or an
# -ing form ('shipped', 'sent', 'missing'): 'May 31 sales figures?', 'May 14 orders shipped?' ask of the day
_PAST = ("sent", "broke", "went", "ran", "got", "made", "left", "came", "took", "fell", "lost", "paid", "sold",
         "held", "built", "found", "said", "told", "kept", "met", "spent", "bought", "brought", "shut", "won", "done",
         "gone", "taken", "seen", "given", "written", "stolen", "broken", "frozen", "chosen")
_MODAL = re.compile(r"\s+[a-z]+(?<![su])s\s+(?![a-z]*(?:[a-z]{2}(?<!e)ed|[a-z]{3}ing|[^\Ws]s)\b|(?:"
                    + "|".join(_PAST) + r")\b)[a-z]", re.IGNORECASE)
_DATED_QUESTION = re.compile(r"[:\u2013\u2014]|\s-\s|\b(?:what|who|whom|whose|when|where|why|how|which)\b", re.IGNORECASE)


def _measured(match: re.Match) -> bool:
    """Whether a unit stands after the slashed pair ``match``: '3/16 inch', '5/8"'; not the quote that closes the
    quoted phrase it ends ('"standup 3/14"' was no date, the quote read as an inch mark)."""
    unit = _MEASURED.match(match.string, match.end())
    if unit is None or not unit.group("inch"):
        return unit is not None
    before = match.string[:match.start()]
    if unit.group("inch") == '"':
        return before.count('"') % 2 == 0
    return unit.group("inch") != "”" or before.count("“") <= before.count("”")  # ″ (′′ once NFKC) marks inches alone


class _Date(NamedTuple):
    year: str | None
    month: int
    day: int
    written: str  # the month as the query writes it: the word whose terms the date's other forms join
    slashed: bool = False  # written with slashes, without words (3/14, 14/3)


def date_forms(query: str) -> dict[str, list[str]]:
    """{the month as the (normalised) ``query`` writes it: the other forms of its dates}: '3月14日' gives
    {'3': ['03 14', '3 月 14']}, '2024年3月14日' {'3': ['2024 03 14', '3 月 14']}, '2024-03-14' {'03': ['2024 03 14',
    '3 月 14']}, 'march 14' {'march': ['03 14', '3 月 14']}, '三月十四日' {'三月': ['03 14', '3 月 14']}; a month or
    day out of range is no date (13月40日, Apr 31, Feb 30)."""
    forms: dict[str, list[str]] = {}
    for date in _dates(query):
        # the ISO form, zero-padded, also where the query writes it so: its year, month and day are words many notes
        # hold, where 3月14 is rare (2024-03-20 ranked a table saying 3月20日 above the daily note 2024-03-20.md)
        iso = " ".join([*([date.year] if date.year else []), f"{date.month:02d}", f"{date.day:02d}"])
        forms.setdefault(date.written, []).extend([iso, f"{date.month} 月 {date.day}"])
        if not _HAN_KANA.search(query):  # as a Korean note writes it (3월 15일) too: '2024-03-15 회의', 'March 15'
            forms[date.written].append(f"{date.month} 월 {date.day}")
        if date.written.isascii() and date.written.isalpha() and _other_name(date) != date.written:
            forms[date.written].append(f"{_other_name(date)} {date.day}")  # 'mar 14' as 'march 14' too, and the other way
        elif date.slashed:  # 3/14 as the US writes March 14 in words too
            forms[date.written].append(f"{_MONTHS[date.month - 1]} {date.day}")
    return {month: list(dict.fromkeys(its)) for month, its in forms.items()}


def apart(query: str) -> str:
    """``query`` with each Chinese date a word of its own: the 日 of 3月14日的会议 is the date's, not a character
    of the run 日的会议, whose pair 日的 no note holds (the spelling hint named it)."""
    if not _MONTH_WORDS.search(query):
        return query
    return _CHINESE_WORDS.sub(lambda m: f" {m.group()} ", _CHINESE.sub(lambda m: f" {m.group()} ", query))


def iso_dates(query: str, english: bool = True) -> str:
    """``query`` with each date written as ISO's month and day ('3月20号 日记' and '3月20号的日记' as '03-20 日记',
    '3/20 standup' as '03-20 standup', '2024.3.20' as '2024-03-20', with its year when it names one): the words a
    daily note's title, or its file name, holds of it. ``english`` False: its English dates as written ('Standup
    March 14' titles a note as well), and a slashed one in English words ('standup 3/14' as 'standup March 14')."""
    def iso(match: re.Match) -> str:
        date = _date(match)
        if date is None:
            return match.group()
        return f" {date.year + '-' if date.year else ''}{date.month:02d}-{date.day:02d} "

    def worded(match: re.Match) -> str:
        date = _date(match)
        return match.group() if date is None else f" {_MONTHS[date.month - 1]} {date.day} {date.year or ''} "
    if _MONTH_WORDS.search(query):
        query = _OF_DATE_WORDS.sub(iso, _OF_DATE.sub(iso, query))
    query = _SLASHED.sub(iso if english else worded, _DOTTED.sub(iso, _ISO.sub(iso, query)))
    for pattern in _WORDED if english else ():
        query = pattern.sub(iso, query)
    return query


def month_names_swapped(query: str) -> str:
    """``query`` with each English date's month written the other way: 'standup Mar 14' as 'standup March 14',
    'March 14' as 'Mar 14', '14 Mar' as '14 March' (a title holds the one it was written with); ``query`` itself
    when it has none."""
    def swapped(match: re.Match) -> str:
        date = _date(match)
        if date is None:
            return match.group()
        written = f"{_other_name(date)} {date.day}" if match.re is _ENGLISH else f"{date.day} {_other_name(date)}"
        return written + (f" {date.year}" if date.year else "")
    for pattern in _WORDED:
        query = pattern.sub(swapped, query)
    return query


def _other_name(date: _Date) -> str:
    """The month's name written the other way than the query writes it: its three letters for a full name, else
    the full name ('sept' → 'september')."""
    name = _MONTHS[date.month - 1]
    return name[:3] if date.written == name and len(name) > 3 else name


_OF_DATE = re.compile(_CHINESE.pattern + "[的の]?")  # 3月20号的日记, 3月14日の会議: the date's 的 (の, of) is no word of a title
_OF_DATE_WORDS = re.compile(_CHINESE_WORDS.pattern + "的?")
_PATTERNS = (_CHINESE, _CHINESE_WORDS, _ISO, _DOTTED, _SLASHED, *_WORDED)


def only_date(query: str) -> bool:
    """Whether ``query`` is one date and nothing else ('2024-03-20', '3月20日', 'March 20', '14 March')."""
    query = query.strip()
    return any(m.group().strip() == query and _date(m) for pattern in _PATTERNS for m in pattern.finditer(query))


def without_dates(query: str) -> str:
    """``query`` without the dates it writes, in any form (``date_patterns`` marks them in a snippet, as a whole)."""
    for pattern in _PATTERNS:
        query = pattern.sub(lambda m: " " if _date(m) else m.group(), query)
    return query


def date_patterns(query: str) -> list[str]:
    """Patterns that mark, in a snippet, the dates the query writes in any form: '3月14日' marks '2024-03-14',
    '3月14号', 'March 14' and '14 March', '2024-03-14' marks '3月14日' and '三月十四日'; not '3월 1주차' (the first week
    of March: ``_COUNTER``) for '3월 1일'."""
    patterns = []
    for date in _dates(query):
        m, d, name = date.month, date.day, _MONTHS[date.month - 1]
        names = f"(?:{name[:3]}|{name})"
        patterns.append(rf"(?<!\d)(?:\d{{4}}[-/.]0?{m}[-/.]0?{d}|(?:(?:\d{{4}}|(?:令和|平成|昭和)\s*(?:\d{{1,2}}|元))\s*[年년]\s*)?0?{m}\s*[月월]\s*0?{d}(?:\s*[日号號일]|(?![\d\uac00-\ud7a3]))"
                        rf"|(?<![\d.])0?{d}\.0?{m}\.\d{{4}}|\b{names}\.?\s+0?{d}(?:st|nd|rd|th)?|\b0?{d}(?:st|nd|rd|th)?\s+(?:of\s+)?{names}\b"
                        rf"|{_numerals(m)}\s*月\s*{_numerals(d)}\s*[日号號]"
                        + (rf"|(?<![\w/.])(?:0?{m}/{d}|{d}/0?{m})(?:/\d{{4}})?(?![\w/])" if d > 12 else "") + r")(?!\d)")
    return list(dict.fromkeys(patterns))


def _dates(query: str) -> list[_Date]:
    """Each valid date ``query`` writes, in any of the forms."""
    found = (_date(m) for pattern in _PATTERNS for m in pattern.finditer(query))
    return [date for date in found if date is not None]


def _date(match: re.Match) -> _Date | None:
    """The date a match of one of the patterns writes, or None when it is no date: its month or day out of range
    (the day checked against its month: Apr 31, Feb 30, and Feb 29 of a year not a leap year), a version number,
    a month word that is a common word, a count, a fraction."""
    found = match.groupdict()
    year = found.get("year")
    if match.re is _ISO:
        month, day = found["month"], found["day"]
        # 2024.3.1: a version number more often than a date (2024.03.01 is a date, JetBrains' 2024.3.1 a release),
        # unless the query writes Chinese (2024.3.1 as Chinese notes write a date) or a day of two digits (2024.3.14)
        if found["separator"] == "." and len(day) < 2 and len(month) + len(day) < 4 and not _CJK.search(match.string):
            return None
        written, number = month, int(month)
    elif match.re is _DOTTED:
        written, number, day = found["month"], int(found["month"]), found["day"]
    elif match.re in (_CHINESE, _OF_DATE):
        written, number, day = found["month"], int(found["month"]), found["day"]
        if _COUNTER.match(match.string, match.end("day")):
            return None  # '3월 1주차', '3월 2차 회의': a week, a round of March (a Korean day is written with 일)
        if found["era"]:
            year = str(_ERAS[found["era"]] + (1 if found["era_year"] == "元" else int(found["era_year"])))
    elif match.re in (_CHINESE_WORDS, _OF_DATE_WORDS):
        written, number, day = found["month"] + "月", _chinese_number(found["month"]), str(_chinese_number(found["day"]))
        year = year if year is None or year.isdigit() else "".join(str(_VALUES[c]) for c in year)
    elif match.re is _SLASHED:
        first, second = int(found["first"]), int(found["second"])
        if (first <= 12) == (second <= 12):  # 3/4: a fraction, or March 4th, or 3 April; 14/15: no date
            return None
        if first == 24 and second == 7 and not year:
            return None  # '24/7 support': round the clock, not the 24th of July
        if _measured(match) or _PAGED.search(match.string, max(0, match.start() - _PAGED_CHARS), match.start()):
            return None  # '3/16 inch', '1/16 cup', 'page 1/20', '1 3/16': a measure, a page of so many, a fraction
        (number, day), written = ((first, found["second"]), found["first"]) if first <= 12 else (
            (second, found["first"]), found["second"])
    else:
        month, day = found["month"], found["day"]
        written = month.casefold()
        if written in _AMBIGUOUS and not year and not month[0].isupper():
            return None  # 'may 5 retries', 'dec 10': a verb, a decrement; 'May 5' and 'may 5, 2024' are dates
        if match.re is _ENGLISH and not year and not found["nth"] and _COUNTED.match(match.string, match.end()):
            return None  # 'May 5 people attended': 5 people in May
        if (written == "may" and match.re is _ENGLISH and not year and not found["nth"]
                and not match.string[:match.start()].strip()
                and match.string.rstrip().endswith("?") and _MODAL.match(match.string, match.end())
                and not _DATED_QUESTION.search(match.string, match.end())):
            return None  # 'May 5 agents share one pool?': a question's first word, capitalised as every first word is
        number = next(i for i, name in enumerate(_MONTHS, 1) if name.startswith(written[:3]))
    if not 1 <= number <= 12:
        return None
    days = calendar.monthrange(int(year), number)[1] if year else _DAYS[number - 1]
    if not 1 <= int(day) <= days:
        return None
    return _Date(year, number, int(day), written, match.re is _SLASHED)


_CJK = re.compile(r"[\u3000-\u9fff\uf900-\ufaff\uac00-\ud7a3]")
_HAN_KANA = re.compile(r"[\u3040-\u30ff\u3400-\u9fff\uf900-\ufaff]")  # a query written in Chinese or Japanese


def _chinese_number(numerals: str) -> int:
    """A number up to 31 in Chinese numerals: 四 4, 十 10, 十四 14, 二十 20, 三十一 31."""
    if "十" not in numerals:
        return _VALUES[numerals]
    tens, ones = numerals.split("十")
    return (_VALUES[tens] if tens else 1) * 10 + (_VALUES[ones] if ones else 0)


def _numerals(number: int) -> str:
    """``number`` (1 to 31) in Chinese numerals, as a date writes it: 4 四, 10 十, 14 十四, 20 二十, 31 三十一."""
    tens, ones = divmod(number, 10)
    return ("" if tens < 2 else "〇一二三四五六七八九"[tens]) + ("十" if tens else "") + (
        "〇一二三四五六七八九"[ones] if ones else "")
