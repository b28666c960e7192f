"""An Obsidian block id ('^goals') is left out of a snippet, as Obsidian's reading view leaves it out. Obsidian
reads one only at the end of a block (a paragraph, a list item; or a line of its own after a table or quote):
'm c ^2' at the end of a line inside a paragraph is text, shown, which the snippet dropped as if it were an id."""
from __future__ import annotations

import os
from pathlib import Path

from search.query.engine import Engine
from tests.conftest import ingest, write_tree

NOTE = """# Physics

Energy grows as m c ^2
when the mass grows, as Einstein wrote.

Decided that tags weigh as much as titles. ^tag-weight

- a checklist item of the lab ^item-1
- another item of the lab

| Quantity | Unit |
|---|---|
| force | newton |
^units-table
"""


def test_a_caret_at_a_line_end_inside_a_paragraph_is_shown_a_block_id_is_not(immediate, tmp_path, monkeypatch):
    monkeypatch.setenv("SIFT_EMBEDDINGS", "off")
    ingest(write_tree(tmp_path / "vault", {"Physics.md": NOTE, "Other.md": "# Other\n\nNothing here.\n"}), "vault")
    engine = Engine(Path(os.environ["SIFT_HOME"]) / "index.db")

    def snippet(query: str) -> str:
        hits = engine.search(query, limit=1, mode="keyword").hits
        assert [h.path for h in hits] == ["Physics.md"], (query, hits)
        return hits[0].snippet
    einstein = snippet("Einstein")
    assert "m c ^2 when the mass grows" in einstein, einstein
    for query, block in (("tags weigh", "^tag-weight"), ("checklist", "^item-1"), ("newton", "^units-table")):
        shown = snippet(query)
        assert block not in shown, (query, shown)
    assert "as much as titles." in snippet("tags weigh")
