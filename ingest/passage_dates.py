"""The date a file's passages are about, where the file says one: search's date_after / date_before go by it.

A mailbox of ten years was modified last week, a daily note edited yesterday: their files' mtimes say nothing of
when what they hold happened. A passage's date is, in order:

- its section's own (``Section.dated``): a mail message's Date (ingest.mail), an org headline's timestamp
  (ingest.org), a note's heading that is a date or begins with one, a running log's (``## 2024-03-14``, ``## Thu 14
  March 2024``, ``### 14.03.2024``, ``# 2024-03-14 Standup``, ``## 2024年3月14日``; a month alone, ``## March
  2024``, its first day; Italian, Portuguese, Dutch, Russian, Korean ones, ``## 14/03/2024``; a day without its
  year, ``## Mon 14 March`` or ``# 2024`` / ``## March`` / ``### 14``, German ``## 14.03.``, with the year of a
  heading over it, of its file's name or of a folder; ``## 14-03-2024``, ``## 14 mrt 2024``, ``## 14 févr. 2024``;
  written short, ``## 14.03.24``, ``## Tue 5/14``, ``## KW 10``: ingest.short_dates), for the sections under it too
  (``date_sections``);
- its note's front matter ``date:`` (what the note is about, as a blog post or a meeting note writes it: ISO or
  ``May 1, 2023``, ``01.05.2023``, ``1er mai 2023``, ``1º de maio de 2023``, ``1.º de maio de 2023``, ``1ª de mayo
  del 2023``, ``14.März 2024``, ``written_date``; ingest.markdown reads
  ``Date:`` and ``published:`` as it), an org file's ``#+DATE:`` (the same forms, or an org timestamp);
- a date its file's name holds: a daily note (Obsidian's ``2024-03-14.md``, ``2024-03-14 Thursday.md``, Logseq's
  ``journals/2024_03_14.md``, ``20240314.md``, ``14-03-2024.md``, ``March 14, 2024.md``), a meeting named by its day
  (``Standup 2024-03-14.md``), a Zettelkasten id to the minute (``202403141530 Title.md``); a periodic note's
  first day: a month's ``2024-03.md``, a week's ``2024-W10.md`` (its Monday), a quarter's ``2024-Q1.md``;
- else a date its folders make with its name: ``journal/2024/03/14.md``, ``journal/2024/03-14.md``,
  ``journal/2024/March/14.md``, ``2024/03/14/post/index.md``, ``2024-03-14/notes.md``, ``March 14, 2024/notes.md``,
  ``2024/March 14/notes.md``; or a month folder's first
  day (``2024/2024-03 March/notes.md``, ``2024/03/notes.md``, ``2024/March/notes.md``, ``2024/Mar/notes.md``): a
  note filed under March is about March, and ``date_after=2024-03, date_before=2024-04`` finds it (a day range
  inside the month does not). A year folder alone (``2024/notes.md``) gives none: a year is a project's or an
  archive's name as often as a date. The innermost folder that says one wins;
- its front matter ``created:`` (when the note was written, where nothing says what it is about; ``created_at:``,
  ``creation date:`` as it; never ``updated:`` nor ``modified:``), or a document's
  created date (``meta["created"]``: a Word, PowerPoint, Excel or OpenDocument file's properties, an EPUB's
  ``dc:date``, a PDF's CreationDate). The program stamped it (a copied report keeps its original's, a downloaded
  PDF may carry the day it was downloaded): a name or a folder, which the person chose, comes first;
- else none: search goes by the file's modified time.

A name's date is one that stands apart in it, a real day of the years 1900-2099 (1970 to next year written as
eight digits, or 12 or 14 with a real time where they begin the name, as a Zettelkasten id: ``20491205.md`` is an id,
``Invoice 202403141530.pdf`` an order's number): ``v2024-03-14``, ``build-20240314.2``, ``2024-13-01``,
``03-04-2024`` (which is the month?) are none; a day first begins the name, after French ``le`` or a weekday's name
or not (``le 1er mai 2023.md``, ``lundi 1er mai 2023.md``; ``Top 10 May 2023 picks.md`` is none).
Code files get none from their names (a migration's or a release's date is an id there). Dates are local midnight,
as search's date arguments read a date.
"""
from __future__ import annotations

import re
import unicodedata
from datetime import date, datetime, timedelta

from ingest.document import Document

# a date standing apart in a file name: not after a letter, digit or dot ('v2024-03-14', '1.2024.03.14'), not before
# a digit or a dot and a digit ('2024031412300', '2024-03-14.2'); separated by '-', '_' or '.' alike, or written
# without separators (eight digits, or a Zettelkasten id's twelve or fourteen to the minute or second: '202403141530
# Title'), or day first ('14-03-2024', '14.03.2024': which of two numbers of 12 or less is the day, a dot tells, as
# a dotted heading's; a dash or '_' does not: '03-04-2024' is none)
NAME_DATE = re.compile(r"(?<![A-Za-z0-9.])(?:(?P<year>(?:19|20)\d\d)(?P<sep>[-_.])(?P<month>\d\d)(?P=sep)(?P<day>\d\d)"
                       r"|(?P<cyear>(?:19|20)\d\d)(?P<cmonth>\d\d)(?P<cday>\d\d)"
                       r"(?:(?P<chour>[01]\d|2[0-3])(?P<cminute>[0-5]\d)(?P<csecond>[0-5]\d)?)?"
                       r"|(?P<first>\d\d)(?P<dsep>[-_.])(?P<second>\d\d)(?P=dsep)(?P<dyear>(?:19|20)\d\d))"
                       r"(?![0-9]|\.[0-9])")
# a date with its month's name standing apart in a file name: 'March 14, 2024', '14 March 2024', 'Mar 14th 2024',
# '14 févr. 2024', '14-mrt-2024', '14_March_2024' (the month's name one of MONTH_NAMES, not a word as often, 'set'; a
# day first only where it begins the name: 'Top 10 May 2023 picks' is none)
NAME_WORDS = None  # set below, after the month names and the parts of a heading's date
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
# a time after a date written otherwise ('May 1, 2023 14:32', '1 May 2023, 2:32 pm', '2023/05/01T14:32:00')
TIME_AFTER = re.compile(r"(?:,?\s+(?:at\s+)?|T)(\d{1,2}):(\d\d)(?::(\d\d))?(?:\s*([ap]\.?m\.?))?\s*", re.IGNORECASE)
# an org timestamp, active or inactive, as #+DATE: and front matter pasted from org write one ('<2023-05-01 Mon>',
# '[2023-05-01 Mon 10:00]')
ORG_STAMP = re.compile(r"^[<\[]([^<>\[\]]*)[>\]]$")
META_DATE = re.compile(r"\s*(\d{4})-(\d{1,2})-(\d{1,2})(?:[T ](\d{1,2}):(\d{2})(?::(\d{2}))?)?")


# month names as headings and folders write them: English (full, three letters, 'Sept'), German, French, Spanish,
# Italian, Portuguese, Dutch, Russian (as a date writes it, '14 марта', and alone, 'Март')
MONTH_NAMES = {name: number for number, names in enumerate((
    "january jan januar jänner janvier enero gennaio janeiro januari январь января",
    "february feb februar feber février fevrier febrero febbraio fevereiro februari февраль февраля",
    "march mar märz maerz mars marzo março maart март марта",
    "april apr avril abril aprile апрель апреля", "may mai mayo maggio maio mei май мая",
    "june jun juni juin junio giugno junho июнь июня", "july jul juli juillet julio luglio julho июль июля",
    "august aug août aout agosto augustus август августа",
    "september sep sept septembre septiembre setiembre settembre setembro сентябрь сентября",
    "october oct oktober octobre octubre ottobre outubro октябрь октября",
    "november nov novembre noviembre novembro ноябрь ноября",
    "december dec dezember décembre decembre diciembre dicembre dezembro декабрь декабря"), 1)
    for name in names.split()}
# their abbreviations, as a date with its day writes them ('14 févr. 2024', '14 mrt 2024', '14 gen 2024', 'Jan. 14'):
# French, Dutch, Italian, Spanish, Portuguese, German, Russian; none names two months
MONTH_SHORT = {name: number for number, names in enumerate((
    "janv ene gen jän", "févr fevr fév fev", "mrt mrz mär", "avr abr", "mag", "giu", "juil lug",
    "ago", "set сен сент", "okt ott out", "ноя", "déc dez dic"), 1) for name in names.split()}
MONTH_SHORT.update({name: number for number, names in enumerate((
    "янв", "фев", "мар", "апр", "", "июн", "июл", "авг", "", "окт", "", "дек"), 1) for name in names.split()})
MONTH_NAMES.update(MONTH_SHORT)
# the abbreviations that are words as often ('set', 'out', 'ago', 'gen', 'mag', 'dic'): a date only with its year
MONTH_WORDLIKE = {"set", "out", "ago", "gen", "mag", "dic", "ene"}
# a heading that is a month's name alone ('## March' under '# 2024'): its full name, as a person or a planet may be
# called 'Jan' or 'Mars'
MONTH_WORDS = set(MONTH_NAMES) - set(MONTH_SHORT) - set("jan feb mar apr jun jul aug sep sept oct nov dec mars maerz".split())
_NAME = r"(?P<{}>[^\W\d_]{{3,10}})\.?"  # a month's name, 'Mar.' as 'Mar'
# '14', '14th', German '14.', French '1er', Italian and Portuguese '1º' (NFKC's '1o'; '1°' as a keyboard writes it),
# Spanish and Portuguese '1.º', '1ª', '1.ª' (NFKC's '1.o', '1a')
_DAY = r"(?P<{}>0?[1-9]|[12]\d|3[01])(?:st|nd|rd|th|er|\.?[ºª°]|\.?[oa](?![^\W_])|\.)?"
# between a day and its month's name: a space or '-', Spanish and Portuguese 'de' ('14 de marzo'), or nothing after
# German's dotted day ('14.März')
_TO_NAME = r"(?:[ -](?:de )?|(?<=\.))"
# French writes a date after 'le' ('le 1er mai 2023', 'Le lundi 14 mars'), Spanish after 'el'
_ARTICLE = r"(?:(?:le|el)\s+)?"
_YEAR = r"(?P<{}>(?:19|20)\d\d)"
# a weekday's name before a date, in those languages: 'Thu', 'Thursday', German 'Do', 'Donnerstag', 'jeudi', 'jueves',
# 'giovedì', 'quinta-feira', 'donderdag', 'четверг', 'чт', '星期四', '周四', '木曜日', '木', '목요일'
WEEKDAY = (r"(?:(?:mon|tue|tues|wed|thu|thur|thurs|fri|sat|sun)(?:day|sday|nesday|rsday|urday)?|mo|di|mi|do|fr|sa|so|"
           r"montag|dienstag|mittwoch|donnerstag|freitag|samstag|sonntag|lundi|mardi|mercredi|jeudi|vendredi|samedi|"
           r"dimanche|lunes|martes|mi[eé]rcoles|jueves|viernes|s[aá]bado|domingo|"
           r"luned[iì]|marted[iì]|mercoled[iì]|gioved[iì]|venerd[iì]|sabato|domenica|"
           r"(?:segunda|ter[cç]a|quarta|quinta|sexta)(?:-feira)?|"
           r"maandag|dinsdag|woensdag|donderdag|vrijdag|zaterdag|zondag|ma|wo|vr|za|zo|"
           r"понедельник|вторник|среда|четверг|пятница|суббота|воскресенье|пн|вт|ср|чт|пт|сб|вс|"
           r"(?:星期|周|週|礼拜|禮拜)[一二三四五六日天]|[月火水木金土日](?:曜日?)?|[월화수목금토일](?:요일)?)")
# a heading that is a date or starts with one, after a weekday ('Thu', 'Thursday,') where it names one: ISO
# '2024-03-14' (or '/', '.', '_'), '14.03.2024', '14 March 2024', 'March 14, 2024', Logseq's 'Mar 14th, 2024',
# '14 de marzo de 2024', '14 марта 2024', '2024年3月14日', '2024년 3월 14일', '14/03/2024' or '14-03-2024' (a day first
# or a month first: which, the numbers or the log's other headings tell, ``_slash_order``); not followed by a letter or digit
# ('2024-03-141', '2024-03-14-2', a version '2024.03.14.1'), but a time ('2024-03-14T10:00')
_DAY_NUMBER = r"(?P<{}>0?[1-9]|[12]\d|3[01])"
HEADING_DATE = re.compile(
    r"[^\w\s]*\s*" + _ARTICLE + r"(?:" + WEEKDAY + r"\.?,?\s+)?"
    r"(?:" + _YEAR.format("y1") + r"(?P<s1>[-/._])(?P<m1>0?[1-9]|1[0-2])(?P=s1)(?P<d1>0?[1-9]|[12]\d|3[01])"
    r"|(?P<d2>0?[1-9]|[12]\d|3[01])\.(?P<m2>0?[1-9]|1[0-2])\." + _YEAR.format("y2") +
    r"|" + _DAY.format("d3") + _TO_NAME + _NAME.format("n3") + r",?[ -](?:del? )?" + _YEAR.format("y3") +
    r"|" + _NAME.format("n4") + r" " + _DAY.format("d4") + r",? " + _YEAR.format("y4") +
    r"|" + _YEAR.format("y5") + r"\s*[年년]\s*(?P<m5>0?[1-9]|1[0-2])\s*[月월]\s*(?P<d5>0?[1-9]|[12]\d|3[01])\s*[日号號일]"
    r"|" + _DAY_NUMBER.format("a6") + "(?P<s6>[/-])" + _DAY_NUMBER.format("b6") + "(?P=s6)" + _YEAR.format("y6") +
    r")(?!(?!T\d)[^\W_]|[-/.]\d)", re.IGNORECASE)
NAME_WORDS = re.compile(
    r"(?<![^\W_])(?:" + _DAY.format("d1") + r"(?:[ _-](?:de[ _-])?|(?<=\.))" + _NAME.format("n1") + r",?[ _-](?:del?[ _-])?" + _YEAR.format("y1")
    + r"|" + _NAME.format("n2") + r"[ _-]" + _DAY.format("d2") + r",?[ _-]" + _YEAR.format("y2") + r")(?![^\W_]|[-.]\d)",
    re.IGNORECASE)
# what may come before a day first in a file name: French 'le', Spanish 'el', a weekday's name ('le 1er mai
# 2023.md', 'lundi 1er mai 2023.md', 'Montag, 1. Mai 2023.md', 'jueves_14_de_marzo_de_2024.md')
NAME_LEAD = re.compile(r"(?:(?:le|el)[ _-]+)?(?:" + WEEKDAY + r"\.?,?[ _-]+)?", re.IGNORECASE)
# a day folder under a year folder named with its month's name: '2024/March 14/', '2024/14 March/', '2024/14. März/'
# (a weekday's name or a word after it or not: 'March 14 Thursday')
FOLDER_DAY = re.compile(r"(?:" + _DAY.format("d1") + r"[ _-](?:de )?" + _NAME.format("n1") + r"|" + _NAME.format("n2")
                        + r"[ _-]" + _DAY.format("d2") + r")(?:[ _,-]+[^\W\d_]+)?", re.IGNORECASE)
# a heading that is a month alone: '2024-03', an org datetree's '2024-03 March', 'March 2024', '2024年3月': its
# sections are about the month's first day
HEADING_MONTH = re.compile(
    r"[^\w\s]*\s*(?:" + _YEAR.format("y1") + r"-(?P<m1>0[1-9]|1[0-2])(?: (?P<w1>[^\W\d_]{3,10}))?|"
    + _NAME.format("n2") + r",? (?:del? )?" + _YEAR.format("y2") + r"|" + _YEAR.format("y3")
    + r"\s*[年년]\s*(?P<m3>0?[1-9]|1[0-2])\s*[月월])[^\w\s]*",
    re.IGNORECASE)
# what ends a day written without its year: the heading, a weekday's name, or a mark after a space or a ':', ',',
# '(' ('Mon 14 March: standup', '14 March (Thu)', '14 March - call'); '14 March plans', a time '14:30' are none
_END = r"(?=\s*$|\s*[,(]|\s*:(?!\d)|\s+[^\w\s]|\s+" + WEEKDAY + r"\b)"
# a heading that is a day of a month without its year ('Mon 14 March', 'March 14th', '14. März', '14 марта',
# '3月14日', '3월 14일', German '14.03.' with its month's two digits: '1.2. Setup' is a numbered heading), or a day alone ('14', 'Thu 14', '14 Thursday', '14日'), or a month's name alone ('March',
# '3月'), or a year alone ('2024', '2024年'): a date with the year (and month) of the headings over it or of its file
DAY_MONTH = re.compile(
    r"[^\w\s]*\s*" + _ARTICLE + r"(?:" + WEEKDAY + r"\.?,?\s+)?"
    r"(?:(?:" + _DAY.format("d1") + _TO_NAME + _NAME.format("n1") +
    r"|" + _NAME.format("n2") + r" " + _DAY.format("d2") + r")" + _END +
    r"|(?P<m3>0?[1-9]|1[0-2])\s*[月월]\s*(?P<d3>0?[1-9]|[12]\d|3[01])\s*[日号號일](?!\d)"
    r"|(?P<d4>0?[1-9]|[12]\d|3[01])\.(?P<m4>0[1-9]|1[0-2])\." + _END + ")", re.IGNORECASE)
# a day alone: a heading that is nothing else, with a weekday's name where it names one ('14', 'Thu 14', '14
# Thursday', '14日（木）', '14日 星期四'); a numbered heading's '1. Introduction' or '1 - Setup' is none
DAY_ALONE = re.compile(r"[^\w\s]*\s*(?:" + WEEKDAY + r"\.?,?\s+)?" + _DAY.format("d") + r"(?:\s*[日号號일])?"
                       r"(?:,?\s*" + WEEKDAY + r"\.?|\s*\(" + WEEKDAY + r"\.?\))?[^\w\s]*", re.IGNORECASE)
MONTH_ALONE = re.compile(r"[^\w\s]*\s*(?:(?P<n>[^\W\d_]{3,10})|(?P<m>0?[1-9]|1[0-2])\s*[月월])[^\w\s]*",
                         re.IGNORECASE)
# a weekday's name after a date, as an org timestamp writes it ('2023-05-01 Mon 10:00'), or nothing
WEEKDAY_AFTER = re.compile(r"(?:\s+" + WEEKDAY + r"\.?(?![^\W_]))?", re.IGNORECASE)
_WORD = re.compile(r"[^\W\d_]+")
# the words of a day alone: a weekday's name in those languages ('quinta-feira' two), '14th''s 'th', '14日''s '日'
DAY_WORD = re.compile(r"(?:[日号號일]?(?:" + WEEKDAY + r")?|st|nd|rd|th|feira)", re.IGNORECASE)
DAY_WORDS = {word for word in (
    "mon tue tues wed thu thur thurs fri sat sun monday tuesday wednesday thursday friday saturday sunday mo di mi do "
    "fr sa so montag dienstag mittwoch donnerstag freitag samstag sonntag lundi mardi mercredi jeudi vendredi samedi "
    "dimanche lunes martes jueves viernes sabado domingo sabato domenica segunda quarta quinta sexta feira maandag "
    "dinsdag woensdag donderdag vrijdag zaterdag zondag ma wo vr za zo st nd rd th").split()}
YEAR_ALONE = re.compile(r"[^\w\s]*\s*" + _YEAR.format("y") + r"\s*[年년]?[^\w\s]*")
# a file named by a year, alone or with a word ('2024.md', 'Journal 2024.md', '2024-log.md', '2024年工作日志.md',
# '日记2024.md'); a folder named by a year ('2024', '2024年')
_CJK = r"[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af]"
NAME_YEAR = re.compile(r"(?:[^\W\d_]+[ _-]+|" + _CJK + r"+[ _-]*)?((?:19|20)\d\d)(?:[ _-]+[^\W\d_]+|\s*[年년]?[ _-]*"
                       + _CJK + r"*)")
FOLDER_YEAR = re.compile(r"((?:19|20)\d\d)[年년]?")


def document_date(path: str, doc: Document) -> float | None:
    """The date (unix time) the passages of ``doc``, read from the file at ``path``, are about where their own
    sections say none: front matter's date, the file name's, front matter's created; None: none said."""
    meta = doc.meta if isinstance(doc.meta, dict) else {}
    for found in (meta_date(meta.get("date")), None if doc.kind == "code" else name_date(path) or folder_date(path),
                  meta_date(meta.get("created"))):
        if found is not None:
            return found
    return None


def date_sections(doc: Document, path: str = "") -> None:
    """Each section of a note without a date of its own (a mail message's, an org headline's) under a heading
    that is a date (a running log's ``## 2024-03-14``, ``## Thu 14 March 2024``, ``### 14.03.2024``, ``# 2024-03-14
    Standup``, ``## 2024年3月14日``), or a month alone (``## March 2024``), the innermost such heading of its
    heading path, is dated by it (Section.dated: before front matter's date and the file's name), as an org
    headline's timestamp dates its section. A date inside a heading's words (``## Notes from 2024-03-14``) is none.
    A day or a month without its year (``# 2024`` / ``## March`` / ``### 14``, ``## Mon 14 March``, ``## 3月14日``)
    takes the year of the headings over it, else of its file's name (``2024.md``) or folder (``journal/2024/``, read
    from ``path``); a day alone takes their month too; with no year over it, it is none (today's is no guess)."""
    if doc.kind != "note":
        return
    order = _slash_order(doc)
    in_path = path_year(path) if path else None
    since = None if in_path else _meta_day(doc)  # a log's front matter: its days from then on (``_later``)
    in_path = in_path or (since.year if since else None)
    from ingest.short_dates import released, versioned  # a changelog's '## 20.10.17 (2022-06-06)': its '## 20.10.16'
    headings = list(dict.fromkeys(h for s in doc.sections for h in s.heading_path or []))
    versions = any(released(h.strip()) for h in headings) or versioned(path, headings)
    from ingest.short_dates import calendar_weeks  # a '## Week 10' with its week's days under it: a calendar week
    calendar = calendar_weeks([s.heading_path or [] for s in doc.sections], order, in_path)
    read: dict[tuple, tuple] = {}  # a heading read once under each year and month: the sections under it hold them
    last = None  # the day the sections before said, for a log of one year that runs on past New Year
    told = False  # whether that day's heading wrote its year ('## 2025-01-10' in '2024.md': no run on past New Year)
    for section in doc.sections:
        if section.dated is not None:
            continue
        year, month, day, when = in_path, None, False, None
        given = since  # until a heading says a year ('# 2026'): the days under it are of that year
        before = last if in_path else None  # until a heading says a year
        own = told  # whether ``before``'s heading wrote its year
        for heading in section.heading_path or []:
            # the day before matters only from December on (``_crossed``): the headings over a log's other days are
            # read once
            near = before if before and year and (before.year > year or before.month == 12) else None
            key = (heading, year, month, day, given, near, own)
            if key not in read:
                read[key] = _read(heading, order, year, month, day, versions, given, calendar, near, own)
            year, month, day, found = read[key]
            when = found if found is not None else when
            said = _says_year(heading, order)
            told = said if found is not None else told
            given = given if given is None or not said else None
            before = None if said else before
        section.dated = when
        last = datetime.fromtimestamp(when).date() if when is not None else last


def _meta_day(doc: Document) -> date | None:
    """The day a note's front matter date (else its created) says, whose year its headings' days without one take."""
    meta = doc.meta if isinstance(doc.meta, dict) else {}
    when = meta_date(meta.get("date")) or meta_date(meta.get("created"))
    return datetime.fromtimestamp(when).date() if when is not None else None


def _says_year(heading: str, order: str | None) -> bool:
    """Whether a heading writes a year of its own ('# 2026', '## 2024-03-14', '## KW 10/2024')."""
    from ingest import short_dates
    parts = heading_parts(heading, order, True)
    week = short_dates.week(heading.strip()) if parts is None and any(c.isdigit() for c in heading) else None
    return bool(parts and parts[0] is not None) or bool(week and week[0])


LOG_SLACK = 31  # days before its front matter's day a log's day without a year may be of that year


def _later(since: date | None, year: int | None, *day: int) -> int | None:
    """``year`` for a day without one in a note whose front matter's day (``since``) gave it, or the next where
    that puts the day over LOG_SLACK days before it: a log begun on 20 December 2026 dated its '## 04.01.' and its
    '## KW 1' in January 2026, a year before it began, and its '## Sa 2.1.' none (2 January 2026 a Friday).
    ``day``: the (year, month, day) read with ``year`` (a week's Monday may be of the year before)."""
    if since is None or year != since.year or _day(*day) is None:
        return year
    return year + 1 if (since - date(*day)).days > LOG_SLACK else year


def _crossed(before: date | None, year: int | None, month: int, day: int, own: bool = False) -> int | None:
    """``year`` for a day without one in a log whose year its file's name or front matter gave, or the next where
    the log has run on past New Year: the day before it (``before``) is up to LOG_SLACK days before it in the next
    year and many more after it in ``year`` ('## Tue 12/31' / '## Wed 1/1' in 'log-2024.md': 1 January 2025, where
    2024's, a Monday, was none). Once it has run on (``before`` in the next year), a day after ``before`` is of the
    next year however far: a log's '## 20.02.' a month and more after its '## 02.01.' went back a year; not where
    ``before``'s heading wrote its year (``own``: '## 2025-01-10' in '2024.md' put every later day in 2025)."""
    if before is None or year is None or before.year not in (year, year + 1) or _day(year + 1, month, day) is None:
        return year
    ahead = (date(year + 1, month, day) - before).days
    if before.year == year + 1 and ahead >= 0 and not own:
        return year + 1
    return year + 1 if 0 <= ahead <= LOG_SLACK and (_day(year, month, day) is None or
                                                     (before - date(year, month, day)).days > LOG_SLACK) else year


def _read(heading: str, order: str | None, year: int | None, month: int | None, day: bool | tuple,
          versions: bool = False, since: date | None = None, calendar: bool = False,
          before: date | None = None, own: bool = False) -> tuple:
    """``_under`` for a heading under a ``year``, ``month`` and ``day``, with what ingest.short_dates reads: a
    calendar week (``KW 10``: its Monday, of its own year or ``year``), a day whose year its weekday picks where no
    year is over it (``Tue 5/14``, ``Mon 14 March``); a day written with numbers after a weekday it does not fall
    on is none (``Tue 5/14`` in 2025). A weekday before a month's name is not checked: a log written by hand names
    the wrong one as often (``Mon 14 March`` under ``# 2024`` is dated, as it was). ``day`` is the (year, month,
    day) of a week's Monday under a calendar week, for a weekday's name alone under it. ``versions``: the note's
    headings write versions with their release dates (``short_dates.released``), so a two-digit year is none.
    ``since``: the day of the front matter that gave ``year`` (``_later``); ``before``: the day the sections before
    said, where no heading over it says a year (``_crossed``; ``own``: its heading wrote its year). ``calendar``: a
    ``## Week 10`` without its year is a calendar week (a week's days under it in the note: ``short_dates.calendar_weeks``), else a
    course's."""
    from ingest import short_dates  # it reads this module's weekday names
    if any(c.isdigit() for c in heading):
        week = short_dates.week(heading.strip())
        if week is not None and not (calendar or short_dates.calendar_word(heading.strip())):
            week = None  # a course's '## Week 10' in '2024.md': its weeks are no ISO weeks
        if week is not None:
            first = short_dates.monday(week[0] or year, week[1]) if week[0] or year else None
            if first and not week[0] and _later(since, year, *first) != year:  # '## KW 1' of a log begun in December
                week, first = (year + 1, week[1]), short_dates.monday(year + 1, week[1])
            if first is None:
                return year, month, day, None
            return week[0] or year, first[1], first, _day(*first)  # day: the week's Monday, for '### Dienstag'
    elif isinstance(day, tuple):  # under a week: a weekday alone is its day ('## KW 10' / '### Dienstag')
        weekday = short_dates.weekday_alone(heading.strip())
        if weekday is not None:
            when = date(*day) + timedelta(days=weekday)
            return year, month, True, _day(when.year, when.month, when.day)
    parts = heading_parts(heading, order, True)
    if versions and parts and short_dates.two_digit_year(heading.strip(), order):
        parts = None  # '## 20.10.16' of a changelog whose '## 20.10.17 (2022-06-06)' is a version
    if parts and parts[0] is None and parts[1] and parts[2] and not isinstance(day, tuple):
        later = _later(since, year, year, parts[1], parts[2])  # '## 04.01.' of a log begun in December
        # '## Wed 1/1' after '## Tue 12/31'
        if later == year and _crossed(before, year, parts[1], parts[2], own) != year:
            named = short_dates.heading_weekday(heading.strip())  # a weekday's name that fits this year says it is
            later = year if named is not None and short_dates.fits(named, year, parts[1], parts[2]) else year + 1
        parts = (later, parts[1], parts[2]) if later != year else parts
    if isinstance(day, tuple) and parts and parts[0] is None and parts[1] and parts[2]:
        parts = (_near(day, parts[1], parts[2]), parts[1], parts[2])  # '## KW 1' of 2025 / '### 30.12.': 2024's
    weekday = short_dates.heading_weekday(heading.strip()) if parts else None
    if parts and parts[0] is None and year is None and parts[1] and parts[2] and weekday is not None:
        picked = short_dates.weekday_year(weekday, parts[1], parts[2])  # 'Tue 5/14' in a note of no year
        parts = (picked, parts[1], parts[2]) if picked else None
    elif year is None and parts and parts[0] is None:
        parts = None  # a month or a day with no year over it: none (today's is no guess)
    found = _under(parts, year, month, day)
    if found[3] is not None and weekday is not None and short_dates.weekday_day(heading.strip(), order):
        when = datetime.fromtimestamp(found[3])
        if not short_dates.fits(weekday, when.year, when.month, when.day):
            return found[:3] + (None,)  # 'Tue 5/14' in 2025 (a Wednesday): read the wrong way round, or mistyped
    return found


def _near(monday: tuple, month: int, day: int) -> int:
    """The year of a day and month written under a calendar week whose Monday is ``monday``: the one that puts it
    nearest the week. A week's year is its ISO year, and its month its Monday's: '## KW 1' of 2025 began on
    30 December 2024, and its '### 30.12.' was dated 2025-12-30; '## KW 53' of 2026 ends on 3 January 2027."""
    first = date(*monday)
    years = [y for y in (first.year - 1, first.year, first.year + 1) if _day(y, month, day) is not None]
    return min(years, key=lambda y: abs((date(y, month, day) - first).days)) if years else first.year


def _under(parts: tuple | None, year: int | None, month: int | None, day: bool) -> tuple:
    """(year, month, whether a day is said, date) for the headings under a heading that says ``parts``
    (``heading_parts``), itself under a ``year``, ``month`` and ``day``: a year resets the month; its date where it
    makes one with them, else None. A month alone under a month or a day (a standup's '### May' under '## 2024-03-14',
    a person) and a day alone under a day are none."""
    if parts is None:
        return year, month, day, None
    y, m, d = parts
    if y is not None:
        return y, m, d is not None, _day(y, m, d or 1) if m else None
    if m is not None and (d is not None or month is None):
        return year, m, d is not None, _day(year, m, d or 1) if year else None
    if m is None and not day and year and month:
        return year, month, True, _day(year, month, d)
    return year, month, day, None


def heading_date(heading: str) -> float | None:
    """The date (local midnight) a heading is or begins with (``2024-03-14 Standup``, ``Thursday, March 14, 2024``,
    ``[[2024-03-14]]``), a month's first day for a heading that is a month alone (``March 2024``); None."""
    parts = heading_parts(heading)
    if parts is None or parts[0] is None or parts[1] is None:
        return None
    return _day(parts[0], parts[1], parts[2] or 1)


def heading_parts(heading: str, order: str | None = None,
                  yearless: bool = True) -> tuple[int | None, int | None, int | None] | None:
    """(year, month, day) a heading says, each None where it says none: a date (``2024-03-14``), a month of a year
    (``March 2024``), a year alone (``2024``), a month's name alone (``March``, ``3月``), a day of a month
    (``Mon 14 March``, ``3月14日``) or a day alone (``14``, ``Thu 14``); None for no date. A slashed date whose
    numbers are both 12 or less (``03/04/2024``) is read in ``order`` ('dmy', 'mdy': ``_slash_order``), else none.
    ``yearless`` False: a heading with no year (a month, a day) is None, as where no year is over it."""
    heading = heading.strip()[:200]
    if not any(c.isdigit() for c in heading):  # most headings: only a month's name alone may be one
        if len(heading) > 24:
            return None
        found = MONTH_ALONE.fullmatch(heading)
        name = found["n"].lower() if found and found["n"] else ""
        return (None, MONTH_NAMES[name], None) if name in MONTH_WORDS else None
    heading = unicodedata.normalize("NFKC", heading)  # full-width '２０２４年３月１４日' too
    found = HEADING_DATE.match(heading)
    if found:
        return _full_date(found, order)
    from ingest import short_dates  # it reads this module's weekday names
    found = short_dates.two_digit_year(heading, order)  # '14.03.24', '3/14/24'
    if found:
        return found
    found = HEADING_MONTH.fullmatch(heading)
    if found and (not found["w1"] or found["w1"].lower() in MONTH_NAMES):  # '2024-03 March', not '2024-03 budget'
        at = next(i for i in "123" if found["y" + i])
        month = found.groupdict().get("m" + at) or found.groupdict().get("n" + at)
        month = MONTH_NAMES.get(month.lower()) if not month.isdigit() else int(month)
        return (int(found["y" + at]), month, None) if month else None
    short = len(heading) <= 32  # a year, a month or a day alone is
    found = YEAR_ALONE.fullmatch(heading) if short else None
    if found:
        return int(found["y"]), None, None
    if not yearless:
        return None
    marked, words = "月" in heading or "월" in heading, _WORD.findall(heading)
    if marked or "." in heading or any(word.lower() in MONTH_NAMES for word in words):
        found = DAY_MONTH.match(heading)
        if found:  # 'Thu 14' is a day alone
            at = next(i for i in "1234" if found["d" + i])
            month = found.groupdict().get("m" + at) or found.groupdict().get("n" + at)
            month = int(month) if month.isdigit() else None if month.lower() in MONTH_WORDLIKE else \
                MONTH_NAMES.get(month.lower())
            if month:
                return None, month, int(found["d" + at])
    found = short_dates.weekday_day(heading, order)  # 'Di 14.5.', 'Tue 5/14'
    if found:
        return None, found[1], found[2]
    found = MONTH_ALONE.fullmatch(heading) if marked and short else None
    if found and found["m"]:
        return None, int(found["m"]), None
    alone = short and all(word.lower() in DAY_WORDS or not word.isascii() and DAY_WORD.fullmatch(word)
                          for word in words)
    found = DAY_ALONE.fullmatch(heading) if alone else None
    return (None, None, int(found["d"])) if found else None


def _full_date(found: re.Match, order: str | None = None) -> tuple[int, int, int] | None:
    """(year, month, day) of a HEADING_DATE match; None for a slashed or dashed one whose order neither its numbers
    nor ``order`` tell, or a month's name that is none."""
    at = next(i for i in "123456" if found["y" + i])
    if at == "6":
        first, second = int(found["a6"]), int(found["b6"])
        order = "dmy" if first > 12 else "mdy" if second > 12 else order
        if order is None:
            return None
        return (int(found["y6"]),) + ((second, first) if order == "dmy" else (first, second))
    month = found.groupdict().get("m" + at) or found.groupdict().get("n" + at)
    month = MONTH_NAMES.get(month.lower()) if not month.isdigit() else int(month)
    return (int(found["y" + at]), month, int(found["d" + at])) if month else None


def _slash_order(doc: Document) -> str | None:
    """How a log writes its slashed dates, where its headings tell: 'dmy' where one has a first number over 12
    (``14/03/2024``), 'mdy' where one has a second (``03/14/2024``); None where none does or both do."""
    from ingest.short_dates import slashed  # '3/14/24', 'Tue 5/14' tell it too
    orders = set()
    for heading in {h for section in doc.sections for h in section.heading_path or [] if "/" in h or "-" in h}:
        heading = unicodedata.normalize("NFKC", heading.strip()[:200])
        found = HEADING_DATE.match(heading)
        first, second = (int(found["a6"]), int(found["b6"])) if found and found["y6"] else slashed(heading)
        orders |= {"dmy"} if first > 12 else {"mdy"} if second > 12 else set()
    return orders.pop() if len(orders) == 1 else None


def path_year(path: str) -> int | None:
    """The year a file's name (``2024.md``, ``Journal 2024.md``, ``2024年工作日志.md``, a daily note's
    ``2024-03-14.md``) or else its innermost year folder (``journal/2024/log.md``, ``日记/2024年/log.md``) names;
    None."""
    parts = path.split("/")
    name = parts[-1]
    found = NAME_YEAR.fullmatch(name.rsplit(".", 1)[0] if "." in name.lstrip(".") else name)
    if found:
        return int(found[1])
    stem = name.rsplit(".", 1)[0] if "." in name.lstrip(".") else name
    period = PERIOD_NAME.fullmatch(stem)
    if period:  # a week's note: its year, as '2025-W01.md' (Monday 2024-12-30) names 2025
        return int(period[1])
    named = name_date(path)  # a daily note's '2024-03-14.md'
    if named is not None:
        return datetime.fromtimestamp(named).year
    return next((int(found[1]) for found in map(FOLDER_YEAR.fullmatch, reversed(parts[:-1])) if found), None)


def name_date(path: str) -> float | None:
    """The date the file name of ``path`` (its last part, without its extension) holds standing apart; None."""
    name = path.rsplit("/", 1)[-1]
    stem = name.rsplit(".", 1)[0] if "." in name.lstrip(".") else name
    stem = unicodedata.normalize("NFKC", stem) if not stem.isascii() else stem  # '1ᵉʳ mai 2023', '１４'
    for found in NAME_DATE.finditer(stem):
        if found["dyear"]:  # '14-03-2024', '14.03.2024'
            first, second = int(found["first"]), int(found["second"])
            if found["dsep"] != "." and first <= 12 and second <= 12:
                continue  # '03-04-2024': the 3rd of April or March the 4th
            day, month = (second, first) if found["dsep"] != "." and second > 12 else (first, second)
            when = _day(int(found["dyear"]), month, day)
        elif found["year"]:
            when = _day(int(found["year"]), int(found["month"]), int(found["day"]))
        elif not COMPACT_FIRST <= int(found["cyear"]) <= datetime.now().year + 1:
            continue  # eight digits of another year are an id: a PubMed article's '20491205.md', '19460822.md'
        else:
            if found["chour"] and found.start():
                continue  # twelve or fourteen digits after a word are an order's or an invoice's number
            when = _day(int(found["cyear"]), int(found["cmonth"]), int(found["cday"]))
            if when is not None and found["chour"]:  # a Zettelkasten id: to the minute
                when += int(found["chour"]) * 3600 + int(found["cminute"]) * 60 + int(found["csecond"] or 0)
        if when is not None:
            return when
    for found in NAME_WORDS.finditer(stem):  # 'March 14, 2024', '14 March 2024', '14 févr. 2024'
        at = "1" if found["y1"] else "2"
        if at == "1" and found.start() and not NAME_LEAD.fullmatch(stem, 0, found.start()):
            continue  # a day first begins the name, after French 'le' or a weekday: 'Top 10 May 2023 picks' is none
        name = found["n" + at].lower()
        month = None if name in MONTH_WORDLIKE else MONTH_NAMES.get(name)
        when = _day(int(found["y" + at]), month, int(found["d" + at])) if month else None
        if when is not None:
            return when
    return _period_note(stem)


# the whole name of a periodic note (Obsidian's Periodic Notes, Journals): a month's '2024-03', a week's '2024-W10',
# a quarter's '2024-Q1'
PERIOD_NAME = re.compile(r"((?:19|20)\d\d)-(?:(0[1-9]|1[0-2])|[Ww](0[1-9]|[1-4]\d|5[0-3])|[Qq]([1-4]))")


def _period_note(stem: str) -> float | None:
    """The first day of the month, the week (its Monday, as ISO writes a week and the filters read '2024-W10') or the
    quarter a periodic note's whole name is; None for any other name ('report-2024-03', '2024-13')."""
    found = PERIOD_NAME.fullmatch(stem)
    if found is None:
        return None
    year = int(found[1])
    if found[3]:
        try:
            monday = date.fromisocalendar(year, int(found[3]), 1)
        except ValueError:  # a 53rd week of a year of 52
            return None
        return _day(monday.year, monday.month, monday.day)
    return _day(year, int(found[2]) if found[2] else (int(found[4]) - 1) * 3 + 1, 1)


def folder_date(path: str) -> float | None:
    """The date the folders of ``path`` make with its name (its last part, without its extension), the innermost
    that says one: a day (``2024/03/14.md``, ``2024/03-14.md``, ``2024/03/14/x.md``, ``2024-03-14/x.md``,
    ``March 14, 2024/x.md``, ``2024/March 14/x.md``, ``2024/03 March/14.md``), else a
    month's first day (``2024-03 March/x.md``, ``2024/03/x.md``, ``2024/March/x.md``, ``2024/Mar/x.md``); None."""
    parts = path.split("/")
    name = parts[-1]
    parts[-1] = name.rsplit(".", 1)[0] if "." in name.lstrip(".") else name
    for at in range(len(parts) - 1, -1, -1):
        part, when = parts[at], None
        if at < len(parts) - 1 and NAME_DATE.fullmatch(part.split(" ", 1)[0]):  # a folder named by its day
            when = name_date(part + ".d")
        elif at < len(parts) - 1 and NAME_WORDS.match(part):  # 'March 14, 2024/notes.md'
            when = name_date(part + ".d")
        found = FOLDER_DAY.fullmatch(part)
        if found and at >= 1 and YEAR.fullmatch(parts[at - 1]):  # 2024/March 14, 2024/14 March
            named = next(found["n" + i] for i in "12" if found["n" + i]).lower()
            month = None if named in MONTH_WORDLIKE else MONTH_NAMES.get(named)
            when = when or (_day(int(parts[at - 1]), month, int(found["d1"] or found["d2"])) if month else None)
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
    name = part.strip().lower()
    return int(found[1]) if found else None if name in MONTH_WORDLIKE else MONTH_NAMES.get(name)


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
    """Front matter's date (text as ingest.markdown keeps it) as unix time: ISO, or as ``written_date`` reads one;
    None for none or anything else."""
    if not isinstance(value, str):
        return None
    try:  # with its zone where it names one ('2023-05-01T10:00:00+02:00'), else local time
        return moment(datetime.fromisoformat(value.strip())) if META_DATE.match(value) else written_date(value)
    except ValueError:
        pass
    found = META_DATE.match(value)
    if not found:
        return written_date(value)
    year, month, day, hour, minute, second = (int(g) if g else 0 for g in found.groups())
    try:
        return datetime(year, month, day, hour, minute, second).timestamp()
    except (ValueError, OverflowError, OSError):
        return None


def written_date(value: str) -> float | None:
    """A front matter date written otherwise than ISO, the whole value a date as a heading writes one, a time after
    it or not: 'May 1, 2023', '1 May 2023', 'Monday, May 1, 2023 14:32', '2023/05/01', '01.05.2023' (a day first, as
    a dotted heading's), '14/03/2023' (its numbers tell), '1er mai 2023', '1º de maio de 2023', an org timestamp
    ('<2023-05-01 Mon 10:00>'); a month's first day ('May 2023'); None for anything else ('03/04/2023': the 3rd of
    April or March the 4th; 'May 1, 2023 draft')."""
    value = unicodedata.normalize("NFKC", value.strip().strip("'\"").strip())[:100]
    value = ORG_STAMP.sub(r"\1", value)  # an org timestamp's '<2023-05-01 Mon 10:00>': '2023-05-01 Mon 10:00'
    found = HEADING_DATE.match(value)
    parts = _full_date(found) if found else None
    end = WEEKDAY_AFTER.match(value, found.end()).end() if found else 0  # a weekday after it: org's '2023-05-01 Mon'
    rest = TIME_AFTER.fullmatch(value, end) if found else None
    if parts is None or not (end == len(value) or rest):
        found = HEADING_MONTH.fullmatch(value)
        month = MONTH_NAMES.get((found["n2"] or "").lower()) if found and found["n2"] else None
        return _day(int(found["y2"]), month, 1) if month else None
    when = _day(*parts)
    if when is None or not rest:
        return when
    hour, minute, second = int(rest[1]) % 12 if rest[4] else int(rest[1]), int(rest[2]), int(rest[3] or 0)
    hour += 12 if (rest[4] or "").lower() == "pm" else 0
    return when + hour * 3600 + minute * 60 + second if hour < 24 else None


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
