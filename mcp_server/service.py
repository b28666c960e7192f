"""What the tools share: settings, read-only index connections, the engine, the model, the worker.

Tools run in worker threads, so each thread gets its own read-only
connection; the engine guards its own. Nothing here writes to the index.
"""
from __future__ import annotations

import threading

from mcp_server.errors import NoIndexYet, Problem
from mcp_server.model_state import ModelState

NO_INDEX = ("nothing is indexed yet: start sift-mcp with --root FOLDER (it registers and indexes the folder), "
            "or run `ingest enqueue FOLDER` with a worker running")


class _CloseAtThreadEnd:
    """Closes a thread's connection when the thread ends (its thread-local slot, which alone holds this, is freed).
    An sqlite3 connection is in a reference cycle of its own (its statement cache refers back to it), so one left
    to the garbage collector stayed open, with its descriptors and page cache, until a full collection: the MCP
    server's worker threads end after a quiet while and new ones open their own, and a soak of 150 publishes left
    it 7 open connections for 4 threads, growing."""

    def __init__(self, conn):
        self.conn = conn

    def __del__(self):
        self.conn.close()


class Sift:
    def __init__(self, settings, worker=None):
        self.settings = settings
        self.model = ModelState(settings)
        self.worker = worker  # mcp_server.worker.Worker, or None with --no-worker
        self.notices: list[str] = []  # trouble met at startup, shown by stats
        self.unqueued: dict[str, str] = {}  # a collection whose scan could not be queued at startup: why (freshness)
        self.problems: list[str] = []  # a --root or a setting that could not be served: the first lines of answers
        self.unusable: str | None = None  # nothing can be served (a SIFT_HOME that is not a folder): every answer
        self.worker_note = "started with --no-worker"  # why there is no worker, when there is none
        self.worker_held = False  # a bad setting kept the worker from starting (mcp_server.settings_problems)
        self._local = threading.local()
        self._engine = None
        self._engine_lock = threading.Lock()
        self._rules = None

    def conn(self):
        """This thread's read-only connection to the index: opened again when the index file is another one
        than the file it was opened on (deleted and made again: it read the deleted one), or gone."""
        from search.index import db
        if self.unusable:
            raise Problem(self.unusable)
        conn = getattr(self._local, "conn", None)
        now = db.opened(self.settings.index_path)  # the index and its -wal: either another file (db.replaced)
        if conn is not None and db.replaced(self.settings.index_path, self._local.identity):
            self._local.conn = self._local.closer = conn = None  # closed with its closer
        if conn is None:
            try:
                conn = db.connect(self.settings.index_path, readonly=True)
            except db.NoIndex as exc:  # none, or one being made (its tables not there yet)
                from mcp_server.wording import in_tool_words
                raise NoIndexYet(f"{NO_INDEX} ({in_tool_words(str(exc))})") from None
            except db.IndexUnavailable as exc:  # damaged, or unreadable: say so, never "nothing indexed"
                raise Problem(str(exc)) from None
            self._local.conn, self._local.identity = conn, now  # ``now`` taken before: a file swapped since
            self._local.closer = _CloseAtThreadEnd(conn)       # differs from it, and is opened at the next call
        return conn

    def engine(self):
        old = None
        with self._engine_lock:
            if self._engine is not None and self._engine.stale():  # the index deleted (and made again) since:
                old, self._engine = self._engine, None  # its caches are of the deleted file's generations (whose ids
            if self._engine is None:                   # the new one reuses)
                from search.query.engine import Engine
                self._engine = Engine(self.settings.index_path, self.model.get, models_changed=self.model.keep_only)
            engine = self._engine
        if old is not None:  # once a search still reading it is done: its connection held the deleted file (and
            old.close()      # its disk space) until a full garbage collection
        return engine

    def rules(self):
        """The include/exclude rules discovery applies (SIFT_INCLUDE, SIFT_EXCLUDE, the built-in ignores)."""
        if self._rules is None:
            from ingest.discover import Rules
            self._rules = Rules(self.settings.include, self.settings.exclude)
        return self._rules

    def roots(self) -> dict[str, str]:
        """Collection name → its root folder."""
        from search.index import collection_reads
        return {row["name"]: row["root"] for row in collection_reads.collections(self.conn())}

    def queue_scan(self, collection_id: int) -> dict | None:
        """Queue a discover job for the collection, unless one already waits (returned, see
        workers.rescan.queue_scan); the worker does the rest."""
        from workers import rescan, tasks
        if tasks.huey.immediate:
            raise Problem("the queue is in immediate mode (SIFT_QUEUE_IMMEDIATE=1), which would index inside "
                          "the server: unset it and run a worker")
        return rescan.queue_scan(collection_id)

    def check_collection(self, name: str | None) -> str | None:
        """The collection ``name`` means, as registered: in either Unicode normal form, as paths are (a folder
        macOS named 'résumés' in NFD gives its collection that name, and a client types NFC: it was refused as
        "no collection named 'résumés'; collections: résumés"). Refuse an unknown one, naming the known ones."""
        if name is None:
            return None
        from search.query.scope import collection_named, unknown_collection
        roots = self.roots()
        registered = collection_named(name, roots)
        if registered is None:
            raise Problem(unknown_collection(name, roots))
        return registered
