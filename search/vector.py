"""Exact vector search over the published generation, in memory.

The vectors of the catalog's chunks (the published generations) are held as
one float32 matrix, row for row with the catalog, so filters are the
catalog's masks. The matrix is reloaded only when the catalog changes.
"""
from __future__ import annotations

import sqlite3
import threading

import numpy as np

from search.catalog import Catalog
from search.filters import Filters
from search.store import VISIBLE


class VectorIndex:
    def __init__(self):
        self._model = None
        self._lock = threading.Lock()
        self.catalog = Catalog(np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int32), [])
        self.matrix = np.zeros((0, 0), dtype=np.float32)
        self.present = np.zeros(0, dtype=bool)  # which chunks have a vector

    @property
    def ids(self) -> np.ndarray:
        return self.catalog.ids

    def ensure(self, conn: sqlite3.Connection, model: str, catalog: Catalog) -> None:
        """Load the vectors of ``catalog``'s chunks unless they are loaded."""
        with self._lock:
            if self._model == model and self.catalog is catalog:
                return
            rows = conn.execute(
                f"SELECT ch.id, v.vec FROM chunks ch JOIN files f ON f.id = ch.file "
                f"JOIN collections c ON c.id = f.collection "
                f"JOIN vectors v ON v.model = ? AND v.text_hash = ch.text_hash WHERE {VISIBLE} ORDER BY ch.id",
                (model,)).fetchall()
            width = len(rows[0][1]) // 4 if rows else 0
            matrix = np.zeros((len(catalog), width), dtype=np.float32)
            present = np.zeros(len(catalog), dtype=bool)
            if rows:
                at = np.searchsorted(catalog.ids, np.fromiter((r[0] for r in rows), np.int64, len(rows)))
                matrix[at] = np.frombuffer(b"".join(r[1] for r in rows), dtype=np.float32).reshape(len(rows), -1)
                present[at] = True
            self.catalog, self.matrix, self.present, self._model = catalog, matrix, present, model

    def search(self, query: np.ndarray, limit: int, filters: Filters,
               exclude: set[int] | None = None) -> list[tuple[int, float]]:
        """[(chunk id, cosine)], best first."""
        if not len(self.ids) or not self.matrix.shape[1]:
            return []
        scores = self.matrix @ query.astype(np.float32)
        mask = self.present.copy()
        wanted = self.catalog.mask(filters)
        if wanted is not None:
            mask &= wanted
        if exclude:
            mask &= ~np.isin(self.ids, list(exclude))
        scores = np.where(mask, scores, -np.inf)
        k = min(limit, len(scores))
        top = np.argpartition(-scores, k - 1)[:k]
        top = top[np.argsort(-scores[top])]
        return [(int(self.ids[i]), float(scores[i])) for i in top if np.isfinite(scores[i])]

    def vector_of(self, chunk_id: int) -> np.ndarray | None:
        position = np.searchsorted(self.ids, chunk_id)
        if position < len(self.ids) and self.ids[position] == chunk_id and self.present[position]:
            return self.matrix[position]
        return None
