"""The queue on Redis (``SIFT_QUEUE=redis://…``): a real ``huey_consumer workers.app.huey`` and a real
``redis-server`` (tests/redis_server.py) index, publish, count the queue in ``ingest stats``, and bring back
what a killed consumer's jobs and a Redis that lost its data took with them."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import redis

from search.index import db
from search.query import reader
from tests.conftest import (
    Consumer, processes, run_ingest, run_ingest_here, stop_holding_no_write_lock, wait_published, write_tree)

QUEUE_KEY = "huey.redis.sift"  # huey's sorted set of the home queue "sift" (PriorityRedisStorage)


def _corpus(root: Path, n: int) -> dict[str, str]:
    """``n`` notes of a few paragraphs each, every one with its own words."""
    files = {}
    for i in range(n):
        body = "\n\n".join(f"Paragraph {j} of note {i} talks about topic{i}x{j} and the river number {i * 7 + j}."
                           for j in range(6))
        files[f"folder{i % 5}/note{i:03d}.md"] = f"# Note {i}\n\n{body}\n"
    write_tree(root, files)
    return files


def _visible(conn) -> dict[str, list[str]]:
    chunks: dict[str, list[str]] = {}
    for c in reader.visible_chunks(conn):
        chunks.setdefault(c["path"], []).append(c["text"])
    return chunks


def test_settings_parse_the_queue(monkeypatch):
    from search.settings import load
    monkeypatch.delenv("SIFT_QUEUE", raising=False)
    monkeypatch.delenv("SIFT_EMBED_REMOTE", raising=False)
    assert load().queue == "sqlite" and not load().embed_remote
    monkeypatch.setenv("SIFT_QUEUE", "redis://127.0.0.1:6390/2")
    assert load().queue == "redis://127.0.0.1:6390/2"
    monkeypatch.setenv("SIFT_QUEUE", "amqp://x")
    with pytest.raises(ValueError, match="SIFT_QUEUE='amqp://x': use sqlite"):
        load()
    monkeypatch.setenv("SIFT_QUEUE", "sqlite")
    monkeypatch.setenv("SIFT_EMBED_REMOTE", "1")
    with pytest.raises(ValueError, match="SIFT_EMBED_REMOTE=1 needs a Redis queue"):
        load()
    for given in ("yes", "true", "On"):  # the message quoted 1, whatever the user wrote
        monkeypatch.setenv("SIFT_EMBED_REMOTE", given)
        with pytest.raises(ValueError, match=f"SIFT_EMBED_REMOTE={given} needs a Redis queue"):
            load()


def test_make_huey_picks_the_backend(sift_env, redis_url):
    from huey import RedisHuey, SqliteHuey
    from search.settings import load
    from workers.app import make_huey
    assert isinstance(make_huey(load()), SqliteHuey)
    on_redis = make_huey(load(queue=redis_url))
    assert isinstance(on_redis, RedisHuey) and on_redis.storage.conn.ping()


@pytest.mark.timeout(900)
def test_a_real_consumer_on_redis_indexes_publishes_and_counts_the_queue(sift_env, redis_url, tmp_path, capsys):
    """`ingest` runs in the test's process (run_ingest_here, with env and its Redis queue): five processes
    cost ~2.5 s apiece on a busy machine; the consumer is a real process."""
    env = {**sift_env, "SIFT_QUEUE": redis_url}
    root = tmp_path / "notes"
    files = _corpus(root, 12)
    client = redis.Redis.from_url(redis_url)

    def ingest_here(*args: str):
        return run_ingest_here(capsys, *args, env=env)

    # no consumer yet: the discover job waits in Redis, and stats counts it
    assert ingest_here("enqueue", str(root), "--name", "notes").returncode == 0
    assert client.zcard(QUEUE_KEY) == 1
    stats = ingest_here("stats", "--json")
    assert stats.returncode == 0, stats.stderr
    assert json.loads(stats.stdout)["queue_pending"] == 1
    assert "jobs in queue: 1" in ingest_here("stats").stdout
    assert not (Path(env["SIFT_HOME"]) / "queue.db").exists(), "no SQLite queue beside the index"

    consumer = Consumer(env, 2, tmp_path / "consumer.log")
    try:
        conn = db.connect(Path(env["SIFT_HOME"]) / "index.db")
        wait_published(conn, "notes", None, consumer.proc, limit=600)
        chunks = _visible(conn)
        assert sorted(chunks) == sorted(files)
        assert all(chunks[p] for p in files)
        assert client.exists("sift.queue.kept"), "the consumer left its mark in Redis as it started"
        _until(lambda: client.zcard(QUEUE_KEY) == 0, "the queue to drain")
        assert json.loads(ingest_here("stats", "--json").stdout)["queue_pending"] == 0
        hits = ingest_here("search", "topic3x2", "--limit", "1")
        assert "note003.md" in hits.stdout, hits.stdout + hits.stderr
    finally:
        consumer.stop()


@pytest.mark.slow
@pytest.mark.timeout(1800)
def test_a_killed_consumer_and_a_redis_that_lost_the_queue_lose_nothing(sift_env, redis_url, tmp_path):
    """SIGKILL the consumer mid-build and empty Redis (a restart without persistence): the next consumer queues
    again, from what the index records, every file in flight. Then, with a consumer running, Redis is emptied
    again mid-build: the periodic check (every minute; here every 5 s) finds its mark gone and does the same."""
    env = {**sift_env, "SIFT_QUEUE": redis_url, "SIFT_FILES_PER_JOB": "2", "SIFT_RESCAN_MINUTES": "100000",
           "SIFT_PERIODIC_SECONDS": "5"}
    root = tmp_path / "notes"
    files = _corpus(root, 60)
    client = redis.Redis.from_url(redis_url)
    log = tmp_path / "consumer.log"
    index = Path(env["SIFT_HOME"]) / "index.db"
    consumers = [Consumer(env, 2, log)]
    try:
        assert run_ingest(env, "enqueue", str(root), "--name", "notes").returncode == 0
        conn = db.connect(index)
        _until(lambda: 4 <= _written(conn) < len(files) - 10, "a build part-way through")
        os.killpg(consumers[-1].proc.pid, signal.SIGKILL)
        consumers[-1].proc.wait(timeout=60)
        _until(lambda: not [p for p in processes() if p[3] == consumers[-1].proc.pid and p[1] != "Z"],
               "the killed consumer's workers to die")
        assert _written(conn) < len(files), "the kill landed mid-build"
        client.flushall()  # Redis restarted without persistence: every queued job is gone
        consumers.append(Consumer(env, 2, log))
        first = wait_published(conn, "notes", None, consumers[-1].proc, limit=1200)
        assert sorted(_visible(conn)) == sorted(files)
        assert "files were in jobs that were interrupted; queuing them again" in log.read_text()

        # the consumer keeps running; Redis loses everything mid-build. Every note is rewritten long (about
        # eight chunks each, all new to the embedding cache), so the build is still running when `ingest
        # enqueue` has returned and the test looks: a few short edits were all published before it could.
        for i in range(60):
            body = " ".join(f"rewritten words{i} sentence {k} about topic {k % 17}." for k in range(200))
            (root / f"folder{i % 5}/note{i:03d}.md").write_text(f"# Note {i}\n\n{body}\n")
        assert run_ingest(env, "enqueue", str(root), "--name", "notes").returncode == 0
        _until(lambda: _building(conn) and 1 <= _written(conn), "the second build to start")
        client.flushall()
        second = wait_published(conn, "notes", first, consumers[-1].proc, limit=1200)
        assert "the Redis queue lost its jobs" in log.read_text()
        chunks = _visible(conn)
        assert sorted(chunks) == sorted(files)
        assert "rewritten words0" in chunks["folder0/note000.md"][0], "the second build's edits are published"
        report = json.loads(run_ingest(env, "stats", "--json").stdout)
        collection = report["collections"][0]
        assert collection["published"]["id"] == second and not collection["published"]["failures"]
    finally:
        for c in consumers:
            c.stop()


def _building(conn):
    return conn.execute("SELECT id FROM generations WHERE state = 'building'").fetchone() is not None


def _written(conn) -> int:
    return conn.execute("SELECT count(*) FROM progress p JOIN generations g ON g.id = p.generation "
                        "WHERE g.state = 'building' AND p.stage = 'write' AND p.state = 'done'").fetchone()[0]


def _until(check, what: str, limit: float = 600) -> None:
    deadline = time.monotonic() + limit  # a safety net against a hung test, not a speed assertion
    while not check():
        if time.monotonic() > deadline:
            raise TimeoutError(f"never happened: {what}")
        time.sleep(0.05)


@pytest.mark.timeout(1800)
def test_redis_restarted_mid_build_with_appendonly_the_build_goes_on(sift_env, tmp_path, capsys):
    """Redis with ``appendonly yes`` (the README's advice) stopped mid-build and started again a few seconds later:
    it comes back with the queue, jobs that met it down are retried, and the build publishes whole. `ingest` runs
    in the test's process (run_ingest_here with env: Redis's queue); the consumer and Redis are real processes."""
    from tests.redis_server import RedisServer
    server = RedisServer(tmp_path / "redis-aof", appendonly=True)
    # a job that met Redis down and was lost (its next stage not queued) is found by the lost-job check: every 2 s,
    # after 5 s carried by no job, not every minute after a minute (the CI run took 182 s)
    env = {**sift_env, "SIFT_QUEUE": server.url, "SIFT_FILES_PER_JOB": "2", "SIFT_RESCAN_MINUTES": "100000",
           "SIFT_PERIODIC_SECONDS": "2", "SIFT_LOST_JOB_SECONDS": "5"}
    root = tmp_path / "notes"
    files = _corpus(root, 60)
    log = tmp_path / "consumer.log"
    consumer = Consumer(env, 2, log)
    try:
        assert run_ingest_here(capsys, "enqueue", str(root), "--name", "notes", env=env).returncode == 0
        conn = db.connect(Path(env["SIFT_HOME"]) / "index.db")
        _until(lambda: 4 <= _written(conn) < len(files) - 10, "a build part-way through")
        server.stop()  # SIGTERM: Redis writes its append-only file and exits
        time.sleep(3)
        assert _written(conn) < len(files), "Redis went down mid-build"
        server.start()
        wait_published(conn, "notes", None, consumer.proc, limit=1200)
        chunks = _visible(conn)
        assert sorted(chunks) == sorted(files)
        report = json.loads(run_ingest_here(capsys, "stats", "--json", env=env).stdout)
        assert not report["collections"][0]["published"]["failures"], "no file failed for the restart"
        assert "the Redis queue lost its jobs" not in log.read_text(), "nothing was lost: nothing queued again"
    finally:
        consumer.stop()
        server.stop()


# Runs the scan that `ingest enqueue` queued, in a process of its own, as a worker does (huey's dequeue and
# execute): the scan queues the build's parse jobs in Redis, where no worker takes them while the consumer is stopped.
def _drop_blocked_reads(client) -> None:
    """Close the connections of the (stopped) workers, so none waits in a blocking read of the queue: Redis itself
    would hand such a worker the next job queued, stopped or not (a clean-clone run lost the scan's own job so, to a
    worker that then ran it, and the test found nothing to delete). Every connection but this client's is closed,
    not only those Redis shows blocked: a read a worker sent just before it stopped may not have reached Redis yet
    (the test waited 0.2 s for it, which a loaded machine can outlast), and its connection is closed all the same.
    Each worker meets a closed connection when it is continued, as after a network blip, and reads again."""
    client.client_kill_filter(_type="normal", skipme=True)


# A periodic task the scheduler queued before it was stopped (rescan_due, at a minute's turn) may stand before the
# scan: it is put back, after the scan, as a worker would have run it (a clean-clone run dequeued it and failed).
RUN_THE_SCAN = """
from workers.app import huey
import workers.tasks
others = []
task = huey.dequeue()
while task is not None and task.name.rsplit('.', 1)[-1] != 'discover':
    others.append(task)
    task = huey.dequeue()
assert task is not None, others
huey.execute(task)
for other in others:
    huey.enqueue(other)
"""


@pytest.mark.slow  # a real consumer and a scan of its own process
@pytest.mark.timeout(900)
def test_a_job_deleted_from_redis_mid_build_is_queued_again(sift_env, redis_url, tmp_path):
    """One job of a build deleted from Redis's queue while the consumer runs on (as when Redis stopped 3 ms after
    an embed job queued its write: a CI run hung 20 min). The worker's periodic check (every minute; here every
    5 s, SIFT_PERIODIC_SECONDS) finds its files carried by no job at two checks and queues them again; the build
    publishes whole. Without the check it waits for the stall rescan, 10 min after the build's last progress.
    No race: the consumer starts (its recovery at start done, its mark in Redis) and is then stopped (SIGSTOP)
    while the scan queues the parse jobs and the test deletes one, so no worker can take the jobs first; it is
    continued (SIGCONT) as it was, so only its running check, not a start, can find the lost files."""
    from search.settings import load
    from workers.app import make_huey
    env = {**sift_env, "SIFT_QUEUE": redis_url, "SIFT_FILES_PER_JOB": "2", "SIFT_RESCAN_MINUTES": "100000",
           "SIFT_LOST_JOB_SECONDS": "0", "SIFT_PERIODIC_SECONDS": "5"}
    root = tmp_path / "notes"
    files = _corpus(root, 12)
    client = redis.Redis.from_url(redis_url)
    app = make_huey(load(queue=redis_url))
    log = tmp_path / "consumer.log"
    consumer = Consumer(env, 2, log)
    stopped = False
    try:
        _until(lambda: client.exists("sift.queue.kept"), "the consumer to start (its mark in Redis)")
        # the scheduler and its workers: none takes a job now, and none holds index.db's write lock (stopped in its
        # periodic check's write, ingest enqueue met 'database is locked': a clean-clone run failed so)
        stop_holding_no_write_lock(consumer, [Path(env["SIFT_HOME"]) / "index.db"])
        stopped = True
        _drop_blocked_reads(client)
        assert run_ingest(env, "enqueue", str(root), "--name", "notes").returncode == 0
        scan = subprocess.run([sys.executable, "-c", RUN_THE_SCAN], cwd=Path(__file__).parents[1], env=env,
                              capture_output=True, text=True, timeout=600)
        assert scan.returncode == 0, scan.stderr
        queued = [(member, app.serializer.deserialize(member[8:])) for member in client.zrange(QUEUE_KEY, 0, -1)]
        parses = [(member, message) for member, message in queued if message.name.rsplit(".", 1)[-1] == "parse"]
        assert len(parses) == len(files) // 2, [message.name for _, message in queued]
        member, message = parses[len(parses) // 2]
        assert client.zrem(QUEUE_KEY, member) == 1, "one parse job deleted from the queue"
        lost = sorted(message.args[0].paths)
        os.killpg(consumer.proc.pid, signal.SIGCONT)
        stopped = False
        conn = db.connect(Path(env["SIFT_HOME"]) / "index.db")
        # the check needs two sightings (5 to 10 s here); the stall rescan would need ten minutes without
        # progress: a wait cut off well before that fails without the check, not only later
        wait_published(conn, "notes", None, consumer.proc, limit=420)
        chunks = _visible(conn)
        assert sorted(chunks) == sorted(files), "every note is published, the deleted job's too"
        text = log.read_text()
        said = [line for line in text.splitlines() if "(a job lost from the queue)" in line]
        assert len(said) == 1 and all(path in said[0] for path in lost), (lost, said)
        assert "were in jobs that were interrupted" not in text, "found by the running check, not by a start"
        assert "periodic rescan of collection" not in text and "the Redis queue lost its jobs" not in text, text
        report = json.loads(run_ingest(env, "stats", "--json").stdout)
        assert not report["collections"][0]["published"]["failures"]
    finally:
        if stopped:
            os.killpg(consumer.proc.pid, signal.SIGCONT)
        consumer.stop()


def test_ingest_enqueue_with_redis_stopped_says_so_in_one_line(sift_env, redis_server, tmp_path):
    """Redis stopped (here: its port with nothing listening, as after a shutdown): `ingest enqueue` printed
    redis's 60-line traceback. Now one line names the Redis, why, and what to do, with status 2."""
    from tests.redis_server import free_port
    port = free_port()
    env = {**sift_env, "SIFT_QUEUE": f"redis://:secret@127.0.0.1:{port}/0", "SIFT_EMBED_REMOTE": "1"}
    root = write_tree(tmp_path / "notes", {"a.md": "# A\n\nalpha words\n"})
    done = run_ingest(env, "enqueue", str(root), "--name", "notes")
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr, done.stderr
    assert done.stderr.startswith(f"ingest: error: the queue's Redis at 127.0.0.1:{port}/0 cannot be used "
                                  "(ConnectionError: "), done.stderr
    assert "start Redis, or set SIFT_QUEUE" in done.stderr and "secret" not in done.stderr, done.stderr
