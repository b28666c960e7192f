"""A big file does not hold back its collection's later edits: a file with more than SIFT_BACKGROUND_CHUNKS chunks
to embed is embedded in the background, outside its collection's build (workers.tasks.embed_in_background); the
build publishes the other files, an edit made meanwhile is published by a build of its own, and the big file
follows in a build that finds its vectors cached, the edit staying at its newest version.

Real SQLite, the session's MiniLM: huey's immediate mode for what happens in order, a real ``huey_consumer`` (two
workers) for the edit published while the big file is being embedded. Nothing asserts on speed: waits poll
with a deadline that is only a safety net."""
from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest

from search.index import collection_reads, db, file_reads, generation_reads, progress_reads, work_reads, working
from search.query.engine import Engine
from tests.conftest import REPO, VENV_BIN, Consumer, ingest, run_ingest, run_ingest_here, write_tree

DEADLINE = 900.0  # seconds: a safety net against a hung test, not a speed assertion


def big_note(sections: int, word: str = "walrus") -> str:
    return "".join(f"# Part {i}\n\nParagraph {i} of the long log, about {word} number {i} and its travels.\n\n"
                   for i in range(sections))


def paths(index: Path, word: str) -> set[str]:
    """Files whose published chunks hold ``word`` (keyword search, as a client searches)."""
    return {hit.path for hit in Engine(index).search(word, limit=50, mode="keyword").hits}


def embedded_in(conn, gen: int) -> int:
    return conn.execute("SELECT coalesce(sum(embedded), 0) FROM progress WHERE generation = ?", (gen,)).fetchone()[0]


def handed_on(tmp_path, monkeypatch):
    """A published collection of one small note, and big.md added, with the row a chunk stage leaves for its job
    (token 1.0) while that job waits in the queue, as no worker has taken it yet (in immediate mode a job runs as
    it is queued, so the test writes the row itself). Returns (the collection's report, the connection, the root,
    big.md's path)."""
    from search.index import store
    from search.index.remembered import Basis
    from workers import runtime, tasks
    monkeypatch.setenv("SIFT_BACKGROUND_CHUNKS", "10")
    root = write_tree(tmp_path / "notes", {"small.md": "# Small\n\nThe pelican sings.\n"})
    report = ingest(root)
    conn = runtime.index()
    big = root / "big.md"
    big.write_text(big_note(40))
    st = big.stat()
    basis = Basis(st.st_size, st.st_mtime, st.st_ctime, tasks._settings_print(runtime.model_id(), "big.md"))
    store.begin_background(conn, report["id"], "big.md", basis, st.st_size, 40, 1.0)
    return report, conn, root, big


COPPER = "# Kitchen\n\nThe copper kettle whistles on the stove.\n"  # a word of one passage: BM25 ranks by it


def vectors_of(conn, path: str) -> list[tuple]:
    """(model, text hash, vector) of the cached vectors of the chunks of ``path``'s current version."""
    return conn.execute("SELECT DISTINCT v.model, v.text_hash, v.vec FROM files f JOIN chunks ch ON ch.file = f.id "
                        "JOIN vectors v ON v.text_hash = ch.text_hash WHERE f.path = ? AND f.gen_to IS NULL",
                        (path,)).fetchall()


def test_a_big_file_is_searchable_by_keyword_at_once_and_by_meaning_after_its_job(immediate, sift_env, tmp_path,
                                                                                  monkeypatch, embedder, capsys):
    """The build that hands a big file to the background writes its passages without their vectors: its words
    are searchable at once (it was not searchable at all until its job and its own build were done), semantic
    search leaves it out and hybrid finds it by its words meanwhile; the scan the finished job asks for writes it
    again, every vector cached, and semantic search finds it."""
    from workers import runtime, tasks
    monkeypatch.setenv("SIFT_BACKGROUND_CHUNKS", "10")
    root = write_tree(tmp_path / "notes", {"big.md": big_note(40) + COPPER, "small.md": "# Small\n\nThe pelican sings.\n"})
    index = Path(sift_env["SIFT_HOME"]) / "index.db"
    report = ingest(root)
    first = report["published"]["id"]
    assert paths(index, "pelican") == {"small.md"}
    assert paths(index, "copper") == {"big.md"}, "its words are searchable in the build that handed it on"
    conn = runtime.index()
    # in immediate mode its job has run to its end as it was queued: its vectors are taken out of the cache, as
    # before the job embeds them, and put back, as the job does, once a search has read the published rows
    held = vectors_of(conn, "big.md")
    conn.executemany("DELETE FROM vectors WHERE model = ? AND text_hash = ?", [row[:2] for row in held])
    engine = Engine(index, lambda: embedder)
    assert {h.path for h in engine.search("walrus travels", limit=50, mode="semantic").hits} == {"small.md"}, \
        "no vector of it yet: semantic search leaves it out"
    assert "big.md" in {h.path for h in engine.search("copper kettle", limit=50, mode="hybrid").hits}, \
        "hybrid search finds it by its words"
    from search.query.engine import SearchError
    with pytest.raises(SearchError, match="no stored vector in the published index yet: .* its file's "
                                          "embedding in the background is done"):  # it said: wait for a build
        engine.similar(path=(report["name"], "big.md"))
    conn.executemany("INSERT INTO vectors(model, text_hash, vec) VALUES (?, ?, ?)", held)
    written = {r["path"]: r for r in progress_reads.progress_rows(conn, first)}["big.md"]
    assert (written["stage"], written["state"], written["embedded"]) == ("write", "done", 0), dict(written)
    [c] = json.loads(run_ingest_here(capsys, "stats", "--json").stdout)["collections"]
    assert c["published"]["failures"] == [], "in the background, not among the generation's failures or skipped"
    [aside] = c["background"]
    assert (aside["path"], aside["state"], aside["done"], aside["words"]) == ("big.md", "done", aside["total"], True)
    said = run_ingest_here(capsys, "stats").stdout
    assert f"in the background: big.md: its {aside['total']:,} chunks are embedded; searchable by keyword; by " \
           "meaning once the scan its job asked for has read it" in said, said
    assert "failed or skipped" not in said, said

    collection = collection_reads.get_collection(conn, report["id"])
    tasks.discover(collection["id"])  # the scan the finished job asked for (remembered: the build was under way)
    second = collection_reads.get_collection(conn, report["id"])["published"]
    assert second > first, "the file unchanged since its words were published is read again for its vectors"
    assert paths(index, "walrus") == {"big.md"} and paths(index, "pelican") == {"small.md"}
    assert "big.md" in {h.path for h in engine.search("walrus travels", limit=50, mode="semantic").hits}, \
        "its vectors join once its build reads it, also for an engine that read its rows before them"
    assert embedded_in(conn, second) == 0, "its build found every vector cached"
    assert work_reads.background(conn, collection["id"]) == [], "the row goes once a build reads the file"
    assert "in the background" not in run_ingest_here(capsys, "stats").stdout
    tasks.discover(collection["id"])
    assert collection_reads.get_collection(conn, report["id"])["published"] == second, "and it is not read again"


def test_a_build_with_a_new_model_keeps_the_big_file_in_it(immediate, sift_env, tmp_path, monkeypatch,
                                                           other_model_path):
    """A model change re-embeds every file and publishes them with the new model at once: a big file left to the
    background would be searched by its earlier version, whose vectors are the old model's. It stays in the build."""
    from workers import runtime, tasks
    monkeypatch.setenv("SIFT_BACKGROUND_CHUNKS", "10")
    root = write_tree(tmp_path / "notes", {"big.md": big_note(40), "small.md": "# Small\n\nThe pelican sings.\n"})
    report = ingest(root)
    tasks.discover(report["id"])  # the scan the background job asked for: big.md published
    assert paths(Path(sift_env["SIFT_HOME"]) / "index.db", "walrus") == {"big.md"}
    monkeypatch.setenv("SIFT_MODEL", str(other_model_path))
    runtime.reset()
    conn = runtime.index()
    tasks.discover(report["id"])
    gen = collection_reads.get_collection(conn, report["id"])["published"]
    rows = {r["path"]: r for r in progress_reads.progress_rows(conn, gen)}
    assert (rows["big.md"]["stage"], rows["big.md"]["state"], rows["big.md"]["embedded"]) == ("write", "done", 40)
    assert work_reads.background(conn, report["id"]) == []
    assert collection_reads.published_model(conn, report["id"]) == runtime.model_id()


def test_a_scan_while_the_big_file_is_embedded_leaves_it_to_its_job(immediate, sift_env, tmp_path, monkeypatch):
    """A scan that finds the big file as its job took it does not read it again (skipped as before, with the
    reason): one that finds it changed reads it and hands it on again, and the older job stops."""
    from search.index import store
    from workers import tasks
    report, conn, root, big = handed_on(tmp_path, monkeypatch)
    (root / "small.md").write_text("# Small\n\nThe heron sings.\n")
    tasks.discover(report["id"])
    gen = collection_reads.get_collection(conn, report["id"])["published"]
    assert paths(Path(sift_env["SIFT_HOME"]) / "index.db", "heron") == {"small.md"}
    rows = {r["path"]: r for r in progress_reads.progress_rows(conn, gen)}
    assert (rows["big.md"]["stage"], rows["big.md"]["state"], rows["big.md"]["change"]) == \
        ("chunk", "skipped", "as before"), dict(rows["big.md"])
    [row] = work_reads.background(conn, report["id"])
    assert row["since"] == 1.0, "left to its job"

    big.write_text(big_note(41))  # changed while its job waits: read again, and handed on again
    tasks.discover(report["id"])
    [row] = work_reads.background(conn, report["id"])
    assert row["since"] != 1.0 and row["done"] == row["total"], dict(row)
    assert not store.background_progress(conn, report["id"], "big.md", 1.0, 5, os.getpid()), \
        "the older job is no longer wanted"


def test_a_big_file_renamed_while_its_job_waits_stops_that_job(immediate, sift_env, tmp_path, monkeypatch):
    """The watcher's scan of the paths a rename touched (the old name gone, the new one added) hands the file on
    again under its new name, and the job of the old name stops: kept, it went on embedding a file that is no
    longer there, holding a worker beside the new job, and its row stayed until a walk of the whole collection."""
    from search.index import store
    from workers import tasks
    report, conn, root, big = handed_on(tmp_path, monkeypatch)
    for i in range(4):  # a collection of more files than the scan names: it reads the named paths alone
        (root / f"other{i}.md").write_text(f"# Other {i}\n\nThe gannet number {i}.\n")
    tasks.discover(report["id"])
    assert [r["since"] for r in work_reads.background(conn, report["id"])] == [1.0], "left to its job"
    big.rename(root / "moved.md")
    tasks.discover(report["id"], paths=["big.md", "moved.md"])
    assert [r["path"] for r in work_reads.background(conn, report["id"])] == ["moved.md"], \
        [dict(r) for r in work_reads.background(conn, report["id"])]
    assert not store.background_progress(conn, report["id"], "big.md", 1.0, 5, os.getpid()), \
        "the job of the old name is no longer wanted"


def test_a_job_looks_up_its_cached_chunks_once(immediate, sift_env, tmp_path, monkeypatch):
    """The job asks the vector cache which of its chunks it holds once, not once per chunk: asked per chunk, a
    note of 3,540 chunks made 3,540 lookups of 3,540 hashes each before embedding anything (7 s in memory; a
    minute for 10,000 chunks), at every start and retry of the job."""
    from workers import runtime, tasks
    report, conn, _, _ = handed_on(tmp_path, monkeypatch)
    texts = {f"{i:064x}": f"passage: the walrus number {i}" for i in range(40)}
    lookups = []
    conn.set_trace_callback(lambda sql: lookups.append(sql) if "SELECT text_hash FROM vectors" in sql else None)
    try:
        tasks.embed_in_background(tasks.Background(report["id"], "big.md", runtime.model_id(), texts, 1.0))
    finally:
        conn.set_trace_callback(None)
    assert 0 < len(lookups) < len(texts), f"{len(lookups)} lookups of the cache for a job of {len(texts)} chunks"
    assert conn.execute("SELECT count(*) FROM vectors WHERE text_hash IN (%s)" % ",".join("?" * len(texts)),
                        list(texts)).fetchone()[0] == len(texts), "the job embedded its chunks"


def test_a_job_lost_with_its_worker_is_handed_on_again(immediate, sift_env, tmp_path, monkeypatch, capsys):
    """A row whose worker died (killed mid-job) holds nothing back: the periodic rescan finds its collection due,
    and the scan reads the file again."""
    from search.index import store
    from workers import rescan, tasks
    report, conn, _, _ = handed_on(tmp_path, monkeypatch)
    dead = os.fork()
    if dead == 0:
        os._exit(0)
    os.waitpid(dead, 0)
    assert store.background_progress(conn, report["id"], "big.md", 1.0, 7, dead)
    assert report["id"] in rescan.due(conn, 3600.0), "its collection is due for a scan"
    assert "its worker stopped after 7 of 40 chunks" in run_ingest_here(capsys, "stats").stdout
    tasks.discover(report["id"])  # reads big.md again: handed on again, and (immediate mode) embedded at once
    [row] = work_reads.background(conn, report["id"])
    assert row["since"] != 1.0 and row["done"] == row["total"], dict(row)
    tasks.discover(report["id"])
    assert paths(Path(sift_env["SIFT_HOME"]) / "index.db", "walrus") == {"big.md"}


def test_a_starting_consumer_hands_on_again_a_job_that_no_queue_holds(immediate, sift_env, tmp_path, monkeypatch):
    """A job lost with the queue (or with its worker, whose pid may name another process after a reboot): the
    consumer that starts forgets its row and scans the collection, which hands the file on again."""
    from workers import recover
    report, conn, _, _ = handed_on(tmp_path, monkeypatch)  # its job waits in no queue
    recover.resume(immediate)
    [row] = work_reads.background(conn, report["id"])
    assert row["since"] != 1.0 and row["done"] == row["total"], dict(row)


def test_a_starting_consumer_keeps_the_lost_jobs_vectors_until_its_scan(immediate, sift_env, tmp_path, monkeypatch):
    """A starting consumer queues a scan for a job no queue holds; until that scan's build is under way, the clean-up
    of unused vectors (another collection's publish, which may run first) must not drop the vectors the lost job
    kept: the file's new job goes on from them, as the README says, instead of embedding them again."""
    from search.index import store
    from workers import recover, runtime
    report, conn, _, _ = handed_on(tmp_path, monkeypatch)
    kept = {f"{i:064x}": bytes(16) for i in range(3)}  # what the lost job embedded before the consumer died
    assert store.background_progress(conn, report["id"], "big.md", 1.0, 3, os.getpid(), runtime.model_id(), kept)
    immediate.immediate = False  # the scan waits in the queue, as it does behind a consumer's start
    try:
        recover.resume(immediate)
        store.drop_unused_vectors(conn)  # another collection's publish, run before the queued scan
    finally:
        immediate.storage.flush_queue()  # the scan resume queued: none runs in this test
        immediate.immediate = True
    left = {r[0] for r in conn.execute("SELECT text_hash FROM vectors WHERE model = ?", (runtime.model_id(),))}
    assert set(kept) <= left, "the lost job's vectors were dropped before its file was handed on again"
    [row] = work_reads.background(conn, report["id"])
    assert not working.alive(row["pid"]), "the row says its job stopped: the scan hands the file on again"


def test_a_starting_consumer_tells_a_queued_older_job_from_the_rows_own(immediate, sift_env, tmp_path, monkeypatch):
    """A job the queue holds for an older version of the file (its row since taken by a later hand-off, whose own
    job was lost: a chunk stage retried, then the consumer killed before it queued the new job) does not stand for
    the row's: that older job stops at once (its token no longer matches), and the row, left 'waiting', held the
    file skipped at every scan and the clean-up of unused vectors off, for good."""
    from workers import recover, tasks
    report, conn, _, _ = handed_on(tmp_path, monkeypatch)  # the row's token: 1.0, its job in no queue
    immediate.immediate = False
    try:
        tasks.embed_in_background(tasks.Background(report["id"], "big.md", "m", {"a" * 64: "passage: x"}, 0.5))
        assert any(isinstance(t.args[0], tasks.Background) for t in immediate.pending() if t.args)
        recover.resume(immediate)
    finally:
        immediate.storage.flush_queue()  # the jobs resume queued: none runs in this test
        immediate.immediate = True
    [row] = work_reads.background(conn, report["id"])
    assert row["since"] == 1.0 and row["pid"] is not None and not working.alive(row["pid"]), \
        f"the row's own job is lost, though an older job of the file is queued: {dict(row)}"


def big_note_queued(sift_env, tmp_path, files: dict[str, str], capsys):
    """A real consumer (two workers, SIFT_BACKGROUND_CHUNKS=50) that has published ``files``, then big.md written
    as a note of 100 chunks and a scan of it queued; its background job, a slice of 32 embedded, holds at its
    next slice until the test removes the file ``held`` (SIFT_FAULT_HOLD_FOR_STOP, workers.halt), so the edit
    publishes, or the kill lands, while it is surely at work on a machine of any speed. Before the hold, 3,000
    chunks raced against the edit or the kill: 207 and 176 s at load 9. Returns (env, root, index, consumer,
    connection, held)."""
    held = tmp_path / "held"
    env = {**sift_env, "SIFT_BACKGROUND_CHUNKS": "50"}
    root = write_tree(tmp_path / "notes", files)
    index = Path(sift_env["SIFT_HOME"]) / "index.db"
    worker = Consumer({**env, "SIFT_FAULT_HOLD_FOR_STOP": str(held)}, 2, tmp_path / "consumer.log")
    assert run_ingest_here(capsys, "enqueue", str(root), "--name", "notes", "--wait", env=env).returncode == 0
    (root / "big.md").write_text(big_note(100, "narwhal"))
    assert run_ingest_here(capsys, "enqueue", str(root), "--name", "notes", env=env).returncode == 0
    conn = db.connect(index)
    poll(lambda: held.exists() or (paths(index, "narwhal") and by_meaning(conn, "big.md")), worker,
         "the big file being embedded")
    assert held.exists(), "the big file was embedded without a slice to hold at"
    return env, root, index, worker, conn, held


@pytest.mark.slow
def test_an_edit_is_published_while_a_big_file_of_its_collection_is_embedded(sift_env, tmp_path, capsys):
    """The measure of the change: with a real consumer, an edit made while a big file of the same collection is
    being embedded is searchable before that file is, and stays at its newest version once the file is."""
    small = {"small.md": "# Small\n\nThe pelican sings.\n"}
    env, root, index, worker, conn, held = big_note_queued(sift_env, tmp_path, small, capsys)
    try:
        assert embedding_big(conn)
        (root / "small.md").write_text("# Small\n\nThe heron sings.\n")
        assert run_ingest_here(capsys, "enqueue", str(root), "--name", "notes", env=env).returncode == 0
        poll(lambda: paths(index, "heron") == {"small.md"}, worker, "the edit searchable")
        assert paths(index, "narwhal") == {"big.md"}, "the big file is searchable by its words already"
        assert paths(index, "pelican") == set()
        [row] = work_reads.background(conn)
        assert row["done"] < row["total"], "the edit was published while the big file was still being embedded"
        said = run_ingest_here(capsys, "stats", env=env).stdout
        assert "in the background: embedding big.md" in said and "searchable by keyword; by meaning when" in said, said
        held.unlink()  # the big file's job goes on to its end
        poll(lambda: by_meaning(conn, "big.md"), worker, "the big file searchable by meaning")
        assert paths(index, "heron") == {"small.md"} and paths(index, "pelican") == set(), \
            "the edit is still the newest version"
    finally:
        worker.stop()


@pytest.mark.slow
def test_a_consumer_killed_during_the_background_embedding_leaves_the_index_whole(sift_env, tmp_path, capsys):
    """SIGKILL of the whole consumer while the big file is embedded in the background: searches answer from the
    published generation as before (the big file's earlier version, the other files); the consumer started again
    hands the file on again, with only the chunks the killed job had not kept, and publishes it."""
    import signal
    env, _, index, worker, conn, held = big_note_queued(sift_env, tmp_path, {
        "small.md": "# Small\n\nThe pelican sings at dawn.\n", "big.md": "# Big\n\nThe walrus was here first.\n"},
        capsys)
    try:
        poll(lambda: paths(index, "narwhal"), worker, "its words published")
        [first] = work_reads.background(conn)
        assert first["done"] > 0, "a slice embedded and kept before the kill"
        os.killpg(worker.proc.pid, signal.SIGKILL)
        worker.proc.wait()
        assert paths(index, "walrus") == set() and paths(index, "pelican") == {"small.md"}
        assert paths(index, "narwhal") == {"big.md"}, "its new version's words, published before the kill, stay"
        worker.stop()
        held.unlink()
        # held again once handed on, a slice embedded: the test sees the new job's row before it ends
        worker = Consumer({**env, "SIFT_FAULT_HOLD_FOR_STOP": str(held)}, 2, tmp_path / "consumer-2.log")
        poll(lambda: held.exists() or by_meaning(conn, "big.md"), worker, "the big file handed on again")
        assert held.exists(), "the big file was embedded again without a slice to hold at"
        [again] = work_reads.background(conn)
        assert again["since"] != first["since"], "the big file handed on again"
        assert again["total"] <= first["total"] - first["done"], "the chunks the killed job kept are not embedded again"
        held.unlink()
        poll(lambda: by_meaning(conn, "big.md"), worker, "the big file searchable by meaning")
        assert paths(index, "walrus") == set() and paths(index, "pelican") == {"small.md"}
    finally:
        worker.stop()


def embedding_big(conn) -> bool:
    """Some of big.md's chunks are embedded, by a job of its build (``working``) or in the background while no
    build of the collection is under way."""
    building = generation_reads.building_generation(conn, 1)
    if building is not None:
        return any(w["path"] == "big.md" and w["stage"] == "embed" and w["done"]
                   for w in working.slow(conn, building["id"]))
    return any(r["done"] > 0 for r in work_reads.background(conn))


def poll(check, worker, what: str):
    deadline = time.time() + DEADLINE
    while time.time() < deadline:
        if check():
            return
        if worker.proc.poll() is not None:
            raise AssertionError(f"the consumer exited while waiting for {what}")
        time.sleep(0.2)
    raise AssertionError(f"timed out waiting for {what}")


def vectored(conn, path: str) -> bool:
    """Whether the current version of ``path`` is written and every chunk of it has a vector."""
    return conn.execute("SELECT count(*) > 0 AND count(*) = count(v.text_hash) FROM files f "
                        "JOIN chunks ch ON ch.file = f.id LEFT JOIN vectors v ON v.text_hash = ch.text_hash "
                        "WHERE f.path = ? AND f.gen_to IS NULL", (path,)).fetchone()[0] == 1


def by_meaning(conn, path: str) -> bool:
    """Whether the file's own build has written ``path`` with its vectors: no background row, no build under way,
    and a vector for every chunk of its current version."""
    return not work_reads.background(conn) and generation_reads.building_generation(conn, 1) is None and \
        vectored(conn, path)


def embedding_now(conn, collection_id: int, done: int) -> None:
    """big.md's job (whichever token it holds) at ``done`` chunks, its worker this live process: as a worker shows
    it mid-job (in immediate mode the job has run to its end as it was queued)."""
    from search.index import store
    [row] = work_reads.background(conn, collection_id)
    assert store.background_progress(conn, collection_id, "big.md", row["since"], done, os.getpid())


def test_a_big_file_in_the_background_is_pending_in_freshness_and_listing(immediate, sift_env, tmp_path, monkeypatch,
                                                                         servers, capsys):
    """While a big file is embedded in the background, search's freshness line (MCP) said the collection was 'up
    to date', and list_files (MCP and ``ingest files``) showed the file 'skipped', read as never to be indexed: both
    say it is searchable by keyword and by meaning once embedded, how far; a version its build did not write
    (handed on by hand here, as a build before keyword-first did) is pending, its earlier version answering."""
    from workers import tasks
    from tests.test_mcp_server import call, run, text
    monkeypatch.setenv("SIFT_BACKGROUND_CHUNKS", "10")
    root = write_tree(tmp_path / "notes", {"big.md": big_note(40), "small.md": "# Small\n\nThe pelican sings.\n"})
    report = ingest(root)
    conn = db.connect(Path(sift_env["SIFT_HOME"]) / "index.db")
    embedding_now(conn, report["id"], 12)

    def searched_and_listed(query: str, **listing) -> tuple[str, dict]:
        """The MCP search's text for ``query`` and list_files' data, from a real server over stdio."""
        async def scenario():
            async with servers.session(sift_env, "--no-worker") as s:
                found = await call(s, "search", query=query, mode="keyword")
                return text(found), (await call(s, "list_files", **listing)).structured_content
        return run(scenario)
    said, listed = searched_and_listed("pelican", sort="path")
    [freshness] = [line for line in said.splitlines() if line.startswith("freshness:")] or [said]
    by_words = "big.md searchable by keyword; by meaning when embedded (12 of 40 chunks)"
    assert by_words in freshness, freshness
    assert "up to date" not in freshness and "nothing being built" not in freshness, freshness
    big = next(f for f in listed["files"] if f["path"] == "notes/big.md")
    assert (big["state"], big["reason"]) == ("indexed", by_words), big
    files = run_ingest_here(capsys, "files").stdout
    assert by_words in files, files
    stats = run_ingest_here(capsys, "stats").stdout
    assert "in the background: embedding big.md" in stats and "big.md: skipped" not in stats, stats
    assert "12 of 40 chunks; searchable by keyword; by meaning when embedded" in stats, stats
    searched = run_ingest_here(capsys, "search", "pelican").stdout
    assert f"note: notes: {by_words}" in searched, searched

    embedding_now(conn, report["id"], 40)
    tasks.discover(report["id"])  # its build: published with its vectors; then a new version of it, handed on
    big_file = root / "big.md"  # by hand, its row waiting: as a build before keyword-first handed it on, unwritten
    big_file.write_text(big_note(41, "seal"))
    from search.index import store
    from search.index.remembered import Basis
    from workers import runtime
    st = big_file.stat()
    store.begin_background(conn, report["id"], "big.md", Basis(st.st_size, st.st_mtime, st.st_ctime,
                           tasks._settings_print(runtime.model_id(), "big.md")), st.st_size, 41, 2.0)
    tasks.discover(report["id"])
    embedding_now(conn, report["id"], 20)

    said, listed = searched_and_listed("walrus", glob="big.md")
    assert "notes/big.md" in said, "its earlier version answers"
    assert "(20 of 41 chunks), searchable when done (its earlier version answers meanwhile)" in said, said
    [big] = listed["files"]
    assert big["state"] == "pending" and big["reason"].endswith(" (its earlier version answers meanwhile)"), big


def test_wait_returns_once_the_big_file_is_searchable(immediate, sift_env, tmp_path, monkeypatch, capsys):
    """``ingest enqueue --wait`` returned once the build that handed a big file on was published, the file shown
    skipped: it now waits for the file's job and the build that reads it, showing the job's progress."""
    import threading
    from ingest import cli
    from workers import runtime, tasks
    monkeypatch.setenv("SIFT_BACKGROUND_CHUNKS", "10")
    root = write_tree(tmp_path / "notes", {"small.md": "# Small\n\nThe pelican sings.\n"})
    report = ingest(root)
    before, asked = report["published"]["id"], time.time()
    (root / "big.md").write_text(big_note(40))
    ingest(root)  # the build that hands big.md on, published; its job done (immediate mode), its build not yet run
    conn = runtime.index()
    embedding_now(conn, report["id"], 12)
    index = Path(sift_env["SIFT_HOME"]) / "index.db"
    returned: list[int] = []

    def wait():
        returned.append(cli._wait(db.connect(index), report["id"], before, asked, []))
    waiter = threading.Thread(target=wait, daemon=True)
    waiter.start()
    said, deadline = "", time.time() + DEADLINE
    while "12 of 40 chunks" not in said:
        assert waiter.is_alive(), f"--wait returned while big.md was embedded in the background: {said}"
        assert time.time() < deadline, said
        time.sleep(0.2)
        said += capsys.readouterr().err
    assert "in the background: embedding big.md" in said, said
    embedding_now(conn, report["id"], 40)
    tasks.discover(report["id"])  # the scan the finished job queues: its build publishes big.md
    waiter.join(DEADLINE)
    said += capsys.readouterr().err
    assert returned == [0], said
    assert paths(index, "walrus") == {"big.md"}, "searchable when --wait returns"
    assert "published generation" in said and "skipped" not in said.split("published generation")[-1], said


@pytest.mark.slow
def test_wait_with_a_real_consumer_returns_with_the_big_file_searchable(sift_env, tmp_path):
    """``ingest enqueue --wait`` on a folder with a big file, a real consumer at work: it returns once the file is
    searchable (it returned once the build that handed the file on was published, the file shown skipped), and
    says how far the file's embedding got meanwhile."""
    import subprocess
    held = tmp_path / "held"  # the big file's job, a slice embedded, holds until --wait has said so (workers.halt)
    env = {**sift_env, "SIFT_BACKGROUND_CHUNKS": "50"}
    # 100 chunks, its job held after a slice of 32: before the hold, 600 raced against --wait's polls (48 s)
    root = write_tree(tmp_path / "notes", {"small.md": "# Small\n\nThe pelican sings.\n", "big.md": big_note(100, "narwhal")})
    index = Path(sift_env["SIFT_HOME"]) / "index.db"
    worker = Consumer({**env, "SIFT_FAULT_HOLD_FOR_STOP": str(held)}, 2, tmp_path / "consumer.log")
    told = tmp_path / "wait.err"
    try:
        with open(told, "w") as err:
            waiting = subprocess.Popen([str(VENV_BIN / "ingest"), "enqueue", str(root), "--name", "notes", "--wait"],
                                       cwd=REPO, env=env, stdout=subprocess.DEVNULL, stderr=err)
        try:
            poll(lambda: (held.exists() and " of 100 chunks" in told.read_text()) or waiting.poll() is not None,
                 worker, "--wait saying how far the big file's embedding got")
            assert waiting.poll() is None, f"--wait returned while the big file was being embedded: {told.read_text()}"
            held.unlink()  # the job goes on to its end
            assert waiting.wait(DEADLINE) == 0, told.read_text()
        finally:
            if waiting.poll() is None:
                waiting.kill()
        said = told.read_text()
        assert paths(index, "narwhal") == {"big.md"} and paths(index, "pelican") == {"small.md"}, said
        assert "in the background: " in said and " of 100 chunks" in said, said
        assert "skipped" not in said.split("published generation")[-1], said
    finally:
        worker.stop()


GONE_MODEL = "gone-model-384d-000000000000"  # a model no file holds: the job cannot load it (embedding.locate)


def failed_job(conn, collection_id: int, since: float = 1.0) -> None:
    """Run big.md's job of token ``since`` for a model that is no longer there (SIFT_MODEL changed, its file
    removed, between the hand-off and a worker taking the job): it fails for good, as a slice's exception would."""
    from workers import tasks
    texts = {f"{i:064x}": f"passage: the walrus number {i}" for i in range(40)}
    tasks.embed_in_background(tasks.Background(collection_id, "big.md", GONE_MODEL, texts, since))


def test_a_failed_background_job_is_a_visible_failure_until_the_file_changes_or_a_retry(
        immediate, sift_env, tmp_path, monkeypatch, servers, capsys):
    """A background job that failed for good was only in the worker's log: its row was forgotten, the file read
    'being embedded' (or skipped) until the next scan handed it on again, to fail again. Its row now says why: stats
    (text and --json), search's freshness line and list_files (MCP and ``ingest files``) show it failed with the
    reason and what tries it again; a scan of the unchanged file leaves it failed (no scan↔job loop); ``ingest
    retry-failed`` hands it on again, and a change to the file does too."""
    from search.index import store
    from search.index.remembered import Basis
    from workers import rescan, runtime, tasks
    from tests.test_mcp_server import call, run, text
    report, conn, root, big = handed_on(tmp_path, monkeypatch)
    tasks.discover(report["id"])  # a build with big.md skipped (left to its job), as the one that handed it on
    failed_job(conn, report["id"])
    [row] = work_reads.background(conn, report["id"])
    assert row["since"] == 1.0 and "no GGUF file with that id was found" in (row["failed"] or ""), dict(row)

    said = run_ingest_here(capsys, "stats").stdout
    assert "in the background: big.md: embedding its 40 chunks failed: embed_in_background failed: " in said, said
    assert "tried again when the file changes, or by `ingest retry-failed`" in said, said
    [c] = json.loads(run_ingest_here(capsys, "stats", "--json").stdout)["collections"]
    [aside] = c["background"]
    assert aside["state"] == "failed" and "no GGUF file with that id" in aside["reason"], aside
    assert report["id"] not in rescan.due(conn, 3600.0), "a failed job is not lost: nothing to rescan for it"

    async def scenario():
        async with servers.session(sift_env, "--no-worker") as s:
            found = await call(s, "search", query="pelican", mode="keyword")
            stats = await call(s, "stats")
            return text(found) + "\n" + text(stats), (await call(s, "list_files", glob="big.md")).structured_content
    searched, listed = run(scenario)
    assert "in the background: big.md: embedding its 40 chunks failed: embed_in_background failed: " in searched, \
        "the stats tool says it: " + searched
    [freshness] = [line for line in searched.splitlines() if line.startswith("freshness:")] or [searched]
    assert "big.md failed to be embedded in the background (embed_in_background failed: " in freshness, freshness
    assert "up to date" not in freshness, freshness
    [listed_big] = listed["files"]
    assert listed_big["state"] == "failed" and "failed to be embedded in the background" in listed_big["reason"] \
        and "ingest retry-failed" in listed_big["reason"], listed_big
    files = run_ingest_here(capsys, "files").stdout
    assert "failed: big.md failed to be embedded in the background" in files, files

    retried = run_ingest(sift_env, "retry-failed")
    assert "big.md  (failed at embed: in the background: embed_in_background failed: " in retried.stdout, \
        retried.stdout + retried.stderr
    [row] = work_reads.background(conn, report["id"])
    assert row["failed"] is None and row["pid"] == working.NO_PROCESS, "retry-failed makes the job a lost one"
    tasks.discover(report["id"])  # the scan it queued: big.md read again, handed on again, embedded (immediate)
    [row] = work_reads.background(conn, report["id"])
    assert row["since"] != 1.0 and row["failed"] is None and row["done"] == row["total"], dict(row)
    tasks.discover(report["id"])  # the scan the finished job asked for: its build publishes big.md
    assert paths(Path(sift_env["SIFT_HOME"]) / "index.db", "walrus") == {"big.md"}

    big.write_text(big_note(41, "seal"))  # a new version, whose job fails: the earlier version answers meanwhile
    st = big.stat()
    store.begin_background(conn, report["id"], "big.md", Basis(st.st_size, st.st_mtime, st.st_ctime,
                           tasks._settings_print(runtime.model_id(), "big.md")), st.st_size, 41, 2.0)
    failed_job(conn, report["id"], since=2.0)
    said = run_ingest_here(capsys, "stats").stdout
    assert "failed: embed_in_background failed: " in said and "; its earlier version answers; tried again" in said, \
        said
    tasks.discover(report["id"])  # a later scan (the watcher's, the periodic one): the unchanged file is left failed
    gen = collection_reads.get_collection(conn, report["id"])["published"]
    rows = {r["path"]: r for r in progress_reads.progress_rows(conn, gen)}
    assert (rows["big.md"]["state"], rows["big.md"]["change"]) == ("failed", "as before"), dict(rows["big.md"])
    [row] = work_reads.background(conn, report["id"])
    assert row["since"] == 2.0 and row["failed"], "not handed on again: it would fail again, at every scan"
    tasks.discover(report["id"])
    assert collection_reads.get_collection(conn, report["id"])["published"] == gen, "no generation for nothing changed"
    assert paths(Path(sift_env["SIFT_HOME"]) / "index.db", "walrus") == {"big.md"}, "its earlier version answers"
    [c] = json.loads(run_ingest_here(capsys, "stats", "--json").stdout)["collections"]
    assert [f["path"] for f in c["published"]["failures"]] == [], "said under background, not among the failures"
    big.write_text(big_note(42, "seal"))  # changed since: read again and handed on again
    tasks.discover(report["id"])
    [row] = work_reads.background(conn, report["id"])
    assert row["since"] != 2.0 and row["failed"] is None, dict(row)


def test_a_big_file_keeps_its_words_when_its_job_is_lost_or_fails(immediate, sift_env, tmp_path, monkeypatch, capsys):
    """The passages its build wrote stay searchable by keyword whatever becomes of its job. A job lost with its
    worker: the scan reads the file, unchanged since its words were published, again (its row forgotten, it was
    left without vectors until it changed). A job failed for good: scans leave it so (no scan-job loop), stats
    and search say it is searchable by keyword, not by meaning; ``ingest retry-failed`` reads it again."""
    from search.index import store
    from workers import tasks
    monkeypatch.setenv("SIFT_BACKGROUND_CHUNKS", "10")
    root = write_tree(tmp_path / "notes", {"big.md": big_note(40) + COPPER, "small.md": "# Small\n\nThe pelican.\n"})
    index = Path(sift_env["SIFT_HOME"]) / "index.db"
    report = ingest(root)
    conn = db.connect(index)

    def written_by_last_build() -> bool:
        gen = collection_reads.get_collection(conn, report["id"])["published"]
        row = {r["path"]: r for r in progress_reads.progress_rows(conn, gen)}.get("big.md")
        return row is not None and (row["stage"], row["state"]) == ("write", "done")

    [row] = work_reads.background(conn, report["id"])
    assert store.background_progress(conn, report["id"], "big.md", row["since"], 7, os.getpid())  # at work
    (root / "small.md").write_text("# Small\n\nThe heron.\n")
    tasks.discover(report["id"])  # a scan while its job works: the file, unchanged, is left to it
    assert paths(index, "heron") == {"small.md"} and not written_by_last_build()
    gen = collection_reads.get_collection(conn, report["id"])["published"]
    assert "big.md" not in {r["path"] for r in progress_reads.progress_rows(conn, gen)}, \
        "not said skipped: its passages are published"
    assert [r["since"] for r in work_reads.background(conn, report["id"])] == [row["since"]], "its job goes on"

    dead = os.fork()
    if dead == 0:
        os._exit(0)
    os.waitpid(dead, 0)
    assert store.background_progress(conn, report["id"], "big.md", row["since"], 7, dead)  # its worker killed
    said = run_ingest_here(capsys, "stats").stdout
    assert "big.md: its worker stopped after 7 of 41 chunks; searchable by keyword" in said, said
    before = collection_reads.get_collection(conn, report["id"])["published"]
    tasks.discover(report["id"])  # reads it again: every vector cached (immediate mode), written with them
    assert collection_reads.get_collection(conn, report["id"])["published"] > before and written_by_last_build()
    assert work_reads.background(conn, report["id"]) == [] and paths(index, "copper") == {"big.md"}

    (root / "big.md").write_text(big_note(41, "seal") + COPPER)  # a new version, handed on: its job fails for good
    tasks.discover(report["id"])
    [row] = work_reads.background(conn, report["id"])
    failed_job(conn, report["id"], since=row["since"])
    gen = collection_reads.get_collection(conn, report["id"])["published"]
    tasks.discover(report["id"])
    assert collection_reads.get_collection(conn, report["id"])["published"] == gen, "left failed: no generation"
    assert paths(index, "copper") == {"big.md"}, "its words stay searchable"
    said = run_ingest_here(capsys, "stats").stdout
    assert f"big.md: embedding its {row['total']} chunks failed: embed_in_background failed: " in said and \
        "; searchable by keyword, not by meaning; tried again when the file changes" in said, said
    [note] = working.background_notes(conn)
    assert note.startswith("notes: big.md searchable by keyword, not by meaning: embedding it failed ("), note
    run_ingest(sift_env, "retry-failed")
    tasks.discover(report["id"])  # the scan it queued: read again, written with its vectors (all cached)
    assert collection_reads.get_collection(conn, report["id"])["published"] > gen and written_by_last_build()
    assert work_reads.background(conn, report["id"]) == []


def _freed(root: Path) -> tuple[bytes, os.stat_result]:
    """iCloud frees big.md: its placeholder stands for it (the scan keeps it as indexed); its bytes and stat."""
    big = root / "big.md"
    st, content = big.stat(), big.read_bytes()
    big.unlink()
    (root / ".big.md.icloud").write_bytes(b"bplist00")
    return content, st


def _back(root: Path, content: bytes, st: os.stat_result) -> None:
    """big.md downloaded again, as it was: its bytes and times."""
    (root / ".big.md.icloud").unlink()
    (root / "big.md").write_bytes(content)
    os.utime(root / "big.md", (st.st_atime, st.st_mtime))


def _read_again_with_its_vectors(conn, collection_id: int) -> None:
    """The scan reads big.md again and a new build writes it (with its vectors, all cached); its job's row is gone."""
    from workers import tasks
    before = collection_reads.get_collection(conn, collection_id)["published"]
    tasks.discover(collection_id)
    gen = collection_reads.get_collection(conn, collection_id)["published"]
    rows = {r["path"]: r for r in progress_reads.progress_rows(conn, gen)}
    assert gen > before and (rows["big.md"]["stage"], rows["big.md"]["state"]) == ("write", "done"), \
        "read again, written with its vectors"
    assert work_reads.background(conn, collection_id) == []


def test_a_big_file_freed_once_its_job_is_done_gets_its_vectors_when_back(immediate, sift_env, tmp_path,
                                                                             monkeypatch, capsys):
    """iCloud freed the big note (its '.big.md.icloud' placeholder) after its job was done, before the scan the
    job asked for: that scan forgot the row, and the note downloaded again unchanged was never read again, its
    passages left without vectors for good. The row stays while the note is away; back, it is read again."""
    from workers import tasks
    monkeypatch.setenv("SIFT_BACKGROUND_CHUNKS", "10")
    root = write_tree(tmp_path / "notes", {"big.md": big_note(40), "small.md": "# Small\n\nThe pelican.\n"})
    report = ingest(root)  # big.md written by its words; its job done (immediate), its scan not yet run
    conn = db.connect(Path(sift_env["SIFT_HOME"]) / "index.db")
    [row] = work_reads.background(conn, report["id"])
    assert row["done"] == row["total"], dict(row)
    content, st = _freed(root)
    tasks.discover(report["id"])
    assert [r["path"] for r in work_reads.background(conn, report["id"])] == ["big.md"], "kept while it is away"
    said = run_ingest_here(capsys, "stats").stdout  # it said 'by meaning once its build reads it, next': none would
    assert f"big.md: its {row['total']:,} chunks are embedded; searchable by keyword; by meaning once it is " \
           "downloaded again (a sync client keeps it in the cloud)" in said, said
    assert working.background_notes(conn) == [
        f"notes: big.md searchable by keyword; by meaning once it is downloaded again (a sync client keeps it in "
        f"the cloud) ({row['total']:,} of {row['total']:,} chunks embedded)"]  # search's note, list_files' reason
    _back(root, content, st)
    _read_again_with_its_vectors(conn, report["id"])


def test_a_big_file_freed_when_its_job_is_lost_is_handed_on_when_back(immediate, sift_env, tmp_path, monkeypatch):
    """Its job lost (worker killed) while iCloud had freed the note: the scan forgot the row, and the note back
    unchanged was never read again (no vectors for good). The row stays, not lost meanwhile (the periodic rescan
    would scan the collection every minute for nothing); back, it is due and read again."""
    from workers import rescan, tasks
    monkeypatch.setenv("SIFT_BACKGROUND_CHUNKS", "10")
    root = write_tree(tmp_path / "notes", {"big.md": big_note(40), "small.md": "# Small\n\nThe pelican.\n"})
    report = ingest(root)
    conn = db.connect(Path(sift_env["SIFT_HOME"]) / "index.db")
    _lost_after(conn, report["id"], 7)  # killed after 7 chunks
    content, st = _freed(root)
    tasks.discover(report["id"])
    assert [r["path"] for r in work_reads.background(conn, report["id"])] == ["big.md"], "kept while it is away"
    assert report["id"] not in rescan.due(conn, 3600.0), "not rescanned every minute while it is away"
    _back(root, content, st)
    assert report["id"] in rescan.due(conn, 3600.0), "back: its lost job makes its collection due"
    _read_again_with_its_vectors(conn, report["id"])


def test_a_cloud_only_big_file_whose_job_is_lost_is_handed_on_when_downloaded(immediate, sift_env, tmp_path,
                                                                              monkeypatch):
    """The same for a cloud-only note under its own name (macOS' File Provider, OneDrive: no placeholder, only the
    stat's flag): its lost job made the periodic rescan scan the collection every minute, and that scan forgot the
    row, so the note downloaded again unchanged got no vectors until it changed. Kept while it is cloud-only, its
    lost job is found once it is downloaded, as any lost job is, and the scan reads it again. Linux sets no such
    flag: cloud_only is given the stat as macOS gives it (tests/test_sync_placeholders.py)."""
    from ingest import discover
    from workers import rescan, tasks
    from tests.test_sync_placeholders import _as_on
    monkeypatch.setenv("SIFT_BACKGROUND_CHUNKS", "10")
    root = write_tree(tmp_path / "notes", {"big.md": big_note(40), "small.md": "# Small\n\nThe pelican.\n"})
    report = ingest(root)
    conn = db.connect(Path(sift_env["SIFT_HOME"]) / "index.db")
    _lost_after(conn, report["id"], 7)
    in_cloud = {(root / "big.md").stat().st_ino}
    told = discover.cloud_only
    monkeypatch.setattr(discover, "cloud_only", lambda info: told(
        _as_on(info, st_flags=discover.SF_DATALESS if info.st_ino in in_cloud else 0)))
    tasks.discover(report["id"])
    assert [r["path"] for r in work_reads.background(conn, report["id"])] == ["big.md"], "kept while it is away"
    assert report["id"] not in rescan.due(conn, 3600.0), "not rescanned every minute while it is cloud-only"
    in_cloud.clear()  # downloaded again, as it was
    assert report["id"] in rescan.due(conn, 3600.0), "downloaded: its lost job makes its collection due"
    _read_again_with_its_vectors(conn, report["id"])


def _lost_after(conn, collection_id: int, done: int) -> None:
    """big.md's job lost after ``done`` chunks: its row names a worker that is gone."""
    from search.index import store
    [row] = work_reads.background(conn, collection_id)
    dead = os.fork()
    if dead == 0:
        os._exit(0)
    os.waitpid(dead, 0)
    assert store.background_progress(conn, collection_id, "big.md", row["since"], done, dead)


def test_a_big_file_written_by_a_resumed_recut_build_is_not_reported_skipped(immediate, sift_env, tmp_path,
                                                                            monkeypatch, capsys):
    """A new chunker (its VERSION bumped) reads every file again; the build hands big.md on and writes its words.
    A consumer restarted while that build is under way resumes its scan, which reads every file again too (the
    published generation is cut the old way): it marked big.md skipped, 'embedded in the background', and stats
    said 1 file searchable, 1 skipped or failed as before, though big.md's words answered. Now the file the build
    wrote as its job took it is left to that job."""
    from ingest import chunk
    from workers import runtime, tasks
    from tests.test_first_parts import run_jobs
    monkeypatch.setenv("SIFT_BACKGROUND_CHUNKS", "10")
    monkeypatch.setenv("SIFT_FILES_PER_JOB", "1")  # big.md written before small.md is read
    root = write_tree(tmp_path / "notes", {"big.md": big_note(40), "small.md": "# Small\n\nThe pelican.\n"})
    report = ingest(root)
    tasks.discover(report["id"])  # the scan its job asked for: published with its vectors
    conn = runtime.index()
    conn.executemany("DELETE FROM vectors WHERE model = ? AND text_hash = ?",
                     [row[:2] for row in vectors_of(conn, "big.md")])  # the new cut's vectors are to be embedded
    monkeypatch.setattr(chunk, "VERSION", chunk.VERSION + 1)
    immediate.immediate = False
    try:
        tasks.discover(report["id"])
        def written() -> bool:
            building = generation_reads.building_generation(conn, report["id"])
            return building is not None and progress_reads.progress_of(conn, building["id"], "big.md")["stage"] == \
                "write"
        run_jobs(immediate, written)  # the build wrote big.md, its job waits in the queue, small.md is not read yet
        building = generation_reads.building_generation(conn, report["id"])["id"]
        tasks.discover.call_local(report["id"], resume=True)  # a starting consumer's resumed scan
        assert (progress_reads.progress_of(conn, building, "big.md")["state"]) == "done", \
            dict(progress_reads.progress_of(conn, building, "big.md"))
        run_jobs(immediate, lambda: collection_reads.get_collection(conn, report["id"])["published"] == building)
    finally:
        immediate.storage.flush_queue()  # big.md's job, which this test does not need
        immediate.immediate = True
    assert paths(Path(sift_env["SIFT_HOME"]) / "index.db", "walrus") == {"big.md"}
    said = run_ingest_here(capsys, "stats").stdout
    assert "2 files, 41 chunks searchable" in said and "skipped" not in said, said


def test_an_edited_big_files_unchanged_passages_answer_by_meaning_before_its_job(immediate, sift_env, tmp_path,
                                                                                 monkeypatch, embedder):
    """An edit of a big file that leaves more than SIFT_BACKGROUND_CHUNKS passages to embed hands it on; its new
    version replaces the old one at once, by its words. Its passages whose text the edit left alone have the old
    version's vectors (the cache is keyed by the hash of the text embedded), so semantic search finds them at
    once; only the new and changed ones wait for the job (here 39 of its 55 passages answer by meaning at once)."""
    from workers import runtime, tasks
    from tests.test_first_parts import run_jobs
    monkeypatch.setenv("SIFT_BACKGROUND_CHUNKS", "10")
    root = write_tree(tmp_path / "notes", {"big.md": big_note(40), "small.md": "# Small\n\nThe pelican.\n"})
    report = ingest(root)
    tasks.discover(report["id"])  # the scan its job asked for: published with its vectors
    edited = big_note(40).replace("Paragraph 3 of the long log", "Paragraph 3, rewritten, of the long log")
    (root / "big.md").write_text(edited + "".join(f"# Extra {i}\n\nGannet {i} dives for fish.\n\n" for i in range(15)))
    immediate.immediate = False
    try:
        tasks.discover(report["id"])
        conn = runtime.index()
        run_jobs(immediate, lambda: any(isinstance(t.args[0], tasks.Background) for t in immediate.pending()
                                        if t.args) and not generation_reads.building_generation(conn, report["id"]))
    finally:
        immediate.storage.flush_queue()  # its job, held back: the new passages wait for it
        immediate.immediate = True
    [row] = work_reads.background(conn, report["id"])
    assert row["total"] == 16 and row["done"] == 0, dict(row)
    with_vectors = conn.execute("SELECT count(*), count(v.text_hash) FROM files f JOIN chunks ch ON ch.file = f.id "
                                "LEFT JOIN vectors v ON v.text_hash = ch.text_hash AND v.model = ? "
                                "WHERE f.path = 'big.md' AND f.gen_to IS NULL", (runtime.model_id(),)).fetchone()
    assert tuple(with_vectors) == (55, 39), tuple(with_vectors)
    engine = Engine(Path(sift_env["SIFT_HOME"]) / "index.db", lambda: embedder)
    found = engine.search("walrus number 30 and its travels", limit=5, mode="semantic").hits
    assert found and found[0].path == "big.md", [h.path for h in found]
    assert paths(Path(sift_env["SIFT_HOME"]) / "index.db", "gannet") == {"big.md"}, "its new words, at once"


def test_a_worker_killed_while_loading_the_model_leaves_a_lost_job(immediate, sift_env, tmp_path, monkeypatch):
    """A worker killed as it loads the model, before the job's first progress: the row said 'waiting' (no pid)
    until the consumer started again. The job now names its worker before loading the model, so the periodic
    rescan finds the row lost, as a job whose worker died mid-way, and its scan hands the file on again."""
    import subprocess
    import sys
    from workers import rescan, tasks
    report, conn, _, _ = handed_on(tmp_path, monkeypatch)
    killed = subprocess.run([sys.executable, "-c", (
        "import os, signal\n"
        "from workers import runtime, tasks\n"
        "from workers.app import huey\n"
        "huey.immediate = True\n"
        "runtime.embedder = lambda *a: os.kill(os.getpid(), signal.SIGKILL)  # killed while loading the model\n"
        f"tasks.embed_in_background(tasks.Background({report['id']}, 'big.md', runtime.settings().model or 'm', "
        "{'a' * 64: 'passage: x'}, 1.0))\n")], env=dict(os.environ), cwd=Path(__file__).parent.parent)
    assert killed.returncode == -9, killed
    [row] = work_reads.background(conn, report["id"])
    assert row["pid"] is not None and not working.alive(row["pid"]), f"the row names no dead worker: {dict(row)}"
    assert report["id"] in rescan.due(conn, 3600.0), "its collection is due for a scan"
    tasks.discover(report["id"])
    [row] = work_reads.background(conn, report["id"])
    assert row["since"] != 1.0 and row["done"] == row["total"], dict(row)


@pytest.mark.parametrize("big", ["big.md", "multicolumn.pdf"])
def test_the_build_that_publishes_the_big_file_takes_the_chunks_it_was_cut_into(immediate, sift_env, tmp_path,
                                                                                   monkeypatch, big):
    """The build that publishes a big file after its background job parsed it and cut it again, counting every
    passage's tokens with the model (1.3 s of that build's 2.0 s for a note of 4,000 chunks, 2.8 s of 5.0 s for
    9,800: bench/big_rebuild.py), while the collection's later edits waited for it. It now takes the chunks the
    build that handed the file on cut, kept for its content and settings: the same rows (a PDF's pages too), no
    token counted."""
    import shutil
    from ingest.chunk import chunk_document
    from ingest.files import read_and_parse
    from tests.conftest import need_data
    from workers import runtime, tasks
    root = write_tree(tmp_path / "notes", {"small.md": "# Small\n\nThe pelican sings.\n"})
    if big.endswith(".pdf"):
        shutil.copy(need_data("pdf") / "en" / big, root / big)
        monkeypatch.setenv("SIFT_BACKGROUND_CHUNKS", "1")
    else:
        (root / big).write_text(big_note(40))
        monkeypatch.setenv("SIFT_BACKGROUND_CHUNKS", "10")
    report = ingest(root)  # hands the big file on; its job embeds it (immediate mode)
    conn = runtime.index()
    [row] = work_reads.background(conn, report["id"])
    assert row["path"] == big and row["done"] == row["total"], dict(row)
    tasks._counts.clear()  # the token counts the hand-off remembered (another worker's, or long ago)
    tasks.discover(report["id"])  # the build that publishes it
    assert work_reads.background(conn, report["id"]) == [] and file_reads.indexed_file(conn, report["id"], big)
    assert not tasks._counts, f"{big} was cut again: {len(tasks._counts)} passages' tokens counted"
    published = conn.execute(
        "SELECT k.heading_path, k.text, k.tokens, k.start_line, k.end_line, k.page, k.end_page, k.page_starts "
        "FROM chunks k JOIN files f ON f.id = k.file WHERE f.path = ? AND f.gen_to IS NULL ORDER BY k.ordinal",
        (big,)).fetchall()
    settings = runtime.settings()
    limit, counter = tasks._counting(runtime.model_id(), settings)
    cut = chunk_document(read_and_parse(root, big).doc, counter, limit, min(settings.chunk_overlap, limit // 2),
                         None)
    assert [tuple(r) for r in published] == [
        (" > ".join(p.heading_path), p.text, p.tokens, p.start_line, p.end_line, p.page, p.end_page,
         json.dumps(p.page_starts) if p.page_starts else None) for p in cut], "the kept chunks are a new cut's"
    assert conn.execute("SELECT count(*) FROM cut").fetchone()[0] == 0, "dropped once the file is published"


def test_wait_does_not_wait_for_a_failed_background_job_and_says_it_failed(immediate, sift_env, tmp_path,
                                                                          monkeypatch, capsys):
    """``ingest enqueue --wait`` waited for every big file of the collection in the background: one whose job
    failed for good would hold it for ever. It returns once the build is published, saying the file failed."""
    import threading
    from ingest import cli
    from workers import tasks
    report, conn, _, _ = handed_on(tmp_path, monkeypatch)
    before, asked = report["published"]["id"], time.time()
    tasks.discover(report["id"])  # the build that leaves big.md to its job, published
    failed_job(conn, report["id"])
    returned: list[int] = []
    waiter = threading.Thread(target=lambda: returned.append(cli._wait(
        db.connect(Path(sift_env["SIFT_HOME"]) / "index.db"), report["id"], before, asked, [])), daemon=True)
    waiter.start()
    waiter.join(DEADLINE)
    said = capsys.readouterr().err
    assert returned == [0], f"--wait still waiting for a job that failed for good: {said}"
    assert "in the background: big.md: embedding its 40 chunks failed: embed_in_background failed: " in said, said


def test_ctrl_c_stops_a_background_embedding_at_its_next_slice_and_the_next_start_goes_on(sift_env, tmp_path,
                                                                                         capsys):
    """Ctrl-C (huey's graceful stop, which waits for the running jobs) waited for the whole big file: 63 s for a
    260-chunk PDF, a quarter of an hour for 10,000 chunks of e5. The job now stops after its slice, keeps its
    vectors and waits in the queue; stats says it waits for a worker, not that one died; the next start goes on."""
    import signal
    held = tmp_path / "held"  # the job, a slice embedded, waits at its next slice for the stop (workers.halt)
    env = {**sift_env, "SIFT_BACKGROUND_CHUNKS": "50"}
    root = write_tree(tmp_path / "notes", {"small.md": "# Small\n\nThe pelican sings.\n"})
    index = Path(sift_env["SIFT_HOME"]) / "index.db"
    worker = Consumer({**env, "SIFT_FAULT_HOLD_FOR_STOP": str(held)}, 2, tmp_path / "consumer.log")
    try:
        assert run_ingest_here(capsys, "enqueue", str(root), "--name", "notes", "--wait", env=env).returncode == 0
        # 100 chunks, over SIFT_BACKGROUND_CHUNKS: the job holds after its first slice of 32 until Ctrl-C (before,
        # 300 chunks and a poll for 64 done: a fast machine could embed them all before the signal came)
        (root / "big.md").write_text(big_note(100, "narwhal"))
        assert run_ingest_here(capsys, "enqueue", str(root), "--name", "notes", env=env).returncode == 0
        conn = db.connect(index)
        poll(lambda: held.exists() or vectored(conn, "big.md"), worker, "the big file being embedded")
        assert held.exists(), "the big file was embedded without a stop to ask for at its slices"
        os.killpg(worker.proc.pid, signal.SIGINT)
        worker.proc.wait()  # no kill after a grace: the consumer's own stop is what is looked at
        [row] = work_reads.background(conn)
        assert 0 < row["done"] < row["total"], "the stop waited for every chunk of the big file"
        said = run_ingest_here(capsys, "stats", env=env).stdout
        assert f"big.md waits for a worker to embed the rest of its {row['total']:,} chunks ({row['done']:,} " \
               "done)" in said, said
        assert paths(index, "narwhal") == {"big.md"} and paths(index, "pelican") == {"small.md"}, \
            "searchable by its words meanwhile"
        assert not vectored(conn, "big.md")
        worker.stop()
        worker = Consumer(env, 2, tmp_path / "consumer-2.log")
        poll(lambda: vectored(conn, "big.md"), worker, "the big file searchable by meaning")
        assert f"big.md: the worker is stopping: {row['done']} chunks of {row['total']} embedded and kept" in \
            (tmp_path / "consumer.log").read_text()
        assert "interrupted" not in (tmp_path / "consumer-2.log").read_text(), "the paused job was taken as lost"
    finally:
        worker.stop()


def test_ctrl_c_stops_an_embed_job_at_its_next_batch_and_the_next_start_goes_on(sift_env, tmp_path, capsys):
    """An embed job of a build (a file over 64 KiB travels alone) held Ctrl-C for all of its chunks: 180 s for
    one job on a busy laptop. It now queues the rest again with the vectors it has, and the next start goes on."""
    import signal
    from workers.tasks import JOB_BYTES
    held = tmp_path / "held"  # the job, a batch embedded, waits at its next batch for the stop (workers.halt)
    env = {**sift_env, "SIFT_BACKGROUND_CHUNKS": "0", "SIFT_EMBED_BATCH": "4"}  # embedded in its build
    # 40 chunks (10 batches of 4) and blank lines after them, which no chunk holds: over 64 KiB
    # (workers.tasks.JOB_BYTES), a job of its own. Before the hold, 800 chunks, so that the job was still at work
    # when the test looked (200 were embedded in 3 s on a quiet machine, before it saw them): 42-74 s
    big = big_note(40, "narwhal") + "\n" * 64_000
    assert len(big.encode()) > JOB_BYTES
    root = write_tree(tmp_path / "notes", {"small.md": "# Small\n\nThe pelican sings.\n", "big.md": big})
    index = Path(sift_env["SIFT_HOME"]) / "index.db"
    worker = Consumer({**env, "SIFT_FAULT_HOLD_FOR_STOP": str(held)}, 2, tmp_path / "consumer.log")
    try:
        assert run_ingest_here(capsys, "enqueue", str(root), "--name", "notes", env=env).returncode == 0
        conn = db.connect(index)
        poll(lambda: held.exists() or paths(index, "narwhal") == {"big.md"}, worker, "the big file being embedded")
        assert held.exists(), "the big file was embedded without a stop to ask for at its batches"
        os.killpg(worker.proc.pid, signal.SIGINT)
        worker.proc.wait()  # no kill after a grace: the consumer's own stop is what is looked at
        [row] = [r for r in conn.execute("SELECT stage, state FROM progress WHERE path = 'big.md'")]
        assert (row["stage"], row["state"]) == ("chunk", "done"), "the stop waited for every chunk of the file"
        said = (tmp_path / "consumer.log").read_text()
        assert "the worker is stopping: 4 of the job's 40 chunks embedded and kept" in said, said
        worker.stop()
        worker = Consumer(env, 2, tmp_path / "consumer-2.log")  # unheld: it embeds the rest
        poll(lambda: paths(index, "narwhal") == {"big.md"}, worker, "the big file searchable")
        assert paths(index, "pelican") == {"small.md"}
        assert "interrupted" not in (tmp_path / "consumer-2.log").read_text(), "the queued job was taken as lost"
    finally:
        worker.stop()
