"""SIFT_MAX_FILE_CHUNKS: a file cut into more chunks than that is skipped at the chunk stage with the reason,
embedding nothing, and the rest of its collection publishes; one of exactly that many is indexed. Chunking stops
at the first chunk over the limit. Real SQLite, the session's MiniLM, huey's immediate mode."""
from __future__ import annotations

import os
from pathlib import Path

import pytest

from ingest.chunk import TooManyChunks, chunk_document
from ingest.document import Document, Section
from search.index import status
from search.settings import load
from tests.conftest import ingest, run_ingest, write_tree


def note(word: str, sections: int) -> str:
    """A note of ``sections`` short headed sections: one chunk each."""
    return "".join(f"# Part {i}\n\nParagraph {i} of the {word} note.\n\n" for i in range(sections))


def indexed_paths(conn) -> dict[str, int]:
    """Every file the index holds in any generation, with its chunks."""
    return {r["path"]: r["n"] for r in conn.execute(
        "SELECT f.path, count(c.id) AS n FROM files f LEFT JOIN chunks c ON c.file = f.id GROUP BY f.id")}


def keyword_hits(word: str) -> list[str]:
    from search.query.engine import Engine
    engine = Engine(Path(os.environ["SIFT_HOME"]) / "index.db")
    return sorted({h.path for h in engine.search(word, mode="keyword", limit=50).hits})


def test_a_file_over_the_limit_is_skipped_with_the_reason_and_the_rest_publishes(immediate, sift_env, tmp_path,
                                                                                monkeypatch):
    from workers import runtime, stats
    from ingest.cli import published_summary
    monkeypatch.setenv("SIFT_MAX_FILE_CHUNKS", "5")
    root = write_tree(tmp_path / "notes", {"big.md": note("walrus", 40), "small.md": "# Small\n\nthe heron note\n",
                                           "exact.md": note("ibex", 5)})
    report = ingest(root)
    published = report["published"]
    assert published is not None and report["building"] is None
    assert [(f["path"], f["stage"], f["state"]) for f in published["failures"]] == [("big.md", "chunk", "skipped")]
    reason = published["failures"][0]["reason"]
    # what was skipped (the file, not embedded), why (its passages over the limit), what it would cost, and the setting
    assert reason.startswith("not embedded: the file would make about ") and " passages, over the limit of 5 per file (" \
        "embedding them would take " in reason, reason
    assert reason.endswith("); raise SIFT_MAX_FILE_CHUNKS to index it"), reason
    conn = runtime.index()
    assert indexed_paths(conn) == {"small.md": 1, "exact.md": 5}, "nothing of the big file is written"
    assert keyword_hits("walrus") == []
    assert keyword_hits("heron") == ["small.md"] and keyword_hits("ibex") == ["exact.md"]
    shown = f"big.md: skipped at chunk: {reason}"
    assert shown in stats.render(stats.gather(conn, load(), {}), stats.ASSISTANT)  # what the MCP stats tool says
    assert shown in run_ingest(sift_env, "stats").stdout
    summary = published_summary(conn, "notes")
    assert summary.endswith("; 1 of the 3 files seen is not indexed (0 failed, 1 skipped): ingest stats lists them")


def test_a_file_skipped_for_its_size_keeps_its_last_indexed_version_like_other_skips(immediate, sift_env, tmp_path,
                                                                                     monkeypatch):
    """As for a file skipped or failed at parse, the version indexed before stays searchable until the file is
    indexed again or deleted; the new text is not written."""
    from workers import runtime
    monkeypatch.setenv("SIFT_MAX_FILE_CHUNKS", "5")
    root = write_tree(tmp_path / "notes", {"grows.md": note("otter", 2)})
    assert ingest(root)["published"]["failures"] == []
    write_tree(root, {"grows.md": note("beaver", 9)})
    published = ingest(root)["published"]
    assert [(f["path"], f["state"]) for f in published["failures"]] == [("grows.md", "skipped")]
    assert "over the limit of 5 per file" in published["failures"][0]["reason"]
    assert keyword_hits("otter") == ["grows.md"] and keyword_hits("beaver") == []
    assert runtime.index().execute("SELECT count(*) FROM chunks").fetchone()[0] == 2


def test_the_limit_applies_only_past_it_and_counts_the_whole_file_when_it_ends_there():
    doc = Document(kind="note", title="t", sections=[Section(text=f"line {i}\n", heading_path=[f"H{i}"])
                                                     for i in range(6)])
    assert len(chunk_document(doc, words, 64, 8, most=6)) == 6
    with pytest.raises(TooManyChunks) as over:
        chunk_document(doc, words, 64, 8, most=5)
    assert over.value.share == 1 and over.value.tokens == 6 * 3
    from workers.tasks import too_many_chunks
    assert too_many_chunks(over.value) == ("not embedded: the file would make 6 passages, over the limit of 5 per "
                                           "file (embedding them would take under a minute); raise "
                                           "SIFT_MAX_FILE_CHUNKS to index it")


def words(text: str) -> int:
    return len(text.split()) + 1  # one special token, as a model's count has


class Counting:
    def __init__(self):
        self.calls, self.longest = 0, 0

    def __call__(self, text: str) -> int:
        self.calls += 1
        self.longest = max(self.longest, len(text))
        return words(text)


def test_chunking_stops_at_the_first_chunk_over_the_limit():
    """Neither a file of many sections nor one long section is cut further than the limit: a 64 MiB log took
    minutes to cut whole, only to be skipped."""
    many = Document(kind="note", title="t", sections=[Section(text=f"line {i}\n", heading_path=[])
                                                      for i in range(10_000)])
    lines = "a few words here\n" * 100_000
    long = Document(kind="text", title="t", sections=[Section(text=lines, heading_path=[])])
    for doc in (many, long):
        counter = Counting()
        with pytest.raises(TooManyChunks) as over:
            chunk_document(doc, counter, 16, 4, most=3)
        assert counter.calls < 100 and 0 < over.value.share < 0.01


def test_a_section_over_a_mebibyte_is_not_counted_whole_and_is_cut_as_ever():
    """Its first lines show it is over the limit, so the 14 M tokens of a 64 MiB section are not held at once;
    its windows are still cut from the start to the end, each under the limit."""
    text = "".join(f"entry {i} of a long log\n" for i in range(60_000))
    assert len(text) > 1 << 20
    counter = Counting()
    chunks = chunk_document(Document(kind="text", title="t", sections=[Section(text=text, heading_path=[])]),
                            counter, 40, 8)
    assert counter.longest <= 1 << 20
    assert chunks[0].offset == 0 and chunks[-1].offset + len(chunks[-1].text) == len(text)
    assert all(c.tokens <= 40 for c in chunks) and len(chunks) > 10_000


@pytest.mark.parametrize("value, said", [
    ("lots", "SIFT_MAX_FILE_CHUNKS='lots' (--max-file-chunks) is not a whole number: give a whole number (the default "
             "is 10000)"),
    ("0", "SIFT_MAX_FILE_CHUNKS='0' (--max-file-chunks) must be at least 1 (the default is 10000)"),
    ("2.5", "SIFT_MAX_FILE_CHUNKS='2.5' (--max-file-chunks) is not a whole number: give a whole number"),
])
def test_a_limit_that_is_not_a_positive_whole_number_is_refused_naming_it(monkeypatch, value, said):
    monkeypatch.setenv("SIFT_MAX_FILE_CHUNKS", value)
    with pytest.raises(ValueError) as refused:
        load()
    assert str(refused.value).startswith(said)


def test_the_cli_refuses_a_zero_limit_in_one_line_and_passes_its_flag_on(sift_env, monkeypatch):
    from ingest.cli import build_parser
    from search.settings import use_flags
    result = run_ingest({**sift_env, "SIFT_MAX_FILE_CHUNKS": "0"}, "stats")
    assert result.returncode == 2 and result.stderr == \
        "ingest: error: SIFT_MAX_FILE_CHUNKS='0' (--max-file-chunks) must be at least 1 (the default is 10000)\n", \
        result.stderr
    assert load().max_file_chunks == 10_000
    monkeypatch.setenv("SIFT_MAX_FILE_CHUNKS", "")  # use_flags writes os.environ: restored after the test
    use_flags(build_parser().parse_args(["retry-failed", "--max-file-chunks", "20000"]))
    assert load().max_file_chunks == 20_000
