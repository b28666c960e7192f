"""Search by the date a passage is about (date_after / date_before), not only its file's mtime: a mailbox holds ten
years of mail in one file modified last week, a daily note named 2024-03-14.md was edited yesterday, a note's front
matter says date: 2023-05-01. Each passage keeps the date its file says (chunks.dated, ingest.passage_dates); a
passage without one goes by its file's modified time."""
from __future__ import annotations

import os
import re
import time
from datetime import datetime, timezone
from pathlib import Path

import pytest

from ingest.passage_dates import document_date, name_date
from ingest.document import Document
from tests.conftest import as_older_index, ingest, run_ingest, write_tree
from tests.test_mcp_server import call, run, text

MBOX = """From anna@example.com Mon Mar  4 09:12:00 2019
From: Anna <anna@example.com>
To: me@example.com
Subject: Greenhouse budget
Date: Mon, 4 Mar 2019 09:12:00 +0000

The greenhouse budget for the spring planting.

From anna@example.com Tue Mar  5 10:00:00 2024
From: Anna <anna@example.com>
To: me@example.com
Subject: Greenhouse budget again
Date: Tue, 5 Mar 2024 10:00:00 +0000

The greenhouse budget for the autumn planting.
"""

LAST_WEEK = time.time() - 7 * 86400


def _local(*day) -> float:
    return datetime(*day).timestamp()


def _tree(tmp_path: Path) -> Path:
    """A mailbox of 2019 and 2024, a daily note and a Logseq journal of March 2024, a note whose front matter says
    2023-05-01: all modified last week; a note with no date of its own modified in June 2022."""
    root = write_tree(tmp_path / "n", {
        "mail/anna.mbox": MBOX,
        "journal/2024-03-14.md": "# Thursday\n\nPlanted the greenhouse tomatoes.\n",
        "journals/2024_03_20.md": "- watered the greenhouse seedlings\n",
        "meetings/review.md": "---\ndate: 2023-05-01\n---\n# Review\n\nThe greenhouse heating review.\n",
        "plain.md": "# Plain\n\nThe greenhouse roof needs repair.\n",
    })
    for path in root.rglob("*.*"):
        os.utime(path, (LAST_WEEK, LAST_WEEK))
    os.utime(root / "plain.md", (_local(2022, 6, 10, 12),) * 2)
    ingest(root, "notes")
    return root


def _engine(sift_env):
    from search.query.engine import from_settings
    from search.settings import load
    return from_settings(load())


def _found(engine, **dates) -> set[tuple[str, str]]:
    from search.query.filters import Filters, unix_time
    filters = Filters(**{key: unix_time(value, key) for key, value in dates.items()})
    answer = engine.search("greenhouse", limit=20, mode="keyword", filters=filters)
    return {(hit.path, hit.heading_path) for hit in answer.hits}


def test_a_mailbox_passage_is_found_by_its_message_date_not_the_files(immediate, sift_env, tmp_path):
    _tree(tmp_path)
    engine = _engine(sift_env)
    mail = {hit for hit in _found(engine, date_after="2024") if hit[0] == "mail/anna.mbox"}
    assert mail == {("mail/anna.mbox", "Greenhouse budget again")}
    old = {hit for hit in _found(engine, date_before="2020") if hit[0] == "mail/anna.mbox"}
    assert old == {("mail/anna.mbox", "Greenhouse budget")}
    # the file's own modified time (last week) still goes by the file: both messages, or none
    assert {h for h in _found(engine, modified_after="2024") if h[0] == "mail/anna.mbox"} == {
        ("mail/anna.mbox", "Greenhouse budget"), ("mail/anna.mbox", "Greenhouse budget again")}
    assert not {h for h in _found(engine, modified_before="2020") if h[0] == "mail/anna.mbox"}


def test_daily_notes_front_matter_and_the_mtime_stand_in(immediate, sift_env, tmp_path):
    _tree(tmp_path)
    engine = _engine(sift_env)
    march = {path for path, _ in _found(engine, date_after="2024-03-10", date_before="2024-04")}
    assert march == {"journal/2024-03-14.md", "journals/2024_03_20.md"}, march
    day = {path for path, _ in _found(engine, date_after="2024-03-14", date_before="2024-03-15")}
    assert day == {"journal/2024-03-14.md"}
    assert {path for path, _ in _found(engine, date_after="2023-05", date_before="2023-06")} == {"meetings/review.md"}
    # a note that says no date: its file's modified time
    assert {path for path, _ in _found(engine, date_after="2022-06", date_before="2022-07")} == {"plain.md"}
    assert _found(engine, date_before="2023") == {("plain.md", "Plain"), ("mail/anna.mbox", "Greenhouse budget")}
    hits = engine.search("tomatoes", mode="keyword").hits
    assert [(h.path, h.dated) for h in hits] == [("journal/2024-03-14.md", _local(2024, 3, 14))]
    assert engine.search("roof", mode="keyword").hits[0].dated is None


@pytest.mark.parametrize("mode", ["keyword", "semantic"])
def test_the_postings_and_vectors_in_memory_filter_by_the_passage_date_too(immediate, sift_env, tmp_path, embedder,
                                                                           mode):
    """A warmed engine ranks keywords from postings in memory and meaning from vectors in memory, both masked by the
    catalog (not SQL): the same passages pass."""
    from search.query.engine import Engine
    from search.query.filters import Filters, unix_time
    _tree(tmp_path)
    engine = Engine(Path(os.environ["SIFT_HOME"]) / "index.db", lambda: embedder, keyword_postings=True)
    engine.warm()
    hits = engine.search("greenhouse budget", limit=20, mode=mode,
                         filters=Filters(date_after=unix_time("2024", "date_after"))).hits
    assert {(h.path, h.heading_path) for h in hits if h.path.endswith(".mbox")} == {
        ("mail/anna.mbox", "Greenhouse budget again")}
    assert {h.path for h in hits} <= {"mail/anna.mbox", "journal/2024-03-14.md", "journals/2024_03_20.md"}
    spring = engine.search("greenhouse", limit=20, mode=mode, filters=Filters(
        date_after=unix_time("2024-03-10", "date_after"), date_before=unix_time("2024-04", "date_before"))).hits
    assert {h.path for h in spring} == {"journal/2024-03-14.md", "journals/2024_03_20.md"}


def test_mcp_search_takes_date_after_shows_the_date_and_refuses_a_bad_one(immediate, sift_env, tmp_path, servers):
    _tree(tmp_path)

    async def scenario():
        async with servers.session(sift_env, "--no-worker") as s:
            return [await call(s, "search", **arguments) for arguments in (
                {"query": "budget", "mode": "keyword", "date_after": "2024"},
                {"query": "greenhouse", "mode": "hybrid", "date_after": "2024-03-10", "date_before": "2024-04"},
                {"query": "greenhouse", "date_after": "last March"},
                {"query": "greenhouse", "date_after": "2024", "date_before": "2023"})]
    budget, march, bad, empty = run(scenario)
    assert not budget.is_error, text(budget)
    results = budget.structured_content["results"]
    assert [(r["path"], r.get("heading_path"), r.get("dated")) for r in results] == [
        ("notes/mail/anna.mbox", "Greenhouse budget again",
         datetime.fromtimestamp(datetime(2024, 3, 5, 10, tzinfo=timezone.utc).timestamp()).isoformat(sep=" "))]
    assert f"dated {results[0]['dated']}" in text(budget)
    assert {r["path"] for r in march.structured_content["results"]} == {"notes/journal/2024-03-14.md",
                                                                      "notes/journals/2024_03_20.md"}
    assert {r.get("dated") for r in march.structured_content["results"]} == {"2024-03-14", "2024-03-20"}
    assert bad.is_error and "date_after must be an ISO date like 2024-03-01" in text(bad), text(bad)
    assert "'last March'" in text(bad)
    assert empty.is_error and "date_after" in text(empty) and "later than date_before" in text(empty), text(empty)


def test_ingest_search_takes_date_flags(immediate, sift_env, tmp_path):
    _tree(tmp_path)
    result = run_ingest(sift_env, "search", "greenhouse", "--mode", "keyword", "--date-after", "2023-05",
                        "--date-before", "2023-06")
    assert result.returncode == 0, result.stderr
    assert re.findall(r"notes/([^\s:]+)", result.stdout) == ["meetings/review.md"], result.stdout
    assert "dated 2023-05-01" in result.stdout
    refused = run_ingest(sift_env, "search", "greenhouse", "--date-after", "2024", "--date-before", "2024")
    assert refused.returncode == 2 and "--date-after and --date-before are the same moment" in refused.stderr, \
        refused.stderr


def test_an_index_from_before_v20_is_searched_by_mtime_and_migrated(immediate, sift_env, tmp_path):
    """A reader opens the index without migrating it: an older index has no passage dates, and date_after goes by
    the files' mtimes there, where it failed on the missing column; a writer adds it (NULL until files are read
    again, which the chunker's new version makes a scan do)."""
    from search.index import db, schema
    _tree(tmp_path)
    path = as_older_index(sift_env, "DROP INDEX chunks_dated; ALTER TABLE chunks DROP COLUMN dated;", 19)
    engine = _engine(sift_env)
    assert {p for p, _ in _found(engine, date_after="2024")} == {"mail/anna.mbox", "journal/2024-03-14.md",
                                                                  "journals/2024_03_20.md", "meetings/review.md"}
    upgraded = db.connect(path)
    assert schema.version(upgraded) == len(schema.MIGRATIONS) >= 20
    assert upgraded.execute("SELECT count(*) FROM chunks WHERE dated IS NOT NULL").fetchone()[0] == 0
    upgraded.close()


@pytest.mark.parametrize("name, day", [
    ("journal/2024-03-14.md", (2024, 3, 14)), ("journals/2024_03_14.md", (2024, 3, 14)),
    ("20240314.md", (2024, 3, 14)), ("2024-03-14 Thursday.md", (2024, 3, 14)),
    ("2024.03.14.md", (2024, 3, 14)), ("Standup 2024-03-14.md", (2024, 3, 14)),
    ("2024-03-14-retro.org", (2024, 3, 14)), ("daily/2019-12-31", (2019, 12, 31)),
    ("v2024-03-14.md", None), ("build-20240314.2.md", None), ("2024-03-14.2.md", None),
    ("202403141230 Zettel.md", None), ("20240314093000_add_users.md", None), ("2024-13-01.md", None),
    ("2024-02-30.md", None), ("12345678.md", None), ("notes 2024-3-14.md", None), ("2024-03.md", None),
])
def test_a_date_in_a_name_stands_apart_and_is_a_real_day(name, day):
    assert name_date(name) == (_local(*day) if day else None)


def test_front_matter_date_comes_before_the_name_and_created_after_it():
    def dated(path, meta, kind="note"):
        return document_date(path, Document(kind=kind, title="", sections=[], meta=meta))
    assert dated("2024-03-14.md", {"date": "2023-05-01"}) == _local(2023, 5, 1)
    assert dated("2024-03-14.md", {"created": "2023-05-01 10:30:00"}) == _local(2024, 3, 14)
    assert dated("notes.md", {"created": "2023-05-01 10:30:00"}) == _local(2023, 5, 1, 10, 30)
    assert dated("notes.md", {"date": "someday"}) is None
    assert dated("notes.md", {"date": "2023-05-01 10:00:00+00:00"}) == datetime(2023, 5, 1, 10,
                                                                                tzinfo=timezone.utc).timestamp()
    assert dated("notes.md", {"date": "2023-5-1 (a Monday)"}) == _local(2023, 5, 1)
    assert dated("db/migrate/20240314093000_add_users.rb", {}, "code") is None
    assert dated("2024-03-14.py", {}, "code") is None
