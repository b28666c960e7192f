"""A date a query writes, looked up as notes write it the other way too.

Daily notes and meetings are named by ISO date (``日记/2024-03-14.md``, ``2024-03-14 OKR 对齐会.md``), while a
Chinese user asks ``3月14日的会议`` or ``3月20号 日记``; the index holds ``2024``, ``03`` and ``14`` for the one and
``3``, ``月``, ``14``, ``日`` for the other, so neither found the other (``3`` is not ``03``): the meeting of 3月14日
came fourth, under notes that say 3月 and 日 elsewhere. A Chinese date (``3月14日``, ``2024年3月14号``) is also
looked up as the phrase ``03 14`` (the month and day zero-padded, side by side: ``2024-03-14``, ``03/14``), with its
year when it names one; an ISO date (``2024-03-14``, ``2024/3/14``) also as ``3 月 14`` (``3月14日``, ``3月14号``),
and as the phrase ``2024 03 14`` (zero-padded), so that the date as written weighs as much as the other form.
A query that is a date alone counts, for titled-first, as the words of the date: ``2024-03-20`` puts the note titled
or named so first.
Each form is a term of the query's month word, as the other script's form is of a Chinese word: it adds a term but
drops none.
"""
from __future__ import annotations

import re

_CHINESE = re.compile(r"(?:(?<!\d)(\d{4})\s*年\s*)?(?<!\d)(\d{1,2})\s*月\s*(\d{1,2})(?!\d)\s*[日号號]?")
_ISO = re.compile(r"(?<!\d)(\d{4})([-/.])(\d{1,2})\2(\d{1,2})(?!\d)")


def date_forms(query: str) -> dict[str, list[str]]:
    """{the month as the (normalised) ``query`` writes it: the other forms of its dates}: '3月14日' gives
    {'3': ['03 14']}, '2024年3月14日' {'3': ['2024 03 14']}, '2024-03-14' {'03': ['2024 03 14', '3 月 14']}; a month or
    day out of range is no date."""
    forms: dict[str, list[str]] = {}
    for year, month, day in _dates(query):
        m, d = int(month.lstrip("c")), int(day)
        if month.startswith("c"):  # a Chinese date: the ISO form
            forms.setdefault(month[1:], []).append(" ".join([*year, f"{m:02d}", f"{d:02d}"]))
        else:
            # and as a phrase itself (2024/3/14 zero-padded): its year, month and day are words many notes hold,
            # where 3月14 is rare; 2024-03-20 ranked a table saying 3月20日 above the daily note 2024-03-20.md
            forms.setdefault(month, []).extend([" ".join([*year, f"{m:02d}", f"{d:02d}"]), f"{m} 月 {d}"])
    return {month: list(dict.fromkeys(its)) for month, its in forms.items()}


def apart(query: str) -> str:
    """``query`` with each Chinese date a word of its own: the 日 of 3月14日的会议 is the date's, not a character
    of the run 日的会议, whose pair 日的 no note holds (the spelling hint named it)."""
    return _CHINESE.sub(lambda m: f" {m.group()} ", query) if "月" in query else query


def iso_dates(query: str) -> str:
    """``query`` with each Chinese date written as ISO's month and day ('3月20号 日记' and '3月20号的日记' as
    '03-20 日记', with its year when it names one): the words a daily note's title, or its file name, holds of it."""
    def iso(match: re.Match) -> str:
        year, month, day = match.groups()
        if not (1 <= int(month) <= 12 and 1 <= int(day) <= 31):
            return match.group()
        return f" {year + '-' if year else ''}{int(month):02d}-{int(day):02d} "
    return _OF_DATE.sub(iso, query) if "月" in query else query


_OF_DATE = re.compile(_CHINESE.pattern + "的?")  # 3月20号的日记: the date's 的 (of) is no word of a title


def only_date(query: str) -> bool:
    """Whether ``query`` is one date and nothing else ('2024-03-20', '3月20日')."""
    query = query.strip()
    return any(m.group().strip() == query for m in (*_ISO.finditer(query), *_CHINESE.finditer(query))) \
        and bool(_dates(query))


def date_patterns(query: str) -> list[str]:
    """Patterns that mark, in a snippet, the dates the query writes in either form: '3月14日' marks
    '2024-03-14' and '3月14号', '2024-03-14' marks '3月14日'."""
    patterns = []
    for year, month, day in _dates(query):
        m, d = int(month.lstrip("c")), int(day)
        patterns.append(rf"(?<!\d)(?:\d{{4}}[-/.]0?{m}[-/.]0?{d}|(?:\d{{4}}\s*年\s*)?0?{m}\s*月\s*0?{d}\s*[日号號]?)"
                        r"(?!\d)")
    return list(dict.fromkeys(patterns))


def _dates(query: str) -> list[tuple[list[str], str, str]]:
    """(year as a list of none or one, month as written (prefixed 'c' for a Chinese date), day) of each valid date."""
    found = []
    for match in _CHINESE.finditer(query):
        year, month, day = match.groups()
        if 1 <= int(month) <= 12 and 1 <= int(day) <= 31:
            found.append(([year] if year else [], "c" + month, day))
    for match in _ISO.finditer(query):
        year, _, month, day = match.groups()
        if 1 <= int(month) <= 12 and 1 <= int(day) <= 31:
            found.append(([year], month, day))
    return found
