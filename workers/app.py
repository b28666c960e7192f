"""The huey app: ``huey_consumer workers.app.huey -k process -w 2`` runs Sift's jobs.

The queue backend comes from settings, so it can move (to RedisHuey, say)
without touching the tasks.
"""
from __future__ import annotations

import os

from huey import SqliteHuey

from search.settings import load


def make_huey(settings=None) -> SqliteHuey:
    settings = settings or load()
    if settings.queue != "sqlite":
        raise ValueError(f"unknown queue backend {settings.queue!r}")
    settings.home.mkdir(parents=True, exist_ok=True)
    return SqliteHuey("sift", filename=str(settings.queue_path), results=False, timeout=30,
                      immediate=os.environ.get("SIFT_QUEUE_IMMEDIATE") == "1")


huey = make_huey()

from workers import rescan, tasks  # noqa: E402,F401  (registers the tasks with huey)
