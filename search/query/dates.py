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
capitalised (``May 5``) or with a year (``may 5, 2024``); a date written with dots is one only zero-padded
(``2024.03.01``): ``2024.3.1`` is a version number (a JetBrains release, a calendar-versioned package) more often.
The case is read from the query as typed: the functions take it before it is casefolded.
"""
from __future__ import annotations

import re
from typing import NamedTuple

_CHINESE = re.compile(r"(?:(?<!\d)(\d{4})\s*年\s*)?(?<!\d)(\d{1,2})\s*月\s*(\d{1,2})(?!\d)\s*[日号號]?")
_ISO = re.compile(r"(?<!\d)(\d{4})([-/.])(\d{1,2})\2(\d{1,2})(?!\d)")
_MONTHS = ("january", "february", "march", "april", "may", "june", "july", "august", "september", "october",
           "november", "december")
_ENGLISH = re.compile(r"\b(jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec|" + "|".join(_MONTHS) + r")\.?\s+"
                      r"(\d{1,2})(?:st|nd|rd|th)?(?!\d)(?:,?\s+(\d{4})(?!\d))?", re.IGNORECASE)


# month words that are common words too: a month only when capitalised or with a year ('may 5 retries', 'dec 10')
_AMBIGUOUS = {"may", "dec"}


class _Date(NamedTuple):
    year: str | None
    month: int
    day: int
    written: str  # the month as the query writes it: the word whose terms the date's other forms join
    iso: bool  # written as ISO (2024-03-14), else in words (3月14日, March 14)


def date_forms(query: str) -> dict[str, list[str]]:
    """{the month as the (normalised) ``query`` writes it: the other forms of its dates}: '3月14日' gives
    {'3': ['03 14', '3 月 14']}, '2024年3月14日' {'3': ['2024 03 14', '3 月 14']}, '2024-03-14' {'03': ['2024 03 14',
    '3 月 14']}, 'march 14' {'march': ['03 14', '3 月 14']}; a month or day out of range is no date."""
    forms: dict[str, list[str]] = {}
    for date in _dates(query):
        # the ISO form, zero-padded, also where the query writes it so: its year, month and day are words many notes
        # hold, where 3月14 is rare (2024-03-20 ranked a table saying 3月20日 above the daily note 2024-03-20.md)
        iso = " ".join([*([date.year] if date.year else []), f"{date.month:02d}", f"{date.day:02d}"])
        forms.setdefault(date.written, []).extend([iso, f"{date.month} 月 {date.day}"])
        if date.written.isalpha() and _other_name(date) != date.written:  # 'mar 14' as 'march 14' too, and the other way
            forms[date.written].append(f"{_other_name(date)} {date.day}")
    return {month: list(dict.fromkeys(its)) for month, its in forms.items()}


def apart(query: str) -> str:
    """``query`` with each Chinese date a word of its own: the 日 of 3月14日的会议 is the date's, not a character
    of the run 日的会议, whose pair 日的 no note holds (the spelling hint named it)."""
    return _CHINESE.sub(lambda m: f" {m.group()} ", query) if "月" in query else query


def iso_dates(query: str, english: bool = True) -> str:
    """``query`` with each Chinese or English date written as ISO's month and day ('3月20号 日记' and '3月20号的日记'
    as '03-20 日记', with its year when it names one): the words a daily note's title, or its file name, holds of it.
    ``english`` False: its English dates as written ('Standup March 14' titles a note as well)."""
    def iso(match: re.Match) -> str:
        date = _date(match)
        if date is None:
            return match.group()
        return f" {date.year + '-' if date.year else ''}{date.month:02d}-{date.day:02d} "
    chinese = _OF_DATE.sub(iso, query) if "月" in query else query
    return _ENGLISH.sub(iso, chinese) if english else chinese


def month_names_swapped(query: str) -> str:
    """``query`` with each English date's month written the other way: 'standup Mar 14' as 'standup March 14',
    'March 14' as 'Mar 14' (a title holds the one it was written with); ``query`` itself when it has none."""
    def swapped(match: re.Match) -> str:
        date = _date(match)
        return match.group() if date is None else f"{_other_name(date)} {date.day}" + (
            f" {date.year}" if date.year else "")
    return _ENGLISH.sub(swapped, query)


def _other_name(date: _Date) -> str:
    """The month's name written the other way than the query writes it: its three letters for a full name, else
    the full name ('sept' → 'september')."""
    name = _MONTHS[date.month - 1]
    return name[:3] if date.written == name and len(name) > 3 else name


_OF_DATE = re.compile(_CHINESE.pattern + "的?")  # 3月20号的日记: the date's 的 (of) is no word of a title


def only_date(query: str) -> bool:
    """Whether ``query`` is one date and nothing else ('2024-03-20', '3月20日', 'March 20')."""
    query = query.strip()
    return any(m.group().strip() == query and _date(m) for pattern in (_ISO, _CHINESE, _ENGLISH)
               for m in pattern.finditer(query))


def date_patterns(query: str) -> list[str]:
    """Patterns that mark, in a snippet, the dates the query writes in any form: '3月14日' marks '2024-03-14',
    '3月14号' and 'March 14', '2024-03-14' marks '3月14日'."""
    patterns = []
    for date in _dates(query):
        m, d, name = date.month, date.day, _MONTHS[date.month - 1]
        patterns.append(rf"(?<!\d)(?:\d{{4}}[-/.]0?{m}[-/.]0?{d}|(?:\d{{4}}\s*年\s*)?0?{m}\s*月\s*0?{d}\s*[日号號]?"
                        rf"|\b(?:{name[:3]}|{name})\.?\s+0?{d}(?:st|nd|rd|th)?)(?!\d)")
    return list(dict.fromkeys(patterns))


def _dates(query: str) -> list[_Date]:
    """Each valid date ``query`` writes, in any of the three forms."""
    found = (_date(m) for pattern in (_CHINESE, _ISO, _ENGLISH) for m in pattern.finditer(query))
    return [date for date in found if date is not None]


def _date(match: re.Match) -> _Date | None:
    """The date a match of one of the three patterns writes, or None when its month or day is out of range."""
    if match.re is _ISO:
        year, separator, month, day = match.groups()
        if separator == "." and (len(month) < 2 or len(day) < 2):
            return None  # 2024.3.1: a version number more often than a date (2024.03.01 is a date)
        written, number, iso = month, int(month), True
    elif match.re is _ENGLISH:
        month, day, year = match.groups()
        written, iso = month.casefold(), False
        if written in _AMBIGUOUS and not year and not month[0].isupper():
            return None  # 'may 5 retries', 'dec 10': a verb, a decrement; 'May 5' and 'may 5, 2024' are dates
        number = next(i for i, name in enumerate(_MONTHS, 1) if name.startswith(written[:3]))
    else:
        year, month, day = match.groups()
        written, number, iso = month, int(month), False
    if not (1 <= number <= 12 and 1 <= int(day) <= 31):
        return None
    return _Date(year, number, int(day), written, iso)
