"""What the date filters say back, as an assistant and a person at the command line meet them: a date written
otherwise than ISO ('March 2024', '2024/03/14', 'last week') refused with how to write it; a range that leaves
nothing named in passages (date_after picks a mailbox's messages, not the file) and in local time, as given; a
search or similar the date range leaves empty said so, not 'try other words' or a bare 'no other passages found';
`ingest similar` taking the MCP tool's filters; list_files' one file past an offset not read as a count."""
from __future__ import annotations

import re
import time
from dataclasses import replace
from datetime import datetime

import pytest

from tests.conftest import run_ingest
from tests.test_mcp_server import call, run, text
from tests.test_passage_dates import _tree


@pytest.mark.parametrize("given, said", [
    ("March 2024", "write it 2024-03 (a month is read as its first day)"),
    ("Mar 2024", "write it 2024-03 (a month"),
    ("14 March 2024", "write it 2024-03-14"),
    ("March 14th, 2024", "write it 2024-03-14"),
    ("2024/03/14", "write it 2024-03-14"),
    ("2024-3-5", "write it 2024-03-05"),
    ("2024年3月14日", "write it 2024-03-14"),
    ("2024年3月", "write it 2024-03 (a month"),
    ("14/03/2024", "write it 2024-03-14"),
    ("03/04/2024", "which of 3 and 4 is the month cannot be told: write it 2024-MM-DD"),
    ("last week", "give the date itself, counted from today ("),
    # the question's word before the date: 'since 2024' was told to count from today, the others nothing
    ("since 2024", "write it 2024 (a year is read as its first day; 'since' is what date_after means)"),
    ("after March 2024", "write it 2024-03 (a month is read as its first day; 'after' is what date_after means)"),
    ("from 14 March 2024", "write it 2024-03-14 ('from' is what date_after means)"),
    ("before 2023", "write it 2023 as date_before (a year is read as its first day; 'before' is what date_before "
                    "means)"),
    ("since last week", "give the date itself, counted from today ("),
])
def test_a_date_written_otherwise_is_refused_with_how_to_write_it(given, said):
    from search.query.filters import unix_time
    with pytest.raises(ValueError) as refused:
        unix_time(given, "date_after")
    assert str(refused.value).startswith(f"date_after must be an ISO date like 2024-03-01 or a date-time like "
                                         f"2024-03-01T14:30, not {given!r}: {said}"), str(refused.value)


@pytest.mark.parametrize("given, name, said", [
    ("in 2024", "date_after", "for 2024, give date_after=2024 and date_before=2025 (date_before leaves out the date it "
                              "names)"),
    ("during 2023", "date_before", "for 2023, give date_after=2023 and date_before=2024 ("),
    ("in March 2024", "date_after", "for 2024-03, give date_after=2024-03 and date_before=2024-04 ("),
    ("in 2024-12", "modified_after", "for 2024-12, give modified_after=2024-12 and modified_before=2025-01 ("),
    ("in 2024", "--date-before", "for 2024, give --date-after 2024 --date-before 2025 (--date-before leaves out"),
    ("between 2023 and 2024", "date_after", "from 2023 through 2024, give date_after=2023 and date_before=2025 "
                                            "(date_before leaves out the date it names: date_before=2024 would leave "
                                            "2024 out)"),
    ("from 2024-03 to 2024-05", "date_before", "from 2024-03 through 2024-05, give date_after=2024-03 and "
                                               "date_before=2024-06 ("),
    ("from 14 March 2024 to 20 March 2024", "date_after", "from 2024-03-14 through 2024-03-20, give "
                                                          "date_after=2024-03-14 and date_before=2024-03-21 ("),
    ("until March 2024", "date_after", "write it 2024-04 as date_before to take in 2024-03, or 2024-03 to stop before "
                                       "it ('until' is what date_before means)"),
    ("until 2024-05-01", "date_before", "write it 2024-05-02 to take in 2024-05-01, or 2024-05-01 to stop before it"),
    ("in 03/04/2024", "date_after", "which of 3 and 4 is the month cannot be told"),
])
def test_a_period_or_a_range_given_to_one_argument_is_refused_with_both_written(given, name, said):
    """'in 2024' or 'between 2023 and 2024' given to one argument: what to give each of the two, the last end of a
    range taken in whole (date_before leaves out the date it names); they were refused with the ISO forms alone."""
    from search.query.filters import unix_time
    with pytest.raises(ValueError) as refused:
        unix_time(given, name)
    assert str(refused.value).startswith(f"{name} must be an ISO date like 2024-03-01 or a date-time like "
                                         f"2024-03-01T14:30, not {given!r}: {said}"), str(refused.value)


@pytest.mark.parametrize("given", ["in the morning", "between 2023 and then", "until 2024-13", "from 2024-03 to x"])
def test_a_period_or_a_range_of_no_dates_gets_no_spelling(given):
    from search.query.filters import unix_time
    with pytest.raises(ValueError) as refused:
        unix_time(given, "date_after")
    assert str(refused.value).endswith(f"not {given!r}"), str(refused.value)


@pytest.mark.parametrize("given", ["bad", "2024-13", "Feb 30 2024", "may be 2024"])
def test_what_reads_as_no_date_gets_no_spelling(given):
    from search.query.filters import unix_time
    with pytest.raises(ValueError) as refused:
        unix_time(given, "date_after")
    assert str(refused.value).endswith(f"not {given!r}"), str(refused.value)


@pytest.mark.parametrize("given, day", [("2024", (2024, 1, 1)), ("2024-03", (2024, 3, 1)),
                                        ("2024-03-14", (2024, 3, 14)), ("2024-03-14T09:00", (2024, 3, 14, 9))])
def test_the_iso_forms_are_taken_as_local_time(given, day):
    from search.query.filters import unix_time
    assert unix_time(given, "date_after") == datetime(*day).timestamp()


def test_an_empty_date_range_is_said_of_passages_in_local_time(monkeypatch):
    """'date_after (2024-04-30 22:00:00 UTC) is later than … no file can match' for date_after='2024-05' in
    Berlin: a time nobody gave, and files, where the range picks passages."""
    from search.query.filters import empty_range, unix_time
    monkeypatch.setenv("TZ", "Europe/Berlin")
    time.tzset()
    try:
        may, april = unix_time("2024-05", "date_after"), unix_time("2024-04", "date_before")
        crossed = empty_range(may, april, ("date_after", "date_before"))
        same = empty_range(may, may, ("--date-after", "--date-before"))
        files = empty_range(may, april)
    finally:
        monkeypatch.delenv("TZ")
        time.tzset()
    assert crossed == ("date_after (2024-05-01 00:00:00) is later than date_before (2024-04-01 00:00:00): no passage "
                       "can match; swap them or drop one")
    assert same.endswith("no passage can match; for the passages about that day, give --date-before the day after "
                         "(2024-05-02)"), same
    assert files.startswith("modified_after (2024-05-01 00:00:00) is later") and "no file can match" in files


def test_the_tools_say_what_the_date_range_left(immediate, sift_env, tmp_path, servers):
    _tree(tmp_path)

    async def scenario():
        async with servers.session(sift_env, "--no-worker") as s:
            return [await call(s, tool, **arguments) for tool, arguments in (
                ("search", {"query": "greenhouse", "date_after": "2999"}),
                ("search", {"query": "greenhouse", "kind": "pdf"}),
                ("similar", {"path": "notes/plain.md", "date_after": "2999"}),
                ("similar", {"path": "notes/plain.md", "date_before": "2020"}),
                ("search", {"query": "greenhouse", "date_after": "March 2024"}),
                ("list_files", {"date_after": "2024-03", "date_before": "2024-04", "limit": 1, "offset": 1}))]
    future, pdf, alike, old, spelled, second = run(scenario)
    assert "no passages match: the filters leave no passage to search (the note above says which)" in text(future)
    assert "no passages match: the filters leave no file to search" in text(pdf), text(pdf)  # a kind: files
    assert alike.structured_content["results"] == [], text(alike)
    assert any(n.startswith("no passage searched is about a date at or after 2999-01-01")
               for n in alike.structured_content["notes"]), text(alike)
    assert "no other passages found: the filters leave no passage to search" in text(alike), text(alike)
    assert [r["path"] for r in old.structured_content["results"]] == ["notes/mail/anna.mbox"], text(old)
    assert not old.structured_content.get("notes") and "no other passages" not in text(old)
    assert spelled.is_error and "not 'March 2024': write it 2024-03" in text(spelled), text(spelled)
    head = text(second).splitlines()[0]
    assert head == "3 files match; showing file 2 (newest date first)" and second.structured_content["shown"] == 1, head


def test_ingest_similar_takes_the_tools_filters(immediate, sift_env, tmp_path):
    """`ingest similar notes/plain.md --date-before 2020` was refused 'unrecognized arguments: --date-before'."""
    _tree(tmp_path)
    old = run_ingest(sift_env, "similar", "notes/plain.md", "--date-before", "2020")
    assert old.returncode == 0, old.stderr
    assert re.findall(r"notes/([^\s:]+)", old.stdout.split("\n", 1)[1]) == ["mail/anna.mbox"], old.stdout
    narrowed = run_ingest(sift_env, "similar", "notes/plain.md", "--collection", "notes", "--path-prefix", "journal",
                          "--glob", "*.md", "--kind", "note", "--json")
    assert narrowed.returncode == 0, narrowed.stderr
    assert set(re.findall(r'"path": "([^"]+)"', narrowed.stdout)) == {"journal/2024-03-14.md"}, narrowed.stdout
    none = run_ingest(sift_env, "similar", "notes/plain.md", "--date-after", "2999")
    assert none.returncode == 0, none.stderr
    assert "note: no passage searched is about a date at or after 2999-01-01" in none.stdout, none.stdout
    assert "no other passages found like notes/plain.md (the filters leave none" in none.stdout, none.stdout
    crossed = run_ingest(sift_env, "similar", "notes/plain.md", "--date-after", "2024", "--date-before", "2023")
    assert crossed.returncode == 2 and "--date-after (2024-01-01 00:00:00) is later than --date-before" in \
        crossed.stderr, crossed.stderr


def test_a_date_range_over_passages_without_dates_says_it_went_by_the_modified_time(immediate, sift_env, tmp_path):
    """date_after on code, or on an index read before Sift kept passage dates, went by each file's mtime, and the
    answer read as though passages had been picked by the dates they are about."""
    from search.query.answer_notes import UNDATED
    from search.query.engine import from_settings
    from search.query.filters import Filters, unix_time
    from search.settings import load
    from tests.conftest import as_older_index, ingest, write_tree
    root = _tree(tmp_path)
    ingest(write_tree(tmp_path / "code", {"greenhouse.py": "def greenhouse():\n    return 'greenhouse'\n"}), "code")
    since = Filters(date_after=unix_time("2000", "date_after"))

    def notes(**narrow) -> list[str]:
        engine = from_settings(load())
        answer = engine.search("greenhouse", mode="keyword", filters=replace(since, **narrow))
        alike = engine.similar(path=("notes", "plain.md"), filters=replace(since, **narrow))
        engine.close()
        return [n for n in answer.notes + alike.notes if n.startswith(UNDATED)]
    assert notes() == [] and notes(collection="notes") == [] and notes(path_prefix="journal") == []
    assert len(notes(collection="code")) == 2  # search's and similar's
    assert len(notes(path_prefix="meetings")) == 0 and len(notes(path_prefix="mail")) == 0
    assert notes(collection="notes", glob="plain.md")[0].endswith("the date range went by each file's modified "
                                                                  "time (an index read before Sift kept passage "
                                                                  "dates has them once its files are read again)")
    assert notes(collection="notes", date_after=None) == []  # no date range: nothing to say
    as_older_index(sift_env, "DROP INDEX chunks_tagged; ALTER TABLE chunks DROP COLUMN tags; "
                             "DROP INDEX chunks_dated; ALTER TABLE chunks DROP COLUMN dated;", 19)
    assert root.exists() and len(notes(collection="notes")) == 2


@pytest.mark.parametrize("given", ["2024-03-14T09:00Z", "2024-03-14T09:00:00z", "2024-03-14T09:00+00:00"])
def test_utc_written_z_is_taken_on_every_python_sift_runs_on(given):
    """Python 3.10's fromisoformat refused a trailing 'Z' (3.11 takes it): '2024-03-14T09:00Z' was no date there."""
    from datetime import timezone
    from search.query.filters import _whole_date, unix_time
    assert unix_time(given, "date_after") == datetime(2024, 3, 14, 9, tzinfo=timezone.utc).timestamp()
    assert not _whole_date(given).lower().endswith("z")  # what a 3.10 fromisoformat is given


def test_list_files_by_date_over_an_index_without_passage_dates_says_it_went_by_the_modified_time(immediate, sift_env,
                                                                                                tmp_path):
    """On an index read before Sift kept passage dates, list_files' date range listed every file by its modified
    time under a note naming daily notes and mailboxes (by their own dates), none of which had been read so."""
    from search.index import db
    from search.query import listing
    from search.query.filters import unix_time
    from search.query.listing import UNDATED_NOTE
    from search.query.scope import MCP, Scope
    from search.settings import load
    from tests.conftest import as_older_index
    root = _tree(tmp_path)

    def listed(index) -> dict:
        conn = db.connect(index, readonly=True)
        try:
            return listing.files(conn, Scope(None, None), None, "modified", 50, {"notes": str(root)}, MCP,
                                 lambda *_: None, 0, dated=(unix_time("2024-03", "a"), unix_time("2024-04", "b")))
        finally:
            conn.close()
    index = load().index_path
    assert UNDATED_NOTE not in listed(index)["notes"]
    as_older_index(sift_env, "DROP INDEX chunks_tagged; ALTER TABLE chunks DROP COLUMN tags; "
                             "DROP INDEX chunks_dated; ALTER TABLE chunks DROP COLUMN dated;", 19)
    old = listed(index)
    assert old["files"] == [] and UNDATED_NOTE in old["notes"], old  # all modified last week: none in March 2024
