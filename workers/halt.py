"""A consumer stops when index.db or queue.db turns out to be damaged while it runs.

A consumer refuses a damaged file as it starts (workers.app). Damage that comes later (pages of index.db
overwritten, queue.db overwritten or truncated under it) is met by whichever job reads those pages. The file is
not to blame for it, and nothing more should be written into a damaged database, so the job neither marks its
files failed nor remembers an outcome for them (they keep their state: a restored index, or a rebuild, picks
them up), and the published generation is left as it was. Instead the consumer stops taking jobs: the job tells
the consumer's main process why (one line, through a pipe, as huey's own stop flag does for forked workers) and
sets huey's stop flag; the main process lets the running jobs end, prints the line once, as the start-up check
does, and exits with status 2, as it would have at start-up. sift-mcp restarts a worker that exited with
status 2 only after its longest backoff (mcp_server/worker.py), and the restarted one refuses the file at
start-up until it is restored or deleted.

A model file that reads as GGUF but that llama.cpp cannot load (tensors of another shape than its header says)
passes the consumer's start-up check, which reads only the header; its first job then stops the consumer the same
way (``unworkable``): every job would fail on it, and no file is to blame.

A damaged queue is met by huey's own loops too (taking a job, reading the schedule): those stop the same way,
instead of logging a traceback every poll for ever.

Without a consumer (huey's immediate mode: each stage runs inside the call that queued it, so the write of a
batch runs inside its chunk, inside its parse, inside the scan) the line is logged and ``Halted`` unwinds every
enclosing job, which would otherwise go on writing into the damaged file once the inner one returned (marking
its files done, the scan's next batches, its publish); the outermost job ends it (``outermost``).
"""
from __future__ import annotations

import contextlib
import logging
import os
import select
import threading
import time

from huey import consumer

from search.index import db
from workers import refusal
from workers.queue_state import HALTED  # in the queue's key-value store: why the last consumer stopped (stats)
from workers.queues import QueueDamaged

log = logging.getLogger("sift.workers")
LINE_BYTES = 4000  # under PIPE_BUF: a line written to the pipe arrives whole


class Halt:
    """One consumer's way for its workers (forked processes or threads) to stop it with a reason."""

    def __init__(self, stop_flag):
        self.stop_flag = stop_flag
        self._read, self._write = os.pipe()

    def stop(self, why: str) -> None:
        os.write(self._write, why.encode("utf-8", "replace")[:LINE_BYTES].replace(b"\n", b" ") + b"\n")
        self.stop_flag.set()

    def reason(self) -> str | None:
        """The first reason a worker gave, or None if none stopped the consumer."""
        if not select.select([self._read], [], [], 0)[0]:
            return None
        return os.read(self._read, 65536).decode("utf-8", "replace").split("\n", 1)[0] or None


class Halted(BaseException):
    """``stop`` in huey's immediate mode: a BaseException, so that neither the stages' handlers nor huey's
    (which catch Exception) stop it before the outermost job."""


_armed: list[Halt] = []  # the consumer of this process (set in its main process, before it forks its workers)
_stopped: list[str] = []  # what this consumer's process said already: each says it once
_depth = threading.local()  # how many jobs this thread is inside (immediate mode nests them)


def damage(exc: BaseException) -> str | None:
    """The one-line message if ``exc`` means that index.db or queue.db is damaged, else None. A bare
    sqlite3 error is the index's: every use of the queue turns its errors into QueueUnavailable."""
    if isinstance(exc, (db.IndexDamaged, QueueDamaged)):
        return str(exc)
    if db.is_damaged(exc):
        from workers import runtime
        return db.damaged(runtime.settings().index_path, str(exc))
    return None


def unworkable(exc: BaseException) -> str | None:
    """The one-line message if ``exc`` means that this worker can run no job: index.db or queue.db is damaged
    (``damage``), or llama.cpp cannot load the worker's own model (workers.runtime.ModelUnusable), else None."""
    from workers import runtime
    if isinstance(exc, runtime.ModelUnusable):
        return str(exc)
    return damage(exc)


def stop(why: str) -> None:
    """Stop this process's consumer for ``why``: it takes no more jobs. Without a consumer (huey's immediate
    mode, in the process that queued the job) the line is logged and ``Halted`` raised: the jobs around this
    one end too, and the outermost returns (``outermost``), so the run says it once."""
    if not _armed:
        log.error(why)
        raise Halted(why)
    if why not in _stopped:
        _stopped.append(why)
        _armed[0].stop(why)


def stopping(done: int = 0) -> bool:
    """This process's consumer has been told to stop (Ctrl-C, huey's graceful stop, which waits for the running
    jobs; or ``stop``): a long job ends at its next safe point rather than hold the stop for the rest of its run.
    ``done``: how much of its work the job has done (what ``SIFT_FAULT_HOLD_FOR_STOP`` looks at)."""
    _held_for_a_stop(done)
    return bool(_armed) and _armed[0].stop_flag.is_set()


def _held_for_a_stop(done: int) -> None:
    """Test hook (tests/test_background.py's Ctrl-C, edit, kill and --wait tests, test_mcp_server.py's stats of a
    build, test_supervision.py's closed stdin): with SIFT_FAULT_HOLD_FOR_STOP=path, a job of a consumer that has
    done some of its work creates that file at its next safe point and waits there until the consumer is told to
    stop or the test removes the file, so a test stops it, kills it, edits or looks beside it while it is surely
    at work (unheld, a quiet machine embedded 200 chunks before the test saw the job at work, and a busy one took a
    minute over the 800 it needed then). Each worker process holds once: let go, its job goes on to its end.
    Unset, or without a consumer (immediate mode), or nothing done yet: nothing."""
    held = os.environ.get("SIFT_FAULT_HOLD_FOR_STOP")
    if not (held and done and _armed) or _let_go:
        return
    with open(held, "a"):
        pass
    while os.path.exists(held) and not _armed[0].stop_flag.wait(0.1):
        pass
    _let_go.append(held)


_let_go: list[str] = []  # the hold this worker process was let go from (``_held_for_a_stop``)


@contextlib.contextmanager
def outermost():
    """Around every job huey runs: the outermost one ends a ``Halted`` run (its line is logged already), as a
    job that stopped its consumer returns; the jobs inside it let it through."""
    depth = getattr(_depth, "n", 0)
    _depth.n = depth + 1
    try:
        yield
    except Halted:
        if depth:
            raise
    finally:
        _depth.n = depth


class Consumer(consumer.Consumer):
    """huey's consumer, stopped by ``stop`` in any of its workers: it then exits with status 2 saying why."""

    def __init__(self, huey, **options):
        super().__init__(huey, **options)
        _armed[:] = [Halt(self.stop_flag)]

    def run(self):
        super().run()
        why = _armed[0].reason()
        if why is None:
            return
        self.stop(graceful=True)  # the other workers end the jobs they hold (huey's -t bounds the wait)
        refusal.refuse(f"sift worker: error: {why}")
        if not why.startswith("the queue at "):
            try:  # ingest stats shows it, while the index may read as intact there
                self.huey.put(HALTED, {"at": time.time(), "why": why})
            except Exception:  # noqa: BLE001 - the queue may be the damaged one too
                pass
        raise SystemExit(2)


def forget(huey) -> None:
    """A consumer that started on intact files: the last one's reason is past."""
    try:
        huey.get(HALTED)
    except Exception:  # noqa: BLE001 - checked already; the jobs say what is wrong
        pass


def halted(huey) -> dict | None:
    """Why the last consumer stopped on a damaged file, {"at", "why"}, or None."""
    return huey.get(HALTED, peek=True)
