"""A job that takes long says on what: once it has worked ``AFTER`` seconds, a row in the index's ``working``
table (schema V10) names its files, and for embedding how many chunks are done, written again at most every
``EVERY`` seconds and deleted when the job ends. Fast jobs write nothing. ``search.index.working`` reads it for
stats and ``ingest enqueue --wait``. A job whose generation is gone meanwhile (its collection removed) stops there
(``Gone``): a big file's embedding went on for its quarter of an hour, for nothing."""
from __future__ import annotations

import logging
import sqlite3
import time

from search.index import generation_reads, store

log = logging.getLogger("sift.workers")
AFTER = 3.0  # seconds a job works before it says on what
EVERY = 2.0  # seconds between two updates of its row


class Gone(Exception):
    """The job's generation is gone: its collection was removed (``ingest remove``) while the job ran."""


class Work:
    """One job's work on ``paths`` (``size`` bytes) at ``stage``; ``tick`` as it goes, ``end`` when done.
    Best effort: a busy or full index costs the report, never the job."""

    def __init__(self, conn, gen: int, stage: str, paths: list[str], size: int, total: int | None = None):
        self.conn, self.gen, self.stage, self.paths, self.size, self.total = conn, gen, stage, paths, size, total
        self.began = time.time()
        self.written = None  # when the row was last written

    def tick(self, done: int | None = None) -> None:
        now = time.time()
        if now - self.began < AFTER or (self.written is not None and now - self.written < EVERY):
            return
        self.written = now
        if self._gone():  # asked as often as the row is written: one seek
            raise Gone(f"generation {self.gen} was removed with its collection")
        self._try(store.record_work, self.conn, self.gen, self.stage, self.paths, self.size, self.began, done,
                  self.total)

    def end(self) -> None:
        if self.written is not None:
            self._try(store.end_work, self.conn, self.gen, self.stage, self.paths)

    def _gone(self) -> bool:
        """Whether the generation is gone for sure (not a busy index that could not be read)."""
        try:
            return generation_reads.generation(self.conn, self.gen) is None
        except sqlite3.Error:
            return False

    def _try(self, write, *args):
        try:
            return write(*args)
        except sqlite3.Error as exc:
            log.info("could not record %s work on %s: %s", self.stage, self.paths[0], exc)
            return None
