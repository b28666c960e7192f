"""Hostile input against single parsers: a page or a canvas built to make a parser crash or take time growing
with the square of its size. bench/hostile.py measures every parser on such files at full size (time and memory
per file); these tests keep the inputs small and assert on what is read, never on time."""
from __future__ import annotations

import json

import pytest

from ingest.canvas import _Boxes, parse_canvas
from ingest.webpage import parse_page

PAGE = "<!DOCTYPE html>\n<html><head><title>Hostile</title></head><body>\n<p>the kept tapir</p>\n"


@pytest.mark.parametrize("opener", ["<!--", "<a ", "<a href='x", "</p ", "<?php ", "<!x "],
                         ids=["comment", "tag", "attribute", "end-tag", "processing", "declaration"])
def test_a_page_ending_in_an_unclosed_tag_or_comment_keeps_its_text_and_drops_the_rest(opener):
    """The standard library's parser read each '<' after a construct never closed as the start of one, each time to
    the end of the page: 100 KB of '<a <b &c' after an unclosed '<!--' took 72 s, 2 MB hours. As a browser reads
    it, an unclosed tag or comment runs to the end of the file, and nothing after it is text."""
    doc = parse_page("p.html", PAGE + opener + "<a <b &c\n" * 500)
    assert [s.text for s in doc.sections] == ["the kept tapir"]
    assert doc.title == "Hostile"


def test_a_construct_the_parser_gives_up_on_before_a_later_close_is_read_past():
    """A start tag the standard library cannot finish though a '>' follows (a quote never closed) is text up to
    that '>', as its close() read it, and the page goes on."""
    doc = parse_page("p.html", PAGE + "<p>before <b x='1\n>after</b> and the end</p></body></html>\n")
    text = "\n".join(s.text for s in doc.sections)
    assert text.startswith("the kept tapir") and "after" in text and "and the end" in text


@pytest.mark.parametrize("section", ["<![foo[ hidden ]]>", "<![ hidden", "<![CDATA[ hidden ]]>",
                                     "<![if !supportLists]>"])
def test_marked_sections_are_read_as_browsers_do(section):
    """'<![foo[' or '<![ x' made the standard library raise AssertionError: the page failed, as if Sift had a bug.
    Now each is what HTML5 makes of it outside SVG: a comment up to the next '>' (Word's '<![if …]>' too)."""
    doc = parse_page("p.html", PAGE + f"<p>one {section} two</p>\n<p>the okapi after it</p></body></html>\n")
    text = "\n".join(s.text for s in doc.sections)
    assert "the okapi after it" in text and "the kept tapir" in text
    assert "supportLists" not in text and "foo" not in text


def stacked_groups(count: int) -> str:
    """``count`` groups on one box (each holds all the others), a card in them and an arrow between each two."""
    nodes = [{"id": f"g{i}", "type": "group", "label": f"group {i}", "x": 0, "y": 0, "width": 100, "height": 100}
             for i in range(count)]
    nodes.append({"id": "c", "type": "text", "text": "the tapir card", "x": 10, "y": 10, "width": 10, "height": 10})
    edges = [{"id": f"e{i}", "fromNode": f"g{i}", "toNode": f"g{(i + 1) % count}"} for i in range(count)]
    return json.dumps({"nodes": nodes, "edges": edges}, indent="\t")


def test_groups_stacked_on_one_box_are_named_in_work_linear_in_their_count():
    """Each group of a stack holds all the others: listing and sorting them all for each group grew with the square
    of their count (4,000 took 29 s, the 20,000 items a canvas may hold about 3 min). A passage's path names only
    the outermost three and the innermost four, so only those (and one more each side) are gathered."""
    text = stacked_groups(40)
    canvas = json.loads(text)
    boxes = _Boxes([n for n in canvas["nodes"] if n["type"] == "group"])
    assert len(boxes.around(canvas["nodes"][0])) == 9, "the groups around a group: only those a path names"
    doc = parse_canvas("stack.canvas", text)
    card = next(s for s in doc.sections if s.text == "the tapir card")
    assert card.heading_path == ["group 0", "group 1", "group 2", "…", "group 36", "group 37", "group 38",
                                 "group 39"]
    alone = [s for s in doc.sections if s.text.startswith("group ")]
    assert [s.text for s in alone] == [f"group {i}" for i in range(3, 36)], "the groups no card's path names"
    assert alone[0].heading_path == ["group 0", "group 1", "group 2", "…", "group 36", "group 37", "group 38",
                                     "group 39"]


def test_a_table_of_thousands_of_columns_heads_its_passages_with_the_first_names_only():
    """The column names head every passage of a table and were counted again for each row: a CSV of 100,000
    columns (a 690 KB line) took 30 s to cut 100 short rows, about 50 min for 10,000. They are cut at a whole name
    within 2,000 characters (COLUMNS_CHARS); a table of ordinary width keeps them all."""
    from ingest.chunk import chunk_document, plain_count
    from ingest.table import parse_table
    doc = parse_table("wide.csv", ",".join(f"column{i}" for i in range(1_000)) + "\nthe tapir,sleeps\n")
    columns = doc.meta["columns"]
    assert len(columns) <= 2_000 and columns.startswith("column0 | column1 | ") and columns.endswith(" | …")
    assert columns.split(" | ")[-2] == f"column{len(columns.split(' | ')) - 2}", "cut at a whole name"
    chunks = chunk_document(doc, plain_count, 256, 32)
    assert [c.text for c in chunks] == ["the tapir | sleeps"]
    assert all(len(" > ".join(c.heading_path)) <= 2_000 + len(doc.title) + 3 for c in chunks)
    narrow = parse_table("tasks.csv", "Name,Assignee,Status\nBook the venue,Ana,done\n")
    assert narrow.meta["columns"] == "Name | Assignee | Status"


class CountingText(str):
    """A section's text that counts the characters its ``count`` calls scan."""
    scanned = 0

    def count(self, sub, start=0, end=None):
        end = len(self) if end is None else end
        CountingText.scanned += max(0, end - start)
        return super().count(sub, start, end)


def test_a_long_sections_line_numbers_are_counted_once_not_from_its_start_for_each_window():
    """Each window's first line was counted from its section's start: for a 4 MB section of lines, 21 of the 39 s
    it took to cut (quadratic; the chunks of a 64 MiB log are cut up to SIFT_MAX_FILE_CHUNKS). Counted on from
    the window before, each line break is counted about once; the lines are the same."""
    from ingest.chunk import chunk_section, plain_count
    from ingest.document import Section
    lines = [f"line {i} the tapir sleeps all day long" for i in range(3_000)]
    text = CountingText("\n".join(lines))
    CountingText.scanned = 0
    chunks = chunk_section(Section(text=text, start_line=10, end_line=10 + len(lines) - 1), plain_count, 64, 16)
    assert len(chunks) > 100
    assert CountingText.scanned < 4 * len(text), f"scanned {CountingText.scanned:,} characters of {len(text):,}"
    for chunk in chunks:
        first = chunk.text.split("\n", 1)[0]
        assert lines[chunk.start_line - 10].endswith(first) and chunk.start_line - 10 == int(
            lines[chunk.start_line - 10].split()[1])
        assert chunk.end_line == chunk.start_line + chunk.text.rstrip().count("\n")
