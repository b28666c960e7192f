"""The dates passages are about, past those of stop 41 (tests/test_passage_dates.py): a running log's date headings
(``## 2024-03-14`` in one ``work-journal.md``) date their sections, month-name folders (``2024/March/``) their
notes, a spreadsheet's properties (.xlsx, .ods) its rows; ``ingest similar`` takes --date-after/--date-before."""
from __future__ import annotations

import os
import re
from datetime import datetime

import pytest

from ingest.document import Document, Section
from ingest.passage_dates import date_sections, folder_date, heading_date
from ingest.short_dates import weekday_year
from tests.conftest import ingest, run_ingest, write_tree
from tests.test_passage_dates import CORE, LAST_WEEK, ODF_META, _engine, _local, _with_part

JOURNAL = """---
created: 2023-01-05
---
# Work journal

Running notes on the orchard project.

## 2024-03-14

Pruned the orchard apple trees.

### Meetings

Orchard budget call with Ben.

## Fri 15 March 2024

Grafted the orchard pear saplings.

## March 20, 2024

Orchard irrigation pipes laid.

### 21.03.2024

Orchard fence mended.

# 2024-04-02 Standup

Orchard harvest plan reviewed.

## 2024年4月3日

果园 orchard 施肥。

# Notes from 2024-05-01

Orchard notes that name a date in their heading's words only.
"""


def _found(engine, query: str = "orchard", **dates) -> set[tuple[str, str]]:
    from search.query.filters import Filters, unix_time
    filters = Filters(**{key: unix_time(value, key) for key, value in dates.items()})
    return {(hit.path, hit.heading_path) for hit in engine.search(query, limit=20, mode="keyword",
                                                                  filters=filters).hits}


@pytest.mark.parametrize("heading, day", [
    ("2024-03-14", (2024, 3, 14)), ("Thu 14 March 2024", (2024, 3, 14)), ("14.03.2024", (2024, 3, 14)),
    ("March 14, 2024", (2024, 3, 14)), ("2024-03-14 Standup", (2024, 3, 14)), ("2024年3月14日", (2024, 3, 14)),
    ("2024年3月14日 星期四", (2024, 3, 14)), ("２０２４年３月１４日", (2024, 3, 14)),
    ("[[2024-03-14]]", (2024, 3, 14)),
    ("**Thursday, March 14, 2024**", (2024, 3, 14)), ("Mar 14th, 2024", (2024, 3, 14)),
    ("14. März 2024", (2024, 3, 14)), ("2024/03/14", (2024, 3, 14)), ("Donnerstag, 14. März 2024", (2024, 3, 14)),
    ("Do 14.03.2024", (2024, 3, 14)), ("jeudi 14 mars 2024", (2024, 3, 14)),
    ("jueves, 14 de marzo de 2024", (2024, 3, 14)), ("Sept. 14, 2024", (2024, 9, 14)),
    ("2024-03-14: call with Ben", (2024, 3, 14)), ("2024-03-14T10:00 call", (2024, 3, 14)),
    ("March 2024", (2024, 3, 1)), ("2024-03", (2024, 3, 1)), ("2024-03 March", (2024, 3, 1)),
    ("2024年3月", (2024, 3, 1)), ("2024-03 budget", None),
    # a date inside the heading's words, a year, a number, an id or a version, no real day: none
    ("Notes from 2024-03-14", None), ("2024 goals", None), ("14 things I learned", None), ("So 14 things", None),
    ("2024-03-141", None), ("2024-03-14-2", None), ("2024.03.14.1", None), ("v2024-03-14", None),
    ("2024-13-01", None), ("2024-02-30", None), ("Marching 14, 2024", None), ("May 2024 plans", None),
    ("Sunday", None), ("", None)])
def test_a_heading_is_a_date_or_begins_with_one(heading, day):
    assert heading_date(heading) == (_local(*day) if day else None)


def test_a_section_takes_its_innermost_date_heading_and_keeps_a_date_of_its_own():
    own = _local(2020, 1, 1)
    doc = Document(kind="note", title="Log", sections=[
        Section(text="a", heading_path=["Log"]),
        Section(text="b", heading_path=["Log", "2024-03-14"]),
        Section(text="c", heading_path=["Log", "2024-03-14", "Meetings"]),
        Section(text="d", heading_path=["Log", "March 2024", "15.03.2024"]),
        Section(text="e", heading_path=["Log", "2024-03-14"], dated=own)])  # a mail message's Date, org's
    date_sections(doc)
    assert [s.dated for s in doc.sections] == [None, _local(2024, 3, 14), _local(2024, 3, 14), _local(2024, 3, 15),
                                               own]
    code = Document(kind="code", title="x", sections=[Section(text="a", heading_path=["2024-03-14"])])
    date_sections(code)
    assert code.sections[0].dated is None


def test_a_running_logs_sections_are_found_by_their_headings_dates(immediate, sift_env, tmp_path):
    root = write_tree(tmp_path / "n", {"work-journal.md": JOURNAL})
    os.utime(root / "work-journal.md", (LAST_WEEK, LAST_WEEK))
    ingest(root, "notes")
    engine = _engine(sift_env)
    day = _found(engine, date_after="2024-03-14", date_before="2024-03-15")
    assert day == {("work-journal.md", "Work journal > 2024-03-14"),
                   ("work-journal.md", "Work journal > 2024-03-14 > Meetings")}, day
    march = {heading for _, heading in _found(engine, date_after="2024-03-15", date_before="2024-04")}
    assert march == {"Work journal > Fri 15 March 2024", "Work journal > March 20, 2024",
                     "Work journal > March 20, 2024 > 21.03.2024"}, march
    april = {heading for _, heading in _found(engine, date_after="2024-04", date_before="2024-05")}
    assert april == {"2024-04-02 Standup", "2024-04-02 Standup > 2024年4月3日"}, april
    # the lines above the first date heading, and a heading that only names a date: the note's created date
    before = {heading for _, heading in _found(engine, date_before="2024")}
    assert before == {"Work journal", "Notes from 2024-05-01"}, before
    hit = engine.search("irrigation pipes", mode="keyword").hits[0]
    assert (hit.heading_path, hit.dated) == ("Work journal > March 20, 2024", _local(2024, 3, 20))


DATETREE = """#+TITLE: Journal
* 2024
** 2024-03 March
*** 2024-03-14 Thursday
**** Standup
The orchard standup.
*** 2024-03-15 Friday
The orchard pears grafted.
** 2024-04 April
The orchard in April.
"""


def test_an_org_datetrees_headlines_date_their_sections(immediate, sift_env, tmp_path):
    """org-capture's and org-journal's datetree: a headline a year, a month ('2024-03 March'), a day ('2024-03-14
    Thursday'), no timestamp of their own."""
    root = write_tree(tmp_path / "n", {"journal.org": DATETREE})
    os.utime(root / "journal.org", (LAST_WEEK, LAST_WEEK))
    ingest(root, "notes")
    engine = _engine(sift_env)
    assert {h for _, h in _found(engine, date_after="2024-03-14", date_before="2024-03-15")} == {
        "2024 > 2024-03 March > 2024-03-14 Thursday > Standup"}
    assert {h for _, h in _found(engine, date_after="2024-03-15", date_before="2024-05")} == {
        "2024 > 2024-03 March > 2024-03-15 Friday", "2024 > 2024-04 April"}


@pytest.mark.parametrize("path, day", [
    ("2024/March/notes.md", (2024, 3, 1)), ("2024/03 - March/notes.md", (2024, 3, 1)),
    ("2024/Mar/notes.md", (2024, 3, 1)), ("journal/2024/march/14.md", (2024, 3, 14)),
    ("2024/März/notes.md", (2024, 3, 1)), ("2024/March/14 Thursday.md", (2024, 3, 14)),
    ("2024/March/Standup/notes.md", (2024, 3, 1)), ("2024/sept/notes.md", (2024, 9, 1)),
    ("2024/Marketing/notes.md", None), ("projects/2024/Design/notes.md", None), ("March/notes.md", None)])
def test_a_month_folder_by_its_name(path, day):
    assert folder_date(path) == (_local(*day) if day else None)


def test_notes_in_month_name_folders_are_found_by_their_month_and_day(immediate, sift_env, tmp_path):
    root = write_tree(tmp_path / "n", {"2024/March/plans.md": "# Plans\n\nThe orchard plans.\n",
                                       "journal/2024/march/14.md": "# Thursday\n\nThe orchard day.\n",
                                       "2024/Marketing/brief.md": "# Brief\n\nThe orchard brief.\n"})
    for path in root.rglob("*.md"):
        os.utime(path, (LAST_WEEK, LAST_WEEK))
    ingest(root, "notes")
    engine = _engine(sift_env)
    assert {p for p, _ in _found(engine, date_after="2024-03", date_before="2024-04")} == {
        "2024/March/plans.md", "journal/2024/march/14.md"}
    assert {p for p, _ in _found(engine, date_after="2024-03-14", date_before="2024-03-15")} == {
        "journal/2024/march/14.md"}


def _spreadsheets() -> dict[str, bytes]:
    from tests.test_slides import c, calc, row
    from tests.test_xlsx import budget
    return {"budget.xlsx": _with_part(budget(), "docProps/core.xml", CORE),
            "ledger.ods": _with_part(calc({"Ledger": row(c("Item"), c("Cost")) + row(c("Harbour crane"), c(5.0))}),
                                     "meta.xml", ODF_META)}


def test_a_spreadsheets_properties_date_its_rows(immediate, sift_env, tmp_path):
    from ingest.parse import parse_file
    from ingest.passage_dates import document_date
    from tests.test_passage_dates import MAY_2019
    docs = {name: parse_file(name, data) for name, data in _spreadsheets().items()}
    assert {name: document_date(name, doc) for name, doc in docs.items()} == {
        "budget.xlsx": MAY_2019, "ledger.ods": _local(2019, 5, 2, 9, 30)}
    # a broken core.xml or meta.xml costs the date, not the sheets
    broken = parse_file("budget.xlsx", _with_part(_spreadsheets()["budget.xlsx"], "docProps/core.xml", "<cp:"))
    assert "created" not in broken.meta and broken.sections == docs["budget.xlsx"].sections
    broken = parse_file("ledger.ods", _with_part(_spreadsheets()["ledger.ods"], "meta.xml", "<office:"))
    assert "created" not in broken.meta and broken.sections == docs["ledger.ods"].sections
    root = tmp_path / "n"
    root.mkdir()
    for name, data in _spreadsheets().items():
        (root / name).write_bytes(data)
        os.utime(root / name, (LAST_WEEK, LAST_WEEK))
    ingest(root, "notes")
    from search.query.filters import Filters, unix_time
    engine = _engine(sift_env)
    for query, name in (("sonar", "budget.xlsx"), ("crane", "ledger.ods")):
        hits = engine.search(query, limit=20, mode="keyword", filters=Filters(
            date_after=unix_time("2019-05", "date_after"), date_before=unix_time("2019-06", "date_before"))).hits
        assert {h.path for h in hits} == {name}, (query, hits)


def test_ingest_similar_takes_date_flags(immediate, sift_env, tmp_path):
    root = write_tree(tmp_path / "n", {"work-journal.md": JOURNAL,
                                       "orchard.md": "# Orchard\n\nThe orchard apple trees pruned.\n"})
    ingest(root, "notes")
    result = run_ingest(sift_env, "similar", "notes/orchard.md", "--date-after", "2024-04", "--date-before", "2024-05")
    assert result.returncode == 0, result.stderr
    assert re.findall(r"dated (\S+)", result.stdout) and \
        set(re.findall(r"dated (\S+)", result.stdout)) <= {"2024-04-02", "2024-04-03"}, result.stdout
    everything = run_ingest(sift_env, "similar", "notes/orchard.md")  # its nearest passage: of 14 March
    assert re.findall(r"dated (\S+)", everything.stdout) == ["2024-03-14"], everything.stdout
    refused = run_ingest(sift_env, "similar", "notes/orchard.md", "--date-after", "2024", "--date-before", "2023")
    assert refused.returncode == 2 and "--date-after" in refused.stderr and "later than" in refused.stderr, \
        refused.stderr


def test_mcp_search_and_list_files_say_a_running_logs_dates(immediate, sift_env, tmp_path, servers):
    from tests.test_mcp_server import call, run, text
    root = write_tree(tmp_path / "n", {"work-journal.md": JOURNAL, "plain.md": "# Plain\n\nThe orchard roof.\n"})
    for path in root.rglob("*.md"):
        os.utime(path, (LAST_WEEK, LAST_WEEK))
    ingest(root, "notes")

    async def scenario():
        async with servers.session(sift_env, "--no-worker") as s:
            return [await call(s, "search", query="orchard", mode="keyword", date_after="2024-03-15",
                               date_before="2024-03-21"),
                    await call(s, "list_files", date_after="2024-03", date_before="2024-04")]
    found, listed = run(scenario)
    assert not found.is_error, text(found)
    assert sorted((r.get("heading_path"), r.get("dated")) for r in found.structured_content["results"]) == [
        ("Work journal > Fri 15 March 2024", "2024-03-15"), ("Work journal > March 20, 2024", "2024-03-20")]
    assert "dated 2024-03-15" in text(found)
    assert [(f["path"], f.get("dated")) for f in listed.structured_content["files"]] == [
        ("notes/work-journal.md", "2024-03-14 … 2024-03-21")], text(listed)


@pytest.mark.parametrize("heading, day", [
    ("giovedì 14 marzo 2024", (2024, 3, 14)), ("quinta-feira, 14 de março de 2024", (2024, 3, 14)),
    ("donderdag 14 maart 2024", (2024, 3, 14)), ("14 mei 2024", (2024, 5, 14)),
    ("четверг, 14 марта 2024", (2024, 3, 14)),
    ("14 марта 2024 г.", (2024, 3, 14)), ("2024년 3월 14일", (2024, 3, 14)), ("2024년 3월 14일 (목)", (2024, 3, 14)),
    ("2024年3月14日（木）", (2024, 3, 14)), ("2024年3月14日 星期四", (2024, 3, 14)), ("Март 2024", (2024, 3, 1)),
    ("2024년 3월", (2024, 3, 1)), ("settembre 2024", (2024, 9, 1)),
    # slashed, a day first or a month first where a number over 12 tells; 03/04/2024 cannot be told alone
    ("14/03/2024", (2024, 3, 14)), ("03/14/2024", (2024, 3, 14)), ("03/04/2024", None), ("14/14/2024", None),
    # a day without its year is no date alone
    ("Mon 14 March", None), ("3月14日", None), ("14", None)])
def test_a_heading_in_more_languages_and_slashed_is_a_date(heading, day):
    assert heading_date(heading) == (_local(*day) if day else None)


def _dated(paths: list[list[str]], path: str = "log.md") -> list[str | None]:
    from ingest.passage_dates import shown
    doc = Document(kind="note", title="Log", sections=[Section(text="x", heading_path=p) for p in paths])
    date_sections(doc, path)
    return [shown(section.dated) for section in doc.sections]


def test_a_day_without_its_year_takes_the_year_of_the_headings_over_it():
    assert _dated([["2024"], ["2024", "March"], ["2024", "March", "14"], ["2024", "March", "Thu 15", "Standup"],
                   ["2024", "April", "1st"], ["2024", "Mon 6 May"], ["2024", "3月14日 星期四"], ["2024年", "3月", "15日"],
                   ["2024", "May 20: release"], ["March 2024", "16"], ["2024-03", "17 Sunday"],
                   ["2024년", "3월 18일"], ["2024", "14 марта"], ["2024", "giovedì 21 marzo"], ["2024", "22 maart"],
                   ["2023", "December", "31"], ["2024", "January", "1"]]) == [
        None, "2024-03-01", "2024-03-14", "2024-03-15", "2024-04-01", "2024-05-06", "2024-03-14", "2024-03-15",
        "2024-05-20", "2024-03-16", "2024-03-17", "2024-03-18", "2024-03-14", "2024-03-21", "2024-03-22",
        "2023-12-31", "2024-01-01"]
    assert _dated([["2024年3月", "14日星期四"], ["2024年3月", "15日（金）"], ["2024년 3월", "16일 (토)"]]) == [
        "2024-03-14", "2024-03-15", "2024-03-16"]


@pytest.mark.parametrize("path, day", [("2024.md", "2024-03-14"), ("journal/2024/log.md", "2024-03-14"),
                                       ("Journal 2024.md", "2024-03-14"), ("2023/2024.md", "2024-03-14"),
                                       ("2024年工作日志.md", "2024-03-14"), ("日记/2024年/日志.md", "2024-03-14"),
                                       ("2024년 일기.md", "2024-03-14"), ("daily/2024-01-02.md", "2024-03-14"),
                                       ("journal/log.md", None),
                                       ("2024 budget v2.md", None), ("v2024.md", None), ("Report 2023-2024.md", None)])
def test_a_day_without_its_year_takes_its_files_year_else_none(path, day):
    assert _dated([["Log", "Mon 14 March"], ["Log", "March", "14"], ["Log", "Notes"]], path) == [day, day, None]


def test_a_day_with_no_year_over_it_or_a_numbered_heading_is_no_date():
    """No year over it: none (today's year is no guess); a day alone needs a month over it; numbered, counted
    or worded headings, a name that is a month's abbreviation ('Jan'), a time: none."""
    assert _dated([["Log", "Mon 14 March"], ["Log", "3月14日"], ["Log", "March", "14"],
                   ["2024 goals", "March", "14"]]) == [None] * 4
    assert _dated([["2024", "14"], ["2024", "1. Introduction"], ["2024", "March", "1. Introduction"],
                   ["2024", "March", "1 - Setup"], ["2024", "March", "1.2"], ["2024", "March", "14:30 call"],
                   ["2024", "March", "14 things I learned"], ["2024", "14 March plans"], ["2024", "Jan"],
                   ["2024", "Mars"], ["2024", "Jan", "14"], ["2024", "March", "32"]],
                  "2024.md") == [None, None, "2024-03-01", "2024-03-01", "2024-03-01", "2024-03-01", "2024-03-01",
                                 None, None, None, None, "2024-03-01"]


def test_a_logs_slashed_headings_are_read_in_the_order_its_others_tell():
    assert _dated([["03/04/2024"], ["14/03/2024"]]) == ["2024-04-03", "2024-03-14"]  # day first
    assert _dated([["03/04/2024"], ["03/14/2024"]]) == ["2024-03-04", "2024-03-14"]  # month first
    assert _dated([["03/04/2024"], ["05/06/2024"]]) == [None, None]  # nothing tells: no guess
    assert _dated([["03/04/2024"], ["14/03/2024"], ["03/15/2024"]]) == [None, "2024-03-14", "2024-03-15"]  # both


YEAR_LOG = """# Log

## Mon 4 March

Orchard pruning started.

## March

### 14

Orchard pears grafted.

### Fri 15

Orchard fence mended.

## 16 марта

Orchard irrigation checked.
"""


def test_a_yearless_log_in_a_year_file_is_found_by_its_days(immediate, sift_env, tmp_path):
    root = write_tree(tmp_path / "n", {"2024.md": YEAR_LOG, "undated/log.md": YEAR_LOG})
    for path in root.rglob("*.md"):
        os.utime(path, (LAST_WEEK, LAST_WEEK))
    ingest(root, "notes")
    engine = _engine(sift_env)
    assert _found(engine, date_after="2024-03-14", date_before="2024-03-16") == {
        ("2024.md", "Log > March > 14"), ("2024.md", "Log > March > Fri 15")}
    assert {h for p, h in _found(engine, date_after="2024-03", date_before="2024-04")} == {
        "Log > Mon 4 March", "Log > March > 14", "Log > March > Fri 15", "Log > 16 марта"}
    # the same log with no year over it: its file's modified time, last week, but for 'Mon 4 March', whose weekday
    # picks 2024 while 2024 is one of the last few years (ingest.short_dates.weekday_year)
    picked = {"undated/log.md"} if weekday_year(0, 3, 4) == 2024 else set()
    assert {p for p, _ in _found(engine, date_after="2024", date_before="2025")} == {"2024.md"} | picked


def test_a_month_or_a_day_alone_under_a_day_is_a_name_or_a_number():
    """A standup's '### May' (a person) under '## 2024-03-14', a '### 2' under a day: the day's date, not May's
    or the 2nd's."""
    assert _dated([["2024-03-14", "May"], ["2024-03-14", "2"], ["March 2024", "June"], ["March 2024", "14", "2"],
                   ["2024", "May", "June"], ["2024", "March", "Mon 4 March", "5"]]) == [
        "2024-03-14", "2024-03-14", "2024-03-01", "2024-03-14", "2024-05-01", "2024-03-04"]
