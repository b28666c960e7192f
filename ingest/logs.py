"""A log's lines, cut at each day its timestamps begin, each day's passages dated by its first line's time.

A log was one undated run of lines: search's ``date_after`` / ``date_before`` went by the file's modified time, so
a search for what happened on 14 March found none of that day's lines in a log written over a month. A line's
time is the one it begins with (after a ``[`` or a level's word, ``ERROR 2024-03-14 …``, at most): ISO's
``2024-03-14 09:15:02`` or ``2024-03-14T09:15:02.123Z``, ``2024/03/14 09:15:02`` (nginx's error log), or the one
a web server's access log writes in brackets, ``[14/Mar/2024:09:15:02 +0000]``; as written, a wall clock's time
read as local time, as a mail's Date is (ingest.passage_dates). A line without one (a traceback's) belongs to the
day above it. A syslog's ``Mar 14 09:15:02`` writes no year and dates nothing (no guess). Rotated logs
(``syslog.1``, ``app.log.2``, ``app.log-20240314``) are logs by their names (ingest.kinds.is_log).
"""
from __future__ import annotations

import re
from datetime import datetime

from ingest.document import Document, Section
from ingest.passage_dates import moment

MONTHS = {m: i for i, m in enumerate(("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov",
                                      "dec"), 1)}
# a line's time where it begins: after '[', '<', a level's word or a host's, up to 40 characters in
STAMP = re.compile(r"[^\n]{0,40}?(?<![\d/.:-])(?P<year>(?:19|20)\d\d)[-/](?P<month>\d\d)[-/](?P<day>\d\d)"
                   r"[T ](?P<hour>[01]\d|2[0-3]):(?P<minute>[0-5]\d)(?::(?P<second>[0-5]\d))?"
                   r"|[^\n]{0,80}?\[(?P<cday>\d\d)/(?P<cmonth>[A-Za-z]{3})/(?P<cyear>(?:19|20)\d\d):"
                   r"(?P<chour>[01]\d|2[0-3]):(?P<cminute>[0-5]\d):(?P<csecond>[0-5]\d)")


def stamp(line: str) -> float | None:
    """The time (unix time, read as local time) ``line`` begins with, else None."""
    found = STAMP.match(line)
    if not found:
        return None
    if found.group("year"):
        parts = [found.group(k) for k in ("year", "month", "day", "hour", "minute", "second")]
    else:
        month = MONTHS.get(found.group("cmonth").lower())
        if month is None:
            return None
        parts = [found.group("cyear"), month, found.group("cday"), found.group("chour"), found.group("cminute"),
                 found.group("csecond")]
    try:
        return moment(datetime(*(int(p or 0) for p in parts)))
    except ValueError:
        return None


def parse_log(text: str, title: str) -> Document:
    """``text`` (a log's) as sections of a day each, dated by its first timestamp; one undated section where no
    line begins with a time. A day begins where a line's time first passes the day before: lines of an earlier
    day among a later one's (two clocks' lines interleaved, one UTC and one local, around midnight) stay in it,
    where each began a section, a passage a line (3,000 passages for a 3,000-line log, 94 kept so)."""
    lines = text.split("\n")
    while lines and not lines[-1].strip():
        lines.pop()
    starts: list[tuple[int, float | None]] = [(0, None)]
    day = None
    for row, line in enumerate(lines):
        when = stamp(line) if line[:1].strip() else None  # an indented line continues the one above
        if when is None:
            continue
        today = datetime.fromtimestamp(when).date()
        if day is None or today > day:  # a line of an earlier day stays in the day it is among (``parse_log``)
            day = today
            if starts[-1][1] is None and not any(lines[i].strip() for i in range(starts[-1][0], row)):
                starts[-1] = (starts[-1][0], when)  # nothing undated before it: the first day begins the file
            else:
                starts.append((row, when))
    sections = []
    for (start, when), (end, _) in zip(starts, starts[1:] + [(len(lines), None)]):
        body = "\n".join(lines[start:end])
        if body.strip():
            sections.append(Section(text=body, heading_path=[], start_line=start + 1, end_line=max(start + 1, end),
                                    dated=when))
    return Document(kind="text", title=title, sections=sections)
