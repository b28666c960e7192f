"""A search with a kind filter, in a collection whose first build comes in parts, is told of the files not read yet
that may be of that kind (mcp_server.report.partial_notes). Their kind was told by the name alone, but a file is a
note by what it holds too: a saved web page ('.html', code by its name), a WhatsApp chat exported as '.txt' (text by
its name). A search with kind='note' of a folder of saved pages was told nothing, and 'no passages match' sent the
assistant to other words for an answer in a page not read yet.

Real SQLite, huey's jobs run in this process one at a time (tests/test_first_parts.py), keyword only."""
from __future__ import annotations

from tests.conftest import write_tree
from tests.test_first_parts import run_jobs, same_time

PAGE = ("<!DOCTYPE html>\n<html><head><title>Page {i}</title></head><body><h1>Page {i}</h1>\n"
        "<p>The heron number word{i} waits at the shore, a saved page of its own.</p></body></html>\n")


def test_a_kind_filter_is_told_of_pages_not_read_yet_that_are_notes(sift_env, tmp_path, monkeypatch):
    from mcp_server import report
    from search.index import collection_reads, store
    from workers import runtime, tasks
    from workers.app import huey
    monkeypatch.setenv("SIFT_FIRST_PART", "2")
    monkeypatch.setenv("SIFT_EMBEDDINGS", "off")
    root = same_time(write_tree(tmp_path / "notes", {f"p{i:02}.html": PAGE.format(i=i) for i in range(8)}))
    conn = runtime.index()
    cid = store.ensure_collection(conn, "notes", str(root))["id"]
    tasks.discover(cid)
    run_jobs(huey, lambda: collection_reads.get_collection(conn, cid)["published"] is not None)
    kinds = {kind for (kind,) in conn.execute("SELECT kind FROM files WHERE gen_to IS NULL")}
    assert kinds == {"note"}, "a saved web page is read as a note"
    _, fresh = report.freshness(conn)
    assert report.partial_notes(conn, fresh), "the first part published, six pages not read yet"
    assert report.partial_notes(conn, fresh, "note") == report.partial_notes(conn, fresh)
    assert report.partial_notes(conn, fresh, "pdf") == [], "no page is a PDF"
