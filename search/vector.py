"""Exact vector search over the published generation, in memory.

The vectors of every visible chunk are held as one float32 matrix, with the
columns filters need (collection, path, kind, mtime) beside it. The matrix is
reloaded only when the set of published generations changes.
"""
from __future__ import annotations

import sqlite3
import threading

import numpy as np

from search.filters import Filters
from search.store import VISIBLE


class VectorIndex:
    def __init__(self):
        self._key = None
        self._lock = threading.Lock()
        self.ids = np.zeros(0, dtype=np.int64)
        self.matrix = np.zeros((0, 0), dtype=np.float32)

    def ensure(self, conn: sqlite3.Connection, model: str, key) -> None:
        """Load the matrix for ``key`` (the published generations) unless it is loaded."""
        with self._lock:
            if self._key == (model, key):
                return
            rows = conn.execute(
                f"SELECT ch.id, v.vec, c.name, f.path, f.kind, f.mtime FROM chunks ch "
                f"JOIN files f ON f.id = ch.file JOIN collections c ON c.id = f.collection "
                f"JOIN vectors v ON v.model = ? AND v.text_hash = ch.text_hash WHERE {VISIBLE} ORDER BY ch.id",
                (model,)).fetchall()
            self.ids = np.array([r[0] for r in rows], dtype=np.int64)
            blob = b"".join(r[1] for r in rows)
            self.matrix = np.frombuffer(blob, dtype=np.float32).reshape(len(rows), -1) if rows \
                else np.zeros((0, 0), dtype=np.float32)
            self.collections = np.array([r[2] for r in rows], dtype=object)
            self.paths = np.array([r[3] for r in rows], dtype=str) if rows else np.zeros(0, dtype=str)
            self.kinds = np.array([r[4] for r in rows], dtype=object)
            self.mtimes = np.array([r[5] for r in rows], dtype=np.float64)
            self._key = (model, key)

    def search(self, query: np.ndarray, limit: int, filters: Filters,
               exclude: set[int] | None = None) -> list[tuple[int, float]]:
        """[(chunk id, cosine)], best first."""
        if not len(self.ids):
            return []
        scores = self.matrix @ query.astype(np.float32)
        mask = self._mask(filters)
        if exclude:
            mask &= ~np.isin(self.ids, list(exclude))
        if mask is not None:
            scores = np.where(mask, scores, -np.inf)
        k = min(limit, len(scores))
        top = np.argpartition(-scores, k - 1)[:k]
        top = top[np.argsort(-scores[top])]
        return [(int(self.ids[i]), float(scores[i])) for i in top if np.isfinite(scores[i])]

    def vector_of(self, chunk_id: int) -> np.ndarray | None:
        position = np.searchsorted(self.ids, chunk_id)
        if position < len(self.ids) and self.ids[position] == chunk_id:
            return self.matrix[position]
        return None

    def _mask(self, f: Filters) -> np.ndarray:
        mask = np.ones(len(self.ids), dtype=bool)
        if f.collection:
            mask &= self.collections == f.collection
        if f.path_prefix:
            mask &= np.char.startswith(self.paths, f.path_prefix)
        if f.kind:
            mask &= self.kinds == f.kind
        if f.modified_after is not None:
            mask &= self.mtimes >= f.modified_after
        if f.modified_before is not None:
            mask &= self.mtimes < f.modified_before
        return mask
