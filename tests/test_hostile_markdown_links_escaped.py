"""Links in a paragraph whose brackets nest past ingest.markdown.LINK_DEPTH are found by a pattern, not by
markdown-it (tests/test_hostile_markdown_links.py). Their destinations were kept as written: '[x](my\\_note.md)'
named 'my\\_note.md', 'a&amp;b.md' and 'a\\(1\\).md' (cut at the '(') no file, where markdown-it, reading the same
link in a shallower paragraph, names my_note.md. They are unescaped as markdown-it unescapes them now."""
from __future__ import annotations

from ingest import markdown

LINKS = r"[a](my\_note.md) [b](a&amp;b.md) [c](paren\(1\).md) [d](<spaced \<name\>.md>) [e](x&#xD800;y.md)"
NAMED = {"my_note.md", "a&b.md", "paren(1).md", "spaced <name>.md", "x\ufffdy.md"}


def test_links_nested_past_the_bound_are_unescaped_as_markdown_it_unescapes_them():
    deep = "[" * (markdown.LINK_DEPTH + 1) + "x" + "](deep.md)" * (markdown.LINK_DEPTH + 1)
    found = markdown.parse_markdown("n.md", f"# Top\n\n{deep} {LINKS}\n").meta["links"]
    shallow = markdown.parse_markdown("n.md", f"# Top\n\n{LINKS}\n").meta["links"]
    assert NAMED <= set(shallow)  # what markdown-it names
    assert set(found) == NAMED | {"deep.md"}
