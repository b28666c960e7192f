"""What one worker process keeps: its settings, an index connection, the model.

Each is made on first use and kept, so a worker loads the model once.
"""
from __future__ import annotations

import os
import threading

from search import db, model
from search.settings import Settings, load

_local = threading.local()
_lock = threading.Lock()
_shared: dict = {}


def settings() -> Settings:
    if "settings" not in _shared:
        _shared["settings"] = load()
    return _shared["settings"]


def index():
    """This thread's connection to the index (huey may run tasks in threads)."""
    conn = getattr(_local, "conn", None)
    if conn is None:
        conn = _local.conn = db.connect(settings().index_path)
    return conn


def embedder() -> model.Embedder:
    with _lock:
        if "embedder" not in _shared:
            info = model.resolve(settings())
            threads = max(1, (os.cpu_count() or 1) // max(1, settings().workers))
            _shared["embedder"] = model.Embedder(info, vocab_only=not settings().embeddings, threads=threads)
        return _shared["embedder"]


def model_id() -> str | None:
    """The id vectors are stored under, or None for a keyword-only index."""
    return embedder().info.model_id if settings().embeddings else None


def reset() -> None:
    """Forget everything (tests change SIFT_HOME between runs)."""
    _shared.clear()
    conn = getattr(_local, "conn", None)
    if conn is not None:
        conn.close()
        _local.conn = None
