"""`ingest search` searches once and exits: the Engine it builds no longer starts the thread that reads the whole
keyword index into memory (search.query.engine's postings, which serve a server's many searches). FTS5 answered
the one search meanwhile anyway, so the answer is the same as from postings held and read.

Real SQLite, the session's MiniLM, huey's immediate mode, the command run in this process (ingest.cli.main)."""
from __future__ import annotations

import json
import os
import threading
from pathlib import Path

from tests.conftest import ingest, write_tree

NOTES = {
    "bread/sourdough.md": "# Sourdough starter\n\nFeed the sourdough starter twice a day with rye flour and water.\n",
    "bread/rye.md": "# Rye bread\n\nRye flour makes a dense loaf; a sourdough starter makes it sour.\n",
    "code/retry.md": "# Retries\n\n`retry_upload_part` backs off exponentially; getUserName reads the session.\n",
    "garden.md": "# Garden\n\nMove the greenhouse seedlings outside after the last frost.\n",
}
QUERIES = ["sourdough starter", "rye flour loaf", "sourdogh startr", "retry_upload_part", "user name", "frost"]


def test_ingest_search_reads_no_postings_and_answers_as_an_engine_holding_them(immediate, tmp_path, monkeypatch,
                                                                              capsys):
    from ingest import cli
    from search.query.engine import Engine
    ingest(write_tree(tmp_path / "notes", NOTES))
    started: list[str] = []
    start = threading.Thread.start

    def recorded(thread):  # the real start, its thread's name written down
        started.append(thread.name)
        return start(thread)
    monkeypatch.setattr(threading.Thread, "start", recorded)
    answers = {}
    for query in QUERIES:
        assert cli.main(["search", query, "--mode", "keyword", "--json"]) == 0
        answers[query] = json.loads(capsys.readouterr().out)
    assert "sift-postings" not in started, started
    held = Engine(Path(os.environ["SIFT_HOME"]) / "index.db", keyword_postings=True)
    held.warm()  # the postings read whole: every search below ranks from them
    assert held._postings is not None
    for query in QUERIES:
        expected = held.search(query, mode="keyword").as_dict()
        got = answers[query]
        assert got["hits"] == expected["hits"] and got["notes"] == expected["notes"], query
    assert any(answers[q]["hits"] for q in QUERIES) and answers["sourdogh startr"]["notes"], answers
