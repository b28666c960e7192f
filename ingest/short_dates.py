"""Dates a note's heading writes short, read beside ingest.passage_dates' (its heading_parts and date_sections ask
here): a two-digit year, a weekday with a day and no year, a calendar week.

A running log's ``## 14.03.24`` or ``## 3/14/24``, a German week's ``## Di 14.5.``, an American one's ``## Tue 5/14``,
a week's ``## KW 10``, ``## Week 10``, ``## 第10周`` went by the file's modified time. Now:

- a two-digit year is read where the form tells the day from the year: ``14.03.24`` (a dot puts the day first, as
  German writes it; both numbers of two digits, or a weekday before them: ``1.3.24`` alone is a numbered heading's
  or a version's), ``3/14/24`` (which of the first two is the day, their numbers or the log's other slashed headings
  tell, as of ``14/03/2024``). ``24-03-14`` is none: the year first or the day first, nothing tells;
- a day without its year written with numbers, ``Di 14.5.``, ``Tue 5/14``, only after a weekday's name (``5/14``
  alone is a score or a fraction as often): the year of the headings over it, of its file's name or folder or of
  its front matter, else the one year of the last few (``WEEKDAY_YEARS``) whose day falls on that weekday. A
  weekday that does not fit the date read is none (a day and month read the wrong way round, a typo);
- a calendar week, ``KW 10``, ``Kalenderwoche 10``, ``CW 10``, ``Week 10``, ``Wk 10``, ``Woche 10``, ``Semaine 10``,
  ``Semana 10``, ``Settimana 10``, ``Неделя 10``, ``第10周``, ``第10週``, ``10. KW``, with its year (``KW 10/2024``,
  ``Week 10, 2024``, ``2024 KW 10``, ``2024-W10``, ``2024年第10周``) or the year of the headings over it, its file's
  name, folder or front matter: its Monday, as ISO counts weeks and search's '2024-W10' reads one; a weekday's name
  alone under it (``### Dienstag``, ``### Tue``) its day of that week.

A two-digit year is none in a note whose short dates are versions (``versioned``: a ``CHANGELOG``'s ``## 19.03.12``,
one beside ``## 1.2.3``, ``## 19.03.11``). A version (``1.2.3``, ``v14.03.24``), a score (``3/2``), a time (``14:30``) or a list's number (``1.2.``) is none:
each form is the whole heading, or is followed by a mark or words after a space (``KW 10: Planung``), a weekday's
day by words only after its dot or a weekday written out (``Di 14.5. Standup``, ``Tue 5/14 standup``; ``Do 3/4 of
the tests`` is none).
"""
from __future__ import annotations

import re
from datetime import date

from ingest.passage_dates import WEEKDAY

# the weekday each name of ingest.passage_dates.WEEKDAY is (Monday 0), lower-cased
WEEKDAY_NUMBERS = {name: number for number, names in enumerate((
    "mon monday mo montag lundi lunes lunedì lunedi segunda segunda-feira maandag ma понедельник пн 月 月曜 月曜日 월 월요일",
    "tue tues tuesday di dienstag mardi martes martedì martedi terça terca terça-feira terca-feira dinsdag вторник вт "
    "火 火曜 火曜日 화 화요일",
    "wed wednesday mi mittwoch mercredi miércoles miercoles mercoledì mercoledi quarta quarta-feira woensdag wo среда "
    "ср 水 水曜 水曜日 수 수요일",
    "thu thur thurs thursday do donnerstag jeudi jueves giovedì giovedi quinta quinta-feira donderdag четверг чт 木 "
    "木曜 木曜日 목 목요일",
    "fri friday fr freitag vendredi viernes venerdì venerdi sexta sexta-feira vrijdag vr пятница пт 金 金曜 金曜日 금 "
    "금요일",
    "sat saturday sa samstag samedi sábado sabado zaterdag za суббота сб 土 土曜 土曜日 토 토요일",
    "sun sunday so sonntag dimanche domingo domenica zondag zo воскресенье вс 日 日曜 日曜日 일 일요일"))
    for name in names.split()}
for _number, _numeral in enumerate("一二三四五六日"):
    for _lead in ("星期", "周", "週", "礼拜", "禮拜"):
        WEEKDAY_NUMBERS[_lead + _numeral] = _number
        WEEKDAY_NUMBERS[_lead + "天"] = 6
# years looked at for a yearless day's weekday: this one, the one after and the three before (a day falls on a
# weekday once in five years at most: one year fits or none)
WEEKDAY_YEARS = 3
_LEAD = r"(?:(?P<weekday>" + WEEKDAY + r")\.?,?\s+)?"
# what may follow a short date: the heading's end, a mark, or words after a space or a mark ('14.03.24 Standup',
# 'Tue 5/14 - call'); not a digit, a letter or a dot and a digit ('14.03.245', '1.2.24.3', '14.03.24b')
_AFTER = r"(?=\s*$|\s+\S|\s*[^\w\s.])"
TWO_DIGIT_YEAR = re.compile(
    _LEAD + r"(?:(?P<d1>[0-3]?\d)\.(?P<m1>[01]?\d)\.(?P<y1>\d\d)|(?P<a2>[01]?\d|[23]\d)/(?P<b2>[0-3]?\d)/(?P<y2>\d\d))"
    + _AFTER, re.IGNORECASE)
# a day and month after a weekday's name: 'Di 14.5.', 'Di, 14.05.', 'Tue 5/14', 'Tue 14/5'; words after it only
# after the day's dot or a mark ('Di 14.5. Standup', 'Tue 5/14: call'), or after a slashed one a weekday's name of
# three letters or more ('Tue 5/14 standup'): 'Do 3/4 of the tests', 'Do 1.2 things' are none
WEEKDAY_DAY = re.compile(
    r"(?P<weekday>" + WEEKDAY + r")\.?,?\s+"
    r"(?:(?P<d1>[0-3]?\d)\.(?P<m1>[01]?\d)(?P<dot>\.)?|(?P<a2>[0-3]?\d)/(?P<b2>[0-3]?\d))" + _AFTER, re.IGNORECASE)
_MARKED = re.compile(r"\s*(?:$|[^\w\s.])")  # the heading's end or a mark after a short date
# a calendar week: its word before its number, or German's '10. KW', or Chinese and Japanese '第10周'; a year
# before it or after it, or none
_WEEK_WORD = (r"(?:kw|kalenderwoche|cw|calendar\s+week|week|wk|woche|semaine|semana|settimana|неделя|w)")
WEEK = re.compile(
    r"(?:(?P<y1>(?:19|20)\d\d)(?:\s*[-/,]?\s*|\s*年\s*))?"
    r"(?:" + _WEEK_WORD + r"\.?\s*(?P<w1>[0-5]?\d)|(?P<w2>[0-5]?\d)\.\s*kw|第\s*(?P<w3>[0-5]?\d)\s*[周週])"
    r"(?:\s*(?:[/,]\s*|\s+)(?P<y2>(?:19|20)\d\d))?" + r"(?=\s*$|\s*[^\w\s]|\s+(?!\d))", re.IGNORECASE)
# the words a week's heading may have after it without a mark ('KW 10 Planung'): only after a word that names a
# calendar week alone
_CALENDAR = re.compile(r"\s*(?:\d{4}\s*)?(?:kw|kalenderwoche|cw|calendar\s+week|\d{1,2}\.\s*kw)", re.IGNORECASE)


def two_digit_year(heading: str, order: str | None) -> tuple[int, int, int] | None:
    """(year, month, day) of a heading that is or begins with a date of a two-digit year (``14.03.24``, ``3/14/24``,
    ``Di, 1.3.24``); None for none or one the form does not tell."""
    found = TWO_DIGIT_YEAR.match(heading)
    if found is None or released(heading, found.end()):
        return None
    year = _century(int(found["y1"] or found["y2"]))
    if found["d1"]:
        day, month = found["d1"], found["m1"]
        if len(day) < 2 or len(month) < 2:
            if not found["weekday"]:
                return None  # '1.3.24': a numbered heading's or a version's
        parts = (year, int(month), int(day))
    else:
        first, second = int(found["a2"]), int(found["b2"])
        order = "dmy" if first > 12 else "mdy" if second > 12 else order
        if order is None:
            return None
        parts = (year,) + ((second, first) if order == "dmy" else (first, second))
    return parts if _real(*parts) and _fits(found["weekday"], *parts) else None


# a year written whole after a short date: a version's release ('20.10.17 (2022-06-06)'), not a day's heading
_FULL_YEAR = re.compile(r"(?<!\d)(?:19|20)\d\d(?!\d)")


def released(heading: str, at: int = 0) -> bool:
    """Whether a heading is a version and its release date: a year written whole after its short date (Docker's
    changelog's ``## 20.10.17 (2022-06-06)``, ``## 19.03.12 - 2019-08-21``), which a log's day does not say again;
    ``at``: where the short date ends (0: read it here)."""
    if not at:
        found = TWO_DIGIT_YEAR.match(heading)
        if found is None:
            return False
        at = found.end()
    return _FULL_YEAR.search(heading, at) is not None


# a project's file of its releases: CHANGELOG, RELEASES, RELEASE-NOTES (any case, any extension); CHANGES, HISTORY
# and NEWS only as projects name them ('CHANGES.rst', Perl's 'Changes'): 'changes.md', 'news.md', 'history.md' may be
# a person's log, read by its shape (``versioned``)
_RELEASE_FILE = re.compile(r"(?i:changelog|releases?(?:[-_ ]?notes)?)|CHANGES|Changes|HISTORY|NEWS")
# a heading that is a version and nothing else, or a date after it: 'v19.03.12', 'v2.0', '1.2.3', '1.2.3 (2020-01-01)',
# '[1.2.3] - 2020-01-01' ('Keep a Changelog'); a version named so ('v2.0: …', '[1.2.3] …') with any mark after it.
# '1.2.3 Introduction' is a numbered section, and so are '1.2.3. Einleitung' (a dot after it, as German numbers
# sections: a protocol's '## 14.03.24' days were lost to one) and '3.1.4: Results'. (Its spaces, a mark, spaces
# before a date: as '\s*[^\w\s.]*\s*' they were read again from each space of a run, 6 s a heading of 20,000.)
_VERSION = re.compile(r"(?:\[v?\d+(?:\.\d+)+(?:[-+.]\w+)*\]|v\d+(?:\.\d+)+)(?=\s*$|\s*[^\w\s.])|"
                      r"\d+\.\d+\.\d+(?:[-+.]\w+)*(?=\s*$|\s*(?:[^\w\s.]+\s*)?(?:19|20)\d\d-\d\d-\d\d|\s+\d)",
                      re.IGNORECASE)
# a heading that begins with a number of parts ('2.1.0 - Fixes', '3.1.4: Results'): a version or a section's number
_NUMBERED = re.compile(r"\[?v?(\d+(?:\.\d+)+)(?![\d])", re.IGNORECASE)
# a day written with its whole year first ('2024.03.14'), no version
_YEAR_FIRST = re.compile(r"(?:19|20)\d\d\.\d\d?\.\d\d?(?!\d)")
# a day written day first with a dot after its month and no year ('14.3.', a German log's) or its whole year
# ('14.03.2024'), no version: newest first, '## 14.3.' over '## 7.3.' read as versions going down
_DAY_FIRST = re.compile(r"(?:0?[1-9]|[12]\d|3[01])\.(?:0?[1-9]|1[0-2])\.(?:(?:19|20)\d\d)?(?![\d.])")
# a changelog's heading of what is not yet released: 'Unreleased', '[Unreleased]'
_UNRELEASED = re.compile(r"\[?unreleased\]?(?:\s*$|\s*[^\w\s])", re.IGNORECASE)
# a German log's day written without its zeros ('1.3.24'), no version
_DAY_LIKE = re.compile(r"(?:[1-9]|[12]\d|3[01])\.(?:[1-9]|1[0-2])\.\d\d(?![\d.])")
_DOTTED = re.compile(r"(\d\d)\.(\d\d)\.(\d\d)(?!\d)")


def versioned(path: str, headings: list[str]) -> bool:
    """Whether a note's two-digit short dates (``## 19.03.12``) are versions, by its file's name and shape: its file
    is a project's changelog (``CHANGELOG.md``, ``NEWS``); another of its headings is a version no day can be
    (``## 1.2.3``, ``## v19.03.11``, ``## 1.2.3 (2020-01-01)``) or ``## [Unreleased]``; its headings that begin
    with a number of parts (``## 2.1.0 - Fixes``) go down, as a changelog's newest first, where a report's sections
    (``## 3.1.3: Methods``, ``## 3.1.4: Results``) go up; or its ``dd.dd.dd`` headings change from one to the next
    in their last number more often than in their first: a changelog's ``19.03.12``, ``19.03.11``, ``18.09.09``
    change their patch, a log's ``14.03.24``, ``15.03.24`` their day. A person's ``changes.md`` of days
    (``## 03.11.24``), or a note with a ``## 3.1.4: Results``, had its days read as versions."""
    whole = re.split(r"[/\\]", path)[-1] if path else ""
    name = whole.split(".")[0]
    # 'Changes' alone, as Perl's: 'Changes.md' is a note named as notes are (an Obsidian vault's capitals)
    if _RELEASE_FILE.fullmatch(name) and (name != "Changes" or whole == name):
        return True
    dotted, numbered = [], []
    for heading in headings:
        heading = heading.strip()
        if _UNRELEASED.match(heading):
            return True
        day = two_digit_year(heading, None) is not None or _DAY_LIKE.match(heading) or _YEAR_FIRST.match(heading) \
            or _DAY_FIRST.match(heading)
        if _VERSION.match(heading) and not day:
            return True
        if (found := _NUMBERED.match(heading)) and not day:
            numbered.append(tuple(int(part) for part in found[1].split(".")))
        found = _DOTTED.match(heading)
        if found:
            dotted.append(tuple(int(part) for part in found.groups()))
    if len(numbered) > 1 and all(one > two for one, two in zip(numbered, numbered[1:])):
        return True
    dotted = list(dict.fromkeys(dotted))
    steps = list(zip(dotted, dotted[1:]))
    return sum(one[2] != two[2] for one, two in steps) > sum(one[0] != two[0] for one, two in steps)


def weekday_day(heading: str, order: str | None) -> tuple[int, int, int] | None:
    """(weekday, month, day) of a heading that is or begins with a weekday's name and a day and month written with
    numbers (``Di 14.5.``, ``Tue 5/14``); None for none, or a slashed one whose order neither its numbers nor
    ``order`` tell."""
    found = WEEKDAY_DAY.match(heading)
    if found is None:
        return None
    worded = found["dot"] or (found["a2"] and len(found["weekday"]) >= 3)
    if not worded and not _MARKED.match(heading, found.end()):
        return None  # 'Do 3/4 of the tests': a word, a fraction and words
    weekday = WEEKDAY_NUMBERS.get(found["weekday"].lower())
    if found["d1"]:
        month, day = int(found["m1"]), int(found["d1"])
    else:
        first, second = int(found["a2"]), int(found["b2"])
        order = "dmy" if first > 12 else "mdy" if second > 12 else order
        if order is None:
            return None
        month, day = (second, first) if order == "dmy" else (first, second)
    if weekday is None or not (1 <= month <= 12 and _real(2024, month, day)):  # 2024: 29 February is a day
        return None
    return weekday, month, day


def slashed(heading: str) -> tuple[int, int]:
    """The first two numbers of a heading's slashed short date (``3/14/24``, ``Tue 5/14``), for the log's order
    (ingest.passage_dates._slash_order); (0, 0) for none."""
    found = TWO_DIGIT_YEAR.match(heading) or WEEKDAY_DAY.match(heading)
    return (int(found["a2"]), int(found["b2"])) if found and found["a2"] else (0, 0)


def heading_weekday(heading: str) -> int | None:
    """The weekday (Monday 0) a heading's leading name says: 'Tue 5/14', 'Donnerstag, 14. März'; None."""
    found = re.match(r"[^\w\s]*\s*(?:(?:le|el)\s+)?(" + WEEKDAY + r")(?![^\W_])", heading, re.IGNORECASE)
    return WEEKDAY_NUMBERS.get(found[1].lower()) if found else None


def weekday_alone(heading: str) -> int | None:
    """The weekday (Monday 0) of a heading that is a weekday's name alone ('Dienstag', 'Tue', '周二', '**Monday**:');
    None."""
    found = re.fullmatch(r"[^\w\s]*\s*(" + WEEKDAY + r")\.?\s*[^\w\s]*", heading, re.IGNORECASE)
    return WEEKDAY_NUMBERS.get(found[1].lower()) if found else None


def weekday_year(weekday: int, month: int, day: int, today: date | None = None) -> int | None:
    """The one year of the last few (``WEEKDAY_YEARS`` before this one, this one and the next) whose ``month`` and
    ``day`` fall on ``weekday``; None where none does."""
    today = today or date.today()
    years = [year for year in range(today.year - WEEKDAY_YEARS, today.year + 2)
             if _real(year, month, day) and date(year, month, day).weekday() == weekday]
    return years[0] if len(years) == 1 else None


def fits(weekday: int | None, year: int, month: int, day: int) -> bool:
    """Whether a date falls on ``weekday`` (True where none is said)."""
    return weekday is None or (_real(year, month, day) and date(year, month, day).weekday() == weekday)


def week(heading: str) -> tuple[int | None, int] | None:
    """(year or None, week) of a heading that is a calendar week (``KW 10``, ``Week 10, 2024``, ``第10周``), or
    begins with one before a mark (``Week 10: review``) or, for a word that names a calendar week alone (``KW``),
    before words (``KW 10 Planung``); None."""
    found = WEEK.match(heading)
    if found is None:
        return None
    rest = heading[found.end():]
    if rest.strip() and rest[:1].isspace() and not rest.lstrip()[:1] in "-–—:(|[" and \
            not _CALENDAR.match(heading):
        return None  # 'Week 10 of the course': words after a word that may count anything's weeks
    number = int(found["w1"] or found["w2"] or found["w3"])
    if not 1 <= number <= 53 or (found["y1"] and found["y2"]):
        return None
    if found["w1"] and re.match(r"\s*w\.?\s*\d", heading, re.IGNORECASE) and not (found["y1"] or found["y2"]):
        return None  # a 'W10', 'W 10' alone is a size, a wattage, a wing, away as often; '2024-W10', 'W10/2024' are weeks
    year = found["y1"] or found["y2"]
    return (int(year) if year else None), number


def calendar_word(heading: str) -> bool:
    """Whether a week's heading says itself that its week is the calendar's: a word that names one alone (``KW 10``,
    ``CW 10``, ``Kalenderwoche 10``, ``10. KW``) or a year of its own (``Week 10, 2024``, ``2024-W10``,
    ``W10/2024``, ``2024年第10周``). A ``Week 10``, ``Woche 10``, ``第10周`` alone counts a course's or a project's
    weeks as often (a semester's ``## Week 10`` in ``2024.md`` is no ISO week 10): ``calendar_weeks`` looks under it."""
    found = week(heading)
    return found is not None and (found[0] is not None or _CALENDAR.match(heading) is not None)


def calendar_weeks(paths: list[list[str]], order: str | None, year: int | None) -> bool:
    """Whether a note's weeks that ``calendar_word`` leaves unsure are the calendar's: another of its weeks says so
    itself (``## KW 10`` … ``## Week 14: review``), or one of them has a day under it that falls in that calendar
    week (``## Week 10`` / ``### Mon 4.3.`` in 2024), as a log's do, where a course's weeks have lectures' numbers
    or topics under them (or days of other weeks: its week 2 began in September); a log's week without its days is
    of the log's calendar too. ``paths``: each section's heading path; ``year``: the file's (its name, folder or
    front matter), else a year heading over the week (``# 2024``)."""
    from ingest.passage_dates import YEAR_ALONE, heading_parts
    for path in paths:
        over = year
        for at, heading in enumerate(path):
            if YEAR_ALONE.fullmatch(heading.strip()):
                over = heading_parts(heading, order, True)[0] or over
            said = week(heading.strip()) if any(c.isdigit() for c in heading) else None
            if said is not None and calendar_word(heading.strip()):
                return True  # 'KW 10', '2024-W10': the note counts the calendar's weeks
            if said is None:
                continue
            for below in path[at + 1:]:
                parts = heading_parts(below, order, True) if any(c.isdigit() for c in below) else None
                day_year = parts and parts[1] and parts[2] and (parts[0] or over)
                if day_year and _real(day_year, parts[1], parts[2]) and \
                        date(day_year, parts[1], parts[2]).isocalendar()[1] == said[1]:
                    return True
    return False


def monday(year: int, number: int) -> tuple[int, int, int] | None:
    """(year, month, day) of the Monday of a year's ISO week ``number``; None for a 53rd week of a year of 52."""
    try:
        first = date.fromisocalendar(year, number, 1)
    except ValueError:
        return None
    return first.year, first.month, first.day


def _fits(name: str | None, year: int, month: int, day: int) -> bool:
    return fits(WEEKDAY_NUMBERS.get(name.lower()) if name else None, year, month, day)


def _century(year: int) -> int:
    """A two-digit year's: this century's up to next year, else the last ('99' is 1999)."""
    this = date.today().year
    return 2000 + year if 2000 + year <= this + 1 else 1900 + year


def _real(year: int, month: int, day: int) -> bool:
    try:
        date(year, month, day)
    except ValueError:
        return False
    return True
