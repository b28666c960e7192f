"""Which failures are worth another try, and trying again with backoff.

Transient causes are retried, ``SIFT_RETRIES`` times (3) after the first try, waiting ``SIFT_RETRY_DELAY``
seconds (2) and twice as long before each further try; a job is recorded as failed only after its last try:

- the index or the queue is busy: SQLite's "database is locked" / "database table is locked"
  (SQLITE_BUSY, SQLITE_LOCKED), after its own 30 s busy timeout;
- a file being written: it kept changing while it was read (``ingest.files.FileChanging``), or the OS
  said to try again (EAGAIN, EBUSY, EINTR, ETXTBSY);
- no room for now: a full disk (SQLITE_FULL, ENOSPC, EDQUOT, EFBIG), too many open files (EMFILE,
  ENFILE), no memory (ENOMEM, SQLITE_NOMEM), an I/O error (EIO, SQLITE_IOERR).
- the Redis queue cannot be reached or is loading its data (a Redis restart).

Everything else is permanent and recorded at once, without another try: a file that cannot be parsed
(an unreadable or encrypted PDF, undecodable text), no permission, a file that is gone, a read-only
index, a bug. Retrying those would only repeat the same answer; ``ingest retry-failed`` queues
failed files again once the cause is fixed. A damaged index or queue is neither: it is nothing the job's
files did, so the job is not given up on (nothing is recorded against them) and the worker stops
(``attempt``'s ``beyond``, workers.halt).

One helper drives every retry loop of the workers: ``tries(policy)`` yields the tries and pauses (through
``pause``, which tests replace) before each retry; ``attempt`` is that loop around a whole job, and
``workers.tasks`` uses it for the files of a batch read again and for the wait for disk space to record a
failure. The server's restart backoff for its children (``mcp_server.worker``) takes its schedule from ``Policy``.

Retries happen in the worker, in place: a retry queued through the queue would need the queue's disk,
which is the very thing missing when the disk is full. Each try starts from the job's arguments as they
were queued (a copy), so a try that got half way leaves nothing behind for the next.
"""
from __future__ import annotations

import copy
import errno
import logging
import sqlite3
import time
from dataclasses import dataclass
from typing import Callable, Iterator

from search.index import db

# ingest.files (the parsers) and workers.queues (huey) are imported where an exception is classified: sift-mcp
# imports this module for Policy (mcp_server/worker.py) and answers initialize without them

log = logging.getLogger("sift.workers")

TRANSIENT_ERRNOS = {errno.EAGAIN, errno.EWOULDBLOCK, errno.EBUSY, errno.EINTR, errno.ETXTBSY,
                    errno.ENOSPC, errno.EDQUOT, errno.EFBIG, errno.EMFILE, errno.ENFILE, errno.ENOMEM, errno.EIO}
SQLITE_NOMEM = 7
TRANSIENT_SQLITE = {db.SQLITE_BUSY, db.SQLITE_LOCKED, db.SQLITE_FULL, db.SQLITE_IOERR, SQLITE_NOMEM}
TRANSIENT_WORDS = ("locked", "busy", "disk is full", "disk i/o error", "out of memory")


@dataclass(frozen=True)
class Policy:
    retries: int = 3  # tries after the first
    delay: float = 2.0  # seconds before the first retry
    backoff: float = 2.0  # each further wait is this many times longer
    cap: float | None = None  # no wait longer than this

    def wait(self, retry: int) -> float:
        """Seconds to wait before retry number ``retry`` (0-based)."""
        wait = self.delay * self.backoff ** retry
        return wait if self.cap is None else min(wait, self.cap)

    @classmethod
    def lasting(cls, patience: float, delay: float, backoff: float, cap: float) -> "Policy":
        """As many retries as fit in ``patience`` seconds of waits: the last try comes once they add up to it."""
        policy, waited = cls(0, delay, backoff, cap), 0.0
        while waited < patience:
            waited += policy.wait(policy.retries)
            policy = cls(policy.retries + 1, delay, backoff, cap)
        return policy


@dataclass(frozen=True)
class Try:
    """One try of a loop driven by ``tries``: its number (1 for the first), and whether another may follow."""
    number: int
    policy: Policy

    @property
    def last(self) -> bool:
        return self.number > self.policy.retries

    @property
    def next_wait(self) -> float:
        """Seconds ``tries`` will pause before the next try."""
        return self.policy.wait(self.number - 1)


def is_transient(exc: BaseException) -> bool:
    from ingest.files import FileChanging
    if isinstance(exc, FileChanging):
        return True
    if isinstance(exc, db.IndexUnavailable):  # read-only, damaged, too new: no retry changes that,
        cause = exc.__cause__  # but a lock or a full disk met while opening the index may pass
        return isinstance(cause, sqlite3.Error) and is_transient(cause)
    if isinstance(exc, sqlite3.Error):
        code = db._code(exc)
        if code is not None:
            return code in TRANSIENT_SQLITE
        return any(word in str(exc).lower() for word in TRANSIENT_WORDS)
    if isinstance(exc, OSError):
        return exc.errno in TRANSIENT_ERRNOS
    return _redis_unreachable(exc)


def _redis_unreachable(exc: BaseException) -> bool:
    """The Redis queue (SIFT_QUEUE=redis://…) cannot be reached or is loading its data: it is restarting."""
    try:
        from redis.exceptions import ConnectionError as RedisConnectionError, TimeoutError as RedisTimeout
    except ImportError:
        return False
    return isinstance(exc, (RedisConnectionError, RedisTimeout))


def describe(exc: BaseException) -> str:
    """The cause in words a person can act on."""
    from ingest.files import FileChanging
    from ingest.unreadable import Unreadable
    from search.model.info import ModelError
    from search.settings import SettingError
    from workers.queues import QueueUnavailable
    if isinstance(exc, (db.IndexUnavailable, QueueUnavailable, ModelError)):  # each says what to do
        return str(exc)
    if db.is_disk_full(exc):
        return f"disk full ({_text(exc)}): free some space, then run `ingest retry-failed`"
    if isinstance(exc, FileChanging):
        return str(exc)
    if isinstance(exc, sqlite3.Error) and is_transient(exc):
        return f"the index stayed busy ({_text(exc)})"
    # a file's failure read 'ValueError: unreadable PDF: …' in stats, list_files and search's freshness line: the
    # error's class is for a bug report (the worker's log names it), not for the person reading why a file failed
    if isinstance(exc, UnicodeDecodeError):
        byte = bytes(exc.object[exc.start:exc.start + 1]).hex()
        return f"its text is not valid {exc.encoding} (byte 0x{byte} at offset {exc.start:,}): save it as UTF-8"
    if isinstance(exc, UnicodeEncodeError):
        return (f"it holds text that {exc.encoding} cannot store ({exc.object[exc.start:exc.start + 1]!r} at "
                f"character {exc.start:,}): {REPORT}")
    if isinstance(exc, (Unreadable, SettingError)) and str(exc):  # a reader's own words: 'unreadable PDF: …'
        return str(exc)  # (any other ValueError is a bug's, 'not enough values to unpack …': said below as Sift's)
    if isinstance(exc, RecursionError):
        return "it nests too deep to read (past Python's recursion limit)"
    if isinstance(exc, MemoryError):
        return "the worker ran out of memory reading it; the next scan reads it again"
    if isinstance(exc, OSError):
        return f"the system refused: {_text(exc)}"
    return f"an error Sift did not expect ({type(exc).__name__}: {_text(exc)}): {REPORT}"


class Reason(str):
    """Why a file failed, in words (``describe``), carrying the class of the error it was (``error``): recorded
    beside it (the progress rows' error, schema V30) for a bug report, never said in the words."""
    error: str | None = None

    @classmethod
    def of(cls, said: str, exc: BaseException) -> "Reason":
        reason = cls(said)
        reason.error = type(exc).__name__
        return reason

    def __reduce__(self):  # pickled and copied with its class (a batch's jobs are copied per try)
        return Reason.of_name, (str(self), self.error)

    @classmethod
    def of_name(cls, said: str, error: str | None) -> "Reason":
        reason = cls(said)
        reason.error = error
        return reason


def error_of(reason) -> str | None:
    """The class of the error ``reason`` was said of (``Reason``), None for any other text."""
    return getattr(reason, "error", None)


# What to do about a failure that is Sift's own (its class name is named for the report)
REPORT = "a bug in Sift: please report it with the worker's log, which has the details"


def _logged(exc: BaseException) -> str:
    """``describe`` for the worker's log, the error's class named after it where the words do not name it ('simulated
    [ValueError]'): the log is where a bug report finds it (a file's reason no longer does)."""
    said, name = describe(exc), type(exc).__name__
    return said if name in said else f"{said} [{name}]"


def is_refusal(exc: BaseException) -> bool:
    """Whether the error is a reader's refusal (ingest.unreadable.Unreadable), its words all there is to say: a
    traceback in the worker's log is for anything else, a bug's ValueError included."""
    from ingest.unreadable import Unreadable
    return isinstance(exc, Unreadable)


def _text(exc: BaseException) -> str:
    from ingest.files import FileChanging
    if isinstance(exc, OSError) and exc.strerror and not isinstance(exc, FileChanging):
        return exc.strerror
    return str(exc) or type(exc).__name__


def pause(seconds: float) -> None:
    """The wait between tries (a function of its own, so a test can see the waits without waiting)."""
    time.sleep(seconds)


def tries(policy: Policy) -> Iterator[Try]:
    """The one retry loop: the tries of ``policy``, first to last, with ``pause(wait)`` before each retry.
    The caller ends the loop (``break``/``return``) once a try succeeds or it gives up; a caller that simply
    goes on to the next iteration has chosen to try again. Every retrying loop in the workers goes through
    this, so every wait goes through ``pause``."""
    for number in range(1, policy.retries + 2):
        if number > 1:
            pause(policy.wait(number - 2))
        yield Try(number, policy)


def attempt(fn: Callable, args: tuple, kwargs: dict, policy: Policy, what: str,
            give_up: Callable[[BaseException, int], None], retry_with: dict | None = None,
            beyond: Callable[[BaseException], object] | None = None):
    """Run ``fn(*args, **kwargs)``; retry transient failures with backoff (adding ``retry_with`` to the
    keyword arguments); ``give_up(exc, tries)`` on a permanent one or after the last retry. Returns what
    ``fn`` returned, or None after giving up. An error for which ``beyond(exc)`` is true is none of the job's
    doing (a damaged index): it is raised as it is, neither retried nor given up on."""
    for this in tries(policy):
        try:
            return fn(*copy.deepcopy(args), **(kwargs if this.number == 1 else {**kwargs, **(retry_with or {})}))
        except Exception as exc:
            if beyond is not None and beyond(exc):
                raise
            if not is_transient(exc):
                log.error("%s failed (not retried: %s)", what, _logged(exc),
                          exc_info=not isinstance(exc, (OSError, sqlite3.Error, db.IndexUnavailable)) and
                          not is_refusal(exc))
                give_up(exc, this.number)
                return None
            if this.last:
                log.error("%s failed after %d tries: %s", what, this.number, _logged(exc))
                give_up(exc, this.number)
                return None
            log.warning("%s: %s; trying again in %.1f s (retry %d of %d)", what, _logged(exc), this.next_wait,
                        this.number, policy.retries)
    return None
