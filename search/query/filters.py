"""Search filters, applied before top-k: collection, folder, file name pattern (glob), kind, modified time, and the
date a passage is about (``date_after`` / ``date_before``: its own date where its file says one, a mail message's
Date, a daily note's name, a front matter date (ingest.passage_dates), else its file's modified time).

``path_prefix`` names a folder: 'tech' and 'tech/' both mean the folder tech/ (and a file called
exactly 'tech'), never technology/. Names match in either Unicode normal form (NFC or NFD), as a
client's spelling of a folder macOS wrote need not be the spelling on disk, nor one folder's spelling its
subfolder's. One comparison, ``in_folder``, serves every search path: the in-memory filters call it, and SQL
(FTS5 keyword search, list_files) calls it as the function ``sift_in_folder``.
"""
from __future__ import annotations

import fnmatch
import re
import unicodedata
from dataclasses import dataclass
from datetime import date, datetime, timedelta, timezone

KINDS = ("note", "code", "pdf", "text", "mail")
# 'mail' is no kind a file is indexed as: mail files are notes, and kind='mail' keeps them alone (``is_mail_file``): 'the
# mail from opposing counsel last week' was kept to mail only by glob='**/*.eml', which left out .msg and mailboxes
MAIL = "mail"


def is_mail_file(path: str, kind: str) -> bool:
    """Whether a file indexed as ``kind`` is mail: a note that is a saved message (.eml, Outlook's .msg) or a
    mailbox (.mbox, a Thunderbird folder of no extension: search.query.mail_threads.is_mail)."""
    from search.query.mail_threads import is_mail
    return kind == "note" and is_mail(path)


def folder_prefix(prefix: str | None) -> str | None:
    """The folder a path prefix names, without trailing '/' (None: every file)."""
    if prefix is None:
        return None
    return prefix.rstrip("/") or None


def in_folder(path: str, folder: str) -> bool:
    """Whether ``path`` lies in ``folder`` (or is the file ``folder``), comparing NFC forms."""
    if path.startswith(folder) and (len(path) == len(folder) or path[len(folder)] == "/"):
        return True
    path, folder = _nfc(path), _nfc(folder)
    return path.startswith(folder) and (len(path) == len(folder) or path[len(folder)] == "/")


def register_in_folder(conn) -> None:
    """Let SQL on ``conn`` call ``sift_in_folder(path, folder)``: the same comparison as the in-memory filters
    (a path whose folders are spelled in different forms is found by both)."""
    conn.create_function("sift_in_folder", 2, in_folder, deterministic=True)


def unix_time(value: str | None, name: str) -> float | None:
    """An ISO date or date-time (local time unless it names a zone) as unix time; None for none or blank;
    ValueError naming the setting ``name`` for anything else. Any date datetime can hold is accepted: one near
    year 1 or 9999, where local time cannot be worked out, is read as UTC (the hours do not matter that far out)."""
    if value is None or not value.strip():
        return None
    try:
        when = datetime.fromisoformat(_whole_date(value.strip()))
    except ValueError:
        shown = repr(value) if len(value) <= 80 else f"{value[:80]!r}… ({len(value):,} characters)"
        hint = iso_hint(value.strip(), name) if len(value) <= 80 else None
        raise ValueError(f"{name} must be an ISO date like 2024-03-01 or a date-time like 2024-03-01T14:30, "
                         f"not {shown}" + (f": {hint}" if hint else "")) from None
    try:
        return when.timestamp()
    except (ValueError, OverflowError, OSError):
        aware = when if when.tzinfo is not None else when.replace(tzinfo=timezone.utc)
        return (aware - datetime(1970, 1, 1, tzinfo=timezone.utc)).total_seconds()


# month names as an assistant passes them on from a question: English, and German, French, Spanish, Italian and
# Portuguese written out ('März 2024', 'mars 2024', 'marzo de 2024' were refused with the ISO forms alone)
MONTHS = {name: n for n, names in enumerate(
    ("january jan januar janvier enero gennaio janeiro", "february feb februar février fevrier febrero febbraio "
     "fevereiro", "march mar märz maerz mars marzo março", "april apr avril abril aprile", "may mai mayo maggio maio",
     "june jun juni juin junio giugno junho", "july jul juli juillet julio luglio julho",
     "august aug août aout agosto", "september sep sept septembre septiembre setiembre settembre setembro",
     "october oct oktober octobre octubre ottobre outubro", "november nov novembre noviembre novembro",
     "december dec dezember décembre decembre diciembre dicembre dezembro"), start=1) for name in names.split()}
# the words a date is written with between its numbers and its month ('1 de mayo de 2024', 'le 1er mai', 'March of
# 2024'), and a day's ordinal ('1st', French '1er', Italian and Portuguese '1º', '1°')
FILLERS = {"de", "del", "le", "el", "of", "the"}
ORDINAL = re.compile(r"(\d)(?:st|nd|rd|th|er|º|°|o)(?![^\W_])")
# a quarter or a half of a year ('Q1 2024', '2024-Q1', '2024 Q1', 'H2 2023'), a season ('spring 2024', 'Frühling
# 2024'): refused with the ISO forms alone
QUARTER = re.compile(r"(?i)(?:([QH])([1-4])[ -]?(\d{4})|(\d{4})[ -]?([QH])([1-4]))")
SEASONS = {"spring": 3, "summer": 6, "autumn": 9, "fall": 9, "winter": 12, "frühling": 3, "sommer": 6, "herbst": 9,
           "printemps": 3, "été": 6, "automne": 9, "hiver": 12, "primavera": 3, "verano": 6, "otoño": 9,
           "invierno": 12}
SEASON = re.compile(r"(?i)(" + "|".join(SEASONS) + r")(?: of| de| d')?\s*(\d{4})")
# an ISO week ('2024-W10', '2024W10', '2024-W10-3'): its Monday (or its day), as a year or a month is its first day
ISO_WEEK = re.compile(r"(\d{4})-?W(\d\d)(?:-?([1-7]))?")
RELATIVE = re.compile(r"(?i)\b(today|yesterday|tomorrow|now|last|this|next|ago|since|past|recent\w*|lately|of late|"
                      r"latest|newest|new|week|month|quarter|year|days?|hours?)\b")


# A date given with the word of the question before it ('since 2024', 'after March 2024', 'before 2023'): the argument
# says that word itself. 'since 2024' was told to give the date counted from today, 'before 2023' nothing at all.
SIDES = {"since": "after", "after": "after", "from": "after", "starting": "after", "before": "before"}
SIDED = re.compile(r"(?i)(since|after|from|starting|before)\s+(\S.*)")


def iso_hint(value: str, name: str | None = None) -> str | None:
    """How to write ``value`` as the filters take it, where it reads as one date: 'March 2024' as 2024-03,
    '14 March 2024', 'March 14th, 2024', '2024/03/14' and '2024年3月14日' as 2024-03-14; a relative one
    ('last week') with today's date to count from; a day and month in an order that cannot be told (03/04/2024)
    said so. An assistant given 'date_after must be an ISO date … not 'March 2024'' had to guess what was wrong.
    A date after 'since', 'after', 'from' or 'before' as that date, the word left to the argument (``name``, which
    a 'before' given to date_after names the other of: 'write it 2023, as date_before'). A period or a range ('in
    2024', 'between 2023 and 2024', 'until March 2024') as the two arguments that make it (``_spanned``); a quarter,
    a half or a season ('Q1 2024', 'spring 2024') likewise (``_part_of_year``); a relative date ('yesterday', 'last
    week') with the dates it stands for today (``_relative``). A month or a quarter without its year, a part of a year
    ('early 2024') and a range of quarters ('Q1–Q2 2024') by ``date_hints``."""
    from search.query import date_hints
    worded = date_hints.hint(value, name)
    if worded:
        return worded
    spanned = _spanned(value, name)
    if spanned:
        return spanned
    sided = SIDED.fullmatch(value)
    if sided:
        return _sided(sided[1].lower(), sided[2].strip(), name)
    words = [w for w in ORDINAL.sub(r"\1", value.lower().replace(",", " ").replace(".", " ")).split()
             if w not in FILLERS]
    named = [MONTHS[w] for w in words if w in MONTHS]
    numbers = [w for w in words if w.isdigit()]
    if len(named) == 1 and len(words) == len(numbers) + 1 and len(numbers) in (1, 2):
        year = [n for n in numbers if len(n) == 4]
        day = [n for n in numbers if len(n) <= 2]
        if len(year) == 1 and len(day) == len(numbers) - 1:
            return _spelled(int(year[0]), named[0], int(day[0]) if day else None)
    parts = re.fullmatch(r"(\d{4})[-/.](\d{1,2})(?:[-/.](\d{1,2}))?", value) \
        or re.fullmatch(r"(\d{4})\s*[年년]\s*(\d{1,2})\s*[月월](?:\s*(\d{1,2})\s*[日号號일]?)?", value)
    if parts:
        return _spelled(int(parts[1]), int(parts[2]), int(parts[3]) if parts[3] else None)
    parts = re.fullmatch(r"(\d{1,2})[-/.](\d{1,2})[-/.](\d{4})", value)
    if parts:
        first, second, year = int(parts[1]), int(parts[2]), int(parts[3])
        if first > 12 >= second:
            return _spelled(year, second, first)
        if second > 12 >= first:
            return _spelled(year, first, second)
        if first <= 12 and second <= 12:
            return f"which of {first} and {second} is the month cannot be told: write it {year}-MM-DD"
    part = _part_of_year(value, name)
    if part:
        return part
    return relative_hint(value, name, datetime.now().date())


def relative_hint(value: str, name: str | None, today: date) -> str | None:
    """The hint for a relative date ('last week'), counted from ``today``; None for a value that says none."""
    if not RELATIVE.search(value):
        return None
    relative = _relative(value.lower().strip(), today, name)
    return f"give the date itself, counted from today ({today.isoformat()})" + (f": {relative}" if relative else "")


def _pair(name: str | None):
    """(one, given): how ``name``'s argument and its pair are written with a date, as _spanned writes them
    ('date_after=2024' and 'date_after=2024 and date_before=2025'; '--date-after 2024 --date-before 2025')."""
    after = (name or "date_after").replace("before", "after")
    before = after.replace("after", "before")
    one = (lambda arg, when: f"{arg} {when}") if after.startswith("-") else (lambda arg, when: f"{arg}={when}")
    given = (lambda a, b: f"{one(after, a)} {one(before, b)}") if after.startswith("-") else \
        (lambda a, b: f"{one(after, a)} and {one(before, b)}")
    return after, before, one, given


def _part_of_year(value: str, name: str | None) -> str | None:
    """The hint for a quarter ('Q1 2024': 'for Q1 2024, give date_after=2024-01 and date_before=2024-04'), a half
    ('H2 2023') or a season ('spring 2024': its months north of the equator, winter's running into the next year);
    None for anything else."""
    after, before, one, given = _pair(name)
    period = _year_part(value)
    if period is None:
        return None
    what, year, first, months = period
    last = first + months
    end = f"{year + 1:04}-{last - 12:02}" if last > 12 else f"{year:04}-{last:02}"
    return f"for {what}, give {given(f'{year:04}-{first:02}', end)} ({before} leaves out the date it names)"


def _year_part(value: str) -> tuple[str, int, int, int] | None:
    """(how to say it, its year, its first month, its months) of a quarter, a half or a season with its year."""
    found = QUARTER.fullmatch(value.strip())
    season = SEASON.fullmatch(value.strip())
    if found:
        letter, number, year = (found[1], found[2], found[3]) if found[1] else (found[5], found[6], found[4])
        letter, number, year = letter.upper(), int(number), int(year)
        if letter == "H" and number > 2:
            return None
        months = 3 if letter == "Q" else 6
        return f"{letter}{number} {year}", year, (number - 1) * months + 1, months
    if season:
        year = int(season[2])
        return f"{season[1].lower()} {year} north of the equator", year, SEASONS[season[1].lower()], 3
    return None


RECENTLY = ("recently", "recent", "lately", "of late", "latest", "the latest", "most recent", "newest", "new")
LAST_WEEK = ("last week", "past week", "the last week", "the past week")
AGO = re.compile(r"(?:(?:the )?(?:last|past) (\d{1,4}) (day|week)s?|(\d{1,4}) (day|week)s? ago)")


def _relative_span(value: str, today) -> tuple | None:
    """The days a relative date ('yesterday', 'this month', 'last year', 'last 7 days', '2 weeks ago', 'last week' as
    the last 7 days) stands for, counted from ``today``: (first, the day after its last or None where it runs to
    now); None for one not read here ('recently')."""
    day = timedelta(days=1)
    monday, month, year = today - today.weekday() * day, today.replace(day=1), today.replace(month=1, day=1)
    quarter = today.replace(month=(today.month - 1) // 3 * 3 + 1, day=1)
    found = AGO.fullmatch(value)
    if found:
        count, unit = (int(found[1]), found[2]) if found[1] else (int(found[3]), found[4])
        return today - count * (7 if unit == "week" else 1) * day, None
    return {"today": (today, today + day), "yesterday": (today - day, today),
            "tomorrow": (today + day, today + 2 * day),
            "this week": (monday, None), "this month": (month, None), "this year": (year, None),
            "last month": ((month - day).replace(day=1), month), "last year": (year.replace(year=year.year - 1), year),
            "this quarter": (quarter, None),
            "last quarter": (quarter.replace(year=quarter.year - (quarter.month == 1),
                                             month=(quarter.month - 4) % 12 + 1), quarter),
            **{said: (today - 7 * day, None) for said in LAST_WEEK}}.get(value)


def _relative(value: str, today, name: str | None) -> str | None:
    """The arguments to give for a relative date ('yesterday': 'for yesterday, give date_after=… and date_before=…',
    'last week' read both ways), counted from ``today``; None for one not read here. Each was refused with today's
    date alone, the counting left to the assistant."""
    after, before, one, given = _pair(name)
    if value in RECENTLY:  # no span of its own: the two an assistant most likely means, to choose from
        return (f"for {value}, say the last 30 days, give {one(after, (today - timedelta(days=30)).isoformat())}; "
                f"the last 7 days, {one(after, (today - timedelta(days=7)).isoformat())}")
    span = _relative_span(value, today)
    if span is None:
        return None
    first, last = (when.isoformat() if when else None for when in span)
    if value in LAST_WEEK:
        monday = today - timedelta(days=today.weekday())
        return (f"for the last 7 days, give {one(after, first)}; for the week before this one, "
                f"{given((monday - timedelta(days=7)).isoformat(), monday.isoformat())}")
    if value.endswith(" ago"):
        return f"that is {first}"
    return f"for {value}, give " + (given(first, last) if last else one(after, first))


# A period or a range given to one argument ('in 2024', 'during 2023', 'between 2023 and 2024', 'from 2024-03 to
# 2024-05', 'until March 2024'): both arguments written out, as each takes one date and date_before leaves out the
# date it names. They were refused with the ISO forms alone, or told 'write it 2024-03' for the first end of a range.
PERIOD = re.compile(r"(?i)(?:in|during|throughout|within|all of)\s+(\S.*)")
RANGE = re.compile(r"(?i)(?:between\s+(\S.*?)\s+and|from\s+(\S.*?)\s+(?:to|until|till|through|thru|-|–))\s+(\S.*)")
UNTIL = re.compile(r"(?i)(?:until|till|up to|up until|through|thru|to)\s+(\S.*)")


def _spanned(value: str, name: str | None) -> str | None:
    """The hint for a period ('in 2024': 'for 2024, give date_after=2024 and date_before=2025 (…)'), a range
    ('between 2023 and 2024', 'from 2024-03 to 2024-05', its last end taken in whole) or an end ('until March 2024':
    date_before 2024-04 to take March in, 2024-03 to stop before it), the arguments named as ``name``'s pair
    ('--date-after 2024 --date-before 2025' on the command line); None for none of these."""
    after = (name or "date_after").replace("before", "after")
    before = after.replace("after", "before")
    one = (lambda arg, when: f"{arg} {when}") if after.startswith("-") else (lambda arg, when: f"{arg}={when}")
    given = (lambda a, b: f"{one(after, a)} {one(before, b)}") if after.startswith("-") else \
        (lambda a, b: f"{one(after, a)} and {one(before, b)}")
    found = RANGE.fullmatch(value)
    if found:
        first, last = _period(found[1] or found[2]), _period(found[3])
        if not first or not last:
            return None
        return (f"from {first[0]} through {last[0]}, give {given(first[0], last[1])} ({before} leaves out the date "
                f"it names: {one(before, last[0])} would leave {last[0]} out)")
    found = PERIOD.fullmatch(value)
    if found:
        period = _period(found[1])
        if not period:
            return iso_hint(found[1].strip(), name)
        return f"for {period[0]}, give {given(*period)} ({before} leaves out the date it names)"
    found = UNTIL.fullmatch(value)
    if found:
        period = _period(found[1])
        if not period:
            return iso_hint(found[1].strip(), name)
        said = f"'{value.split()[0].lower()}' is what {before} means"
        return (f"write it {period[1]}" + (f" as {before}" if before != name else "") +
                f" to take in {period[0]}, or {period[0]} to stop before it ({said})")
    return None


def _period(text: str) -> tuple[str, str] | None:
    """A year, a month or a day (ISO, or as ``iso_hint`` spells it) as its ISO form and the one of the period after
    it: ('2024', '2025'), ('2024-03', '2024-04'), ('2024-03-14', '2024-03-15'); None for anything else."""
    from datetime import date, timedelta
    text = text.strip()
    if not re.fullmatch(r"\d{4}(?:-\d{2}(?:-\d{2})?)?", text):
        hint = iso_hint(text) if not PERIOD.fullmatch(text) and not UNTIL.fullmatch(text) else None
        spelled = re.match(r"write it (\d{4}-\d{2}(?:-\d{2})?)(?: |$)", hint or "")
        if not spelled:
            return None
        text = spelled[1]
    try:
        parts = [int(part) for part in text.split("-")]
        if len(parts) == 1:
            return text, f"{parts[0] + 1:04}"
        if len(parts) == 2:
            date(parts[0], parts[1], 1)
            year, month = (parts[0] + 1, 1) if parts[1] == 12 else (parts[0], parts[1] + 1)
            return text, f"{year:04}-{month:02}"
        return text, (date(*parts) + timedelta(days=1)).isoformat()
    except ValueError:
        return None


def _sided(word: str, rest: str, name: str | None) -> str | None:
    """The hint for a date written after ``word`` ('since 2024'): 'write it 2024 (a year is read as its first day;
    'since' is what date_after means)', naming the other argument of the pair where ``word`` is the other side's
    ('before 2023' given as date_after: 'write it 2023 as date_before')."""
    try:
        datetime.fromisoformat(_whole_date(rest))
        hint = f"write it {rest}" + (" (a year is read as its first day)" if re.fullmatch(r"\d{4}", rest) else
                                     " (a month is read as its first day)" if re.fullmatch(r"\d{4}-\d{2}", rest) else "")
    except ValueError:
        period = _year_part(rest) if name else None
        if period:  # 'since Q3 2024': the one argument the word means, as 'since Q3' (its two ends left out the rest)
            side = SIDES[word]
            meant = name if side in name else name.replace("before" if side == "after" else "after", side)
            return f"'{word} {period[0]}' is {_pair(meant)[2](meant, f'{period[1]:04}-{period[2]:02}')}"
        hint = iso_hint(rest)
    if hint and RELATIVE.search(rest) and name:  # 'since yesterday': the day it counts from, as this one side
        today = datetime.now().date()
        span = _relative_span(rest.lower().strip(), today)
        side = SIDES[word]
        meant = name if side in name else name.replace("before" if side == "after" else "after", side)
        said = f": '{word} {rest}' is {_pair(meant)[2](meant, span[0].isoformat())}" if span else ""
        return hint.split(": ", 1)[0] + said
    if hint is None or not hint.startswith("write it ") or not name:
        return hint
    side = SIDES[word]
    other = "before" if side == "after" else "after"
    meant = name if side in name else name.replace(other, side)
    head, _, tail = hint.partition(" (")
    said = f"'{word}' is what {meant} means"
    return head + (f" as {meant}" if meant != name else "") + f" ({tail[:-1]}; {said})" if tail else \
        head + (f" as {meant}" if meant != name else "") + f" ({said})"


def _spelled(year: int, month: int, day: int | None) -> str | None:
    """'write it 2024-03' (a month: its first day) or 'write it 2024-03-14'; None for no such date."""
    try:
        datetime(year, month, day or 1)
    except ValueError:
        return None
    return f"write it {year:04}-{month:02}" + (f"-{day:02}" if day else " (a month is read as its first day)")


def _whole_date(value: str) -> str:
    """A bare year ('2024') or month ('2024-03') as the first day of it, as both filters read it: 2024 starts
    at 2024-01-01, so modified_after='2024' is from then on and modified_before='2024' up to then; both were
    refused, though ISO 8601 writes a year or a month so and an assistant asked about 'since 2024' gives one."""
    if re.fullmatch(r"\d{4}", value):
        return f"{value}-01-01"
    if re.fullmatch(r"\d{4}-\d{2}", value):
        return f"{value}-01"
    week = ISO_WEEK.fullmatch(value)
    if week:  # Python 3.11's fromisoformat reads one, 3.10's refuses it: both read it so
        from datetime import date
        try:
            return date.fromisocalendar(int(week[1]), int(week[2]), int(week[3] or 1)).isoformat()
        except ValueError:
            return value
    # UTC written 'Z' (as JavaScript's toISOString() and most APIs write it): Python 3.10's fromisoformat, which
    # Sift runs on too, refuses it ('2024-03-14T09:00Z' said 'must be an ISO date-time'); 3.11's takes both
    return re.sub(r"(?<=\d)[Zz]$", "+00:00", value) if ":" in value else value


def empty_range(after: float | None, before: float | None,
                names: tuple[str, str] = ("modified_after", "modified_before")) -> str | None:
    """Why nothing can match ``after`` and ``before`` (unix times), named as the caller takes them (``names``:
    the MCP tool's arguments, or ingest's --modified-after and --modified-before; date_after and date_before
    pick passages, not files: 'no file can match … for the files modified that day' misnamed both); None when
    something can. Times are shown in local time, as they were given: '2024-05' was shown as '2024-04-30
    22:00:00 UTC' two hours east of Greenwich."""
    dated = "date" in names[0]
    what, that_day = ("passage", "the passages about that day") if dated else ("file", "the files modified that day")
    if after is not None and before is not None and after > before:
        return (f"{names[0]} ({shown_time(after)}) is later than {names[1]} ({shown_time(before)}): no {what} "
                "can match; swap them or drop one")
    if after is not None and after == before:  # 'modified on 2024-03-01' asked as the same date twice
        return (f"{names[0]} and {names[1]} are the same moment ({shown_time(after)}), which {names[1]} leaves "
                f"out: no {what} can match; for {that_day}, give {names[1]} the day after ({_next_day(after)})")
    return None


def _next_day(seconds: float) -> str:
    """The local date after the one of ``seconds`` (as modified_before takes it: dates are local time)."""
    from datetime import timedelta
    try:
        return (datetime.fromtimestamp(seconds).date() + timedelta(days=1)).isoformat()
    except (ValueError, OverflowError, OSError):
        return "the next date"


def shown_time(seconds: float) -> str:
    """Local time, as the filters read a date given without a zone and as search's notes show it."""
    from search.index.status import when
    return when(seconds)


MAX_PATTERNS = 64  # the patterns one glob's braces and '**/' make, at most


def glob_matcher(glob: str):
    """path → whether the shell pattern matches it (or, for a pattern without '/', its file name). Its Chinese
    matches in either script (Simplified, Traditional), as path_prefix and the query's words do: '臨床/*.md' matched
    nothing in the folder 临床/, nor '*隨訪*' the note 高血压随访.md."""
    patterns = [re.compile(fnmatch.translate(p)) for p in _patterns(_one_script(glob))]
    bare = "/" not in glob

    def match(path: str) -> bool:
        path = path if path.isascii() else _one_script(path)
        name = path.rsplit("/", 1)[-1]
        return any(p.match(path) or (bare and p.match(name)) for p in patterns)
    return match


def _one_script(text: str) -> str:
    """``text`` in NFC, its Traditional Chinese characters in their Simplified forms (search.query.text.simplified)."""
    if text.isascii():
        return text
    from search.query.text import simplified
    return simplified(unicodedata.normalize("NFC", text))


def file_glob(path: str) -> str | None:
    """A glob that matches the file at ``path`` (relative to its root), to search it alone: its wildcards and
    brackets written as one-character classes ('a[1].md' as 'a[[]1].md'). None for a name with a brace, which
    the expansion of '{md,py}' would read (no escape reaches it), or a leading './'. A file at the root is
    './Index.md': a pattern without '/' matches that name in any folder, and the search that was to show one
    file's passages showed every Index.md's, two passages each."""
    if "{" in path or "}" in path or path.startswith("./"):
        return None
    return ("" if "/" in path else "./") + re.sub(r"([*?\[])", r"[\1]", path)


def _patterns(glob: str) -> list[str]:
    """The fnmatch patterns a shell glob stands for: braces expanded ('*.{md,py}'), '**/' also matching no folder
    at all ('tech/**/*.md' holds tech/a.md, as in a shell's globstar and .gitignore), a leading './' dropped.
    fnmatch knows none of these: such globs matched nothing, with no note saying why."""
    while glob.startswith("./"):
        glob = glob[2:]
    done, todo = [], [glob]
    while todo and len(done) + len(todo) <= MAX_PATTERNS:
        pattern = todo.pop()
        brace = re.search(r"\{([^{}]*,[^{}]*)\}", pattern)
        if brace:
            todo += [pattern[:brace.start()] + part + pattern[brace.end():] for part in brace.group(1).split(",")]
        else:
            done.append(pattern)
    done += todo  # past the limit: the rest as written
    return sorted({p for d in done for p in _globstar(d)})[:MAX_PATTERNS]


def glob_literals(glob: str) -> list[tuple[str, str, tuple[str, ...]]] | None:
    """For each pattern ``glob`` stands for, what its literal text says a matching path holds: the text it begins
    with, the text it ends with and pieces it contains ('tech/**/*.md': begins 'tech/', ends '.md';
    '**/note-*1234*.md' as 'note-*1234*.md': begins 'note-', holds '1234'; a pattern without '/' begins nowhere
    in particular, as its name may lie in any folder). Kept to ASCII: a path in ASCII is its own NFC form, so
    these compare with it as written; any other path is for ``glob_matcher`` to read. None when a pattern says
    nothing ('*'): any path may match it."""
    bare = "/" not in glob
    literals = []
    for pattern in _patterns(unicodedata.normalize("NFC", glob)):
        head = "" if bare else _ascii_runs(re.split(r"[*?\[\]]", pattern, maxsplit=1)[0], "head")
        tail = _ascii_runs(re.split(r"[*?\[\]]", pattern)[-1], "tail")
        inner = tuple(sorted({run for piece in _literal_pieces(pattern) for run in _ascii_runs(piece)
                              if len(run) > 1} - {head, tail}))
        if not (head or tail or inner):
            return None
        literals.append((head, tail, inner))
    return sorted(set(literals))


def _literal_pieces(pattern: str) -> list[str]:
    """The runs of ``pattern`` a match holds as written: between wildcards, outside any [...] (a bracket and
    what is between two of them is dropped, whether it makes a class or not)."""
    pieces = []
    for part in re.split(r"[*?]", pattern):
        pieces += [re.split(r"[\[\]]", part, maxsplit=1)[0], re.split(r"[\[\]]", part)[-1]]
    return [p for p in pieces if p]


def _ascii_runs(text: str, end: str | None = None):
    """The ASCII runs of ``text``; ``end`` 'head' or 'tail': the one it begins or ends with ('' if none)."""
    if end == "head":
        return re.match(r"[\x00-\x7f]*", text).group()
    if end == "tail":
        return re.search(r"[\x00-\x7f]*\Z", text).group()
    return re.findall(r"[\x00-\x7f]+", text)


def _globstar(pattern: str) -> set[str]:
    """``pattern`` and the patterns it makes with any of its '**/' taken out."""
    out = {pattern}
    for _ in range(min(pattern.count("**/"), 4)):
        out |= {p[:m.start()] + p[m.end():] for p in out for m in re.finditer(r"\*\*/", p)}
    return out


def path_match(conn, path_prefix: str | None, glob: str | None, function: str) -> tuple[str, dict]:
    """The SQL condition on a ``{path}`` that the folder and the pattern make, with its named parameters, for
    ``conn`` (given the comparison ``sift_in_folder`` and the glob's match as ``function``): SQLite checks the
    literal text first, the Python comparison decides. list_files and keyword search from FTS5 both use it."""
    params, match = {}, []
    if path_prefix:
        register_in_folder(conn)
        match.append(f"CASE WHEN {_folder_narrowed(path_prefix, params)} THEN sift_in_folder({{path}}, :folder) "
                     "ELSE 0 END")
        params["folder"] = path_prefix
    if glob:
        conn.create_function(function, 1, glob_matcher(glob), deterministic=True)
        match.append(f"CASE WHEN {_glob_narrowed(glob, params)} THEN {function}({{path}}) ELSE 0 END")
    return " AND ".join(match) or "1", params


def _folder_narrowed(folder: str, params: dict) -> str:
    """A condition SQLite checks itself before the folder's Python comparison is called: a path in ASCII that is
    the folder or begins with it and '/' (any other path goes to the comparison, which reads it in NFC; a folder
    not in ASCII is left to it whole). sift_in_folder was called on every path: path_prefix='area-042' took
    182 ms at 200,000 files, now 75 ms (1,000 paths compared in Python)."""
    if not folder.isascii():
        return "1"
    params["folder_slash"] = folder + "/"
    return (f"length(CAST({{path}} AS BLOB)) > length({{path}}) OR {{path}} = :folder "
            f"OR substr({{path}}, 1, {len(folder) + 1}) = :folder_slash")


def _glob_narrowed(glob: str, params: dict) -> str:
    """A condition SQLite checks itself before the glob's Python match is called (CASE: only where it holds):
    what the pattern's literal text says a path begins with, ends with and holds (filters.glob_literals), for a
    path in ASCII; any other path goes to the Python match, which reads it in NFC. The match was called on every
    path: '**/note-*1234*.md' took 476-700 ms at 200,000 files, now 86 ms (140 paths matched in Python)."""
    literals = glob_literals(glob)
    if literals is None:
        return "1"
    either = []
    for i, (head, tail, inner) in enumerate(literals):
        every = []
        if head:
            params[f"glob_head{i}"] = head
            every.append(f"substr({{path}}, 1, {len(head)}) = :glob_head{i}")
        if tail:
            params[f"glob_tail{i}"] = tail
            every.append(f"substr({{path}}, -{len(tail)}) = :glob_tail{i}")
        for j, piece in enumerate(inner):
            params[f"glob_in{i}_{j}"] = piece
            every.append(f"instr({{path}}, :glob_in{i}_{j}) > 0")
        either.append(" AND ".join(every))
    return f"length(CAST({{path}} AS BLOB)) > length({{path}}) OR " + " OR ".join(f"({e})" for e in either)


def _nfc(text: str) -> str:
    return text if text.isascii() else unicodedata.normalize("NFC", text)


MAX_TAGS = 16  # tags one filter may ask for


def wanted_tags(given) -> tuple[str, ...]:
    """The tags a filter asks for, as the index keeps them (search.index.names.tag_names: '#Recipe' is 'recipe',
    '#project/sift' 'project/sift'), each once, in order; ValueError for a blank one or too many."""
    from search.index.names import tag_names
    given = [given] if isinstance(given, str) else list(given)
    if len(given) > MAX_TAGS:
        raise ValueError(f"tags takes at most {MAX_TAGS} tags, not {len(given)}")
    names = []
    for tag in given:
        name = sorted(tag_names([tag])) if isinstance(tag, str) else []
        if not name:
            raise ValueError(f"tags must be tag names like 'recipe', '#recipe' or 'project/sift', not {tag!r}")
        names += name
    return tuple(dict.fromkeys(names))


@dataclass(frozen=True)
class Filters:
    collection: str | None = None
    path_prefix: str | None = None  # a folder relative to the collection root, e.g. "clients" or "工作/日报/"
    kind: str | None = None
    modified_after: float | None = None  # unix time
    modified_before: float | None = None
    glob: str | None = None  # a shell pattern on the path relative to the root ('*.py', 'src/**/*.{ts,tsx}')
    date_after: float | None = None  # unix time: the passage's own date, else its file's mtime
    date_before: float | None = None
    tags: tuple[str, ...] = ()  # passages carrying every one of these tags, or one nested in each (``wanted_tags``)
    author: str | None = None  # passages by this author: their file's, a mail's sender (search.query.authors)

    def __post_init__(self):
        if self.kind is not None and self.kind not in KINDS:
            raise ValueError(f"kind must be one of {', '.join(KINDS)}, not {self.kind!r}")
        if self.tags:
            object.__setattr__(self, "tags", wanted_tags(self.tags))
        if isinstance(self.path_prefix, str):
            object.__setattr__(self, "path_prefix", folder_prefix(self.path_prefix))
        if self.author is not None:
            from search.query.authors import wanted
            object.__setattr__(self, "author", wanted(self.author))

    def sql(self, conn) -> tuple[str, dict]:
        """A WHERE fragment over chunks ch, files f and collections c, with its named parameters, for ``conn``
        (which gets the functions it may call: the folder and the glob as list_files checks them, ``path_match``). The
        glob's match and the folder's comparison were called on every passage FTS5 found: 112,000 for 'invoice'
        at 200,000 chunks."""
        parts, params = [], {}
        if self.collection:
            parts.append("c.name = :collection")
            params["collection"] = self.collection
        if self.kind == MAIL:
            conn.create_function("sift_is_mail", 2, is_mail_file, deterministic=True)
            parts.append("f.kind = 'note' AND sift_is_mail(f.path, f.kind)")
        elif self.kind:
            parts.append("f.kind = :kind")
            params["kind"] = self.kind
        if self.modified_after is not None:
            parts.append("f.mtime >= :modified_after")
            params["modified_after"] = self.modified_after
        if self.modified_before is not None:
            parts.append("f.mtime < :modified_before")
            params["modified_before"] = self.modified_before
        if self.date_after is not None or self.date_before is not None:
            from search.index.catalog_reads import passage_dates_kept
            when = "coalesce(ch.dated, f.mtime)" if passage_dates_kept(conn) else "f.mtime"
            if self.date_after is not None:
                parts.append(f"{when} >= :date_after")
                params["date_after"] = self.date_after
            if self.date_before is not None:
                parts.append(f"{when} < :date_before")
                params["date_before"] = self.date_before
        if self.path_prefix or self.glob:
            match, named = path_match(conn, self.path_prefix, self.glob, "sift_search_glob")
            parts.append(match.format(path="f.path"))
            params.update(named)
        if self.tags:
            from search.index.tag_reads import tag_condition, tag_params
            parts.append(tag_condition(conn, self.tags))
            params.update(tag_params(self.tags))
        if self.author:
            from search.query.authors import condition
            by, named = condition(conn, self.author)
            parts.append(by)
            params.update(named)
        return (" AND " + " AND ".join(parts)) if parts else "", params
