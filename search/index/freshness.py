"""Scans that must wait their turn, and the facts of how fresh a collection is (``search.index.status`` reports them).

Facts kept on the ``collections`` row (schema V4):

- ``root_missing_since``: when a scan first found the root gone. A missing
  root is reported, not taken as "every file deleted", until it has been gone
  for a whole rescan interval (an unmounted disk, a folder moved and back).
- ``changes_noticed`` / ``changes_noticed_at``: files the watcher saw change
  that no scan has looked at yet.
- ``scan_started``: the running scan's claim on the collection, so that two
  scans never run at once (both would queue every changed file).
- ``scan_requested``: a scan asked for while another scan or a build of the
  collection was under way. It is not run then (it would queue the files in
  flight a second time); the watcher or the periodic rescan runs it once the
  build is published.
- ``scanned_unchanged``: when the last scan that found nothing changed began. It makes no generation (the
  published one stays), so this is its only trace: the periodic rescan, stats and search's freshness line
  count it as the collection's last scan.
"""
from __future__ import annotations

import time

from search.index import generation_reads, scan_reads, store, working
from search.index.db import transaction
from search.index.generation_reads import build_activity  # noqa: F401 (asked of freshness)
from search.index.scan_reads import last_scan, requested, unplanned_scan  # noqa: F401 (asked of freshness)
from search.index.status import CLOCK_SLACK_SECONDS, STALLED_SECONDS  # noqa: F401 (asked of freshness)

PRESENT, MISSING, GONE, BUSY = "present", "missing", "gone", "busy"
# A scan or a build that has not moved for STALLED_SECONDS (kept in search.index.status, whose freshness shows
# a scan walking the folder only that long) is taken as stalled (its jobs lost with
# a killed worker): a new scan may then pick its files up again. Longer than a live job can take
# without recording progress (16 big PDFs to embed; a worker waiting up to 5 min for disk space),
# so a slow job is not run twice. A whole consumer that was killed is recovered at once when it
# starts again (workers/recover.py); this covers one worker process killed under a running consumer. A job
# that is still at work (its worker alive, search.index.working) keeps its build under way however long it takes.
# A time stamped more than CLOCK_SLACK_SECONDS after now (search.index.status) is taken as long ago, not as a
# scan or a build under way: a scan claimed before the clock was set back and killed kept every later one waiting
# until the clock caught up.


def recent(now: float, then: float, seconds: float) -> bool:
    """Whether ``then`` lies less than ``seconds`` before ``now`` (and not after it by more than the slack)."""
    return -CLOCK_SLACK_SECONDS <= now - then < seconds


def begin_scan(conn, collection_id: int, root_present: bool, grace_seconds: float,
               now: float | None = None, force: bool = False) -> str:
    """Claim the collection for a scan: 'present', 'missing' (keep the index), 'gone' (its files count
    as deleted) or 'busy' (another scan or a build is under way: the scan is remembered as requested).

    Records when the root was first seen missing and forgets it once the root is back. ``force``: the
    claim and the build in the way are known to be dead (their worker was killed), so never 'busy'.
    """
    now = time.time() if now is None else now
    with transaction(conn):
        if not force and _busy(conn, collection_id, now):
            store.request_scan(conn, collection_id, now)
            return BUSY
        store.claim_scan(conn, collection_id, now)
        since = scan_reads.root_missing_since(conn, collection_id)
        if root_present:
            store.root_back(conn, collection_id)
            return PRESENT
        if since is not None and now - since >= grace_seconds:
            return GONE
        store.root_missing(conn, collection_id, since or now)
        return MISSING


def busy(conn, collection_id: int, now: float | None = None) -> bool:
    """A scan of the collection is running, or a generation of it is being built and has moved lately."""
    return _busy(conn, collection_id, time.time() if now is None else now)


def _busy(conn, collection_id: int, now: float) -> bool:
    started = unplanned_scan(conn, collection_id)
    if started is not None and recent(now, started, STALLED_SECONDS):
        return True  # its discover has not recorded its plan yet
    last = build_activity(conn, collection_id)
    if last is None:
        return False
    return recent(now, last, STALLED_SECONDS) or _at_work(conn, collection_id)


def _at_work(conn, collection_id: int) -> bool:
    """A live worker is still at a job of the build (``working``: chunking or embedding a big file). Such a job
    records no file's progress until it ends: a 4 MB note embedded for 20 minutes made its build look stalled
    after ten, and a scan then queued the note a second time, embedded twice over."""
    building = generation_reads.building_generation(conn, collection_id)
    return building is not None and bool(working.slow(conn, building["id"]))


def request(conn, collection_id: int) -> None:
    """Remember that the collection wants a scan (kept until a scan starts)."""
    with transaction(conn):
        store.request_scan(conn, collection_id, time.time())


def note_changes(conn, collection_id: int, files: int, now: float | None = None) -> None:
    """The watcher saw ``files`` files of the collection change since the last scan it queued."""
    with transaction(conn):
        store.note_changes(conn, collection_id, files, time.time() if now is None else now)

