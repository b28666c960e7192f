"""Exact vector search over the published generations, in memory.

The vectors of the chunk rows are held as one float32 matrix. Filters and
visibility come from the catalog (``search.query.catalog.Rows``). After a publish
only the rows written since are read (chunk ids are never reused, so they are
the rows above the highest id read); rows no longer visible are dropped from
the matrix once they are a quarter of it.
"""
from __future__ import annotations

import sqlite3
import threading

import numpy as np

from search.index import chunk_reads, schema, vector_reads
from search.query.catalog import Catalog, Rows
from search.query.filters import Filters

RETIRED_AT_MOST = 0.25  # share of the visible rows (at least 4,000); more, and the matrix is compacted


class VectorIndex:
    def __init__(self):
        self._lock = threading.Lock()
        self.model: str | None = None
        self.rows = Rows()
        self.matrix = np.zeros((0, 0), dtype=np.float32)  # a view of the first rows of _room
        self._room = self.matrix
        self.max_id = 0  # every chunk row up to here has been read

    def ensure(self, conn: sqlite3.Connection, model: str, catalog: Catalog, most: int | None = None) -> bool:
        """Hold the vectors of every chunk in ``catalog`` (read inside the caller's snapshot). ``most``: read
        the rows of at most that many chunk ids now, and say whether every row is held (True) or some are left
        for the next call (False): ``Engine.warm`` reads a big index a slice at a time, so searches go on between
        the slices."""
        with self._lock:
            newest = chunk_reads.newest_chunk(conn)
            reused = schema.version(conn) < 5 and catalog is not self.rows.catalog  # ids may repeat before V5
            if model != self.model or newest < self.max_id or reused:
                self.model, self.rows, self.max_id = model, Rows(), 0
                self.matrix = self._room = np.zeros((0, 0), dtype=np.float32)
            if most is not None and newest > self.max_id + most:
                self._read(conn, self.max_id + most)
                return False
            if newest > self.max_id:
                self._read(conn, newest)
            self.rows.use(catalog)
            if self.rows.retired() > RETIRED_AT_MOST * max(self.rows.count, 4000):
                keep = self.rows.visible | ~self.rows.was_visible
                self.matrix = self._room = self.matrix[keep]
                self.rows.keep(keep)
            return True

    def _read(self, conn, newest: int) -> None:
        found = vector_reads.vectors_between(conn, self.model, self.max_id, newest)
        if found:
            new = np.frombuffer(b"".join(r[1] for r in found), dtype=np.float32).reshape(len(found), -1)
            self._append(new)
            self.rows.append(np.fromiter((r[0] for r in found), dtype=np.int64, count=len(found)))
        self.max_id = newest

    def _append(self, new: np.ndarray) -> None:
        """Add rows to the matrix; it has room to grow, so a publish does not copy every vector."""
        held = len(self.matrix)
        if self._room.shape[1] != new.shape[1] or held + len(new) > len(self._room):
            room = np.empty((int((held + len(new)) * 1.25) + 64, new.shape[1]), dtype=np.float32)
            if held:
                room[:held] = self.matrix
            self._room = room
        self._room[held:held + len(new)] = new
        self.matrix = self._room[:held + len(new)]

    @property
    def ids(self) -> np.ndarray:
        return self.rows.ids

    def search(self, query: np.ndarray, limit: int, filters: Filters,
               exclude: set[int] | None = None) -> list[tuple[int, float]]:
        """[(chunk id, cosine)], best first."""
        if not self.rows.count:
            return []
        scores = self.matrix @ query.astype(np.float32)
        mask = self.rows.mask(filters)
        if exclude:
            mask = mask & ~np.isin(self.ids, list(exclude))
        scores = np.where(mask, scores, -np.inf)
        k = min(limit, len(scores))
        top = np.argpartition(-scores, k - 1)[:k]
        top = top[np.argsort(-scores[top])]
        return [(int(self.ids[i]), float(scores[i])) for i in top if np.isfinite(scores[i])]

    def vector_of(self, chunk_id: int) -> np.ndarray | None:
        position = np.searchsorted(self.ids, chunk_id)
        if position < len(self.ids) and self.ids[position] == chunk_id and self.rows.visible[position]:
            return self.matrix[position]
        return None
