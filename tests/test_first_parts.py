"""A first build is published in parts (workers.tasks.first_part, SIFT_FIRST_PART): its first files answer
searches long before the whole folder is embedded, each part an ordinary generation published whole; stats and
search's freshness line say the index is partial; the build's last generation holds what one build would have.

Real SQLite, the session's MiniLM, a real huey queue (its jobs run one by one by this process, to stop between two
parts) and a real ``huey_consumer`` killed between parts. Nothing asserts on speed: waits poll with a deadline that
is only a safety net."""
from __future__ import annotations

import os
import signal
import time
from pathlib import Path

import numpy as np
import pytest

from tests.conftest import Consumer, ingest, run_ingest, wait_published, write_tree

DEADLINE = 900.0  # seconds: a safety net against a hung test, not a speed assertion
NOTES = 23


WRITTEN = 1_700_000_000.0  # one mtime for every note (Nov 2023): a part holds its files by path


def notes(root: Path, n: int = NOTES) -> Path:
    return same_time(write_tree(root, {f"n{i:02}.md": f"# Note {i}\n\nThe pelican number word{i} flies at dawn.\n"
                                       for i in range(n)}))


def same_time(root: Path) -> Path:
    """Every file under ``root`` modified at WRITTEN: a first build's parts (workers.tasks.recent_first) read them
    by path, as a test that names a part's files expects, even were they written across a minute's end."""
    for path in root.rglob("*"):
        if path.is_file():
            os.utime(path, (WRITTEN, WRITTEN))
    return root


def published_rows(conn) -> tuple[list, dict]:
    """The published files' chunks, every column a reader shows (path, title, lines, text, …), and their vectors
    by text hash."""
    rows = conn.execute(
        "SELECT f.path, f.kind, f.size, f.sha256, f.title, f.meta, ch.ordinal, ch.heading_path, ch.start_line, "
        "ch.end_line, ch.text, ch.tokens, ch.text_hash FROM files f JOIN collections c ON c.id = f.collection "
        "JOIN chunks ch ON ch.file = f.id WHERE f.gen_from <= c.published AND (f.gen_to IS NULL OR f.gen_to > "
        "c.published) ORDER BY f.path, ch.ordinal").fetchall()
    vectors = {r[0]: np.frombuffer(r[1], dtype=np.float32) for r in conn.execute(
        "SELECT text_hash, vec FROM vectors WHERE text_hash IN (SELECT text_hash FROM chunks)")}
    return [tuple(r) for r in rows], vectors


def test_a_first_build_in_parts_ends_as_one_build_would(immediate, sift_env, tmp_path, monkeypatch):
    """SIFT_FIRST_PART=5 over 23 notes: parts of 5, 5 and 13 files (10, and the rest of 3, under 5, with it), each
    published; the last generation holds the same files, chunks and vectors as a build in one generation
    (SIFT_FIRST_PART=0), and is not partial."""
    from workers import runtime
    root = notes(tmp_path / "notes")
    monkeypatch.setenv("SIFT_FIRST_PART", "5")
    parts = ingest(root)
    in_parts = published_rows(runtime.index())
    assert parts["files"] == NOTES and parts["published"]["not_read_yet"] == 0 and not parts["published"]["failures"]
    assert parts["published"]["id"] == 3, "published in three parts: 5, 5 and 13 files"

    monkeypatch.setenv("SIFT_HOME", str(tmp_path / "one-build"))
    monkeypatch.setenv("SIFT_FIRST_PART", "0")
    runtime.reset()
    whole = ingest(root)
    assert whole["published"]["id"] == 1 and whole["files"] == NOTES
    at_once = published_rows(runtime.index())
    assert in_parts[0] == at_once[0], "the same files and chunks"
    assert in_parts[1].keys() == at_once[1].keys()
    for text_hash, vector in at_once[1].items():
        assert np.allclose(in_parts[1][text_hash], vector, atol=1e-6)


def run_jobs(huey, until=lambda: False) -> None:
    """Run the queue's jobs in this process, one at a time, until it is empty or ``until()``."""
    while not until():
        task = huey.dequeue()
        if task is None:
            return
        huey.execute(task)


def test_a_published_part_answers_and_says_it_is_partial(sift_env, tmp_path, monkeypatch):
    """Stopped between two parts: searches answer from the first 5 files, one generation's; stats says how many of
    the 23 are searchable and how many not read yet; search's freshness line says 'partial' once. The queue then
    holds the next part's scan, queued by the publish: run, it ends with every file searchable."""
    from mcp_server import report
    from search.index import collection_reads, status, store
    from search.query.engine import Engine
    from workers import runtime, tasks
    from workers.app import huey
    from workers.stats import CLI, collection_lines
    monkeypatch.setenv("SIFT_FIRST_PART", "5")
    root = notes(tmp_path / "notes")
    conn = runtime.index()
    cid = store.ensure_collection(conn, "notes", str(root))["id"]
    tasks.discover(cid)
    run_jobs(huey, lambda: collection_reads.get_collection(conn, cid)["published"] is not None)
    gen = collection_reads.get_collection(conn, cid)["published"]
    assert gen is not None and huey.pending_count() == 1, "the part published, the next part's scan queued"

    hits = Engine(Path(sift_env["SIFT_HOME"]) / "index.db").search("pelican", limit=50, mode="keyword").hits
    assert {h.path for h in hits} == {f"n{i:02}.md" for i in range(5)}, "the first part's files answer"
    assert {h.generation for h in hits} == {gen}
    [c] = status.collect(conn)["collections"]
    assert (c["files"], c["published"]["not_read_yet"], c["published"]["failures"]) == (5, NOTES - 5, [])
    said = "\n".join(collection_lines(c, CLI))
    assert "partial: the first build comes in parts (SIFT_FIRST_PART), the most recently modified files first: 5 " \
           "of 23 files searchable, 18 not read yet" in said, said
    line, _ = report.freshness(conn)
    assert line.count("partial") == 1 and "18 files not read yet" in line, line

    run_jobs(huey)
    [c] = status.collect(conn)["collections"]
    assert (c["files"], c["published"]["not_read_yet"], c["published"]["failures"]) == (NOTES, 0, [])
    assert "partial" not in "\n".join(collection_lines(c, CLI)) and "partial" not in report.freshness(conn)[0]
    hits = Engine(Path(sift_env["SIFT_HOME"]) / "index.db").search("pelican", limit=50, mode="keyword").hits
    assert len({h.path for h in hits}) == NOTES


def test_search_and_stats_count_a_part_s_searchable_files_alike(sift_env, tmp_path, monkeypatch):
    """Of notes-en's first part, search said 'only 1,598 of its 1,879 files were searched' where stats said '1,597
    of 1,879 files searchable': search counted a PDF the part read and skipped as searched. Both count the files
    made searchable now, and search says what became of the one read but not searched."""
    from mcp_server import report
    from search.index import collection_reads, status, store
    from workers import runtime, tasks
    from workers.app import huey
    from workers.stats import CLI, collection_lines
    monkeypatch.setenv("SIFT_FIRST_PART", "5")
    root = notes(tmp_path / "notes")
    (root / "a-scan.pdf").write_bytes(b"%PDF-1.4 not a PDF at all")  # the newest file: read in the first part
    conn = runtime.index()
    cid = store.ensure_collection(conn, "notes", str(root))["id"]
    tasks.discover(cid)
    run_jobs(huey, lambda: collection_reads.get_collection(conn, cid)["published"] is not None)
    [c] = status.collect(conn)["collections"]
    assert (c["files"], c["published"]["not_read_yet"], len(c["published"]["failures"])) == (4, NOTES + 1 - 5, 1)
    said = "\n".join(collection_lines(c, CLI))
    assert "4 of 24 files searchable, 19 not read yet, 1 failed or skipped (listed below)" in said, said
    _, fresh = report.freshness(conn)
    assert report.partial_notes(conn, fresh) == [
        "partial results: only 4 of notes's 24 files searched so far, the newest first; the answer may be in one of "
        "the 19 not read yet: search again after its first build's next part (stats says when, and why 1 failed or "
        "was skipped)"]
    # a search of PDFs alone is told nothing of the notes not read yet, none of which is a PDF (test_search_answers)
    assert report.partial_notes(conn, fresh, "pdf") == [] and report.partial_notes(conn, fresh, "note") == \
        report.partial_notes(conn, fresh)
    # search's freshness line under that note points to it: its counts said twice cost 65 characters an answer
    line = report.freshness_line(fresh, {"notes"})
    assert line.endswith(", partial (the note above)") or ", partial (the note above), " in line, line
    assert "not read yet" not in line and "not read yet" in report.freshness_line(fresh), line


def test_a_later_build_never_comes_in_parts(immediate, sift_env, tmp_path, monkeypatch):
    """A published collection given 20 new notes builds them in one generation: it answers meanwhile."""
    monkeypatch.setenv("SIFT_FIRST_PART", "5")
    root = notes(tmp_path / "notes", 3)
    assert ingest(root)["published"]["id"] == 1
    notes(root, NOTES)
    after = ingest(root)
    assert (after["published"]["id"], after["files"], after["published"]["not_read_yet"]) == (2, NOTES, 0)


@pytest.mark.slow
@pytest.mark.timeout(1200)
def test_a_consumer_killed_between_parts_loses_nothing(sift_env, tmp_path):
    """A real consumer (two workers) builds 60 notes in parts of 10, 10, 20 and 20, each scan held before it
    plans until the test lets it go (SIFT_FAULT_PAUSE_DISCOVER, SIFT_FAULT_RELEASE_DISCOVER): the first scan at
    once, the second not, so the first part stays the one published while the test looks: it is whole (its
    searchable files and those not read yet make the 60). SIGKILL then; a consumer started again goes on: all 60
    notes published once each, no duplicate file versions. (Each scan was held 2 s, for a reader polling the
    index every 0.1 s to see a part: a loaded machine could leave it to see the last.)"""
    from search.index import collection_reads, db, progress_reads
    release, log = tmp_path / "release-scan", tmp_path / "consumer.log"
    env = {**sift_env, "SIFT_FIRST_PART": "10", "SIFT_FAULT_PAUSE_DISCOVER": str(DEADLINE),
           "SIFT_FAULT_RELEASE_DISCOVER": str(release)}
    root = notes(tmp_path / "notes", 60)
    index = Path(sift_env["SIFT_HOME"]) / "index.db"
    worker = Consumer(env, 2, log)
    try:
        assert run_ingest(env, "enqueue", str(root), "--name", "notes").returncode == 0
        conn = db.connect(index)
        deadline = time.time() + DEADLINE
        while log.read_text(errors="replace").count("SIFT_FAULT_PAUSE_DISCOVER: discover of") < 1:
            assert worker.proc.poll() is None and time.time() < deadline, "the consumer died or never scanned"
            time.sleep(0.1)
        release.touch()  # the first part's scan plans; the next part's waits
        while time.time() < deadline:
            row = collection_reads.collections(conn, "notes")
            if row and row[0]["published"] is not None:
                break
            assert worker.proc.poll() is None, "the consumer died"
            time.sleep(0.1)
        published = collection_reads.collections(conn, "notes")[0]["published"]
        files = progress_reads.searchable(conn, 1, published)[0]
        assert 0 < files < 60 and files + progress_reads.deferred(conn, published) == 60, "a part, published whole"
        os.killpg(worker.proc.pid, signal.SIGKILL)
        worker.proc.wait()
        worker.stop()
        worker = Consumer({**env, "SIFT_FAULT_PAUSE_DISCOVER": "0"}, 2, tmp_path / "consumer-2.log")
        final = wait_published(conn, "notes", None, worker.proc, limit=DEADLINE)
        assert progress_reads.searchable(conn, 1, final)[0] == 60 and progress_reads.deferred(conn, final) == 0
        assert tuple(conn.execute("SELECT count(*), count(DISTINCT path) FROM files WHERE gen_to IS NULL")
                     .fetchone()) == (60, 60), "every note once"
        assert conn.execute("SELECT count(*) FROM generations WHERE state = 'published'").fetchone()[0] == 1
        said = run_ingest(env, "stats").stdout
        assert "60 files" in said and "partial" not in said, said
    finally:
        worker.stop()


def test_the_worker_that_publishes_a_part_asks_for_the_next(sift_env, tmp_path, monkeypatch):
    """Two workers race to publish a part: A finds a file of it still in flight, B writes that file and tries
    too. publish_part tried twice (publish_now, then try_publish again): A's second try published the part, as
    a plain publish, and B found it published: neither asked for the next part's scan (it waited for the periodic
    rescan), and each write job took the write lock twice. It tries once; the one that publishes asks."""
    from search.index import collection_reads, db, generation_reads, progress_reads, store
    from workers import rescan, runtime, tasks
    from workers.app import huey
    monkeypatch.setenv("SIFT_FIRST_PART", "5")
    root = notes(tmp_path / "notes")
    conn = runtime.index()
    cid = store.ensure_collection(conn, "notes", str(root))["id"]
    tasks.discover(cid)
    huey.execute(huey.dequeue())  # the scan: it plans the first part and queues its jobs
    gen = generation_reads.building_generation(conn, cid)["id"]
    huey.flush()  # the part's jobs: their files are marked written below, the last one by worker B
    now = progress_reads.pending_paths(conn, gen)
    assert len(now) == 5 and progress_reads.deferred(conn, gen) == NOTES - 5
    store.mark(conn, gen, now[:-1], "write", "done")
    other = db.connect(Path(sift_env["SIFT_HOME"]) / "index.db")  # worker B's connection
    begun, written = [], []

    def b_writes() -> None:
        store.mark(other, gen, now[-1:], "write", "done")
        written.append(True)

    def trace(sql: str) -> None:  # B writes the last file as A is about to take the write lock a second time
        if sql.startswith("BEGIN"):
            begun.append(sql)
            if len(begun) == 2:
                b_writes()

    conn.set_trace_callback(trace)
    try:
        tasks.publish_part(conn, gen)  # worker A, after its own write
    finally:
        conn.set_trace_callback(None)
    if not written:  # A took the lock once: B writes after it
        b_writes()
    tasks.publish_part(other, gen)  # worker B, after writing the last file
    assert collection_reads.get_collection(conn, cid)["published"] == gen
    assert rescan._waiting(cid) is not None, "no one asked for the next part's scan"


def test_wait_counts_a_part_by_its_own_files(sift_env, tmp_path, monkeypatch, capsys):
    """``ingest enqueue --wait`` over a first build in parts: its progress lines counted the files left to later
    parts as done ('generation 1: 18/23 files' before a file was read, its ETA many times too fast, as stats' was
    before it was fixed). A part is counted by its own files: 0/5 first, never more than the part holds."""
    import re
    import threading
    from ingest import cli
    from search.index import db, store
    from workers import runtime, tasks
    from workers.app import huey
    monkeypatch.setenv("SIFT_FIRST_PART", "5")
    root = notes(tmp_path / "notes")
    conn = runtime.index()
    cid = store.ensure_collection(conn, "notes", str(root))["id"]
    asked = time.time()
    tasks.discover(cid)
    huey.execute(huey.dequeue())  # the scan plans the first part: 5 files now, 18 later
    returned: list[int] = []
    waiter = threading.Thread(target=lambda: returned.append(cli._wait(
        db.connect(Path(sift_env["SIFT_HOME"]) / "index.db"), cid, None, asked, [])), daemon=True)
    waiter.start()
    said = ""
    deadline = time.time() + DEADLINE
    while "generation 1:" not in said and time.time() < deadline:  # its first line, before a job has run
        said += capsys.readouterr().err
        time.sleep(0.1)
    run_jobs(huey)
    waiter.join(DEADLINE)
    said += capsys.readouterr().err
    assert returned == [0], said
    lines = re.findall(r"generation (\d+): (\d+)/(\d+) files", said)
    assert lines[0] == ("1", "0", "5"), said
    assert all(int(done) <= int(total) <= NOTES - 5 for _, done, total in lines), said


def test_a_part_is_as_big_as_the_files_read_before_it_read_or_not(immediate, sift_env, tmp_path, monkeypatch):
    """Each part reads as many files as the parts before it did, those that failed too: sized by the files they
    made searchable, a folder whose first files cannot be read (5 damaged PDFs first of 30 files, parts of 5)
    was built in five parts of 5, 5, 5, 10 and 5 (a folder of 1,000 scans before its notes: ten parts of 100
    before they grew), where 30 readable files come in four: 5, 5, 10 and 10."""
    monkeypatch.setenv("SIFT_FIRST_PART", "5")
    root = notes(tmp_path / "notes", 25)
    for i in range(5):
        (root / f"a{i}.pdf").write_bytes(b"%PDF-1.4 damaged " + bytes(range(256)))
    built = ingest(root)
    assert (built["files"], built["published"]["not_read_yet"]) == (25, 0)
    assert sorted(f["path"] for f in built["published"]["failures"]) == [f"a{i}.pdf" for i in range(5)]
    assert built["published"]["id"] == 4, "published in four parts: 5, 5, 10 and 10 files"


def test_stats_counts_a_partial_build_of_every_file_seen(sift_env, tmp_path, monkeypatch):
    """Between parts, stats' partial line counted the files searchable and those not read yet, not those that
    failed: 5 damaged PDFs and 20 notes, parts of 5, said '0 of 20 files searchable, 20 not read yet' of a folder
    of 25. It says of the files seen."""
    from search.index import collection_reads, status, store
    from workers import runtime, tasks
    from workers.app import huey
    from workers.stats import CLI, collection_lines
    monkeypatch.setenv("SIFT_FIRST_PART", "5")
    root = notes(tmp_path / "notes", 20)
    for i in range(5):
        (root / f"a{i}.pdf").write_bytes(b"%PDF-1.4 damaged " + bytes(range(256)))
    conn = runtime.index()
    cid = store.ensure_collection(conn, "notes", str(root))["id"]
    tasks.discover(cid)
    run_jobs(huey, lambda: collection_reads.get_collection(conn, cid)["published"] is not None)
    [c] = status.collect(conn)["collections"]
    said = "\n".join(collection_lines(c, CLI))
    assert "files first: 0 of 25 files searchable, 20 not read yet" in said, said


def test_a_big_file_waits_for_a_part_after_the_first(sift_env, tmp_path, monkeypatch):
    """A note big enough to be embedded in the background, first by name (notes-en's README.md, 300 chunks): the
    first part handed it to the background, where it held one of the two workers through the part that gives the
    first answer. It comes in a later part now; the first part reads small notes only, and every file comes."""
    from search.index import collection_reads, file_reads, progress_reads, store, work_reads
    from workers import runtime, tasks
    from workers.app import huey
    monkeypatch.setenv("SIFT_FIRST_PART", "5")
    monkeypatch.setenv("SIFT_BACKGROUND_CHUNKS", "20")  # over 10 KB: likely over 20 chunks
    files = {f"n{i:02}.md": f"# Note {i}\n\nThe pelican number word{i} flies at dawn.\n" for i in range(23)}
    files["a-big.md"] = "# Big\n\n" + "\n\n".join(f"## Part {i}\n\n" + f"albatross {i} glides. " * 60
                                                  for i in range(40))
    root = write_tree(tmp_path / "notes", files)
    conn = runtime.index()
    cid = store.ensure_collection(conn, "notes", str(root))["id"]
    tasks.discover(cid)
    while collection_reads.get_collection(conn, cid)["published"] is None:
        task = huey.dequeue()
        assert task is not None, "the first part was never published"
        huey.execute(task)
    first = collection_reads.get_collection(conn, cid)["published"]
    assert "a-big.md" not in file_reads.current_files(conn, cid), "left to a later part"
    assert not work_reads.background(conn, cid), "nothing embedded in the background during the first part"
    assert progress_reads.deferred(conn, first) == 19
    while (task := huey.dequeue()) is not None:
        huey.execute(task)
    last = collection_reads.get_collection(conn, cid)["published"]
    assert not progress_reads.deferred(conn, last)
    assert set(file_reads.current_files(conn, cid)) == set(files), "every file came"


def test_the_first_part_holds_the_most_recently_modified_notes(sift_env, tmp_path, monkeypatch):
    """A first build's parts read the most recently modified files first (workers.tasks.recent_first): by path, the
    first part of notes-en held ack through c…, and a new user's questions about git, tmux or vim found nothing for
    many minutes. 23 notes of one old mtime, three edited lately (n21 minutes ago, n15 an hour, n07 a day): the
    first part of 5 holds those three, then n00 and n01 (equal times by path), and a search finds them at once."""
    from search.index import collection_reads, file_reads, store
    from search.query.engine import Engine
    from workers import runtime, tasks
    from workers.app import huey
    monkeypatch.setenv("SIFT_FIRST_PART", "5")
    root = notes(tmp_path / "notes")
    now = time.time()
    for name, ago in (("n21.md", 300), ("n15.md", 3600), ("n07.md", 86400)):
        os.utime(root / name, (now - ago, now - ago))
    conn = runtime.index()
    cid = store.ensure_collection(conn, "notes", str(root))["id"]
    tasks.discover(cid)
    run_jobs(huey, lambda: collection_reads.get_collection(conn, cid)["published"] is not None)
    assert set(file_reads.current_files(conn, cid)) == {"n21.md", "n15.md", "n07.md", "n00.md", "n01.md"}
    engine = Engine(Path(sift_env["SIFT_HOME"]) / "index.db")
    for i in (21, 15, 7):
        assert [h.path for h in engine.search(f"word{i}", limit=5, mode="keyword").hits] == [f"n{i:02}.md"]
    run_jobs(huey)
    assert len(file_reads.current_files(conn, cid)) == NOTES, "the rest follow in later parts"


def test_recent_first_orders_by_the_minute_then_by_path():
    """Files modified within the same minute are equal times, in path order (a folder copied at once keeps path
    order, not the copy's); a later minute goes first; a path of no known mtime last."""
    from workers.tasks import recent_first
    minute = 60 * 28_333_333  # a minute's start
    mtimes = {"b.md": minute + 59.5, "a.md": minute + 1, "c.md": minute + 60, "old.md": minute - 86400}
    assert recent_first(["old.md", "b.md", "gone.md", "a.md", "c.md"], mtimes) == \
        ["c.md", "a.md", "b.md", "old.md", "gone.md"]
