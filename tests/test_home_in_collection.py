"""Sift's home inside a folder it indexes (``--home ~/notes/sift``; a whole home folder indexed): index.db,
queue.db, their -wal and -shm, the models, are Sift's own files, not notes. No collection counts them among the
files Sift does not read, the watcher does not watch the home's folder at all (its writes woke it with events it
dropped), and queues no scan for the writes of the index and the queue (before, each -wal or -shm that came made a
scan that found nothing changed). A root that is the home itself leaves them out too. A real consumer and a real
watcher, as tests/test_freshness.py runs them."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from watchfiles import Change

from search.index import db, file_reads
from tests.conftest import REPO, Consumer, ingest, write_tree
from tests.test_freshness import NOTES, _poll

WATCH_QUIET_MS = 250  # the watcher's pace (SIFT_FAULT_WATCH_QUIET_MS): a burst ends after 0.25 s of quiet, not 1 s
# how long the collection is watched with no edit: as many of the watcher's bursts and ticks as 12 s at its own pace
QUIET_SECONDS = 12 * WATCH_QUIET_MS / 1000


@pytest.mark.slow
@pytest.mark.parametrize("inside", ["sift", ""], ids=["home inside the root", "root is the home"])
def test_a_home_inside_the_collection_makes_no_scans_of_its_own_writes(sift_env, monkeypatch, tmp_path, inside):
    from search.index import store
    root = write_tree(tmp_path / "notes", NOTES).resolve()
    home = root / inside if inside else root
    monkeypatch.setenv("SIFT_HOME", str(home))
    env = dict(sift_env, SIFT_HOME=str(home))
    conn = db.connect(home / "index.db")
    cid = store.ensure_collection(conn, "notes", str(root))["id"]
    consumer = Consumer(env, 2, tmp_path / "consumer.log")
    log_path = tmp_path / "watcher.log"
    with open(log_path, "ab") as log:
        watcher = subprocess.Popen([sys.executable, "-m", "workers.watch"], cwd=REPO, stdout=log,
                                   env=dict(env, SIFT_FAULT_WATCH_QUIET_MS=str(WATCH_QUIET_MS)),
                                   stderr=subprocess.STDOUT, start_new_session=True)
    processes = {"consumer": consumer.proc, "watcher": watcher}
    try:
        settled = lambda: _published(conn) and not _busy(conn)  # noqa: E731
        _poll(lambda: settled() and _scans(log_path) >= 1, processes, "the first generation published")
        time.sleep(QUIET_SECONDS)  # the first build's writes: each -wal and -shm made, changed, checkpointed
        _poll(settled, processes, "quiet")
        assert _scans(log_path) == 1, f"scans made by the index's own writes:\n{log_path.read_text()}"
        first = _generations(conn)
        (root / "alpha.md").write_text("# Alpha\n\nThe narwhal sings at dawn.\n")
        _poll(lambda: _generations(conn) > first and settled(), processes, "the edit published")
        time.sleep(QUIET_SECONDS)
        _poll(settled, processes, "quiet")
        assert _scans(log_path) == 2, f"scans after one edit:\n{log_path.read_text()}"
        assert _generations(conn) == first + 1
        unread = file_reads.unread_counts(conn, cid)
        assert not unread, f"Sift's own files counted as files it does not read: {unread}"
    finally:
        for process in (watcher, consumer.proc):
            if process.poll() is None:
                os.killpg(process.pid, signal.SIGTERM)
                process.wait(timeout=30)
        consumer.log.close()
        conn.close()


def _published(conn) -> bool:
    return conn.execute("SELECT published FROM collections").fetchone()[0] is not None


def _busy(conn) -> bool:
    return bool(conn.execute("SELECT count(*) FROM generations WHERE state = 'building'").fetchone()[0])


def _generations(conn) -> int:
    return conn.execute("SELECT max(id) FROM generations").fetchone()[0]


def _scans(log_path: Path) -> int:
    return log_path.read_text().count("queued a scan")


def test_a_scan_leaves_out_a_home_inside_its_root_and_says_why(immediate, monkeypatch, tmp_path):
    """The walk, a scan of the paths the watcher names, list_files' counts and the reason a file is not
    indexed: Sift's home inside the root is none of the collection's."""
    from ingest.discover import Rules, walk, walk_paths, why_not_indexed
    from workers import runtime
    from workers.watch import Watcher
    root = write_tree(tmp_path / "notes", {**NOTES, "sift/readme.md": "# Not a note\n"}).resolve()
    monkeypatch.setenv("SIFT_HOME", str(root / "sift"))
    monkeypatch.setenv("SIFT_EMBEDDINGS", "off")  # what is read is the point, not vectors
    runtime.reset()
    ingest(root)
    conn = runtime.index()
    assert (root / "sift" / "index.db").exists()
    cid = conn.execute("SELECT id FROM collections").fetchone()[0]
    assert not file_reads.unread_counts(conn, cid), "index.db, queue.db, space-reserve counted as not read"
    rules = Rules()
    assert "sift/readme.md" not in {f.path for f in walk(root, rules)}
    assert walk_paths(root, ["sift/index.db-wal", "sift/readme.md"], rules) == []
    assert "Sift's own" in why_not_indexed(root, "sift/index.db", rules)
    watcher = Watcher(conn, rules)
    for change in (Change.added, Change.modified, Change.deleted):
        for name in ("index.db-wal", "queue.db-shm", "index.db", "readme.md", "models/x.gguf"):
            assert not watcher.relevant(cid, str(root), change, f"sift/{name}"), (change, name)
    (root / "photo.jpg").write_bytes(b"\xff\xd8")
    assert watcher.relevant(cid, str(root), Change.added, "photo.jpg"), "a file of the notes' own is still seen"


def test_a_root_that_is_the_home_itself_leaves_out_sifts_files_only(immediate, monkeypatch, tmp_path):
    from ingest.discover import Rules, walk
    from workers import runtime
    from workers.watch import Watcher
    root = write_tree(tmp_path / "notes", NOTES).resolve()
    monkeypatch.setenv("SIFT_HOME", str(root))
    monkeypatch.setenv("SIFT_EMBEDDINGS", "off")  # what is read is the point, not vectors
    runtime.reset()
    ingest(root)
    conn = runtime.index()
    cid = conn.execute("SELECT id FROM collections").fetchone()[0]
    assert {f.path for f in walk(root, Rules())} == set(NOTES)
    assert not file_reads.unread_counts(conn, cid)
    watcher = Watcher(conn, Rules())
    for name in ("index.db-wal", "queue.db-shm", "index.db-wal-of", "models/x.gguf", "space-reserve"):
        assert not watcher.relevant(cid, str(root), Change.added, name), name
    (root / "todo.txt").write_text("buy milk\n")
    assert watcher.relevant(cid, str(root), Change.modified, "todo.txt")


def test_a_root_inside_the_homes_models_folder_reads_nothing_of_it(monkeypatch, tmp_path):
    from ingest.discover import Rules, walk, why_not_indexed
    home = tmp_path / "home"
    write_tree(home / "models", {"readme.md": "# Models\n", "x.gguf": "GGUF"})
    write_tree(home / "notes", {"a.md": "# A\n"})
    monkeypatch.setenv("SIFT_HOME", str(home))
    assert walk(home / "models", Rules()) == []
    assert "Sift's own" in why_not_indexed(home / "models", "readme.md", Rules())
    assert [f.path for f in walk(home / "notes", Rules())] == ["a.md"], "a folder of notes inside the home is read"


def test_ingest_enqueue_says_that_the_home_inside_the_folder_is_left_out(sift_env, tmp_path):
    from tests.conftest import run_ingest
    root = write_tree(tmp_path / "notes", NOTES).resolve()
    env = dict(sift_env, SIFT_HOME=str(root / "sift"), SIFT_EMBEDDINGS="off")
    result = run_ingest(env, "enqueue", str(root))
    assert result.returncode == 0, result.stderr
    assert f"Sift's home ({root / 'sift'}) lies inside {root}: it is left out" in result.stderr
    write_tree(tmp_path / "own" / "models", {"readme.md": "# Models\n"})
    inside = run_ingest(dict(env, SIFT_HOME=str(tmp_path / "own")), "enqueue", str(tmp_path / "own" / "models"))
    assert "in a folder of Sift's own: nothing in it will be indexed" in inside.stderr, inside.stderr


@pytest.mark.timeout(120)
def test_the_watcher_does_not_watch_a_home_inside_its_root(immediate, monkeypatch, tmp_path):
    """Real file events (watchfiles, as the watcher runs it): the writes of the home's index and models make none,
    while a note beside the home, one below it and one in a folder made after the watch began are seen."""
    from ingest.discover import Rules
    from workers import runtime
    from workers.watch import Watcher, watch_plan
    root = write_tree(tmp_path / "notes", NOTES).resolve()
    home = root / "deep" / "sift"
    write_tree(root / "deep" / "beside", {"b.md": "# B\n"})
    monkeypatch.setenv("SIFT_HOME", str(home))
    monkeypatch.setenv("SIFT_EMBEDDINGS", "off")
    runtime.reset()
    ingest(root)
    (home / "models").mkdir(exist_ok=True)
    watcher = Watcher(runtime.index(), Rules(), threading.Event())
    watcher.refresh()
    deep, flat = watch_plan(list(watcher.roots.values()), watcher.rules.home)
    assert flat == [str(root), str(root / "deep")], flat
    assert str(root / "deep" / "beside") in deep and not [d for d in deep if d.startswith(str(home))], deep
    seen: set[str] = set()
    wanted = {str(root / "top.md"), str(root / "deep" / "beside" / "c.md")}
    for batch in watcher.batches(deep, flat):
        seen |= {path for _, path in batch}
        if not batch and not seen:  # the watches are up: the home's writes first, then the notes'
            (home / "index.db-wal").write_bytes(b"wal")
            (home / "models" / "x.gguf").write_bytes(b"GGUF")
            (root / "top.md").write_text("# Top\n")
            (root / "deep" / "beside" / "c.md").write_text("# C\n")
        if wanted <= seen:
            break
    assert not [path for path in seen if path.startswith(str(home))], f"the home is watched: {seen}"
    (root / "later").mkdir()  # a folder made beside the home's way down: watched once the watch is made again
    watcher.note({(Change.added, str(root / "later"))})
    assert watcher.replan
    assert str(root / "later") in watch_plan(list(watcher.roots.values()), watcher.rules.home)[0]


def test_sift_mcp_root_says_that_the_home_inside_the_folder_is_left_out(monkeypatch, tmp_path, capsys):
    """The note `sift-mcp --root` prints as it registers a folder that holds Sift's home (as `ingest enqueue` does),
    to stderr: the client's log. The server's own registration, in this process."""
    from mcp_server.server import register_root
    from search.settings import load
    root = write_tree(tmp_path / "notes", NOTES).resolve()
    monkeypatch.setenv("SIFT_HOME", str(root / "sift"))
    assert register_root(load(), str(root), None)[1] == "notes"
    said = capsys.readouterr().err
    assert (f"sift-mcp: note: Sift's home ({root / 'sift'}) lies inside {root}: it is left out of the collection "
            "(its index, queue, models)") in said, said
    assert f"sift-mcp: collection 'notes' is {root}" in said
