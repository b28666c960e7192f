"""list_files' date_after / date_before: "which notes did I write in March 2024" lists the files with a passage about a
date in that range, as search's date filters find passages (a daily note by its name, a note by its front matter date,
a mailbox by any message's Date, any other file by its modified time). list_files had no date filter at all: an
assistant asked for March's notes listed the newest files and guessed from their names."""
from __future__ import annotations

import re
from datetime import datetime

from tests.conftest import as_older_index, run_ingest
from tests.test_mcp_server import call, run, text
from tests.test_passage_dates import _tree


def _listed(data: dict) -> set[str]:
    return {f["path"] for f in data["files"]}


def test_list_files_by_the_dates_passages_are_about(immediate, sift_env, tmp_path):
    """All five files were modified last week, but plain.md (June 2022): the range goes by what each says."""
    from search.index import db
    from search.query import listing
    from search.query.filters import unix_time
    from search.query.scope import MCP, Scope
    from search.settings import load
    root = _tree(tmp_path)
    conn = db.connect(load().index_path, readonly=True)

    def listed(after=None, before=None, **more):
        dated = (unix_time(after, "date_after"), unix_time(before, "date_before"))
        return listing.files(conn, Scope(None, None), more.get("glob"), "modified", more.get("limit", 50),
                             {"notes": str(root)}, MCP, lambda *_: None, more.get("offset", 0), dated=dated)
    march = listed("2024-03", "2024-04")
    assert _listed(march) == {"notes/mail/anna.mbox", "notes/journal/2024-03-14.md", "notes/journals/2024_03_20.md"}
    assert march["total"] == 3 and any("date_after / date_before list the files" in n for n in march["notes"])
    assert _listed(listed("2019", "2020")) == {"notes/mail/anna.mbox"}  # its other message
    assert _listed(listed("2023-05", "2023-06")) == {"notes/meetings/review.md"}  # front matter, not last week
    old = listed(before="2023")
    assert _listed(old) == {"notes/mail/anna.mbox", "notes/plain.md"}  # no date: its mtime
    # what put each in the range: its passages' dates there (the mailbox's 2019 message), or nothing (its mtime)
    assert {f["path"]: f.get("dated") for f in old["files"]} == {
        "notes/mail/anna.mbox": [datetime(2019, 3, 4, 9, 12).timestamp()], "notes/plain.md": None}  # as its Date says
    assert {f["path"]: f.get("dated") for f in march["files"]}["notes/journal/2024-03-14.md"] == [
        datetime(2024, 3, 14).timestamp()]
    assert not any("dated" in f for f in listed()["files"])  # no range: no dates (the listing as it was)
    assert _listed(listed(after="2024-03-15", glob="*.md")) == {"notes/journals/2024_03_20.md"}
    page = listed("2024-03", "2024-04", limit=2, offset=2)
    assert page["total"] == 3 and page["shown"] == 1
    assert listed()["total"] == 5 and not any("date_after" in n for n in listed()["notes"])
    conn.close()


def test_an_index_before_v20_lists_by_the_modified_time(immediate, sift_env, tmp_path):
    _tree(tmp_path)
    as_older_index(sift_env, "DROP INDEX chunks_tagged; ALTER TABLE chunks DROP COLUMN tags; "
                             "DROP INDEX chunks_dated; ALTER TABLE chunks DROP COLUMN dated;", 19)
    result = run_ingest(sift_env, "files", "--date-before", "2023", "--json")
    assert result.returncode == 0, result.stderr
    assert re.findall(r'"path": "([^"]+)"', result.stdout) == ["notes/plain.md"], result.stdout


def test_ingest_files_takes_date_flags(immediate, sift_env, tmp_path):
    _tree(tmp_path)
    result = run_ingest(sift_env, "files", "--date-after", "2023-05", "--date-before", "2023-06")
    assert result.returncode == 0, result.stderr
    assert re.findall(r"^notes/(\S+)", result.stdout, re.M) == ["meetings/review.md"], result.stdout
    assert "--date-after / --date-before list the files" in result.stdout
    assert re.search(r"^notes/meetings/review\.md .* indexed  dated 2023-05-01$", result.stdout, re.M), result.stdout
    refused = run_ingest(sift_env, "files", "--date-after", "2024", "--date-before", "2023")
    assert refused.returncode == 2 and "--date-after (" in refused.stderr and "later than" in refused.stderr, \
        refused.stderr


def test_mcp_list_files_and_similar_take_date_after_and_refuse_a_bad_one(immediate, sift_env, tmp_path, servers):
    _tree(tmp_path)

    async def scenario():
        async with servers.session(sift_env, "--no-worker") as s:
            return [await call(s, "list_files", **arguments) for arguments in (
                {"date_after": "2024-03", "date_before": "2024-04", "sort": "path"},
                {"date_after": "last March"},
                {"date_after": "2024", "date_before": "2024"})] + [
                await call(s, "similar", path="notes/plain.md", date_after="2024-03-10", date_before="2024-04"),
                await call(s, "similar", path="notes/plain.md", date_after="2024", date_before="2023")]
    march, bad, empty, like, reversed_ = run(scenario)
    assert not march.is_error, text(march)
    assert [f["path"] for f in march.structured_content["files"]] == [
        "notes/journal/2024-03-14.md", "notes/journals/2024_03_20.md", "notes/mail/anna.mbox"], text(march)
    assert "notes/meetings/review.md" not in text(march) and "3 files match" in text(march)
    mail = "2024-03-05 10:00:00"  # as its Date line says it (10:00 +0000), on a machine of any time zone
    assert [f.get("dated") for f in march.structured_content["files"]] == ["2024-03-14", "2024-03-20", mail]
    lines = text(march).splitlines()  # the kind every file shares said once, on the first line
    assert "each note" in lines[0] and any(line.startswith("notes/mail/anna.mbox  ") for line in lines), lines
    assert lines[-2].endswith(f"  dated {mail}"), lines
    assert bad.is_error and "date_after must be an ISO date" in text(bad), text(bad)
    assert empty.is_error and "same moment" in text(empty), text(empty)
    # similar: the greenhouse notes like plain.md, of those about March 10-31 alone (it took no dates at all)
    assert not like.is_error, text(like)
    assert {r["path"] for r in like.structured_content["results"]} == {"notes/journal/2024-03-14.md",
                                                                       "notes/journals/2024_03_20.md"}, text(like)
    assert reversed_.is_error and "later than date_before" in text(reversed_), text(reversed_)


def test_a_date_range_that_leaves_nothing_is_said_of_the_passages_not_their_files(immediate, sift_env, tmp_path):
    """The note said 'no passage searched is in a file dated at or after …', a date of the file's: a mailbox modified
    today, refused by date_after=2999, read as a mailbox dated before it. The passage's date is said as its own."""
    from search.query.engine import from_settings
    from search.query.filters import Filters, unix_time
    from search.settings import load
    _tree(tmp_path)
    engine = from_settings(load())

    def notes(**given):
        filters = Filters(**{key: unix_time(value, key) for key, value in given.items()})
        return engine.search("greenhouse", mode="keyword", filters=filters).notes
    assert notes(date_after="2999") == [
        "no passage searched is about a date at or after 2999-01-01 00:00:00 (its own date where its file says one, "
        "else its file's modified time): other words will not help; widen or drop that filter"]
    said = notes(date_after="2024-03-10", date_before="2024-04", modified_before="2023")
    assert said[0] == (
        "no passage searched is about a date at or after 2024-03-10 00:00:00 and before 2024-04-01 00:00:00 (none has a "
        "date of its own, such as a daily note's name, front matter's date, a mail message's Date, a document's created "
        "date: each went by its file's modified time) in a file modified before 2023-01-01 00:00:00: other words will not "
        "help; widen or drop those filters")
    # plain.md's alone, none of whose passages has a date of its own: said once, in that note (a second note said
    # it again: 'no passage searched has a date of its own …: the date range went by each file's modified time')
    assert len(said) == 1, said
    kept = notes(date_after="2000", modified_before="2023")  # plain.md found: the note on the range alone
    assert len(kept) == 1 and kept[0].startswith("no passage searched has a date of its own"), kept


def _days_edited_backwards(tmp_path):
    """Three daily notes of March 2024, each edited last week in the reverse order of their days (the 1st last), and
    a note with no date of its own modified on March 15th."""
    import os
    from tests.conftest import ingest, write_tree
    from tests.test_passage_dates import LAST_WEEK, _local
    root = write_tree(tmp_path / "n", {"journal/2024-03-01.md": "# Friday\n\nSowed the greenhouse peppers.\n",
                                       "journal/2024-03-10.md": "# Sunday\n\nPricked out the greenhouse peppers.\n",
                                       "journal/2024-03-20.md": "# Wednesday\n\nPotted on the greenhouse peppers.\n",
                                       "plain.md": "# Plain\n\nThe greenhouse door sticks.\n"})
    for hours, day in enumerate(("20", "10", "01")):  # the 1st edited last
        os.utime(root / f"journal/2024-03-{day}.md", (LAST_WEEK + 3600 * hours,) * 2)
    os.utime(root / "plain.md", (_local(2024, 3, 15, 12),) * 2)
    ingest(root, "notes")
    return root


DAYS_NEWEST_FIRST = ["notes/journal/2024-03-20.md", "notes/plain.md", "notes/journal/2024-03-10.md",
                     "notes/journal/2024-03-01.md"]


def test_a_date_range_lists_newest_date_first_not_newest_edit(immediate, sift_env, tmp_path):
    """Daily notes all edited last week came out for March in the order of those edits (the 1st first, edited last):
    sort='dated' (the default with a date range) lists them by their days, a file with no date of its own by its
    modified time, newest first."""
    from search.index import db
    from search.query import listing
    from search.query.filters import unix_time
    from search.query.scope import MCP, Scope
    from search.settings import load
    root = _days_edited_backwards(tmp_path)
    conn = db.connect(load().index_path, readonly=True)

    def listed(sort, after=None, before=None, **more):
        dated = (unix_time(after, "date_after"), unix_time(before, "date_before"))
        data = listing.files(conn, Scope(None, None), None, sort, more.get("limit", 50), {"notes": str(root)}, MCP,
                             lambda *_: None, more.get("offset", 0), dated=dated)
        return [f["path"] for f in data["files"]]
    assert listed(None, "2024-03", "2024-04") == DAYS_NEWEST_FIRST
    assert listed("dated", "2024-03", "2024-04") == DAYS_NEWEST_FIRST
    assert listed("dated", "2024-03", "2024-04", limit=2, offset=1) == DAYS_NEWEST_FIRST[1:3]
    assert listed("modified", "2024-03", "2024-04") == [  # asked for: by the edits, as it was
        "notes/journal/2024-03-01.md", "notes/journal/2024-03-10.md", "notes/journal/2024-03-20.md", "notes/plain.md"]
    assert listed(None) == listed("modified")  # no range: newest modified first, as it was
    assert listed("dated") == DAYS_NEWEST_FIRST  # no range: by the newest date of all
    assert listed("dated", "2024-03-05", "2024-03-16") == DAYS_NEWEST_FIRST[1:3]
    conn.close()


def test_ingest_files_sort_dated_and_list_files_say_the_order(immediate, sift_env, tmp_path, servers):
    _days_edited_backwards(tmp_path)
    result = run_ingest(sift_env, "files", "--sort", "dated")
    assert result.returncode == 0, result.stderr
    assert re.findall(r"^(notes/\S+)", result.stdout, re.M) == DAYS_NEWEST_FIRST, result.stdout
    assert "newest date first" in result.stdout.splitlines()[-1], result.stdout
    ranged = run_ingest(sift_env, "files", "--date-after", "2024-03", "--json")
    assert re.findall(r'"path": "([^"]+)"', ranged.stdout) == DAYS_NEWEST_FIRST, ranged.stdout

    async def scenario():
        async with servers.session(sift_env, "--no-worker") as s:
            return [await call(s, "list_files", **arguments) for arguments in (
                {"date_after": "2024-03", "date_before": "2024-04"}, {"sort": "dated", "limit": 2}, {})]
    march, first, plain = run(scenario)
    assert not march.is_error, text(march)
    assert [f["path"] for f in march.structured_content["files"]] == DAYS_NEWEST_FIRST, text(march)
    assert "(newest date first)" in text(march).splitlines()[0], text(march)
    assert [f["path"] for f in first.structured_content["files"]] == DAYS_NEWEST_FIRST[:2], text(first)
    assert "(newest first)" in text(plain).splitlines()[0], text(plain)
