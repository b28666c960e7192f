"""A passage's own tags (chunks.tags, schema V21): where a file holds many items with tags of their own, an Evernote
export's notes, a Takeout mailbox's messages (their Gmail labels), an org file's headlines, a '#tag' query puts the
passages of the items tagged so first, not the whole file nor none. Tags were a file's alone: an export's note tagged
'recipe' could not be told from its other notes (the tag was the file's only where every note held it), a message's
labels were words of its 'Labels:' line, an org headline's ':urgent:' words on its line."""
from __future__ import annotations

import os
from pathlib import Path

from search.query.catalog import Catalog
from search.index.db import connect
from search.query.engine import Engine
from search.query.filters import Filters
from tests.conftest import ingest, write_tree
from tests.test_enex import HEAD, note

# every note says 'recipe'; only the first is tagged so
EXPORT = HEAD + "".join([
    note("Lentil soup", "20240301T100000Z", "<p>Soak red lentils, fry onions, simmer for a while.</p>",
         tags=("recipe", "dinner")),
    note("Tax return", "20240302T100000Z", "<p>The recipe for a calm tax return: a recipe of receipts, recipe "
                                           "after recipe, filed.</p>", tags=("finance",)),
    note("Lisbon trip", "20240303T100000Z", "<p>A recipe for pastel de nata from the bakery, and the recipe "
                                            "of the tram route.</p>", tags=("travel", "dinner")),
]) + "</en-export>\n"


def _message(thread: str, day: int, labels: str, subject: str, body: str) -> str:
    return (f"From {thread}@xxx Tue Mar {day:02d} 09:12:00 +0000 2024\nX-GM-THRID: {thread}\n"
            f"X-Gmail-Labels: {labels}\nFrom: Shop <shop@example.com>\nTo: me@example.com\n"
            f"Date: Tue, {day:02d} Mar 2024 09:12:00 +0000\nSubject: {subject}\n\n{body}\n\n")


TAKEOUT = (_message("1001", 5, "Inbox,Opened,Receipts", "Your order", "Order 4411: one kettle, paid. Receipt below.")
           + _message("1002", 6, "Inbox,Opened", "Newsletter", "Our receipt of the month: receipts, receipts, "
                                                               "receipts for every kettle.")
           + _message("1003", 7, "Inbox,Receipts,Travel", "Train ticket", "Receipt for the train to Porto."))

AGENDA = ("#+TITLE: Agenda\n#+FILETAGS: :home:\n\n* Bank :finance:urgent:\n** Call about the card\nThe card is "
          "blocked.\n* Garden\nUrgent: the fence, urgent, urgent.\n* Renew passport :urgent:\nForms at the town "
          "hall.\n")


def _tagged(engine: Engine, query: str) -> tuple[list[str], list[str]]:
    answer = engine.search(query, mode="keyword", limit=20)
    return [h.heading_path for h in answer.hits], answer.notes


def test_a_tag_query_finds_the_items_of_a_file_tagged_so(immediate, tmp_path, monkeypatch):
    monkeypatch.setenv("SIFT_EMBEDDINGS", "off")
    root = write_tree(tmp_path / "notes", {"Cooking.enex": EXPORT, "All mail.mbox": TAKEOUT, "agenda.org": AGENDA})
    assert ingest(root, "notes")["published"]["failures"] == []
    engine = Engine(Path(os.environ["SIFT_HOME"]) / "index.db")
    conn = connect(Path(os.environ["SIFT_HOME"]) / "index.db")
    rows = conn.execute("SELECT ch.id, ch.heading_path FROM chunks ch").fetchall()
    catalog = Catalog.load(conn).load_tags(conn)
    tagged = {heading for cid, heading in rows if catalog.carrying([cid], "recipe")[0]}
    assert tagged == {"Lentil soup"}, catalog.tags  # the note's own tag, none of the others'
    assert catalog.tags["recipe"][0] == "", catalog.tags  # not the file's

    found, notes = _tagged(engine, "#recipe")
    assert found[0] == "Lentil soup" and found.count("Lentil soup") == 1, found  # the tagged note first
    assert any("tagged #recipe" in said for said in notes), notes
    found, _ = _tagged(engine, "#dinner")  # two notes hold it, not all three: not the file's
    assert set(found[:2]) == {"Lentil soup", "Lisbon trip"}, found
    found, notes = _tagged(engine, "#receipts")  # per message: the labelled ones first
    assert set(found[:2]) == {"Your order", "Train ticket"} and "Newsletter" not in found[:2], (found, notes)
    found, _ = _tagged(engine, "#travel")  # a label of one message, and a tag of one note
    assert set(found[:2]) == {"Train ticket", "Lisbon trip"}, found
    found, notes = _tagged(engine, "#urgent")  # a headline's tags, and those its child inherits ('Bank' is bare)
    assert set(found[:2]) == {"Bank > Call about the card", "Renew passport"} and found[2:] == ["Garden"], found
    found, _ = _tagged(engine, "#home")  # #+FILETAGS: still the file's, every headline's
    assert set(found) == {"Bank > Call about the card", "Garden", "Renew passport"}, found
    narrow = engine.search("#recipe", mode="keyword", filters=Filters(glob="*.mbox")).hits
    assert [h.path for h in narrow] == [], narrow  # the tag's passages within the search's filters only
    conn.close()


def test_the_mcp_search_tool_puts_a_notes_tagged_passages_first(immediate, tmp_path, monkeypatch):
    """Through the MCP tool's handler, as an assistant asks: '#recipe' answers with the tagged note's passage first
    and says so; the other notes that only say 'recipe' after it."""
    from mcp_server.service import Sift
    from mcp_server.tools import Tools
    from search.settings import load
    monkeypatch.setenv("SIFT_EMBEDDINGS", "off")
    root = write_tree(tmp_path / "notes", {"Evernote/Cooking.enex": EXPORT})
    assert ingest(root, "notes")["published"]["failures"] == []
    found = Tools(Sift(load())).search(query="#recipe", mode="keyword").structured_content
    assert [r.get("heading_path") for r in found["results"]][0] == "Lentil soup", found
    assert "tagged #recipe" in str(found), found


def test_an_index_before_v21_reads_file_tags_alone(immediate, tmp_path, monkeypatch):
    """A reader opens the index without migrating it: an index an older Sift wrote has no chunks.tags, and a
    '#tag' query goes by the files' tags there, where it failed on the missing column."""
    from tests.conftest import as_older_index
    monkeypatch.setenv("SIFT_EMBEDDINGS", "off")
    root = write_tree(tmp_path / "notes", {"Cooking.enex": EXPORT, "Seeds.md": "---\ntags: [garden]\n---\n# Seeds\n\n"
                                                                                  "Peas and beans.\n"})
    ingest(root, "notes")
    as_older_index(dict(os.environ), "DROP INDEX chunks_tagged; ALTER TABLE chunks DROP COLUMN tags;", 20)
    engine = Engine(Path(os.environ["SIFT_HOME"]) / "index.db")
    assert [h.path for h in engine.search("#garden", mode="keyword").hits] == ["Seeds.md"]
    assert _tagged(engine, "#recipe")[0]  # found by its words, as before
