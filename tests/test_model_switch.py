"""A model's conventions are the model's, and changing the model never takes search away.

M1 is the session's MiniLM (F16) and M2 the same model with F32 weights: another file and another model id,
quick to build and run, and close enough in meaning that the same queries find the same notes, while their
vectors differ enough (about 1e-3) that a query embedded by one and compared with the other's vectors would
not reproduce the stored scores this file checks to 1e-5.
"""
from __future__ import annotations

import dataclasses
import gc
import os
import shutil
import signal
import struct
import time
import weakref
from pathlib import Path

import numpy as np
import pytest

from search.index import collection_reads, db
from search.model import embedding
from search.model.info import known_model, read_model_info
from search.query.answer import SearchError
from search.query.engine import Engine
from search.query.filters import Filters
from search.settings import load
from tests.conftest import (
    Consumer, ingest, llama_threads, run_ingest, stop_holding_no_write_lock, wait_published, write_tree)

TOPICS = {
    "music/guitar.md": "# Guitar practice\n\nI practise fingerpicking on my acoustic guitar every evening, "
                       "and played three songs on stage at the open mic.\n",
    "food/pasta.md": "# Pasta\n\nBoil the spaghetti in salted water for nine minutes, then toss it with "
                     "garlic, olive oil and chilli.\n",
    "tech/sqlite.md": "# SQLite WAL\n\nWrite-ahead logging lets readers keep a consistent snapshot while "
                      "one writer appends to the log.\n",
    "garden/tomatoes.md": "# Tomatoes\n\nWater the tomato plants at the roots in the morning and tie the "
                          "stems to stakes as they grow.\n",
    "money/taxes.md": "# Tax return\n\nFile the income tax return before the deadline; keep the receipts "
                      "for deductible expenses.\n",
    "travel/hiking.md": "# Alps hike\n\nThe trail climbs to the mountain hut in four hours; bring boots, "
                        "water and a rain jacket.\n",
    "health/sleep.md": "# Sleep\n\nGo to bed at the same time each night and keep the bedroom dark and "
                       "cool to sleep better.\n",
    "pets/cat.md": "# The cat\n\nOur cat naps on the windowsill all afternoon and asks for food at six.\n",
}
QUERIES = {"a stringed instrument on stage": "music/guitar.md", "cooking noodles": "food/pasta.md",
           "database readers during a write": "tech/sqlite.md", "walking in the mountains": "travel/hiking.md"}


class Recording:
    """A real Embedder that writes down which model embedded which text, and how."""

    def __init__(self, embedder, log: list):
        self.embedder, self.info, self.log = embedder, embedder.info, log

    def embed(self, texts, kind="passage"):
        vectors = self.embedder.embed(texts, kind)
        self.log.extend((self.info.model_id, kind, text, vector) for text, vector in zip(texts, vectors))
        return vectors


def recording_loader(log: list):
    """What search.query.engine.from_settings does, with the settings read now and every embedding written down."""
    def load_model(model_id: str):
        return Recording(embedding.Embedder(embedding.locate(model_id, load()), threads=embedding.QUERY_THREADS), log)
    return load_model


def model_of(conn, generation: int) -> str:
    return conn.execute("SELECT model FROM generations WHERE id = ?", (generation,)).fetchone()[0]


def assert_within_one_model(conn, answer, log_before: int, log: list) -> None:
    """Every query embedded for ``answer`` was embedded by the model of the generation that answered, and
    each semantic score is that query vector against the stored vector of that same model."""
    models = {model_of(conn, g) for g in answer.generations.values()}
    assert set(answer.models) == models
    new = log[log_before:]
    assert all(m in models and kind == "query" for m, kind, _, _ in new), "a query embedded by another model"
    if answer.mode != "semantic" or not answer.hits:
        return
    vectors = {m: v for m, _, text, v in log if text == answer.query}
    (used,) = answer.models
    hit = answer.hits[0]
    stored = conn.execute("SELECT v.vec FROM chunks ch JOIN vectors v ON v.text_hash = ch.text_hash AND "
                          "v.model = ? WHERE ch.id = ?", (used, hit.chunk_id)).fetchone()
    assert stored is not None, f"chunk {hit.chunk_id} has no vector of {used}"
    assert float(np.frombuffer(stored[0], dtype=np.float32) @ vectors[used]) == pytest.approx(hit.score, abs=1e-5)


# --- the model's conventions -------------------------------------------------------------------------

@pytest.fixture(scope="module")
def e5_named(tmp_path_factory):
    """MiniLM's weights in a GGUF named like an e5 model from elsewhere, without Sift's prompt keys: it must
    get e5's prefixes from the table of known models."""
    from search.model import minilm_convert
    saved = minilm_convert.MODEL_NAME
    minilm_convert.MODEL_NAME = "Multilingual E5 Small"
    try:
        path = minilm_convert.convert(minilm_convert.package_model_dir(),
                                     tmp_path_factory.mktemp("e5-named") / "someone-elses-e5.gguf")
    finally:
        minilm_convert.MODEL_NAME = saved
    return path


def test_a_known_models_prefixes_come_from_the_table_when_the_file_has_none(e5_named, model_path):
    info = read_model_info(e5_named)
    assert (info.query_prefix, info.passage_prefix) == ("query: ", "passage: ")
    plain = read_model_info(model_path)
    assert (plain.query_prefix, plain.passage_prefix) == ("", "")
    assert known_model("e5").name == known_model("multilingual_e5_small").name == "multilingual-e5-small"
    assert known_model("MiniLM").name == "all-MiniLM-L6-v2" and known_model("bge-m3") is None


def test_embed_puts_the_prefix_before_the_text_and_count_counts_it(e5_named):
    embedder = embedding.Embedder(read_model_info(e5_named), threads=llama_threads())
    raw = embedder._llm
    text = "Boil the spaghetti in salted water."

    def reference(s: str) -> np.ndarray:
        v = np.asarray(raw.embed(s, normalize=False, truncate=False), dtype=np.float32)
        return v / np.linalg.norm(v)
    query, passage = embedder.embed([text], kind="query")[0], embedder.embed([text])[0]
    assert np.allclose(query, reference("query: " + text), atol=1e-6)
    assert np.allclose(passage, reference("passage: " + text), atol=1e-6)
    assert float(query @ passage) < 0.9999, "a query and a passage are embedded differently"
    plain_tokens = len(raw.tokenize(text.encode(), add_bos=True, special=False))
    assert embedder.count(text) == len(raw.tokenize(("passage: " + text).encode(), add_bos=True, special=False))
    assert embedder.count(text) > plain_tokens
    with pytest.raises(ValueError, match="kind"):
        embedder.embed([text], kind="document")


def test_trailing_whitespace_is_not_embedded_or_counted(embedder):
    assert embedder.count("a note about tea  \n\n") == embedder.count("a note about tea")
    a, b = embedder.embed(["a note about tea \n", "a note about tea"])
    assert np.allclose(a, b, atol=1e-6)


def test_chunks_counted_with_the_prefix_fit_the_limit_as_embedded(e5_named):
    from ingest.chunk import chunk_section
    from ingest.document import Section
    embedder = embedding.Embedder(read_model_info(e5_named), vocab_only=True)
    text = "\n".join(f"Line {i}: the walrus counted {i * 7} pebbles on the beach at dawn." for i in range(80))
    chunks = chunk_section(Section(text=text, start_line=1), embedder.count, 64, 8)
    assert len(chunks) > 3
    for chunk in chunks:
        as_embedded = embedder._tokens(embedder.model_input(chunk.text, "passage"))
        assert chunk.tokens == len(as_embedded) <= 64


def test_sift_model_takes_a_known_name_or_a_gguf_path(tmp_path, monkeypatch):
    monkeypatch.setenv("SIFT_HOME", str(tmp_path))
    for value, name in (("e5", "multilingual-e5-small"), ("multilingual-e5-small", "multilingual-e5-small"),
                        ("minilm", "all-MiniLM-L6-v2"), ("all-MiniLM-L6-v2", "all-MiniLM-L6-v2")):
        monkeypatch.setenv("SIFT_MODEL", value)
        settings = load()
        assert settings.model_path == tmp_path / "models" / f"{name}.gguf" and settings.uses_default_model
    monkeypatch.setenv("SIFT_MODEL", str(tmp_path / "mine.gguf"))
    assert load().model_path == tmp_path / "mine.gguf" and not load().uses_default_model
    monkeypatch.setenv("SIFT_MODEL", "no-such-model")
    with pytest.raises(ValueError, match="neither a known model"):
        load()


# --- which model answers ---------------------------------------------------------------------------------

def use_model(monkeypatch, path: Path) -> None:
    """Configure another model for the workers (in immediate mode, this process) and the readers."""
    from workers import runtime
    monkeypatch.setenv("SIFT_MODEL", str(path))
    runtime.reset()


def test_a_model_other_than_the_index_s_is_refused_and_keyword_answers(immediate, tmp_path, other_model_path):
    ingest(write_tree(tmp_path / "notes", TOPICS))
    wrong = embedding.Embedder(read_model_info(other_model_path), threads=llama_threads())
    engine = Engine(Path(os.environ["SIFT_HOME"]) / "index.db", lambda model_id: wrong)
    with pytest.raises(SearchError, match="never compared with another model"):
        engine.search("cooking noodles", mode="semantic")
    answer = engine.search("spaghetti", mode="hybrid")
    assert answer.mode == "keyword" and answer.models == [] and answer.hits[0].path == "food/pasta.md"
    assert any("another model" in note for note in answer.notes)


def test_a_missing_old_model_file_is_said_and_keyword_still_works(immediate, tmp_path, model_path,
                                                                   other_model_path, monkeypatch):
    old = shutil.copy(model_path, tmp_path / "old-model.gguf")
    use_model(monkeypatch, Path(old))
    ingest(write_tree(tmp_path / "notes", TOPICS))
    old_id = read_model_info(old).model_id
    use_model(monkeypatch, other_model_path)  # configured: M2; published: M1, whose file now goes
    os.unlink(old)
    engine = Engine(Path(os.environ["SIFT_HOME"]) / "index.db", recording_loader([]))
    with pytest.raises(SearchError) as refused:
        engine.search("cooking noodles", mode="semantic")
    assert old_id in str(refused.value) and "keyword search still works" in str(refused.value)
    assert "old-model.gguf" in str(refused.value), "names the file that is gone"
    hybrid = engine.search("spaghetti garlic", mode="hybrid")
    assert hybrid.mode == "keyword" and hybrid.hits[0].path == "food/pasta.md" and old_id in hybrid.notes[0]
    assert engine.search("spaghetti", mode="keyword").hits[0].path == "food/pasta.md"


def with_embedding_length(model: Path, out: Path, length: int) -> Path:
    """A copy of ``model`` whose header gives another embedding length than its tensors have: a sound GGUF
    header (read_model_info accepts it) that llama.cpp refuses to load (check_tensor_dims)."""
    data = bytearray(model.read_bytes())
    at = data.index(b"bert.embedding_length") + len(b"bert.embedding_length")
    assert struct.unpack_from("<I", data, at)[0] == 4, "a uint32 value follows the key"
    struct.pack_into("<I", data, at + 4, length)
    out.write_bytes(bytes(data))
    return out


@pytest.mark.timeout(300)
def test_a_model_llama_cpp_cannot_load_stops_the_worker_saying_why_and_search_goes_on(
        immediate, sift_env, tmp_path, model_path, monkeypatch):
    """SIFT_MODEL names a GGUF whose header reads well but whose tensors llama.cpp refuses. The consumer's
    start-up check reads only the header, so it starts; the scan then met the model and failed with a traceback
    in the log alone: nothing in stats, the consumer went on taking jobs, the user's enqueue lost. Now the job
    stops the consumer (status 2, the line naming the file), stats says so, and the old generation answers."""
    ingest(write_tree(tmp_path / "notes", TOPICS))
    from workers import runtime
    runtime.reset()
    bad = with_embedding_length(model_path, tmp_path / "bad.gguf", 256)
    assert read_model_info(bad).dim == 256  # the header alone is fine
    broken = {**sift_env, "SIFT_MODEL": str(bad)}
    worker = Consumer(broken, 1, tmp_path / "broken.log")
    try:
        assert run_ingest(broken, "enqueue", str(tmp_path / "notes"), "--name", "notes").returncode == 0
        assert worker.proc.wait() == 2, "the consumer stops: every job would fail on this model"
    finally:
        worker.stop()
    log = (tmp_path / "broken.log").read_text()
    assert f"sift worker: error: llama.cpp could not load the model {bad}" in log
    stats = run_ingest(broken, "stats").stdout
    assert "a worker stopped" in stats and f"could not load the model {bad}" in stats
    assert "failed" not in run_ingest(broken, "files").stdout, "no file is blamed for the model"
    engine = Engine(Path(sift_env["SIFT_HOME"]) / "index.db", recording_loader([]))
    assert engine.search("cooking noodles", mode="semantic").hits[0].path == "food/pasta.md"
    assert engine.search("spaghetti", mode="keyword").hits[0].path == "food/pasta.md"


@pytest.mark.timeout(300)
def test_a_worker_that_stopped_on_a_model_refuses_it_at_start_until_the_file_changes(
        immediate, sift_env, tmp_path, model_path):
    """sift-mcp starts a stopped worker again every minute. Each start passed the header check and said it
    worked, until the scan it queued again met the model and stopped it: a new start is refused at once while
    the file is the one that stopped the last worker, and a fixed file starts normally and publishes."""
    root = write_tree(tmp_path / "notes", TOPICS)
    ingest(root)
    from workers import runtime
    runtime.reset()
    bad = with_embedding_length(model_path, tmp_path / "bad.gguf", 256)
    broken = {**sift_env, "SIFT_MODEL": str(bad)}
    first = Consumer(broken, 1, tmp_path / "first.log")
    try:
        (root / "food" / "pasta.md").write_text("# Pasta\n\nBoil the penne for eleven minutes.\n")
        assert run_ingest(broken, "enqueue", str(root), "--name", "notes").returncode == 0
        assert first.proc.wait() == 2
    finally:
        first.stop()
    again = Consumer(broken, 1, tmp_path / "again.log")
    assert again.proc.wait() == 2
    log = (tmp_path / "again.log").read_text()
    assert f"sift worker: error: llama.cpp could not load the model {bad}" in log
    assert "Executing" not in log, "refused as it starts, before taking a job"

    shutil.copy(model_path, bad)  # fixed: the published generation's own model, as a new file
    conn = db.connect(Path(sift_env["SIFT_HOME"]) / "index.db", readonly=True)
    fixed = Consumer(broken, 1, tmp_path / "fixed.log")
    try:
        before = conn.execute("SELECT published FROM collections WHERE name = 'notes'").fetchone()[0]
        wait_published(conn, "notes", before, fixed.proc, limit=240)
    finally:
        fixed.stop()


def test_collections_embedded_with_different_models_are_searched_each_with_its_own(
        immediate, tmp_path, model_path, other_model_path, monkeypatch):
    from search.index import store
    from workers import runtime
    first, second = read_model_info(model_path).model_id, read_model_info(other_model_path).model_id
    ingest(write_tree(tmp_path / "a", dict(list(TOPICS.items())[:4])), "a")
    use_model(monkeypatch, other_model_path)  # b is indexed with M2; a is not scanned again, so keeps M1
    ingest(write_tree(tmp_path / "b", dict(list(TOPICS.items())[4:])), "b")
    conn = runtime.index()
    assert {collection_reads.published_model(conn, c["id"]) for c in conn.execute("SELECT id FROM collections")} == \
        {first, second}
    log: list = []
    engine = Engine(Path(os.environ["SIFT_HOME"]) / "index.db", recording_loader(log))
    answer = engine.search("walking in the mountains", mode="semantic", limit=8)
    assert answer.models == sorted([first, second])
    assert sorted((m, k, t) for m, k, t, _ in log) == sorted([(first, "query", answer.query),
                                                              (second, "query", answer.query)])
    # merged by rank: each model's best hit leads (b's is the hike), and both collections answer
    assert "travel/hiking.md" in [h.path for h in answer.hits[:2]] and {h.collection for h in answer.hits} == {"a", "b"}
    assert any("different models" in note for note in answer.notes)
    for hit in answer.hits:  # each hit's vector is of its own collection's model
        own = first if hit.collection == "a" else second
        assert conn.execute("SELECT 1 FROM chunks ch JOIN vectors v ON v.text_hash = ch.text_hash AND "
                            "v.model = ? WHERE ch.id = ?", (own, hit.chunk_id)).fetchone()
    log.clear()  # a search of one collection embeds the query with that collection's model only
    only_b = engine.search("a trek across the hills", mode="semantic", limit=8, filters=Filters(collection="b"))
    assert only_b.models == [second] and [(m, k) for m, k, _, _ in log] == [(second, "query")]
    assert {h.collection for h in only_b.hits} == {"b"} and not any("different models" in n for n in only_b.notes)
    similar = engine.similar(path=("a", "music/guitar.md"))
    assert similar.models == [first] and {h.collection for h in similar.hits} == {"a"}
    assert "b" in similar.notes[0]


# --- switching the model on a real consumer --------------------------------------------------------------

@pytest.mark.slow
@pytest.mark.timeout(900)
def test_switching_the_model_keeps_search_answering_from_the_old_generation(
        sift_env, consumer, tmp_path, model_path, other_model_path, monkeypatch):
    """Index with M1 on a real consumer; restart it with SIFT_MODEL=M2 and queue a scan. While the
    re-embedding is built (and held at publish), searches answer from generation 1 with M1; after the
    publish every visible chunk has an M2 vector, M1's vectors are gone, and searches use M2."""
    first, second = read_model_info(model_path).model_id, read_model_info(other_model_path).model_id
    notes = {**TOPICS, **{f"more/note{i}.md": f"# Note {i}\n\nA plain note number {i} about filing papers.\n"
                          for i in range(30)}}
    root = write_tree(tmp_path / "notes", notes)
    index = Path(sift_env["SIFT_HOME"]) / "index.db"
    worker = consumer()
    assert run_ingest(sift_env, "enqueue", str(root), "--name", "notes").returncode == 0
    conn = db.connect(index, readonly=True) if index.exists() else None
    while conn is None:
        time.sleep(0.2)
        conn = db.connect(index, readonly=True) if index.exists() else None
    old = wait_published(conn, "notes", None, worker.proc, limit=600)
    assert model_of(conn, old) == first
    worker.stop()

    switched = {**sift_env, "SIFT_MODEL": str(other_model_path)}
    monkeypatch.setenv("SIFT_MODEL", str(other_model_path))  # this process (the reader) is configured with M2 too
    log: list = []
    engine = Engine(index, recording_loader(log))
    # held at publish until the looks below are done (600 s: a hang guard); held 25 s, the publish could commit
    # while a loaded machine still ran `ingest stats`, which then saw no re-embedding
    release = tmp_path / "release-publish"
    held = Consumer({**switched, "SIFT_FAULT_PAUSE_PUBLISH": "600", "SIFT_FAULT_RELEASE_PUBLISH": str(release)}, 2,
                    tmp_path / "switched.log")
    try:
        assert run_ingest(switched, "enqueue", str(root), "--name", "notes").returncode == 0
        during = 0
        while b"SIFT_FAULT_PAUSE_PUBLISH" not in (tmp_path / "switched.log").read_bytes():
            assert held.proc.poll() is None, "the consumer died"
            during += search_everything(engine, conn, log, expect=(old, first))
            time.sleep(0.3)
        # held inside the publish transaction: every M2 vector is written, none is visible yet
        during += search_everything(engine, conn, log, expect=(old, first))
        stats = run_ingest(switched, "stats")
        assert f"re-embedding {len(notes)} chunks with {second}; search answers with {first}" in stats.stdout
        release.touch()
        new = wait_published(conn, "notes", old, held.proc, limit=600)
    finally:
        held.stop()
    assert during >= 2 * len(QUERIES), "searches ran while the new generation was being built"
    assert model_of(conn, new) == second
    with db.snapshot(conn):
        visible, with_m2 = conn.execute(
            "SELECT count(*), count(v.vec) FROM chunks ch JOIN files f ON f.id = ch.file JOIN collections c "
            "ON c.id = f.collection LEFT JOIN vectors v ON v.text_hash = ch.text_hash AND v.model = ? "
            "WHERE f.gen_from <= c.published AND (f.gen_to IS NULL OR f.gen_to > c.published)",
            (second,)).fetchone()
        assert visible == with_m2 >= len(notes), "every visible chunk has a vector of the new model"
        assert conn.execute("SELECT count(*) FROM vectors WHERE model = ?", (first,)).fetchone()[0] == 0
    before = len(log)
    search_everything(engine, conn, log, expect=(new, second))
    assert {m for m, _, _, _ in log[before:]} == {second}


def search_everything(engine: Engine, conn, log: list, expect: tuple[int, str]) -> int:
    """Semantic and keyword searches; each must come from generation ``expect[0]`` with model ``expect[1]``."""
    generation, model_id = expect
    for query, path in QUERIES.items():
        before = len(log)
        semantic = engine.search(query, mode="semantic", limit=3)
        assert semantic.generations == {"notes": generation} and semantic.models == [model_id]
        assert semantic.hits[0].path == path and {h.generation for h in semantic.hits} == {generation}
        assert_within_one_model(conn, semantic, before, log)
    keyword = engine.search("spaghetti garlic", mode="keyword")
    assert keyword.generations == {"notes": generation} and keyword.hits[0].path == "food/pasta.md"
    return len(QUERIES)


def test_a_build_begun_with_the_old_model_finishes_with_it(immediate, tmp_path, model_path, other_model_path,
                                                           monkeypatch):
    """Jobs of a generation begun with M1 that run after the worker was restarted with M2 count and embed with
    M1 (found by its id in the models table), so the generation never mixes two models' vectors."""
    from search.index import store
    from workers import runtime, tasks
    first, second = read_model_info(model_path).model_id, read_model_info(other_model_path).model_id
    root = write_tree(tmp_path / "notes", TOPICS)
    conn = runtime.index()
    collection = store.ensure_collection(conn, "notes", str(root))
    store.remember_model(conn, first, str(model_path))  # what discover does when it begins a generation
    gen = store.begin_generation(conn, collection["id"], first)
    store.record_plan(conn, gen, collection["id"], dict.fromkeys(TOPICS, "added"), {}, len(TOPICS))
    use_model(monkeypatch, other_model_path)  # the worker restarts with M2 before the queued jobs run
    conn = runtime.index()
    tasks.parse(tasks.Batch(gen, collection["id"], sorted(TOPICS)))
    assert store.try_publish(conn, gen) and collection_reads.published_model(conn, collection["id"]) == first
    rows = conn.execute("SELECT ch.text, ch.tokens, (SELECT group_concat(model) FROM vectors v "
                        "WHERE v.text_hash = ch.text_hash) AS models FROM chunks ch").fetchall()
    assert len(rows) == len(TOPICS) and all(r["models"] == first for r in rows), "only M1 vectors"
    assert second not in runtime._shared.get("others", {}) and runtime.embedder().info.model_id == second
    engine = Engine(Path(os.environ["SIFT_HOME"]) / "index.db", recording_loader([]))
    assert engine.search("cooking noodles", mode="semantic").models == [first]


def test_a_freed_note_is_embedded_again_from_its_stored_passages_for_a_new_model(
        immediate, tmp_path, model_path, other_model_path, monkeypatch):
    """A note iCloud freed to a placeholder is not on this disk: a new model read every file again and the freed one
    failed 'not downloaded to this disk', its passages left without a vector of the new model, found by their words
    alone. Its passages' texts are in the index: they are embedded from there, and the note answers by meaning."""
    from search.index import progress_reads
    from workers import runtime, tasks
    first, second = read_model_info(model_path).model_id, read_model_info(other_model_path).model_id
    root = write_tree(tmp_path / "notes", TOPICS).resolve()
    collection = ingest(root)["id"]
    (root / "music/guitar.md").unlink()
    (root / "music/.guitar.md.icloud").write_bytes(b"bplist00\x00")
    use_model(monkeypatch, other_model_path)
    tasks.discover(collection)
    conn = runtime.index()
    published = collection_reads.get_collection(conn, collection)["published"]
    assert model_of(conn, published) == second
    assert [dict(row) for row in progress_reads.troubled(conn, published)] == []
    vectors = conn.execute("SELECT f.path, count(v.vec) FROM files f JOIN chunks ch ON ch.file = f.id LEFT JOIN "
                           "vectors v ON v.text_hash = ch.text_hash AND v.model = ? WHERE f.gen_from <= ? AND "
                           "(f.gen_to IS NULL OR f.gen_to > ?) AND f.collection = ? GROUP BY f.path",
                           (second, published, published, collection)).fetchall()
    assert dict(vectors)["music/guitar.md"] == 1 and all(n for _, n in vectors), [tuple(v) for v in vectors]
    log: list = []
    engine = Engine(Path(os.environ["SIFT_HOME"]) / "index.db", recording_loader(log))
    answer = engine.search("a stringed instrument on stage", mode="semantic")
    assert answer.models == [second] and answer.hits[0].path == "music/guitar.md", [h.path for h in answer.hits]
    assert_within_one_model(conn, answer, 0, log)
    from ingest.chunk import text_hash
    from workers import freed_passages
    texts: dict = {}
    freed_passages.stored_rows(conn, freed_passages.indexed_version(conn, collection, "music/guitar.md"), texts)
    assert all(text_hash(text) == digest for digest, text in texts.items()), "embedded as it was when read"
    assert first != second


def test_a_freed_notes_version_written_again_twice_by_one_build_is_kept(tmp_path):
    """A parse run again after its write (a job retried, or requeued for lost) hands on, for a freed note, the copy
    this generation wrote of it: the write retired that copy (deleting it, as its own) and then read it to copy it,
    failing on a row gone, the batch with it. The copy is kept as written."""
    from search.index import store
    conn = db.connect(tmp_path / "index.db")
    collection = store.ensure_collection(conn, "notes", str(tmp_path))["id"]
    gen = store.begin_generation(conn, collection, None)
    store.record_plan(conn, gen, collection, {"a.md": "added"}, {}, 0)
    store.write_files(conn, gen, collection, [(store.FileVersion("a.md", "note", 1, time.time(), "a" * 8, ""),
                                               [store.ChunkRow(0, "", "a guitar on stage", 3, "h" * 8)])], None, {}, {})
    assert store.publish_now(conn, gen)
    build = store.begin_generation(conn, collection, None)
    store.record_plan(conn, build, collection, {"a.md": "modified"}, {}, 0)

    def current():
        return conn.execute("SELECT id FROM files WHERE path = 'a.md' AND gen_to IS NULL").fetchone()[0]
    store.write_files(conn, build, collection, [], None, {}, {}, {"a.md": current()})
    copy = current()
    store.write_files(conn, build, collection, [], None, {}, {}, {"a.md": copy})  # the parse's repeat
    assert current() == copy
    assert [r[0] for r in conn.execute("SELECT text FROM chunks WHERE file = ?", (copy,))] == ["a guitar on stage"]
    conn.close()


def test_the_mcp_servers_models_follow_the_index(immediate, tmp_path, model_path, other_model_path, monkeypatch):
    """sift-mcp's ModelState loads the model the index answers with (found by id) and the configured one,
    and its engine embeds queries with the index's model; stats name both."""
    from mcp_server import report
    from mcp_server.model_state import ModelState
    first, second = read_model_info(model_path).model_id, read_model_info(other_model_path).model_id
    ingest(write_tree(tmp_path / "notes", TOPICS))
    use_model(monkeypatch, other_model_path)
    state = ModelState(load())
    state.start()
    assert state.get(first).info.model_id == first and state.get().info.model_id == second
    described = state.describe()
    assert described["state"] == "ready" and [m["id"] for m in described["models"]] == sorted([first, second])
    engine = Engine(Path(os.environ["SIFT_HOME"]) / "index.db", state.get)
    answer = engine.search("cooking noodles", mode="semantic")
    assert answer.models == [first] and answer.hits[0].path == "food/pasta.md"
    line = "\n".join(report._model_lines({**described, "index_models": [first],
                               "reembedding": [f"notes: re-embedding 8 chunks with {second}; search answers with "
                                               f"{first} until it is published"]}))
    assert first in line and second in line and "re-embedding 8 chunks" in line


def test_after_a_switch_publishes_the_server_lets_go_of_the_old_model(immediate, tmp_path, model_path,
                                                                      other_model_path, monkeypatch):
    """sift-mcp (its ModelState and engine, wired as the server wires them) holds M1 while generation 1 answers;
    once the re-embedding with M2 is published, nothing holds M1's Embedder any more (0.4 GB for e5), and
    searches answer with M2."""
    from mcp_server.service import Sift
    first, second = read_model_info(model_path).model_id, read_model_info(other_model_path).model_id
    root = write_tree(tmp_path / "notes", TOPICS)
    ingest(root)
    use_model(monkeypatch, other_model_path)
    sift = Sift(load())
    sift.model.start()
    engine = sift.engine()
    answer = engine.search("cooking noodles", mode="semantic")
    assert answer.models == [first] and answer.hits[0].path == "food/pasta.md"
    old = weakref.ref(sift.model.get(first))
    sift.model.get()  # the startup loading goes on to the configured model once the index's is loaded: wait for it
    assert [m["id"] for m in sift.model.describe()["models"]] == sorted([first, second])

    ingest(root)  # re-embedded with M2 in this process (immediate mode) and published
    conn = db.connect(Path(os.environ["SIFT_HOME"]) / "index.db", readonly=True)
    assert model_of(conn, conn.execute("SELECT published FROM collections").fetchone()[0]) == second
    keyword = engine.search("spaghetti garlic", mode="keyword")  # any search notices the publish
    assert keyword.hits[0].path == "food/pasta.md"
    gc.collect()
    assert old() is None, "the old model's Embedder is still held after the switch was published"
    assert [m["id"] for m in sift.model.describe()["models"]] == [second]
    answer = engine.search("cooking noodles", mode="semantic")
    assert answer.models == [second] and answer.hits[0].path == "food/pasta.md"


def test_a_model_no_longer_published_while_the_server_starts_is_let_go_once_it_has_loaded(
        immediate, tmp_path, model_path, other_model_path, monkeypatch):
    """The engine may say which models the index uses before the startup loading is done (it loads the models
    it read from the index then): what it said is applied once the loading is done."""
    from mcp_server.model_state import ModelState
    first, second = read_model_info(model_path).model_id, read_model_info(other_model_path).model_id
    ingest(write_tree(tmp_path / "notes", TOPICS))  # published with M1: the startup loads M1 and M2
    use_model(monkeypatch, other_model_path)
    state = ModelState(load())
    state.keep_only([second])  # told before it started: nothing to let go of yet, nothing lost
    state.start()
    assert state.get().info.model_id == second
    assert [m["id"] for m in state.describe()["models"]] == [second], f"{first} is still held"


def started(log: Path, proc) -> None:
    """Wait until the consumer writing ``log`` has started (its checks done, its model recorded)."""
    while not (log.exists() and b"Huey consumer started" in log.read_bytes()):
        assert proc.poll() is None, log.read_text()
        time.sleep(0.1)


@pytest.mark.timeout(600)
def test_two_workers_with_different_models_do_not_re_embed_each_others_collections(
        immediate, sift_env, tmp_path, model_path, other_model_path):
    """Two sift-mcp servers whose clients set different SIFT_MODELs run a worker each on one home: each scan
    one of them took re-embedded every file with its own model, back and forth. A worker now keeps a collection's
    published model while a worker of that model runs (the one with M1 is stopped here, so that the one with M2
    takes the scan), and stats names both models."""
    root = write_tree(tmp_path / "notes", TOPICS)
    ingest(root)
    from workers import runtime
    runtime.reset()
    first, second = read_model_info(model_path).model_id, read_model_info(other_model_path).model_id
    one = Consumer(sift_env, 1, tmp_path / "one.log")
    two = Consumer({**sift_env, "SIFT_MODEL": str(other_model_path)}, 1, tmp_path / "two.log")
    conn = db.connect(Path(sift_env["SIFT_HOME"]) / "index.db", readonly=True)
    try:
        started(tmp_path / "one.log", one.proc)
        started(tmp_path / "two.log", two.proc)
        home = Path(sift_env["SIFT_HOME"])
        stop_holding_no_write_lock(one, [home / "index.db", home / "queue.db"])  # at work by its record, but the
        before = conn.execute("SELECT published FROM collections WHERE name = 'notes'").fetchone()[0]  # other scans
        (root / "food" / "pasta.md").write_text("# Pasta\n\nBoil the penne for eleven minutes.\n")
        enqueued = run_ingest(sift_env, "enqueue", str(root), "--name", "notes")
        assert enqueued.returncode == 0, enqueued.stderr
        after = wait_published(conn, "notes", before, two.proc, limit=300)
        assert model_of(conn, after) == first, "kept with the model the other worker embeds with"
        assert "kept with the model" in (tmp_path / "two.log").read_text()
        stats = run_ingest(sift_env, "stats").stdout
        assert "workers with different models are at work" in stats and first in stats and second in stats
    finally:
        os.killpg(one.proc.pid, signal.SIGCONT)
        one.stop()
        two.stop()
