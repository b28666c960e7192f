"""Many collections: the freshness line that ends every search answer named each of them (a clause for each
collection with something going on, and every one up to date by name): with 1,000 collections, 700 never scanned,
it was 40 KB in every answer. It names ten of each kind and counts the rest; stats lists them all."""
from __future__ import annotations

import pytest

from tests.conftest import write_tree

COLLECTIONS = 25


@pytest.mark.timeout(600)
def test_the_freshness_line_names_ten_collections_of_each_kind_and_counts_the_rest(immediate, sift_env, tmp_path,
                                                                                    monkeypatch):
    monkeypatch.setenv("SIFT_EMBEDDINGS", "off")
    from mcp_server import report
    from search.index import db, store
    from search.settings import load
    from workers import runtime, tasks
    conn = runtime.index()
    for i in range(COLLECTIONS):
        root = write_tree(tmp_path / f"c{i:02}", {"a.md": f"# C{i}\n\nthe aardvark {i}\n"})
        collection = store.ensure_collection(conn, f"c{i:02}", str(root))
        if i < 12:  # published; the 13 others are registered and never scanned
            tasks.discover(collection["id"])
    runtime.reset()
    reader = db.connect(load().index_path, readonly=True)
    line, data = report.freshness(reader)
    assert len(data) == COLLECTIONS  # the data keeps every collection
    assert line.count("nothing published yet") == 10, line
    assert "and 3 more collections not up to date: stats lists them" in line, line
    assert "up to date (last published: c00 " in line and ", and 2 more)" in line, line
    assert "c11" not in line and "c24" not in line, line
