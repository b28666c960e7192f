"""A big file in a keyword-only index (SIFT_EMBEDDINGS=off), which cuts it whole: SIFT_MAX_FILE_CHUNKS bounds only
the embedding. bench/hostile.py --consumer saw a worker still on a 10 MB unterminated code fence (16,671 passages)
after 15 min; each window's line number was counted from the section's start (quadratic: the chunk job took
69 s of the file's 84 s alone, at load 3.5). These tests count the work of cutting such a file, never its time."""
from __future__ import annotations

from tests.conftest import ingest, write_tree
from tests.test_file_chunk_limit import indexed_paths, keyword_hits
from tests.test_hostile_parsers import CountingText


def fence(lines: int) -> str:
    """A note that is one code fence never closed: one section, one atomic block over all of it."""
    return "# Code\n\n```python\n" + "".join(f"x{i} = compute(y) + 1  # line {i} of code\n" for i in range(lines))


def test_cutting_an_unterminated_fence_counts_each_character_a_few_times_not_once_per_window(tmp_path):
    """Cut whole as a keyword-only index cuts it: the tokens counted and the line breaks scanned stay a few times
    the text (the whole, the block, its lines, each window: about 4 times), however many windows it makes; every line is in a passage
    under its own line number."""
    from ingest.chunk import chunk_document, plain_count
    from ingest.files import read_and_parse
    root = write_tree(tmp_path / "notes", {"cut-fence.md": fence(6_000)})
    doc = read_and_parse(root, "cut-fence.md").doc
    [section] = doc.sections
    assert section.atomic, "the fence is one block the chunker keeps whole where it can"
    section.text = text = CountingText(section.text)
    counted = 0

    def count(piece: str) -> int:
        nonlocal counted
        counted += len(piece)
        return plain_count(piece)

    CountingText.scanned = 0
    chunks = chunk_document(doc, count, 256, 32, None)
    assert len(chunks) > 200, "cut whole: no limit on the passages"
    assert counted < 6 * len(text), f"counted {counted:,} characters of {len(text):,}"
    assert CountingText.scanned < 2 * len(text), f"scanned {CountingText.scanned:,} characters of {len(text):,}"
    first = section.start_line
    lines = text.split("\n")
    for chunk in chunks:
        assert chunk.text.split("\n", 1)[0] == lines[chunk.start_line - first]
    assert chunks[-1].text.rstrip().endswith("# line 5999 of code")


def test_a_keyword_only_index_cuts_a_big_fence_whole_past_the_file_chunk_limit(immediate, tmp_path, monkeypatch):
    """SIFT_MAX_FILE_CHUNKS spares the hours of embedding a big file: a keyword-only index embeds nothing and
    indexes the whole fence (its last line is found), beside the note next to it."""
    from workers import runtime
    monkeypatch.setenv("SIFT_EMBEDDINGS", "off")
    monkeypatch.setenv("SIFT_MAX_FILE_CHUNKS", "5")
    runtime.reset()
    root = write_tree(tmp_path / "notes", {"cut-fence.md": fence(3_000), "note.md": "# Plan\n\nthe heron meeting\n"})
    published = ingest(root)["published"]
    assert published is not None and published["failures"] == []
    chunks = indexed_paths(runtime.index())
    assert chunks["note.md"] == 1 and chunks["cut-fence.md"] > 5
    assert keyword_hits("x2999") == ["cut-fence.md"] and keyword_hits("heron") == ["note.md"]
