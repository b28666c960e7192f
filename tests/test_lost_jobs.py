"""A job lost from the queue while its consumer runs on must not stall its build (workers.lost).

The jobs run here as a worker runs them, through huey's own ``dequeue`` and ``execute`` on the real SQLite queue,
in this process, so that a test can take one job out of the queue (lost) or hold one between the queue and its
worker (a job between stages), deterministically. The check is the periodic task's (``rescan.rescan_due``),
queued and run like any job; ``SIFT_LOST_JOB_SECONDS=0`` lets two checks in a row count as a minute apart.
"""
from __future__ import annotations

import logging
import os
import signal
import threading
import time
from pathlib import Path

import pytest

from search.index import collection_reads, db, file_reads, generation_reads, progress_reads, store
from tests.conftest import Consumer, processes, run_ingest, wait_published, write_tree

LOST_LINE = "(a job lost from the queue): queuing them again from parse"


@pytest.fixture
def queue(sift_env, monkeypatch, tmp_path):
    """The home's real SQLite queue, not in immediate mode, with 2 files to a job and no grace between checks."""
    monkeypatch.setenv("SIFT_FILES_PER_JOB", "2")
    monkeypatch.setenv("SIFT_LOST_JOB_SECONDS", "0")
    from workers import runtime
    runtime.reset()
    from workers.app import huey
    assert not huey.immediate
    yield huey
    runtime.reset()


def _notes(root, n: int = 10) -> list[str]:
    files = {f"note{i:02d}.md": f"# Note {i}\n\nnote {i} speaks of word{i}x and the sea.\n" for i in range(n)}
    write_tree(root, files)
    return sorted(files)


def _run(huey, take=None, until=None):
    """Run the queued jobs one by one as a worker does, until the queue is empty or ``until(task)`` is true of the
    job just taken (returned, not run). ``take(task)``: true of a job that is lost (taken, never run), once."""
    lost = None
    while (task := huey.dequeue()) is not None:
        if until is not None and until(task):
            return task
        if lost is None and take is not None and take(task):
            lost = task
            continue
        huey.execute(task)
    return lost


def _check(huey):
    """The periodic task, queued and run as the consumer's scheduler and a worker would."""
    from workers import rescan
    rescan.rescan_due()
    _run(huey)


def _build(tmp_path):
    from workers import runtime, tasks
    conn = runtime.index()
    collection = store.ensure_collection(conn, "notes", str((tmp_path / "notes").resolve()))
    tasks.scan(collection["id"], conn)
    return conn, collection["id"]


def _state(conn, collection_id):
    row = collection_reads.get_collection(conn, collection_id)
    return row["published"], generation_reads.building_generation(conn, collection_id)


def test_a_write_job_lost_from_the_queue_is_queued_again_and_the_build_publishes(queue, tmp_path, caplog):
    """The CI run's hang: an embed job queued its write job, and that one job was lost (Redis stopped 3 ms after);
    every other file was written and the generation waited for the last two for ever."""
    files = _notes(tmp_path / "notes")
    conn, collection_id = _build(tmp_path)
    lost = _run(queue, take=lambda task: task.name == "write")
    assert lost is not None, "a write job was taken out of the queue"
    batch = lost.args[0]
    published, building = _state(conn, collection_id)
    assert published is None and building is not None, "the build waits for the lost job's files"
    assert progress_reads.pending_paths(conn, building["id"]) == sorted(batch.paths)

    with caplog.at_level(logging.INFO, logger="sift.workers"):
        _check(queue)  # the first check only sees the files alone
        assert _state(conn, collection_id)[0] is None and LOST_LINE not in caplog.text
        _check(queue)  # the next finds them still alone, unmoved: queued again
    published, building = _state(conn, collection_id)
    assert building is None and published is not None, "the build published after the check"
    said = [r.getMessage() for r in caplog.records if LOST_LINE in r.getMessage()]
    assert len(said) == 1 and f"generation {published}: 2 files in flight" in said[0], said
    assert all(path in said[0] for path in batch.paths), said
    indexed = set(file_reads.current_files(conn, collection_id))
    assert indexed == set(files), "every note is indexed, the lost job's two with the rest"


def test_a_job_between_the_queue_and_its_worker_is_not_queued_again(queue, tmp_path, caplog):
    """A job a worker has taken from the queue and not yet started is in no queue and has no record of work: a
    check then finds its files alone. Here they are so at two checks, each time between two stages (the embed
    job taken, then the write job it queued), but they moved on in between: not lost."""
    _notes(tmp_path / "notes")
    conn, collection_id = _build(tmp_path)
    held = _run(queue, until=lambda task: task.name == "embed")
    assert held is not None, "an embed job was taken from the queue"
    paths = held.args[0].paths
    from workers import lost
    with caplog.at_level(logging.INFO, logger="sift.workers"):
        assert lost.check(queue) == {}
        queue.execute(held)  # the worker runs it: its files move on, and their write job is queued
        held = _run(queue, until=lambda task: task.name == "write" and task.args[0].paths == paths)
        assert held is not None, "the write job of the same files was taken from the queue"
        assert lost.check(queue) == {}, "files that moved since the first check are not taken for lost"
        queue.execute(held)
        _run(queue)
    published, building = _state(conn, collection_id)
    assert building is None and published is not None
    assert LOST_LINE not in caplog.text


@pytest.mark.parametrize("beside", [None, "idle", "starting"])
def test_a_job_at_work_is_not_queued_again_however_long_it_takes(queue, tmp_path, caplog, monkeypatch, beside):
    """A job at work (here a write waiting for the index's write lock, which the test holds) is in no queue: its
    worker's record (workers.running) carries its files through any number of checks. ``idle_beside``: while
    another worker thread of its process finds the queue empty (huey_consumer's workers are threads unless told
    ``-k process``): the records were kept by process, so that thread deleted the record of the job at work, and
    the check queued its files again while they were at work. ``starting``: while another consumer starts on this
    machine (a second sift-mcp, each with its worker): it forgot every record of the machine, the job's too."""
    from workers import running
    monkeypatch.setattr(running, "IDLE_EVERY", 0.0)
    _notes(tmp_path / "notes")
    conn, collection_id = _build(tmp_path)
    held = _run(queue, until=lambda task: task.name == "write")
    assert held is not None
    from workers import lost, running
    from search.settings import load
    blocker = db.connect(load().index_path)
    blocker.execute("BEGIN IMMEDIATE")
    worker = threading.Thread(target=queue.execute, args=(held,))
    worker.start()
    try:
        # the job has started and waits for the lock (its record, if it writes one); 120 s is a hang guard: 5 s
        # could pass on a loaded machine before the thread had written its record, and the test then failed
        waited = time.monotonic() + 120
        while not running.records(queue) and time.monotonic() < waited:
            time.sleep(0.01)
        assert worker.is_alive(), "the write job waits for the index's write lock"
        if beside == "starting":
            running.forget_here(queue)
        if beside == "idle":
            others = []  # the build's other jobs, set aside so that this thread finds the queue empty
            while (task := queue.dequeue()) is not None:
                others.append(task)
            for task in others:
                queue.enqueue(task)
        assert [r["paths"] for r in running.records(queue)] == [held.args[0].paths], "the record of the job at work"
        with caplog.at_level(logging.INFO, logger="sift.workers"):
            for _ in range(3):
                assert lost.check(queue) == {}, "the files of a job at work are carried"
    finally:
        blocker.rollback()
        worker.join()
        blocker.close()
    assert not running.records(queue), "the record went with the job"
    _run(queue)
    published, building = _state(conn, collection_id)
    assert building is None and published is not None
    assert LOST_LINE not in caplog.text


def test_no_file_is_queued_again_while_a_starting_consumer_recovers(queue, tmp_path, caplog):
    """A consumer that starts queues again what the index says is in flight (workers.recover); while it does (its
    mark in the queue), the running consumers' checks queue nothing, else both would queue the same files."""
    _notes(tmp_path / "notes")
    conn, collection_id = _build(tmp_path)
    assert _run(queue, take=lambda task: task.name == "write") is not None
    from workers import lost, recover
    with recover.recovering(queue):
        assert [lost.check(queue) for _ in range(3)] == [{}, {}, {}], "nothing queued while a consumer recovers"
    assert lost.check(queue) == {}  # a check after it starts afresh: what it saw was the starting consumer's
    queued = lost.check(queue)
    assert [len(paths) for paths in queued.values()] == [2], queued
    _run(queue)
    published, building = _state(conn, collection_id)
    assert building is None and published is not None


def test_a_record_of_work_whose_delete_was_lost_goes_once_its_worker_is_idle(queue, tmp_path, monkeypatch):
    """The CI run's case again, worse: Redis stopped just after the job ended, and came back from its append-only
    file without the job's next stage and without the delete of the job's record: a live, idle worker's record
    still names the lost job's files. The worker deletes its record when it finds the queue empty."""
    from workers import running
    monkeypatch.setattr(running, "IDLE_EVERY", 0.0)  # every empty poll, not every 10 s: the test polls a few times
    _notes(tmp_path / "notes")
    conn, collection_id = _build(tmp_path)
    lost = _run(queue, take=lambda task: task.name == "write")
    batch = lost.args[0]
    queue.put(running._key(), {"gen": batch.gen, "collection": batch.collection, "paths": batch.paths, "at": 0.0})
    assert [r["paths"] for r in running.records(queue)] == [batch.paths], "the record outlived its job"
    _run(queue)  # the worker polls: the queue is empty
    _check(queue)
    _check(queue)
    published, building = _state(conn, collection_id)
    assert building is None and published is not None, "the build published once the stale record went"


@pytest.mark.slow
@pytest.mark.timeout(1200)
def test_a_worker_killed_inside_the_publish_leaves_a_build_the_check_publishes(sift_env, tmp_path):
    """The one worker of a real consumer SIGKILLed inside the publish transaction (held open by the test hook
    SIFT_FAULT_PAUSE_PUBLISH): every file is written, nothing publishes them, and no job is left. The consumer
    starts a new worker and runs on; its check (every minute; here every 5 s) publishes the generation. Before,
    the periodic rescan did, once the build had not moved for ten minutes. The publish is held until the test has
    killed the worker and looked (held 10 s, it could commit first on a loaded machine), then let go for the check's."""
    release = tmp_path / "release-publish"
    env = {**sift_env, "SIFT_LOST_JOB_SECONDS": "0", "SIFT_FAULT_PAUSE_PUBLISH": "600",
           "SIFT_FAULT_RELEASE_PUBLISH": str(release), "SIFT_RESCAN_MINUTES": "100000", "SIFT_PERIODIC_SECONDS": "5"}
    files = _notes(tmp_path / "notes", 6)
    log = tmp_path / "consumer.log"
    consumer = Consumer(env, 1, log)
    try:
        assert run_ingest(env, "enqueue", str(tmp_path / "notes"), "--name", "notes").returncode == 0
        deadline = time.monotonic() + 600  # a safety net against a hung test, not a speed assertion
        while "SIFT_FAULT_PAUSE_PUBLISH: publish of generation" not in log.read_text():
            assert time.monotonic() < deadline and consumer.proc.poll() is None, "the publish began"
            time.sleep(0.05)
        index = Path(env["SIFT_HOME"]) / "index.db"
        workers = [p[0] for p in processes() if p[2] == consumer.proc.pid and p[1] != "Z" and _opened(p[0], index)]
        assert len(workers) == 1, workers  # the worker (the scheduler process has no index open)
        os.kill(workers[0], signal.SIGKILL)
        conn = db.connect(index)
        assert collection_reads.get_collection(conn, 1)["published"] is None, "the kill landed inside the publish"
        release.touch()  # the check's publish, in the new worker, commits
        wait_published(conn, "notes", None, consumer.proc, limit=900)
        assert "every file is done and no job published it" in log.read_text()
        assert set(file_reads.current_files(conn, 1)) == set(files)
    finally:
        consumer.stop()


def _opened(pid: int, path: Path) -> bool:
    """Whether process ``pid`` has ``path`` open."""
    try:
        return any(os.readlink(fd) == str(path) for fd in Path(f"/proc/{pid}/fd").iterdir())
    except OSError:
        return False


def test_a_starting_consumer_forgets_the_records_no_worker_holds(queue):
    """A record under a dead pid, or written before the machine started (its pid may name another process now),
    carries nothing: a starting consumer forgets it; a live worker's record, written since, stays."""
    from workers import running
    host = running._key().rsplit(":", 2)[0]
    live, dead, before = f"{host}:{os.getpid()}:1", f"{host}:{2 ** 22 + 7}:1", f"{host}:{os.getppid()}:1"
    queue.put(live, {"gen": 1, "collection": 1, "paths": ["a.md"], "at": time.time()})
    queue.put(dead, {"gen": 1, "collection": 1, "paths": ["b.md"], "at": time.time()})
    queue.put(before, {"gen": 1, "collection": 1, "paths": ["c.md"], "at": 0.0})
    running.forget_here(queue)
    assert [r["paths"] for r in running.records(queue)] == [["a.md"]]
    assert sorted(k for k in queue.all_results() if k.startswith(running.PREFIX)) == [live]


def test_each_idle_worker_thread_deletes_its_own_stale_record(queue):
    """Two worker threads of one consumer (huey_consumer's default) each ended a job whose record's delete the
    queue lost; each then finds the queue empty, one just after the other, as idle workers polling at the same pace
    do. The 10 s between an idle worker's deletes was counted per process while the records are per thread: the
    first thread's delete held back the second's, at every poll, so its record carried its job's files for as long
    as both stayed idle (the build waiting for them). Here IDLE_EVERY keeps its default."""
    from workers import running
    started, polled = threading.Barrier(2), [threading.Event(), threading.Event()]

    def worker(i: int) -> None:
        record = {"gen": 1, "collection": 1, "paths": [f"t{i}.md"], "at": time.time()}
        with running.job(queue, 1, 1, record["paths"]):
            pass
        queue.put(running._key(), record)  # the delete the queue lost
        started.wait()
        if i:
            polled[0].wait()
        assert queue.dequeue() is None, "the queue is empty: this worker is idle"
        polled[i].set()
        polled[1].wait()  # both threads live until both polled (a thread's id may be taken again once it ends)

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert [r["paths"] for r in running.records(queue)] == [], "each idle worker deleted its own record"


def test_the_periodic_task_runs_every_sift_periodic_seconds(queue, monkeypatch):
    """The consumer's scheduler queues the periodic task (the lost-job check among its parts) every
    SIFT_PERIODIC_SECONDS, huey's minute unless told: the real-process tests set a few seconds, so that the two
    checks a lost job needs cost seconds, not minutes. More than a minute is refused (a worker's model counts as
    at work for two minutes after its last job, the periodic one included)."""
    from search.settings import load
    from workers import halt
    from workers.app import Consumer
    monkeypatch.setattr(halt, "_armed", [])  # a consumer arms its process's halt: this one is never run
    monkeypatch.delenv("SIFT_PERIODIC_SECONDS", raising=False)
    assert Consumer(queue, workers=1)._create_scheduler().periodic_task_seconds == 60
    monkeypatch.setenv("SIFT_PERIODIC_SECONDS", "2.5")
    assert Consumer(queue, workers=1)._create_scheduler().periodic_task_seconds == 2.5
    # less than a second: huey's scheduler, which ticks once a second, stepped its next periodic time on by it until
    # past the clock: 1e-12 added to the clock changed nothing, and the scheduler looped for good (no periodic task,
    # no retry run again); 0.001 stepped a thousand times a tick
    for wrong, said in (("61", "must be at most 60"), ("0", "must be at least 1"), ("1e-12", "must be at least 1"),
                        ("0.5", "must be at least 1"), ("-5", "must be at least 1"), ("soon", "is not a number")):
        monkeypatch.setenv("SIFT_PERIODIC_SECONDS", wrong)
        with pytest.raises(ValueError, match=f"SIFT_PERIODIC_SECONDS='?{wrong}'?.* {said}"):
            load()
