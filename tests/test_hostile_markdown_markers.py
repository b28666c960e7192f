"""A Markdown line of list or quote markers nested past markdown-it's nesting limit (ingest.markdown.MAX_NESTING,
76 lists): markdown-it skipped everything from there to the end of the enclosing block, for a list item the rest of
the note, so every heading, link and tag below it was lost. Such a container is read as a paragraph now
(ingest.markdown._too_deep): the note's later blocks are read as in a shallow note, the line kept as written."""
from __future__ import annotations

import pytest

from ingest import markdown

BELOW = "\n\n# Below\n\nplain [near](near.md) #near\n"


def _read(deep: str):
    text = "# Top\n\nintro\n\n" + deep + BELOW
    return text, markdown.parse_markdown("notes/deep.md", text)


@pytest.mark.parametrize("deep", [
    "- " * 76 + "x",  # one list past the limit
    "- " * 200 + "far [far](far.md) #far",
    "* " * 5000 + "x",
    "1. " * 100 + "x",
    "- > " * 100 + "x",  # quotes and lists in turn
    "\t" * 64 + "- " * 76 + "x",  # a line indented past the bound, and markers after it
    "\n".join("  " * i + "- " * 50 + f"y{i}" for i in range(40)),  # lines each deep from its indentation too
])
def test_what_follows_a_line_of_markers_past_the_nesting_limit_is_read(deep):
    text, doc = _read(deep)
    assert [s.heading_path for s in doc.sections] == [["Top"], ["Below"]]
    assert "near" in doc.meta["tags"] and "near.md" in doc.meta["links"]
    assert doc.sections[0].text.endswith(deep.strip())  # the deep lines indexed as written


def test_a_link_and_tag_on_the_deep_line_itself_are_read():
    _, doc = _read("- " * 200 + "far [far](far.md) #far")
    assert doc.meta["tags"] == ["far", "near"] and {"far.md", "near.md"} <= set(doc.meta["links"])
