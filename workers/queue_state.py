"""What stats reads of the home's queue: the jobs waiting, when a worker last took one, why the last one stopped,
the models at work, the scans waiting; and the keys and priorities these are stored under.

``ingest stats`` read them through workers.app, whose import (huey with Redis's client, and workers.tasks with
every parser) was 0.65 s of the command's 0.7 s of CPU (bench/cli_start.py), in a process that reads only. A SQLite
queue is now read straight from queue.db with workers.queue_reader (sqlite3 alone, nothing written), as huey stores
it. huey is still what reads it when workers.app is imported already (sift-mcp runs a worker; a test's huey may
serve another home than the settings'), on Redis, and for a scan waiting in the queue: its job is a huey task,
read by huey with the tasks registered.
"""
from __future__ import annotations

import pickle
import sys
import time

from workers import queue_reader
from workers.queues import immediate

QUEUE_NAME = "sift"  # the home's queue; embed jobs for other machines go to workers.embedder.QUEUE_NAME
# When a worker of this queue last started or took a job, in huey's key-value store: ``ingest stats`` asks
# "is a worker running?" when jobs wait and none has been seen for a while.
WORKER_SEEN = "sift.worker.seen"
# The models workers of this queue embed with, {model id: [when one last took a job, host:pid]}: a scan keeps a
# collection's model while a worker of it is at work (workers.tasks.discover), and stats names the models when they
# differ.
WORKER_MODELS = "sift.worker.models"
MODEL_AT_WORK = 120.0  # seconds: a running worker takes a periodic job every minute
HALTED = "sift.worker.halted"  # why the last consumer stopped (workers.halt)
QUEUE_REPLACED = "sift.queue.replaced"  # when a running consumer found queue.db deleted and opened the new one

# The queue's order (workers.tasks.priority): a scan's own priority, the lowest of the stages'; URGENT added for a
# rescan of a published collection and for every job of a small build.
SCAN_PRIORITY = 0
URGENT = 100  # added to a stage's priority: above every stage's own (0 to 50)
SMALL_BUILD = 50  # changed files: a build of at most this many is urgent


def small(changed: int) -> bool:
    """Whether a build of ``changed`` files is urgent: the files of its plan but those deleted, as stats counts
    them (``workers.stats``: which builds go first)."""
    return changed <= SMALL_BUILD


def read_directly(settings) -> bool:
    """Whether queue.db is read here without huey: a SQLite queue, and no huey app in this process already."""
    return settings.queue == "sqlite" and "workers.app" not in sys.modules


def pending(settings) -> int:
    """The jobs waiting in the home's queue (huey's ``pending_count``)."""
    if not read_directly(settings):
        from workers.app import pending_count
        return pending_count()
    if immediate():  # huey's immediate mode keeps its queue in this process's memory: nothing waits in it
        return 0
    return queue_reader.pending(str(settings.queue_path), QUEUE_NAME)


def worker_seen(settings) -> float | None:
    """When a worker of this queue last started or took a job (workers.app.worker_seen); None if none ever did."""
    if not read_directly(settings):
        from workers.app import worker_seen as seen
        return seen()
    return _stored(settings, WORKER_SEEN)


def halted(settings) -> dict | None:
    """Why the last consumer stopped on a damaged file, {"at", "why"} (workers.halt.halted), or None."""
    if not read_directly(settings):
        from workers import halt
        from workers.app import huey
        return halt.halted(huey)
    return _stored(settings, HALTED)


def replaced(settings) -> float | None:
    """When a running consumer found queue.db deleted or replaced and took to the new one (workers.app), or None."""
    if not read_directly(settings):
        from workers.app import huey
        return huey.get(QUEUE_REPLACED, peek=True)
    return _stored(settings, QUEUE_REPLACED)


def at_work(settings) -> dict:
    """The models at work now (workers.app.models_at_work); {} when the queue cannot be read (its line says why)."""
    if not read_directly(settings):
        from workers.app import models_at_work as at
        return at()
    try:
        return models_at_work(_stored(settings, WORKER_MODELS))
    except Exception:  # noqa: BLE001 - as workers.app.models_at_work
        return {}


def _stored(settings, key: str):
    """What huey keeps under ``key`` (``huey.get(key, peek=True)``), or None, read from queue.db."""
    if immediate():  # huey's immediate mode keeps its queue in this process's memory: nothing is stored in it
        return None
    data = queue_reader.value(str(settings.queue_path), QUEUE_NAME, key)
    # huey's serializer of these values is pickle (workers.pickles, no compression); they hold only numbers,
    # strings, lists and dicts, never a class that moved
    return None if data is None else pickle.loads(data)


def model_records(seen) -> dict:
    """{model id: (when, by whom)} from the stored records (a bare time, without who, before 2026-12)."""
    return {m: (v, None) if isinstance(v, (int, float)) else tuple(v) for m, v in (seen or {}).items()}


def models_at_work(seen, left_out: str | None = None) -> dict:
    """{model id: when a worker embedding with it last took a job} of the records ``seen``, for the models at work
    now; ``left_out``: the worker (host:pid) whose records are not counted."""
    return {m: at for m, (at, by) in model_records(seen).items()
            if time.time() - at < MODEL_AT_WORK and not (left_out is not None and by == left_out)}


def scans_waiting(settings) -> list[dict]:
    """The scans waiting in the queue (workers.waiting.queued). Read without huey, a queue holding no job at a
    scan's priorities has none (asked whether one exists: the jobs' count ahead of each is huey's to read, not twice);
    one that holds some has its jobs read by huey."""
    if read_directly(settings):
        if immediate():
            return []
        priorities = (SCAN_PRIORITY, SCAN_PRIORITY + URGENT)
        if not queue_reader.any_at_priorities(str(settings.queue_path), QUEUE_NAME, priorities):
            return []
    from workers import waiting
    return waiting.queued()
