"""Long Markdown lists read line by line (ingest.markdown_lists): an outliner's page reads exactly as markdown-it
reads it, with markdown-it left out of its plain list items. markdown-it read a Logseq page of 100,000 blocks item by
item in Python (3.7 s of CPU here, 7.3 s under load); each test here compares the two readings, or counts the lines
markdown-it is given."""
from __future__ import annotations

import pytest
from hypothesis import given, settings, strategies as st

from ingest import markdown, markdown_lists

UUID = "6500a1b2-0000-4000-8000-00000000000{}"

LOGSEQ_PAGE = """title:: Garden plan
alias:: Garden, Allotment
tags:: project, [[outdoor work]]

- Plan the beds with [[Ana Souza]] #garden
  id:: {id0}
  collapsed:: true
\t- TODO buy seeds from [the shop](shops/seeds.md) #[[spring jobs]]
\t  :LOGBOOK:
\t  CLOCK: [2024-03-14 Thu 10:00]--[2024-03-14 Thu 11:00] =>  01:00:00
\t  :END:
\t- DONE order compost, see ((6500a1b2-0000-4000-8000-000000000000))
\t\t- a child block with `#not-a-tag` in code and #real-tag
\t\t  that goes on over a second line [[Soil]]
\t\t  id:: {id1}
- {{{{embed [[Tools]]}}}}
- ## A heading block
  heading:: true
- A block with a snippet:
  ```python
  # not a heading
  print("- not an item")
  ```
- Steps to follow:
  1. dig the bed
  2. add [[compost]]
- [ ] a task written as Obsidian writes one #todo
- [x] a done task [[Done list]]
- lazy block
a lazy line that goes on the block's paragraph #lazy
- a block holding a table:
  | tool | use |
  |------|-----|
  | [[Spade]] | dig |
- > a quote in a block
- [ref]: refs/target.md
- see [the target][ref]
- tags:: block-tag
  a block tagged by its own property
"""

OBSIDIAN_LIST = """# Weekly review

- [ ] call the plumber about the [[Boiler]] #home
  - [x] find the invoice
  - [ ] ask about the warranty (see [[Boiler#Warranty|the warranty]])
- [x] renew the #insurance

- loose item after a blank line
  with a second paragraph line

  and a second paragraph in the same item #loose

* a star list
* [[Star item]]
+ a plus list #plus
- back to dashes
    - indented four
          - indented ten: a lazy line of the paragraph above
        indented code? no: a paragraph's line
-    four spaces after the marker
1. numbered
2) numbered too
"""


def _pages() -> list[str]:
    logseq = LOGSEQ_PAGE.format(id0=UUID.format(0), id1=UUID.format(1))
    return [logseq, OBSIDIAN_LIST, logseq * 3, OBSIDIAN_LIST * 3, logseq.split("\n\n", 1)[1] * 5,
            (OBSIDIAN_LIST + "\n" + logseq) * 2]


@pytest.mark.parametrize("run_lines", [markdown_lists.RUN_LINES, 1])
@pytest.mark.parametrize("page", range(len(_pages())))
def test_an_outliners_page_reads_the_same_with_the_fast_path_as_with_markdown_it(page, run_lines, monkeypatch):
    """Logseq's properties, nested blocks (tabs), ids, time logs, [[links]], #tags, a block reference and an embed,
    code, a numbered list, a table and a quote in blocks, tasks, lazy lines, loose items, other markers: what is
    indexed (passages, title, tags, links) and what the parse found (headings, atomic blocks, link destinations,
    tags) are the same either way. With RUN_LINES 1, markdown-it's pieces end at every plain top-level item, for
    the fast path to read every run it can."""
    monkeypatch.setattr(markdown_lists, "RUN_LINES", run_lines)
    monkeypatch.setattr(markdown_lists, "SCAN_CHARS", 0 if run_lines == 1 else markdown_lists.SCAN_CHARS)
    text = _pages()[page]
    fast, slow = markdown.parse_markdown("pages/Garden plan.md", text), \
        markdown.parse_markdown("pages/Garden plan.md", text, fast_lists=False)
    assert fast == slow
    lines = text.split("\n")
    assert markdown._read_body(lines, 0) == markdown._read_body(lines, 0, fast_lists=False)
    assert fast.meta["tags"] and fast.meta["links"]
    if run_lines == 1:  # the fast path read a good part of it
        read, real = [], markdown_lists.read_run_split
        monkeypatch.setattr(markdown_lists, "read_run_split", lambda body, first: (
            read.append((done := real(body, first))[0] - first), done)[1])
        markdown.parse_markdown("pages/Garden plan.md", text)
        assert sum(read) > text.count("\n") / 3, (sum(read), text.count("\n"))


def test_the_pages_of_the_comparison_are_read_as_they_should_be():
    """What the comparison above compares holds what an outliner's page holds (so an equal wrong reading fails)."""
    doc = markdown.parse_markdown("pages/Garden plan.md", _pages()[0])
    assert doc.title == "Garden plan" and doc.meta["aliases"] == ["Garden", "Allotment"]
    assert set(doc.meta["tags"]) >= {"project", "outdoor work", "garden", "spring jobs", "real-tag", "todo", "lazy"}
    assert "not-a-tag" not in doc.meta["tags"]
    assert {"Ana Souza", "Soil", "Tools", "Spade", "shops/seeds.md", "refs/target.md"} <= set(doc.meta["links"])
    assert any(section.heading_path == ["A heading block"] for section in doc.sections)
    text = "\n".join(section.text for section in doc.sections)
    assert "6500a1b2" not in text and "CLOCK:" not in text and "Plan the beds" in text


class CountingParser:
    """The real markdown-it parser, counting the lines it is given."""

    def __init__(self):
        self.made, self.lines = markdown.parser(), 0

    def parse(self, src, env=None):
        self.lines += src.count("\n") + 1
        return self.made.parse(src, env)

    def __getattr__(self, name):
        return getattr(self.made, name)


def _counted(monkeypatch, text: str, fast_lists: bool = True) -> int:
    counting = CountingParser()
    monkeypatch.setattr(markdown, "parser", lambda: counting)
    markdown.parse_markdown("pages/big.md", text, fast_lists=fast_lists)
    return counting.lines


def test_a_logseq_page_of_blocks_with_ids_is_read_without_markdown_it(monkeypatch):
    page = "".join(f"- block {n} about [[Page {n % 40}]] #tag{n % 7}\n  id:: {UUID.format(n % 10)}\n"
                   for n in range(2000))
    assert _counted(monkeypatch, page) == 0
    assert _counted(monkeypatch, page, fast_lists=False) >= 4000  # every line, before


def test_a_code_block_in_a_block_is_read_without_markdown_it(monkeypatch):
    """A fenced code block in a list item (a Logseq block's snippet, closed, unclosed to the item's end, in a nested
    block, an Excalidraw drawing's data) is read line by line too: the same atomic blocks, drawings, tags (not the
    code's '#words') and links as markdown-it's, and markdown-it is given no line of the page."""
    blocks = [f"- block {n} [[Page {n % 40}]] #tag\n" for n in range(300)]
    blocks[10::25] = ["- a snippet:\n  ```python\n  User#save  # not a heading\n\n  - not an item\n  ```\n"] * 12
    blocks[20::25] = ["- unclosed:\n\t- ~~~\n\t  echo [x](code.md)\n- next #after\n",
                      "- nested\n\t- child\n\t  ```sh\n\t  ls #no\n\t  ```\n\t  [[After]] #after\n"] * 6
    blocks[299] = "- drawing\n  ```compressed-json\n  N4Ig\n  ```\n  [[Drawn]] #drawn\n"
    page = "".join(blocks)
    assert _counted(monkeypatch, page) == 0
    lines = page.split("\n")
    fast = markdown._read_body(lines, 0)
    assert fast == markdown._read_body(lines, 0, fast_lists=False)
    headings, atomic, links, tags, drawings = fast
    assert len(atomic) == 25 and drawings == [atomic[-1]] and atomic[0] == (11, 16)
    assert "save" not in tags and {"tag", "after", "drawn"} <= set(tags) and "code.md" not in links


def test_a_numbered_list_is_read_without_markdown_it(monkeypatch):
    """Numbered items ('1. ', '2) ') in a block, at the top, after bullets, and a numbered line that only goes on a
    paragraph ('2.' under a block's text): the same reading as markdown-it's, and none of it given to markdown-it
    but that paragraph's block."""
    page = "".join(f"- steps {n} [[Page {n}]]:\n  1. dig the bed #garden\n  2. add [compost](c.md)\n"
                   f"     and water it\n1. top item {n}\n2) another #two\n" for n in range(200))
    assert _counted(monkeypatch, page) == 0
    lines = page.split("\n")
    assert markdown._read_body(lines, 0) == markdown._read_body(lines, 0, fast_lists=False)
    odd = "- a block\n  with text\n  2. that goes on #on\n- b #b\n"
    lines = (page + odd + page).split("\n")
    assert markdown._read_body(lines, 0) == markdown._read_body(lines, 0, fast_lists=False)


def test_markdown_it_reads_only_the_blocks_of_a_long_outline_that_need_it(monkeypatch):
    """Page properties at the top, and a code block in every 25th block: markdown-it is given a piece that ends
    where plain blocks begin again (ingest.markdown_lists.next_run), not the rest of a 256 KB piece."""
    blocks = [f"- block {n} [[Page {n % 40}]]\n\t- child {n} #tag\n\t  collapsed:: true\n" for n in range(2000)]
    blocks[24::25] = ["- a snippet\n  ```sh\n  echo '# no heading'\n  ```\n"] * len(blocks[24::25])
    page = "title:: Big\ntags:: daily\n\n" + "".join(blocks)
    read = _counted(monkeypatch, page)
    assert read < page.count("\n") / 5, read
    assert markdown.parse_markdown("p.md", page) == markdown.parse_markdown("p.md", page, fast_lists=False)


# Lines an outliner writes, and lines that are no list item's, at the indentations an outline has
TEXTS = ["block text", "[[Page]] and #tag", "#[[two words]] #tag2", "id:: 6500a1b2-0000-4000-8000-000000000000",
         "collapsed:: true", "[a link](a.md) and [b][r]", "`#code` and #real", "TODO [ ] task", "[ ] task", "[x]: r.md",
         "**bold** *em* _u_ ==hl==", "# Heading", "####### seven", "```", "~~~", "``span``", "$$", "$5", "> quote",
         "<div>", "| a | b |", "|---|---|", "---", "* * *", "===", "-- dash", "+1", "1. one", "2) two", "1.5 kg",
         ":LOGBOOK:", "%% comment", "<!-- c", "\u3000ideographic space", "[open label", "[r]: ref.md", "\\# escaped",
         "a | b", "", "```python", "````", "~~~~ info `x`", "```a`b", "``` compressed-json", "User#save #no",
         "```  "]
INDENTS = ["", "", "", " ", "  ", "   ", "    ", "     ", "\t", "\t\t", "\t  ", " \t", "        "]
MARKERS = ["", "", "- ", "- ", "- ", "* ", "+ ", "-  ", "-    ", "-     ", "-\t", "-", "1. ", "2) ", "1) ", "10.  ",
           "3. ", "1234567890. "]


@settings(max_examples=250, deadline=None)
@given(lines=st.lists(st.tuples(st.sampled_from(INDENTS), st.sampled_from(MARKERS), st.sampled_from(TEXTS)),
                      min_size=1, max_size=40), run_lines=st.sampled_from([1, 4]))
def test_any_outline_reads_the_same_with_the_fast_path_as_with_markdown_it(lines, run_lines):
    """Any outline of plain items, in runs read line by line as short as one line, reads as markdown-it alone."""
    text = "\n".join(indent + marker + line for indent, marker, line in lines) + "\n"
    _reads_as_markdown_it(text, run_lines)


def _quoted_child(children: int, at: int, quote: str = "    > a quote inside a child") -> str:
    lines = ["- Reading notes"] + [f"  - child block {n} with [[a link]] and #tag{n % 7}" for n in range(children)]
    lines.insert(at + 1, quote)
    return "\n".join(lines) + "\n"


def test_a_long_item_holding_one_quote_gives_markdown_it_only_the_child_holding_it(monkeypatch):
    """One top-level block holding 2,000 children, one of them with a quote: read_run stopped at the quote and
    markdown-it was given the whole item (and again as its piece grew), then the children from the quoted one on;
    it is given that child only, to the next child's line, under an empty item at the item's column, and the note
    reads the same."""
    text = _quoted_child(2000, 1500)
    assert markdown.parse_markdown("p.md", text) == markdown.parse_markdown("p.md", text, fast_lists=False)
    lines = text.split("\n")
    assert markdown._read_body(lines, 0) == markdown._read_body(lines, 0, fast_lists=False)
    given = _counted(monkeypatch, text)
    assert given <= 5, given  # the empty item, the child, its quote, the next child's line
    assert _counted(monkeypatch, text, fast_lists=False) >= 2000
    own = _quoted_child(2000, 1500, "  - > a quote on a child's own line [[Q]]")  # not the child above it too
    assert markdown._read_body(own.split("\n"), 0) == markdown._read_body(own.split("\n"), 0, fast_lists=False)
    assert _counted(monkeypatch, own) <= 4  # the empty item, the child, the next child's line


# A child of each kind read_run leaves to markdown-it: a quote, a heading, a table, a setext heading, HTML, a fence
# on a paragraph's line, indented code, a link definition, a callout (a quote heading its lines, as one at the top)
ODD_CHILDREN = ["  - a child\n    > a quote with [[Q]] #quoted", "  - ## a heading child #h",
                "  - a child\n    ### a heading inside it [h](h.md)",
                "  - | tool | use |\n    |---|---|\n    | [[Spade]] | #dig |", "  - a setext heading\n    ---",
                "  - a child\n    <div>html [[no]]</div>", "  - a child\n    ```sh\n    echo '# no'\n    ```",
                "  - a child\n\n          indented code #no", "  - [d]: def.md\n  - [see][d]",
                "  - a child\n    > [!note] A callout\n    > its text #c"]


@pytest.mark.parametrize("odd", ODD_CHILDREN)
def test_a_long_item_with_odd_children_gives_markdown_it_only_those_children(odd, monkeypatch):
    """2,000 children, every 100th of one kind read_run cannot read: markdown-it reads those children, each to the
    next child's line, and read_run the others; the note reads as markdown-it alone reads it."""
    children = [f"  - child block {n} with [[a link]] and #tag{n % 7}" for n in range(2000)]
    children[50::100] = [odd] * len(children[50::100])
    text = "- Reading notes\n" + "\n".join(children) + "\n- after #after\n"
    lines = text.split("\n")
    assert markdown._read_body(lines, 0) == markdown._read_body(lines, 0, fast_lists=False)
    assert markdown.parse_markdown("p.md", text) == markdown.parse_markdown("p.md", text, fast_lists=False)
    given = _counted(monkeypatch, text)
    # 20 odd children, each with the empty item over it and the next child's line (and where the child's own line
    # may head a table, '- | tool | use |', the child above it too: read_run leaves it to markdown-it to say)
    assert given <= 20 * (odd.count("\n") + 4 + 4 * odd.startswith("  - |")), given
    assert _counted(monkeypatch, text, fast_lists=False) >= 2000


def test_a_long_item_holding_a_math_block_gives_markdown_it_only_the_child_holding_it(monkeypatch):
    """2,000 children, every 100th holding a '$$' math block: the whole item was markdown-it's (a math block may
    close past its item, whatever the indentation of its lines); it is given only those children, each to the next
    child's line, and the note reads the same. A block whose '$$' closes past the item ends with its child, as in a
    parse of the whole note: that child is still all markdown-it is given (the item was read whole before)."""
    children = [f"  - child block {n} with [[a link]] and #tag{n % 7}" for n in range(2000)]
    children[50::100] = ["  - a formula\n    $$\n    e = [m](m.md) c^2\n    $$"] * 20
    text = "- Reading notes\n" + "\n".join(children) + "\n- after #after\n"
    lines = text.split("\n")
    assert markdown._read_body(lines, 0) == markdown._read_body(lines, 0, fast_lists=False)
    assert _counted(monkeypatch, text) <= 20 * 7  # each: the empty item, its 4 lines, the next child's, the end
    assert _counted(monkeypatch, text, fast_lists=False) >= 2000
    # the last formula's '$$' left open, to close below the next top-level item: the formula ends with its item
    # (it took the next top-level item, '- after #after', before)
    past = text.replace("    $$\n  - child block 1951", "  - child block 1951") + "$$\n"
    assert "after" in markdown._read_body(past.split("\n"), 0, fast_lists=False)[3]
    assert markdown._read_body(past.split("\n"), 0) == markdown._read_body(past.split("\n"), 0, fast_lists=False)
    # it ends with its child: markdown-it is given the same children (and the '$$' line at the end), not the item
    assert _counted(monkeypatch, past) <= _counted(monkeypatch, text) + 4


def test_a_math_block_open_at_a_long_items_end_gives_markdown_it_only_its_child(monkeypatch):
    """The last of 2,000 children opens a '$$' that closes below the next top-level item: the block ends with the
    item, as in a parse of the whole note, and markdown-it is given that child and the line after the item. It was
    given the rest of the item without that line, held the block open to its end, and then read the whole item."""
    children = "".join(f"  - child block {n} with [[a link]] and #tag{n % 7}\n" for n in range(2000))
    for after in ("- after #after\n", "\nafter the list #after\n"):
        text = "- Reading notes\n" + children + "  - a formula\n    $$\n    e = [m](m.md) c^2\n" + after + "\n$$\n"
        lines = text.split("\n")
        assert markdown._read_body(lines, 0) == markdown._read_body(lines, 0, fast_lists=False)
        assert "after" in markdown._read_body(lines, 0)[3]
        assert _counted(monkeypatch, text) <= 12  # the empty item, the child, the line after, the note's last lines


# What follows a long item's children: the next top-level item, a paragraph after a blank line, a lazy line (the
# item goes on: read as before), a line at the item's text after a blank, the note's end
AFTER = ["- next block #after\n", "\nafter the list [x](x.md)\n", "lazy line #lazy\n", "\n  in the item #in\n",
         "", "\t- a tab #tab\n", "1. numbered\n", "- a | b\n|---|---|\n"]
TOPS = ["- ", "* ", "1. ", "10. ", "-   ", " - ", "   - ", "-    ", "- [[Page]] "]
INSIDE = ["  ", "\t", "   ", "    ", "  \t"]


@settings(max_examples=250, deadline=None)
@given(top=st.sampled_from(TOPS), lines=st.lists(st.tuples(st.sampled_from(INSIDE), st.sampled_from(INDENTS),
                                                            st.sampled_from(MARKERS), st.sampled_from(TEXTS)),
                                                  min_size=1, max_size=30),
       after=st.sampled_from(AFTER), run_lines=st.sampled_from([1, 4]))
def test_any_long_item_reads_the_same_with_its_part_given_to_markdown_it(top, lines, after, run_lines):
    """One top-level item of children at any indentation, any of them a line read_run leaves to markdown-it, then
    what may follow it: the fast path, with the part of the item from that line's child on given to markdown-it
    (ingest.markdown_lists.item_end), reads as markdown-it alone."""
    text = top + "parent #top\n" + "".join(f"{inside}{indent}- child #c\n{inside}{indent}{marker}{line}\n"
                                             for inside, indent, marker, line in lines) + after
    _reads_as_markdown_it(text, run_lines)


# Children a long item may hold, of several lines each: the odd ones above, lazy lines, nested children, a quote
# or fence left open, a table whose rows run on, blank lines, tabs
CHILDREN = [*ODD_CHILDREN, "  - plain [[P]] #p", "  - plain\nlazy #lazy", "  - a\n    - grandchild #g",
            "  - a\n    > open quote\n  lazy in the quote?", "  - a\n    ```\n    open fence", "\t- tab child #t",
            "  - | a | b |\n    |---|---|\n    | c | d |\n  | e | f |", "", "   - three in #3", "  1. numbered #n",
            "  2) numbered other #o", "  * star #s", "  - a\n\n    second paragraph #2", "  - > quote on the line",
            "  - # heading on the line", "  - a\n    <!-- open comment", "    - four in: a child's child? #4",
            "  - - - -", "  -", "  - a\n  ---", "  - a\n     - b\n   - c #c",
            # math blocks: closed in the child, on its own line, at the top (a lazy line? no: the block's), left open
            # to close in a later child, past the item or nowhere, one that is a fence's code
            "  - a\n    $$\n    x = [y](y.md)\n    $$ #m", "  - $$ x $$ #one", "  - $$\n  x #in\n$$",
            "  - a\n    $$\n    x", "  - $$ open", "  - b\n    y $$", "  - a\n    ```\n    $$\n    ```",
            "  - a\n\n    $$\n  - #swallowed\n    $$", "$$ closes at the top #top"]


@settings(max_examples=300, deadline=None)
@given(top=st.sampled_from(TOPS), children=st.lists(st.sampled_from(CHILDREN), min_size=1, max_size=30),
       after=st.sampled_from(AFTER), run_lines=st.sampled_from([1, 4]))
def test_any_long_item_of_odd_children_reads_the_same(top, children, after, run_lines):
    """A top-level item of children of several lines, odd ones among plain ones, then what may follow it: each odd
    child read by markdown-it to where it starts the next child (or the rest of the item by it where it starts none
    where ingest.markdown_lists.next_sibling guessed), the others line by line, reads as markdown-it alone."""
    text = top + "parent #top\n" + "".join(f"{child}\n" for child in children) + after
    _reads_as_markdown_it(text, run_lines)


@pytest.mark.parametrize("text", [
    "- x\n-    see [the\n    - guide](guide.md) #four\n",  # four past the list, short of the text: the same paragraph
    "- x\n- see [the\n      - guide](guide.md)\n",  # four past the item's text: the same paragraph
    "- x\n- a | b\n|---|---|\n- #tag\n",  # a top-level item over a delimiter row: read at the top, a table
    "- x\n\n- a | b\n|---|---|\n",
    "- x\n\n  - a | b\n  |---|---|\n",
    "- x\n\tlazy [a\n- b](b.md)\n",  # a lazy line, then an item that ends the paragraph
    "- x\n\n      code #no\n- y #yes\n",  # after a blank line, indented code in the item
    "- x\n  - y\n\n    code? no: [a](a.md) #p\n",
    "- x\n     - y\n    - z #z\n",  # a line the top level reads as indented code
    "- a\n* b [[B]]\n+ c #c\n",  # other markers: new lists
    "- a\x00 [[A]]\n- b #b\n",
    "- [ ] task\n- [x]: def.md\n- [see][x]\n",
    "- a\n 1. b [[B]]\n2) c #c\n- d\n",  # a list's marker changed: a new list
    "- a\n  2. goes on the paragraph #p\n  1. but this is a list [[L]]\n",
    "1. a\n   ```\n   code #no\n   ```\n2. b #b\n",  # a fence in a numbered item
])
def test_a_corner_of_commonmarks_lists_reads_the_same_with_the_fast_path(text, monkeypatch):
    monkeypatch.setattr(markdown_lists, "RUN_LINES", 1)
    monkeypatch.setattr(markdown_lists, "SCAN_CHARS", 0)
    body = ("- plain\n" * 3 + text + "- plain\n" * 3).split("\n")
    assert markdown._read_body(body, 0) == markdown._read_body(body, 0, fast_lists=False)


def _reads_as_markdown_it(text: str, run_lines: int) -> None:
    """The fast path reads ``text`` as markdown-it alone does, with RUN_LINES at ``run_lines`` and no scan bound,
    both set and set back here (a function-scoped monkeypatch would undo them only after a hypothesis run's last
    example)."""
    body = text.split("\n")
    saved = markdown_lists.RUN_LINES, markdown_lists.SCAN_CHARS
    markdown_lists.RUN_LINES, markdown_lists.SCAN_CHARS = run_lines, 0
    try:
        fast = markdown._read_body(body, 0)
    finally:
        markdown_lists.RUN_LINES, markdown_lists.SCAN_CHARS = saved
    assert fast == markdown._read_body(body, 0, fast_lists=False), text
