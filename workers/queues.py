"""What the home's worker app (workers.app) and an embedding machine (workers.embedder) share: how a huey
queue in Redis is made, how many llama.cpp threads one worker process may use and at what CPU priority, and
where Sift's log lines go.

One place, so the two kinds of worker cannot drift apart (a pool without the connect timeout, or an
embedder that takes every core while SIFT_WORKERS processes share them).
"""
from __future__ import annotations

import logging
import os
import sys
import time

from search.settings import Settings, load
from workers import refusal


class QueueUnavailable(Exception):
    """The home's SQLite queue (<home>/queue.db) cannot be used; the message names the file and the fix.
    Not an index error: the index's advice (delete index.db and rebuild) must never be given for the queue."""


class QueueDamaged(QueueUnavailable):
    """The queue file is damaged: a consumer stops rather than fail to take every job (workers.halt)."""


def queue_damaged(path, why: str) -> str:
    name = os.path.basename(path)
    return (f"the queue at {path} is damaged ({why}); it holds only jobs waiting to run, nothing indexed or "
            f"published. Stop the workers, delete it (with {name}-wal and {name}-shm beside it) and start a worker "
            "again: it queues again what the index records as unfinished; `ingest enqueue FOLDER` queues a new scan")


def queue_read_only(path, why: str) -> str:
    folder = os.path.dirname(path)
    return (f"the queue at {path} is read-only ({why}): make it and {folder} writable (chmod u+w), "
            "or point SIFT_HOME (--home) at a writable folder")


def busy(exc: BaseException) -> bool:
    """Whether an sqlite3 error says another connection holds the file (past the busy timeout)."""
    from search.index import db
    return db._code(exc) in (db.SQLITE_BUSY, db.SQLITE_LOCKED) or "locked" in str(exc)


def queue_wait() -> float:
    """Seconds a use of the SQLite queue waits for another process's write (SQLite's busy timeout): 30.
    Test hook (tests/test_queue_busy.py): SIFT_FAULT_QUEUE_WAIT=seconds waits that long instead, so a test of a
    queue held past the wait does not wait out 30 s for each refusal it looks at."""
    return float(os.environ.get("SIFT_FAULT_QUEUE_WAIT") or 30)


def queue_busy(path, why: str) -> str:
    return (f"the queue at {path} is busy ({why}): another process has held a write on it for longer than the "
            f"queue waits ({queue_wait():g} s). Let it finish (an `sqlite3` shell or a backup left open on it?), "
            "then try again")


def unwritable(path) -> str | None:
    """Why SQLite cannot write the queue at ``path`` (its folder, the file, its -wal or -shm), or None."""
    folder = os.path.dirname(path) or "."
    if not os.access(folder, os.W_OK):
        return f"cannot write in {folder}"
    for file in (path, f"{path}-wal", f"{path}-shm"):
        if os.path.exists(file) and not os.access(file, os.W_OK):
            return f"{file} is not writable"
    return None


def immediate() -> bool:
    """SIFT_QUEUE_IMMEDIATE=1 (tests): huey runs each job in the calling process."""
    return os.environ.get("SIFT_QUEUE_IMMEDIATE") == "1"


def consumer_settings(who: str) -> Settings:
    """The settings, as a worker app reads them when it is imported. Under ``huey_consumer`` a bad setting
    (SIFT_WORKERS=abc, an unknown SIFT_MODEL) stops it in one line, ``who: error: …``, where huey would print
    the traceback of its import; imported by ``ingest`` or ``sift-mcp``, the error goes to their own handler."""
    try:
        return load()
    except ValueError as exc:
        if "huey.bin.huey_consumer" not in sys.modules:
            raise
        refusal.refuse(f"{who}: error: {exc}")
        raise SystemExit(2) from None


def redis_pool(url: str):
    """A connection pool that gives up connecting after 5 s, so `ingest stats` says the queue cannot be read
    instead of hanging on an unreachable Redis."""
    from redis import ConnectionPool
    return ConnectionPool.from_url(url, socket_connect_timeout=5, health_check_interval=30)


def refuse_unusable_redis(huey, who: str) -> None:
    """A consumer whose Redis refuses it for good (a wrong or missing password, a database number Redis does not
    have) says so in one line and stops. huey's loops logged the same traceback several times a second for ever
    (2,300 lines in 20 s) and took no job, while the home's stats only showed jobs waiting. Redis out of reach
    (down, restarting) is not refused: the consumer waits for it, as huey does."""
    from redis.exceptions import AuthenticationError, ConnectionError as RedisDown, ResponseError
    conn = getattr(huey.storage, "conn", None)
    if conn is None or immediate():
        return
    try:
        conn.ping()
    except (AuthenticationError, ResponseError) as exc:
        kw = conn.connection_pool.connection_kwargs
        where = f"{kw.get('host', 'localhost')}:{kw.get('port', 6379)}/{kw.get('db', 0)}"
        refusal.refuse(f"{who}: error: the Redis at {where} refuses SIFT_QUEUE ({type(exc).__name__}: {exc}): "
                       "set SIFT_QUEUE to Redis's URL with its password, redis://:PASSWORD@HOST:PORT/DB, "
                       "the same on the home and on every embedding machine")
        raise SystemExit(2) from None
    except RedisDown:
        pass


def redis_unusable(exc: BaseException, url: str) -> str | None:
    """The one line for a command that met the queue's Redis down or refusing it, or None for other errors:
    `ingest enqueue` printed redis's 60-line traceback and the user was left to guess that nothing was queued."""
    try:
        from redis.exceptions import RedisError
    except ImportError:
        return None
    if not isinstance(exc, RedisError):
        return None
    from urllib.parse import urlsplit
    parts = urlsplit(url)
    where = f"{parts.hostname or 'localhost'}:{parts.port or 6379}{parts.path or '/0'}"
    return (f"the queue's Redis at {where} cannot be used ({type(exc).__name__}: {exc}): "
            "start Redis, or set SIFT_QUEUE to its URL with its password, redis://:PASSWORD@HOST:PORT/DB")


def redis_huey(huey_class, name: str, url: str):
    """A huey app of ``huey_class`` (a PriorityRedisHuey) on the queue ``name`` in the Redis at ``url``."""
    from workers.pickles import JobSerializer  # huey's: imported by the apps, not by a command reading the queue
    return huey_class(name, connection_pool=redis_pool(url), results=False, immediate=immediate(),
                      serializer=JobSerializer())


def worker_threads(settings: Settings) -> int:
    """llama.cpp threads for one worker process: the cores shared among the SIFT_WORKERS processes."""
    return max(1, (os.cpu_count() or 1) // max(1, settings.workers))


def lower_priority(settings: Settings) -> int:
    """Lower this process's CPU priority to ``settings.nice`` (SIFT_NICE, 10 unless set), before the consumer
    forks its worker processes, which inherit it; never raise it (a process started lower stays lower, and only
    root may raise one). A first build embeds for an hour on a laptop's two cores: at the priority it was
    started with it took them from the user's editor and browser, and from sift-mcp's searches. A consumer that
    leads a session of its own (sift-mcp starts its worker so) has Linux's autogroup lowered too: between
    sessions the kernel weighs each session's group, not its processes, so a niceness alone changed nothing
    there. One started in the user's terminal shares the terminal's group, which is left as it is. Returns the
    niceness now in force."""
    current = os.nice(0)
    if settings.nice > current:
        try:
            current = os.nice(settings.nice - current)
        except OSError:  # a platform or sandbox that refuses it: the worker runs as it was started
            logging.getLogger("sift.workers").warning("could not lower the worker's CPU priority to nice %d",
                                                      settings.nice)
    if settings.nice and os.getsid(0) == os.getpid():
        try:
            with open("/proc/self/autogroup") as group:
                group_nice = int(group.read().rsplit("nice", 1)[1])
            if settings.nice > group_nice:
                with open("/proc/self/autogroup", "w") as group:
                    group.write(str(settings.nice))
        except (OSError, ValueError, IndexError):
            pass  # no autogroup (not Linux, or the kernel's is off): the niceness is what counts
    return current


def log_like_huey() -> None:
    """Sift's own log lines (``sift.*``: "generation 12: 120 files seen, 3 to parse, 2 skipped or failed as
    before", a periodic rescan queued, an embedding machine's "embedded 32 texts of job …") go where
    huey_consumer sends huey's, at its level (-v, -q). huey_consumer gives a handler to the "huey" logger only,
    so at INFO they were dropped and only warnings reached stderr, without huey's format. Both consumers (the
    home's workers.app and workers.embedder) call it as they start."""
    huey_log, sift_log = logging.getLogger("huey"), logging.getLogger("sift")
    if huey_log.handlers and not sift_log.handlers:
        for handler in huey_log.handlers:
            sift_log.addHandler(handler)
        sift_log.setLevel(huey_log.level)
    for handler in huey_log.handlers:
        for kind in (QuietPeriodic, RedisOutage):
            if not any(isinstance(f, kind) for f in handler.filters):
                handler.addFilter(kind())


class QuietPeriodic(logging.Filter):
    """Leaves out huey's three INFO lines about the periodic check that runs every minute (queued, executing,
    executed in): an idle worker wrote them for ever, 4,300 lines (0.5 MB) a day into its log, or into the MCP
    client's log under sift-mcp, saying nothing. What the check does is logged still (a rescan it queues), and so
    is a failure of it."""
    TASK = "workers.rescan.rescan_due"
    LINES = ("Enqueueing periodic task %s.", "Executing %s", "%s executed in %0.3fs")  # huey's, as it writes them

    def filter(self, record: logging.LogRecord) -> bool:
        return not (record.msg in self.LINES and isinstance(record.args, tuple) and record.args
                    and str(record.args[0]).startswith(self.TASK))


OUTAGE_REMINDER = 60.0  # seconds: while Redis stays away, a process says so again this often
_outage = {"since": None, "said": 0.0}  # this process's view of Redis being away


class RedisOutage(logging.Filter):
    """Redis stopped or unreachable under a running consumer: huey logged 'Error reading from queue' and 'Error
    reading schedule.' with a 25-line traceback each, once a second and more, for as long as it stayed away (3,600
    lines in 20 s). Now each process of the consumer says it in one line, again once a minute while it lasts, and
    ``said_redis_back`` says when it answers again. huey's own waiting and retrying are unchanged."""

    def filter(self, record: logging.LogRecord) -> bool:
        exc = record.exc_info[1] if record.exc_info else None
        if not _redis_away(exc):
            return True
        now = time.monotonic()
        first = _outage["since"] is None
        if not first and now - _outage["said"] < OUTAGE_REMINDER:
            return False
        if first:
            _outage["since"] = now
        _outage["said"] = now
        away = "" if first else f" (for {now - _outage['since']:.0f} s)"
        record.msg, record.args, record.exc_info, record.exc_text = (
            "Redis cannot be reached%s (%s): waiting for it; the jobs wait in Redis and are taken when it is back",
            (away, _first_line(exc)), None, None)
        record.levelno, record.levelname = logging.WARNING, "WARNING"
        return True


def said_redis_back() -> None:
    """The queue answered: if this process said Redis was away, say it is back (one line)."""
    if _outage["since"] is not None:
        away = time.monotonic() - _outage["since"]
        _outage["since"] = None
        logging.getLogger("huey.consumer").warning("Redis answers again after %.0f s: taking jobs", away)


class SaysRedisBack:
    """A consumer's huey on Redis: its queue reads end an outage RedisOutage reported."""

    def dequeue(self):
        task = super().dequeue()
        said_redis_back()
        return task

    def read_schedule(self, timestamp=None):
        tasks = super().read_schedule(timestamp)
        said_redis_back()
        return tasks


def _redis_away(exc: BaseException | None) -> bool:
    """Whether ``exc`` (or what caused it) is Redis not answering: refused, reset, timed out, still loading."""
    if exc is None:
        return False
    try:
        from redis.exceptions import ConnectionError as RedisDown, TimeoutError as RedisSlow
    except ImportError:
        return False
    seen = set()
    while exc is not None and id(exc) not in seen:
        if isinstance(exc, (RedisDown, RedisSlow)):
            return True
        seen.add(id(exc))
        exc = exc.__cause__ or exc.__context__
    return False


def _first_line(exc: BaseException) -> str:
    return (str(exc).strip().splitlines() or [type(exc).__name__])[0].rstrip(".")
