"""The chunks of the published generations, with what search filters look at.

Loaded once per set of published generations and shared by the in-memory
keyword and vector indexes: chunk ids in order, the file each belongs to, and
per file its collection, path, kind and modification time. A filter becomes a
boolean mask over the chunks, worked out per file and cached.
"""
from __future__ import annotations

import sqlite3

import numpy as np

from search.filters import Filters
from search.store import VISIBLE

MASKS_KEPT = 32


class Catalog:
    def __init__(self, ids: np.ndarray, file_of: np.ndarray, files: list[tuple[str, str, str, float]]):
        self.ids = ids  # chunk ids, ascending
        self.file_of = file_of  # per chunk: its row in ``files``
        self.collections = np.array([f[0] for f in files], dtype=object)
        self.paths = [f[1] for f in files]
        self.kinds = np.array([f[2] for f in files], dtype=object)
        self.mtimes = np.array([f[3] for f in files], dtype=np.float64)
        self._masks: dict[Filters, np.ndarray] = {}

    @classmethod
    def load(cls, conn: sqlite3.Connection) -> "Catalog":
        rows = conn.execute(
            f"SELECT ch.id, ch.file, c.name, f.path, f.kind, f.mtime FROM chunks ch "
            f"JOIN files f ON f.id = ch.file JOIN collections c ON c.id = f.collection "
            f"WHERE {VISIBLE} ORDER BY ch.id").fetchall()
        rows_of: dict[int, int] = {}
        files, file_of = [], np.empty(len(rows), dtype=np.int32)
        for i, (_, file_id, collection, path, kind, mtime) in enumerate(rows):
            row = rows_of.get(file_id)
            if row is None:
                row = rows_of[file_id] = len(files)
                files.append((collection, path, kind, mtime))
            file_of[i] = row
        ids = np.fromiter((r[0] for r in rows), dtype=np.int64, count=len(rows))
        return cls(ids, file_of, files)

    def __len__(self) -> int:
        return len(self.ids)

    def mask(self, f: Filters) -> np.ndarray | None:
        """Which chunks pass ``f`` (None: all of them)."""
        if f == Filters():
            return None
        if f not in self._masks:
            if len(self._masks) >= MASKS_KEPT:
                self._masks.clear()
            self._masks[f] = self._file_mask(f)[self.file_of]
        return self._masks[f]

    def _file_mask(self, f: Filters) -> np.ndarray:
        keep = np.ones(len(self.paths), dtype=bool)
        if f.collection:
            keep &= self.collections == f.collection
        if f.path_prefix:
            keep &= np.fromiter((p.startswith(f.path_prefix) for p in self.paths), dtype=bool,
                                count=len(self.paths))
        if f.kind:
            keep &= self.kinds == f.kind
        if f.modified_after is not None:
            keep &= self.mtimes >= f.modified_after
        if f.modified_before is not None:
            keep &= self.mtimes < f.modified_before
        return keep
