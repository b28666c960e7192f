"""The huey app: ``huey_consumer workers.app.huey -k process -w 2`` runs Sift's jobs.

The queue backend comes from settings, so it can move (to RedisHuey, say)
without touching the tasks.
"""
from __future__ import annotations

import logging
import os

from huey import SqliteHuey

from search.settings import load


class SiftHuey(SqliteHuey):
    def create_consumer(self, **options):
        """A consumer starting first queues again the jobs a killed worker lost (workers.recover)."""
        from workers import recover
        try:
            recover.resume(self)
        except Exception:  # an unusable index is reported by the jobs themselves; the consumer still starts
            logging.getLogger("sift.workers").exception("could not look for interrupted jobs")
        return super().create_consumer(**options)


def make_huey(settings=None) -> SqliteHuey:
    settings = settings or load()
    if settings.queue != "sqlite":
        raise ValueError(f"unknown queue backend {settings.queue!r}")
    settings.home.mkdir(parents=True, exist_ok=True)
    return SiftHuey("sift", filename=str(settings.queue_path), results=False, timeout=30,
                    immediate=os.environ.get("SIFT_QUEUE_IMMEDIATE") == "1")


huey = make_huey()

from workers import rescan, tasks  # noqa: E402,F401  (registers the tasks with huey)
