"""How fresh a collection is, on the index side, and scans that must wait their turn.

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
"""
from __future__ import annotations

import time

from search import store
from search.db import transaction

PRESENT, MISSING, GONE, BUSY = "present", "missing", "gone", "busy"
# A scan or a build that has not moved for this long is taken as stalled (its jobs lost with
# a killed worker): a new scan may then pick its files up again. Longer than a live job can take
# without recording progress (16 big PDFs to embed; a worker waiting up to 5 min for disk space),
# so a slow job is not run twice. A whole consumer that was killed is recovered at once when it
# starts again (workers/recover.py); this covers one worker process killed under a running consumer.
STALLED_SECONDS = 600.0


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
            _request(conn, collection_id, now)
            return BUSY
        conn.execute("UPDATE collections SET scan_started = ?, changes_noticed = 0, scan_requested = NULL "
                     "WHERE id = ?", (now, collection_id))
        since = conn.execute("SELECT root_missing_since FROM collections WHERE id = ?",
                             (collection_id,)).fetchone()[0]
        if root_present:
            conn.execute("UPDATE collections SET root_missing_since = NULL WHERE id = ?", (collection_id,))
            return PRESENT
        if since is not None and now - since >= grace_seconds:
            return GONE
        conn.execute("UPDATE collections SET root_missing_since = ?, scan_started = NULL WHERE id = ?",
                     (since or now, collection_id))
        return MISSING


def busy(conn, collection_id: int, now: float | None = None) -> bool:
    """A scan of the collection is running, or a generation of it is being built and has moved lately."""
    return _busy(conn, collection_id, time.time() if now is None else now)


def _busy(conn, collection_id: int, now: float) -> bool:
    started = unplanned_scan(conn, collection_id)
    if started is not None and now - started < STALLED_SECONDS:
        return True  # its discover has not recorded its plan yet
    last = build_activity(conn, collection_id)
    return last is not None and now - last < STALLED_SECONDS


def unplanned_scan(conn, collection_id: int) -> float | None:
    """When the scan that claimed the collection started, if it has not recorded its plan yet; else None."""
    row = conn.execute(
        "SELECT scan_started FROM collections c WHERE id = ? AND scan_started IS NOT NULL AND NOT EXISTS "
        "(SELECT 1 FROM generations g WHERE g.collection = c.id AND g.discovered >= c.scan_started)",
        (collection_id,)).fetchone()
    return row[0] if row else None


def build_activity(conn, collection_id: int) -> float | None:
    """When the generation being built last moved (started, discovered, a file's progress); None: none building."""
    row = conn.execute(
        "SELECT max(g.started, coalesce(g.discovered, 0), "
        "coalesce((SELECT max(updated) FROM progress p WHERE p.generation = g.id), 0)) AS last "
        "FROM generations g WHERE g.collection = ? AND g.state = 'building' ORDER BY g.id DESC LIMIT 1",
        (collection_id,)).fetchone()
    return row["last"] if row else None


def request(conn, collection_id: int) -> None:
    """Remember that the collection wants a scan (kept until a scan starts)."""
    with transaction(conn):
        _request(conn, collection_id, time.time())


def _request(conn, collection_id: int, now: float) -> None:
    conn.execute("UPDATE collections SET scan_requested = coalesce(scan_requested, ?) WHERE id = ?",
                 (now, collection_id))


def requested(conn) -> list[int]:
    """Collections with a scan asked for and not started yet."""
    return [row[0] for row in conn.execute("SELECT id FROM collections WHERE scan_requested IS NOT NULL")]


def note_changes(conn, collection_id: int, files: int, now: float | None = None) -> None:
    """The watcher saw ``files`` files of the collection change since the last scan it queued."""
    with transaction(conn):
        conn.execute("UPDATE collections SET changes_noticed = ?, changes_noticed_at = ? WHERE id = ?",
                     (files, time.time() if now is None else now, collection_id))


def last_scan(conn, collection_id: int) -> float:
    """When the newest generation of the collection started (or the collection was registered)."""
    row = conn.execute("SELECT coalesce((SELECT max(started) FROM generations WHERE collection = c.id), c.created) "
                       "FROM collections c WHERE c.id = ?", (collection_id,)).fetchone()
    return row[0] if row else 0.0


def state(conn, collection) -> dict:
    """Freshness of one collection row (sqlite3.Row or dict): what stats and search's freshness line show.

    ``pending_files``: files changed since the last publish, noticed by the
    watcher or in the generation being built, that are not searchable yet.
    """
    keys = collection.keys()
    get = lambda key, default=None: collection[key] if key in keys else default  # noqa: E731 (an index before V4)
    building = conn.execute("SELECT id FROM generations WHERE collection = ? AND state = 'building'",
                            (collection["id"],)).fetchone()
    total, done = store.generation_progress(conn, building["id"]) if building else (0, 0)
    return {
        "root_missing_since": get("root_missing_since"),
        "changes_noticed": get("changes_noticed", 0),
        "changes_noticed_at": get("changes_noticed_at"),
        "scan_requested": get("scan_requested"),
        "pending_files": get("changes_noticed", 0) + total - done,
    }
