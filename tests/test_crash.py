"""Crash and resume: SIGKILL the real consumer at every stage of an ingestion of notes-en (every third file of it,
from 68 of its 76 folders, and its 300-chunk README: 626 files), restart it each time.

The consumer (``huey_consumer -k process -w 2`` with the real model) is killed with SIGKILL, its whole process
group, while a discover, a parse, a chunk, an embed and a write job run, and once inside the publish transaction,
and is restarted after every kill. Which jobs were running when it died is read from huey's own log: a job that
logged "Executing" and never its end was cut off. ``SIFT_FAULT_PAUSE_PUBLISH`` (search/index/store.py) holds the publish
transaction open, its writes done, before COMMIT, so that kill lands inside it. The pipeline kills are spread over
the run by seeded random progress thresholds; the seed is printed, and ``SIFT_CRASH_SEED=<seed>`` replays a run.

At the end the queue is empty and the published generation is the one an uninterrupted consumer builds from an
identical copy of the notes: the same files and hashes, per file the same chunks (text, lines, headings) in order,
the same vectors, and no row twice. The periodic rescan is pushed out of the way (``SIFT_RESCAN_MINUTES``): what
brings the lost work back must be the restart itself (workers/recover.py), not a rescan ten minutes later.
"""
from __future__ import annotations

import json
import os
import random
import re
import shutil
import signal
import time
from pathlib import Path

import numpy as np
import pytest
from huey import SqliteHuey

from search.index import collection_reads, db, status, store
from search.query import reader
from tests.conftest import Consumer, ingest, need_data, processes, run_ingest, wait_published, write_tree

SEED = int(os.environ.get("SIFT_CRASH_SEED") or random.SystemRandom().randrange(2 ** 32))
PIPELINE = ["parse", "chunk", "embed", "write"]
EXECUTING = re.compile(r"Executing workers\.tasks\.(\w+): ([0-9a-f-]{36})")
TASK_ID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
PAUSED = "SIFT_FAULT_PAUSE_PUBLISH: publish of generation"
REQUEUED = re.compile(r"generation \d+: (\d+) files were in jobs that were interrupted")
PAUSE = {"SIFT_FAULT_PAUSE_PUBLISH": "120"}  # every life but the last: the publish is held open, to be killed
FILES_PER_JOB = 16
WORKERS = 2  # worker processes of each consumer: at most this many jobs are in flight when it is killed
LIMIT = 1800.0  # a safety net against a hung test, not a speed assertion
MAX_KILLS = 14
SHARE = 3  # every third file of notes-en: the kills need dozens of jobs per stage, not all 1,874 files (the whole
           # corpus cost two full builds, crash and clean, for no more stages or kinds of file)


class Life:
    """One life of the consumer: started, watched through its log, killed with SIGKILL."""

    def __init__(self, env: dict, log: Path):
        self.log_path = log
        self.offset = log.stat().st_size if log.exists() else 0
        self.consumer = Consumer(env, WORKERS, log)
        self.running: dict[str, str] = {}  # task id → task name: logged "Executing", no end yet
        self.publish_paused = False
        self.discover_paused = False
        self.requeued = 0  # files its start found in jobs a kill had cut off, and queued again

    @property
    def proc(self):
        return self.consumer.proc

    def read_log(self) -> None:
        with open(self.log_path, "rb") as f:
            f.seek(self.offset)
            data = f.read()
        end = data.rfind(b"\n") + 1  # whole lines only
        self.offset += end
        for line in data[:end].decode("utf-8", "replace").splitlines():
            started = EXECUTING.search(line)
            if started:
                self.running[started.group(2)] = started.group(1)
                continue
            for task_id in TASK_ID.findall(line):
                self.running.pop(task_id, None)
            self.publish_paused |= PAUSED in line
            self.discover_paused |= "SIFT_FAULT_PAUSE_DISCOVER" in line
            lost = REQUEUED.search(line)
            self.requeued += int(lost.group(1)) if lost else 0

    def kill(self) -> set[str]:
        """SIGKILL the consumer and its workers; returns the names of the jobs that were cut off."""
        os.killpg(self.proc.pid, signal.SIGKILL)
        self.proc.wait(timeout=60)
        _until(lambda: not [p for p in processes() if p[3] == self.proc.pid and p[1] != "Z"],
               "the consumer's workers to die")
        self.consumer.log.close()
        self.read_log()  # what ended before the kill has logged its end by now; the rest was cut off
        return set(self.running.values())


@pytest.mark.slow
@pytest.mark.timeout(3600)  # about 8 min on a quiet machine; a shared one can triple that
def test_sigkill_at_every_stage_and_restart_gives_the_clean_generation(sift_env, tmp_path):
    source = need_data("notes-en")
    rng = random.Random(SEED)
    print(f"\ncrash test seed {SEED} (replay: SIFT_CRASH_SEED={SEED})")
    # SIFT_BACKGROUND_CHUNKS=0: the corpus in one generation, as the clean run's (notes-en's README, about 300
    # chunks, would be embedded in the background and published apart; test_background kills that job); likewise
    # SIFT_FIRST_PART=0: the kills aim past shares of the whole build, and the publish held is its only one
    # (test_first_parts kills a consumer between parts)
    env = {**sift_env, "SIFT_RESCAN_MINUTES": "100000", "SIFT_FILES_PER_JOB": str(FILES_PER_JOB),
           "SIFT_BACKGROUND_CHUNKS": "0", "SIFT_FIRST_PART": "0"}
    crash_root = tmp_path / "crash" / "notes-en"
    clean_root = tmp_path / "clean" / "notes-en"
    for root in (crash_root, clean_root):
        _copy_share(source, root)
    log = tmp_path / "crash-consumer.log"
    index = Path(env["SIFT_HOME"]) / "index.db"
    started = time.monotonic()
    kills: list[dict] = []  # aimed at, the jobs cut off, the generation's progress then, the life killed
    lives: list[Life] = []

    def start(extra: dict) -> Life:
        life = Life({**env, **extra}, log)
        lives.append(life)
        return life

    def kill(life: Life, aim: str) -> set[str]:
        cut = life.kill()
        kills.append({"aim": aim, "cut": cut, "progress": _progress_counts(conn), "life": life})
        print(f"kill {len(kills)} aimed at {aim}: jobs cut off {sorted(cut) or '-'}; progress {kills[-1]['progress']}")
        return cut

    try:
        # 1. discover: killed while it plans (it has loaded the model, walked and hashed the files, and is held
        # before it records its plan: unheld, it planned in 0.24 s, before a kill aimed at it could land)
        life = start({**PAUSE, "SIFT_FAULT_PAUSE_DISCOVER": "120"})
        assert run_ingest(env, "enqueue", str(crash_root), "--name", "notes").returncode == 0
        conn = db.connect(index)
        _watch(life, lambda: life.discover_paused, "a discover job about to record its plan")
        time.sleep(rng.uniform(0, 0.3))
        assert "discover" in kill(life, "discover"), "discover ended before the kill"
        assert _building(conn) is None or _building(conn)["discovered"] is None, "its plan was never recorded"

        # 2. parse, chunk, embed, write: each killed while such a job runs, past a random share of the files
        total = sum(1 for p in crash_root.rglob("*") if p.is_file())
        stages = PIPELINE[:]
        rng.shuffle(stages)
        thresholds = sorted(rng.sample(range(total // 20, total * 3 // 5), len(stages)))
        life = start(PAUSE)
        for stage, threshold in zip(stages, thresholds):
            while True:
                _watch(life, lambda: _written(conn) >= threshold and stage in life.running.values(),
                       f"a {stage} job after {threshold} files written")
                cut = kill(life, stage)
                life = start(PAUSE)
                if stage in cut:
                    break  # else it ended in the instant before the kill: aim again
                assert len(kills) < MAX_KILLS, f"could not catch a running {stage} job (seed {SEED})"

        # 3. publish: once every file is written the publish transaction is held open before COMMIT; killed there
        _watch(life, lambda: life.publish_paused, "the publish transaction")
        time.sleep(rng.uniform(0, 1))
        kill(life, "publish")
        assert _published(conn) is None and _building(conn) is not None, "the killed publish left nothing"
        assert set(kills[-1]["progress"]) == {"write:done"}, "every file was written before the publish"

        # 4. the last restart: the queue drains and the generation is published
        life = start({})
        gen = wait_published(conn, "notes", None, life.proc, limit=LIMIT)
        queue = SqliteHuey("sift", filename=str(Path(env["SIFT_HOME"]) / "queue.db"))
        _until(lambda: queue.pending_count() == 0 and queue.scheduled_count() == 0, "the queue to drain")
        stats = run_ingest(env, "stats", "--json")
        assert stats.returncode == 0, stats.stderr
        crash_report = json.loads(stats.stdout)
        life.consumer.stop()
        life.read_log()
        crash_seconds = time.monotonic() - started
        crash = _snapshot(conn)

        # the clean run: an uninterrupted consumer on an identical copy
        clean_env = {**env, "SIFT_HOME": str(tmp_path / "clean-home")}
        clean_consumer = Consumer(clean_env, WORKERS, tmp_path / "clean-consumer.log")
        try:
            assert run_ingest(clean_env, "enqueue", str(clean_root), "--name", "notes").returncode == 0
            clean_conn = db.connect(Path(clean_env["SIFT_HOME"]) / "index.db")
            wait_published(clean_conn, "notes", None, clean_consumer.proc, limit=LIMIT)
        finally:
            clean_consumer.stop()
        clean = _snapshot(clean_conn)
    finally:
        for life in lives:
            life.consumer.stop()

    # the kills: at least five, each stage cut off once, one inside publish
    cut_off = set().union(*(k["cut"] for k in kills))
    assert {"discover", *PIPELINE} <= cut_off
    assert kills[-1]["aim"] == "publish" and len(kills) >= 6
    # each restart queued again the files of the jobs in flight, not those still waiting in the queue (a job a
    # worker had taken but not yet logged as executing is in flight too, so the bound is per worker)
    for k in kills[1:]:
        after = lives[lives.index(k["life"]) + 1]
        assert after.requeued <= FILES_PER_JOB * WORKERS, (k["aim"], sorted(k["cut"]), after.requeued)
    requeued = [lives[lives.index(k["life"]) + 1].requeued for k in kills]

    # the published generation: whole, with no failure, nothing in the queue
    collection = crash_report["collections"][0]
    assert collection["published"]["id"] == gen and collection["building"] is None
    assert crash_report["queue_pending"] == 0
    assert collection["published"]["failures"] == clean["failures"], "no failure came from the kills"
    assert not [f for f in clean["failures"] if f["state"] == "failed"]
    assert collection["files"] == len(clean["files"]) and collection["chunks"] == clean["chunk_count"]
    assert collection["published"]["changes"] == clean["changes"]
    assert collection["published"]["stages"] == clean["stages"]
    assert collection["published"]["chunks_written"] == clean["chunk_count"], "no file's chunks counted twice"
    assert len(clean["vectors"]) <= collection["published"]["embedded"] <= clean["chunk_count"]

    # identical to the clean run: files, chunks in order, vectors
    assert crash["files"] == clean["files"]
    assert crash["chunks"].keys() == clean["chunks"].keys()
    for path, chunks in clean["chunks"].items():
        assert crash["chunks"][path] == chunks, path
    assert crash["vectors"].keys() == clean["vectors"].keys()
    same_bytes = sum(crash["vectors"][h] == v for h, v in clean["vectors"].items())
    for text_hash, vec in clean["vectors"].items():
        assert np.allclose(np.frombuffer(crash["vectors"][text_hash], np.float32), np.frombuffer(vec, np.float32),
                           rtol=0, atol=1e-6), text_hash

    # no row twice, nothing left over
    for name, count in crash["duplicates"].items():
        assert count == 0, f"{name}: {count}"
    print(f"seed {SEED}: {len(kills)} kills, cut off {sorted(cut_off)}, files queued again {requeued}; "
          f"crash run {crash_seconds:.0f} s, "
          f"whole test {time.monotonic() - started:.0f} s; compared {len(clean['files'])} files, "
          f"{clean['chunk_count']} chunks, {len(clean['vectors'])} vectors ({same_bytes} byte-equal)")


def test_a_build_whose_jobs_died_with_one_worker_is_picked_up_by_the_periodic_rescan(immediate, tmp_path, monkeypatch):
    """A worker process killed while its consumer lives (the OOM killer): the consumer starts a new worker but
    does not look for lost jobs; the periodic rescan does, once the build has not moved for STALLED_SECONDS."""
    from search.index import freshness
    from workers import rescan, runtime
    monkeypatch.setenv("SIFT_RESCAN_MINUTES", "100000")  # only the stall may make the collection due
    root = write_tree(tmp_path / "notes", {"alpha.md": "# Alpha\nfirst words\n", "beta.md": "# Beta\nbeta\n"})
    first = ingest(root)["published"]["id"]
    conn = runtime.index()
    (root / "alpha.md").write_text("# Alpha\nedited words\n", encoding="utf-8")
    gen = store.begin_generation(conn, 1, runtime.model_id())  # a discover planned the edit; the job that
    store.record_plan(conn, gen, 1, {"alpha.md": "changed"}, {}, 2)  # carried it died with its worker
    assert rescan.due(conn, 6e6) == [], "a build that moves is left alone"
    later = time.time() + freshness.STALLED_SECONDS + 1
    assert rescan.due(conn, 6e6, now=later) == [1], "a stalled build is due"
    for sql in ("UPDATE generations SET started = started - 3600, discovered = discovered - 3600 WHERE id = ?",
                "UPDATE progress SET updated = updated - 3600 WHERE generation = ?",
                "UPDATE collections SET scan_started = scan_started - 3600 WHERE published < ?"):
        conn.execute(sql, (gen,))
    rescan.rescan_due()  # the periodic task, run at once in immediate mode
    assert conn.execute("SELECT published FROM collections").fetchone()[0] == gen > first
    texts = [c["text"] for c in reader.visible_chunks(conn) if c["path"] == "alpha.md"]
    assert len(texts) == 1 and "edited words" in texts[0]


# --- helpers ---------------------------------------------------------------------------------------------

def _copy_share(source: Path, root: Path) -> None:
    """Every SHARE-th file of ``source`` (sorted by path: most folders keep some) and its README, into ``root``."""
    files = sorted(p for p in source.rglob("*") if p.is_file())
    for i, path in enumerate(files):
        if i % SHARE == 0 or path == source / "README.md":
            target = root / path.relative_to(source)
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(path, target)


def _until(check, what: str, limit: float = LIMIT) -> None:
    deadline = time.monotonic() + limit
    while not check():
        if time.monotonic() > deadline:
            raise TimeoutError(f"never happened: {what} (seed {SEED})")
        time.sleep(0.05)


def _watch(life: Life, condition, what: str) -> None:
    """Poll the consumer's log (and through ``condition`` the index) until ``condition`` holds."""
    deadline = time.monotonic() + LIMIT
    while True:
        life.read_log()
        if condition():
            return
        if life.proc.poll() is not None:
            raise RuntimeError(f"the consumer died while waiting for {what}")
        if time.monotonic() > deadline:
            raise TimeoutError(f"never happened: {what} (seed {SEED})")
        time.sleep(0.005)


def _building(conn):
    return conn.execute("SELECT * FROM generations WHERE state = 'building'").fetchone()


def _published(conn):
    return conn.execute("SELECT published FROM collections WHERE name = 'notes'").fetchone()[0]


_last_written = [0, 0.0]


def _written(conn) -> int:
    """Files of the generation being built that are written (read at most every 0.1 s)."""
    if time.monotonic() - _last_written[1] > 0.1:
        row = conn.execute("SELECT count(*) FROM progress p JOIN generations g ON g.id = p.generation "
                           "WHERE g.state = 'building' AND p.stage = 'write' AND p.state = 'done'").fetchone()
        _last_written[:] = [row[0], time.monotonic()]
    return _last_written[0]


def _progress_counts(conn) -> dict[str, int]:
    rows = conn.execute("SELECT p.stage || ':' || p.state AS at, count(*) AS n FROM progress p "
                        "JOIN generations g ON g.id = p.generation WHERE g.state = 'building' GROUP BY at")
    return {row["at"]: row["n"] for row in rows}


def _snapshot(conn) -> dict:
    """What the published generation holds, and counts of rows that would be there twice."""
    files = {(r["path"], r["sha256"]) for r in reader.visible_files(conn)}
    chunks: dict[str, list] = {}
    for c in reader.visible_chunks(conn):
        chunks.setdefault(c["path"], []).append(
            (c["ordinal"], c["text"], c["start_line"], c["end_line"], c["page"], c["heading_path"], c["tokens"],
             c["text_hash"]))
    model = conn.execute("SELECT g.model FROM collections c JOIN generations g ON g.id = c.published").fetchone()[0]
    hashes = {c[-1] for rows in chunks.values() for c in rows}
    vectors = {r["text_hash"]: bytes(r["vec"]) for r in conn.execute("SELECT text_hash, vec FROM vectors "
                                                                     "WHERE model = ?", (model,))
               if r["text_hash"] in hashes}
    published = conn.execute("SELECT published FROM collections WHERE name = 'notes'").fetchone()[0]
    report = next(c for c in status.collect(conn)["collections"] if c["name"] == "notes")
    duplicates = {
        "visible versions of one path": _one(conn, f"SELECT count(*) FROM (SELECT f.path FROM files f JOIN "
                                                   f"collections c ON c.id = f.collection WHERE {collection_reads.VISIBLE} "
                                                   "GROUP BY f.collection, f.path HAVING count(*) > 1)"),
        "current versions of one path": _one(conn, "SELECT count(*) FROM (SELECT 1 FROM files WHERE gen_to IS NULL "
                                                   "GROUP BY collection, path HAVING count(*) > 1)"),
        "file rows not of the published generation": _one(conn, "SELECT count(*) FROM files WHERE gen_from != ?",
                                                          published),
        "chunks with one (file, ordinal)": _one(conn, "SELECT count(*) FROM (SELECT 1 FROM chunks "
                                                      "GROUP BY file, ordinal HAVING count(*) > 1)"),
        "chunks of no file": _one(conn, "SELECT count(*) FROM chunks WHERE file NOT IN (SELECT id FROM files)"),
        "FTS rows minus chunks": abs(_one(conn, "SELECT count(*) FROM chunks_fts")
                                     - _one(conn, "SELECT count(*) FROM chunks")),
        "FTS rows of no chunk": _one(conn, "SELECT count(*) FROM chunks_fts WHERE rowid NOT IN "
                                           "(SELECT id FROM chunks)"),
        "visible chunks without a vector": len(hashes - vectors.keys()),
        "generations not published": _one(conn, "SELECT count(*) FROM generations WHERE id != ?", published),
    }
    return {"files": files, "chunks": chunks, "chunk_count": sum(map(len, chunks.values())), "vectors": vectors,
            "failures": report["published"]["failures"], "stages": report["published"]["stages"],
            "changes": report["published"]["changes"], "duplicates": duplicates}


def _one(conn, sql: str, *args) -> int:
    return conn.execute(sql, args).fetchone()[0]
