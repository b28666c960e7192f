"""A '#tag' query names a tag: the notes tagged so come first. Where the tag's word is in half of the passages or
more ('garden' in a gardener's vault), keyword search dropped it as saying nothing and hybrid search ranked by
meaning alone, so the note tagged #garden, which says tomatoes and beans, came below notes that say garden."""
from __future__ import annotations

import os
from pathlib import Path

from search.query.engine import Engine
from search.query.filters import Filters
from tests.conftest import ingest, write_tree

VAULT = {
    **{f"Beds/Bed {n}.md": f"# Bed {n}\n\nThe garden bed {n} by the garden wall: garden soil, garden compost.\n"
       for n in range(1, 9)},
    "Seeds.md": "---\ntags: [garden]\n---\n# Seed list\n\nTomatoes, runner beans and peas to sow in April.\n",
    "Shed/Tools.md": "# Tools\n\nA spade and a rake hang on the wall. #garden/tools\n",
    "Kitchen.md": "# Kitchen\n\nBake bread on Sunday.\n",
    "Gardener.md": "# Gardener\n\nThe neighbour's gardener is called Tom. #gardening\n",
}


def test_a_tag_query_puts_the_notes_tagged_so_first_where_its_word_is_common(immediate, tmp_path):
    ingest(write_tree(tmp_path / "vault", VAULT), "vault")
    engine = Engine(Path(os.environ["SIFT_HOME"]) / "index.db")
    for mode in ("hybrid", "keyword"):
        answer = engine.search("#garden", limit=10, mode=mode)
        paths = [h.path for h in answer.hits]
        # tagged #garden, and #garden/tools, nested in it as Obsidian's tag search reads it; not #gardening
        assert set(paths[:2]) == {"Seeds.md", "Shed/Tools.md"}, (mode, paths, answer.notes)
        assert any("tagged #garden" in note for note in answer.notes), answer.notes
    narrow = engine.search("#garden", limit=10, mode="hybrid", filters=Filters(path_prefix="Shed"))
    assert [h.path for h in narrow.hits] == ["Shed/Tools.md"], narrow.hits
    # a tag of several words among other words: the tagged notes first, as a word of the query is not dropped
    answer = engine.search("#garden/tools spade", limit=10, mode="keyword")
    assert [h.path for h in answer.hits][0] == "Shed/Tools.md", answer.hits


def test_a_tag_no_note_holds_is_not_looked_for_and_one_tagged_later_is(immediate, tmp_path):
    """A '#tag' query ranked the title column's matches by FTS5's bm25() (8-20 ms at 100,000 passages) to find the
    notes tagged so, when no note held the tag at all. The published notes' tags are kept (read again after each
    publish): a tag none holds is not looked for, and a note tagged so after a publish is found first."""
    vault = write_tree(tmp_path / "vault", VAULT)
    ingest(vault, "vault")
    engine = Engine(Path(os.environ["SIFT_HOME"]) / "index.db")
    engine.search("#garden", mode="keyword")
    statements: list[str] = []
    engine._connection().set_trace_callback(statements.append)
    try:
        kept = engine.search("#kitchen bread", mode="keyword")
    finally:
        engine._connection().set_trace_callback(None)
    assert [h.path for h in kept.hits][0] == "Kitchen.md"
    assert not any('title : ("kitchen")' in sql for sql in statements), [s for s in statements if "MATCH" in s]
    (vault / "Pantry.md").write_text("---\ntags: [kitchen]\n---\n# Pantry\n\nFlour, yeast and salt.\n")
    ingest(vault, "vault")
    answer = engine.search("#kitchen bread", mode="keyword")
    assert [h.path for h in answer.hits][0] == "Pantry.md", [h.path for h in answer.hits]
    assert any("tagged #kitchen" in note for note in answer.notes), answer.notes
