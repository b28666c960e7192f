"""The date a file's passages are about, where the file says one: search's date_after / date_before go by it.

A mailbox of ten years was modified last week, a daily note edited yesterday: their files' mtimes say nothing of
when what they hold happened. A passage's date is, in order:

- its section's own (``Section.dated``): a mail message's Date (ingest.mail), an org headline's timestamp
  (ingest.org), a note's heading that is a date or begins with one, a running log's (``## 2024-03-14``, ``## Thu 14
  March 2024``, ``### 14.03.2024``, ``# 2024-03-14 Standup``, ``## 2024年3月14日``; a month alone, ``## March
  2024``, its first day), for the sections under it too (``date_sections``);
- its note's front matter ``date:`` (what the note is about, as a blog post or a meeting note writes it), an org
  file's ``#+DATE:``;
- a date its file's name holds: a daily note (Obsidian's ``2024-03-14.md``, ``2024-03-14 Thursday.md``, Logseq's
  ``journals/2024_03_14.md``, ``20240314.md``), a meeting named by its day (``Standup 2024-03-14.md``);
- else a date its folders make with its name: ``journal/2024/03/14.md``, ``journal/2024/03-14.md``,
  ``journal/2024/March/14.md``, ``2024/03/14/post/index.md``, ``2024-03-14/notes.md``; or a month folder's first
  day (``2024/2024-03 March/notes.md``, ``2024/03/notes.md``, ``2024/March/notes.md``, ``2024/Mar/notes.md``): a
  note filed under March is about March, and ``date_after=2024-03, date_before=2024-04`` finds it (a day range
  inside the month does not). A year folder alone (``2024/notes.md``) gives none: a year is a project's or an
  archive's name as often as a date. The innermost folder that says one wins;
- its front matter ``created:`` (when the note was written, where nothing says what it is about), or a document's
  created date (``meta["created"]``: a Word, PowerPoint, Excel or OpenDocument file's properties, an EPUB's
  ``dc:date``, a PDF's CreationDate). The program stamped it (a copied report keeps its original's, a downloaded
  PDF may carry the day it was downloaded): a name or a folder, which the person chose, comes first;
- else none: search goes by the file's modified time.

A name's date is one that stands apart in it, a real day of the years 1900-2099 (1970 to next year written as
eight digits: ``20491205.md`` is an id): ``v2024-03-14``, ``build-20240314.2``, a 12- or 14-digit id
(Zettelkasten's ``202403141230 Note``, a migration's ``20240314093000_add_users``) and ``2024-13-01`` are none.
Code files get none from their names (a migration's or a release's date is an id there). Dates are local midnight,
as search's date arguments read a date.
"""
from __future__ import annotations

import re
import unicodedata
from datetime import date, datetime

from ingest.document import Document

# a date standing apart in a file name: not after a letter, digit or dot ('v2024-03-14', '1.2024.03.14'), not before
# a digit or a dot and a digit ('20240314123000', '2024-03-14.2'); separated by '-', '_' or '.' alike, or written
# without separators (eight digits)
NAME_DATE = re.compile(r"(?<![A-Za-z0-9.])(?:(?P<year>(?:19|20)\d\d)(?P<sep>[-_.])(?P<month>\d\d)(?P=sep)(?P<day>\d\d)"
                       r"|(?P<cyear>(?:19|20)\d\d)(?P<cmonth>\d\d)(?P<cday>\d\d))(?![0-9]|\.[0-9])")
# the parts of a date its folders make: a year folder ('2024'), a month folder ('03', '3', '03 March', '03-March'),
# a day ('14', '14 Thursday'), a month and day ('03-14', '03_14 Thursday'), a month folder by its year ('2024-03',
# '2024-03 March', '2024_03')
YEAR = re.compile(r"(?:19|20)\d\d")
MONTH = re.compile(r"(0?[1-9]|1[0-2])(?:[ _-]+[^\W\d_]+)?")
DAY = re.compile(r"(0?[1-9]|[12]\d|3[01])(?:[ _-]+[^\W\d_]+)?")
MONTH_DAY = re.compile(r"(0[1-9]|1[0-2])[-_.]?(0[1-9]|[12]\d|3[01])(?:[ _-]+[^\W\d_]+)?")
YEAR_MONTH = re.compile(r"((?:19|20)\d\d)[-_.](0[1-9]|1[0-2])(?:[ _-]+[^\W\d_]+)?")
# A date written without separators ('20240314') is one of these years or none: a collection of files named by a
# number (SciFact's PubMed ids) had 10 of 5183 dated, 2033-05-19, 2049-12-05 and 1914-04-22 among them (2 now)
COMPACT_FIRST = 1970
# front matter's date: an ISO date, with a time after it or not ('2023-05-01', '2023-05-01 10:00', '2023-05-01T10:00')
META_DATE = re.compile(r"\s*(\d{4})-(\d{1,2})-(\d{1,2})(?:[T ](\d{1,2}):(\d{2})(?::(\d{2}))?)?")


# month names as headings and folders write them: English (full, three letters, 'Sept'), German, French, Spanish
MONTH_NAMES = {name: number for number, names in enumerate((
    "january jan januar janvier enero", "february feb februar février fevrier febrero",
    "march mar märz maerz mars marzo", "april apr avril abril", "may mai mayo", "june jun juni juin junio",
    "july jul juli juillet julio", "august aug août aout agosto",
    "september sep sept septembre septiembre", "october oct oktober octobre octubre",
    "november nov novembre noviembre", "december dec dezember décembre decembre diciembre"), 1)
    for name in names.split()}
_NAME = r"(?P<{}>[^\W\d_]{{3,10}})\.?"  # a month's name, 'Mar.' as 'Mar'
_DAY = r"(?P<{}>0?[1-9]|[12]\d|3[01])(?:st|nd|rd|th|\.)?"  # '14', '14th', German '14.'
_YEAR = r"(?P<{}>(?:19|20)\d\d)"
# a weekday's name before a date, in those languages: 'Thu', 'Thursday', German 'Do', 'Donnerstag', 'jeudi', 'jueves'
WEEKDAY = (r"(?:(?:mon|tue|tues|wed|thu|thur|thurs|fri|sat|sun)(?:day|sday|nesday|rsday|urday)?|mo|di|mi|do|fr|sa|so|"
           r"montag|dienstag|mittwoch|donnerstag|freitag|samstag|sonntag|lundi|mardi|mercredi|jeudi|vendredi|samedi|"
           r"dimanche|lunes|martes|mi[eé]rcoles|jueves|viernes|s[aá]bado|domingo)")
# a heading that is a date or starts with one, after a weekday ('Thu', 'Thursday,') where it names one: ISO
# '2024-03-14' (or '/', '.', '_'), '14.03.2024', '14 March 2024', 'March 14, 2024', Logseq's 'Mar 14th, 2024',
# '14 de marzo de 2024', '2024年3月14日'; not followed by a letter or digit ('2024-03-141', '2024-03-14-2', a
# version '2024.03.14.1'), but a time ('2024-03-14T10:00')
HEADING_DATE = re.compile(
    r"[^\w\s]*\s*(?:" + WEEKDAY + r"\.?,?\s+)?"
    r"(?:" + _YEAR.format("y1") + r"(?P<s1>[-/._])(?P<m1>0?[1-9]|1[0-2])(?P=s1)(?P<d1>0?[1-9]|[12]\d|3[01])"
    r"|(?P<d2>0?[1-9]|[12]\d|3[01])\.(?P<m2>0?[1-9]|1[0-2])\." + _YEAR.format("y2") +
    r"|" + _DAY.format("d3") + r"[ -](?:de )?" + _NAME.format("n3") + r",?[ -](?:de )?" + _YEAR.format("y3") +
    r"|" + _NAME.format("n4") + r" " + _DAY.format("d4") + r",? " + _YEAR.format("y4") +
    r"|" + _YEAR.format("y5") + r"\s*年\s*(?P<m5>0?[1-9]|1[0-2])\s*月\s*(?P<d5>0?[1-9]|[12]\d|3[01])\s*[日号號]"
    r")(?!(?!T\d)[^\W_]|[-/.]\d)", re.IGNORECASE)
# a heading that is a month alone: '2024-03', an org datetree's '2024-03 March', 'March 2024', '2024年3月': its
# sections are about the month's first day
HEADING_MONTH = re.compile(
    r"[^\w\s]*\s*(?:" + _YEAR.format("y1") + r"-(?P<m1>0[1-9]|1[0-2])(?: (?P<w1>[^\W\d_]{3,10}))?|" + _NAME.format("n2") + r",? "
    + _YEAR.format("y2") + r"|" + _YEAR.format("y3") + r"\s*年\s*(?P<m3>0?[1-9]|1[0-2])\s*月)[^\w\s]*",
    re.IGNORECASE)


def document_date(path: str, doc: Document) -> float | None:
    """The date (unix time) the passages of ``doc``, read from the file at ``path``, are about where their own
    sections say none: front matter's date, the file name's, front matter's created; None: none said."""
    meta = doc.meta if isinstance(doc.meta, dict) else {}
    for found in (meta_date(meta.get("date")), None if doc.kind == "code" else name_date(path) or folder_date(path),
                  meta_date(meta.get("created"))):
        if found is not None:
            return found
    return None


def date_sections(doc: Document) -> None:
    """Each section of a note without a date of its own (a mail message's, an org headline's) under a heading
    that is a date (a running log's ``## 2024-03-14``, ``## Thu 14 March 2024``, ``### 14.03.2024``, ``# 2024-03-14
    Standup``, ``## 2024年3月14日``), or a month alone (``## March 2024``), the innermost such heading of its
    heading path, is dated by it (Section.dated: before front matter's date and the file's name), as an org
    headline's timestamp dates its section. A date inside a heading's words (``## Notes from 2024-03-14``) is none."""
    if doc.kind != "note":
        return
    read: dict[str, float | None] = {}  # a heading's date, read once: the sections under it all hold it
    for section in doc.sections:
        if section.dated is None:
            for heading in reversed(section.heading_path or []):
                if heading not in read:
                    read[heading] = heading_date(heading)
                if read[heading] is not None:
                    section.dated = read[heading]
                    break


def heading_date(heading: str) -> float | None:
    """The date (local midnight) a heading is or begins with (``2024-03-14 Standup``, ``Thursday, March 14, 2024``,
    ``[[2024-03-14]]``), a month's first day for a heading that is a month alone (``March 2024``); None."""
    if not any(c.isdigit() for c in heading[:200]):  # most headings: none holds a year
        return None
    heading = unicodedata.normalize("NFKC", heading.strip()[:200])  # full-width '２０２４年３月１４日' too
    found = HEADING_DATE.match(heading)
    if found:
        at = next(i for i in "12345" if found["y" + i])
        month = found.groupdict().get("m" + at) or found.groupdict().get("n" + at)
        month = MONTH_NAMES.get(month.lower()) if not month.isdigit() else int(month)
        return _day(int(found["y" + at]), month, int(found["d" + at])) if month else None
    found = HEADING_MONTH.fullmatch(heading)
    if found and (not found["w1"] or found["w1"].lower() in MONTH_NAMES):  # '2024-03 March', not '2024-03 budget'
        at = next(i for i in "123" if found["y" + i])
        month = found.groupdict().get("m" + at) or found.groupdict().get("n" + at)
        month = MONTH_NAMES.get(month.lower()) if not month.isdigit() else int(month)
        return _day(int(found["y" + at]), month, 1) if month else None
    return None


def name_date(path: str) -> float | None:
    """The date the file name of ``path`` (its last part, without its extension) holds standing apart; None."""
    name = path.rsplit("/", 1)[-1]
    stem = name.rsplit(".", 1)[0] if "." in name.lstrip(".") else name
    for found in NAME_DATE.finditer(stem):
        year, month, day = (found["year"], found["month"], found["day"]) if found["year"] else \
            (found["cyear"], found["cmonth"], found["cday"])
        if not found["year"] and not COMPACT_FIRST <= int(year) <= datetime.now().year + 1:
            continue  # eight digits of another year are an id: a PubMed article's '20491205.md', '19460822.md'
        when = _day(int(year), int(month), int(day))
        if when is not None:
            return when
    return None


def folder_date(path: str) -> float | None:
    """The date the folders of ``path`` make with its name (its last part, without its extension), the innermost
    that says one: a day (``2024/03/14.md``, ``2024/03-14.md``, ``2024/03/14/x.md``, ``2024-03-14/x.md``), else a
    month's first day (``2024-03 March/x.md``, ``2024/03/x.md``, ``2024/March/x.md``, ``2024/Mar/x.md``); None."""
    parts = path.split("/")
    name = parts[-1]
    parts[-1] = name.rsplit(".", 1)[0] if "." in name.lstrip(".") else name
    for at in range(len(parts) - 1, -1, -1):
        part, when = parts[at], None
        if at < len(parts) - 1 and NAME_DATE.fullmatch(part.split(" ", 1)[0]):  # a folder named by its day
            when = name_date(part + ".d")
        found = DAY.fullmatch(part)
        if found and at >= 2 and YEAR.fullmatch(parts[at - 2]) and _month(parts[at - 1]):  # 2024/03/14, 2024/March/14
            when = when or _day(int(parts[at - 2]), _month(parts[at - 1]), int(found[1]))
        found = MONTH_DAY.fullmatch(part)
        if found and at >= 1 and YEAR.fullmatch(parts[at - 1]):  # 2024/03-14
            when = when or _day(int(parts[at - 1]), int(found[1]), int(found[2]))
        if when is not None:
            return when
    for at in range(len(parts) - 2, -1, -1):  # no day: a month folder's first day
        found = YEAR_MONTH.fullmatch(parts[at])
        if found:
            return _day(int(found[1]), int(found[2]), 1)
        if at >= 1 and YEAR.fullmatch(parts[at - 1]) and _month(parts[at]):
            return _day(int(parts[at - 1]), _month(parts[at]), 1)
    return None


def _month(part: str) -> int | None:
    """The month a folder under a year's names: '03', '3', '03 March', '03 - March', 'March', 'Mar', 'march'; None."""
    found = MONTH.fullmatch(part)
    return int(found[1]) if found else MONTH_NAMES.get(part.strip().lower())


def property_date(text: str | None) -> str:
    """A document property's date (docProps/core.xml's ``dcterms:created``, meta.xml's ``meta:creation-date``, an
    EPUB's ``dc:date``: W3C forms, '2024-03-14T09:12:00Z', '2024-03', '2024') as front matter writes one, what
    ``meta_date`` reads: a year or a month alone is its first day; '' for none or anything else."""
    text = (text or "").strip()
    found = re.fullmatch(r"((?:19|20)\d\d)(?:-(\d\d))?", text)
    if found:
        return f"{found[1]}-{found[2] or '01'}-01"
    text = re.sub(r"(:\d\d)\.\d+", r"\1", text)  # LibreOffice's nanoseconds: whole seconds, as the catalog keeps
    return text.replace("Z", "+00:00") if META_DATE.match(text) else ""


def meta_date(value) -> float | None:
    """Front matter's date (text as ingest.markdown keeps it) as unix time; None for none or anything else."""
    if not isinstance(value, str):
        return None
    try:  # with its zone where it names one ('2023-05-01T10:00:00+02:00'), else local time
        return moment(datetime.fromisoformat(value.strip())) if META_DATE.match(value) else None
    except ValueError:
        pass
    found = META_DATE.match(value)
    if not found:
        return None
    year, month, day, hour, minute, second = (int(g) if g else 0 for g in found.groups())
    try:
        return datetime(year, month, day, hour, minute, second).timestamp()
    except (ValueError, OverflowError, OSError):
        return None


def moment(when: datetime | None) -> float | None:
    """A datetime (a mail's Date: with its zone, or local time without one) as unix time; None for none."""
    if when is None:
        return None
    try:
        return when.timestamp()
    except (ValueError, OverflowError, OSError):
        return None


def shown(when: float | None) -> str | None:
    """A passage's date as a hit shows it: local time to the second ('2024-03-05 09:12:00'), a date alone where it is
    one (a daily note's, front matter's: local midnight), not '2024-03-14 00:00:00'; None for none."""
    if when is None:
        return None
    try:
        moment_ = datetime.fromtimestamp(when)
    except (ValueError, OverflowError, OSError):
        return f"{when:.0f} s since 1970"
    return moment_.date().isoformat() if moment_.time() == datetime.min.time() else \
        moment_.isoformat(sep=" ", timespec="seconds")


def span(dates: list[float] | None) -> str | None:
    """The dates a file listed by a date range is about within it (search.query.listing), as a hit shows one:
    '2024-03-14', or '2024-03-06 07:30:00 … 2024-03-29 07:30:00' for a mailbox's messages; None for none."""
    return " … ".join(shown(when) for when in dates) if dates else None


def _day(year: int, month: int, day: int) -> float | None:
    try:
        return datetime.combine(date(year, month, day), datetime.min.time()).timestamp()
    except (ValueError, OverflowError, OSError):
        return None
