"""Queue again, when a consumer starts, the jobs a killed worker took with it.

huey's SQLite queue deletes a job as a worker takes it, so a worker killed in the middle of a job (SIGKILL, the
OOM killer, a power cut) loses that job; its files would stay in flight and their generation would never be
published. A consumer that starts (``huey_consumer``, or the worker of ``sift-mcp``) calls ``resume`` first, in
its main process, before any of its workers has taken a job. For each collection:

- a scan that claimed the collection but never recorded its plan (its discover was killed) is queued again,
  as a resumed scan that its own dead claim does not hold up;
- otherwise, in the generation being built, the files that have not reached their end and that no queued or
  scheduled job carries are queued again from parse, and a publish is queued (for a generation whose files are
  all done but whose publish was killed), with the priority their first jobs had (``tasks.priority``: those
  of a small build go ahead of bigger builds').

A big file's background embedding (``tasks.embed_in_background``) whose job no queue holds and no live worker
runs is marked stopped (``store.stop_background``), and its collection scanned again: the scan reads the file
and hands it on again, and the new job goes on from the vectors the lost one kept (the row, kept until that
scan's build is under way, keeps them from the clean-up of unused vectors meanwhile).

On Redis (``SIFT_QUEUE=redis://…``) the same holds, and more can be lost: Redis restarted without persistence
comes back empty. The consumer leaves a mark in Redis as it starts (``mark_queue``); a periodic task finds it
gone (``queue_kept``, run every minute by workers.rescan) and does what a starting consumer does, from what the index records. Batches waiting for
an embedding machine (workers.remote's ledger) count as carried; their own jobs are re-sent by workers.remote.

A job lost on its own while the consumer runs on (a worker process killed, one queued job that Redis dropped) is
found by the periodic check of workers.lost, which queues its files again with ``requeue`` and waits while a
starting consumer recovers (``recovering``).

What a killed job had committed stays (each job commits its writes in one transaction, and runs again as if it
had run once). Two consumers on one home are not expected: a second one would take the first one's running jobs
for lost and queue them again, which costs time, not correctness.
"""
from __future__ import annotations

import contextlib
import logging
import os
import socket
import time

from huey import RedisHuey

from search.index import collection_reads, db, freshness, generation_reads, progress_reads, store, working
from search.settings import load
from workers.app import huey as app_huey

log = logging.getLogger("sift.workers")
QUEUE_MARK = "sift.queue.kept"  # set in Redis by a starting consumer; gone means Redis lost the queue
RECOVERING = "sift.recovering"  # in the queue's key-value store while a consumer queues again what was lost


def resume(huey, settings=None) -> None:
    settings = settings or load()
    if not settings.index_path.exists():
        return  # nothing was ever indexed here
    with recovering(huey):
        _resume(huey, settings)


def _resume(huey, settings) -> None:
    from workers import tasks  # the tasks module imports the huey app, which calls this

    carried = carried_jobs(huey)
    conn = db.connect(settings.index_path)  # its own connection: the workers are forked after this
    try:
        lost = tasks.lost_in_background(conn, _in_background(huey, tasks))
        if lost:  # the scan reads their files again, and hands each on again if it still has that much to embed
            log.warning("%d big files were being embedded in the background by jobs that were interrupted; "
                        "scanning them again", len(lost))
            store.stop_background(conn, lost)  # the scan forgets them once its build keeps their vectors
            for collection_id in sorted({r["collection"] for r in lost}):
                tasks.scan(collection_id, conn)
        for collection in sorted(collection_reads.collections(conn), key=lambda row: row["id"]):
            building = generation_reads.building_generation(conn, collection["id"])
            if freshness.unplanned_scan(conn, collection["id"]) is not None:
                log.warning("collection %s: its scan was interrupted; scanning again", collection["name"])
                tasks.scan(collection["id"], conn, resume=True)
            elif building is not None:
                gen = building["id"]
                lost = [p for p in progress_reads.pending_paths(conn, gen) if p not in carried.get(gen, set())]
                if lost:
                    log.warning("generation %s: %d files were in jobs that were interrupted; queuing them again",
                                gen, len(lost))
                requeue(conn, gen, collection["id"], lost, settings)
    finally:
        conn.close()


def requeue(conn, gen: int, collection_id: int, paths: list[str], settings) -> None:
    """Queue ``paths`` of generation ``gen`` again from parse (a stage run again does what it did once: its writes
    are keyed by path), in jobs of SIFT_FILES_PER_JOB files with the priority their first jobs had (a small
    build's go first), and a publish: it publishes once the last file is done, now if it already is."""
    from workers import tasks
    urgent, started = tasks.urgent_build(conn, gen), generation_reads.generation(conn, gen)["started"]
    for i in range(0, len(paths), settings.files_per_job):
        tasks.then(tasks.parse, tasks.Batch(gen, collection_id, paths[i:i + settings.files_per_job], urgent=urgent,
                                            started=started))
    tasks.publish(gen, priority=tasks.priority(tasks.publish, urgent))


@contextlib.contextmanager
def recovering(huey):
    """Say in the queue, while a consumer queues again what was lost (``resume``), that it does: the periodic
    check of jobs lost from the queue (workers.lost) waits meanwhile, else both would queue the same files, and
    forgets what it had seen (what it saw lost is queued now)."""
    from workers import lost, running
    mark = {"at": time.time(), "by": f"{socket.gethostname()}:{os.getpid()}"}
    running.quietly(huey.put, RECOVERING, mark)
    try:
        yield
    finally:
        running.quietly(huey.delete, lost.SEEN)
        running.quietly(huey.delete, RECOVERING)


def recovery_under_way(huey, now: float) -> bool:
    """Whether a consumer is queueing again what was lost (``recovering``): its mark is there and its process
    lives (on another machine: the mark is younger than freshness.STALLED_SECONDS)."""
    mark = huey.get(RECOVERING, peek=True)
    if not mark:
        return False
    host, _, pid = mark["by"].rpartition(":")
    if host == socket.gethostname():
        return working.alive(int(pid))
    return freshness.recent(now, mark["at"], freshness.STALLED_SECONDS)


def carried_jobs(huey) -> dict[int, set[str]]:
    """generation → the paths that queued and scheduled jobs (retries waiting their turn) carry."""
    from workers import tasks
    carried: dict[int, set[str]] = {}
    batches = [task.args[0] for task in [*huey.pending(), *huey.scheduled()] if task.args]
    if _redis(huey) is not None and load().embed_remote:
        from workers import remote
        batches += remote.in_flight()  # at an embedding machine, or waiting for one
    for batch in batches:
        if isinstance(batch, tasks.Batch):
            carried.setdefault(batch.gen, set()).update(batch.paths)
    return carried


def _in_background(huey, tasks) -> set[tuple[int, str, float]]:
    """(collection, path, token) of the big files' background jobs that are queued or scheduled: a job of an
    older token (its row since taken by a later hand-off) is not the row's own, and stops as it starts."""
    jobs = [task.args[0] for task in [*huey.pending(), *huey.scheduled()] if task.args]
    return {(job.collection, job.path, job.since) for job in jobs if isinstance(job, tasks.Background)}


def _redis(huey):
    """The Redis client of a Redis queue; None for SQLite (or huey's immediate mode)."""
    return huey.storage.conn if isinstance(huey, RedisHuey) and not huey.immediate else None


def mark_queue(huey) -> None:
    """Leave the mark that ``queue_kept`` looks for (Redis only)."""
    conn = _redis(huey)
    if conn is not None:
        conn.set(QUEUE_MARK, str(time.time()))


def queue_lost(huey) -> bool:
    conn = _redis(huey)
    return conn is not None and not conn.exists(QUEUE_MARK)


def queue_kept() -> None:
    """Every minute (from workers.rescan's periodic task), on Redis: if Redis lost the queue (restarted without persistence, flushed), queue again what
    the index says is in flight, as a starting consumer would (its running jobs may then run twice: that costs
    time, not correctness). With ``appendonly yes`` Redis keeps the queue and this never fires."""
    if queue_lost(app_huey):
        log.warning("the Redis queue lost its jobs (restarted without persistence?): queuing again what the "
                    "index says is in flight")
        mark_queue(app_huey)
        resume(app_huey)
