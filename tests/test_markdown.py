"""Markdown notes: front matter, heading paths, line ranges, atomic blocks, links."""
import sys

import pytest
from hypothesis import given, settings, strategies as st

from ingest import markdown
from ingest.markdown import parse_markdown

NOTE = """---
title: 曲美 project
tags: [client, 合同]
aliases: Qumei
---
Preamble line.

# Clients
Intro.

## 曲美
### 合同
Contract terms: see [[Qumei contract.pdf|the PDF]] and [spec](docs/spec.md).

```bash
# not a heading
echo hi
```

| a | b |
|---|---|
| 1 | 2 |

## Other
Done.
"""


def test_front_matter_gives_title_tags_aliases():
    doc = parse_markdown("clients/qumei.md", NOTE)
    assert doc.title == "曲美 project"
    assert doc.meta["tags"] == ["client", "合同"]
    assert doc.meta["aliases"] == ["Qumei"]


@pytest.mark.parametrize("written, tags, aliases", [
    ("tags: alpha, beta\naliases: Sift search, Sift", ["alpha", "beta"], ["Sift search", "Sift"]),
    ("tags: alpha beta\naliases: Sift search", ["alpha", "beta"], ["Sift search"]),
    ('tags: "#alpha, #beta"', ["alpha", "beta"], None),
    ('tags: ["#alpha", "beta", "#"]', ["alpha", "beta"], None)])
def test_front_matter_tags_and_aliases_as_one_string_read_as_obsidian_reads_them(written, tags, aliases):
    """One string of aliases was cut at its spaces too ('Sift search' made the aliases 'Sift' and 'search'), and a
    front-matter tag written with its '#' kept it, so the note's tag list said '#alpha' where its inline tag
    says 'alpha'."""
    doc = parse_markdown("n.md", f"---\n{written}\n---\n# T\n\nbody #alpha\n")
    assert doc.meta["tags"] == tags and doc.meta.get("aliases") == aliases, doc.meta


@pytest.mark.parametrize("value", ["date: 2024-02-30", "created: 2024-01-01 25:00:00", "tags: !!int twelve"])
def test_front_matter_yaml_cannot_construct_is_read_as_text(value):
    """YAML that parses but whose values cannot be built (a date that does not exist) raised ValueError, not
    YAMLError, and the whole note failed at parse; now it is read as text, like other broken front matter."""
    note = f"---\n{value}\n---\n# Trip\n\nThe ferry leaves at noon.\n"
    doc = parse_markdown("trip.md", note)
    assert doc.title == "Trip" and "ferry" in "\n".join(s.text for s in doc.sections)
    assert value in "\n".join(s.text for s in doc.sections)


def test_front_matter_that_does_not_parse_is_read_as_its_text_not_as_a_heading():
    """'title: Meeting: Q3 planning' is no YAML (a ': ' in a value): the block is text, as before, but it was read as
    Markdown, a setext heading over its closing '---' that headed every passage of the note, and the opening '---'
    a passage of its own. Its lines are one passage with the text under them now, under no heading."""
    note = "---\ntitle: Meeting: Q3 planning\ntags: [work, planning]\n---\n\nAgenda: the budget\n\n## Actions\nAna\n"
    doc = parse_markdown("q3.md", note)
    assert [(s.heading_path, s.start_line, s.end_line) for s in doc.sections] == [([], 1, 6), (["Actions"], 8, 9)]
    assert "title: Meeting: Q3 planning" in doc.sections[0].text


def test_front_matter_that_does_not_parse_still_gives_the_title_tags_and_aliases_it_writes():
    """Front matter that is no YAML was no metadata at all: the note 'Meeting: Q3 planning' was titled 'q3' and
    untagged. Its title, tags and aliases are read from their own lines (each key with the lines under it as YAML
    alone, a one-line value that is still none as its text); every line stays the first passage's text."""
    note = ("---\ntitle: Meeting: Q3 planning\naliases:\n  - Q3 meeting\ntags: #work #q3\nattendees: Ana: lead\n"
            "---\n\nAgenda: the budget\n")
    doc = parse_markdown("q3.md", note)
    assert doc.title == "Meeting: Q3 planning" and doc.meta["title"] == "Meeting: Q3 planning"
    assert doc.meta["tags"] == ["work", "q3"] and doc.meta["aliases"] == ["Q3 meeting"]
    assert "attendees" not in doc.meta
    [section] = doc.sections
    assert section.heading_path == [] and all(line in section.text for line in note.split("\n")[:7])
    flow = parse_markdown("q3.md", "---\ntitle: Meeting: Q3 planning\ntags: [work, planning]\n---\nAgenda\n")
    assert flow.meta["tags"] == ["work", "planning"]


BROKEN_MEETING = ("---\nTitle: Meeting: Q3 planning\nAliases:\n  - Planning: Q3\n  - Roadmap: Q3: kickoff\n"
                  "Tags: [work, planning]\nDate: 2024-03-14\n---\n\nAgenda: the budget and the hiring plan.\n")


def test_front_matter_that_does_not_parse_gives_what_its_lines_obviously_mean():
    """Broken front matter read line by line read only lower-case 'title:', 'tags:' and 'aliases:' of scalars: with
    'Title:' the note was titled by its file name, its date was none, and an alias written '- Planning: Q3' (a
    mapping to YAML) was dropped. Now its keys are read as valid front matter's are, in any case ('Title:' is
    the title there too), and an alias item of 'key: value' is the text written."""
    doc = parse_markdown("q3.md", BROKEN_MEETING)
    assert doc.title == "Meeting: Q3 planning", doc.meta
    assert doc.meta["aliases"] == ["Planning: Q3", "Roadmap: Q3: kickoff"] and doc.meta["tags"] == ["work", "planning"]
    assert doc.meta["date"] == "2024-03-14"
    valid = parse_markdown("q3.md", "---\nTitle: Q3 planning\naliases:\n  - Planning: Q3\n---\nAgenda\n")
    assert valid.title == "Q3 planning" and valid.meta["aliases"] == ["Planning: Q3"], valid.meta


def test_front_matter_that_does_not_parse_with_a_list_under_a_line_of_text_is_read():
    """A list item under a line that is no key ('Notes for the week' then '- call the bank') was read as an entry
    of no key: unpacking its key raised ValueError and the note failed to index."""
    doc = parse_markdown("week.md", "---\ntitle: Week: 12\nNotes for the week\n- call the bank\ntags: [a\n---\nText\n")
    assert doc.title == "Week: 12" and "call the bank" in doc.sections[0].text, doc.meta


def test_search_and_list_files_see_broken_front_matters_title_tags_and_date(immediate, tmp_path, monkeypatch):
    """As an assistant meets such a note: search shows it under its title, list_files finds it by its tag and by
    the day its front matter gives (it listed by none of them: the note had no tag and no date of its own)."""
    from mcp_server.service import Sift
    from mcp_server.tools import Tools
    from search.settings import load
    from tests.conftest import ingest, write_tree
    monkeypatch.setenv("SIFT_EMBEDDINGS", "off")
    root = write_tree(tmp_path / "notes", {"q3.md": BROKEN_MEETING, "other.md": "# Other\n\nThe budget, later.\n"})
    assert ingest(root, "notes")["published"]["failures"] == []
    tools = Tools(Sift(load()))
    found = tools.search(query="agenda budget hiring", mode="keyword").structured_content["results"]
    assert (found[0]["path"], found[0]["title"]) == ("notes/q3.md", "Meeting: Q3 planning"), found
    tagged = tools.list_files(tags=["planning"]).structured_content["files"]
    dated = tools.list_files(date_after="2024-03-14", date_before="2024-03-15").structured_content["files"]
    assert [f["path"] for f in tagged] == [f["path"] for f in dated] == ["notes/q3.md"], (tagged, dated)


@pytest.mark.timeout(120)
def test_front_matter_too_long_to_be_metadata_is_read_as_text():
    """PyYAML builds front matter at about 20 s and 200 MB per MB here: a note whose YAML block held a data dump
    (a 64 MiB note may) took minutes and gigabytes at parse. A block over FRONT_MATTER_CHARS is read as text."""
    import time

    block = "title: Dump\ntags: [" + ", ".join(f"t{i}" for i in range(250_000)) + "]\n"
    note = f"---\n{block}---\n# Readings\n\nThe sensor logged a spike.\n"
    started = time.monotonic()
    doc = parse_markdown("dump.md", note)
    assert time.monotonic() - started < 10
    assert "tags" not in doc.meta and doc.title == "Readings"
    assert "t249999" in "\n".join(s.text for s in doc.sections) and doc.sections[0].start_line == 1
    short = parse_markdown("short.md", "---\n" + block[:markdown.FRONT_MATTER_CHARS - 100].rsplit(",", 1)[0] + "]\n---\nbody\n")
    assert short.title == "Dump" and len(short.meta["tags"]) == markdown.META_ITEMS


def test_heading_paths_and_line_ranges():
    doc = parse_markdown("clients/qumei.md", NOTE)
    lines = NOTE.split("\n")
    paths = [s.heading_path for s in doc.sections]
    assert paths == [[], ["Clients"], ["Clients", "曲美", "合同"], ["Clients", "Other"]]
    for section in doc.sections:
        assert "\n".join(lines[section.start_line - 1:section.end_line]) == section.text
    contract = doc.sections[2]
    assert contract.text.startswith("## 曲美\n### 合同\n"), "a bare heading opens the section below it"
    assert "# not a heading" in contract.text, "a # line inside a code fence is not a heading"


def test_a_bare_heading_opens_the_section_below_it_not_one_of_its_own():
    """'# Title' right above '## Part' was a section, so a passage, of one heading line: a search for the
    title's words ranked it above the text under it. Any heading with nothing under it opens the section
    of the heading below it, a sibling or a shallower one too ('## Empty' over '## Sibling' was a passage of
    its own); bare headings at the end join the section above. A note of headings only is one section."""
    note = "# Git\n\n## Undo\nreset --soft\n\n## Empty\n## Sibling\ntext\n\nSetext\n======\n\nPart\n----\nbody\n\n# Last\n"
    assert sections_of(note) == [(["Git", "Undo"], 1, 4), (["Git", "Sibling"], 6, 8), (["Setext", "Part"], 10, 17)]
    assert sections_of("# Title\n## Empty\n\n## Next\ntext\n") == [(["Title", "Next"], 1, 5)]
    assert sections_of("# T\n## A\n### A1\n## B\ntext\n## C\nmore\n") == [(["T", "B"], 1, 5), (["T", "C"], 6, 7)]
    assert sections_of("Intro.\n\n# Later\n## Empty\n") == [([], 1, 4)]
    assert sections_of("# Only\n") == [(["Only"], 1, 1)]
    assert sections_of("# A\n## B\n### C\n") == [(["A", "B", "C"], 1, 3)]


def test_code_fence_and_table_are_atomic_blocks():
    contract = parse_markdown("n.md", NOTE).sections[2]
    blocks = [contract.text[a:b] for a, b in contract.atomic]
    assert any(b.startswith("```bash") and b.rstrip().endswith("```") for b in blocks)
    assert any(b.startswith("| a | b |") and b.rstrip().endswith("| 1 | 2 |") for b in blocks)


def test_links_are_recorded():
    assert parse_markdown("n.md", NOTE).meta["links"] == ["Qumei contract.pdf", "docs/spec.md"]


def test_a_reference_to_no_character_in_a_link_is_a_replacement_character_not_a_fragment():
    """[x](a&#xD800;b.md) was recorded as the link 'a&': markdown-it leaves a numeric reference to no character
    as written, and its '#' was cut as the fragment's. CommonMark reads it as U+FFFD; a valid one is decoded as
    before, and a '#' it decodes to still starts the fragment."""
    from ingest.links import resolve_links
    text = "[x](a&#xD800;b.md) [y](c&#0;d.md) ![z](e&#X110000;f.pdf) [v](g&#x41;h.md) [w](i&#35;j.md)\n\n[r]\n\n" \
           "[r]: k&#xDFFF;l.md\n"
    links = parse_markdown("n/m.md", text).meta["links"]
    assert resolve_links("n/m.md", links) == ["n/a\ufffdb.md", "n/c\ufffdd.md", "n/e\ufffdf.pdf", "n/gAh.md", "n/i",
                                              "n/k\ufffdl.md"]


def test_title_falls_back_to_h1_then_file_name():
    assert parse_markdown("a/b.md", "# Heading One\ntext").title == "Heading One"
    assert parse_markdown("a/b.md", "## Only h2\ntext").title == "b"


# --- CommonMark, as markdown-it-py reads it -----------------------------------------------------

def sections_of(text: str) -> list[tuple[list[str], int, int]]:
    return [(s.heading_path, s.start_line, s.end_line) for s in parse_markdown("n.md", text).sections]


def test_setext_headings_start_sections_and_give_the_title():
    note = "Project Plan\n============\n\nIntro.\n\nRisks and\nmitigations\n-----------\nNone yet.\n"
    doc = parse_markdown("n.md", note)
    assert doc.title == "Project Plan"
    assert sections_of(note) == [(["Project Plan"], 1, 4), (["Project Plan", "Risks and mitigations"], 6, 9)]


def test_a_hash_line_inside_indented_code_is_not_a_heading():
    note = "# Setup\n\nRun this:\n\n    # install the tools\n    make install\n\nThen go on.\n"
    [section] = parse_markdown("n.md", note).sections
    assert section.heading_path == ["Setup"] and (section.start_line, section.end_line) == (1, 8)
    assert [section.text[a:b] for a, b in section.atomic] == ["    # install the tools\n    make install"]


def test_html_block_is_atomic_and_holds_no_heading():
    note = "# Page\n\n<details>\n# not a heading\n<p>hidden</p>\n</details>\n\n## Next\ntext\n"
    doc = parse_markdown("n.md", note)
    assert [s.heading_path for s in doc.sections] == [["Page"], ["Page", "Next"]]
    page = doc.sections[0]
    assert [page.text[a:b] for a, b in page.atomic] == ["<details>\n# not a heading\n<p>hidden</p>\n</details>"]


def test_headings_inside_a_block_quote_or_a_list_are_headings():
    note = "# Notes\n\n> ## Quoted\n> said here\n\n- item\n\n  ### In a list\n  more\n\n#not-a-heading tag\n"
    assert sections_of(note) == [(["Notes", "Quoted"], 1, 6), (["Notes", "Quoted", "In a list"], 8, 11)]


def test_a_hash_run_without_a_space_and_an_unclosed_fence_are_not_headings():
    note = "# Top\n#hashtag line\n```\n# inside an unclosed fence\n\n## still code\n"
    [section] = parse_markdown("n.md", note).sections
    assert section.heading_path == ["Top"]
    assert [section.text[a:b] for a, b in section.atomic] == ["```\n# inside an unclosed fence\n\n## still code"]


def test_math_blocks_are_atomic_even_across_blank_lines_and_an_unclosed_one_is_text():
    note = "# Maths\n\n$$\na = b\n\nc = d\n$$\n\n$$ x^2 $$\n\n$$ unclosed\ntext\n"
    [section] = parse_markdown("n.md", note).sections
    assert [section.text[a:b] for a, b in section.atomic] == ["$$\na = b\n\nc = d\n$$", "$$ x^2 $$"]


def test_links_come_from_link_tokens():
    note = ("[spec](docs/spec.md), ![plot](img/plot.png), [ref][r], [angle](<my file.md>), `[code](not.md)`,\n"
            "[web](https://example.com), [top](#top), [mail](mailto:a@b.c), [[Wiki Page#part|label]]\n\n"
            "    [indented](code.md)\n\n[r]: refs/defined.md\n")
    assert parse_markdown("n.md", note).meta["links"] == [
        "Wiki Page", "docs/spec.md", "img/plot.png", "my file.md", "refs/defined.md"]


LINE_KINDS = ["", "", "text [a link](to/a.md) here", "# Top", "## Second", "Setext", "===", "---", "- item",
              "  - nested item", "1. ordered", "> quoted", "> # quoted heading", "> - quoted item", "```", "~~~",
              "$$", "$$ x $$", "a = b $$", "    indented code", "<div>", "</div>", "| a | b |", "|---|---|",
              "| 1 | 2 |", "  ## in an item", "lazy line", "* * *", "`code [x](y.md)`", "![img](p.png)",
              "> > nested quote", ">   - deeper item", "> ```", "> $$", "> 1. [n](n.md)", ">", "> | a |", "> |---|",
              "[by reference][r]", "[r]: ref.md", "| [cell][r] | 2 |", "> [!note] Owner", "> [!tip]", "> > [!quote] x",
              "> Dana"]


def parsed_in_pieces(note: str, piece: int):
    """The note parsed with PIECE_CHARS set to piece, and set back after."""
    saved, markdown.PIECE_CHARS = markdown.PIECE_CHARS, piece
    try:
        return parse_markdown("n.md", note)
    finally:
        markdown.PIECE_CHARS = saved


def outline(doc) -> list:
    return [(s.heading_path, s.start_line, s.end_line, s.atomic) for s in doc.sections] + [doc.meta, doc.title]


@settings(max_examples=300, deadline=None)
@given(kinds=st.lists(st.sampled_from(LINE_KINDS), min_size=1, max_size=120), piece=st.integers(1, 200))
def test_a_note_read_in_pieces_reads_as_one_parse_of_the_whole(kinds, piece):
    """Long notes are parsed a piece at a time (to bound memory); cut anywhere, the note reads the same.
    PIECE_CHARS is set and set back inside each example: a function-scoped monkeypatch would undo it
    only after the last one, and every later example would read its 'whole' note in pieces too."""
    note = "\n".join(kinds) + "\n"
    assert outline(parsed_in_pieces(note, piece)) == outline(parse_markdown("n.md", note))


def test_a_line_a_piece_starts_on_is_read_in_the_quote_or_list_it_continues():
    """A piece may start inside a block quote or a list, on a line that, read at the top, is something
    else: a table ('> a | b' or '- a | b' over '|---|---|': markdown-it tries tables first), or indented
    code (a '>' indented 4 columns or more still goes on in a quote). Such a line is not cut at."""
    notes = ["\n".join(['> | a |', '> # quoted heading', '> |---|', '|---|---|', '| 1 | 2 |', '> ```', 'Setext',
                        '* * *', '', '> |---|', '![img](p.png)', 'Setext', '> $$']),
             "- x\n- a | b\n|---|---|\n", "> x\n>\n> a | b\n|---|---|\n", "> a\n| b |\n|---|\n",
             "> # quoted heading\n\t> tab\n", "> > a\n>     > b\n> > c\n", "> a\n>\n    > b\n"]
    for note in notes:
        whole = outline(parse_markdown("n.md", note))
        for piece in range(1, 61):
            assert outline(parsed_in_pieces(note, piece)) == whole, (note, piece)


def test_a_piece_that_ends_in_a_quote_is_cut_before_a_math_block_it_may_not_hold():
    """'$$' in a quote whose closing '$$' lies past the piece: whether the quote holds that line is not
    known from the piece, nor so whether the '$$' ends the paragraph above it (here a setext heading)."""
    notes = ["> |---|\n> $$\n> ---\n\n$$\n", "> > a | b\n> $$\n> ===\n\na = b $$\n",
             "> quoted\n> $$\n> -\n>\n$$ x $$\n", "- item\n  $$\n  text\n\n$$\n"]
    for note in notes:
        whole = outline(parse_markdown("n.md", note))
        for piece in range(1, 61):
            assert outline(parsed_in_pieces(note, piece)) == whole, (note, piece)


def test_a_math_block_in_a_list_item_held_for_the_next_piece_is_not_read():
    """A '$$' closed past the piece is held to the piece's end, past its list item: reading its lines
    there failed on an empty last line (an IndexError in markdown-it-py's getLines)."""
    note = "> - $$\n>\n> - $$\n"
    whole = outline(parse_markdown("n.md", note))
    for piece in range(1, 61):
        assert outline(parsed_in_pieces(note, piece)) == whole, piece


REGRESSION = """# Linear regression

- Least squares: minimise the squared residuals
  $$
  \\hat\\beta = (X^T X)^{-1} X^T y
- Ridge adds a penalty, see [[Regularisation]] #ml
- Gradient descent converges for a small learning rate, see [notes](gd.md)

## Lasso

The L1 penalty zeroes coefficients.
$$
\\lambda \\lVert \\beta \\rVert_1
$$
"""


def test_a_math_block_in_a_list_item_ends_with_the_item():
    """A '$$' in a list item left unclosed there (its closing '$$' is further down, after the list) made one math
    block of everything down to that '$$': the list's next items, the '## Lasso' heading and the paragraph under it,
    with their tag and link, were read as math. The block ends where the item does, as a fence does."""
    doc = parse_markdown("regression.md", REGRESSION)
    assert [(s.heading_path, [s.text[a:b] for a, b in s.atomic]) for s in doc.sections] == [
        (["Linear regression"], ["  $$\n  \\hat\\beta = (X^T X)^{-1} X^T y"]),
        (["Linear regression", "Lasso"], ["$$\n\\lambda \\lVert \\beta \\rVert_1\n$$"])]
    assert doc.meta["tags"] == ["ml"] and doc.meta["links"] == ["Regularisation", "gd.md"]
    assert outline(parse_markdown("regression.md", REGRESSION, fast_lists=False)) == outline(doc)
    for piece in range(1, 80, 7):
        assert outline(parsed_in_pieces(REGRESSION, piece)) == outline(doc), piece
    assert outline(parse_markdown("regression.md", REGRESSION.rstrip("\n"))) == outline(doc)
    # closed inside its item, it is math to its '$$' as before
    inside = "- a\n  $$\n  x\n\n  y\n  $$\n- b\n"
    assert [s.text[a:b] for s in parse_markdown("n.md", inside).sections for a, b in s.atomic] == \
        ["  $$\n  x\n\n  y\n  $$"]


def test_a_math_block_in_a_quoted_list_item_ends_with_the_quote():
    """In a list item in a quote, a '$$' closed below the quote was a math block to a paragraph's eyes (it asks with
    the note's end) and text to the block's (it asks with the quote's): each '$$' line was a paragraph of its own,
    from which the setext heading rule looked to the quote's end, asking the math rule at every line (1,000 lines:
    3.3 s of CPU). Both see a math block to the item's end now, read once."""
    note = "> - item\n" + ">   $$ a\n" * 300 + "> text #quoted\n\n$$\n"
    [section] = parse_markdown("n.md", note).sections
    assert [section.text[a:b] for a, b in section.atomic] == [(">   $$ a\n" * 300).rstrip("\n")]
    assert parse_markdown("n.md", note).meta["tags"] == ["quoted"]
    assert outline(parse_markdown("n.md", note, fast_lists=False)) == outline(parse_markdown("n.md", note))


PHOENIX = """# Project Phoenix

## Tasks
- Migrate the billing database
  > [!warning] Rollback plan
  > Keep the old Postgres replica running for two weeks.
  > Snapshot it nightly to the phoenix-backups bucket. #ops
- Update the runbook
  - with the new failover steps
    > [!tip]
    > Page the on-call engineer before cutting over.
  - and the alerts

> [!note] Owner
> Dana
>
> > [!quote] Not a callout of its own: it lies in another quote
"""


def test_a_callout_in_a_list_item_heads_its_lines_as_one_at_the_top_does():
    """Obsidian shows a callout in a list item as one at the top; only one at the top headed its lines: 'Rollback
    plan' was no heading path of the replica's passage. One in another quote is still that quote's text."""
    doc = parse_markdown("Phoenix.md", PHOENIX)
    assert [(s.heading_path, s.start_line, s.end_line) for s in doc.sections] == [
        (["Project Phoenix", "Tasks"], 1, 4),
        (["Project Phoenix", "Tasks", "Rollback plan"], 5, 7),
        (["Project Phoenix", "Tasks"], 8, 9),
        (["Project Phoenix", "Tasks", "Tip"], 10, 11),
        (["Project Phoenix", "Tasks"], 12, 12),
        (["Project Phoenix", "Tasks", "Owner"], 14, 17)]
    assert doc.meta["tags"] == ["ops"]
    assert outline(parse_markdown("Phoenix.md", PHOENIX, fast_lists=False)) == outline(doc)
    for piece in range(1, 120, 9):
        assert outline(parsed_in_pieces(PHOENIX, piece)) == outline(doc), piece


def test_a_callouts_quote_cut_into_pieces_reads_as_the_whole_note_does():
    """A note is parsed in pieces of 256 KB, and a piece could start inside a callout's quote (at a nested quote
    whose paragraph goes on lazily, '> > [!quote] x' over '> Dana', or anywhere in it): the lines after the cut
    were under no heading, the callout's ending there; a cut at a line reading as a callout's first ('> [!tip]'
    under '> ---') made one the whole note has not. Such a quote is not cut now."""
    notes = [PHOENIX + "> Dana\n> > more\n> lazy\n>\n> after\n",
             "> [!note] Owner\n> Dana\n>\n> more\n>\n> more2\n> - item\n> - item2\n",
             "> ---\n> [!tip]\n> a\n", "> [r]: x.md\n> [!note] T\n", "- item\n  > [!tip] T\n  > a\n  >\n  > b\n"]
    for note in notes:
        whole = outline(parse_markdown("n.md", note))
        for piece in range(1, len(note) + 2, 2):
            assert outline(parsed_in_pieces(note, piece)) == whole, (note, piece)


def calls(function, run) -> int:
    """How many times ``function`` is called while ``run()`` runs (work counted, not timed)."""
    count = 0

    def profile(frame, event, arg):
        nonlocal count
        if event == "call" and frame.f_code is function.__code__:
            count += 1
    sys.setprofile(profile)
    try:
        run()
    finally:
        sys.setprofile(None)
    return count


def test_a_math_block_in_a_quote_closed_below_it_is_text_read_once():
    """A '$$' line in a quote whose closing '$$' lies below the quote is text. A paragraph asked the math rule with
    the note's end (a math block: the paragraph ended there), a block start with the quote's (text): each '$$' line
    was a paragraph of its own, from which the setext heading rule asked the math rule at every line to the quote's
    end (2,000 lines: 14 s of CPU). The math rule is now asked about each line about once."""
    note = "> intro #quoted\n" + "> $$ a\n> text [x](x.md)\n" * 200 + "\n$$\n"
    assert calls(markdown._math_block, lambda: parse_markdown("n.md", note)) <= 2 * note.count("\n")
    doc = parse_markdown("n.md", note)
    assert [(s.start_line, s.end_line, s.atomic) for s in doc.sections] == [(1, 403, [])]
    assert doc.meta["tags"] == ["quoted"] and doc.meta["links"] == ["x.md"]
    assert outline(parse_markdown("n.md", note, fast_lists=False)) == outline(doc)
    assert outline(parsed_in_pieces(note, 300)) == outline(doc)


def test_blocks_longer_than_a_piece_are_read_whole(monkeypatch):
    note = ("intro\n\n$$\n" + "# not a heading\n\n" * 40 + "$$\n\n```\n" + "# code\n\n" * 40 + "```\n\n"
            + "- item\n\n  # in the item\n" * 30 + "\n# After\ntext\n")
    whole = parse_markdown("n.md", note)
    assert [s.heading_path for s in whole.sections][:3] == [[], ["in the item"], ["in the item"]]
    for piece in (10, 50, 300):
        monkeypatch.setattr(markdown, "PIECE_CHARS", piece)
        pieces = parse_markdown("n.md", note)
        assert [(s.heading_path, s.start_line, s.end_line, s.atomic) for s in pieces.sections] == \
            [(s.heading_path, s.start_line, s.end_line, s.atomic) for s in whole.sections], piece


def test_a_quote_no_line_of_which_a_piece_can_start_on_keeps_pieces_bounded(monkeypatch):
    """The quote's paragraphs are all '\t> ...': a piece starting on one reads indented code, not the quote, so
    no cut in it is sure. Memory goes with the tokens a piece holds (hundreds of bytes a line): the piece
    grows to GROWTH times its size and is then cut unchecked, instead of growing to the whole quote."""
    note = "> quote\n>\n" + "".join(f"\t> paragraph {i} of the quote\n\t>\n" for i in range(400))
    real = markdown.parser()
    lines = note.split("\n")
    whole = len(real.parse(note, {"math_close": markdown._math_closes(lines), "lines": len(lines), "first": 0,
                                  "unsure": len(lines)}))
    held = []
    monkeypatch.setattr(markdown, "parser", lambda: type("P", (), {"parse": lambda _, text, env: (
        held.append(len(tokens := real.parse(text, env))), tokens)[1]})())
    monkeypatch.setattr(markdown, "PIECE_CHARS", len(note) // 40)
    parse_markdown("n.md", note)
    assert max(held) < whole / 4, (max(held), whole)


def test_a_reference_link_defined_further_down_is_found_from_any_piece_and_in_tables():
    """CommonMark lets '[text][label]' use a '[label]: url' defined anywhere in the note, and notes usually
    put the definitions at the end: a note over PIECE_CHARS lost every such link above its last piece, and
    a table lost those in its cells even in one parse (its cells were read as the table was)."""
    note = ("See [the paper][p] and ![figure][f].\n\n" + "filler paragraph\n\n" * 200
            + "| a | [table][t] |\n|---|---|\n| b | c |\n\n" + "[p]: papers/paper.pdf\n[f]: img/fig.png\n[t]: t.md\n")
    expected = ["img/fig.png", "papers/paper.pdf", "t.md"]
    assert parse_markdown("n.md", note).meta["links"] == expected
    for piece in (50, 500, 3000):
        assert parsed_in_pieces(note, piece).meta["links"] == expected, piece


def test_a_paragraph_too_long_to_read_whole_is_read_for_links_a_line_at_a_time(monkeypatch):
    note = "start\n" + "".join(f"line {i} with [link {i}](notes/{i}.md) and [[Wiki {i}]]\n" for i in range(50))
    whole = parse_markdown("n.md", note).meta["links"]
    monkeypatch.setattr(markdown, "INLINE_CHARS", 100)
    assert parse_markdown("n.md", note).meta["links"] == whole
    assert len(whole) == 100 and "notes/49.md" in whole and "Wiki 0" in whole


def test_a_table_is_one_atomic_block_and_keeps_the_links_of_its_cells():
    note = "| a | [x](cell.md) |\n|---|---|\n| 1 | ![i](img.png) \\| [y](y.md) |\nlazy row\n> quote\n[z](z.md)\n"
    [section] = parse_markdown("n.md", note).sections
    assert [section.text[a:b] for a, b in section.atomic] == [note.split("\n> quote")[0]], "GFM: a line joins"
    assert parse_markdown("n.md", note).meta["links"] == ["cell.md", "img.png", "y.md", "z.md"]


def test_links_that_leave_the_collection_are_dropped_however_they_are_written():
    """'../..' from a note one folder down, or '..' at the top, resolved to '..' itself, which the check for a
    leading '../' let through as a link target."""
    from ingest.links import resolve_links

    targets = ["..", "../", "../..", "x/../../..", "%2e%2e/%2E%2E", "../b.pdf", "sub/../../c.pdf", "d.pdf"]
    assert resolve_links("a/note.md", targets) == ["a/d.pdf", "b.pdf", "c.pdf"]  # [x](d.pdf): beside the note
    assert resolve_links("note.md", targets) == ["d.pdf"]


def test_a_link_from_slash_is_read_from_the_collections_folder_and_other_schemes_are_dropped():
    """'/docs/x.pdf' was stored as the absolute path /docs/x.pdf (and listed as an attachment of the note
    whatever file that is); 'data:' and 'tel:' links became paths under the note's folder; '%00' a NUL."""
    from ingest.links import resolve_links

    targets = ["/docs/x.pdf", "//y.md", "/../../etc/passwd", "data:image/png;base64,iVBOR", "tel:+4930123",
               "javascript:alert(1)", "z%00.md", "C:/notes/w.md", "Plan: Q3"]
    assert resolve_links("a/note.md", targets, {"Plan: Q3"}) == ["Plan: Q3", "a/z.md", "docs/x.pdf", "y.md"]


def test_toml_front_matter_gives_the_title_and_is_not_indexed_as_text():
    """Hugo writes front matter as TOML between '+++' lines: the note was titled by its file name and its first
    passage began '+++ title = "…" +++'. Now it is read as YAML front matter is."""
    note = '+++\ntitle = "Release Checklist"\ntags = ["ops", "deploy"]\ndate = 2024-03-01\n+++\n\nTag the build first.\n'
    doc = parse_markdown("posts/checklist.md", note)
    assert doc.title == "Release Checklist"
    assert doc.meta["tags"] == ["ops", "deploy"] and doc.meta["date"] == "2024-03-01"
    text = "\n".join(s.text for s in doc.sections)
    assert "+++" not in text and "title =" not in text and "Tag the build first." in text
    assert doc.sections[0].start_line == 7
    broken = parse_markdown("broken.md", "+++\ntitle = \n+++\n# Kept\n\nbody\n")  # not TOML: read as text
    assert broken.title == "Kept" and "title =" in "\n".join(s.text for s in broken.sections)


def test_inline_tags_in_comments_are_no_tags():
    """Obsidian reads no tag inside a '%% … %%' comment (one may run over paragraphs) or an HTML comment."""
    note = ("# Shed\n\nBuilt it. #real %% #hidden-inline %% #after\n\n%%\nDraft: #draft-one\n\nmore #draft-two\n%%\n\n"
            "Done %% #draft-three\nstill hidden %% #kept\n\nText <!-- #html-hidden --> #also\n\n<!--\n#html-block\n-->\n\n"
            "```\n%%\n```\n\n#end\n")
    doc = parse_markdown("Shed.md", note)
    assert doc.meta["tags"] == ["real", "after", "kept", "also", "end"], doc.meta["tags"]


def test_a_heading_inside_a_comment_heads_nothing():
    """A heading inside a '%% … %%' comment, which Obsidian hides, headed the passages after it: the comment's end
    and the text below it were under '## Draft outline' until the next heading. It is the comment's text."""
    note = ("# Plan\n\nIntro.\n\n%%\n## Draft outline\nhidden words\n%%\n\nVisible after it.\n\n"
            "```\n%%\n```\n\n## Real\n\nMore.\n")
    doc = parse_markdown("Plan.md", note)
    assert [(s.heading_path, s.start_line) for s in doc.sections] == [(["Plan"], 1), (["Plan", "Real"], 16)], \
        doc.sections


@pytest.mark.parametrize("note,title", [
    ("---\ntitle: '{{title}}'\n---\n# Heading\n\nAgenda.\n", "Weekly Meeting"),
    ("# {{title}}\n\nAgenda.\n", "Weekly Meeting"),
    ("# {{date:YYYY-MM-DD}} – {{title}}\n\nAgenda.\n", "Weekly Meeting"),
    ("# <% tp.file.title %>\n\nAgenda.\n", "Weekly Meeting"),
    ("# Meeting on {{date}}\n\nAgenda.\n", "Meeting on {{date}}"),  # words of its own: kept
])
def test_a_title_of_template_placeholders_alone_is_the_files_name(note, title):
    """A vault's templates folder holds notes titled '{{title}}': every one of them was so titled in results."""
    assert parse_markdown("Templates/Weekly Meeting.md", note).title == title


def test_a_note_opening_with_a_rule_keeps_its_headings_down_to_the_next_rule():
    """A note that opens with a rule ('---'), a line 'Update: …' and, after a blank line, its headings, links and tags
    down to a rule further on: read as broken front matter, all of them down to that rule were text, lost. A blank
    line ends such a block (no setext heading spans one): read as Markdown, as it was before."""
    note = ("---\nUpdate: the meeting moved to Friday.\n\n# Agenda\n\n- budget [plan](plan.md) #work\n\n## Notes\n\n"
            "Some text.\n\n---\n\n# Later\n\nmore\n")
    doc = parse_markdown("agenda.md", note)
    assert [s.heading_path for s in doc.sections] == [[], ["Agenda"], ["Agenda", "Notes"], ["Later"]]
    assert doc.meta["links"] == ["plan.md"] and doc.meta["tags"] == ["work"]


LINE_STARTS = ["", " ", "  ", "    ", "\t", "> ", ">", "- ", "* ", "+ ", "1. ", "2) ", "# ", "## ", "---", "***", "___",
               "```", "~~~", "$$", "<div>", "<!-- ", "[a]: x.md", "| a | b |", "|---|---|", "-|-", ":-:", "=== ",
               "text ", "a | b", "12", "#x", "<", "[", "$"]


def _tokens(md, text: str) -> list:
    lines = text.split("\n")
    env = {"math_close": markdown._math_closes(lines), "lines": len(lines), "first": 0, "unsure": len(lines)}
    return [(t.type, t.map, t.level, t.content, t.markup) for t in md.parse(text, env)]


@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(LINE_STARTS), st.sampled_from(LINE_STARTS), st.sampled_from(["", "x", "a b"])),
                max_size=14))
def test_block_rules_called_only_on_lines_they_can_start_read_as_markdown_it_reads(lines):
    """The parser calls a block rule only on a line starting with a character it can start on (markdown._gated):
    the note reads as with every rule asked at every line."""
    text = "\n".join(a + b + c for a, b, c in lines)
    assert _tokens(markdown.parser(), text) == _tokens(markdown._new_parser(gated=False), text), text


def test_a_long_paragraph_does_not_ask_every_block_rule_at_every_line(caplog):
    """Each line of a paragraph (of a quote's too: '> $$' lines closed below it, 2.3–2.7 s per MB) was asked of
    every block rule, whether it starts a block ending the paragraph (markdown-it logs each rule it enters): now only
    of the rules its first character may start."""
    import logging
    note = "> text\n> $$ a\n" * 200 + "\n$$\n" + "plain line\n" * 200
    with caplog.at_level(logging.DEBUG, logger="markdown_it"):
        doc = parse_markdown("n.md", note)
    entered = [r.getMessage().split(":")[0] for r in caplog.records if r.getMessage().startswith("entering ")]
    assert len(doc.sections) == 1 and len(entered) < 50, (len(entered), sorted(set(entered)))


def test_a_wiki_link_with_its_bar_escaped_in_a_table_names_its_note():
    """Obsidian writes a labelled wiki link in a table with its '|' escaped ('[[Garden Shed\\|the shed]]': a bare one
    would end the cell); the link was to 'Garden Shed\\', a note no file is, and the note was not among the shed's
    linking notes."""
    note = "| what | where |\n|---|---|\n| roof | [[Garden Shed\\|the shed]], [[Tools#Saws\\|saws]] |\n"
    assert parse_markdown("n.md", note).meta["wiki_links"] == ["Garden Shed", "Tools"]


def test_the_text_between_a_closed_comment_and_a_drawing_is_kept():
    """A drawing's data not in a comment, below a '%%' comment closed above the note's text: the text between them
    was taken for the drawing's comment and made no passage (chunker version 32's Excalidraw clause)."""
    note = ("# Plan\n\nIntro.\n\n%%\nprivate aside\n%%\n\nThe budget meeting moved to Friday.\n\n"
            "```compressed-json\nN4KAkARALgngDgUwgLgAQQQwMYEMA2AlgCYBOuA7hADTgQBuCpAzoQPYB2KqATLZ\n```\n\nAfter it.\n")
    doc = parse_markdown("Plan.md", note)
    assert any("The budget meeting moved to Friday." in s.text for s in doc.sections), doc.sections
    drawn = note.replace("Friday.\n\n```", "Friday.\n\n%%\n# Drawing\n```").replace("```\n\nAfter", "```\n%%\n\nAfter")
    doc = parse_markdown("Plan.md", drawn)  # the drawing in its own comment, as Excalidraw writes it: no '# Drawing'
    assert any("Friday." in s.text for s in doc.sections) and not any("Drawing" in s.text for s in doc.sections), \
        doc.sections
