"""Queue scans without piling them up: the watcher's requests and the periodic rescan.

``request_scan`` queues one ``discover`` for a collection only when that cannot
duplicate work: no scan of the collection is running or waiting in the queue,
no generation of it is being built, and, for a collection not published yet,
no job is waiting in the queue (a rescan of a published one goes ahead of the
builds under way: ``tasks.priority``). Otherwise the scan is
remembered as requested (``search.index.freshness.request``) and the watcher, or the
periodic rescan, asks again later. ``discover`` itself claims the collection
the same way as it starts (``search.index.freshness.begin_scan``), so a scan queued
directly (``ingest enqueue``, the ``refresh`` tool) never queues the files in
flight a second time either.

The periodic task is the safety net behind the file-system watcher: once a
minute it queues, by the same rule (``may_queue``), a scan of every collection not scanned for
``SIFT_RESCAN_MINUTES`` (default 10), with a scan requested, or whose build
has not moved for ``freshness.STALLED_SECONDS`` (a worker process was killed
and the consumer started a new one: the scan queues its lost files again;
a whole consumer that restarts does that at once, see workers/recover.py, and the check of workers/lost.py,
run first by the same task, two or three minutes after the build's last progress), or
whose big file's background embedding died with its worker (the scan hands it on again).
"""
from __future__ import annotations

import logging
import sqlite3
import time

from huey import crontab

from search.index import collection_reads, freshness, generation_reads, progress_reads
from workers import lost, recover, remote, runtime, tasks
from workers.app import huey

log = logging.getLogger("sift.rescan")


def request_scan(collection_id: int, conn=None, paths: list[str] | None = None) -> bool:
    """Queue a discover for the collection, or remember the request while that would duplicate work. ``paths``:
    the only ones that changed (the watcher's), for a scan that reads those alone; None: walk them all. A request
    of ``paths`` is not remembered: the watcher keeps them and asks again at every tick, and a request remembered
    (freshness.requested) is one for a walk: one that ``discover`` put off, whose paths are not known."""
    conn = conn or runtime.index()
    if not may_queue(collection_id, conn):
        if not paths:
            freshness.request(conn, collection_id)
        return False
    if paths:
        tasks.scan(collection_id, conn, paths=paths)
    else:
        tasks.scan(collection_id, conn)
    return True


def next_part(collection_id: int, conn) -> bool:
    """Queue the scan of a first build's next part (workers.tasks.publish_part), unless a scan of the collection
    already runs or waits in the queue: while its published generation is a part, every scan walks the whole
    folder (tasks._scope) and so reads the next part. A scan that another worker took while this one published
    (a big file's, done in the background) made the publish remember a request as well: stats said 'waiting: a
    rescan was asked for 14 s ago' through notes-en's last part, and one more walk, of no changes, followed it."""
    try:
        waiting = _waiting(collection_id)
    except Exception:  # noqa: BLE001 - a queue that cannot be read: ask as ever (queueing says what is wrong)
        waiting = None
    if waiting is not None or freshness.busy(conn, collection_id):
        log.info("collection %s: a scan of it is under way or queued already: it reads the next part",
                 collection_id)
        return False
    return request_scan(collection_id, conn)


def may_queue(collection_id: int, conn) -> bool:
    """The one rule for queueing a scan that no one asked for by hand (the watcher's, the periodic rescan's):
    nothing of the collection is under way, and no job waits, or the scan is a rescan of a published collection
    (it goes first: ``tasks.priority``) and none of it waits in the queue already. A build that has not moved
    for a while counts as under way while jobs wait: its own may only be waiting their turn (behind a bigger
    build), and a scan would queue its files a second time; once the queue is empty it is stalled for sure."""
    if freshness.busy(conn, collection_id):
        return False
    if not huey.pending_count():
        return True
    published = collection_reads.get_collection(conn, collection_id)["published"] is not None
    return published and _waiting(collection_id) is None and freshness.build_activity(conn, collection_id) is None \
        and freshness.unplanned_scan(conn, collection_id) is None


def _waiting(collection_id: int) -> dict | None:
    """The scan of the collection that waits in the queue already (workers.waiting.queued), or None."""
    from workers import waiting
    return next((scan for scan in waiting.queued() if scan["collection"] == collection_id), None)


def queue_scan(collection_id: int) -> dict | None:
    """Queue a discover for the collection asked for by hand (``ingest enqueue``, the ``refresh`` tool,
    ``sift-mcp --root``), unless a scan of it already waits in the queue: that one reads every change made
    until a worker takes it. Returns the waiting scan (workers.waiting.queued), or None when one was queued
    now. Each refresh used to queue one more: three scans of notes-en ran back to back after its build, each
    publishing a generation of 'no changes' over the one that had read the edits."""
    try:
        already = _waiting(collection_id)
    except Exception:  # noqa: BLE001 - a queue that cannot be read: queueing below says why, as it always did
        already = None
    if already is None:
        try:
            tasks.scan(collection_id)
        except sqlite3.OperationalError as exc:  # the queue held by another process: it was said as the index's
            from workers.queues import QueueUnavailable, busy, queue_busy  # ('the index … is busy'), not held
            if not busy(exc):
                raise
            raise QueueUnavailable(queue_busy(tasks.huey.storage.filename, str(exc))) from exc
    return already


def already_queued(name: str, scan: dict) -> str:
    """'a scan of notes is already queued (2.0 min ago): it reads every change made until a worker takes it, so
    no other was queued': what ``ingest enqueue`` and the ``refresh`` tool say of a waiting scan."""
    from search.index.status import age
    since = f" ({age(time.time() - scan['queued_at'])} ago)" if scan.get("queued_at") else ""
    return (f"a scan of {name} is already queued{since}: it reads every change made until a worker takes it, "
            "so no other was queued")


def due(conn, interval_seconds: float, now: float | None = None) -> list[int]:
    """Collections whose last scan started at least ``interval_seconds`` ago, with a scan requested, or with a
    scan or a build that has stalled (its jobs lost with a worker process killed while the consumer went on)."""
    now = time.time() if now is None else now
    ids = sorted(row["id"] for row in collection_reads.collections(conn))
    latest = now + freshness.CLOCK_SLACK_SECONDS  # a later time was stamped before the clock was set back
    stale = [cid for cid in ids if not freshness.recent(now, freshness.last_scan(conn, cid, latest), interval_seconds)]
    waiting = _waiting_for_embedders(conn)
    stalled = [cid for cid in ids if not freshness.busy(conn, cid, now) and cid not in waiting and (
        freshness.build_activity(conn, cid) is not None or freshness.unplanned_scan(conn, cid) is not None)]
    lost = {row["collection"] for row in tasks.lost_in_background(conn, queued=None)}  # a worker killed under it
    parts = progress_reads.partial(conn)  # a first build's part published, its next part's scan not queued (worker died)
    return sorted(set(stale) | set(stalled) | set(freshness.requested(conn)) | lost | set(parts))


def _waiting_for_embedders(conn) -> set[int]:
    """Collections whose build has batches at embedding machines: not stalled, only slow (an embedding machine
    that died has its jobs sent again by workers.remote, without a scan)."""
    if not runtime.settings().embed_remote:
        return set()
    from workers import remote
    return generation_reads.generation_collections(conn, sorted(remote.generations_waiting()))


@huey.periodic_task(crontab(), priority=0)
def rescan_due() -> None:
    """Every minute: queue a scan of each collection that is due, by the watcher's rule (``may_queue``): a
    rescan of a published collection also while other jobs wait (it goes ahead of them), unless one of it
    waits already; any other scan only into an empty queue (else next minute).
    It used to queue nothing while any job waited, so no collection was rescanned during another's big build.
    On Redis, first queue again what a Redis that lost its data dropped, and the embed jobs of embedding workers
    that died; then, on either queue, the files of a build that a job lost on its own left carried by no job
    (workers.lost). One periodic task for all, so that none of them finds the others waiting in the queue."""
    recover.queue_kept()
    remote.resend_lost()
    lost.check(huey)
    conn = runtime.index()
    names = {row["id"]: row["name"] for row in collection_reads.collections(conn)}
    for collection_id in due(conn, runtime.settings().rescan_minutes * 60):
        if may_queue(collection_id, conn):
            tasks.scan(collection_id, conn)
            log.info("periodic rescan of collection %s queued", names.get(collection_id, collection_id))
