"""The huey app: ``huey_consumer workers.app.huey -k process -w 2`` runs Sift's jobs.

The queue backend comes from settings, so it can move (to RedisHuey, say)
without touching the tasks.
"""
from __future__ import annotations

import logging
import os
import sys

from huey import SqliteHuey

from search.settings import load


class SiftHuey(SqliteHuey):
    def create_consumer(self, **options):
        """A consumer starting first queues again the jobs a killed worker lost (workers.recover)."""
        _refuse_unusable_index()
        from workers import recover
        try:
            recover.resume(self)
        except Exception:  # an unusable index is reported by the jobs themselves; the consumer still starts
            logging.getLogger("sift.workers").exception("could not look for interrupted jobs")
        return super().create_consumer(**options)


def _refuse_unusable_index() -> None:
    """A worker cannot do anything with an index it cannot write (a read-only folder, a damaged file):
    say so in one line, naming the path and the fix, and stop, rather than fail every job."""
    from search import db
    try:
        db.connect(load().index_path).close()
    except db.IndexUnavailable as exc:
        print(f"sift worker: error: {exc}", file=sys.stderr, flush=True)
        raise SystemExit(2) from None


def make_huey(settings=None) -> SqliteHuey:
    settings = settings or load()
    if settings.queue != "sqlite":
        raise ValueError(f"unknown queue backend {settings.queue!r}")
    try:
        settings.home.mkdir(parents=True, exist_ok=True)
    except OSError:
        pass  # a home that cannot be made: the index says so, in one line, when it is opened
    writable = os.access(settings.home, os.W_OK)  # a read-only home can still be read (ingest stats)
    return SiftHuey("sift", filename=str(settings.queue_path), results=False, timeout=30,
                    immediate=os.environ.get("SIFT_QUEUE_IMMEDIATE") == "1", create_tables=writable)


huey = make_huey()

from workers import rescan, tasks  # noqa: E402,F401  (registers the tasks with huey)
