"""Embedding on another "machine" through a real Redis (``SIFT_EMBED_REMOTE=1``, workers/embedder.py).

The home consumer (``huey_consumer workers.app.huey``) discovers, parses, chunks and writes, and embeds nothing;
a second consumer, ``huey_consumer workers.embedder.huey``, runs as the user ``nobody`` (``setpriv``) with its
own empty SIFT_HOME holding only the model, and cannot read the notes or the index (they live under pytest's
0700 root-owned folder; the test checks). It does all the embedding. The published generation must equal a
single-machine run's on the SQLite queue: the same files, chunks and vectors (within 1e-6). Then the embedder is
SIGKILLed twice mid-build and restarted: the home sends the killed jobs again once their heartbeat has been
silent for SIFT_EMBED_TIMEOUT, and the build publishes the same index.

The corpus is the first ``SIFT_REMOTE_FILES`` files of notes-en (default 300, ``all`` for the 1,874), so that
three builds fit on a busy 2-core machine; the model is the small MiniLM (the model is not the point).
"""
from __future__ import annotations

import functools
import os
import re
import shutil
import signal
import subprocess
import tempfile
import time
from pathlib import Path

import numpy as np
import pytest
import redis

from search.index import db
from tests.conftest import (Consumer, REPO, VENV_BIN, need_data, processes, run_ingest, run_ingest_here, wait_published,
                            write_tree)
from tests.test_crash import _snapshot

FILES = os.environ.get("SIFT_REMOTE_FILES", "300")
EXECUTING = re.compile(r"Executing workers\.embedder\.embed: ([0-9a-f-]{36})")
TASK_ID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
HOME_EMBEDS = re.compile(r"Executing workers\.tasks\.embed:")
LIMIT = 3000.0  # a safety net against a hung test, not a speed assertion


def _setpriv() -> list[str]:
    setpriv = shutil.which("setpriv")
    if setpriv is None or os.geteuid() != 0:
        pytest.skip("running the embedder as another user needs root and setpriv (util-linux)")
    prefix = [setpriv, "--reuid=nobody", "--regid=nogroup", "--clear-groups"]
    _check_nobody_runs_sift(tuple(prefix))
    return prefix


@functools.lru_cache(maxsize=None)
def _check_nobody_runs_sift(prefix: tuple[str, ...]) -> None:
    """Skip, saying why, where the user nobody cannot run this checkout's venv (a clone under /root, say)."""
    probe = subprocess.run([*prefix, str(VENV_BIN / "python"), "-c", "import huey, redis, search.model.embedding"], cwd=REPO,
                           env={"PATH": os.environ["PATH"], "HOME": "/nonexistent", "LANG": "C.UTF-8"},
                           capture_output=True, text=True, timeout=300)
    if probe.returncode != 0:
        why = (probe.stderr.strip().splitlines() or ["no output"])[-1]
        pytest.skip(f"the user nobody cannot run Sift from {REPO} ({why}): put the checkout where other users "
                    "may read it to run the two-machine test")


class Embedder(Consumer):
    """A real ``huey_consumer workers.embedder.huey`` run as nobody, with its own home holding only the model."""

    def __init__(self, home: Path, model: Path, url: str, log: Path):
        env = {"PATH": os.environ["PATH"], "HOME": str(home), "SIFT_HOME": str(home), "SIFT_MODEL": str(model),
               "SIFT_QUEUE": url, "SIFT_WORKERS": "2", "LANG": "C.UTF-8"}
        super().__init__(env, 2, log, app="workers.embedder.huey", prefix=tuple(_setpriv()))

    def kill(self) -> None:
        os.killpg(self.proc.pid, signal.SIGKILL)
        self.proc.wait(timeout=60)
        _until(lambda: not [p for p in processes() if p[3] == self.proc.pid and p[1] != "Z"],
               "the embedder's workers to die")
        self.log.close()


@pytest.fixture
def embedder_home(model_path):
    """A folder only nobody's: the embedder's SIFT_HOME, with a copy of the model and nothing else."""
    home = Path(tempfile.mkdtemp(prefix="sift-embedder-"))
    (home / "models").mkdir()
    model = home / "models" / model_path.name
    shutil.copy(model_path, model)
    for path in (home, home / "models", model):
        shutil.chown(path, "nobody", "nogroup")
    yield home, model
    shutil.rmtree(home, ignore_errors=True)


def _subset(tmp_path: Path) -> Path:
    source = need_data("notes-en")
    files = sorted(p for p in source.rglob("*") if p.is_file())
    if FILES != "all":
        files = files[:int(FILES)]
    root = tmp_path / "subset"
    for path in files:
        target = root / path.relative_to(source)
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(path, target)
    return root


def _build(env: dict, root: Path, log: Path, during=None) -> dict:
    """Index ``root`` with a home consumer; ``during(conn)`` runs while it builds. Returns the snapshot."""
    home = Consumer(env, 2, log)
    try:
        assert run_ingest(env, "enqueue", str(root), "--name", "notes").returncode == 0
        conn = db.connect(Path(env["SIFT_HOME"]) / "index.db")
        if during is not None:
            during(conn, home)
        wait_published(conn, "notes", None, home.proc, limit=LIMIT)
        return _snapshot(conn)
    finally:
        home.stop()


def _assert_same(got: dict, want: dict) -> None:
    assert got["files"] == want["files"]
    assert got["chunks"] == want["chunks"]
    assert got["vectors"].keys() == want["vectors"].keys() and want["vectors"]
    for text_hash, vec in want["vectors"].items():
        assert np.allclose(np.frombuffer(got["vectors"][text_hash], np.float32), np.frombuffer(vec, np.float32),
                           rtol=0, atol=1e-6), text_hash
    assert not [f for f in got["failures"] if f["state"] == "failed"]
    for name, count in got["duplicates"].items():
        assert count == 0, f"{name}: {count}"


@pytest.mark.slow
@pytest.mark.timeout(2400)  # three builds of 300 notes on 2 busy cores took 9-11 min
def test_embedding_on_another_machine_equals_one_machine_and_survives_two_kills(
        sift_env, redis_url, embedder_home, tmp_path):
    prefix = _setpriv()
    root = _subset(tmp_path)
    # each build one generation (its check: every file row of the published one), not a first build in parts
    sift_env["SIFT_FIRST_PART"] = "0"
    # the home sends a killed job again at its periodic task (every 5 s here, not every minute) once the job has
    # been silent for SIFT_EMBED_TIMEOUT: 10 s, ten of the embedder's heartbeats (one a second, workers/embedder.py),
    # so each kill is made good in seconds; a live job sent again too soon would only be written once
    remote_env = {**sift_env, "SIFT_QUEUE": redis_url, "SIFT_EMBED_REMOTE": "1", "SIFT_RESCAN_MINUTES": "100000",
                  "SIFT_EMBED_TIMEOUT": "10", "SIFT_PERIODIC_SECONDS": "5"}
    home_log = tmp_path / "home.log"
    for private in (root / sorted(os.listdir(root))[0], Path(sift_env["SIFT_HOME"]).parent):
        denied = subprocess.run([*prefix, "test", "-r", str(private)], capture_output=True)
        assert denied.returncode != 0, f"nobody can read {private}: the test would prove nothing"

    # one machine, the SQLite queue
    # SIFT_BACKGROUND_CHUNKS=0: one generation, as the remote build makes (it hands no big file to the background)
    reference = _build({**sift_env, "SIFT_HOME": str(tmp_path / "one-machine"), "SIFT_BACKGROUND_CHUNKS": "0"}, root,
                       tmp_path / "one.log")

    # two machines: the home embeds nothing, the embedder (nobody, its own home) everything
    embedder = Embedder(*embedder_home, redis_url, tmp_path / "embedder.log")
    try:
        remote = _build(remote_env, root, home_log)
    finally:
        embedder.stop()
    _assert_same(remote, reference)
    assert not HOME_EMBEDS.search(home_log.read_text()), "the home embedded nothing itself"
    assert len(EXECUTING.findall((tmp_path / "embedder.log").read_text())) >= 5
    assert sorted(os.listdir(embedder_home[0])) == ["models"], "the embedder's home holds only its model"

    # the embedder SIGKILLed twice mid-build, restarted each time
    redis.Redis.from_url(redis_url).flushall()
    killed_log = tmp_path / "embedder-killed.log"
    lives = [Embedder(*embedder_home, redis_url, killed_log)]
    offset = [0]

    def kill_twice(conn, home):
        total = len(reference["files"])
        for share in (0.2, 0.5):
            running: set[str] = set()

            def cut_mid_job() -> bool:
                data = killed_log.read_bytes()
                end = data.rfind(b"\n") + 1
                for line in data[offset[0]:end].decode("utf-8", "replace").splitlines():
                    started = EXECUTING.search(line)
                    if started:
                        running.add(started.group(1))
                    else:
                        running.difference_update(TASK_ID.findall(line))
                offset[0] = end
                if home.proc.poll() is not None:
                    raise RuntimeError("the home consumer died")
                return bool(running) and _written(conn) >= share * total
            _until(cut_mid_job, f"an embed job running after {share:.0%} of the files")
            lives[-1].kill()
            offset[0] = killed_log.stat().st_size
            lives.append(Embedder(*embedder_home, redis_url, killed_log))

    try:
        after_kills = _build({**remote_env, "SIFT_HOME": str(tmp_path / "killed-home")}, root,
                             tmp_path / "home-killed.log", kill_twice)
    finally:
        for life in lives:
            life.stop()
    _assert_same(after_kills, reference)
    assert len(lives) == 3
    assert "no word from its embedding worker" in (tmp_path / "home-killed.log").read_text(), \
        "the killed jobs were sent again by the home"
    print(f"\n{len(reference['files'])} files, {reference['chunk_count']} chunks, {len(reference['vectors'])} vectors: "
          "two machines == one machine, also after 2 SIGKILLs of the embedder")


def _two_notes_sent_away(sift_env: dict, redis_url: str, tmp_path: Path) -> tuple[dict, Path]:
    """A home whose embedding goes to the Redis queue, and two small notes for it."""
    env = {**sift_env, "SIFT_QUEUE": redis_url, "SIFT_EMBED_REMOTE": "1"}
    return env, write_tree(tmp_path / "notes", {"a.md": "# A\n\nalpha words\n", "b/c.md": "# C\n\ngamma words\n"})


def _embedder_with(model: Path, redis_url: str, tmp_path: Path) -> Consumer:
    """An embedding machine's consumer with ``model``, in a home of its own, logging to embedder.log."""
    home = tmp_path / "embedder-home"
    home.mkdir()
    env = {"PATH": os.environ["PATH"], "SIFT_HOME": str(home), "SIFT_MODEL": str(model), "SIFT_QUEUE": redis_url}
    return Consumer(env, 1, tmp_path / "embedder.log", app="workers.embedder.huey")


@pytest.mark.timeout(900)
def test_an_embedder_with_another_model_is_refused_and_nothing_is_written(
        sift_env, redis_url, tmp_path, other_model_path, capsys):
    """The home builds with MiniLM F16, the embedder has the F32 file (another model id): every file fails with
    a reason that says what to do, and no vector of either model is written. `ingest` runs in this process
    (run_ingest_here, with env's Redis queue); the home's worker and the embedder are real processes."""
    env, root = _two_notes_sent_away(sift_env, redis_url, tmp_path)
    embedder, home = _embedder_with(other_model_path, redis_url, tmp_path), Consumer(env, 1, tmp_path / "home.log")
    try:
        assert run_ingest_here(capsys, "enqueue", str(root), "--name", "notes", env=env).returncode == 0
        conn = db.connect(Path(env["SIFT_HOME"]) / "index.db")
        gen = wait_published(conn, "notes", None, home.proc, limit=600)
        rows = conn.execute("SELECT path, stage, state, reason FROM progress WHERE generation = ?", (gen,)).fetchall()
        assert {r["path"] for r in rows} == {"a.md", "b/c.md"}
        for row in rows:
            assert (row["stage"], row["state"]) == ("embed", "failed")
            assert "but this generation embeds with" in row["reason"] and "SIFT_MODEL" in row["reason"], row["reason"]
            assert f"(on the home: {sift_env['SIFT_MODEL']}; copy it" in row["reason"], row["reason"]  # which file
        assert conn.execute("SELECT count(*) FROM vectors").fetchone()[0] == 0
        stats = run_ingest_here(capsys, "stats", env=env)
        assert "but this generation embeds with" in stats.stdout, stats.stdout
    finally:
        home.stop()
        embedder.stop()
    assert "refused job" in (tmp_path / "embedder.log").read_text()


@pytest.mark.timeout(900)
def test_the_embedders_log_carries_sifts_own_lines(sift_env, redis_url, tmp_path, model_path):
    """huey_consumer gives a handler to the "huey" logger only: the embedder's "embedded N texts of job …" (INFO)
    never reached its log, and its refusals came without huey's format."""
    env, root = _two_notes_sent_away(sift_env, redis_url, tmp_path)
    embedder, home = _embedder_with(model_path, redis_url, tmp_path), Consumer(env, 1, tmp_path / "home.log")
    try:
        assert run_ingest(env, "enqueue", str(root), "--name", "notes").returncode == 0
        wait_published(db.connect(Path(env["SIFT_HOME"]) / "index.db"), "notes", None, home.proc, limit=600)
    finally:
        home.stop()
        embedder.stop()
    said = (tmp_path / "embedder.log").read_text()
    assert re.search(r"INFO:sift\.embedder:\d+:embedded \d+ texts of job \S+", said), said


def test_a_silent_job_is_sent_again_and_vectors_that_arrive_twice_are_written_once(
        sift_env, redis_url, tmp_path, monkeypatch, caplog):
    """In this process: the home's stages in huey's immediate mode, the embed job in the real Redis. The job's
    worker goes silent (taken from the queue, heartbeat a minute old): the home sends it again. Both copies are
    then embedded and answered: the batch is written once, and the second answer changes nothing."""
    monkeypatch.setenv("SIFT_QUEUE", redis_url)
    monkeypatch.setenv("SIFT_EMBED_REMOTE", "1")
    from search.index import store
    from search.query import reader
    from workers import remote, runtime, tasks
    from workers.app import huey
    runtime.reset()
    from workers import embedder
    client = redis.Redis.from_url(redis_url)
    root = write_tree(tmp_path / "notes", {"a.md": "# A\n\nalpha words here\n", "b.md": "# B\n\nbeta words\n"})
    huey.immediate = True
    try:
        conn = runtime.index()
        collection = store.ensure_collection(conn, "notes", str(root))
        tasks.discover(collection["id"])  # discover, parse, chunk run here; the embed job waits in Redis
        [queued] = embedder.huey.pending()
        job = queued.args[0]
        assert job.model == runtime.model_id() and len(job.texts) == 2
        assert conn.execute("SELECT published FROM collections").fetchone()[0] is None
        assert client.hlen(remote.JOBS) == 1, "the batch waits in the ledger"

        embedder.huey.dequeue()  # a worker takes it ...
        client.zadd(remote.HEARTBEATS, {job.id: time.time() - 60})  # ... and says nothing for a minute
        assert remote.resend_overdue(30) == [job.id]
        assert [t.args[0].id for t in embedder.huey.pending()] == [job.id], "sent again, same id"
        assert remote.resend_overdue(30) == [], "once"

        embedder.embed.call_local(job)  # the slow first worker answers after all: written
        gen = conn.execute("SELECT published FROM collections").fetchone()[0]
        assert gen is not None
        rows = tuple(conn.execute("SELECT count(*), (SELECT count(*) FROM vectors), (SELECT count(*) FROM files) "
                                  "FROM chunks").fetchone())
        assert client.hlen(remote.JOBS) == 0
        caplog.set_level("INFO", logger="sift.workers")
        embedder.embed.call_local(embedder.huey.dequeue().args[0])  # the copy's answer: already written
        assert f"vectors of embed job {job.id} came again" in caplog.text, "the second answer wrote nothing"
        assert conn.execute("SELECT published FROM collections").fetchone()[0] == gen
        assert tuple(conn.execute("SELECT count(*), (SELECT count(*) FROM vectors), (SELECT count(*) FROM files) "
                                  "FROM chunks").fetchone()) == rows == (2, 2, 2)
        assert {c["path"] for c in reader.visible_chunks(conn)} == {"a.md", "b.md"}
        assert remote.resend_overdue(0) == [] and client.zcard(remote.HEARTBEATS) == 0
    finally:
        huey.immediate = False


def _written(conn) -> int:
    return conn.execute("SELECT count(*) FROM progress p JOIN generations g ON g.id = p.generation "
                        "WHERE g.state = 'building' AND p.stage = 'write' AND p.state = 'done'").fetchone()[0]


def _until(check, what: str, limit: float = LIMIT) -> None:
    deadline = time.monotonic() + limit
    while not check():
        if time.monotonic() > deadline:
            raise TimeoutError(f"never happened: {what}")
        time.sleep(0.05)


def test_an_answer_that_fails_for_good_is_forgotten_and_its_generation_publishes(
        sift_env, redis_url, tmp_path, monkeypatch):
    """The home's `embedded` job fails for good after writing (a bug-like error): the job leaves the ledger, so it
    is not sent again every timeout, and nothing holds the generation back."""
    monkeypatch.setenv("SIFT_QUEUE", redis_url)
    monkeypatch.setenv("SIFT_EMBED_REMOTE", "1")
    from search.index import store
    from workers import remote, runtime, tasks
    from workers.app import huey
    runtime.reset()
    from workers import embedder
    client = redis.Redis.from_url(redis_url)
    root = write_tree(tmp_path / "notes", {"a.md": "# A\n\nalpha words here\n"})
    mark = store.mark

    def broken_mark(conn, gen, paths, stage, state, *args, **kwargs):
        if stage == "embed":
            raise ValueError("a bug after the vectors were written")
        return mark(conn, gen, paths, stage, state, *args, **kwargs)

    huey.immediate = True
    try:
        conn = runtime.index()
        collection = store.ensure_collection(conn, "notes", str(root))
        tasks.discover(collection["id"])
        monkeypatch.setattr(store, "mark", broken_mark)
        embedder.embed.call_local(embedder.huey.dequeue().args[0])
        assert client.hlen(remote.JOBS) == 0 and remote.resend_overdue(0) == [], "the job was forgotten"
        assert conn.execute("SELECT published FROM collections").fetchone()[0] is not None
    finally:
        huey.immediate = False


def test_stats_name_the_files_an_embedding_machine_has_been_on_and_how_far(
        sift_env, redis_url, tmp_path, monkeypatch, capsys):
    """The home's own slow work is named in stats ("embedding big.md (…) for 40 s: 128 of 389 chunks"); with
    SIFT_EMBED_REMOTE the embedding happens elsewhere, and stats showed only the sift-embed queue's counts.
    In this process: the home's stages in immediate mode, the embed job in the real Redis, run here as an
    embedding machine would; stats is asked between two of its parts (after the 3 s a job works before it is
    named, made 0 here)."""
    import socket
    from ingest.cli import main as ingest_main
    job = _ten_notes_sent(tmp_path, monkeypatch, redis_url)
    from workers import embedder, remote  # (made with SIFT_QUEUE set, by _ten_notes_sent)
    from workers.app import huey
    assert len(job.texts) == 10
    huey.immediate = True  # the answer is written at once, by the home's stages here
    try:
        model, said = embedder._model(), []
        real_embed = model.embed

        def embed_and_ask(texts, kind):
            if len(said) < 2 and ingest_main(["stats"]) == 0:
                said.append(capsys.readouterr().out)
            return real_embed(texts, kind=kind)
        monkeypatch.setattr(model, "embed", embed_and_ask)
        embedder.embed.call_local(job)
        worker = f"{socket.gethostname()}:{os.getpid()}"
        assert "embedding n" not in said[0], "nothing embedded yet: no heartbeat with progress"
        assert re.search(rf"    embedding n\d\d\.md and 9 more files \(\d+ KB\) on {re.escape(worker)} for "
                         r"[0-9.]+ s: 4 of 10 chunks\n", said[1]), said[1]
        assert ingest_main(["stats"]) == 0 and "embedding n" not in capsys.readouterr().out, "written: gone"
        assert redis.Redis.from_url(redis_url).hlen(remote.PROGRESS) == 0
    finally:
        huey.immediate = False


@pytest.mark.timeout(600)  # before the fix both consumers ran for ever: the test hung here
def test_a_wrong_redis_password_stops_either_consumer_in_one_line(sift_env, tmp_path, model_path):
    """A wrong password in SIFT_QUEUE, on the home or on an embedding machine: huey's loops logged the same
    traceback several times a second for ever and took no job. Now the consumer says why in one line and
    exits with status 2, on both sides."""
    from tests.redis_server import RedisServer
    server = RedisServer(tmp_path / "redis")
    try:
        redis.Redis.from_url(server.url).config_set("requirepass", "right")
        wrong = f"redis://:wrong@127.0.0.1:{server.port}/0"
        env = {**sift_env, "SIFT_QUEUE": wrong, "SIFT_EMBED_REMOTE": "1"}
        embed_env = {"PATH": os.environ["PATH"], "SIFT_HOME": str(tmp_path / "embedder"),
                     "SIFT_MODEL": str(model_path), "SIFT_QUEUE": wrong}
        for app, run_env, who in (("workers.app.huey", env, "sift worker"),
                                  ("workers.embedder.huey", embed_env, "sift embedder")):
            log = tmp_path / f"{who.replace(' ', '-')}.log"
            consumer = Consumer(run_env, 1, log, app=app)
            try:
                assert consumer.proc.wait() == 2
            finally:
                consumer.stop()
            said = log.read_text()
            assert f"{who}: error: the Redis at 127.0.0.1:{server.port}/0 refuses SIFT_QUEUE" in said, said
            assert "redis://:PASSWORD@HOST:PORT/DB" in said and ":wrong@" not in said, said  # no password shown
            assert "Traceback" not in said, said
    finally:
        server.stop()


@pytest.mark.timeout(600)
def test_redis_going_away_under_both_consumers_is_said_in_a_line_and_its_return_too(sift_env, tmp_path, model_path):
    """Redis stopped under running consumers: huey logged 'Error reading from queue' / 'Error reading schedule.'
    with a 25-line traceback, once a second and more from each process, for as long as it stayed away (3,600
    lines in 20 s). Now each process says it in one line (again once a minute) and says when Redis is back."""
    from tests.redis_server import RedisServer
    server = RedisServer(tmp_path / "redis")
    env = {**sift_env, "SIFT_QUEUE": server.url, "SIFT_EMBED_REMOTE": "1"}
    embed_env = {"PATH": os.environ["PATH"], "SIFT_HOME": str(tmp_path / "embedder"),
                 "SIFT_MODEL": str(model_path), "SIFT_QUEUE": server.url}
    logs = {"workers.app.huey": tmp_path / "home.log", "workers.embedder.huey": tmp_path / "embedder.log"}
    consumers = [Consumer(run_env, 2, logs[app], app=app)
                 for app, run_env in (("workers.app.huey", env), ("workers.embedder.huey", embed_env))]
    try:
        for log in logs.values():
            _until(lambda: "The following commands are available" in log.read_text(), "the consumer to start")
        server.stop()
        stopped = time.monotonic()
        for log in logs.values():  # both consumers' workers and schedulers poll Redis, meeting it away
            _until(lambda: "Redis cannot be reached (" in log.read_text(), "the consumer to meet Redis away")
        # 15 s away in all, for a line said more than once per process to show: after 15 s the test read the logs
        # whether or not a process had met Redis away yet (a loaded machine's consumer may not have polled)
        time.sleep(max(0.0, 15 - (time.monotonic() - stopped)))
        from workers.queues import OUTAGE_REMINDER
        for log in logs.values():
            said = log.read_text()
            # one line per process of the consumer (two workers, the scheduler), again each OUTAGE_REMINDER while
            # Redis stays away: a loaded machine can take longer than that to get here, and each said it twice
            reminded = int((time.monotonic() - stopped) // OUTAGE_REMINDER)
            assert "Traceback" not in said and "Error reading" not in said, said[-3000:]
            away = said.count("Redis cannot be reached (")
            assert 1 <= away <= 3 * (1 + reminded), said
        server.start()  # on the same port
        for log in logs.values():
            _until(lambda: "Redis answers again after" in log.read_text(), "the consumer to say Redis is back")
        assert all(c.proc.poll() is None for c in consumers)
    finally:
        for c in consumers:
            c.stop()
        server.stop()


@pytest.mark.timeout(900)  # before the fix the build never published: the test hung here
def test_an_embedder_without_its_model_file_says_so_and_the_build_publishes(sift_env, redis_url, tmp_path, model_path):
    """SIFT_MODEL naming a file the embedding machine lacks (not copied over): it took each job and lost it, the
    home sent it again every SIFT_EMBED_TIMEOUT for ever, and stats said only 'sent and not yet written: 1'.
    Now an embedder started without it stops in one line, and one whose file went away after it started refuses
    the job: the files fail with the reason and the build publishes."""
    missing = _embedder_with(tmp_path / "missing.gguf", redis_url, tmp_path)
    try:
        assert missing.proc.wait() == 2
    finally:
        missing.stop()
    said = (tmp_path / "embedder.log").read_text()
    assert f"sift embedder: error: model file not found: {tmp_path / 'missing.gguf'}" in said, said
    copy = tmp_path / "copied.gguf"
    shutil.copy(model_path, copy)
    shutil.rmtree(tmp_path / "embedder-home")
    (tmp_path / "embedder.log").unlink()
    env, root = _two_notes_sent_away(sift_env, redis_url, tmp_path)
    embedder, home = _embedder_with(copy, redis_url, tmp_path), Consumer(env, 1, tmp_path / "home.log")
    try:
        _until(lambda: "Huey consumer started" in (tmp_path / "embedder.log").read_text(), "the embedder to start")
        copy.unlink()  # gone after its start check: the first job meets it
        assert run_ingest(env, "enqueue", str(root), "--name", "notes").returncode == 0
        conn = db.connect(Path(env["SIFT_HOME"]) / "index.db")
        gen = wait_published(conn, "notes", None, home.proc, limit=600)
        rows = conn.execute("SELECT stage, state, reason FROM progress WHERE generation = ?", (gen,)).fetchall()
        assert len(rows) == 2
        for row in rows:
            assert (row["stage"], row["state"]) == ("embed", "failed")
            assert "cannot load its model" in row["reason"] and "ingest retry-failed" in row["reason"], row["reason"]
        assert conn.execute("SELECT count(*) FROM vectors").fetchone()[0] == 0
    finally:
        home.stop()
        embedder.stop()


@pytest.mark.timeout(600)
def test_stats_tell_which_model_file_an_embedding_machine_needs(sift_env, redis_url, tmp_path):
    """No embedding machine runs: stats said 'an embedding machine takes them: huey_consumer workers.embedder.huey
    -k process -w N', without the settings it needs; a machine started so (the default model, e5) had another
    model and was refused. Now the line names the home's model file to copy and set as SIFT_MODEL."""
    env, root = _two_notes_sent_away(sift_env, redis_url, tmp_path)
    home = Consumer(env, 1, tmp_path / "home.log")
    try:
        assert run_ingest(env, "enqueue", str(root), "--name", "notes").returncode == 0
        found = {}

        def waiting() -> bool:
            found["stats"] = run_ingest(env, "stats").stdout
            return "jobs waiting: 1" in found["stats"]
        _until(waiting, "the embed job to wait on sift-embed")
    finally:
        home.stop()
    assert f"SIFT_MODEL=<a copy of {sift_env['SIFT_MODEL']}> huey_consumer workers.embedder.huey" in found["stats"], \
        found["stats"]


def test_stats_stop_saying_embedding_once_the_vectors_are_sent(sift_env, redis_url, tmp_path, monkeypatch, capsys):
    """The home's worker stopped while an embedding machine worked: once it had sent the vectors, stats still said
    'embedding n71.md and 9 more files … on host:pid for 16 s: 4 of 10 chunks' for SIFT_EMBED_TIMEOUT (the last
    heartbeat's progress), and so kept back 'is a worker running?'. Now the finished job is not named; the answer
    is counted in the home's queue. The home's stages run here in immediate mode, the embed job in the real Redis."""
    from ingest.cli import main as ingest_main
    job = _ten_notes_sent(tmp_path, monkeypatch, redis_url)
    from workers import embedder, remote  # (made with SIFT_QUEUE set, by _ten_notes_sent)
    from workers.app import huey
    embedder.embed.call_local(job)  # the answer waits on the home's queue: no home worker runs
    assert huey.pending_count() == 1, "the answer waits for the home's worker"
    gen = int(job.id.split("-", 1)[0])
    assert remote.slow(gen, 0.0, 120.0, now=time.time() + 10) == []
    assert ingest_main(["stats"]) == 0
    out = capsys.readouterr().out
    assert "jobs in queue: 1" in out and "embedding n" not in out, out


@pytest.mark.parametrize("bad", ["short", "nan"])
def test_vectors_of_the_wrong_size_or_not_numbers_are_refused_not_written(sift_env, redis_url, tmp_path,
                                                                          monkeypatch, bad):
    """An embedding machine answering for the right model id with vectors of another size (a build of the model
    that says 384 and makes 128) or NaN: the home wrote them, and every semantic search of the collection then
    failed as the vectors were read. Now the files fail with the reason and nothing of the answer is written."""
    from search.index import status
    from workers import runtime, tasks
    from workers.app import huey
    job = _ten_notes_sent(tmp_path, monkeypatch, redis_url)
    from workers.embedder import Answer  # (made with SIFT_QUEUE set, by _ten_notes_sent)
    vector = np.zeros(128, np.float32) if bad == "short" else np.full(384, np.nan, np.float32)
    huey.immediate = True
    try:
        tasks.embedded.call_local(Answer(job.id, job.model, dict.fromkeys(job.texts, vector.tobytes()), worker="m:1"))
    finally:
        huey.immediate = False
    conn = runtime.index()
    assert conn.execute("SELECT count(*) FROM vectors").fetchone()[0] == 0
    [notes] = status.collect(conn)["collections"]
    reasons = {f["reason"] for f in notes["published"]["failures"]}
    said = ("sent a vector of 512 bytes for the model" if bad == "short" else "not all finite numbers (NaN or inf)")
    assert len(notes["published"]["failures"]) == 10 and len(reasons) == 1 and said in reasons.pop(), reasons


def test_a_refusal_for_an_error_records_its_class(sift_env, redis_url, tmp_path, monkeypatch):
    """An embedding machine that cannot load its model refuses the job in words, and the files failed with no error
    class (schema V30's progress.error; a local embed's failure has its own): the answer now carries it."""
    from search.index import status
    from workers import runtime
    from workers.app import huey
    job = _ten_notes_sent(tmp_path, monkeypatch, redis_url)
    from workers import embedder
    monkeypatch.setattr(embedder, "_state", {})
    monkeypatch.setenv("SIFT_MODEL", str(tmp_path / "missing.gguf"))  # gone from the embedding machine
    huey.immediate = True
    try:
        embedder.embed.call_local(job)  # its answer is written on the home at once
    finally:
        huey.immediate = False
    [notes] = status.collect(runtime.index())["collections"]
    failures = notes["published"]["failures"]
    assert len(failures) == 10 and all("cannot load its model" in f["reason"] for f in failures), failures
    assert {(f["stage"], f["error"]) for f in failures} == {("embed", "ModelError")}, failures


def _ten_notes_sent(tmp_path, monkeypatch, redis_url):
    """Ten small notes through the home's stages in immediate mode, with SIFT_EMBED_REMOTE: their one embed job,
    taken from the real Redis as an embedding machine would (heartbeats, and naming the job, at once)."""
    monkeypatch.setenv("SIFT_QUEUE", redis_url)
    monkeypatch.setenv("SIFT_EMBED_REMOTE", "1")
    from search.index import store
    from workers import runtime, tasks, working
    from workers.app import huey
    runtime.reset()
    from workers import embedder  # its app reads SIFT_QUEUE as it is made
    monkeypatch.setattr(working, "AFTER", 0.0)
    monkeypatch.setattr(embedder, "BEAT_SECONDS", 0.0)
    root = write_tree(tmp_path / "notes", {f"n{i:02}.md": f"# Note {i}\n\nthe {i}th word list\n" for i in range(10)})
    huey.immediate = True
    try:
        collection = store.ensure_collection(runtime.index(), "notes", str(root))
        tasks.discover(collection["id"])
    finally:
        huey.immediate = False
    return embedder.huey.dequeue().args[0]
