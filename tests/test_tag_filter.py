"""Tags as a filter (schema V22, the table tags): search's, similar's and list_files' ``tags`` keep only the passages
(files) carrying every tag given, as the readers store them (any case, '#' or not, a nested tag found from its
parent), a file's tags counting for each of its passages. A tag no file holds answers nothing and says so, with the
tags near it. A '#tag' in a query only put tagged passages first; nothing kept the others out."""
from __future__ import annotations

import json
import os
import sqlite3
from pathlib import Path

import pytest

from ingest.logseq import block_tags
from ingest.markdown import parse_markdown
from ingest.org import parse_org
from search.query.engine import Engine
from search.query.filters import Filters
from tests.conftest import as_older_index, ingest, write_tree
from tests.test_passage_tags import EXPORT

NOTES = {
    "soup.md": "---\ntags: [Recipe, project/sift]\n---\n# Soup\n\nLentil soup is warm.\n",
    "bread.md": "# Bread\n\nBread with soup. #project\n",
    "plain.md": "# Soup again\n\nsoup soup soup, no tag at all.\n",
    "Cooking.enex": EXPORT,  # one note of three tagged recipe (its passages' own tags)
    "pages/garden.md": "tags:: garden\n\n- Soup of the day: tomatoes need sun.\n- Plan the shed\n"
                       "  tags:: project/shed, [[urgent work]]\n  - soup for the builders\n- Beans climb, soup.\n",
}


def _found(engine: Engine, query: str, tags) -> list[tuple[str, str]]:
    answer = engine.search(query, mode="keyword", limit=20, filters=Filters(tags=tuple(tags)))
    return sorted((h.path, h.heading_path) for h in answer.hits)


@pytest.fixture
def built(immediate, tmp_path, monkeypatch):
    monkeypatch.setenv("SIFT_EMBEDDINGS", "off")
    root = write_tree(tmp_path / "notes", NOTES)
    assert ingest(root, "notes")["published"]["failures"] == []
    return Path(os.environ["SIFT_HOME"]) / "index.db"


@pytest.mark.parametrize("postings", [True, False], ids=["in-memory", "fts5"])
def test_search_keeps_only_the_passages_carrying_every_tag(built, postings):
    """The in-memory keyword index (the catalog's mask, as the vectors and similar use it) and FTS5's SQL alike."""
    engine = Engine(built, keyword_postings=postings)
    engine.warm()
    assert _found(engine, "soup", ["recipe"]) == [("Cooking.enex", "Lentil soup"), ("soup.md", "Soup")]
    assert _found(engine, "soup", ["#RECIPE"]) == _found(engine, "soup", ["recipe"])  # any case, '#' or not
    # the parent holds the nested tags: front matter's project/sift, a Logseq block's project/shed, inline #project
    assert _found(engine, "soup", ["project"]) == [("bread.md", "Bread"), ("pages/garden.md", ""),
                                                   ("soup.md", "Soup")]
    assert _found(engine, "soup", ["project/sift"]) == [("soup.md", "Soup")]
    assert _found(engine, "soup", ["proj"]) == []  # a tag's beginning is not its parent
    assert _found(engine, "soup", ["recipe", "project"]) == [("soup.md", "Soup")]  # every one of them
    # a Logseq block's tags:: are its passages' (the page's own tags:: every passage's), not the other blocks'
    shed = engine.search("soup", mode="keyword", filters=Filters(tags=("urgent work",))).hits
    assert [(h.path, h.start_line, h.end_line) for h in shed] == [("pages/garden.md", 4, 6)], shed
    assert len(_found(engine, "soup", ["garden"])) == 3  # the page's tag: each of its passages


def test_a_tag_no_file_holds_answers_nothing_and_names_the_nearest(built):
    engine = Engine(built)
    answer = engine.search("soup", mode="keyword", filters=Filters(tags=("recipy",)))
    assert answer.hits == []
    assert any("tagged #recipy" in note and "#recipe" in note and "no file holds that tag" in note
               for note in answer.notes), answer.notes
    answer = engine.search("soup", mode="keyword", filters=Filters(tags=("shed",)))  # nested: named in full
    assert any("#project/shed" in note for note in answer.notes), answer.notes
    answer = engine.search("lentils", mode="keyword", filters=Filters(tags=("garden",)))  # held, no match
    assert answer.hits == [] and not any("no file holds" in note for note in answer.notes), answer.notes


def test_the_mcp_tools_take_tags(built):
    from mcp.server.mcpserver.exceptions import ToolError
    from mcp_server.service import Sift
    from mcp_server.tools import Tools
    from search.settings import load
    tools = Tools(Sift(load()))
    found = tools.search(query="soup", mode="keyword", tags=["Recipe"]).structured_content
    assert sorted(r["path"] for r in found["results"]) == ["notes/Cooking.enex", "notes/soup.md"], found
    found = tools.search(query="soup", mode="keyword", tags="recipe").structured_content  # one tag as a string
    assert len(found["results"]) == 2, found
    listed = tools.list_files(tags=["project"]).structured_content
    assert sorted(f["path"] for f in listed["files"]) == ["notes/bread.md", "notes/pages/garden.md",
                                                          "notes/soup.md"], listed
    listed = tools.list_files(tags=["recipe"]).structured_content  # a file one of whose passages holds it
    assert sorted(f["path"] for f in listed["files"]) == ["notes/Cooking.enex", "notes/soup.md"], listed
    listed = tools.list_files(tags=["recipy"]).structured_content
    assert listed["files"] == [] and any("no file is tagged #recipy" in n and "#recipe" in n
                                         for n in listed["notes"]), listed
    with pytest.raises(ToolError, match="tag names like 'recipe'"):
        tools.search(query="soup", tags=["#"])


def test_an_index_before_v22_filters_by_its_json_and_is_filled_when_migrated(built):
    """A reader does not migrate: before V22 the tags are read from files.meta and chunks.tags; the writer's
    migration fills the table from them."""
    from search.index.db import connect
    wanted = [("Cooking.enex", "Lentil soup"), ("soup.md", "Soup")]
    as_older_index(dict(os.environ), "DROP TABLE tags;", 21)
    for postings in (True, False):
        assert _found(Engine(built, keyword_postings=postings), "soup", ["recipe"]) == wanted
    conn = connect(built)  # the writer's connection migrates
    assert conn.execute("PRAGMA user_version").fetchone()[0] >= 22
    rows = conn.execute("SELECT tag, chunk IS NULL FROM tags ORDER BY 1, 2").fetchall()
    assert ("recipe", 0) in [tuple(r) for r in rows] and ("project/sift", 1) in [tuple(r) for r in rows], rows
    conn.close()
    assert _found(Engine(built), "soup", ["recipe"]) == wanted


def test_the_tags_of_a_file_go_with_it(built, tmp_path):
    """Rows of a file's versions no generation shows any more are dropped with them."""
    from workers import runtime
    (tmp_path / "notes" / "soup.md").write_text("# Soup\n\nNo tags now.\n", encoding="utf-8")
    ingest(tmp_path / "notes", "notes")
    runtime.reset()
    conn = sqlite3.connect(built)
    assert conn.execute("SELECT count(*) FROM tags WHERE file NOT IN (SELECT id FROM files)").fetchone()[0] == 0
    assert conn.execute("SELECT count(*) FROM tags WHERE tag = 'project/sift'").fetchone()[0] == 0
    conn.close()
    assert _found(Engine(built), "soup", ["project/sift"]) == []


def test_a_logseq_blocks_tags_property_tags_its_passages():
    text = ("tags:: garden\n\n- Tomatoes need sun.\n- Plan the shed\n  tags:: project/shed, [[urgent work]]\n"
            "  - buy wood\n- Beans climb.\n  ```\n  tags:: not a property\n  ```\n")
    doc = parse_markdown("pages/garden.md", text)
    assert doc.meta["tags"] == ["garden"]
    assert [(s.text.strip(), s.tags) for s in doc.sections] == [
        ("- Tomatoes need sun.", ()),
        ("- Plan the shed\n\n  - buy wood", ("project/shed", "urgent work")),  # the property line is no text
        ("- Beans climb.\n  ```\n  tags:: not a property\n  ```", ())]
    assert block_tags(["- a", "plain text, tags:: x"]) == ([], [])


def test_a_logseq_tags_property_written_as_a_blocks_first_line_tags_it():
    """'- tags:: a' (the property as the block's first line, as Logseq writes a block of properties) was text: the
    block was not tagged; at the top of the page it is the page's properties, the page's tags."""
    text = "- Plan the shed\n- tags:: project/shed, [[urgent work]]\n  - buy wood\n- Beans climb.\n"
    doc = parse_markdown("pages/garden.md", text)
    assert [(s.text.strip(), s.tags) for s in doc.sections] == [
        ("- Plan the shed", ()), ("- buy wood", ("project/shed", "urgent work")), ("- Beans climb.", ())]
    doc = parse_markdown("pages/garden.md", "- tags:: garden\n- Tomatoes need sun.\n- Beans climb.\n")
    assert doc.meta["tags"] == ["garden"]
    assert [(s.text.strip(), s.tags) for s in doc.sections] == [("- Tomatoes need sun.\n- Beans climb.", ())]
    doc = parse_markdown("pages/garden.md", "- tags:: garden\n  some text\n- Tomatoes.\n")  # a block of text
    assert [(s.text.strip(), s.tags) for s in doc.sections] == [("some text", ("garden",)), ("- Tomatoes.", ())]


def test_obsidian_front_matter_tags_as_a_yaml_list_with_hash_or_nested():
    doc = parse_markdown("n.md", '---\ntags:\n  - "#recipe"\n  - project/Sift\n  - "#a/b/"\n---\n# T\n\nx\n')
    assert doc.meta["tags"] == ["recipe", "project/Sift", "a/b/"]  # the index holds 'a/b' (search.index.names)

def test_org_group_tags_are_held_by_their_members():
    text = ("#+FILETAGS: :home:\n#+TAGS: [ GTD : Control Persp ]\n#+TAGS: { Context : @office(o) @home(h) }\n\n"
            "* Weekly review :Control:\nLook at the lists.\n* Call mum :@home:\nSunday.\n* Other\nNothing.\n")
    doc = parse_org("plan.org", text)
    assert doc.meta["tags"] == ["home"]
    assert [s.tags for s in doc.sections] == [("Control", "GTD"), ("@home", "Context"), ()]
    # a member that is a regular expression is not read; the group's other members still are (it was dropped whole)
    doc = parse_org("plan.org", "#+TAGS: [ Project : Sift {P@.+} ]\n\n* Plan :Sift:\nx\n* Shed :P@shed:\ny\n")
    assert [s.tags for s in doc.sections] == [("Sift", "Project"), ("P@shed",)]


def test_ingest_search_and_files_take_tag(built, capsys):
    from ingest.cli import main
    assert main(["search", "--mode", "keyword", "--tag", "recipe", "--tag", "#project", "--json", "soup"]) == 0
    found = json.loads(capsys.readouterr().out)
    assert [r["path"] for r in found["hits"]] == ["soup.md"], found
    assert main(["files", "--tag", "project", "--json"]) == 0
    listed = json.loads(capsys.readouterr().out)
    assert sorted(f["relative_path"] for f in listed["files"]) == ["bread.md", "pages/garden.md", "soup.md"], listed


def test_stats_names_the_tags_most_held(built, monkeypatch):
    from search.index import status
    from search.index.db import connect
    from workers.stats import ASSISTANT, collection_lines
    conn = connect(built, readonly=True)
    notes = status.collect(conn)["collections"][0]
    monkeypatch.setattr(status, "TAGS_SHOWN", 2)
    two = status.collect(conn)["collections"][0]
    conn.close()
    # the list is a part: it says of how many, for an assistant not to take the 20 shown for all there are
    assert len(two["tags"]) == 2 and two["tags_held"] == notes["tags_held"] == len(notes["tags"]) > 2, two
    assert any(line.startswith(f"  tags most held (2 of {two['tags_held']}): #recipe (2), #dinner (1)")
               for line in collection_lines(two, ASSISTANT)), collection_lines(two, ASSISTANT)
    # soup.md's front matter tag, and the export's note's own; then by name
    assert notes["tags"][:3] == [{"tag": "recipe", "files": 2}, {"tag": "dinner", "files": 1},
                                 {"tag": "finance", "files": 1}], notes["tags"]
    assert any(line.startswith("  tags most held: #recipe (2), #dinner (1), ")
               for line in collection_lines(notes, ASSISTANT))
