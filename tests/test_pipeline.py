"""The ingestion pipeline run through huey's immediate mode with the real model and real SQLite.

Covers: first ingestion, nothing-changed re-runs, edit/delete/rename, idempotent
jobs, failures recorded per file, keyword-only indexes, readers isolated from a
generation being built.
"""
from __future__ import annotations

import json
import os
import re
import time
from pathlib import Path

import pytest

from search.index import db, store
from search.query import reader
from tests.conftest import ingest

NOTES = {
    "clients/qumei.md": "---\ntags: [client]\n---\n# 曲美\n\n## 合同\n曲美的合同条款在这里。云仓WMS项目。\n\n## People\nAlice runs the account.\n",
    "tech/git.md": "# Git tips\n\nUse `git rebase -i` to squash commits before merging.\n\n" + "Rebasing rewrites history. " * 120,
    "tech/python.md": "# Python\n\nList comprehensions are concise.\n\n## Async\nasyncio runs coroutines on an event loop.\n",
    "readme.txt": "A plain text file about gardening and tomatoes.\n",
}


@pytest.fixture
def notes(tmp_path) -> Path:
    root = tmp_path / "notes"
    for rel, text in NOTES.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root


def test_first_ingestion_indexes_every_file_within_the_token_limit(immediate, notes, embedder):
    report = ingest(notes)
    published = report["published"]
    assert published is not None and report["building"] is None
    conn = db.connect(Path(os.environ["SIFT_HOME"]) / "index.db")
    files = {row["path"] for row in reader.visible_files(conn)}
    assert files == set(NOTES)
    chunks = reader.visible_chunks(conn)
    assert all(c["tokens"] == embedder.count(c["text"]) <= 256 for c in chunks)
    assert published["embedded"] == len({c["text_hash"] for c in chunks})
    git_chunks = [c for c in chunks if c["path"] == "tech/git.md"]
    assert len(git_chunks) > 1, "a long section is windowed"
    for before, after in zip(git_chunks, git_chunks[1:]):
        assert after["start_line"] <= before["end_line"]
    vectors = conn.execute("SELECT count(*) FROM vectors").fetchone()[0]
    assert vectors == len({c["text_hash"] for c in chunks})


def test_nothing_changed_means_nothing_parsed_or_embedded(immediate, notes):
    first = ingest(notes)["published"]
    (notes / "readme.txt").write_text(NOTES["readme.txt"] + "Basil too.\n", encoding="utf-8")
    edit = ingest(notes)["published"]
    assert edit["changes"] == {"changed": 1} and edit["id"] > first["id"]
    assert ingest(notes)["published"]["id"] == edit["id"], "nothing changed: the edit's generation stays published"
    os.utime(notes / "tech/git.md")  # touched: hashed, and found the same
    touched = ingest(notes)["published"]
    assert touched["id"] > edit["id"], "its new mtime is the published generation's (the date filters read it)"
    assert touched["changes"] == {} and touched["embedded"] == 0 and touched["unchanged"] == len(NOTES)


def test_a_scan_that_finds_nothing_changed_publishes_no_generation_and_says_it_scanned(immediate, notes):
    """Every scan published a generation: twelve of 'no changes' in ten seconds at one sift-mcp start (the
    watcher's and the periodic rescans), and stats said 'published generation 23: no changes; 0 chunks
    embedded', hiding the generation that had read the edits. A scan that finds nothing changed now records only
    that it scanned: stats and search's freshness line say so, and the next change publishes as before."""
    from mcp_server.report import freshness
    from search.settings import load
    from workers import runtime, stats
    first = ingest(notes)
    conn = runtime.index()
    for _ in range(2):
        again = ingest(notes)
        assert again["published"]["id"] == first["published"]["id"] and again["building"] is None
    assert conn.execute("SELECT count(*) FROM generations").fetchone()[0] == 1
    assert again["freshness"]["scanned_unchanged"] > first["published"]["finished"]
    text = stats.render(stats.gather(conn, load(), {}), stats.CLI)
    assert f"\n  published: generation {first['published']['id']}, " in text
    assert re.search(r"\n  last scanned [0-9.]+ (s|min) ago: no changes\n", text + "\n"), text
    line, data = freshness(conn)
    assert re.fullmatch(r"freshness: up to date \(last published: notes [0-9.]+ (s|min) ago; last scanned, no "
                        r"changes: notes [0-9.]+ (s|min) ago\)", line), line
    assert data[0]["published_generation"] == first["published"]["id"] and data[0]["scanned_at"]

    (notes / "readme.txt").write_text("Tomatoes and basil.\n", encoding="utf-8")
    changed = ingest(notes)
    assert changed["published"]["id"] > first["published"]["id"]
    assert changed["published"]["changes"] == {"changed": 1}
    assert changed["freshness"]["scanned_unchanged"] is None, "the newest scan is the one that published"
    assert "last scanned" not in stats.render(stats.gather(conn, load(), {}), stats.CLI)
    assert "no changes" not in freshness(conn)[0]


def test_a_new_chunk_size_or_chunker_reads_every_file_again(immediate, notes, monkeypatch):
    """Files that did not change kept the chunks of the size they were cut at: SIFT_CHUNK_TOKENS=64 (or an
    upgraded chunker, or an index from before generations recorded their cut) changed nothing until each file
    was edited. The cut is recorded per generation; a scan that finds it different reads every file again."""
    from workers import runtime
    first = ingest(notes)["chunks"]
    monkeypatch.setenv("SIFT_CHUNK_TOKENS", "64")
    runtime.reset()
    smaller = ingest(notes)
    assert smaller["published"]["changes"] == {"changed": len(NOTES)} and smaller["chunks"] > first
    assert ingest(notes)["published"]["id"] == smaller["published"]["id"], "the same cut again: nothing to read"
    conn = db.connect(Path(os.environ["SIFT_HOME"]) / "index.db")
    conn.execute("UPDATE generations SET chunking = NULL")  # as an index from before schema V11 left it
    conn.commit()
    assert ingest(notes)["published"]["changes"] == {"changed": len(NOTES)}


def test_edit_delete_rename_embed_only_what_changed(immediate, notes):
    ingest(notes)
    conn = db.connect(Path(os.environ["SIFT_HOME"]) / "index.db")
    before = {c["text_hash"] for c in reader.visible_chunks(conn)}
    git = notes / "tech/git.md"
    git.write_text(git.read_text() + "\n## New section\nCherry-pick copies a single commit.\n")
    (notes / "readme.txt").unlink()
    (notes / "tech/python.md").rename(notes / "tech/python3.md")
    report = ingest(notes)["published"]
    assert report["changes"] == {"changed": 1, "deleted": 2, "renamed": 1} or \
        report["changes"] == {"changed": 1, "deleted": 1, "renamed": 1}
    chunks = reader.visible_chunks(conn)
    paths = {c["path"] for c in chunks}
    assert "readme.txt" not in paths and "tech/python.md" not in paths and "tech/python3.md" in paths
    new_hashes = {c["text_hash"] for c in chunks} - before
    assert report["embedded"] == len(new_hashes) >= 1
    assert all(c["path"] == "tech/git.md" for c in chunks if c["text_hash"] in new_hashes)
    rows = conn.execute("SELECT path, embedded FROM progress WHERE generation = ?", (report["id"],)).fetchall()
    assert {r["path"]: r["embedded"] for r in rows}.get("tech/python3.md") == 0, "a rename embeds nothing"


def test_repeated_jobs_leave_the_index_as_if_run_once(immediate, notes):
    from workers import runtime
    ingest(notes)
    conn = runtime.index()
    collection = conn.execute("SELECT id FROM collections").fetchone()["id"]
    gen = store.begin_generation(conn, collection, runtime.model_id())
    store.record_plan(conn, gen, collection, {"tech/python.md": "changed"}, {}, len(NOTES))
    version = store.FileVersion("tech/python.md", "note", 9, time.time(), "cd" * 32, "Python")
    rows = [store.ChunkRow(0, "Python", "Generators yield values lazily.", 8, "g" * 32)]
    vectors = {"g" * 32: b"\0" * 1536}
    store.write_files(conn, gen, collection, [(version, rows)], runtime.model_id(), vectors, {"tech/python.md": 1})
    once = _dump(conn)
    store.write_files(conn, gen, collection, [(version, rows)], runtime.model_id(), vectors, {"tech/python.md": 1})
    store.mark(conn, gen, ["tech/python.md"], "parse", "done")  # a late duplicate of an earlier stage
    assert _dump(conn) == once
    assert store.try_publish(conn, gen)
    published = _dump(conn)
    store.write_files(conn, gen, collection, [(version, rows)], runtime.model_id(), vectors, {})
    assert _dump(conn) == published, "a duplicate arriving after publish changes nothing"
    texts = [c["text"] for c in reader.visible_chunks(conn) if c["path"] == "tech/python.md"]
    assert texts == ["Generators yield values lazily."]


def test_bad_files_fail_with_reasons_and_the_rest_is_indexed(immediate, notes):
    (notes / "binary.md").write_bytes(b"\x00\x01\x02 not text" * 10)
    (notes / "latin1.md").write_bytes("caf\xe9".encode("latin-1"))
    report = ingest(notes)["published"]
    reasons = {f["path"]: f["reason"] for f in report["failures"]}
    assert "binary" in reasons["binary.md"]
    assert "UTF-8" in reasons["latin1.md"]
    conn = db.connect(Path(os.environ["SIFT_HOME"]) / "index.db")
    assert {r["path"] for r in reader.visible_files(conn)} == set(NOTES)


def test_keyword_only_index_has_no_vectors_and_builds_no_model(immediate, notes, monkeypatch):
    """Its chunks were counted with the model's tokenizer, so the model was built into <home>/models (e5: about
    100 MB and a minute) for an index that embeds nothing; plain tokens count them now."""
    from ingest.chunk import plain_count
    from workers import runtime
    monkeypatch.setenv("SIFT_EMBEDDINGS", "off")
    monkeypatch.setenv("SIFT_MODEL", "minilm")  # a name: it would be built into the home
    runtime.reset()
    report = ingest(notes)["published"]
    conn = runtime.index()
    assert report["model"] is None and report["embedded"] == 0
    assert conn.execute("SELECT count(*) FROM vectors").fetchone()[0] == 0
    assert conn.execute("SELECT count(*) FROM chunks_fts WHERE chunks_fts MATCH '\"合同\"'").fetchone()[0] == 1
    chunks = reader.visible_chunks(conn)
    assert chunks and all(c["tokens"] == plain_count(c["text"]) <= 256 for c in chunks)
    assert not (Path(os.environ["SIFT_HOME"]) / "models").exists()


def test_reader_sees_the_published_generation_while_another_is_built(immediate, notes):
    from workers import runtime
    ingest(notes)
    conn = runtime.index()
    other = db.connect(Path(os.environ["SIFT_HOME"]) / "index.db")
    before = [tuple(r) for r in reader.visible_chunks(other)]
    collection = conn.execute("SELECT id FROM collections").fetchone()["id"]
    gen = store.begin_generation(conn, collection, runtime.model_id())
    store.record_plan(conn, gen, collection, {"readme.txt": "deleted", "new.md": "added"}, {}, len(NOTES))
    version = store.FileVersion("new.md", "note", 5, time.time(), "ab" * 32, "New")
    row = store.ChunkRow(0, "", "brand new text", 5, "h" * 32)
    store.write_files(conn, gen, collection, [(version, [row])], runtime.model_id(), {}, {})
    assert [tuple(r) for r in reader.visible_chunks(other)] == before, "a reader never sees a generation being built"
    assert store.try_publish(conn, gen)
    after = {r["path"] for r in reader.visible_chunks(other)}
    assert "new.md" in after and "readme.txt" not in after


def _dump(conn):
    files = conn.execute("SELECT collection, path, sha256, gen_from, gen_to FROM files ORDER BY path, gen_from").fetchall()
    chunks = conn.execute("SELECT f.path, c.ordinal, c.text_hash FROM chunks c JOIN files f ON f.id = c.file "
                          "ORDER BY 1, 2").fetchall()
    fts = conn.execute("SELECT count(*) FROM chunks_fts").fetchone()[0]
    vectors = conn.execute("SELECT count(*) FROM vectors").fetchone()[0]
    return [tuple(r) for r in files], [tuple(r) for r in chunks], fts, vectors


def test_windows_after_the_first_are_embedded_with_their_heading(immediate, notes, embedder):
    import numpy as np
    ingest(notes)
    conn = db.connect(Path(os.environ["SIFT_HOME"]) / "index.db")
    git_chunks = [c for c in reader.visible_chunks(conn) if c["path"] == "tech/git.md"]
    first, later = git_chunks[0], git_chunks[1]
    assert first["text"].startswith("# Git tips") and "Git tips" not in later["text"]

    def stored(chunk):
        blob = conn.execute("SELECT vec FROM vectors WHERE text_hash = ?", (chunk["text_hash"],)).fetchone()[0]
        return np.frombuffer(blob, dtype=np.float32)

    with_heading, bare = embedder.embed(["Git tips\n\n" + later["text"], later["text"]])
    assert np.allclose(stored(later), with_heading, atol=1e-5)
    assert not np.allclose(stored(later), bare, atol=1e-3)
    assert np.allclose(stored(first), embedder.embed([first["text"]])[0], atol=1e-5), \
        "the first window shows its heading: embedded as it is"


def _found_by_keyword(word: str, postings: bool) -> list[str]:
    from search.query.engine import Engine
    engine = Engine(Path(os.environ["SIFT_HOME"]) / "index.db", lambda: None, keyword_postings=postings)
    return [hit.path for hit in engine.search(word, mode="keyword").hits]


@pytest.mark.parametrize("postings", [True, False], ids=["postings", "fts5"])
def test_a_word_of_the_file_name_alone_finds_the_file_and_a_rename_moves_it(immediate, notes, postings):
    """A note titled by its first heading was not found by a word of its file name (xyzzy-plan.md, '# Plan');
    the name's words are in the title column of its chunks, written again when the file is renamed."""
    (notes / "xyzzy-plan.md").write_text("# Plan\n\nWhat to do this week.\n", encoding="utf-8")
    ingest(notes)
    assert _found_by_keyword("xyzzy", postings) == ["xyzzy-plan.md"]
    (notes / "xyzzy-plan.md").rename(notes / "plugh_plan.md")
    assert ingest(notes)["published"]["changes"] == {"deleted": 1, "renamed": 1}
    assert _found_by_keyword("plugh", postings) == ["plugh_plan.md"]
    assert _found_by_keyword("xyzzy", postings) == [], "the old name is gone with its rows"


def test_an_index_cut_before_file_names_were_indexed_gets_them_without_embedding_again(immediate, notes,
                                                                                          monkeypatch):
    """Chunker version 4 put the file name's words in the title column: every file of an older index is read
    again (its name reaches the index), and nothing is embedded again (the embedded text holds no file name)."""
    from ingest import chunk
    from search.query import text
    (notes / "xyzzy-plan.md").write_text("# Plan\n\nWhat to do this week.\n", encoding="utf-8")
    with monkeypatch.context() as older:
        older.setattr(chunk, "VERSION", 3)
        older.setattr(text, "name_words", lambda path, held: "")  # what Sift wrote before (title_text's)
        ingest(notes)
    assert _found_by_keyword("xyzzy", True) == []
    report = ingest(notes)["published"]
    assert report["changes"] == {"changed": len(NOTES) + 1} and report["embedded"] == 0
    assert _found_by_keyword("xyzzy", True) == ["xyzzy-plan.md"]


def test_a_script_without_an_extension_is_parsed_as_the_code_of_its_shebang(immediate, notes):
    """scripts/setup ('#!/usr/bin/env bash') was not indexed: it is now code of the language its shebang
    names (parsed with that grammar), and a word of it finds it."""
    (notes / "scripts").mkdir()
    (notes / "scripts/setup").write_text("#!/usr/bin/env bash\nset -e\n\ninstall_models() {\n"
                                         "    echo fetching the frobnicator weights\n}\n", encoding="utf-8")
    (notes / "scripts/report").write_text("#!/usr/bin/env python3\n\ndef summarise(rows):\n"
                                          "    return len(rows)\n", encoding="utf-8")
    ingest(notes)
    conn = db.connect(Path(os.environ["SIFT_HOME"]) / "index.db")
    languages = {row["path"]: (row["kind"], json.loads(row["meta"])["language"])
                 for row in reader.visible_files(conn) if row["path"].startswith("scripts/")}
    assert languages == {"scripts/setup": ("code", "bash"), "scripts/report": ("code", "python")}
    assert _found_by_keyword("frobnicator", True) == ["scripts/setup"]
