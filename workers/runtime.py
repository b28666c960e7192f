"""What one worker process keeps: its settings, an index connection, the model.

Each is made on first use and kept, so a worker loads the model once. A
generation embeds with the model it began with: jobs of a build begun before
SIFT_MODEL changed finish with that model (found by its id, ``embedding.locate``).
"""
from __future__ import annotations

import contextlib
import logging
import os
import threading

from search.index import db
from search.model import embedding
from search.model.info import ModelError
from search.settings import Settings, load
from workers import queues

_local = threading.local()
log = logging.getLogger("sift.workers")


class ModelUnusable(ModelError):
    """The worker's own model (SIFT_MODEL) reads as a GGUF file but llama.cpp cannot load it (tensors of
    another shape than its header says, an architecture llama.cpp does not know): no job of this worker can
    run, and none is to blame, so the consumer stops saying why (workers.halt), as for a damaged index."""

class IndexReplaced(Exception):
    """The index was replaced (deleted, restored, moved over) while a job ran: its work was the old index's."""


_lock = threading.Lock()
_shared: dict = {}


def settings() -> Settings:
    if "settings" not in _shared:
        _shared["settings"] = load()
    return _shared["settings"]


def index():
    """This thread's connection to the index (huey may run tasks in threads), opened again when the file at the
    index's path is another one than it was opened on (restored from a backup, a copy moved over it, deleted): a
    connection stays on the file it opened, and every job after the swap wrote on to the replaced, unlinked file,
    its work lost without a word. Each job asks for it as it starts, and each step of a build again.
    Its -wal is compared too (db.replaced), as the server's readers compare it: a worker that opened a restored
    file while the replaced one's emptied -wal was still beside it shared that -wal, and once another worker
    found the swap and deleted it (close_replaced) wrote on through the deleted -wal and -shm, where no other
    connection saw its writes and a new -wal beside the file was written apart from it."""
    conn = getattr(_local, "conn", None)
    path = settings().index_path
    if conn is not None and db.replaced(path, _local.opened):
        log.warning("the index at %s was replaced (restored, moved over or deleted) since this worker opened it: "
                    "reading and writing the file there now", path)
        _local.conn, conn = None, db.close_replaced(conn, path, _local.opened[1])
        _local.swaps = getattr(_local, "swaps", 0) + 1
        if getattr(_local, "jobs", 0):  # the job's own connection was the one closed: its work was the old index's
            raise IndexReplaced(_replaced(path))
    if conn is None:
        before = db.identity(path)  # before connecting: a file swapped meanwhile is found at the next call
        conn = _local.conn = db.connect(path)
        # (a new index is made by connecting) and the -wal it reads through, while it stays open
        _local.opened = (before or db.identity(path), db.identity(f"{path}-wal"))
    return conn


@contextlib.contextmanager
def job():
    """While a job runs: the index is opened (again) as it starts, and found replaced later it ends the job
    (IndexReplaced) rather than open the new file under it. Opened anew mid-job, the job's connection was closed
    under it (ProgrammingError: Cannot operate on a closed database, told as a bug), or the job wrote its old
    generation's files into the new index, whose numbering starts again at 1. Any error of a job whose index was
    replaced while it ran is that (IndexReplaced). Jobs nest in immediate mode."""
    index()
    swaps = getattr(_local, "swaps", 0)
    _local.jobs = getattr(_local, "jobs", 0) + 1
    try:
        yield
    except IndexReplaced:
        raise
    except Exception as exc:
        if getattr(_local, "swaps", 0) == swaps:
            raise
        raise IndexReplaced(_replaced(settings().index_path)) from exc
    finally:
        _local.jobs -= 1


def _replaced(path) -> str:
    return (f"the index at {path} was replaced (restored, moved over or deleted) while this job ran: its work was "
            "the old index's, dropped")


def embedder(model_id: str | None = None) -> embedding.Embedder:
    """The configured model, or the model whose id is ``model_id`` (a generation's). With embeddings off there
    is no configured model: a keyword-only index never loads (nor builds) one, but a generation begun with a
    model still finishes with it."""
    with _lock:
        if settings().embeddings:
            if "embedder" not in _shared:
                _shared["embedder"] = _load_configured()
            configured = _shared["embedder"]
            if model_id is None or model_id == configured.info.model_id:
                return configured
        elif model_id is None:
            raise ModelError("embeddings are off (SIFT_EMBEDDINGS=off): a keyword-only index has no model")
        others = _shared.setdefault("others", {})
        if model_id not in others:
            others.clear()  # one older model at a time: a worker meets it only while a build finishes
            others[model_id] = _load(embedding.locate(model_id, settings()))
        return others[model_id]


def _load_configured() -> embedding.Embedder:
    info = embedding.resolve(settings())  # a missing or malformed file: refused as the consumer starts
    try:
        return _load(info)
    except ModelError as exc:
        raise ModelUnusable(str(exc)) from exc


def _load(info) -> embedding.Embedder:
    return embedding.Embedder(info, threads=queues.worker_threads(settings()))


def model_id() -> str | None:
    """The id vectors are stored under, or None for a keyword-only index (its model is not looked at)."""
    return embedder().info.model_id if settings().embeddings else None


def reset() -> None:
    """Forget everything (tests change SIFT_HOME between runs)."""
    _shared.clear()
    conn = getattr(_local, "conn", None)
    if conn is not None:
        conn.close()
        _local.conn = None
