"""The date a file's passages are about, where the file says one: search's date_after / date_before go by it.

A mailbox of ten years was modified last week, a daily note edited yesterday: their files' mtimes say nothing of
when what they hold happened. A passage's date is, in order:

- its section's own (``Section.dated``): a mail message's Date (ingest.mail);
- its note's front matter ``date:`` (what the note is about, as a blog post or a meeting note writes it);
- a date its file's name holds: a daily note (Obsidian's ``2024-03-14.md``, ``2024-03-14 Thursday.md``, Logseq's
  ``journals/2024_03_14.md``, ``20240314.md``), a meeting named by its day (``Standup 2024-03-14.md``);
- its front matter ``created:`` (when the note was written, where nothing says what it is about);
- else none: search goes by the file's modified time.

A name's date is one that stands apart in it, a real day of the years 1900-2099: ``v2024-03-14``, ``build-20240314.2``,
a 12- or 14-digit id (Zettelkasten's ``202403141230 Note``, a migration's ``20240314093000_add_users``) and
``2024-13-01`` are none. Code files get none from their names (a migration's or a release's date is an id there).
Dates are local midnight, as search's date arguments read a date.
"""
from __future__ import annotations

import re
from datetime import date, datetime

from ingest.document import Document

# a date standing apart in a file name: not after a letter, digit or dot ('v2024-03-14', '1.2024.03.14'), not before
# a digit or a dot and a digit ('20240314123000', '2024-03-14.2'); separated by '-', '_' or '.' alike, or written
# without separators (eight digits)
NAME_DATE = re.compile(r"(?<![A-Za-z0-9.])(?:(?P<year>(?:19|20)\d\d)(?P<sep>[-_.])(?P<month>\d\d)(?P=sep)(?P<day>\d\d)"
                       r"|(?P<cyear>(?:19|20)\d\d)(?P<cmonth>\d\d)(?P<cday>\d\d))(?![0-9]|\.[0-9])")
# front matter's date: an ISO date, with a time after it or not ('2023-05-01', '2023-05-01 10:00', '2023-05-01T10:00')
META_DATE = re.compile(r"\s*(\d{4})-(\d{1,2})-(\d{1,2})(?:[T ](\d{1,2}):(\d{2})(?::(\d{2}))?)?")


def document_date(path: str, doc: Document) -> float | None:
    """The date (unix time) the passages of ``doc``, read from the file at ``path``, are about where their own
    sections say none: front matter's date, the file name's, front matter's created; None: none said."""
    meta = doc.meta if isinstance(doc.meta, dict) else {}
    for found in (meta_date(meta.get("date")), None if doc.kind == "code" else name_date(path),
                  meta_date(meta.get("created"))):
        if found is not None:
            return found
    return None


def name_date(path: str) -> float | None:
    """The date the file name of ``path`` (its last part, without its extension) holds standing apart; None."""
    name = path.rsplit("/", 1)[-1]
    stem = name.rsplit(".", 1)[0] if "." in name.lstrip(".") else name
    for found in NAME_DATE.finditer(stem):
        year, month, day = (found["year"], found["month"], found["day"]) if found["year"] else \
            (found["cyear"], found["cmonth"], found["cday"])
        when = _day(int(year), int(month), int(day))
        if when is not None:
            return when
    return None


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


def _day(year: int, month: int, day: int) -> float | None:
    try:
        return datetime.combine(date(year, month, day), datetime.min.time()).timestamp()
    except (ValueError, OverflowError, OSError):
        return None
