"""A search for words only a note's footnote holds: the hit of its definition says where the note cites it."""
from __future__ import annotations

from tests.conftest import ingest, write_tree
from tests.test_mcp_server import call, run, text

PARA = ("The squall came in low over the breakwater and the harbour master ordered the boats hauled up. "
        "Lin watched from the quay as the crews worked the winches, the rain running off their oilskins. ") * 6
CHAPTER = ("# Chapter 3\n\n## The storm\n\n" + PARA + "By nightfall the wind had reached force ten.[^1]\n\n" + PARA
           + "The barometer fell again before dawn.[^gauge]\n\n## The calm\n\n" + PARA.replace("squall", "morning")
           + "\n\nLater, the log[^1] was read aloud.\n\n"
           "[^1]: Beaufort figures from the Met Office archive, Dunmore station log of 1894.\n"
           "[^gauge]: An aneroid at the Dunmore lifeboat house.\n[^unused]: Dunmore again, cited nowhere.\n")


def test_a_footnote_found_by_its_words_says_where_the_note_cites_it(immediate, tmp_path, sift_env, servers,
                                                                     monkeypatch):
    """'Dunmore station log' is in a footnote's definition alone, at the chapter's end: keyword search found that
    line, '[^1]: Beaufort figures …', and nothing said which sentence of the story it belongs to (the passage
    citing it, embedded with it, is found by meaning, not by its words). The hit names the lines citing each
    footnote it defines; one cited nowhere is left out."""
    monkeypatch.setenv("SIFT_EMBEDDINGS", "off")
    root = write_tree(tmp_path / "book", {"chapter3.md": CHAPTER})
    ingest(root, "book")
    lines = CHAPTER.split("\n")
    force, gauge, log = (next(n for n, line in enumerate(lines, 1) if mark in line)
                         for mark in ("force ten.[^1]", "dawn.[^gauge]", "log[^1] was"))

    async def scenario():
        async with servers.session({**sift_env, "SIFT_EMBEDDINGS": "off"}, "--no-worker") as s:
            return await call(s, "search", query="Dunmore station log", mode="keyword")
    answer = run(scenario)
    hit = answer.structured_content["results"][0]
    assert "[^1]: Beaufort" in hit["snippet"], hit
    said = f"[^1] cited at lines {force}, {log}; [^gauge] at line {gauge}"
    assert hit["footnotes_cited"] == said, hit
    assert f"   {said}" in text(answer).splitlines(), text(answer)
