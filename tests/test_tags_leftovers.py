"""Tags the last round's readers left out or named wrongly: a Logseq page's first block of properties ('- title::
Dune', '  alias::', '  tags::') read as a passage's text, its title and aliases none; Obsidian front matter's
'tag:' and 'Tags:' (no tags at all) and an unquoted 'tags: #a #b' (a YAML comment: none); and the tags of a
generation not yet published named by the note for a tag no file holds (held, said nothing; or offered as the
nearest tag), though no search could find them."""
from __future__ import annotations

import os
import sqlite3
from pathlib import Path

import pytest

from ingest.markdown import parse_markdown
from search.index import tag_reads
from search.query.engine import Engine
from search.query.filters import Filters
from tests.conftest import ingest, write_tree

DUNE = ("- title:: Dune notes\n  alias:: Dune, Arrakis\n  tags:: book, [[science fiction]]\n  type:: book\n"
        "  author:: Frank Herbert\n\n- The spice must flow.\n  - the sandworms guard it\n")


def test_a_logseq_pages_first_block_of_properties_is_its_properties():
    doc = parse_markdown("pages/dune.md", DUNE)
    assert doc.title == "Dune notes"
    assert doc.meta["aliases"] == ["Dune", "Arrakis"] and doc.meta["tags"] == ["book", "science fiction"]
    text = "\n".join(section.text for section in doc.sections)
    assert "title::" not in text and "alias::" not in text and "tags::" not in text, text
    # the other properties are the page's words, in its first passage as the top's are, not a passage of their own
    assert [section.text.split() for section in doc.sections] == [
        ["type::", "book", "-", "The", "spice", "must", "flow.", "-", "the", "sandworms", "guard", "it"]]
    assert doc.meta["author"] == "Frank Herbert"  # the page's author, as a PDF's: no words of its first passage


def test_a_first_block_of_text_or_a_later_block_is_no_page_properties():
    doc = parse_markdown("pages/dune.md", "- title:: Dune\n  the book I read\n- The spice.\n")
    assert doc.title != "Dune" and "title:: Dune" in doc.sections[0].text
    doc = parse_markdown("pages/dune.md", "- The spice.\n- title:: Dune\n  alias:: Arrakis\n")
    assert doc.title != "Dune" and "aliases" not in doc.meta


@pytest.mark.parametrize("matter, tags", [
    ("tags: [recipe, soup]", ["recipe", "soup"]), ("tag: recipe", ["recipe"]), ("Tags: recipe, soup", ["recipe", "soup"]),
    ("TAGS: [recipe]", ["recipe"]), ("tag: '#recipe #soup'", ["recipe", "soup"]), ('Tags: "#recipe, #soup"', ["recipe", "soup"]),
    ("tags: #recipe #soup", ["recipe", "soup"]), ("tags:\n  - recipe\n  - #soup", ["recipe", "soup"]),
    ("tags: recipe, soup\ntag: winter", ["recipe", "soup", "winter"]), ("tags: # to do\ntitle: Soup", None),
])
def test_obsidian_front_matter_tags_under_any_of_their_names_and_forms(matter, tags):
    doc = parse_markdown("soup.md", f"---\n{matter}\n---\n# Soup\n\nLentil soup is warm.\n")
    assert doc.meta.get("tags") == tags


def test_front_matter_alias_is_an_alias():
    doc = parse_markdown("soup.md", "---\nalias: Lentil soup, Dal\n---\n# Soup\n\nWarm.\n")
    assert doc.meta["aliases"] == ["Lentil soup", "Dal"]


def test_a_tag_of_a_generation_not_yet_published_is_not_named(immediate, tmp_path, monkeypatch):
    monkeypatch.setenv("SIFT_EMBEDDINGS", "off")
    root = write_tree(tmp_path / "notes", {"soup.md": "---\ntags: [recipe]\n---\n# Soup\n\nLentil soup.\n"})
    assert ingest(root, "notes")["published"]["failures"] == []
    (root / "stew.md").write_text("---\ntags: [freshly]\n---\n# Stew\n\nA stew of soup.\n")
    assert ingest(root, "notes")["published"]["failures"] == []
    db = Path(os.environ["SIFT_HOME"]) / "index.db"
    with sqlite3.connect(db) as conn:  # the second generation as a build under way leaves it: written, not published
        conn.execute("UPDATE collections SET published = published - 1")
    engine = Engine(db)
    answer = engine.search("soup", mode="keyword", filters=Filters(tags=("freshly",)))
    assert answer.hits == []
    assert any("tagged #freshly" in note and "no file holds that tag" in note for note in answer.notes), answer.notes
    answer = engine.search("soup", mode="keyword", filters=Filters(tags=("freshy",)))
    assert not any("#freshly" in note for note in answer.notes), answer.notes  # not offered as the nearest
    answer = engine.search("soup", mode="keyword", filters=Filters(tags=("recipy",)))
    assert any("#recipe" in note for note in answer.notes), answer.notes  # a published one still is
    with sqlite3.connect(db) as conn:
        assert [tag for tag, _ in tag_reads.tag_counts(conn)] == ["recipe"]  # stats' "tags most held"


def test_a_pages_top_properties_and_its_first_block_together_are_its_properties():
    """Top-of-page properties and a first block of properties: the block's tags were the page's alone ('tags:: book'
    at the top lost), its title over the top's."""
    doc = parse_markdown("pages/dune.md", "title:: Dune\ntags:: book\nalias:: Arrakis\n\n- tags:: [[science fiction]]"
                                          "\n  alias:: Dune notes\n  title:: Other\n\n- The spice must flow.\n")
    assert doc.title == "Dune"
    assert doc.meta["tags"] == ["book", "science fiction"] and doc.meta["aliases"] == ["Arrakis", "Dune notes"]
    assert "tags::" not in doc.sections[0].text and "science" not in doc.sections[0].text


@pytest.mark.parametrize("text", [
    "author:: [[Frank Herbert]]\ntype:: book\n\n- The spice must flow.\n",  # at the top
    "- type:: book\n  authors:: Frank Herbert\n\n- The spice must flow.\n",  # its first block's
    "---\nauthor: Frank Herbert\n---\n# Dune\n\nThe spice must flow.\n",  # front matter's
    "---\nauthors:\n  - name: Frank Herbert\n---\n# Dune\n\nThe spice must flow.\n",
])
def test_a_pages_author_is_its_author_not_its_first_passages_words(text):
    doc = parse_markdown("pages/dune.md", text)
    assert doc.meta["author"] == "Frank Herbert"
    assert "Herbert" not in "\n".join(section.text for section in doc.sections)


@pytest.mark.parametrize("text", [
    "---\nauthor:\nauthors: [Frank Herbert]\n---\n# Dune\n\nThe spice must flow.\n",  # an empty author:
    "---\nauthor: ''\nauthors: Frank Herbert\n---\n# Dune\n\nThe spice must flow.\n",
])
def test_an_empty_author_does_not_hide_the_authors(text):
    """Front matter's empty ``author:`` was the author, none, and its ``authors:`` beside it was lost."""
    assert parse_markdown("dune.md", text).meta["author"] == "Frank Herbert"


@pytest.mark.parametrize("text", [
    "author:: Frank Herbert\n\n- type:: book\n  author:: Brian Herbert\n\n- The spice must flow.\n",
    "author::\n\n- type:: book\n  author:: Frank Herbert\n\n- The spice must flow.\n",  # an empty top's is none
])
def test_the_tops_author_wins_over_the_first_blocks_as_its_title_does(text):
    """The first block's ``author::`` replaced the top one's, where for ``title::`` the top's wins."""
    assert parse_markdown("pages/dune.md", text).meta["author"] == "Frank Herbert"


def test_a_pages_author_finds_it(immediate, tmp_path, monkeypatch):
    """By the author's name: a front matter's author was no word of the note at all."""
    monkeypatch.setenv("SIFT_EMBEDDINGS", "off")
    root = write_tree(tmp_path / "notes", {
        "dune.md": "- type:: book\n  author:: Frank Herbert\n\n- The spice must flow.\n",
        "post.md": "---\nauthor: Ursula Le Guin\n---\n# Earthsea\n\nA wizard's school.\n",
        "other.md": "# Other\n\nThe spice trade in the Middle Ages.\n"})
    assert ingest(root, "notes")["published"]["failures"] == []
    engine = Engine(Path(os.environ["SIFT_HOME"]) / "index.db")
    assert [hit.path for hit in engine.search("Herbert", mode="keyword").hits] == ["dune.md"]
    assert [hit.path for hit in engine.search("author Le Guin", mode="keyword").hits] == ["post.md"]


def test_code_is_no_tag_and_a_real_inline_tag_stays():
    """notes-en's stats said 'tags most held: #find_or_create_by (2), #classify (1)': a Ruby method named in a
    note's title ('Specify New Attributes For #find_or_create_by', which its text writes as code), the README's link
    to that note, and '#classify' right after a code span closed by mistake ('`#capitalize and … method,
    `#classify`.'), read as after a space. A '#word' the note writes in code, one in a link's text and one right
    after a code span are no tags; the note's other inline tags stay."""
    doc = parse_markdown("rails/find-or-create.md", (
        "# Specify New Attributes For #find_or_create_by\n\nGive `#find_or_create_by` a block. #rails/active-record\n"
        "\n```ruby\nUser#save # comment\n```\n\nThe #save of a model, and a #todo.\n"))
    assert doc.meta["tags"] == ["rails/active-record", "todo"]
    readme = parse_markdown("README.md", "# TIL\n\n- [Specify New Attributes For #find_or_create_by](rails/a.md)\n"
                                         "- [Another #one][ref] and #reading-list\n\n[ref]: b.md\n")
    assert readme.meta["tags"] == ["reading-list"]
    slip = parse_markdown("rails/convert.md", "Ditch `#capitalize and instead use another\nmethod, `#classify`.\n"
                                              "`x` #kept, and #also.\n")
    assert slip.meta["tags"] == ["kept", "also"]


def test_a_code_comment_hides_no_tag():
    """A note tagged #todo that pastes code with a '#TODO' comment lost its #todo tag: every '#word' of a code
    block was taken for code (as `User#save` is). In a block only a '#word' glued to a name before it is a name
    (Ruby's ``User#save``, Javadoc's ``List#add``); a comment or directive ('#TODO', '#include', '#!/bin/sh') at a
    line's start or after a space is no name, and the note's own tag stays."""
    doc = parse_markdown("login.md", "# Fix login\n\nStill to do #todo, see #include\n\n```python\n#!/usr/bin/env python\n"
                                     "x = 1  #TODO: remove\n```\n\n```c\n#include <stdio.h>\n```\n")
    assert doc.meta["tags"] == ["todo", "include"]
    ruby = parse_markdown("ruby.md", "The #save of a model, #later.\n\n```ruby\nUser#save #later\n```\n")
    assert ruby.meta["tags"] == ["later"]
