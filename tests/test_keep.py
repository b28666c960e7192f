"""Google Keep's notes from Google Takeout (ingest.keep): Keep/<title>.json read as a note (its title, text or
checklist, labels as tags, dated by its creation), the .html of its stem beside it and a trashed note not indexed.
Before, the JSON was read as code, by its lines of JSON, and the HTML as a page: each note twice, neither a note."""
from __future__ import annotations

import json
import os
from datetime import datetime, timezone
from pathlib import Path

import pytest

from ingest.document import Skip
from ingest.parse import parse_file
from tests.conftest import ingest, write_tree


def usec(*day) -> int:
    return int(datetime(*day, tzinfo=timezone.utc).timestamp() * 1_000_000)


GROCERIES = {"color": "DEFAULT", "isTrashed": False, "isPinned": False, "isArchived": False, "title": "Groceries",
             "listContent": [{"textHtml": "oat milk", "text": "oat milk", "isChecked": True},
                             {"textHtml": "xylophone mallets", "text": "xylophone mallets", "isChecked": False}],
             "userEditedTimestampUsec": usec(2024, 3, 15, 10), "createdTimestampUsec": usec(2024, 3, 14, 9, 15),
             "labels": [{"name": "shopping"}],
             "annotations": [{"description": "", "source": "WEBLINK", "title": "Oat milk review",
                              "url": "https://example.com/oat"}]}
TRIP = {"color": "BLUE", "isTrashed": False, "isPinned": True, "isArchived": True, "title": "",
        "textContent": "Lisbon trip\nBook the tram 28 tickets and the Belem tower visit.",
        "userEditedTimestampUsec": usec(2023, 6, 2), "createdTimestampUsec": usec(2023, 6, 1, 8),
        "labels": [{"name": "travel"}, {"name": "shopping"}], "attachments": [
            {"filePath": "1a2b3c.jpg", "mimetype": "image/jpeg"}]}
TRASHED = {"isTrashed": True, "isArchived": False, "title": "Old idea", "textContent": "Zeppelin courier service.",
           "userEditedTimestampUsec": usec(2024, 1, 1), "createdTimestampUsec": usec(2024, 1, 1)}
PAGE = '<html><head><title>{0}</title></head><body><div class="title">{0}</div><div>{1}</div></body></html>\n'


def _takeout(root: Path) -> Path:
    return write_tree(root, {
        "Takeout/Keep/Groceries.json": json.dumps(GROCERIES), "Takeout/Keep/Groceries.html":
            PAGE.format("Groceries", "oat milk xylophone mallets"),
        "Takeout/Keep/2023-06-01T08_00_00.000Z.json": json.dumps(TRIP),
        "Takeout/Keep/2023-06-01T08_00_00.000Z.html": PAGE.format("", "Book the tram 28 tickets"),
        "Takeout/Keep/Old idea.json": json.dumps(TRASHED), "Takeout/Keep/Old idea.html": PAGE.format("Old idea", "Zeppelin"),
        "Takeout/Keep/Labels.txt": "shopping\ntravel\n",
        "app/package.json": json.dumps({"name": "zeppelin-app", "version": "1.0.0"}),
        "site/Groceries.html": PAGE.format("Shop page", "the shop sells xylophone mallets"),
    })


def test_a_keep_note_is_read_as_a_note():
    doc = parse_file("Takeout/Keep/Groceries.json", json.dumps(GROCERIES).encode())
    assert doc.kind == "note" and doc.title == "Groceries" and doc.meta["tags"] == ["shopping"]
    [section] = doc.sections
    assert section.heading_path == ["Groceries"] and section.start_line == section.end_line == 1
    assert "[x] oat milk\n[ ] xylophone mallets" in section.text, section.text
    assert "Labels: shopping" in section.text and "Created: Thursday 14 March 2024" in section.text, section.text
    assert "Oat milk review <https://example.com/oat>" in section.text
    assert section.dated == usec(2024, 3, 14, 9, 15) / 1_000_000
    trip = parse_file("Takeout/Keep/2023-06-01T08_00_00.000Z.json", json.dumps(TRIP, indent=2).encode())
    assert trip.title == "Lisbon trip" and trip.meta["tags"] == ["travel", "shopping"]  # untitled: its first line
    assert "Archived in Google Keep" in trip.sections[0].text and "1a2b3c.jpg" in trip.sections[0].text
    assert trip.sections[0].end_line == json.dumps(TRIP, indent=2).count("\n") + 1
    with pytest.raises(Skip, match="trash"):
        parse_file("Takeout/Keep/Old idea.json", json.dumps(TRASHED).encode())
    assert parse_file("app/package.json", b'{"name": "x", "version": "1"}').kind == "code"  # no Keep note


def _engine():
    from search.query.engine import Engine
    return Engine(Path(os.environ["SIFT_HOME"]) / "index.db")


def test_a_takeout_is_searched_by_words_label_and_date_each_note_once(immediate, tmp_path, monkeypatch):
    """End to end: a note's words find its JSON alone (its .html beside it is not indexed, said so; another .html
    of that name elsewhere is); '#travel' finds the note labelled so first; a date range finds the note created in
    it; a trashed note is not found."""
    from search.query.filters import Filters, unix_time
    monkeypatch.setenv("SIFT_EMBEDDINGS", "off")
    root = _takeout(tmp_path / "notes")
    stats = ingest(root, "notes")
    skipped = {f["path"] for f in stats["published"]["failures"] if f["state"] == "skipped"}
    assert skipped == {"Takeout/Keep/Groceries.html", "Takeout/Keep/2023-06-01T08_00_00.000Z.html",
                       "Takeout/Keep/Old idea.html", "Takeout/Keep/Old idea.json"}, stats["published"]["failures"]
    assert len(stats["published"]["failures"]) == 4, stats["published"]["failures"]
    engine = _engine()
    hits = engine.search("xylophone mallets", mode="keyword", limit=10).hits
    assert sorted(h.path for h in hits) == ["Takeout/Keep/Groceries.json", "site/Groceries.html"], hits
    assert next(h for h in hits if h.path.endswith(".json")).heading_path == "Groceries"
    hits = engine.search("tram tickets", mode="keyword", limit=10).hits
    assert [(h.path, h.heading_path) for h in hits] == [("Takeout/Keep/2023-06-01T08_00_00.000Z.json", "Lisbon trip")]
    assert [h.path for h in engine.search("zeppelin", mode="keyword", limit=10).hits] == ["app/package.json"]
    answer = engine.search("#travel", mode="keyword", limit=10)
    assert answer.hits[0].path == "Takeout/Keep/2023-06-01T08_00_00.000Z.json", answer.hits

    def dated(**dates):
        filters = Filters(**{key: unix_time(value, key) for key, value in dates.items()})
        return {h.path for h in engine.search("oat milk tram", mode="keyword", limit=20, filters=filters).hits}

    assert dated(date_after="2024-03-14", date_before="2024-03-15") == {"Takeout/Keep/Groceries.json"}
    assert dated(date_after="2023-06", date_before="2023-07") == {"Takeout/Keep/2023-06-01T08_00_00.000Z.json"}
    from search.index import db
    from search.query import listing
    from search.query.scope import MCP, Scope
    from search.settings import load
    conn = db.connect(load().index_path, readonly=True)
    listed = listing.files(conn, Scope(None, None), "Takeout/Keep/*", "modified", 50, {"notes": str(root)}, MCP,
                           lambda *_: None, 0)
    states = {f["path"].split("/", 3)[-1]: (f["state"], f["reason"] or "") for f in listed["files"]}
    assert states["Groceries.json"][0] == "indexed" and states["Groceries.html"][0] == "skipped", states
    assert "Groceries.json beside it holds the note" in states["Groceries.html"][1], states
    assert states["Old idea.json"][0] == "skipped" and "trash" in states["Old idea.json"][1], states
