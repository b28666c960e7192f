"""A job lost from the queue must not stall its build: the periodic check that queues its files again.

A generation publishes once every file of it has reached its end (``store.try_publish``); each stage queues the
next before it marks its files done, so a file in flight is always carried by a job: queued, scheduled (a
retry), or at work in a worker (workers.running). A job can still be lost on its own while the consumer runs on:
Redis stopped just after a job was queued (its append-only file kept the queue but that write: a 30-file build
waited 20 min for its 30th write), a SQLite queue whose last commits a power cut took, a worker process killed
mid-job (the OOM killer). A starting consumer queues again what the index says is in flight
(workers.recover.resume); a running one did so only when Redis had lost the whole queue (``queue_kept``), and the
periodic rescan only after ``freshness.STALLED_SECONDS`` (10 min) without progress, and never while other jobs
waited.

``check`` runs every minute (workers.rescan's periodic task). A build that has moved in the last
``SIFT_LOST_JOB_SECONDS`` is going on, and is left alone: its lost files, if any, are found once it stops moving
(it cannot publish before), and a check during a big build costs one statement. Of the builds that have stopped,
with one read of the index (their files in flight, through the progress_open index) and one of the queue, the
schedule and the jobs at work, it finds the files that no job carries. A file is queued again, from parse, only
when it was found so at two checks at least ``SIFT_LOST_JOB_SECONDS`` (60) apart and has not moved since the
first (its progress row unchanged): a job between stages (taken from the queue, its record not yet written)
moves its files on before the next check. A generation whose files are all done but that nobody published (its last write killed before it published) is
published the same way. Nothing is queued while a starting consumer queues again what was lost (its mark,
workers.recover.recovering), nor in immediate mode (no queue: a job runs inside the one that queued it).
"""
from __future__ import annotations

import logging
import time

from search.index import freshness, progress_reads
from workers import recover, running, runtime

log = logging.getLogger("sift.workers")
SEEN = "sift.lost.seen"  # in the queue's key-value store: what the last check found carried by no job, and when


def check(huey, now: float | None = None) -> dict[int, list[str]]:
    """Queue again the files of builds under way that no job has carried since the last check (at least
    SIFT_LOST_JOB_SECONDS ago); returns {generation: the paths queued again} (a generation published: [])."""
    now = time.time() if now is None else now
    if huey.immediate or recover.recovery_under_way(huey, now):
        return {}
    conn, settings = runtime.index(), runtime.settings()
    # a build that moved lately is going on: its files are looked at once it stops (it cannot publish before)
    building = [row for row in progress_reads.planned_building(conn)
                if not freshness.recent(now, row["moved"], settings.lost_job_seconds)]
    seen = huey.get(SEEN, peek=True)
    if not building:
        if seen is not None:
            huey.delete(SEEN)
        return {}
    # the index before the queue: a job that moves a file on between the two reads stamps its progress after
    # ``now``, and its file is not taken for lost
    rows = progress_reads.in_flight(conn, [row["id"] for row in building])
    orphans, collections, idle = _orphans(huey, rows, building)
    if seen is None or now - seen["at"] < settings.lost_job_seconds:
        first = {"at": now, "orphans": {g: set(p) for g, p in orphans.items()}, "idle": idle} if seen is None else \
            {"at": seen["at"], "orphans": {g: set(p) & seen["orphans"].get(g, set()) for g, p in orphans.items()},
             "idle": idle & seen["idle"]}  # too soon to tell: keep the first sighting of what is still alone
        _keep(huey, first, seen)
        return {}
    lost = {g: sorted(p for p, updated in paths.items() if p in seen["orphans"].get(g, ()) and updated <= seen["at"])
            for g, paths in orphans.items()}
    lost = {g: paths for g, paths in lost.items() if paths}
    done = idle & seen["idle"]
    for gen, paths in lost.items():
        log.warning("generation %s: %d files in flight were carried by no job for %.0f s (a job lost from the "
                    "queue): queuing them again from parse: %s", gen, len(paths), now - seen["at"],
                    ", ".join(paths[:3]) + (" …" if len(paths) > 3 else ""))
        recover.requeue(conn, gen, collections[gen], paths, settings)
    for gen in sorted(done):
        log.warning("generation %s: every file is done and no job published it for %.0f s: publishing it", gen,
                    now - seen["at"])
        recover.requeue(conn, gen, collections[gen], [], settings)
    _keep(huey, {"at": now, "orphans": {g: set(p) - set(lost.get(g, ())) for g, p in orphans.items()},
                 "idle": idle - done}, seen)
    return {**lost, **dict.fromkeys(done, [])}


def _keep(huey, sighting: dict, seen: dict | None) -> None:
    """Keep what this check found alone for the next one (one write, none while nothing is or was alone)."""
    sighting["orphans"] = {g: paths for g, paths in sighting["orphans"].items() if paths}
    if sighting["orphans"] or sighting["idle"]:
        huey.put(SEEN, sighting)
    elif seen is not None:
        huey.delete(SEEN)


def _orphans(huey, rows, building) -> tuple[dict[int, dict[str, float]], dict[int, int], set[int]]:
    """({generation: {path: its progress's time}} of the files in flight that no job carries, {generation: its
    collection}, the generations with no file in flight and no job of theirs)."""
    carried = recover.carried_jobs(huey)  # queued and scheduled (and at embedding machines)
    scanning = set()  # collections whose scan is at work: it records its plan, then queues the files
    for record in running.records(huey):
        if record["paths"] is None:
            scanning.add(record["collection"])
        else:
            carried.setdefault(record["gen"], set()).update(record["paths"])
    collections = {row["id"]: row["collection"] for row in building}
    orphans: dict[int, dict[str, float]] = {}
    in_flight = set()
    for row in rows:
        gen = row["generation"]
        in_flight.add(gen)
        if collections[gen] not in scanning and row["path"] not in carried.get(gen, ()):
            orphans.setdefault(gen, {})[row["path"]] = row["updated"]
    idle = {gen for gen, collection in collections.items()
            if gen not in in_flight and gen not in carried and collection not in scanning}
    return orphans, collections, idle
