"""Fountain screenplays (.fountain, ingest.fountain) read by their scenes.

Before, .fountain was among the 'kinds Sift does not read': a screenwriter's script could not be searched at all."""
from __future__ import annotations

import os
from pathlib import Path

from ingest.kinds import kind_of
from ingest.parse import parse_file
from tests.conftest import ingest, write_tree

SCRIPT = """Title:
    _**THE HARBOUR**_
Credit: written by
Author: J. Writer
Draft date: 3 March 2026

# ACT ONE

INT. HARBOURMASTER'S OFFICE - DAY #1#

A cramped room that smells of tar. MARA (29) waits by a window streaked with salt.

HARBOURMASTER
(without looking up)
Nobody sails for Madeira in this weather.

/* MARA
I could swim. */

MARA
Then I'll wait for the weather.

.THE QUAY AT DUSK

Gulls. Interior of a crate of fish.

EXT. CAIS DO SODRÉ - NIGHT

Rain. FERREIRA (54) lights a cigarillo.

FERREIRA
You came back.

> THE END <
"""


def test_a_fountain_script_is_cut_at_its_scenes_under_its_acts_titled_by_its_title_page():
    assert kind_of("Screenplay/Harbour.fountain") == "note"
    doc = parse_file("Screenplay/Harbour.fountain", SCRIPT.encode())
    assert doc.kind == "note" and doc.title == "THE HARBOUR", doc.title
    assert doc.meta["author"] == "J. Writer", doc.meta
    parts = [(s.heading_path, s.start_line, s.end_line) for s in doc.sections]
    assert parts == [([], 1, 5),  # the title page: its author and date stay text
                     (["ACT ONE", "INT. HARBOURMASTER'S OFFICE - DAY"], 7, 21),
                     (["ACT ONE", "THE QUAY AT DUSK"], 23, 25),
                     (["ACT ONE", "EXT. CAIS DO SODRÉ - NIGHT"], 27, 34)], parts
    office = doc.sections[1].text
    assert "Then I'll wait for the weather." in office and "I could swim" not in office, office  # the boneyard
    assert "Author: J. Writer" in doc.sections[0].text


def test_a_screenplay_is_searched_by_its_scenes_and_a_scene_read_by_its_heading(immediate, tmp_path, monkeypatch):
    from mcp_server import reading
    from mcp_server.service import Sift
    from search.query.engine import Engine
    from search.query.filters import Filters
    from search.settings import load
    monkeypatch.setenv("SIFT_EMBEDDINGS", "off")
    root = write_tree(tmp_path / "writing", {"Screenplay/Harbour.fountain": SCRIPT, "notes.md": "# Notes\n\nrain\n"})
    published = ingest(root, "writing")["published"]
    assert ".fountain" not in published["unread"] and published["failures"] == [], published
    engine = Engine(Path(os.environ["SIFT_HOME"]) / "index.db")
    hits = engine.search("harbourmaster office", mode="keyword").hits
    assert (hits[0].path, hits[0].title, hits[0].heading_path) == (
        "Screenplay/Harbour.fountain", "THE HARBOUR", "ACT ONE > INT. HARBOURMASTER'S OFFICE - DAY"), hits[0]
    assert [h.path for h in engine.search("rain", mode="keyword", filters=Filters(author="J. Writer")).hits] == [
        "Screenplay/Harbour.fountain"], "the author filter: its title page's Author"
    line = engine.search('"then I\'ll wait for the weather"', mode="keyword").hits[0]
    assert (line.path, line.start_line) == ("Screenplay/Harbour.fountain", 7), line
    shown, data = reading.read(Sift(load()), "writing/Screenplay/Harbour.fountain", None, None, None,
                               heading="EXT. CAIS DO SODRÉ - NIGHT")
    assert "You came back." in shown and "Madeira" not in shown, shown
    assert (data["start_line"], data["end_line"]) == (27, 34), data
