"""A paragraph of link labels nested deep ('[' × 100,000, then '](y)' × 100,000: 0.5 MB on one line): markdown-it
reads each '[' as a link's text up to its ']', 28 s for that line (about a minute a MB, a 64 MiB note an hour).
Past ingest.markdown.LINK_DEPTH brackets open at once, the paragraph's links are found by a pattern instead."""
from __future__ import annotations

from ingest import markdown, markdown_links


def _inline_parses(monkeypatch) -> list[str]:
    parsed: list[str] = []
    md = markdown.parser()
    real = md.inline.parse

    def counting(src, *args):
        parsed.append(src)
        return real(src, *args)

    monkeypatch.setattr(md.inline, "parse", counting)
    return parsed


def test_links_nested_past_the_bound_are_found_without_markdown_it(monkeypatch):
    parsed = _inline_parses(monkeypatch)
    deep = "[" * 10_000 + "x" + "](deep.md)" * 10_000 + " and [b](b.md 'title') [c](<c d.md>)"
    doc = markdown.parse_markdown("n.md", f"# Top\n\n{deep}\n\n# After\n\n[near](near.md) #near\n")
    assert not any(deep in text for text in parsed)  # not handed to markdown-it
    assert {"deep.md", "b.md", "c d.md", "near.md"} <= set(doc.meta["links"])
    assert [s.heading_path for s in doc.sections] == [["Top"], ["After"]] and doc.meta["tags"] == ["near"]


def test_many_links_on_a_line_and_shallow_nesting_are_read_as_markdown_it_reads_them(monkeypatch):
    """By markdown-it's rules (ingest.markdown_links, which reads these forms without its inline parser), not by
    the pattern: the same links as markdown-it finds."""
    parsed = _inline_parses(monkeypatch)
    line = " ".join(f"[n{i}](n{i}.md)" for i in range(200)) + " [![img](pic.png)](big.png) [a [b] c](abc.md)"
    doc = markdown.parse_markdown("n.md", f"{line}\n")
    assert parsed == []
    assert {"n0.md", "n199.md", "pic.png", "big.png", "abc.md"} <= set(doc.meta["links"])
    monkeypatch.setattr(markdown_links, "destinations", lambda text, validate, references=None: None)
    assert markdown.parse_markdown("n.md", f"{line}\n").meta["links"] == doc.meta["links"]
    assert parsed[0] == line  # (then the image's alt text)


def test_escaped_brackets_open_nothing_and_leave_the_line_to_the_pattern(monkeypatch):
    """'[\\]' × n: each '\\]' escaped, so every '[' stays open, as deep as LINK_DEPTH-past nesting. It was counted as
    closing its '[' and the line went to markdown-it, which reads each '[' as a link's text to the line's end (16 s
    for 32,000 on a line of 96 KB). An escaped '\\\\' before a ']' leaves that ']' closing."""
    parsed = _inline_parses(monkeypatch)
    line = "[\\]" * 2_000 + " [x](x.md)"
    doc = markdown.parse_markdown("n.md", f"# Top\n\n{line}\n")
    assert not any(line in text for text in parsed)  # not handed to markdown-it
    assert doc.meta["links"] == ["x.md"]
    closed = "[\\\\]" * 2_000 + " [y](y.md)"  # an escaped backslash, then a ']' that closes: read by markdown's rules
    assert markdown.parse_markdown("n.md", f"{closed}\n").meta["links"] == ["y.md"]
