"""Markdown nested deep. A Logseq page of blocks each one deeper than the last holds n² of indentation (10,000
blocks: 100 MB), which markdown-it scanned a character at a time in Python (77 s); the parser is now shown at most
ingest.markdown.DEEPEST_INDENT characters of a line's indentation, the passages keeping the text as written. And
markdown-it's nesting limit (commonmark's 20 levels: an outline 10 deep) made the block that reached it swallow the
rest of the note unread: every heading, link and tag below it was lost (ingest.markdown.MAX_NESTING)."""
from __future__ import annotations

import pytest

from ingest import markdown


def _nested(levels: int, indent: str = "  ") -> str:
    return "".join(f"{indent * i}- block {i} [link {i}](page-{i}.md)\n" for i in range(levels))


def _read(text: str) -> tuple:
    doc = markdown.parse_markdown("pages/deep.md", text)
    return repr(doc.sections), doc.title, doc.meta, doc.footnotes


@pytest.mark.timeout(120)
def test_a_note_nested_a_thousand_deep_is_parsed_from_bounded_indentation(monkeypatch):
    text = _nested(1000)  # 1 MB, 999 KB of it indentation
    shown = []
    made = markdown.parser()

    class Counting:
        def parse(self, src, env=None):
            shown.append(len(src))
            return made.parse(src, env)

        def __getattr__(self, name):
            return getattr(made, name)

    monkeypatch.setattr(markdown, "parser", lambda: Counting())
    doc = markdown.parse_markdown("pages/deep.md", text)
    assert sum(shown) < len(text) / 4, (sum(shown), len(text))  # every character of it, and more, before
    assert "".join(s.text for s in doc.sections).count("- block") == 1000  # all of it indexed, as written
    assert "  " * 999 + "- block 999" in doc.sections[-1].text


@pytest.mark.parametrize("indent", ["\t", "  ", "    "])
def test_what_follows_an_outline_thirty_deep_is_read(indent):
    doc = markdown.parse_markdown("pages/deep.md", _nested(30, indent) + "# Below\n\nplain [near](near.md) #near\n")
    assert [s.heading_path for s in doc.sections] == [[], ["Below"]]
    assert doc.meta["tags"] == ["near"] and "near.md" in doc.meta["links"] and "page-29.md" in doc.meta["links"]


@pytest.mark.parametrize("indent", ["  ", "\t"])
def test_what_follows_an_outline_three_hundred_deep_is_read(indent):
    """Lines indented past the bound read as blocks of the list DEEPEST_INDENT deep, within MAX_NESTING: headings,
    links and tags after them, and a fence's lines, are read as in a shallow note."""
    text = (_nested(300, indent) + indent * 200 + "text [far](far.md) #far\n"
            + "# Top again\n\nplain [near](near.md) #near\n" + "```\n" + indent * 300 + "# in a fence\n```\n")
    doc = markdown.parse_markdown("pages/deep.md", text)
    assert [s.heading_path for s in doc.sections] == [[], ["Top again"]]
    assert doc.meta["tags"] == ["far", "near"] and {"far.md", "near.md", "page-299.md"} <= set(doc.meta["links"])
    assert doc.sections[0].text == text[:text.index("# Top again")].rstrip("\n")
