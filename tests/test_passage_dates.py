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

from ingest.passage_dates import document_date, folder_date, name_date
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
    path = as_older_index(sift_env, "DROP INDEX chunks_tagged; ALTER TABLE chunks DROP COLUMN tags; "
                                    "DROP INDEX chunks_dated; ALTER TABLE chunks DROP COLUMN dated;", 19)
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
    ("202403141290 Zettel.md", None), ("2024031412 Zettel.md", None), ("2024-13-01.md", None),
    ("2024-02-30.md", None), ("12345678.md", None), ("notes 2024-3-14.md", None), ("2024-03.md", (2024, 3, 1)),
    ("docs/20491205.md", None), ("docs/19460822.md", None), ("1946-08-22 Treaty.md", (1946, 8, 22)),
    ("IMG_20240314_1200.md", (2024, 3, 14)), ("RFC-2024-03.md", None), ("v1.2024.03.14.md", None),
    ("2024-W11.md", (2024, 3, 11)),
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


@pytest.mark.parametrize("path, day", [
    ("journal/2024/03/14.md", (2024, 3, 14)), ("journal/2024/03-14.md", (2024, 3, 14)),
    ("journal/2024/3/14 Thursday.md", (2024, 3, 14)), ("blog/2024/03/14/harbour/index.md", (2024, 3, 14)),
    ("2024-03-14/notes.md", (2024, 3, 14)), ("2024-03-14 Standup/notes.md", (2024, 3, 14)),
    ("2024/0314.md", (2024, 3, 14)),
    # a month folder: its first day, so that date_after=2024-03, date_before=2024-04 finds the notes filed in it
    ("2024/2024-03 March/notes.md", (2024, 3, 1)), ("2024/03/notes.md", (2024, 3, 1)),
    ("archive/2024_03/notes.md", (2024, 3, 1)), ("2024/03/14-draft2.md", (2024, 3, 1)),
    ("2024/02/30.md", (2024, 2, 1)),
    # a year alone, a month that is none, a version's folders, a file's own name: none from the folders
    ("2024/notes.md", None), ("2024/13/14.md", None), ("projects/v2/03/14.md", None), ("a/2024/03.md", None),
    ("notes.md", None),
])
def test_a_date_its_folders_make_a_day_or_a_months_first_day(path, day):
    assert folder_date(path) == (_local(*day) if day else None)


def test_the_files_name_comes_before_its_folders():
    def dated(path, meta=None, kind="note"):
        return document_date(path, Document(kind=kind, title="", sections=[], meta=meta or {}))
    assert dated("Daily/2024/03/2024-03-14.md") == _local(2024, 3, 14)  # Obsidian's: the name's day, not March 1st
    assert dated("2024/2024-03 March/2024-03-20 Standup.md") == _local(2024, 3, 20)
    assert dated("journal/2024/03/14.md", {"created": "2024-05-01"}) == _local(2024, 3, 14)
    assert dated("2024/03/notes.md", {"date": "2023-05-01"}) == _local(2023, 5, 1)
    assert dated("src/2024/03/14.py", kind="code") is None


def test_daily_notes_in_year_and_month_folders_are_found_by_their_day(immediate, sift_env, tmp_path):
    root = write_tree(tmp_path / "n", {
        "journal/2024/03/14.md": "Planted the greenhouse tomatoes.\n",
        "journal/2024/03-15.md": "Watered the greenhouse tomatoes.\n",
        "Daily/2024/03/2024-03-16.md": "Staked the greenhouse tomatoes.\n",
        "2024/2024-03 March/notes.md": "Greenhouse tomatoes ordered.\n",
        "2024/notes.md": "Greenhouse tomatoes all year.\n",
    })
    for path in root.rglob("*.md"):
        os.utime(path, (LAST_WEEK, LAST_WEEK))
    ingest(root, "notes")
    engine = _engine(sift_env)
    march = {path for path, _ in _found(engine, date_after="2024-03", date_before="2024-04")}
    assert march == {"journal/2024/03/14.md", "journal/2024/03-15.md", "Daily/2024/03/2024-03-16.md",
                     "2024/2024-03 March/notes.md"}, march
    assert {path for path, _ in _found(engine, date_after="2024-03-15", date_before="2024-03-16")} == {
        "journal/2024/03-15.md"}
    hits = engine.search("ordered", mode="keyword").hits
    assert [(h.path, h.dated) for h in hits] == [("2024/2024-03 March/notes.md", _local(2024, 3, 1))]


def _with_part(data: bytes, name: str, text: str) -> bytes:
    """A zip (an Office or OpenDocument file) with one part added or put in place of its own."""
    import io
    import zipfile
    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(data)) as old, zipfile.ZipFile(out, "w") as new:
        for item in old.infolist():
            if item.filename != name:
                new.writestr(item, old.read(item.filename))
        new.writestr(name, text)
    return out.getvalue()


CORE = ('<cp:coreProperties xmlns:cp="http://schemas.openxmlformats.org/package/2006/metadata/core-properties" '
        'xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:dcterms="http://purl.org/dc/terms/" '
        'xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"><dc:title>Harbour</dc:title>'
        '<dcterms:created xsi:type="dcterms:W3CDTF">2019-05-02T09:30:00Z</dcterms:created></cp:coreProperties>')
ODF_META = ('<office:document-meta xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" '
            'xmlns:meta="urn:oasis:names:tc:opendocument:xmlns:meta:1.0"><office:meta>'
            '<meta:creation-date>2019-05-02T09:30:00.123456789</meta:creation-date></office:meta>'
            '</office:document-meta>')
MAY_2019 = datetime(2019, 5, 2, 9, 30, tzinfo=timezone.utc).timestamp()


def _documents() -> dict[str, bytes]:
    """A .docx, .odt, .pptx, .odp, .epub, .pdf and .org each dated 2019-05-02 by its own properties."""
    docx = pytest.importorskip("docx", reason="python-docx is not installed (scripts/setup installs it)")
    from tests.test_epub import book
    from tests.test_pdf_parser import sized_pdf
    from tests.test_slides import frame, impress, pptx, shape, slide
    from tests.test_word import odt
    word = docx.Document()
    word.add_paragraph("The harbour survey of the quay.")
    word.core_properties.created = datetime(2019, 5, 2, 9, 30)  # python-docx writes it as UTC ('…Z')
    saved = __import__("io").BytesIO()
    word.save(saved)
    deck = pptx([(slide([shape(["Harbour"], "title"), shape(["The harbour survey of the quay."], "body")]), None)])
    opf = ('<dc:title>The Harbour Book</dc:title><dc:date opf:event="modification" '
           'xmlns:opf="http://www.idpf.org/2007/opf">2023-01-01</dc:date><dc:date>2019-05-02</dc:date>')
    return {  # the PDF not named survey.pdf: the export of survey.docx beside it is left out (ingest.links)
        "survey.docx": saved.getvalue(),
        "survey.odt": _with_part(odt(), "meta.xml", ODF_META),
        "survey.pptx": _with_part(deck, "docProps/core.xml", CORE),
        "survey.odp": _with_part(impress(), "meta.xml", ODF_META),
        "survey.epub": book(title=opf),
        "paper.pdf": sized_pdf([(10, "The harbour survey of the quay.")], b"/CreationDate (D:20190502093000Z)"),
        "survey.org": b"#+TITLE: Survey\n#+DATE: <2019-05-02 Thu>\n* Quay\nThe harbour survey of the quay.\n",
    }


def test_a_documents_own_properties_date_it_where_its_name_does_not():
    """Word's and PowerPoint's created date (docProps/core.xml), LibreOffice's (meta.xml, local time), an EPUB's
    dc:date (its publication, not an EPUB 2 modification), a PDF's CreationDate, org's #+DATE:."""
    from ingest.parse import parse_file
    expected = {".docx": MAY_2019, ".pptx": MAY_2019, ".pdf": MAY_2019, ".odt": _local(2019, 5, 2, 9, 30),
                ".odp": _local(2019, 5, 2, 9, 30), ".epub": _local(2019, 5, 2), ".org": _local(2019, 5, 2)}
    for name, data in _documents().items():
        doc = parse_file(name, data)
        assert document_date(name, doc) == expected[name[name.rindex("."):]], name
        # a name's date comes first for a property stamped by the program (a file copied keeps its created date);
        # org's #+DATE: is written by its author, as front matter's date:, and comes before the name
        later = document_date("2024-03-14 " + name, doc)
        assert later == (expected[".org"] if name.endswith(".org") else _local(2024, 3, 14)), name


def test_documents_are_found_by_their_own_dates(immediate, sift_env, tmp_path):
    root = tmp_path / "n"
    root.mkdir()
    for name, data in _documents().items():
        (root / name).write_bytes(data)
        os.utime(root / name, (LAST_WEEK, LAST_WEEK))
    ingest(root, "notes")
    engine = _engine(sift_env)
    from search.query.filters import Filters, unix_time
    hits = engine.search("harbour survey quay", limit=20, mode="keyword", filters=Filters(
        date_after=unix_time("2019-05", "date_after"), date_before=unix_time("2019-06", "date_before"))).hits
    assert {h.path for h in hits} == set(_documents()), {h.path for h in hits}


ORG_LOG = """#+TITLE: Garden log
#+DATE: 2024-01-01
The garden log of the year.
* Meeting with Anna about the greenhouse <2024-03-14 Thu>
The greenhouse budget.
** Follow-up
The greenhouse seeds to order.
* DONE Repair the greenhouse door
CLOSED: [2024-06-20 Thu 10:00]
The greenhouse door repaired.
* Greenhouse plans
The greenhouse plans, no date of their own.
"""


def test_an_org_headlines_own_timestamp_dates_its_section(immediate, sift_env, tmp_path):
    """A headline's timestamp (or its planning line's, CLOSED: …) dates its section and those under it, as a mail
    message's Date does; the rest go by #+DATE:."""
    from ingest.org import parse_org
    dates = {tuple(s.heading_path): s.dated for s in parse_org("log.org", ORG_LOG).sections}
    assert dates == {(): None, ("Meeting with Anna about the greenhouse <2024-03-14 Thu>",): _local(2024, 3, 14),
                     ("Meeting with Anna about the greenhouse <2024-03-14 Thu>", "Follow-up"): _local(2024, 3, 14),
                     ("Repair the greenhouse door",): _local(2024, 6, 20, 10), ("Greenhouse plans",): None}
    root = write_tree(tmp_path / "n", {"log.org": ORG_LOG})
    ingest(root, "notes")
    engine = _engine(sift_env)
    march = {heading for _, heading in _found(engine, date_after="2024-03", date_before="2024-04")}
    assert march == {"Meeting with Anna about the greenhouse <2024-03-14 Thu>",
                     "Meeting with Anna about the greenhouse <2024-03-14 Thu> > Follow-up"}, march
    january = {heading for _, heading in _found(engine, date_after="2024-01", date_before="2024-02")}
    assert january == {"Greenhouse plans"}, january  # under no dated headline: the file's #+DATE:
    assert {h for _, h in _found(engine, date_after="2024-06-20", date_before="2024-06-21")} == {
        "Repair the greenhouse door"}
