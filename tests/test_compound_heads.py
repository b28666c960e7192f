"""A word no passage holds, found as the first part of a compound the index holds (search/query/compound_heads.py)."""
from __future__ import annotations

import os
from pathlib import Path

import pytest

from search.query import compound_heads
from search.query.engine import Engine
from tests.conftest import ingest_keyword_only, write_tree

NOTES = {
    "topologie.md": "# Topologie\n\nDer Sierpińskiraum hat zwei Punkte, von denen einer offen ist.\n",
    "space.md": "# Disk space\n\nFree disk space with du; the space left on a volume.\n",
    "fractals.md": "# Fractals\n\nA triangle cut into three, again and again.\n",
    "datenbank.md": "# Datenbank\n\nDie Kundendatenbank liegt auf dem Server.\n",
}


@pytest.mark.parametrize("postings", [True, False], ids=["postings", "fts5"])
def test_a_word_is_found_in_the_compound_it_begins(immediate, tmp_path, embedder, postings):
    """'Sierpinski' and 'Sierpinski space' found no note saying only 'Sierpińskiraum' (FTS5 keeps it one token,
    'sierpinskiraum'); it is found now, its compound marked. A word some passage holds is not looked up so, nor is
    a word found by its stem's beginning alone ('topological' is no 'topologisch')."""
    write_tree(tmp_path / "notes", NOTES)
    ingest_keyword_only(tmp_path / "notes")
    engine = Engine(Path(os.environ["SIFT_HOME"]) / "index.db", lambda: embedder, keyword_postings=postings)
    if postings:
        engine.warm()
    for query in ("Sierpinski", "Sierpiński", "sierpinski space"):
        hits = engine.search(query, mode="keyword").hits
        assert "topologie.md" in [h.path for h in hits], (query, [h.path for h in hits])
    hit = engine.search("Sierpinski", mode="keyword").hits[0]
    assert hit.path == "topologie.md" and "**Sierpińskiraum**" in hit.snippet, hit.snippet
    assert [h.path for h in engine.search("Kunden", mode="keyword").hits] == ["datenbank.md"]  # of Kundendatenbank
    assert [h.path for h in engine.search("triangle", mode="keyword").hits] == ["fractals.md"]  # held: as before


def test_a_word_beginning_many_terms_or_a_short_rest_takes_none():
    vocabulary = ["postgresql", "sierpinskiraum", "sierpinskis"] + [f"kubernetes{s}" for s in
                                                                      ("cluster", "knoten", "dienst", "pod", "zugang",
                                                                       "version", "konfig")]
    def between(start, end):
        return [(term, 1) for term in sorted(vocabulary) if start <= term < end]
    assert compound_heads.begun("sierpiński", between) == ["sierpinskiraum"]  # not 'sierpinskis': a plural's s
    assert compound_heads.begun("postgres", between) == []  # 'sql' is no second part
    assert compound_heads.begun("kubernetes", between) == []  # begins seven: says too little of which
    assert compound_heads.begun("kunde", between) == []  # shorter than HEAD_LETTERS
