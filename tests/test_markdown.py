"""Markdown notes: front matter, heading paths, line ranges, atomic blocks, links."""
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


def test_heading_paths_and_line_ranges():
    doc = parse_markdown("clients/qumei.md", NOTE)
    lines = NOTE.split("\n")
    paths = [s.heading_path for s in doc.sections]
    assert paths == [[], ["Clients"], ["Clients", "曲美"], ["Clients", "曲美", "合同"], ["Clients", "Other"]]
    for section in doc.sections:
        assert "\n".join(lines[section.start_line - 1:section.end_line]) == section.text
    contract = doc.sections[3]
    assert "# not a heading" in contract.text, "a # line inside a code fence is not a heading"


def test_code_fence_and_table_are_atomic_blocks():
    contract = parse_markdown("n.md", NOTE).sections[3]
    blocks = [contract.text[a:b] for a, b in contract.atomic]
    assert any(b.startswith("```bash") and b.rstrip().endswith("```") for b in blocks)
    assert any(b.startswith("| a | b |") and b.rstrip().endswith("| 1 | 2 |") for b in blocks)


def test_links_are_recorded():
    assert parse_markdown("n.md", NOTE).meta["links"] == ["Qumei contract.pdf", "docs/spec.md"]


def test_title_falls_back_to_h1_then_file_name():
    assert parse_markdown("a/b.md", "# Heading One\ntext").title == "Heading One"
    assert parse_markdown("a/b.md", "## Only h2\ntext").title == "b"
