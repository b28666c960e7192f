"""A paragraph's [text](target) links read without markdown-it's inline parser (ingest.markdown_links): what it
reads, it reads as markdown-it does (each test compares the two on generated text, journal lines and the shared
notes), and a journal's common forms never reach markdown-it's inline parser."""
from __future__ import annotations

import pytest
from hypothesis import given, settings, strategies as st

from ingest import markdown, markdown_links
from tests.conftest import need_data

MD = markdown.parser()


def markdown_its(text: str, references: dict | None = None) -> list[str]:
    """The destinations markdown-it's inline parser finds (its top tokens, as ingest.markdown reads them)."""
    env = {} if references is None else {"references": references}
    return [token.attrs.get("href" if token.type == "link_open" else "src", "")
            for token in MD.inline.parse(text, MD, env, []) if token.type in ("link_open", "image")]


def read_alike(text: str, references: dict | None = None) -> bool:
    """Whether the reader reads ``text`` as markdown-it does, or leaves it to markdown-it (None); True if read."""
    quick = markdown_links.destinations(text, MD.validateLink, references)
    assert quick is None or quick == markdown_its(text, references), text
    return quick is not None


def _references(definitions: str) -> dict:
    """A note's link reference definitions as markdown-it's env holds them."""
    env: dict = {}
    MD.parse(definitions, env)
    return env["references"]


# Pieces whose runs make the corners: brackets nested and unclosed, wiki links, images in links' text, code spans
# across brackets, parentheses in and around destinations, spaces, tabs and line ends, titles, entities, a refused
# scheme, control characters, and the forms left to markdown-it ('<', '\\')
PIECES = ["[", "]", "(", ")", "!", "`", "``", " ", "\n", "\t", "a", "b.md", "[[", "]]", "](", "x y", "&amp;", "&",
          '"t"', "'", "javascript:x", "#", "*", "_", "((", "))", "é", "\x01", "\x7f", "<", "\\", "![", "[a](b)",
          "![i](p.png)", "`c`", "[[W]]", "[ ]", "(#h)", "](<", "<a b>", ">", ' "t")', " 't'", " (t)", "[x](<y z>)",
          '[x](y "t")', "<https://a.b>"]


@settings(max_examples=500, deadline=None)
@given(st.lists(st.sampled_from(PIECES), min_size=1, max_size=16))
def test_any_run_of_link_pieces_is_read_as_markdown_it_reads_it(pieces):
    read_alike("".join(pieces))


# Definitions as a note writes them (in list items too), and pieces that use them: '[text][label]', '[label][]',
# '[label]', labels in another case or spacing, a wiki link that names one, a link in a label, an inline link that
# fails (markdown-it reads a reference from where it stopped: left to it)
REFERENCES = _references('- [a]: a.md\n  [b c]: <y z.md>\n- [W]: w.md\n[x]: x.md "t"\n[É]: e.md\n')
REFERENCE_PIECES = [*PIECES, "[a]", "[a][]", "[b c]", "[B  C]", "[x][a]", "[é]", "][", "[W]", "[[W]]", "[a](b c)",
                    "[x][b\nc]", "![a]", "[a] [x]", "[[a]](x)"]


@settings(max_examples=500, deadline=None)
@given(st.lists(st.sampled_from(REFERENCE_PIECES), min_size=1, max_size=16))
def test_any_run_of_pieces_in_a_note_with_link_definitions_is_read_as_markdown_it_reads_it(pieces):
    read_alike("".join(pieces), REFERENCES)


def test_reference_links_are_read_without_markdown_its_inline_parser():
    """A note with link definitions (a list item's '[a]: a.md') sent every paragraph with a ']' to markdown-it's
    inline parser; its reference links are read by markdown-it's rules now."""
    text = "see [the doc][a], [b c][], [X] and ![a] and [[W]] [not defined][zz] [a](a2.md)"
    assert markdown_links.destinations(text, MD.validateLink, REFERENCES) == \
        ["a.md", "y z.md", "x.md", "a.md", "w.md", "a2.md"]
    assert read_alike(text, REFERENCES)
    assert markdown_links.destinations("[a](b c)", MD.validateLink, REFERENCES) is None


JOURNAL = ["- Met [[Ana Souza]] about the [grant report](projects/grant.md) #grant",
           "TODO send [the draft](drafts/Budget%202024.md) and `make report` output",
           "see [[Budget 2024]], ![chart](../assets/chart_1700000000.png) and [the doc](https://example.com/a(b)c)",
           "[x](a.md) [y](b.md)[z](c.md) `[not](a link)` ``a ` b`` [after](code.md)",
           "[![badge](badge.svg)](ci.md) [a [nested] label](n.md) [[[wiki]]](w.md)",
           "DONE [ ] a task [x](done.md) ((6500aaaa-0000-4000-8000-000000000000))",
           "a [link]( spaced.md ) and [empty]() and [tab](\ttab.md) and [bad](a b)",
           "[line\nbroken](over.md) and [code `in` text](c.md) and [img ![in](i.png) text](t.md)"]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(JOURNAL), min_size=1, max_size=6), st.sampled_from([" ", "\n", " [", "] ", "`"]))
def test_journal_lines_are_read_as_markdown_it_reads_them(lines, glue):
    read_alike(glue.join(lines))


def test_the_common_forms_are_read_and_the_unusual_ones_left_to_markdown_it():
    for text in JOURNAL[:6]:
        assert read_alike(text), text
    assert markdown_links.destinations("[x](a.md) [y](b.md)", MD.validateLink) == ["a.md", "b.md"]
    assert markdown_links.destinations("[![b](b.svg)](ci.md) ![i](i.png)", MD.validateLink) == \
        ["ci.md", "b.svg", "i.png"]
    assert markdown_links.destinations("`[x](a.md)` [[W]](w.md) [a [b](c) d](e)", MD.validateLink) == ["w.md", "c"]
    assert markdown_links.destinations("[x](<a b.md>) [y](b.md \"title\") ![i](<c d.png> (t))", MD.validateLink) == \
        ["a b.md", "b.md", "c d.png"]
    for unusual in ["[x](javascript:alert)", "<https://example.com> [x](a.md)", "[x](<a b.md>) <b>html</b>",
                    "[a <b>c</b>](d.md)", "[x][a<b]", "\\``<b>`` [x](a.md)"]:
        assert markdown_links.destinations(unusual, MD.validateLink) is None, unusual
        read_alike(unusual)



# Backslash escapes (text, a hard break at a line's end, kept in a destination until unescaped) against brackets, code
# spans, '<' (an autolink or inline HTML, unless escaped or in code) and destinations
ESCAPE_PIECES = ["\\", "\\[", "\\]", "\\`", "\\<", "\\\\", "\\\n", "\\ ", "\\(", "\\)", "\\!", "\\a", "[", "]", "(",
                 ")", "`", "``", "<", ">", "<b>", "<a:b>", "a", " ", "\n", "x.md", "[a]", "](", "`<div>`", "``<``",
                 "[x](a\\)b)", "[x](a\\ b)", "[x](<a\\>b>)", "[x\\]](y)", '[x](y "t\\"")', "![", "[a]: "]


@settings(max_examples=500, deadline=None)
@given(st.lists(st.sampled_from(ESCAPE_PIECES), min_size=1, max_size=16), st.booleans())
def test_any_run_of_escapes_code_and_angles_is_read_as_markdown_it_reads_it(pieces, defined):
    read_alike("".join(pieces), REFERENCES if defined else None)


def test_escapes_and_a_less_than_in_code_are_read_without_markdown_its_inline_parser():
    """A paragraph with a backslash ('my\\_note', '\\[not a link\\]') or a '<' in a code span ('`<div>`') went to
    markdown-it's inline parser: 27 of the shared data's 3,901 paragraphs with a link (25 now; the other 2 hold
    inline HTML). markdown-it's escape rule reads them: an escaped '[', ']' or '`' opens and closes nothing, a '\\)'
    closes no destination, and a '<' escaped or in code opens no autolink or HTML."""
    cases = {"see [my\\_note](my\\_note.md) and \\[not a link\\](x.md)": ["my_note.md"],
             "[a \\] b](c.md) [d](e\\(1\\).md) \\`[f](g.md)`": ["c.md", "e(1).md", "g.md"],
             "wrap `<div>` in [the layout](layout.md), \\<b> too": ["layout.md"],
             "[`<T>` generics](generics.md) ``a < b`` [c](d.md)\\\nnext": ["generics.md", "d.md"]}
    for text, expected in cases.items():
        assert markdown_links.destinations(text, MD.validateLink) == expected, text
        assert read_alike(text), text


# Code spans against brackets: a run of backticks closes at the next run of as many (within the text markdown-it
# reads then: the paragraph, or a link's text), and a ']', '[', '](' or '![' inside it is no link's
CODE_PIECES = ["[", "]", "(", ")", "![", "](", "`", "``", "```", "a", " ", "\n", "x.md", "[a]", "`c`", "[`", "`]",
               "`]`", "[a `", "` b](y.md)", "`](x.md)`", "``]``", "[`x`](z.md)"]


@settings(max_examples=500, deadline=None)
@given(st.lists(st.sampled_from(CODE_PIECES), min_size=1, max_size=24), st.booleans())
def test_any_run_of_code_spans_and_brackets_is_read_as_markdown_it_reads_it(pieces, defined):
    read_alike("".join(pieces), REFERENCES if defined else None)


def test_code_in_a_links_text_is_read_without_markdown_its_inline_parser(monkeypatch):
    """'[`parse()`](api.md#parse)', the commonest form the reader left to markdown-it's inline parser (706 of the
    shared data's 3,901 paragraphs with a link), is read by markdown-it's code span rule: a ']' in a code span ends
    no link's text, a run of backticks closes only at a run of as many within the link's text."""
    cases = {"see [`parse()`](api.md#parse) and [the `tsc`\nCLI](cli.md)": ["api.md#parse", "cli.md"],
             "[a `]` b](c.md)": ["c.md"], "[a `](x) b`](y.md)": ["y.md"], "[``a`](x)``](y.md)": ["y.md"],
             "[`x](a.md) ``](b)": ["a.md"], "![`a](b)`](c.png)": ["c.png"], "[`a` ![i](p.png) `b`](t.md)":
             ["t.md", "p.png"], "`[x](a.md)` [`y`][a]": ["a.md"]}
    for text, expected in cases.items():
        assert markdown_links.destinations(text, MD.validateLink, REFERENCES) == expected, text
        assert read_alike(text, REFERENCES)
    calls = []
    real = MD.inline.parse
    monkeypatch.setattr(MD.inline, "parse", lambda *args: calls.append(args[0]) or real(*args))
    note = "# API\n\nCall [`parse()`](api.md#parse) first.\n\n- then [the `]` key](keys.md)\n"
    assert markdown.parse_markdown("api-notes.md", note).meta["links"] == ["api.md#parse", "keys.md"]
    assert calls == []

def test_a_journal_page_never_reaches_markdown_its_inline_parser(monkeypatch):
    """A Logseq journal of nested blocks with [text](target) links, code spans, wiki links and images: its links are
    the same, and markdown-it's inline parser was not asked for any of them."""
    page = "\n".join(f"- {line}" if n % 2 else f"\t- {line}"
                     for n, line in enumerate(JOURNAL[:6] * 20)) + "\n"
    expected = markdown.parse_markdown("journals/2024_03_14.md", page).meta["links"]
    calls = []
    real = MD.inline.parse
    monkeypatch.setattr(MD.inline, "parse", lambda *args: calls.append(args[0]) or real(*args))
    assert markdown.parse_markdown("journals/2024_03_14.md", page).meta["links"] == expected
    assert "projects/grant.md" in expected and "../assets/chart_1700000000.png" in expected
    assert calls == []
    # markdown-it alone
    monkeypatch.setattr(markdown_links, "destinations", lambda text, validate, references=None: None)
    assert markdown.parse_markdown("journals/2024_03_14.md", page).meta["links"] == expected
    assert calls


def test_the_shared_notes_paragraphs_are_read_as_markdown_it_reads_them(monkeypatch):
    """Every paragraph, heading and table cell with a link in notes-en's 1,873 notes: each the reader reads, it
    reads as markdown-it does, and it reads nearly all of them (3,894 of 3,896, the 2 left holding inline HTML; 3,869
    before it read escapes and a '<' in code, 3,190 before it read code in a link's text) (the shared data's 14,303
    Markdown files compared alike too, 18 s: too long for the suite)."""
    notes = sorted(path for path in need_data("notes-en").rglob("*.md") if path.is_file())
    real, counts = markdown_links.destinations, {"texts": 0, "read": 0}

    def compared(text, validate, references=None):
        quick = real(text, validate, references)
        counts["texts"] += 1
        if quick is not None:
            counts["read"] += 1
            assert quick == markdown_its(text, references), text[:300]
        return quick
    monkeypatch.setattr(markdown_links, "destinations", compared)
    for path in notes:
        markdown.parse_markdown(str(path), path.read_text(encoding="utf-8", errors="replace"))
    assert counts["texts"] > 1000 and counts["texts"] - counts["read"] <= 2, counts
