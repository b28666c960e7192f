"""The pipeline jobs at work now, recorded in the queue's key-value store.

huey deletes a job from the queue as a worker takes it, so a job at work is in no queue: the periodic check for
jobs lost from the queue (workers.lost) would take its files for lost. Each worker (a process, or a thread of one)
records the job it runs under its own key (``sift.running.HOST:PID:THREAD``), written as the job starts and deleted
as it ends: two small writes per job, each a fraction of a millisecond beside the job's own transactions
(bench/lost_jobs.py). A record whose process is dead (a worker killed mid-job) carries nothing; records of another
machine's workers are taken at their word, and an idle worker deletes its own now and then (``idle``): a delete
that the queue lost (Redis stopped just after it) leaves no record that outlives its job for long. A starting consumer forgets this
machine's records that no live worker holds (``forget_here``).
"""
from __future__ import annotations

import contextlib
import logging
import os
import socket
import threading
import time

from search.index import working

log = logging.getLogger("sift.workers")
PREFIX = "sift.running."


def _key() -> str:
    """This worker's key: its process's (a worker process is forked after import: its pid is read now, not then)
    and its thread's, ``HOST:PID:THREAD``. huey_consumer's workers are threads of one process unless told ``-k
    process``: by process alone, one worker thread's job overwrote another's record, and one that found the queue
    empty (``idle``) deleted the record of the job at work in the other, whose files were then queued again."""
    return f"{PREFIX}{socket.gethostname()}:{os.getpid()}:{threading.get_ident()}"


@contextlib.contextmanager
def job(huey, gen: int | None, collection: int | None, paths: list[str] | None):
    """Record, while the body runs, that this process is at work on ``paths`` of generation ``gen``; ``paths``
    None: on the whole collection (a scan, which records a plan and then queues its files). Nothing in immediate
    mode (no queue: a job runs inside the one that queued it). A queue that cannot be written costs the record,
    never the job."""
    if huey.immediate:
        yield
        return
    key = _key()
    _idle_cleared.pop(key, None)  # the first idle poll after this job deletes its record, whatever the last did
    quietly(huey.put, key, {"gen": gen, "collection": collection, "paths": paths, "at": time.time()})
    try:
        yield
    finally:
        quietly(huey.delete, key)


IDLE_EVERY = 10.0  # seconds: an idle worker deletes its record at most this often (``idle``)
# when each worker (its key: a thread of this process) last did: by process, one idle thread's delete held back
# every other's, and two threads polling at the same pace left the second one's record for good
_idle_cleared: dict[str, float] = {}


def idle(huey) -> None:
    """This worker found the queue empty: no job of it runs, so no record of it should exist. One whose delete was
    lost (Redis stopped just after it, and its append-only file had not kept it; a power cut under the SQLite
    queue) would otherwise carry its job's files for as long as the worker stays idle, which is exactly when
    their build waits for them. Deleted at most every IDLE_EVERY seconds by each worker thread (and at its first
    idle poll after a job): one small write, not one per poll."""
    now, key = time.monotonic(), _key()
    if huey.immediate or now - _idle_cleared.get(key, -IDLE_EVERY) < IDLE_EVERY:
        return
    _idle_cleared[key] = now
    quietly(huey.delete, key)


def quietly(call, *args) -> None:
    """``call(*args)``, a write to the queue's key-value store that a busy or unusable queue may cost (the job, or
    the consumer's start, goes on without it; the queue's trouble is said where it matters)."""
    try:
        call(*args)
    except Exception:  # noqa: BLE001 - as workers.app.record_seen
        log.debug("could not write %s to the queue", args[0] if args else call, exc_info=True)


def records(huey) -> list[dict]:
    """The records of jobs at work whose process lives (or runs on another machine), read in one go."""
    host, found = socket.gethostname(), []
    for key, data in huey.all_results().items():
        if not key.startswith(PREFIX):
            continue
        where, _, pid = key[len(PREFIX):].partition(":")  # a host name holds no ':'
        if where == host and not working.alive(int(pid.split(":")[0])):
            continue  # a worker killed mid-job: its job is lost, not at work
        found.append(huey.serializer.deserialize(data))
    return found


def forget_here(huey) -> None:
    """Forget this machine's records that no worker holds: a pid that is dead, or one written before the machine
    last started (a pid from before a reboot may name another process now; where the boot time is unknown, not
    Linux, every record of the machine, as a starting consumer's workers run none yet). A live record is another
    consumer's, at work: two sift-mcp servers each run one on the same home, and a second one starting forgot the
    first one's records, whose files the check then queued again while they were at work."""
    here, booted = f"{PREFIX}{socket.gethostname()}:", _booted()
    for key, data in list(huey.all_results().items()):
        if not key.startswith(here):
            continue
        if booted is not None and working.alive(int(key[len(here):].split(":")[0])):
            try:
                if huey.serializer.deserialize(data).get("at", 0) >= booted:
                    continue
            except Exception:  # noqa: BLE001 - a record that does not read carries nothing: forget it
                pass
        quietly(huey.delete, key)


def _booted() -> float | None:
    """When this machine last started (Linux's /proc/stat), or None where that is unknown."""
    try:
        with open("/proc/stat") as stat:
            return next(float(line.split()[1]) for line in stat if line.startswith("btime "))
    except (OSError, StopIteration, ValueError, IndexError):
        return None
