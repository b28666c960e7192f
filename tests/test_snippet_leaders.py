"""A table of contents in search results, through the real sift-mcp over stdio.

A PDF's contents page ('2 LRS ........ 6') gave a snippet of 200 dots around the word: a hit that told the
model nothing and cost it the columns. Dot leaders and other one-character rules are now shown as one '…'.
"""
from __future__ import annotations

from tests.conftest import write_tree
from tests.test_mcp_server import call, run, text

CONTENTS = "# Contents\n\n" + "".join(f"{n} {name} {'.' * 150} {n * 3}\n" for n, name in
                                    enumerate(["Overview", "LRS", "Model", "Metadata", "Glossary"], 1))


def test_dot_leaders_of_a_table_of_contents_do_not_fill_the_snippet(immediate, tmp_path, servers, sift_env,
                                                                    monkeypatch):
    from tests.conftest import ingest
    monkeypatch.setenv("SIFT_EMBEDDINGS", "off")
    ingest(write_tree(tmp_path / "notes", {"contents.md": CONTENTS, "other.md": "# Other\n\nnothing\n"}), "notes")

    async def scenario():
        async with servers.session({**sift_env, "SIFT_EMBEDDINGS": "off"}, "--no-worker") as s:
            return await call(s, "search", query="Metadata", mode="keyword", limit=1)
    answer = run(scenario)
    snippet = answer.structured_content["results"][0]["snippet"]
    assert "....." not in snippet and "**Metadata** … 12" in snippet, snippet
    assert "....." not in text(answer)
