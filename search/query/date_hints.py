"""The arguments to give for a period an assistant passes on in words that name no date by themselves
(search.query.filters.iso_hint asks here first): a month without its year ('march', 'in März'), a part of a year or a
month ('early 2024', 'mid-2024', 'late March 2024', 'Anfang 2024', 'fin 2023'), a range of quarters ('Q1–Q2 2024',
'Q1 to Q3', 'from Q3 2023 to Q1 2024') or a quarter without its year ('Q3'), a calendar week ('KW 12/2024', 'week
10', '第10周'), a weekday ('last Tuesday', 'Tuesday last week', '上周二'), a relative period in Chinese, Japanese,
German, French or Spanish ('上周', '先週', 'letzte Woche', 'l'année dernière'), days or weeks ago in them ('vor 3 Wochen',
'il y a deux jours', 'hace una semana', '三天前'). Each was refused with the ISO forms alone: which year, where the early part ends, how a range
of quarters is written were left to the assistant, and the assistant asked again or guessed. A year not said is the last one the period has begun in, and the one before it;
'early' is a guess at a third, said as one.
"""
from __future__ import annotations

import re
from datetime import date, timedelta

# a part of a year or of a month: its first, middle or last third ('early 2024' Jan-Apr, 'late March' the 21st on);
# English, German, French, Spanish, as a question writes it ('the end of 2024', 'Anfang 2024', 'fin 2023',
# 'principios de 2024')
PARTS = {"early": 0, "beginning of": 0, "start of": 0, "the beginning of": 0, "the start of": 0, "anfang": 0,
         "début": 0, "debut": 0, "début de": 0, "principios de": 0, "comienzos de": 0,
         "mid": 1, "middle of": 1, "the middle of": 1, "mitte": 1, "mi": 1, "mediados de": 1,
         "late": 2, "end of": 2, "the end of": 2, "ende": 2, "fin": 2, "fin de": 2, "finales de": 2, "fines de": 2}
PART = re.compile(r"(?i)(" + "|".join(sorted(map(re.escape, PARTS), key=len, reverse=True)) + r")[\s-]+(\S.*)")
PART_NAMES = ("its first four months", "its middle four months", "its last four months")
DAY_PART_NAMES = ("its first ten days", "its 11th to 20th days", "its 21st day to its end")
# a quarter, alone or as one end of a range: 'Q1', 'Q1 2024', '2024 Q1', '2024-Q1'
_QUARTER = r"(?:(?P<{0}y1>\d{{4}})[ -]?)?Q(?P<{0}q>[1-4])(?:[ -]?(?P<{0}y2>\d{{4}}))?"
QUARTERS = re.compile(r"(?i)(?:from\s+|between\s+)?" + _QUARTER.format("a")
                      + r"\s*(?:–|—|-|\bto\b|\bthrough\b|\bthru\b|\buntil\b|\btill\b|\band\b)\s*"
                      + _QUARTER.format("b"))
QUARTER = re.compile(r"(?i)Q([1-4])")


def hint(value: str, name: str | None, today: date | None = None) -> str | None:
    """The hint for ``value`` where it is one of these periods, the arguments named as ``name``'s pair; None for
    anything else."""
    today = today or date.today()
    value = " ".join(value.strip().split())
    return (_quarters(value, name, today) or _part(value, name, today) or _yearless(value, name, today)
            or _week(value, name, today) or _weekday(value, name, today) or _relative_words(value, name, today)
            or _ago_elsewhere(value, name) or _chinese_period(value, name, today))


# a month or a year as a Chinese question names it, as an assistant may pass it on: '三月', '3月份', '去年三月',
# '今年12月', '2025年' (refused with the ISO forms alone, where 'March' and 'in 2025' were told how to write them)
CHINESE_PERIOD = re.compile(r"(?:(?P<year>\d{4})\s*年|(?P<said>去年|今年|前年))?\s*"
                            r"(?:(?P<month>\d{1,2}|[一二三四五六七八九十]{1,3})\s*月份?)?")
SAID_YEARS = {"今年": 0, "去年": 1, "前年": 2}
MONTH_NAMES = ("January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
               "November", "December")


def _chinese_period(value: str, name: str | None, today: date) -> str | None:
    """The hint for a Chinese month or year ('去年三月': 'for 去年三月 (March 2025), give date_after=2025-03 and
    date_before=2025-04 (…)'; '三月' as 'March', its year not said); None for anything else."""
    found = CHINESE_PERIOD.fullmatch(value)
    if not found or not (found["year"] or found["said"] or found["month"]) or found["year"] and found["month"]:
        return None  # '2025年3月' is told to be written 2025-03 (filters.iso_hint)
    year = int(found["year"]) if found["year"] else today.year - SAID_YEARS[found["said"]] if found["said"] else None
    month = found["month"] and (int(found["month"]) if found["month"].isdigit()
                                else COUNTS.get(found["month"]) or _chinese_count(found["month"]))
    if found["month"] and not (month and 1 <= month <= 12):
        return None
    if year is None:
        return _which_year(MONTH_NAMES[month - 1], name, today, month, month + 1)
    if not month:
        return _give(f"{value} ({year})", name, (year, 1), (year + 1, 1))
    return _give(f"{value} ({MONTH_NAMES[month - 1]} {year})", name, (year, month), (year, month + 1))


# a calendar week as a question names it: 'week 10', 'KW 12', 'Woche 12', 'CW 10', 'W10', '第10周', with its year
# before or after it or not ('KW 12/2024', 'week 10 2024', '2024 KW 12', '2024年第10周')
WEEK = re.compile(r"(?i)(?:(?P<y1>\d{4})\s*(?:[-/,]\s*|年\s*)?)?"
                  r"(?:(?:the\s+)?(?:calendar\s+week|kalenderwoche|week|wk|kw|cw|woche|semaine|semana|settimana|w)"
                  r"\.?\s*(?P<w1>\d{1,2})|第\s*(?P<w2>\d{1,2})\s*[周週])"
                  r"(?:\s*(?:[/,]\s*|\s+(?:of\s+)?)(?P<y2>\d{4}))?")


def _week(value: str, name: str | None, today: date) -> str | None:
    """'KW 12/2024': 'for week 12 of 2024, give date_after=2024-W12 and date_before=2024-W13 (…)', as the filters
    read an ISO week (its Monday); without its year, the last such week begun and the one before it. 'week 10' was
    told to count from today, 'KW 12' nothing at all."""
    found = WEEK.fullmatch(value)
    if not found or (found["y1"] and found["y2"]):
        return None
    number, year = int(found["w1"] or found["w2"]), found["y1"] or found["y2"]
    # back as far as two years with a week 53 (one in five or six): 'week 53' in December 2026, before 2026's
    # began, was told to count from today, as 2025 and 2024 have 52
    years = [int(year)] if year else [y for y in range(today.year, today.year - 13, -1)
                                      if _monday(y, number) and _monday(y, number) <= today][:2]
    spans = [(y, _iso_week(y, number), _iso_week(*_next_week(y, number))) for y in years if _monday(y, number)]
    if not spans:
        return None
    _, before, _, said = _pair(name)
    text = f"for week {number} of {spans[0][0]}, give {said(spans[0][1], spans[0][2])}"
    if len(spans) > 1:
        text = f"which year is not said: {text}; for {spans[1][0]}'s, {said(spans[1][1], spans[1][2])}"
    return text + f" ({before} leaves out the date it names)"


def _monday(year: int, number: int) -> date | None:
    try:
        return date.fromisocalendar(year, number, 1)
    except ValueError:  # a 53rd week of a year of 52, a week 0 or 60
        return None


def _next_week(year: int, number: int) -> tuple[int, int]:
    following = _monday(year, number) + timedelta(days=7)
    return following.isocalendar()[0], following.isocalendar()[1]


def _iso_week(year: int, number: int) -> str:
    return f"{year:04}-W{number:02}"


# a weekday as a question names it, in English, German, French, Spanish and Chinese: 'last Tuesday', 'on Tuesday',
# 'letzten Dienstag', 'mardi dernier', 'el martes pasado', '上周二' (last week's), '周二', '星期二'
WEEKDAYS = {name: number for number, names in enumerate((
    "monday montag lundi lunes", "tuesday dienstag mardi martes", "wednesday mittwoch mercredi miércoles miercoles",
    "thursday donnerstag jeudi jueves", "friday freitag vendredi viernes", "saturday samstag samedi sábado sabado",
    "sunday sonntag dimanche domingo")) for name in names.split()}
WEEKDAY = re.compile(r"(?i)(?P<last>上)?(?:周|週|星期|礼拜|禮拜)(?P<han>[一二三四五六日天])|"
                     r"(?:(?:last|past|on|this\s+past|letzten|vergangenen|am|el)\s+)?(?P<name>[^\W\d_]+)"
                     r"(?:\s+(?:dernier|pasado)|(?P<week>\s+(?:of\s+)?last\s+week))?")  # 'Tuesday last week' too


def _weekday(value: str, name: str | None, today: date) -> str | None:
    """'last Tuesday': 'for Tuesday 2026-12-01, give date_after=2026-12-01 and date_before=2026-12-02 (…)', the last
    such day before today (last week's for '上周二'); it was told to count from today, as if nothing said the day."""
    found = WEEKDAY.fullmatch(value)
    if not found:
        return None
    if found["han"]:
        number = min("一二三四五六日天".index(found["han"]), 6)  # 日 and 天 are Sunday
        day = today - timedelta(days=today.weekday()) + timedelta(days=number)
        day -= timedelta(days=7) if found["last"] or day >= today else timedelta(0)
    else:
        number = WEEKDAYS.get(found["name"].lower())
        if number is None:
            return None
        day = today - timedelta(days=(today.weekday() - number) % 7 or 7)
        if found["week"]:  # last week's, as 上周二: it was told to count from today
            day = today - timedelta(days=today.weekday() + 7 - number)
    _, before, _, said = _pair(name)
    after = day.isoformat()
    return (f"for {day.strftime('%A')} {after}, give {said(after, (day + timedelta(days=1)).isoformat())} "
            f"({before} leaves out the date it names)")


# relative periods in other languages, as the English the filters' hints read ('上周' as 'last week')
RELATIVE_WORDS = {"上周": "last week", "上週": "last week", "上个星期": "last week", "上個星期": "last week",
                  "本周": "this week", "这周": "this week", "這週": "this week", "上个月": "last month",
                  "上個月": "last month", "上月": "last month", "本月": "this month", "这个月": "this month",
                  "去年": "last year", "今年": "this year", "昨天": "yesterday", "今天": "today",
                  "letzte woche": "last week", "vergangene woche": "last week", "diese woche": "this week",
                  "letzten monat": "last month", "diesen monat": "this month", "letztes jahr": "last year",
                  "dieses jahr": "this year", "gestern": "yesterday", "heute": "today",
                  "la semaine dernière": "last week", "cette semaine": "this week", "le mois dernier": "last month",
                  "hier": "yesterday", "la semana pasada": "last week", "esta semana": "this week",
                  "el mes pasado": "last month", "ayer": "yesterday",
                  # as a question puts them after 'von', 'de': 'Notizen von letzter Woche'; Japanese
                  "letzter woche": "last week", "vergangener woche": "last week", "letztem monat": "last month",
                  "vergangenem monat": "last month", "letztem jahr": "last year", "vergangenes jahr": "last year",
                  "l'année dernière": "last year", "l’année dernière": "last year", "cette année": "this year",
                  "ce mois-ci": "this month", "el año pasado": "last year", "este año": "this year",
                  "este mes": "this month", "先週": "last week", "今週": "this week", "先月": "last month",
                  "今月": "this month", "昨年": "last year",
                  # the last days, as a Chinese question says them ('最近一周的笔记': refused with the ISO forms alone)
                  "最近一周": "last 7 days", "最近一週": "last 7 days", "近一周": "last 7 days", "过去一周": "last 7 days",
                  "過去一週": "last 7 days", "最近7天": "last 7 days", "近7天": "last 7 days", "最近七天": "last 7 days",
                  "最近一个月": "last 30 days", "最近一個月": "last 30 days", "近一个月": "last 30 days",
                  "近一個月": "last 30 days", "过去一个月": "last 30 days", "過去一個月": "last 30 days",
                  "最近30天": "last 30 days", "近30天": "last 30 days"}
# days or weeks ago in German, French, Spanish and Chinese ('vor 3 Wochen', 'il y a deux jours', 'hace dos semanas',
# '三天前'), as English '3 weeks ago', which the filters count from today; other counts ('a few') are not a number
AGO_ELSEWHERE = re.compile(r"(?i)vor\s+(?P<de>\S+)\s+(?P<de_unit>tag(?:en)?|wochen?)|il\s+y\s+a\s+(?P<fr>\S+)\s+"
                           r"(?P<fr_unit>jours?|semaines?)|hace\s+(?P<es>\S+)\s+(?P<es_unit>d[ií]as?|semanas?)"
                           r"|(?P<zh>[\d一二两兩三四五六七八九十]+)[个個]?(?P<zh_unit>天|[周週]|星期|礼拜|禮拜)前")
COUNTS = {"ein": 1, "einem": 1, "einer": 1, "zwei": 2, "drei": 3, "vier": 4, "fünf": 5, "un": 1, "une": 1, "deux": 2,
          "trois": 3, "quatre": 4, "cinq": 5, "una": 1, "dos": 2, "tres": 3, "cuatro": 4, "cinco": 5, "一": 1,
          "二": 2, "两": 2, "兩": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8, "九": 9, "十": 10}


def _ago_elsewhere(value: str, name: str | None) -> str | None:
    """'vor 3 Wochen': ''vor 3 Wochen' is '3 weeks ago': …', as for its English (they were refused with the ISO
    forms alone); None for anything else."""
    found = AGO_ELSEWHERE.fullmatch(value)
    if not found:
        return None
    said = next(key for key in ("de", "fr", "es", "zh") if found[key])
    count = found[said]
    number = int(count) if count.isdigit() else COUNTS.get(count.lower()) or _chinese_count(count)
    if not number:
        return None
    unit = "day" if found[f"{said}_unit"].lower()[:1] in ("t", "j", "d", "天") else "week"
    english = f"{number} {unit}{'s' if number > 1 else ''} ago"
    from search.query.filters import iso_hint
    hinted = iso_hint(english, name)
    return f"'{value}' is '{english}': {hinted}" if hinted else None


def _chinese_count(count: str) -> int | None:
    """A count written with 十 ('十二' 12, '二十' 20, '二十一' 21), which COUNTS' single numerals do not read."""
    tens, ten, ones = count.partition("十")
    if not ten or any(part not in ("", *COUNTS) for part in (tens, ones)):
        return None
    return (COUNTS[tens] if tens else 1) * 10 + (COUNTS[ones] if ones else 0)


def _relative_words(value: str, name: str | None, today: date) -> str | None:
    """The hint for a relative period said in Chinese, German, French or Spanish ('上周', 'letzte Woche'), as for its
    English words, counted from ``today`` (it was the clock's, whatever ``hint`` was given): they were refused with
    the ISO forms alone."""
    english = RELATIVE_WORDS.get(value.lower())
    if english is None:
        return None
    from search.query.filters import relative_hint
    said = relative_hint(english, name, today)
    return f"'{value}' is '{english}': {said}" if said else None


def _quarters(value: str, name: str | None, today: date) -> str | None:
    """'Q1–Q2 2024': 'for Q1–Q2 2024, give date_after=2024-01 and date_before=2024-07 (…)'; a year said at one end
    is the other's too; none said: the last such range begun, and the one before it."""
    found = QUARTERS.fullmatch(value)
    if not found:
        return None
    first, last = int(found["aq"]), int(found["bq"])
    start, end = found["ay1"] or found["ay2"], found["by1"] or found["by2"]
    start, end = int(start or end or 0), int(end or start or 0)
    if start and (end, last) < (start, first):
        return None
    if start:
        what = f"Q{first}–Q{last} {start}" if start == end else f"Q{first} {start} through Q{last} {end}"
        return _give(what, name, (start, (first - 1) * 3 + 1), (end, last * 3 + 1))
    if last < first:
        return None
    return _which_year(f"Q{first}–Q{last}", name, today, (first - 1) * 3 + 1, last * 3 + 1)


def _part(value: str, name: str | None, today: date) -> str | None:
    """'early 2024': 'for early 2024 (its first four months, say), give date_after=2024-01 and date_before=2024-05';
    'late March 2024' by its days; None for anything else."""
    from search.query.filters import MONTHS
    found = PART.fullmatch(value)
    if not found:
        return None
    third, rest = PARTS[found[1].lower()], found[2].strip()
    year = re.fullmatch(r"(\d{4})", rest)
    if year:
        what, start = f"{found[1]} {year[1]}", int(year[1])
        first = third * 4 + 1
        return _give(f"{what} ({PART_NAMES[third]}, say)", name, (start, first), (start, first + 4))
    month = re.fullmatch(r"(?:de\s+)?([^\W\d_]+)\.?(?:,?\s+(?:de\s+|of\s+)?(\d{4}))?", rest)
    number = MONTHS.get(month[1].lower()) if month else None
    if not number:
        return None
    first_day, end_day = (1, 11, 21)[third], (11, 21, None)[third]
    years = [int(month[2])] if month[2] else _years(today, number, first_day)
    spans = []
    for year in years:
        after = date(year, number, first_day).isoformat()
        before = date(year, number, end_day).isoformat() if end_day else \
            (f"{year + 1:04}-01" if number == 12 else f"{year:04}-{number + 1:02}")
        spans.append((year, after, before))
    label = f"{found[1]} {month[1]}"
    shown = f"{label} {spans[0][0]} ({DAY_PART_NAMES[third]}, say)"
    said = _pair(name)[3]
    text = f"for {shown}, give {said(spans[0][1], spans[0][2])}"
    if len(spans) > 1:
        text = f"which year is not said: {text}; for {spans[1][0]}'s, {said(spans[1][1], spans[1][2])}"
    return text + f" ({_pair(name)[1]} leaves out the date it names)"


def _yearless(value: str, name: str | None, today: date) -> str | None:
    """A month or a quarter without its year ('march', 'März', 'Q3'): the last one begun and the one before it;
    after 'since' or 'before' ('since March') as the one argument that word means."""
    sided = SIDED.fullmatch(value)
    span = _yearless_span(sided[2] if sided else value)
    if span is None:
        return None
    what, first, end = span
    if not sided:
        return _which_year(what, name, today, first, end)
    after, before, one, _ = _pair(name)
    side = before if sided[1].lower() == "before" else after
    years = _years(today, first)
    return (f"which year is not said: '{sided[1].lower()} {what} {years[0]}' is {one(side, _month(years[0], first))}; "
            f"of {years[1]}, {one(side, _month(years[1], first))}")


SIDED = re.compile(r"(?i)(since|after|from|starting|before)\s+(\S.*)")
SHORT_MONTHS = {"jan", "feb", "mar", "apr", "jun", "jul", "aug", "sep", "sept", "oct", "nov", "dec", "mai"}


def _yearless_span(value: str) -> tuple[str, int, int] | None:
    """(how to say it, its first month, the month after it) of a month's name or a quarter alone; None."""
    from search.query.filters import MONTHS
    word = value.lower().rstrip(".")
    if word in MONTHS and (len(word) > 3 or word in SHORT_MONTHS):  # 'may' is a word of the question as often
        return value.rstrip(".").capitalize(), MONTHS[word], MONTHS[word] + 1
    found = QUARTER.fullmatch(value)
    if found:
        quarter = int(found[1])
        return f"Q{quarter}", (quarter - 1) * 3 + 1, quarter * 3 + 1
    return None


def _years(today: date, month: int, day: int = 1) -> list[int]:
    """The year of the last ``month`` (from its ``day``: 'late December' from the 21st) begun by ``today``, and the
    one before it. By the month alone, on 6 December late December was this year's, days still to come."""
    year = today.year if (today.month, today.day) >= (month, day) else today.year - 1
    return [year, year - 1]


def _which_year(what: str, name: str | None, today: date, first: int, end: int) -> str:
    """'which year is not said: for March 2026, give …; for 2025's, …': the months ``first`` up to ``end`` (13 and
    on: the next year's) of the last year they have begun in, and of the year before."""
    said = _pair(name)[3]
    spans = [(year, _month(year, first), _month(year, end)) for year in _years(today, first)]
    return (f"which year is not said: for {what} {spans[0][0]}, give {said(spans[0][1], spans[0][2])}; "
            f"for {spans[1][0]}'s, {said(spans[1][1], spans[1][2])} ({_pair(name)[1]} leaves out the date it names)")


def _give(what: str, name: str | None, first: tuple[int, int], end: tuple[int, int]) -> str:
    """'for {what}, give date_after=YYYY-MM and date_before=YYYY-MM (…)' from (year, month) ``first`` to ``end``
    (left out; a month of 13 and on is the next year's)."""
    _, before, _, said = _pair(name)
    return (f"for {what}, give {said(_month(*first), _month(*end))} "
            f"({before} leaves out the date it names)")


def _month(year: int, month: int) -> str:
    """'2024-03' for (2024, 3); (2024, 13) is '2025-01'."""
    year, month = year + (month - 1) // 12, (month - 1) % 12 + 1
    return f"{year:04}-{month:02}"


def _pair(name: str | None):
    from search.query.filters import _pair as pair
    return pair(name)
