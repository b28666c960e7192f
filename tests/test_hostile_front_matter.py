"""Hostile YAML front matter. PyYAML (its pure-Python SafeLoader; libyaml's C composer recurses without a bound)
scans a flow collection nested deep in time quadratic in its depth before its composer gives up: 'title: [[[[…'
5,000 deep took 6.5 s a note. More than ingest.markdown.FLOW_DEPTH open at once is no front matter now: the block
is read as text, as one that does not parse is. An alias bomb ('billion laughs') was already cheap: PyYAML shares an
alias's object rather than copy it, and only scalars are kept (_clean_meta)."""
from __future__ import annotations

import pytest
import yaml

from ingest import markdown

BODY = "# Head\n\nbody #near\n"


def _note(block: str) -> str:
    return f"---\n{block}\n---\n{BODY}"


@pytest.mark.parametrize("block", ["title: " + "[" * 5000, "title: " + "{a: " * 5000,
                                   "title: x\nlist: " + "[" * 40 + "\nmore: " + "[" * 40])
def test_front_matter_nested_past_the_bound_is_read_as_text_without_yaml(block, monkeypatch):
    loaded = []
    monkeypatch.setattr(yaml, "safe_load", lambda text: loaded.append(text))
    doc = markdown.parse_markdown("deep.md", _note(block))
    assert loaded == []  # not handed to PyYAML at all
    assert doc.title == "Head" and doc.meta["tags"] == ["near"]
    assert block[:200] in "\n".join(s.text for s in doc.sections)  # indexed as text


def test_front_matter_nested_within_the_bound_is_read():
    depth = markdown.FLOW_DEPTH
    doc = markdown.parse_markdown("ok.md", _note("title: T\ntags: [a, b]\nx: " + "[" * depth + "]" * depth))
    assert doc.title == "T" and doc.meta["tags"] == ["a", "b", "near"]


def test_an_alias_bomb_keeps_only_scalars():
    block = "a: &a [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n" + "".join(
        f"{chr(98 + i)}: &{chr(98 + i)} [" + ", ".join([f"*{chr(97 + i)}"] * 9) + "]\n" for i in range(20))
    doc = markdown.parse_markdown("bomb.md", _note(block + "title: *u\naliases: *u\ntags: *a"))  # 9^21 'lol's
    assert doc.title == "Head" and not doc.meta.get("aliases")
    assert doc.meta["tags"] == ["lol", "near"]
