"""The huey app: ``huey_consumer workers.app.huey -k process -w 2`` runs Sift's jobs.

The queue backend comes from settings: ``SqliteHuey`` in ``<home>/queue.db`` by default, or with
``SIFT_QUEUE=redis://HOST:PORT/DB`` huey's Redis backend (``PriorityRedisHuey``: a ``RedisHuey`` whose queue is
a sorted set, so later stages go first as they do on SQLite). The tasks do not know which.
"""
from __future__ import annotations

import contextlib
import logging
import os
import re
import signal
import socket
import sqlite3
import time

from huey import PriorityRedisHuey, SqliteHuey
from huey.signals import SIGNAL_ERROR, SIGNAL_EXECUTING
from huey.storage import SqliteStorage

from search.index.db import WAL_LIMIT_BYTES
from search.settings import load
from workers import halt, parent_death, queue_reader, queue_state, refusal
from workers.pickles import JobSerializer
from workers.queues import (QueueDamaged, QueueUnavailable, busy, consumer_settings, immediate, log_like_huey,
                            lower_priority, queue_busy, queue_damaged, queue_read_only, queue_wait, redis_huey,
                            refuse_unusable_redis, SaysRedisBack, unwritable)
# the queue's name and its keys live in workers.queue_state, which ingest stats reads them with, without huey
from workers.queue_state import MODEL_AT_WORK, QUEUE_NAME, QUEUE_REPLACED, WORKER_MODELS, WORKER_SEEN, model_records

SEEN_EVERY = 10.0  # seconds: a busy worker records it at most this often


class Recovering:
    def create_consumer(self, **options):
        """A consumer starting first queues again the jobs a killed worker lost (workers.recover)."""
        log_like_huey()
        _refuse_unusable_index()
        _refuse_unusable_queue(self)
        _refuse_unusable_model(self)
        refusal.ready()
        lower_priority(consumer_settings("sift worker"))
        from search.setting_names import misspelled, slip_text
        for name, meant in misspelled():  # SIFT_EXCLUDE misspelt where the worker is started: all indexed, unsaid
            logging.getLogger("sift.workers").warning(f"{slip_text(name, meant)} (settings: docs/configuration.md)")
        from workers import recover, running
        record_seen(self)
        _record_model(self, time.time())
        halt.forget(self)
        _forget_replaced(self)
        try:
            recover.resume(self)
            recover.mark_queue(self)
        except Exception:  # an unusable index is reported by the jobs themselves; the consumer still starts
            logging.getLogger("sift.workers").exception("could not look for interrupted jobs")
        try:  # apart from the recovery above, which trouble here must not skip
            running.forget_here(self)  # records of work no live worker holds
            _mark_resumed()
        except Exception:
            logging.getLogger("sift.workers").exception("could not note this worker's start for the lost-job "
                                                        "check and the ETA")
        return Consumer(self, **options)

    def dequeue(self):
        """huey's worker loop logged a damaged queue with its traceback at every poll, for ever: stop instead. A
        worker that finds the queue empty runs no job: its record of one goes (workers.running.idle)."""
        try:
            task = super().dequeue()
        except QueueDamaged as exc:
            halt.stop(str(exc))
            return None
        _follow_replaced(self)
        if task is None:
            from workers import running
            running.idle(self)
        return task

    def execute(self, task, timestamp=None):
        """huey's bookkeeping around a job (revoked? its result, its revoke key) uses the queue too. In
        immediate mode a job met a damaged index inside the ones that queued it: the outermost ends there."""
        try:
            with halt.outermost():
                return super().execute(task, timestamp)
        except QueueDamaged as exc:
            halt.stop(str(exc))
            return None

    def read_schedule(self, timestamp=None):
        """The scheduler's loop, likewise (every second)."""
        try:
            return super().read_schedule(timestamp)
        except QueueDamaged as exc:
            halt.stop(str(exc))
            return []
        finally:
            _follow_replaced(self)


class QueueStorage(SqliteStorage):
    """huey's SQLite queue with ``synchronous = NORMAL``, as the index has: in WAL mode a commit is then not
    flushed to disk (huey's default, FULL, fsyncs every enqueue and every dequeue: a quarter of a
    small-file job went there, by py-spy). A job queued just before a power cut may be lost, never the queue itself;
    what the index records as in flight is queued again when the consumer starts (workers.recover)."""

    tables_missing = False  # the tables could not be made when the app was made (a damaged queue.db)
    opened = None  # the file this process's connection opened: (device, inode)
    replaced = False  # queue.db was found deleted or replaced under that connection, and opened again

    @property
    def conn(self):
        """huey's connection, opened again when queue.db was deleted (the user's reset) or replaced since it was
        opened: a running consumer kept reading and writing the deleted file, and the jobs ``ingest enqueue`` queued
        into the new one waited for a worker that never came. One stat per use of the queue. Closing the old
        connection writes nothing into the new file: SQLite checkpoints no moved database, nor deletes its -wal."""
        if self._conn is not None and _identity(self.filename) != self.opened \
                and os.path.isdir(os.path.dirname(self.filename)):  # the home gone with it: nothing to open again
            self._conn.close()
            self._conn = None
            self.tables_missing = True  # a file nobody has made yet: this connection makes it, as a start does
            self.replaced = True
        return super().conn

    def _create_connection(self):
        conn = super()._create_connection()
        self.opened = _identity(self.filename)  # the pragma journal_mode huey sets has made the file
        conn.execute("pragma synchronous = NORMAL")
        conn.execute(f"pragma journal_size_limit = {WAL_LIMIT_BYTES}")  # queue.db-wal cut back as index.db-wal is
        if self.tables_missing:  # the damaged file has been replaced since: make the tables now
            for statement in self.ddl:
                conn.execute(statement)
            self.tables_missing = False
        return conn

    @contextlib.contextmanager
    def db(self, commit=False, close=False):
        """huey's every use of the file: a damaged one raises QueueUnavailable, which names the queue (a bare
        'file is not a database' was taken for the index's, whose advice is to delete index.db)."""
        try:
            with super().db(commit=commit, close=close) as cursor:
                yield cursor
        except sqlite3.DatabaseError as exc:
            from search.index import db
            if db.is_damaged(exc):
                raise QueueDamaged(queue_damaged(self.filename, str(exc))) from exc
            if db._code(exc) == db.SQLITE_READONLY or "readonly database" in str(exc):
                why = unwritable(self.filename) or str(exc)
                raise QueueUnavailable(queue_read_only(self.filename, why)) from exc
            raise

    def initialize_schema(self):
        """Made when the app is imported: a damaged queue must not stop the import (``ingest stats`` and
        searches do not need it); each use of the queue says what is wrong, and a consumer refuses to start. A
        queue another process holds past the 30 s raises QueueUnavailable naming it (it raised before, unnamed)."""
        try:
            if not self._schema_done():
                super().initialize_schema()
        except QueueUnavailable:
            self.tables_missing = True
        except sqlite3.OperationalError as exc:  # held by another process for all of huey's 30 s: it was said as
            if not busy(exc):                      # the index's ('the index at …/index.db is busy'), a file not held
                raise
            raise QueueUnavailable(queue_busy(self.filename, str(exc))) from exc

    def _schema_done(self) -> bool:
        """Whether huey's tables and indexes are all there (and the index it drops gone), by a read: making them
        again is a no-op that still takes the write lock, so a process that only reads the queue (``ingest
        stats``) waited the 30 s on another process's write before it could read (61 s: twice), where a read
        in WAL mode waits on no writer."""
        wanted = {found for sql in self.ddl for found in re.findall(r"create \w+ if not exists (\w+)", sql)}
        dropped = {found for sql in self.ddl for found in re.findall(r"drop \w+ if exists (\w+)", sql)}
        with self.db(close=True) as cursor:  # closed, as huey's making them closes it (a consumer forks after)
            names = {row[0] for row in cursor.execute("select name from sqlite_master where type in ('table', "
                                                      "'index')")}
        return wanted <= names and not dropped & names

    def check(self) -> None:
        """Raise QueueUnavailable if the queue cannot be written or is damaged anywhere (a consumer checks
        once, as it starts: otherwise it would run on, failing to take every job)."""
        why = unwritable(self.filename)
        if why is not None:
            raise QueueUnavailable(queue_read_only(self.filename, why))
        problems = [row[0] for row in self.sql("pragma quick_check(3)", results=True)]
        if problems != ["ok"]:
            found = " ".join(" ".join(problems).replace("*** in database main ***", "").split())
            raise QueueDamaged(queue_damaged(self.filename, f"quick_check: {found[:200]}"))


def _identity(path: str) -> tuple[int, int] | None:
    try:
        found = os.stat(path)
    except OSError:
        return None
    return found.st_dev, found.st_ino


class SiftHuey(Recovering, SqliteHuey):
    """The default: a queue in <home>/queue.db, for workers on this machine."""
    storage_class = QueueStorage


class Consumer(halt.Consumer):
    def _create_scheduler(self):
        """The periodic task (workers.rescan: the lost-job check, Redis's lost queue, the rescan) every
        SIFT_PERIODIC_SECONDS, 60 unless told (huey's minute); its ``crontab()`` matches every minute, so it
        runs at each. Tests shorten it to wait seconds, not minutes, for the checks they prove."""
        scheduler = super()._create_scheduler()
        scheduler.periodic_task_seconds = load().periodic_seconds
        return scheduler

    def _handle_signal(self, signum, frame):
        """huey's, but a graceful stop first takes back the server's death signal (workers.parent_death): a client
        that kills sift-mcp seconds after closing stdin made it a second SIGINT, which cut the running jobs off."""
        if signum == signal.SIGINT:
            parent_death.disarm()
        super()._handle_signal(signum, frame)

    def run(self):
        """A consumer that stops says its model is no longer at work: a worker started with another model (the
        user changing SIFT_MODEL) re-embeds at its first scan, not two minutes later."""
        try:
            super().run()
        finally:
            forget_model(self.huey)


class SiftRedisHuey(Recovering, SaysRedisBack, PriorityRedisHuey):
    """SIFT_QUEUE=redis://…: the queue in Redis, which workers on other machines can reach too."""


def _follow_replaced(app) -> None:
    """The queue was opened again (QueueStorage.conn): say so in the log and in the new queue, which holds no record
    yet that a worker is here (stats asked 'is a worker running?'), nor why (stats' queue.db line)."""
    storage = app.storage
    if not getattr(storage, "replaced", False):
        return
    storage.replaced = False
    logging.getLogger("sift.workers").warning(
        f"{storage.filename} was deleted or replaced while this worker ran: it takes its jobs from the new one now "
        "(the jobs the old one held are gone; files left in flight are queued again by the check for lost jobs)")
    now = time.time()
    try:
        app.put(QUEUE_REPLACED, now)
    except Exception:  # noqa: BLE001 - as record_seen: the queue's own trouble is met by its next use
        logging.getLogger("sift.workers").debug("could not record that the queue was replaced", exc_info=True)
    record_seen(app)
    _record_model(app, now)


def _forget_replaced(app) -> None:
    """A consumer starting: a queue replaced under the last one is past (as halt.forget)."""
    try:
        app.get(QUEUE_REPLACED)
    except Exception:  # noqa: BLE001 - checked already; the jobs say what is wrong
        pass


def _mark_resumed() -> None:
    """The builds under way count their ETA's pace from this start (search.index.store.mark_resumed)."""
    from search.index import db, store
    from workers import runtime
    conn = db.connect(runtime.settings().index_path)  # its own connection: the workers are forked after this
    try:
        store.mark_resumed(conn)
    finally:
        conn.close()


def _refuse_unusable_index() -> None:
    """A worker cannot do anything with an index it cannot write (a read-only folder, a damaged file):
    say so in one line, naming the path and the fix, and stop, rather than fail every job."""
    from search.index import db
    try:
        db.connect(load().index_path).close()
    except db.IndexUnavailable as exc:
        refusal.refuse(f"sift worker: error: {exc}")
        raise SystemExit(2) from None


def _refuse_unusable_model(huey) -> None:
    """Every file would fail at embed with a model file that is missing or not a GGUF model: say so in one
    line and stop. The default models are left to be built on first need. A file that only llama.cpp refuses
    is met by the first job (workers.halt); the consumer that stopped for it recorded why, and a consumer
    starting again on that same file, unchanged since, refuses it at once (sift-mcp restarts it every minute:
    each start said it worked, until a job met the model again)."""
    from search.model.embedding import unloadable
    from search.model.info import ModelError, read_model_info
    settings = load()
    if not settings.embeddings or settings.embed_remote:
        return
    if settings.uses_default_model and not settings.model_path.exists():
        return
    try:
        read_model_info(settings.model_path)
    except ModelError as exc:
        refusal.refuse(f"sift worker: error: {exc}")
        raise SystemExit(2) from None
    last = _last_halt(huey)
    if last and last["why"].startswith(unloadable(settings.model_path)) \
            and settings.model_path.stat().st_mtime <= last["at"]:
        refusal.refuse(f"sift worker: error: {last['why']}")
        raise SystemExit(2)


def _last_halt(huey) -> dict | None:
    try:
        return halt.halted(huey)
    except Exception:  # noqa: BLE001 - the queue's own trouble is refused by its own check
        return None


def _refuse_unusable_queue(huey) -> None:
    """A consumer cannot take jobs from a damaged queue: say so in one line and stop, as for the index."""
    if not isinstance(huey.storage, QueueStorage):
        refuse_unusable_redis(huey, "sift worker")  # a wrong password, say
        return
    try:
        huey.storage.check()
    except QueueUnavailable as exc:
        refusal.refuse(f"sift worker: error: {exc}")
        raise SystemExit(2) from None


def make_huey(settings=None):
    settings = settings or consumer_settings("sift worker")
    if settings.queue != "sqlite":
        return redis_huey(SiftRedisHuey, QUEUE_NAME, settings.queue)
    try:
        settings.home.mkdir(parents=True, exist_ok=True)
    except OSError:
        pass  # a home that cannot be made: the index says so, in one line, when it is opened
    writable = os.access(settings.home, os.W_OK)  # a read-only home can still be read (ingest stats)
    return SiftHuey(QUEUE_NAME, filename=str(settings.queue_path), results=False, timeout=queue_wait(),
                    immediate=immediate(), create_tables=writable, serializer=JobSerializer())


huey = make_huey()
_last_seen = [0.0]  # this process's last record of WORKER_SEEN
_WORKER = f"{socket.gethostname()}:{os.getpid()}"  # who recorded a model at work (WORKER_MODELS)


@huey.signal(SIGNAL_EXECUTING)
def _seen_at_work(signal, task, *args) -> None:
    """A job is starting: record that a worker is at work (at most every SEEN_EVERY seconds)."""
    if time.time() - _last_seen[0] >= SEEN_EVERY:
        record_seen(huey)
        _record_model(huey, time.time())


@huey.signal(SIGNAL_ERROR)
def _stop_on_damage(signal, task, exc=None) -> None:
    """A job other than a pipeline stage (the periodic rescan) met a damaged index or queue: stop the consumer
    (the stages stop it themselves, without the traceback huey logs here)."""
    why = halt.unworkable(exc) if exc is not None else None
    if why is not None:
        halt.stop(why)


def record_seen(app) -> None:
    """Record in ``app``'s queue that a worker is here now."""
    _last_seen[0] = time.time()
    try:
        app.put(WORKER_SEEN, _last_seen[0])
    except Exception:  # noqa: BLE001 - a busy queue must not fail a job or the start; the next one records it
        logging.getLogger("sift.workers").debug("could not record that a worker is here", exc_info=True)


def _own_model() -> str | None:
    """The id of the model this worker embeds with, read from its file (not loaded); None if it has none here."""
    from search.model.info import read_model_info
    settings = load()
    if not settings.embeddings or settings.embed_remote or not settings.model_path.is_file():
        return None
    return read_model_info(settings.model_path).model_id


def _record_model(app, now: float | None) -> None:
    """Record (``now``) or forget (None) this worker's model among those at work on ``app``'s queue. A record this
    process made of another model (its SIFT_MODEL changed: tests, immediate mode) goes as well."""
    try:
        model = _own_model()
        if model is None:
            return
        seen = {m: [at, by] for m, (at, by) in model_records(app.get(WORKER_MODELS, peek=True)).items()
                if time.time() - at < MODEL_AT_WORK and m != model and by != _WORKER}
        if now is not None:
            seen[model] = [now, _WORKER]
        app.put(WORKER_MODELS, seen)
    except Exception:  # noqa: BLE001 - as record_seen: the next job records it
        logging.getLogger("sift.workers").debug("could not record the worker's model", exc_info=True)


def forget_model(app) -> None:
    _record_model(app, None)


def models_at_work(others: bool = False) -> dict:
    """{model id: when a worker embedding with it last took a job}, for the models at work now; ``others``: leave
    out what this process recorded (a worker is not 'another worker' of its own home)."""
    try:
        if _read_only(huey.storage):
            data = queue_reader.value(huey.storage.filename, huey.storage.name, WORKER_MODELS)
            seen = None if data is None else huey.serializer.deserialize(data)
        else:
            seen = huey.get(WORKER_MODELS, peek=True)
    except Exception:  # noqa: BLE001 - the queue's trouble is said by the queue line
        return {}
    return queue_state.models_at_work(seen, _WORKER if others else None)


def worker_seen() -> float | None:
    """When a worker of this queue last started or took a job; None if none ever did."""
    if _read_only(huey.storage):
        data = queue_reader.value(huey.storage.filename, huey.storage.name, WORKER_SEEN)
        return None if data is None else huey.serializer.deserialize(data)
    return huey.get(WORKER_SEEN, peek=True)


def pending_count() -> int:
    """The jobs waiting in the home's queue, for the stats."""
    if _read_only(huey.storage):
        return queue_reader.pending(huey.storage.filename, huey.storage.name)
    return huey.pending_count()


def jobs_at(priorities: tuple[int, int]) -> list[tuple[int, bytes]]:
    """The jobs waiting in the home's queue at either of ``priorities`` (a scan's, urgent or not: workers.tasks
    .priority), as huey stores them, in the order a worker takes them, each with how many jobs a worker takes
    before it. For stats: which scans wait, and behind how much. Read in one snapshot (one statement on SQLite,
    one MULTI on Redis), without reading the pipeline's batches."""
    storage = huey.storage
    if huey.immediate:  # jobs run as they are queued: none waits
        return []
    if isinstance(storage, QueueStorage):
        if _read_only(storage):
            rows = queue_reader.at_priorities(storage.filename, storage.name, priorities)
        else:
            # by name, as the statement names them (bound by position, Python 3.12 warns at every stats)
            rows = storage.sql(queue_reader.AT_PRIORITIES, queue_reader._params(storage.name, priorities),
                               results=True)
        return [(row[1], bytes(row[0])) for row in rows]
    # PriorityRedisStorage: a sorted set scored -priority, each member prefixed with 8 bytes of time
    pipe = storage.conn.pipeline(transaction=True)
    bands = sorted(set(priorities), reverse=True)
    for priority in bands:
        pipe.zcount(storage.queue_key, "-inf", f"({-priority}")
        pipe.zrangebyscore(storage.queue_key, -priority, -priority)
    answers = pipe.execute()
    return [(ahead + i, member[8:]) for ahead, members in zip(answers[::2], answers[1::2])
            for i, member in enumerate(members)]


def _read_only(storage) -> bool:
    """A SQLite queue that cannot be written (a read-only home) is read with workers.queue_reader, which
    writes nothing: huey's own connection writes as it connects (journal_mode=wal) and fails there."""
    return isinstance(storage, QueueStorage) and unwritable(storage.filename) is not None

from workers import recover, remote, rescan, tasks  # noqa: E402,F401  (registers the tasks with huey)
