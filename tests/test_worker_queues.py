"""The home's worker app and an embedding machine make their Redis queue and share the cores one way
(workers/queues.py), against a real redis-server; and stats reads which scans wait in the queue, on SQLite and on
Redis alike (workers/waiting.py)."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.conftest import REPO, run_ingest, run_ingest_here, write_tree


def test_the_home_and_an_embedding_machine_reach_redis_alike(sift_env, redis_url, monkeypatch):
    from huey import PriorityRedisHuey
    from search.settings import load
    monkeypatch.setenv("SIFT_QUEUE", redis_url)  # workers.embedder makes its queue when imported
    monkeypatch.delenv("SIFT_QUEUE_IMMEDIATE", raising=False)
    from workers import app, embedder, queues
    settings = load(queue=redis_url)
    made = {"home": app.make_huey(settings), "embedder": embedder.make_huey(settings)}
    assert {name: huey.name for name, huey in made.items()} == {"home": app.QUEUE_NAME,
                                                                "embedder": embedder.QUEUE_NAME}
    for name, huey in made.items():
        assert isinstance(huey, PriorityRedisHuey), name  # later stages first, as on SQLite
        pool = huey.storage.conn.connection_pool
        assert pool.connection_kwargs["socket_connect_timeout"] == 5, name  # never hang on a lost Redis
        assert not huey.immediate and huey.storage.conn.ping(), name
    assert isinstance(made["home"], app.SiftRedisHuey)
    monkeypatch.setenv("SIFT_QUEUE_IMMEDIATE", "1")  # tests: both run their jobs in the calling process
    assert app.make_huey(settings).immediate and embedder.make_huey(settings).immediate
    assert queues.redis_pool(redis_url).connection_kwargs["socket_connect_timeout"] == 5


def test_worker_threads_share_the_cores_among_the_workers(monkeypatch):
    from search.settings import load
    from workers import queues
    monkeypatch.setattr(os, "cpu_count", lambda: 8)
    assert [queues.worker_threads(load(workers=n)) for n in (1, 2, 3, 8, 16)] == [8, 4, 2, 1, 1]
    monkeypatch.setattr(os, "cpu_count", lambda: None)  # unknown: one thread
    assert queues.worker_threads(load(workers=2)) == 1


# A worker that takes jobs from the real queue one at a time, in its own process (SIFT_QUEUE_IMMEDIATE unset),
# kept for the whole test: told a count on stdin, it takes ``count`` jobs, or every job until the queue is empty
# (-1), and says so. A process started for each step imported huey and every parser again each time (about 0.6 s
# of CPU, ten to thirty steps a test).
TAKE_JOBS = """
import sys
from workers.app import huey
for line in sys.stdin:
    count = int(line)
    while count:
        task = huey.dequeue()
        if task is None:
            break
        huey.execute(task)
        count -= 1
    print(DONE, flush=True)
""".replace("DONE", repr("-- jobs taken --"))


class Worker:
    def __init__(self, env: dict, log: Path):
        self.log = log
        with open(log, "w") as errors:
            self.proc = subprocess.Popen([sys.executable, "-c", TAKE_JOBS], cwd=REPO, env=env, text=True,
                                         stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=errors)

    def take(self, count: int = -1) -> None:
        self.proc.stdin.write(f"{count}\n")
        self.proc.stdin.flush()
        for line in self.proc.stdout:  # a line a job printed goes by; the end of the file is a worker that died
            if line == "-- jobs taken --\n":
                return
        raise AssertionError(f"the worker died: {self.log.read_text()}")

    def stop(self) -> None:
        self.proc.stdin.close()
        self.proc.wait(timeout=60)
        self.proc.stdout.close()
        assert self.proc.returncode == 0, self.log.read_text()


@pytest.fixture
def worker(tmp_path):
    """``worker(env)``: a Worker of the test's own, stopped (and checked to have ended well) after it."""
    started: list[Worker] = []

    def start(env: dict) -> Worker:
        started.append(Worker(env, tmp_path / f"worker-{len(started)}.log"))
        return started[-1]

    yield start
    for w in started:
        w.stop()


def _section(text: str, name: str) -> str:
    """The lines ``ingest stats`` prints of one collection."""
    return text.split(f"\n{name}  ", 1)[1].split("\n\n", 1)[0]


# `ingest stats`, then `ingest stats --json`, as the ingest script runs each (ingest.cli.main), in one process: two
# processes' start cost twice as much, and this is how often the tests ask.
STATS = """
from ingest.cli import main
main(["stats"])
print(SEPARATOR, flush=True)
main(["stats", "--json"])
""".replace("SEPARATOR", repr("-- json --"))


def _stats(env: dict) -> tuple[str, dict]:
    done = subprocess.run([sys.executable, "-c", STATS], cwd=REPO, env=env, capture_output=True, text=True,
                          timeout=600)
    assert done.returncode == 0, done.stderr
    text, data = done.stdout.split("-- json --\n")
    return text, {c["name"]: c for c in json.loads(data)["collections"]}


@pytest.mark.timeout(900)
@pytest.mark.parametrize("backend", ["sqlite", "redis"])
def test_stats_says_a_queued_scan_waits_behind_another_collections_build(sift_env, tmp_path, request, backend,
                                                                         worker):
    """One worker, two collections: `ingest enqueue notes` then `ingest enqueue code`. Until a worker takes it,
    notes' scan waits behind code's rescan (code is published: it goes first), and code's next rescan behind
    notes' build (a small one: its jobs go first); stats said only 'published: nothing yet' (or, for a
    collection published before, nothing at all)."""
    env = {k: v for k, v in sift_env.items() if k != "SIFT_QUEUE_IMMEDIATE"}
    env.update(SIFT_FILES_PER_JOB="2", SIFT_EMBEDDINGS="off")
    if backend == "redis":
        env["SIFT_QUEUE"] = request.getfixturevalue("redis_url")
    jobs = worker(env)
    notes = write_tree(tmp_path / "notes", {f"n{i}.md": f"# Note {i}\n\nrivers and hills {i}\n" for i in range(9)})
    code = write_tree(tmp_path / "code", {"a.py": "def f():\n    return 1\n"})
    assert run_ingest(env, "enqueue", str(code), "--name", "code").returncode == 0
    jobs.take()  # code is published

    assert run_ingest(env, "enqueue", str(notes), "--name", "notes").returncode == 0
    assert run_ingest(env, "enqueue", str(code), "--name", "code").returncode == 0  # a rescan: ahead of notes' scan
    text, found = _stats(env)
    assert found["notes"]["queued_scan"]["jobs_ahead"] == 1 and found["notes"]["queued_scan"]["scans_ahead"] == ["code"]
    assert "  waiting: a scan is queued behind 1 job (a scan of code goes first); it starts once it is done " \
           "(queued " in text, text
    assert found["code"]["queued_scan"]["jobs_ahead"] == 0
    assert "  waiting: a rescan is queued, next in line; it starts when a worker is free (queued " in text, text

    jobs.take(2)  # code's rescan, then notes' scan, which queues its files' jobs
    assert run_ingest(env, "enqueue", str(code), "--name", "code").returncode == 0  # behind notes' small build
    text, found = _stats(env)
    pending = json.loads(run_ingest(env, "stats", "--json").stdout)["queue_pending"]
    assert pending > 1 and found["notes"]["building"] and found["notes"]["queued_scan"] is None
    waiting = found["code"]["queued_scan"]
    assert waiting["jobs_ahead"] == pending - 1 and waiting["building_ahead"] == ["notes"], waiting
    assert waiting["scans_ahead"] == [] and time.time() - waiting["queued_at"] < 600
    assert f"  waiting: a rescan is queued behind {pending - 1} jobs (notes is being built); it starts once they " \
           "are done (queued " in text, text

    jobs.take()  # all done: nothing waits
    text, found = _stats(env)
    assert "waiting:" not in text and all(c["queued_scan"] is None for c in found.values())


@pytest.mark.timeout(900)
@pytest.mark.parametrize("backend", ["sqlite", "redis"])
def test_an_edit_goes_ahead_of_another_collections_big_build(sift_env, tmp_path, request, backend, worker, capsys):
    """A note edited while another collection is built (notes-en: 1,874 files) was searchable only once that whole
    build was done, 22 min later: the watcher queued its rescan only into an empty queue, and a scan went behind
    every job of a build. Now the rescan of a published collection is queued at once and goes first, and so do
    the jobs of its small build; the big build's jobs wait meanwhile, and then go on."""
    env = {k: v for k, v in sift_env.items() if k != "SIFT_QUEUE_IMMEDIATE"}
    env.update(SIFT_FILES_PER_JOB="2", SIFT_EMBEDDINGS="off")
    if backend == "redis":
        env["SIFT_QUEUE"] = request.getfixturevalue("redis_url")
    jobs = worker(env)
    notes = write_tree(tmp_path / "notes", {"a.md": "# A\n\nrivers and hills\n", "b.md": "# B\n\nvalleys\n"})
    size = 60  # files: more than workers.tasks.SMALL_BUILD
    big = write_tree(tmp_path / "big", {f"b{i}.md": f"# Big {i}\n\nmeadows {i}\n" for i in range(size)})
    assert run_ingest(env, "enqueue", str(notes), "--name", "notes").returncode == 0
    jobs.take()  # notes is published
    assert run_ingest(env, "enqueue", str(big), "--name", "big").returncode == 0
    jobs.take(1)  # big's scan queues the jobs of its files
    (notes / "a.md").write_text("# A\n\nkingfishers by the weir\n")

    asked = subprocess.run([sys.executable, "-c", REQUEST_SCAN], cwd=REPO, env=env, capture_output=True, text=True,
                           timeout=600)
    assert asked.stdout.strip() == "True", asked.stdout + asked.stderr  # the watcher's request: queued at once
    text, found = _stats(env)
    assert found["notes"]["queued_scan"]["jobs_ahead"] == 0 and found["notes"]["queued_scan"]["building_ahead"] == []
    assert "  waiting: a rescan is queued, next in line; it starts when a worker is free (queued " in text, text

    for _ in range(10):  # notes' rescan and its build's jobs, one at a time: none of big's is taken meanwhile
        jobs.take(1)
        text, found = _stats(env)
        assert found["big"]["building"]["stages"]["parse"]["queued"] == size, text
        assert "its files are queued behind" not in _section(text, "notes"), text  # its build goes first
        if found["notes"]["building"] is None:
            break
    hits = run_ingest_here(capsys, "search", "kingfishers", "--mode", "keyword", env=env)  # the test's home: env's
    assert "a.md" in hits.stdout, hits.stdout + hits.stderr

    jobs.take()  # then the big build goes on, to the end
    text, found = _stats(env)
    assert found["big"]["building"] is None and found["big"]["published"], text


@pytest.mark.parametrize("backend", ["sqlite", "redis"])
def test_ingest_run_here_reads_the_home_and_queue_of_the_environment_it_is_given(sift_env, tmp_path, request,
                                                                                  backend, capsys):
    """conftest's run_ingest_here(env=…), which the tests above search with: it ran in the test process's own
    environment, and with this process's huey, whose queue is the one it was imported with (the session's home's,
    on SQLite), so a search 'in the test's home' on Redis read another queue. A scan queued with no worker shows."""
    from workers import app  # noqa: F401  (imported, as when other modules' tests ran first: huey reads the queue)
    env = {k: v for k, v in sift_env.items() if k != "SIFT_QUEUE_IMMEDIATE"}
    env.update(SIFT_HOME=str(tmp_path / "other-home"), SIFT_EMBEDDINGS="off")
    if backend == "redis":
        env["SIFT_QUEUE"] = request.getfixturevalue("redis_url")
    notes = write_tree(tmp_path / "notes", {"a.md": "# A\n\nrivers\n"})
    assert run_ingest(env, "enqueue", str(notes), "--name", "notes").returncode == 0
    said = json.loads(run_ingest_here(capsys, "stats", "--json", env=env).stdout)
    assert [c["name"] for c in said["collections"]] == ["notes"] and said["queue_pending"] == 1, said


# The watcher's request for a scan of collection 1 (workers.watch -> workers.rescan.request_scan): queued or not.
REQUEST_SCAN = "from workers import rescan; print(rescan.request_scan(1))"


# The worker's periodic rescan, run once here (workers.rescan.rescan_due), then the scans waiting in the queue.
PERIODIC_RESCAN = """
from workers import rescan, waiting
rescan.rescan_due.call_local()
print(sorted(scan["collection"] for scan in waiting.queued()))
"""


@pytest.mark.timeout(900)
def test_the_periodic_rescan_goes_ahead_of_another_collections_big_build(sift_env, tmp_path, worker, capsys):
    """The periodic rescan queued nothing while any job waited, so during another collection's big build (notes-en:
    1,874 files, 22 min) no published collection was rescanned by it: an edit the watcher missed waited for the
    whole build. It now follows the watcher's rule: a rescan of a published collection is queued (and goes first),
    once; the collection being built is not scanned meanwhile."""
    env = {k: v for k, v in sift_env.items() if k != "SIFT_QUEUE_IMMEDIATE"}
    env.update(SIFT_FILES_PER_JOB="2", SIFT_EMBEDDINGS="off")
    jobs = worker(env)
    notes = write_tree(tmp_path / "notes", {"a.md": "# A\n\nrivers and hills\n"})
    big = write_tree(tmp_path / "big", {f"b{i}.md": f"# Big {i}\n\nmeadows {i}\n" for i in range(60)})
    assert run_ingest(env, "enqueue", str(notes), "--name", "notes").returncode == 0
    jobs.take()  # notes is published
    assert run_ingest(env, "enqueue", str(big), "--name", "big").returncode == 0
    jobs.take(1)  # big's scan queues the jobs of its files
    (notes / "a.md").write_text("# A\n\nkingfishers by the weir\n")  # an edit no watcher saw

    env["SIFT_RESCAN_MINUTES"] = "0.0001"  # every collection is due
    jobs.stop()
    jobs = worker(env)  # the jobs that follow are taken with that setting too
    for _ in range(2):  # the second run finds notes' rescan waiting: no other is queued
        periodic = subprocess.run([sys.executable, "-c", PERIODIC_RESCAN], cwd=REPO, env=env, capture_output=True,
                                  text=True, timeout=600)
        assert periodic.returncode == 0 and periodic.stdout.strip() == "[1]", periodic.stdout + periodic.stderr
    for _ in range(10):  # notes' rescan and its small build go first
        jobs.take(1)
        if "kingfishers" in run_ingest_here(capsys, "search", "kingfishers", "--mode", "keyword", env=env).stdout:
            break
    else:
        raise AssertionError("the edit was not searchable after ten jobs")
    _, found = _stats(env)
    assert found["big"]["building"] and found["big"]["building"]["stages"]["parse"]["queued"] == 60


@pytest.mark.timeout(900)
def test_the_periodic_rescan_leaves_a_build_whose_jobs_wait_their_turn(sift_env, tmp_path, worker):
    """A build that has not moved for ten minutes looks stalled, but while jobs wait its own may only be waiting
    their turn: a rescan then would queue its files a second time (and again every ten minutes). Only an empty
    queue shows the jobs lost."""
    from search.index import db
    env = {k: v for k, v in sift_env.items() if k != "SIFT_QUEUE_IMMEDIATE"}
    env.update(SIFT_FILES_PER_JOB="2", SIFT_EMBEDDINGS="off", SIFT_RESCAN_MINUTES="0.0001")
    jobs = worker(env)
    notes = write_tree(tmp_path / "notes", {f"n{i}.md": f"# Note {i}\n\nrivers {i}\n" for i in range(4)})
    assert run_ingest(env, "enqueue", str(notes), "--name", "notes").returncode == 0
    jobs.take()  # notes is published
    for i in range(4):
        (notes / f"n{i}.md").write_text(f"# Note {i}\n\nkingfishers {i}\n")
    assert run_ingest(env, "enqueue", str(notes), "--name", "notes").returncode == 0
    jobs.take(1)  # its scan queues the jobs of its build
    conn = db.connect(Path(env["SIFT_HOME"]) / "index.db")
    conn.execute("UPDATE generations SET started = started - 3600, discovered = discovered - 3600 "
                 "WHERE state = 'building'")
    conn.execute("UPDATE progress SET updated = updated - 3600")  # nothing has moved for an hour
    conn.execute("UPDATE collections SET scan_started = scan_started - 3600")
    conn.commit()
    periodic = subprocess.run([sys.executable, "-c", PERIODIC_RESCAN], cwd=REPO, env=env, capture_output=True,
                              text=True, timeout=600)
    assert periodic.returncode == 0 and periodic.stdout.strip() == "[]", periodic.stdout + periodic.stderr


# A worker killed as it took a job (it is deleted from the SQLite queue then), and the next consumer's start
# (workers.recover.resume); prints each waiting job's stage and priority.
KILLED_THEN_RESUMED = """
from workers import recover
from workers.app import huey
huey.dequeue()  # taken, never done
recover.resume(huey)
print(sorted((task.name, task.priority) for task in huey.pending()))
"""


@pytest.mark.timeout(900)
def test_jobs_queued_again_after_a_crash_keep_a_small_builds_priority(sift_env, tmp_path, worker):
    """A small build's jobs go ahead of bigger builds' (workers.tasks.priority); those a crashed consumer lost were
    queued again at the stage's own priority, behind every job of a big build under way."""
    from workers import tasks
    env = {k: v for k, v in sift_env.items() if k != "SIFT_QUEUE_IMMEDIATE"}
    env.update(SIFT_FILES_PER_JOB="2", SIFT_EMBEDDINGS="off")
    jobs = worker(env)
    notes = write_tree(tmp_path / "notes", {f"n{i}.md": f"# Note {i}\n\nrivers {i}\n" for i in range(4)})
    assert run_ingest(env, "enqueue", str(notes), "--name", "notes").returncode == 0
    jobs.take(1)  # the scan queues two parse jobs of its small build
    done = subprocess.run([sys.executable, "-c", KILLED_THEN_RESUMED], cwd=REPO, env=env, capture_output=True,
                          text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    parse, publish = tasks.priority(tasks.parse, True), tasks.priority(tasks.publish, True)
    assert done.stdout.strip() == str(sorted([("parse", parse), ("parse", parse), ("publish", publish)])), done.stdout


# An embedding machine's round trip through Redis (workers.remote.send -> workers.embedder.embed -> the home's
# workers.tasks.embedded) of one batch, small build or not: the priorities of its jobs on both queues.
REMOTE_ROUND_TRIP = """
import sys
from workers import embedder, remote, runtime, tasks
from workers.app import huey
urgent = sys.argv[1] == "1"
remote.send(tasks.Batch(1, 1, ["a.md"], to_embed={"h": "rivers and hills"}, model=runtime.model_id(), urgent=urgent))
job = embedder.huey.dequeue()
embedder.huey.execute(job)
print([(job.name, job.priority)] + [(task.name, task.priority) for task in huey.pending()])
huey.flush()
"""


@pytest.mark.timeout(900)
def test_an_embedding_machines_answer_keeps_a_small_builds_priority(sift_env, redis_url):
    """A small build's batch sent to an embedding machine: its embed job, and the answer queued back at the home
    (``embedded``), go ahead of bigger builds' jobs as its other stages do; the answer had the stage's own
    priority, behind every job of a big build under way."""
    from workers import tasks
    env = {k: v for k, v in sift_env.items() if k != "SIFT_QUEUE_IMMEDIATE"}
    env.update(SIFT_QUEUE=redis_url, SIFT_EMBED_REMOTE="1")
    for urgent in (True, False):
        done = subprocess.run([sys.executable, "-c", REMOTE_ROUND_TRIP, str(int(urgent))], cwd=REPO, env=env,
                              capture_output=True, text=True, timeout=600)
        assert done.returncode == 0, done.stderr
        want = [("embed", tasks.URGENT if urgent else 0), ("embedded", tasks.priority(tasks.embedded, urgent))]
        assert done.stdout.strip() == str(want), done.stdout
