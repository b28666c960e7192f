"""One huey task per pipeline stage: discover → parse → chunk → embed → write → publish.

Each task is glue: it calls ``ingest`` and ``search`` and queues the next
stage. Files travel in batches (``Batch``) so that one embedding call serves
chunks of many files. Per-file trouble is recorded against the file and the
batch goes on; a task that fails for good marks its files failed, so the
generation can still be published.
"""
from __future__ import annotations

import logging
import os
import sqlite3
from dataclasses import dataclass, field
from pathlib import Path

from huey.signals import SIGNAL_ERROR

from ingest.changes import Known, plan_changes
from ingest.chunk import chunk_document
from ingest.discover import Rules, walk
from ingest.document import Skip
from ingest.files import FileChanging, ParsedFile, read_and_parse, text_hash
from search import freshness, store
from workers import runtime
from workers.app import huey

log = logging.getLogger("sift.workers")
RETRY = dict(retries=3, retry_delay=2, retry_backoff=2)
TRANSIENT = (sqlite3.OperationalError, OSError)
NOT_UTF8_NAME = "file name is not valid UTF-8 (its undecodable bytes are shown as \\xNN): rename it to index it"


@dataclass
class Batch:
    gen: int
    collection: int
    paths: list[str]
    parsed: list[ParsedFile] = field(default_factory=list)
    chunks: dict[str, list] = field(default_factory=dict)  # path → [store.ChunkRow]
    to_embed: dict[str, str] = field(default_factory=dict)  # text hash → text
    embedded: dict[str, int] = field(default_factory=dict)  # path → chunks embedded
    vectors: dict[str, bytes] = field(default_factory=dict)  # text hash → float32 blob


@huey.task(priority=0, **RETRY)
def discover(collection_id: int, resume: bool = False) -> int | None:
    """Scan the collection and queue its changed files; ``resume``: redo a scan whose worker was killed
    (queued by workers.recover when a consumer starts), which its own dead claim must not hold up."""
    conn, settings = runtime.index(), runtime.settings()
    collection = store.get_collection(conn, collection_id)
    root = Path(collection["root"])
    where = freshness.begin_scan(conn, collection_id, root.is_dir(), settings.rescan_minutes * 60, force=resume)
    if where == freshness.BUSY:
        log.info("collection %s: a scan or a build is under way; scanning again once it is published",
                 collection["name"])
        return None
    if where == freshness.MISSING:
        log.warning("collection %s: root %s is missing; its files stay searchable until it has been gone "
                    "for %g min", collection["name"], root, settings.rescan_minutes)
        return None
    model = runtime.model_id()
    gen = store.begin_generation(conn, collection_id, model)
    listed = walk(root, Rules(settings.include, settings.exclude)) if where == freshness.PRESENT else []
    found, unnamable = _storable(listed)
    known = {p: Known(r["size"], r["mtime"], r["sha256"]) for p, r in store.current_files(conn, collection_id).items()}
    model_changed = collection["published"] is not None and store.published_model(conn, collection_id) != model
    plan = plan_changes(root, found, known, everything=model_changed)
    pending = set(store.pending_paths(conn, gen))  # queued before a crash or a re-run
    store.record_plan(conn, gen, collection_id, {**plan.changes, **dict.fromkeys(unnamable, "added")},
                      plan.touched, plan.seen + len(unnamable))
    for path, reason in unnamable.items():
        store.mark(conn, gen, [path], "parse", "skipped", reason)
    paths = sorted(set(plan.to_parse) | (pending - set(plan.changes) - set(unnamable)))
    for i in range(0, len(paths), settings.files_per_job):
        parse(Batch(gen, collection_id, paths[i:i + settings.files_per_job]))
    log.info("generation %s: %d files seen, %d to parse", gen, plan.seen, len(paths))
    store.try_publish(conn, gen)
    return gen


@huey.task(priority=10, **RETRY)
def parse(batch: Batch) -> None:
    conn = runtime.index()
    root = store.get_collection(conn, batch.collection)["root"]
    skipped, failed = {}, {}
    for path in batch.paths:
        try:
            batch.parsed.append(read_and_parse(root, path))
        except Skip as reason:
            skipped[path] = str(reason)
        except FileNotFoundError:
            failed[path] = "file vanished before it could be read"
        except PermissionError as exc:  # errno set: the OS refused; unset: safe_join's refusal, with its reason
            failed[path] = "no permission to read the file" if exc.errno else str(exc)
        except FileChanging as exc:
            failed[path] = str(exc)
        except Exception as exc:  # a bad file must not stop the batch
            failed[path] = f"{type(exc).__name__}: {exc}"
    _record_trouble(batch, "parse", skipped, failed)
    store.mark(conn, batch.gen, [p.path for p in batch.parsed], "parse", "done")
    if batch.parsed:
        chunk(batch)


@huey.task(priority=20, **RETRY)
def chunk(batch: Batch) -> None:
    conn, settings, embedder = runtime.index(), runtime.settings(), runtime.embedder()
    limit = min(settings.chunk_tokens, embedder.info.max_tokens)
    overlap = min(settings.chunk_overlap, limit // 2)
    failed = {}
    for parsed in batch.parsed:
        try:
            pieces = chunk_document(parsed.doc, embedder.count, limit, overlap)
        except Exception as exc:
            failed[parsed.path] = f"{type(exc).__name__}: {exc}"
            continue
        batch.chunks[parsed.path] = [_chunk_row(i, piece) for i, piece in enumerate(pieces)]
    batch.parsed = [p for p in batch.parsed if p.path not in failed]
    _record_trouble(batch, "chunk", {}, failed)
    model = runtime.model_id()
    if model:
        _plan_embedding(batch, store.cached_hashes(conn, model, _all_hashes(batch)))
    counts = {p: (len(rows), None) for p, rows in batch.chunks.items()}
    store.mark(conn, batch.gen, list(batch.chunks), "chunk", "done", counts=counts)
    (embed if batch.to_embed else write)(batch)


@huey.task(priority=30, **RETRY)
def embed(batch: Batch) -> None:
    embedder, settings = runtime.embedder(), runtime.settings()
    hashes = list(batch.to_embed)
    for i in range(0, len(hashes), settings.embed_batch):
        part = hashes[i:i + settings.embed_batch]
        matrix = embedder.embed([batch.to_embed[h] for h in part])
        batch.vectors.update((h, row.tobytes()) for h, row in zip(part, matrix))
    batch.to_embed = {}
    store.mark(runtime.index(), batch.gen, list(batch.chunks), "embed", "done",
               counts={p: (None, n) for p, n in batch.embedded.items()})
    write(batch)


@huey.task(priority=40, **RETRY)
def write(batch: Batch) -> None:
    conn = runtime.index()
    items = [(_file_version(p), batch.chunks[p.path]) for p in batch.parsed if p.path in batch.chunks]
    store.write_files(conn, batch.gen, batch.collection, items, runtime.model_id(), batch.vectors, batch.embedded)
    store.try_publish(conn, batch.gen)


@huey.task(priority=50, **RETRY)
def publish(gen: int) -> bool:
    return store.try_publish(runtime.index(), gen)


@huey.signal(SIGNAL_ERROR)
def _task_failed(signal, task, exc=None):
    """A task out of retries: its files fail with the reason, the generation goes on."""
    if task.retries:
        return
    batch = task.args[0] if task.args else None
    if isinstance(batch, Batch):
        reason = f"{task.name} failed: {type(exc).__name__}: {exc}"
        store.mark(runtime.index(), batch.gen, batch.paths, task.name, "failed", reason)
        publish(batch.gen)


def _storable(found: list) -> tuple[list, dict[str, str]]:
    """Split off files whose names are not valid UTF-8 (undecodable bytes arrive as lone surrogates,
    which SQLite, JSON and the queue refuse); they are skipped under a printable form of the name."""
    kept, unnamable = [], {}
    for file in found:
        try:
            file.path.encode("utf-8")
        except UnicodeEncodeError:
            shown = os.fsencode(file.path).decode("utf-8", "backslashreplace")
            unnamable[shown] = NOT_UTF8_NAME
            continue
        kept.append(file)
    return kept, unnamable


def _record_trouble(batch: Batch, stage: str, skipped: dict, failed: dict) -> None:
    conn = runtime.index()
    for path, reason in skipped.items():
        store.mark(conn, batch.gen, [path], stage, "skipped", reason)
    for path, reason in failed.items():
        store.mark(conn, batch.gen, [path], stage, "failed", reason)
    if skipped or failed:
        store.try_publish(conn, batch.gen)


def _chunk_row(ordinal: int, piece) -> store.ChunkRow:
    return store.ChunkRow(ordinal=ordinal, heading_path=" > ".join(piece.heading_path), text=piece.text,
                          tokens=piece.tokens, text_hash=text_hash(piece.text), start_line=piece.start_line,
                          end_line=piece.end_line, page=piece.page, end_page=piece.end_page)


def _all_hashes(batch: Batch) -> list[str]:
    return [row.text_hash for rows in batch.chunks.values() for row in rows]


def _plan_embedding(batch: Batch, cached: set[str]) -> None:
    for path, rows in batch.chunks.items():
        fresh = 0
        for row in rows:
            if row.text_hash not in cached and row.text_hash not in batch.to_embed:
                batch.to_embed[row.text_hash] = row.text
                fresh += 1
        batch.embedded[path] = fresh


def _file_version(parsed: ParsedFile) -> store.FileVersion:
    return store.FileVersion(path=parsed.path, kind=parsed.kind, size=parsed.size, mtime=parsed.mtime,
                             sha256=parsed.sha256, title=parsed.doc.title, meta=parsed.doc.meta)
