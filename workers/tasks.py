"""One huey task per pipeline stage: discover → parse → chunk → embed → write → publish.

Each task is glue: it calls ``ingest`` and ``search`` and queues the next
stage. Files travel in batches (``Batch``) so that one embedding call serves
chunks of many files. Per-file trouble is recorded against the file and the
batch goes on. A job or a file that fails for a transient cause (a busy
database, a file being written, a full disk) is tried again with backoff;
one that fails for good, or is out of tries, marks its files failed with the
reason, so the generation can still be published (``workers.retry``).
"""
from __future__ import annotations

import contextlib
import functools
import hashlib
import json
import logging
import os
import re
import sqlite3
import sys
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Callable

from huey.signals import SIGNAL_ENQUEUED

from ingest import freed_moves
from ingest.changes import Known, plan_changes, settled_ctime
from ingest.chunk import TooManyChunks, chunk_document, chunking, plain_count, text_hash
from ingest.discover import (CLOUD_ONLY, DOWNLOADING, LEFT_OUT_NOW, NOT_INCLUDED, FoundFile, Rules, left_out_now,
                             not_downloaded, placeholder_for, rules_of, walk, walk_paths, with_partners)
from ingest.discover import away as not_on_this_disk
from ingest.document import Skip
from ingest.kinds import kind_of
from ingest.parser_versions import parsers
from ingest.passage_dates import date_sections, document_date
from search.index import (collection_reads, db, file_reads, freshness, generation_reads, progress_reads, space, store,
                          mail_reads, vector_reads, work_reads, working)
from search.index.remembered import Basis, Outcome, fingerprint
from search.index.status import count
from workers import freed_passages, halt, retry, running, runtime
from workers.app import huey
# Freshness before throughput: a rescan of a published collection and every job of a small build go ahead of the
# jobs of bigger builds under way (see ``priority``): URGENT, SMALL_BUILD and ``small`` live in workers.queue_state,
# which stats reads them from without importing this module
from workers.queue_state import SCAN_PRIORITY, SMALL_BUILD, URGENT, small  # noqa: F401
from workers.working import Gone, Work

if TYPE_CHECKING:  # the parsers (ingest.files) and numpy are imported where a job reads a file or checks a vector:
    from ingest.files import ParsedFile  # `ingest enqueue` imports this module to queue a scan, and needs neither

log = logging.getLogger("sift.workers")
AS_BEFORE = "as before"  # a progress row's change: skipped or failed as before, the file unchanged since
NO_PERMISSION = "no permission to read the file"  # a failure remembered until the file opens (or changes)
# the collection's folder went away in the middle of a build (unmounted, moved): its indexed files are kept
ROOT_GONE = "not read: its collection's folder is gone (unmounted or moved?); the version indexed before is kept"
NOT_UTF8_NAME = "file name is not valid UTF-8 (its undecodable bytes are shown as \\xNN): rename it to index it"
RECORD_PATIENCE = 300.0  # seconds a worker waits for disk space to record why files failed
RECORD_POLICY = retry.Policy.lasting(RECORD_PATIENCE, delay=2.0, backoff=2.0, cap=30.0)  # 2, 4, 8, 16, 30, 30 … s
# the most bytes of files one pipeline job carries (one bigger file goes alone): about what 16 long notes were,
# so a job's embedding still ends within a stopping worker's grace (mcp_server/worker.py STOP_GRACE)
JOB_BYTES = 64 * 1024
COUNTS_KEPT = 65_536  # token counts a worker remembers (about 100 bytes each), oldest forgotten first
EMBED_TOKENS_PER_CORE = 1300  # what e5 embeds a second on one core (MiniLM twice that): for a skipped file's reason


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
    model: str | None = None  # the generation's model id, set by chunk: every stage after it embeds with it
    urgent: bool = False  # a small build's batch: each of its stages goes ahead of bigger builds' (``priority``)
    # path → the id of its version indexed: a freed note, not on this disk, embedded again from its stored passages
    # for a new model and written again as that version (workers.freed_passages)
    as_indexed: dict[str, int] = field(default_factory=dict)
    # when its generation was begun (its row's ``started``): a job of an index deleted or replaced since finds another
    # generation under the same number there, a fresh index numbering them from 1 again (``_stale``). None: queued
    # by a Sift before 2026-12-07, not checked
    started: float | None = None


@dataclass(repr=False)
class Background:
    """A big file's chunks to embed outside its collection's build (``embed_in_background``)."""
    collection: int
    path: str
    model: str
    texts: dict[str, str]  # text hash → the text the model embeds
    since: float  # its row's token (store.begin_background): a later version of the file takes the row

    def __repr__(self) -> str:  # logs name the file, not its megabytes of text
        return f"Background({self.collection}, {self.path!r}, {len(self.texts)} chunks)"


def stage(priority: int, retry_with: dict | None = None):
    """A huey task whose body is tried again with backoff on transient failures (``workers.retry``);
    on a permanent failure, or after the last try, its files are marked failed with the reason.
    ``retry_with``: keyword arguments the retries add (a retried discover resumes its own claim)."""
    def make(fn):
        @functools.wraps(fn)
        def run(*args, **kwargs):
            settings = runtime.settings()
            if not huey.immediate:  # a worker process: keep room to record failures on a full disk
                space.keep_reserve(settings.home)
            policy = retry.Policy(retries=settings.retries, delay=settings.retry_delay)
            try:
                with _at_work(fn.__name__, args):
                    return retry.attempt(_unless_gone(fn), args, kwargs, policy, _what(fn.__name__, args),
                                         lambda exc, tries: _give_up(fn.__name__, args, exc, tries), retry_with,
                                         beyond=halt.unworkable)
            except Exception as exc:
                why = halt.unworkable(exc)  # a damaged index or queue, an unloadable model: not the files' doing
                if why is None:  # give_up itself failed (e.g. the disk stayed full): huey logs it, as before
                    raise
                halt.stop(why)  # the consumer takes no more jobs (immediate mode: raises halt.Halted)
                return None
        return huey.task(priority=priority)(run)
    return make


def _at_work(name: str, args: tuple):
    """While a job runs, the record that carries its files (workers.running): a batch's paths, or a scan's whole
    collection (it records its plan, then queues the files). Other jobs carry no file of a build."""
    if args and isinstance(args[0], Batch):
        return running.job(huey, args[0].gen, args[0].collection, args[0].paths)
    if name == "discover" and args:
        return running.job(huey, None, args[0], None)
    return contextlib.nullcontext()


def _unless_gone(fn):
    """``fn``, unless its collection was removed (``ingest remove``) while it waited, ending quietly when that
    happens while it runs (workers.working.Gone): not a failure to retry or to record."""
    @functools.wraps(fn)
    def body(*args, **kwargs):
        try:
            with runtime.job():
                if (why := _stale(args)) is not None:
                    log.info("%s: %s: nothing to do", _what(fn.__name__, args), why)
                    return None
                try:
                    return fn(*args, **kwargs)
                except Gone as gone:
                    log.info("%s stopped: %s (ingest remove)", _what(fn.__name__, args), gone)
                    return None
        except runtime.IndexReplaced as replaced:
            log.warning("%s stopped: %s", _what(fn.__name__, args), replaced)
            return None
    return body


def _stale(args) -> str | None:
    """Why a batch's job has nothing to do, or None: its collection was removed while it waited in the queue
    (``ingest remove``: its generation is gone), or the index was deleted or replaced since it was queued (the
    generation of that number there is another one). A job that was running then finds it gone when it writes
    (``store``: nothing is written for it), or the index replaced (``runtime.job``)."""
    if not (args and isinstance(args[0], Batch)):
        return None
    row = generation_reads.generation(runtime.index(), args[0].gen)
    if row is None:  # which of the two, the index cannot tell: it keeps no row of either
        return "its collection was removed (ingest remove), or the index deleted since it was queued"
    started = getattr(args[0], "started", None)
    if row["collection"] != args[0].collection or started is not None and row["started"] != started:
        return "it was queued for an index deleted or replaced since (its generation is another one there)"
    return None


def priority(task, urgent: bool) -> int:
    """The one rule for the queue's order: a job's stage priority (later stages first, scans last), plus URGENT
    for a rescan of a published collection (the watcher's, ``refresh``, the periodic rescan) and for every job
    of a small build (``small``). An edit is then searchable within seconds while another collection's build of
    thousands of files goes on: its rescan waited behind every job of that build (22 min behind notes-en's
    1,874 files). The big build only waits while small ones run: one build per collection at a time."""
    return task.task_class.default_priority + (URGENT if urgent else 0)


def urgent_build(conn, gen: int) -> bool:
    """Whether generation ``gen``'s build is small, counted from its recorded plan as ``discover`` counted it: its
    jobs queued again (workers.recover) keep the turn that their first ones had."""
    return small(sum(row["files"] for row in progress_reads.progress_counts(conn, gen) if row["change"] != "deleted"))


def scan(collection_id: int, conn=None, **kwargs):
    """Queue a discover of the collection, urgent when it has a published generation: the scans of first
    builds keep their turn behind the builds under way."""
    conn = conn or runtime.index()
    published = collection_reads.get_collection(conn, collection_id)["published"] is not None
    return discover(collection_id, priority=priority(discover, published), **kwargs)


def then(task, batch: Batch) -> None:
    """Queue ``task`` for ``batch``, urgent if its build is small."""
    task(batch, priority=priority(task, batch.urgent))


@stage(priority=SCAN_PRIORITY, retry_with={"resume": True})
def discover(collection_id: int, resume: bool = False, queued: float | None = None,
             paths: list[str] | None = None) -> int | None:
    """Scan the collection and queue its changed files in a new generation; a scan that finds nothing changed
    makes none and only records that it scanned (``_unchanged``). ``resume``: redo a scan whose worker was killed
    (queued by workers.recover when a consumer starts), which its own dead claim must not hold up; ``queued``:
    when the scan was queued (``_stamp_scan``), for stats only; ``paths``: what the watcher saw change (relative
    paths of files and folders), the only ones read when that is sure to find what a walk of the whole
    collection would (``_scope``), else (and when not given) the whole collection is walked."""
    conn, settings = runtime.index(), runtime.settings()
    try:
        collection = collection_reads.get_collection(conn, collection_id)
    except LookupError:  # removed (ingest remove) while its scan waited: nothing to scan
        log.info("the collection of id %s was removed (ingest remove): its scan has nothing to do", collection_id)
        return None
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
    model = _kept_model(conn, collection, runtime.model_id())
    if model:  # readers find this model's file by its id while its generation answers searches
        store.remember_model(conn, model, runtime.embedder(model).info.path)
    was_building, building_model = generation_reads.building_model(conn, collection_id)
    published_cut, building_cut = generation_reads.chunkings(conn, collection_id)
    cut = _chunking()
    # a new model re-embeds every file: the published generation keeps answering with its own model meanwhile
    model_changed = (collection["published"] is not None and collection_reads.published_model(conn, collection_id) != model) \
        or (was_building and building_model != model)
    if model_changed:
        log.info("collection %s: the model is now %s: every file is embedded again", collection["name"], model)
    # so is a new chunk size, or a chunker that cuts files otherwise: unchanged chunks keep their cached vectors
    recut = (collection["published"] is not None and published_cut != cut) or \
        (was_building and building_cut not in (None, cut))
    if recut and not model_changed:
        log.info("collection %s: files are now cut as %s (were %s): every file is read again", collection["name"],
                 cut, published_cut or "unrecorded")
    rules = Rules(settings.include, settings.exclude)
    # mail read before schema V24 joins no other file by its Subject: read once more, by a walk or the watcher's
    # paths alike (a collection the watcher keeps scanning by paths had no walk to do it, and waited for one)
    again = mail_reads.before_people(conn, collection_id, False)
    scope = _scope(conn, collection, paths, rules, again) \
        if paths and where == freshness.PRESENT and not (was_building or model_changed or recut) else None
    refused: dict[str, str] = {}  # symlinks discovery does not follow, folders it cannot read: the reason
    unreadable: list[str] = []  # folders that cannot be listed
    unread: Counter = Counter()  # files of kinds Sift does not read, per extension: stats names them
    walked_at = time.time()  # a ctime this recent or later is not kept: the next scan hashes the file again
    placeholders: list[str] = []  # sync clients' placeholders passed: a freed note moved stands at one
    if scope is not None:
        listed = walk_paths(root, scope.paths, rules, refused, unreadable, unread, placeholders)
        current = file_reads.current_files_at(conn, collection_id, scope.paths)
        unseen = file_reads.current_count(conn, collection_id) - len(current)  # the files outside: as they were
        unread.update(scope.unread)
        log.info("collection %s: reading the %d path%s that changed, not the whole collection", collection["name"],
                 len(scope.paths), "" if len(scope.paths) == 1 else "s")
    else:
        listed = walk(root, rules, refused, unreadable, unread, placeholders) if where == freshness.PRESENT else []
        current, unseen = file_reads.current_files(conn, collection_id), 0
    found, unnamable = _storable(listed)
    in_cloud = _cloud_only_kept(current, refused)
    found += in_cloud + _cloud_only_kept(current, refused, downloading=True)  # the latter not counted as freed
    unnamable.update(_printable(refused))
    if scope is not None:
        unnamable.update(scope.unnamable)
    found += _kept(unreadable, current)
    freed = _not_downloaded(root, current, found)
    found += freed
    moved = _moved_away(root, current, found, placeholders, rules, refused)  # new path → old path
    for new in moved:
        unnamable.pop(new, None)  # a cloud-only note moved: not skipped, written there as indexed
    found += [_as_indexed(new, current[old]) for new, old in moved.items()]
    freed += in_cloud
    known = {p: Known(r["size"], r["mtime"], r["sha256"], r["attachment"], r["ctime"]) for p, r in current.items()}
    plan = plan_changes(root, found, known, everything=model_changed or recut, now=walked_at)
    plan.changes.update(dict.fromkeys((path for path in again if path in known and path not in plan.changes),
                                      "changed"))
    if not model_changed:  # a freed note is not on this disk to cut again: read, it failed 'file vanished' at each
        for file in freed:  # chunker upgrade; its passages stand as they were cut
            plan.changes.pop(file.path, None)
    plan.changes.update(dict.fromkeys(moved, "renamed"))  # moved as indexed by record_plan, not read
    plan.seen += unseen
    store.settle_ctimes(conn, collection_id, plan.settled)
    carried = {} if model_changed else _as_before(conn, collection_id, plan, found, _settings_prints(model))
    store.keep_remembered(conn, collection_id, carried)  # the rest are gone, indexed, or read again now
    away = freed + [f for f in found if f.path in moved]  # stats counts them
    store.record_away(conn, collection_id, {f.path: (f.size, f.mtime, f.ctime) for f in away},
                      None if scope is None else scope.paths)
    in_background, stale = _in_background(conn, collection_id, plan, found, _settings_prints(model),
                                          None if scope is None else scope.paths,
                                          _written_by_build(conn, collection_id, current) if was_building else {})
    carried.update(in_background)
    # a big file whose build wrote its passages without their vectors, its job no longer going on (done, lost, its
    # file touched): read again, its build writes it with the vectors cached (or hands it on again)
    freed_paths = {f.path for f in freed}
    plan.changes.update(dict.fromkeys((r["path"] for r in stale if r["path"] in known and r["path"] not in
                                       plan.changes and r["path"] not in freed_paths and r["path"] not in carried),
                                      "changed"))
    # a freed note's row stays until the note is back on disk: forgotten, the note came back unchanged (not read
    # again) and its passages never got their vectors. Its job lost too, whether a placeholder stands for it or it
    # is a cloud-only file under its own name (File Provider, OneDrive), which lost_in_background leaves alike
    # meanwhile: the latter's row was forgotten here, and the note downloaded again got no vectors until it changed
    stale = [r for r in stale if r["path"] not in freed_paths
             or r["done"] < r["total"] and not not_on_this_disk(root, r["path"])]
    # a refused link that was indexed before stays 'deleted' (its old version is retired), and is skipped
    refused_before = _refused_as_before(conn, collection["published"], unnamable)
    changes = {**{p: AS_BEFORE if p in refused_before else "added" for p in unnamable}, **plan.changes}
    # a file skipped or failed as before is no change: stats said "1 added" at every scan of a collection
    # holding one file over SIFT_MAX_FILE_CHUNKS, though nothing was added
    changes.update(dict.fromkeys((p for p in carried if changes.get(p) not in (None, "deleted")), AS_BEFORE))
    # the files taken as deleted that are still on disk, left out by the settings now: stats says so
    unread.update(left_out_now(root, [p for p, change in plan.changes.items() if change == "deleted"], rules))
    # a file touched (its mtime changed, its content hashed the same) still makes a generation: the published
    # one's file rows, and the catalogs readers keep per generation, hold the mtime the date filters compare
    if not (was_building or model_changed or recut or plan.touched) and _unchanged(conn, collection, changes, unread):
        _fault_pause_discover(f"collection {collection['name']}")
        store.forget_background(conn, stale)
        store.scanned_unchanged(conn, collection_id, time.time())
        log.info("collection %s: %d files seen, nothing changed (%d skipped or failed as before): generation %s "
                 "stays published", collection["name"], plan.seen, len(carried), collection["published"])
        return collection["published"]
    gen = store.begin_generation(conn, collection_id, model, cut)
    store.forget_background(conn, stale)  # once the build is under way: it keeps their vectors from the clean-up
    pending = set(progress_reads.pending_paths(conn, gen))  # queued before a crash or a re-run
    started = generation_reads.generation(conn, gen)["started"]  # its jobs carry it (``_stale``)
    _fault_pause_discover(f"generation {gen}")
    store.record_plan(conn, gen, collection_id, changes, plan.touched, plan.seen + len(unnamable), unread,
                      {new: current[old]["id"] for new, old in moved.items()})
    for path, reason in unnamable.items():
        store.mark(conn, gen, [path], "parse", "skipped", reason)
    for outcome, paths in _by_outcome(carried).items():  # a transaction per reason, not per file
        store.mark(conn, gen, paths, outcome.stage, outcome.state, outcome.reason, error=outcome.error)
    paths = sorted((set(plan.to_parse) - set(carried) - set(moved)) | (pending - set(plan.changes) - set(unnamable)))
    paths, later = first_part(conn, collection, paths, pending | {p for p in paths if changes.get(p) != "added"},
                              settings.first_part, lambda: _heavy(found, settings, root),
                              {f.path: f.mtime for f in found})
    if later:  # a first build in parts: these wait for a later part, which the publish of this one queues
        store.mark(conn, gen, later, "parse", "skipped", progress_reads.DEFERRED)
        log.info("generation %s: a part of the first build of collection %s: %d files now, %d in later parts",
                 gen, collection["name"], len(paths), len(later))
    urgent = small(len({p for p, change in changes.items() if change != "deleted"} | pending))
    for part in jobs(paths, {f.path: f.size for f in found}, settings.files_per_job):
        then(parse, Batch(gen, collection_id, part, urgent=urgent, started=started))
    log.info("generation %s: %d files seen, %d to parse, %d skipped or failed as before (unchanged since)",
             gen, plan.seen, len(paths), len(carried))
    publish_part(conn, gen)
    return gen


def first_part(conn, collection, paths: list[str], keep: set[str], most: int,
               heavy: Callable[[], frozenset[str]] = frozenset,
               mtimes: dict[str, float] | None = None) -> tuple[list[str], list[str]]:
    """(the files to read now, those left to later parts) of a first build: one of a collection with nothing
    published, or whose published generation is itself a part. Its first answers came only once every file was
    embedded (35 min for 15,124 files); in parts, each an ordinary generation, the first ``most`` files
    (SIFT_FIRST_PART; 0: no parts) are searchable within a minute or two while the rest follow, each part as
    large as all the parts before it (100, 100, 200, 400 … files, a rest under ``most`` with the last): few
    generations, each published whole. Only
    files new to the index wait: those in ``keep`` (queued before a crash, changed, renamed) are read in this
    part. A later build never comes in parts. ``heavy`` (``_heavy``, asked only for a build in parts: it reads
    the big PDFs' first and last bytes): files likely to be embedded in the background, left out of the first part,
    whose answers they held back: one such file held one of the two workers through it. The other files go in
    ``recent_first`` order by ``mtimes`` (path: mtime): by path, a first part of notes-en held ack through c…,
    and a new user's first questions, about git, tmux or vim, found nothing for many minutes."""
    published = collection["published"]
    if not most or len(paths) <= most or (published is not None and not progress_reads.deferred(conn, published)):
        return paths, []
    # as many as the parts before read, failed and skipped files too: by the files they made searchable, a folder
    # of unreadable scans before its notes went on in parts of ``most``, a walk and a publish each
    size = max(most, generation_reads.generation(conn, published)["seen"] - progress_reads.deferred(conn, published)
               if published is not None else 0)
    if len(paths) - size < most:  # a rest smaller than a first part goes with this one, not in a part of its own
        return paths, []
    now = [p for p in paths if p in keep]
    heavy = heavy() if published is None else frozenset()
    rest = sorted(recent_first([p for p in paths if p not in keep], mtimes or {}), key=lambda p: p in heavy)  # last
    now += rest[:max(0, size - len(now))]
    kept = set(now)
    return sorted(kept), [p for p in paths if p not in kept]


# Seconds of mtime told apart when a first build orders its parts (``recent_first``): files modified within the
# same minute are equal times, in path order, as a folder copied or checked out at once is (its files' mtimes
# are the copy's, seconds apart in the order it wrote them, which says nothing of what a person works on).
RECENT_GRAIN = 60


def recent_first(paths: list[str], mtimes: dict[str, float]) -> list[str]:
    """``paths`` in the order a first build's parts read them: the most recently modified first (a person's
    current work, what they are most likely to ask about first), equal times (``RECENT_GRAIN``) by path; a path
    of no known mtime last."""
    return sorted(paths, key=lambda p: (-(mtimes[p] // RECENT_GRAIN) if p in mtimes else float("inf"), p))


# Bytes of text per chunk below any a note is cut into (notes-en's README.md: 164 KB, 300 chunks of 256 tokens,
# 547 bytes each): a file of more bytes than this times SIFT_BACKGROUND_CHUNKS is likely to be embedded in the
# background (``_to_background``, which counts its chunks once it is cut).
HEAVY_BYTES_PER_CHUNK = 500


# Bytes of text a PDF page holds, about the most (a dense page of a paper: 3-4 KB; shared/data's PDFs 1.2-2.4 KB): a PDF's
# bytes are mostly fonts and images, and by them almost every PDF over 128 KB (a paper of 12 pages, 40 passages)
# was taken for a file to embed in the background, and left to the end of its part
HEAVY_BYTES_PER_PAGE = 3000
PDF_ENDS = 65536  # bytes at each end of a PDF where its page count is looked for


def _heavy(found: list[FoundFile], settings, root: Path) -> frozenset[str]:
    """The files big enough to be embedded in the background, by their size (their chunks are not counted until
    they are cut), a PDF by its pages where its first or last bytes say how many (``pdf_pages``); none when
    nothing is (SIFT_BACKGROUND_CHUNKS=0, or embedding machines)."""
    if not settings.background_chunks or settings.embed_remote:
        return frozenset()
    most = settings.background_chunks * HEAVY_BYTES_PER_CHUNK
    heavy = set()
    for f in found:
        if f.size <= most:
            continue
        pages = pdf_pages(root / f.path) if f.kind == "pdf" else None
        if pages is None or pages * HEAVY_BYTES_PER_PAGE > most:
            heavy.add(f.path)
    return frozenset(heavy)


_LINEARIZED = re.compile(rb"/Linearized\b(?:(?!>>).){0,200}?/N\s+(\d+)", re.S)
# a page tree's dictionary: /Type /Pages and its /Count in either order, its /Kids (a reference a page) between
_PAGE_TREE = re.compile(rb"/Type\s*/Pages\b(?:(?!>>).)*?/Count\s+(\d+)|/Count\s+(\d+)(?:(?!>>).)*?/Type\s*/Pages\b", re.S)


def pdf_pages(path: Path) -> int | None:
    """A PDF's page count from its first and last PDF_ENDS bytes, without parsing it (a scan may find thousands):
    a linearized file's /N, else the largest /Count of a page tree written there uncompressed; None when neither is
    (a page tree in a compressed object stream, an unreadable file)."""
    try:
        with open(path, "rb") as f:
            head = f.read(PDF_ENDS)
            f.seek(0, os.SEEK_END)
            f.seek(max(len(head), f.tell() - PDF_ENDS))
            tail = f.read(PDF_ENDS)
    except OSError:
        return None
    linearized = _LINEARIZED.search(head, 0, 2048)
    if linearized:
        return int(linearized.group(1))
    counts = [int(a or b) for a, b in _PAGE_TREE.findall(head + b"\n" + tail)]
    return max(counts) if counts else None


def publish_part(conn, gen: int) -> bool:
    """``store.try_publish``; the worker that publishes a part of a first build (``first_part``) then asks for the
    next part's scan, unless one runs or waits already (workers.rescan.next_part; the periodic rescan asks too:
    workers.rescan.due, should this worker die in between)."""
    if not store.publish_now(conn, gen):  # once: a second try could publish, and no next part would be asked for
        return store.published(conn, gen)
    if progress_reads.deferred(conn, gen):
        from workers import rescan  # it queues scans through this module
        collection = generation_reads.generation(conn, gen)["collection"]
        log.info("generation %s published, a part of its collection's first build: scanning for the next part", gen)
        rescan.next_part(collection, conn)
    return True


@dataclass
class Scope:
    """What a targeted scan reads: ``paths`` (files, and folders walked whole); what it keeps of the published
    generation: its counts of files Sift does not read, and the files skipped for a name that is not UTF-8."""
    paths: list[str]
    unread: dict[str, int]
    unnamable: dict[str, str]


# named paths beyond which a scan walks the collection instead (a checkout of another branch, a sync): each costs
# a seek in the index and a stat, the walk about 25 µs per file (5 s for 200,000)
MOST_NAMED = 10_000


def _scope(conn, collection, paths: list[str], rules: Rules, again: list[str] = ()) -> Scope | None:
    """The paths a scan must read to find what a walk of the whole collection would find, given that only
    ``paths`` changed since the published generation; None where only the walk is sure to: no generation
    published yet, the root itself named, a name that is not UTF-8, more than MOST_NAMED paths, or, while the
    published generation counts files of kinds Sift does not read, a folder or such a file among them (how many
    of those it held is not recorded), likewise a path SIFT_INCLUDE leaves out while it counts those, and a
    collection of no more files seen than paths named (what SIFT_EXCLUDE or a .gitignore left out of a scan
    that finds none is counted by the walk alone: ingest.discover.LEFT_OUT). Besides
    ``paths``: the same-stem note or PDF beside each (a note stands for its PDF), and the files the published
    generation skipped or failed, which a walk would read again, and ``again`` (files read again though unchanged)."""
    if collection["published"] is None or "." in paths or len(paths) > MOST_NAMED \
            or not all(_storable_name(p) for p in paths) or progress_reads.deferred(conn, collection["published"]):
        return None  # a part of a first build: the walk finds the files of the next part
    published = generation_reads.generation(conn, collection["published"])
    if published["seen"] <= len(paths):  # it may find no file: the walk alone says what left them out
        return None
    names, unnamable = set(paths), {}
    for row in progress_reads.troubled(conn, collection["published"]):
        if row["path"] == ".":
            return None
        if row["reason"] == NOT_UTF8_NAME:
            unnamable[row["path"]] = row["reason"]
        else:
            names.add(row["path"])
    names = with_partners(collection["root"], names) | set(again)
    unread = _unread_as_walked(published)
    if unread and not all(_plain_file(collection["root"], p) for p in names):
        return None
    if unread.get(NOT_INCLUDED) and not all(rules.included(p) for p in names):
        return None
    outside = {p: r for p, r in unnamable.items() if not any(p.startswith(n + "/") for n in names)}
    return Scope(sorted(names), unread, outside)


def _unread_as_walked(published) -> dict[str, int]:
    """The published generation's counts of files Sift does not read, as a walk finds them again: without the
    files it found left out once indexed (ingest.discover.LEFT_OUT_NOW), which a next scan no longer knows of."""
    prefix = LEFT_OUT_NOW.split("{")[0]
    return {key: n for key, n in json.loads(published["unread"] or "{}").items() if not key.startswith(prefix)}


def _storable_name(path: str) -> bool:
    try:
        path.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _plain_file(root, path: str) -> bool:
    """A path whose name gives a kind Sift reads (never one counted as unread), and no folder."""
    return kind_of(path) is not None and not os.path.isdir(os.path.join(root, path))


def _unchanged(conn, collection, changes: dict[str, str], unread: Counter) -> bool:
    """Whether a scan found nothing the published generation does not already say: no file added, changed or
    deleted, the same files skipped or failed as before (a skipped file deleted is no longer one), and the same
    files of kinds Sift does not read. Such a scan makes no generation: one per scan published 'no changes' over
    the generation that had read the edits (twelve in ten seconds at one sift-mcp start), and generation numbers
    climbed for nothing."""
    if collection["published"] is None or any(change != AS_BEFORE for change in changes.values()):
        return False
    published = generation_reads.generation(conn, collection["published"])
    if _unread_as_walked(published) != {ext: n for ext, n in unread.items() if n}:
        return False
    return {row["path"] for row in progress_reads.troubled(conn, published["id"])} == set(changes)


@huey.signal(SIGNAL_ENQUEUED)
def _stamp_scan(signal, task) -> None:
    """A scan carries the time it was queued, whoever queues it (``ingest enqueue``, ``refresh``, the watcher,
    the periodic rescan): stats says how long it has waited (workers.waiting). huey's SQLite queue keeps no
    time of its own."""
    if isinstance(task, discover.task_class):
        task.kwargs.setdefault("queued", time.time())


def _refused_as_before(conn, published: int | None, refused: dict[str, str]) -> set[str]:
    """The refused paths (symlinks not followed, names that are not UTF-8) that the published generation skipped
    for the same reason: no change. Each was 'added' again at every scan (stats: '8 files seen, 2 added' of a
    collection where nothing changed, for a symlink loop and a link to a folder)."""
    if published is None or not refused:
        return set()
    return {r["path"] for r in progress_reads.troubled(conn, published)
            if r["state"] == "skipped" and refused.get(r["path"]) == r["reason"]}


def _as_before(conn, collection_id: int, plan, found: list[FoundFile], settings_print) -> dict[str, Outcome]:
    """The remembered outcomes of the files the plan would read again whose size, mtime, ctime and settings are
    all as they were when the outcome was decided: reading them again would only repeat it. "No permission" is
    also checked against the file itself (does it open now?): access given through its folder, the user's groups
    or an ACL leaves the file's ctime as it was."""
    from ingest.files import can_open
    on_disk = {f.path: f for f in found}
    root = collection_reads.get_collection(conn, collection_id)["root"]
    carried = {}
    for path, (basis, outcome) in file_reads.remembered(conn, collection_id).items():
        file = on_disk.get(path)
        if file is not None and plan.changes.get(path, "deleted") != "deleted" \
                and basis == Basis(file.size, file.mtime, file.ctime, settings_print(path)) \
                and not (outcome.reason == NO_PERMISSION and can_open(root, path)):
            carried[path] = outcome
    return carried


def in_background(total: int) -> str:
    """Why a big file is not in this generation: the reason stats shows while its chunks are embedded apart."""
    return (f"{total:,} chunks to embed: embedded in the background, so that the collection's other changes are "
            "not held back; searchable in a build of its own once done")


def _in_background(conn, collection_id: int, plan, found: list[FoundFile], settings_print,
                   looked: list[str] | None, written: dict | None = None) -> tuple[dict[str, Outcome], list]:
    """The files the plan would read again whose chunks a job of their own is embedding, or waits to, as they
    are now (size, mtime, ctime, settings): left to that job, skipped here with the reason; or whose job failed for
    good, the file as it was then: failed as before, with the job's reason (read again, it would be handed on again
    and fail again, at every scan), until ``ingest retry-failed`` forgets the row. And the rows that no
    longer hold, to forget: the job finished (the file is read now, its vectors cached), the file changed or is
    gone, or its worker died (the file is read again, and handed on again if it still has that much to embed).
    ``looked``: the paths (files, folders) a targeted scan read, None for a walk of the whole collection; a
    targeted scan judges only the rows of files it looked at, one that is no longer there too (renamed: the row of
    its old name went on, its job embedding what the new name's job embeds again). ``written``: path → (size,
    mtime) of the versions the generation being built wrote (``_written_by_build``): a file it wrote as its row's
    job took it is left to that job even where the plan reads every file again (a new chunker or chunk size, whose
    build a starting consumer resumed): it was marked skipped in that build, which then counted it among the
    files skipped or failed and not searchable, though its words answered."""
    on_disk = {f.path: f for f in found}
    carried, stale = {}, []
    for row in work_reads.background(conn, collection_id):
        path, file = row["path"], on_disk.get(row["path"])
        if not (looked is None or file is not None or path in plan.changes or _under(path, looked)):
            continue
        failed = working.failed(row)
        running = not failed and row["done"] < row["total"] and (row["pid"] is None or working.alive(row["pid"]))
        holds = (running or failed) and file is not None and plan.changes.get(path) != "deleted" and \
            Basis(file.size, file.mtime, file.ctime, settings_print(path)) == \
            Basis(row["size"], row["mtime"], row["ctime"], row["settings"])
        if holds and (written or {}).get(path) == (row["size"], row["mtime"]):
            plan.changes.pop(path, None)  # this build wrote it, cut as its job's row says: not read again
        if holds and path not in plan.changes:
            continue  # its passages are published, without their vectors: searchable by keyword; left to its job
        if holds:  # the build that handed it on did not write it (one before this version): skipped, as before
            carried[path] = Outcome("chunk", "failed", background_failed(failed), working.failed_error(row)) \
                if failed else Outcome("chunk", "skipped", in_background(row["total"]))
        else:
            stale.append(row)
    return carried, stale


def _written_by_build(conn, collection_id: int, current: dict) -> dict[str, tuple[int, float]]:
    """path → (size, mtime) of the file versions the collection's generation being built has written (``current``:
    file_reads.current_files' rows)."""
    building = generation_reads.building_generation(conn, collection_id)
    return {} if building is None else {path: (row["size"], row["mtime"]) for path, row in current.items()
                                        if row["gen_from"] == building["id"]}


def background_failed(reason: str) -> str:
    """Why a big file is failed in a generation after its background job failed for good."""
    return f"embedding it in the background failed: {reason}; {working.AGAIN}"


def _under(path: str, looked: list[str]) -> bool:
    """Whether ``path`` is one of ``looked`` or inside one of them (a folder, walked whole)."""
    return any(path == p or path.startswith(p.rstrip("/") + "/") for p in looked)


def lost_in_background(conn, queued: set | None = None) -> list:
    """The rows of big files whose background job is lost: not done, and its worker dead; or, given ``queued``
    ((collection, path, token) of the jobs the queue holds, as a consumer starts and none of its workers runs
    yet), not done and not among them, whatever process its pid now names (after a reboot, perhaps another one)."""
    roots = {c["id"]: c["root"] for c in collection_reads.collections(conn)}
    return [r for r in work_reads.background(conn) if r["done"] < r["total"] and not working.failed(r) and (
        (r["collection"], r["path"], r["since"]) not in queued if queued is not None
        else r["pid"] is not None and not working.alive(r["pid"])
        and not (r["collection"] in roots and not_on_this_disk(roots[r["collection"]], r["path"])))]  # freed (a
    # placeholder, or cloud-only under its own name): a scan keeps its row (discover), and the periodic rescan
    # would scan every minute for nothing; once it is downloaded again it is lost like any other, and handed on


def _by_outcome(carried: dict[str, Outcome]) -> dict[Outcome, list[str]]:
    grouped: dict[Outcome, list[str]] = {}
    for path, outcome in carried.items():
        grouped.setdefault(outcome, []).append(path)
    return grouped


def _chunking() -> str:
    settings = runtime.settings()
    return chunking(settings.chunk_tokens, settings.chunk_overlap)


def _settings_print(model: str | None, path: str) -> str:
    """The fingerprint of the settings ``path``'s outcome depends on, for the generation's model."""
    return _settings_prints(model)(path)


def _settings_prints(model: str | None):
    """path → ``_settings_print(model, path)``, made once per set of parsers: a file's outcome holds only the
    versions of what parses its kind (ingest.parser_versions), so a new notebook parser reads no failed PDF."""
    settings, made = runtime.settings(), {}

    def of(path: str) -> str:
        parsing = parsers(path)
        if parsing not in made:
            made[parsing] = fingerprint(model, _chunking(), settings.max_file_chunks, parsing)
        return made[parsing]
    return of


def jobs(paths: list[str], sizes: dict[str, int], most: int):
    """``paths`` cut into the batches of one job each: at most ``most`` files (SIFT_FILES_PER_JOB) and at most
    JOB_BYTES of them, so small notes travel many to a job (each job costs a queue round trip and a few
    transactions, which dominated a small note's cost) while long notes and PDFs, whose parsing and embedding
    take time, go a few at a time; a file larger than JOB_BYTES goes alone. A file not found on disk (it
    will fail at parse, saying so) counts as a note of 4 KiB."""
    batch, held = [], 0
    for path in paths:
        size = sizes.get(path, 4096)
        if batch and (len(batch) >= most or held + size > JOB_BYTES):
            yield batch
            batch, held = [], 0
        batch.append(path)
        held += size
    if batch:
        yield batch


def _fault_pause_discover(what: str) -> None:
    """Fault injection for tests/test_crash.py: SIFT_FAULT_PAUSE_DISCOVER=seconds holds a scan after it has
    walked and hashed the files, before it records its plan (``what``: its generation; the collection for a
    scan that found nothing changed), so a test can kill the worker while it plans (without it, a scan of a few
    thousand files can plan before a kill lands). Unset: nothing.

    SIFT_FAULT_RELEASE_DISCOVER=path ends the pause once that file exists, and the scan removes it, so that each
    scan waits for a touch of its own: a test holds a scan for as long as it looks (a pause of seconds ran out
    on a busy machine before the test had looked) and lets it go when it is done."""
    pause = float(os.environ.get("SIFT_FAULT_PAUSE_DISCOVER") or 0)
    if pause > 0:
        print(f"SIFT_FAULT_PAUSE_DISCOVER: discover of {what} waits {pause:g} s before recording its plan",
              file=sys.stderr, flush=True)
        release, until = os.environ.get("SIFT_FAULT_RELEASE_DISCOVER"), time.monotonic() + pause
        while time.monotonic() < until and not (release and os.path.exists(release)):
            time.sleep(min(0.1, max(0.0, until - time.monotonic())))
        if release:
            with contextlib.suppress(FileNotFoundError):  # another worker's scan, let go by the same touch
                os.remove(release)


@stage(priority=10)
def parse(batch: Batch) -> None:
    """Read and parse the batch's files and send the parsed ones on. A file that fails for a transient
    cause (being written, say) is read again after a backoff, the rest of the batch already on its way."""
    conn, settings = runtime.index(), runtime.settings()
    root = collection_reads.get_collection(conn, batch.collection)["root"]
    paths, settings_print = list(batch.paths), _settings_prints(_model_of(conn, batch.gen))
    for this in retry.tries(retry.Policy(retries=settings.retries, delay=settings.retry_delay)):
        parsed, skipped, failed, again, lasting, as_indexed = [], {}, {}, {}, {}, {}
        for path in paths:
            seen = _stat(root, path)  # before reading: a change made while it is read shows at the next scan
            state, value, its_own = _read(root, path)
            if state == "parsed":
                parsed.append(value)
                continue
            if value == FREED and (kept := freed_passages.indexed_version(conn, batch.collection, path)) is not None:
                as_indexed[path] = kept  # its passages are in the index: embedded again from there
                continue
            {"skipped": skipped, "failed": failed, "again": again}[state][path] = value
            if its_own and seen is not None:  # the file's own doing: remembered until it changes
                lasting[path] = Basis(seen.st_size, seen.st_mtime, seen.st_ctime, settings_print(path))
        if again and this.last:
            failed.update({p: retry.Reason.of(f"{retry.describe(exc)} (tried {this.number} times)", exc)
                           for p, exc in again.items()})
            again = {}
        _record_trouble(batch, "parse", skipped, failed, lasting)
        if parsed or as_indexed:  # handed on first, then marked: a file marked done always has its next job queued
            done = [p.path for p in parsed] + list(as_indexed)
            then(chunk, Batch(batch.gen, batch.collection, done, parsed=parsed, urgent=batch.urgent,
                              as_indexed=as_indexed, started=getattr(batch, "started", None)))
            store.mark(conn, batch.gen, done, "parse", "done")
        if not again:
            break
        log.warning("generation %s: %d files to read again in %.1f s: %s", batch.gen, len(again), this.next_wait,
                    "; ".join(f"{p}: {retry.describe(e)}" for p, e in sorted(again.items())[:3]))
        paths = sorted(again)


# Why a note a sync client freed to a placeholder is not read again (for a new model or chunk size): it said 'file
# vanished before it could be read', of a note that is only in the cloud
FREED = ("not downloaded to this disk (a sync client's placeholder stands for it): read again once it is downloaded; "
         "its version indexed before answers meanwhile")


def _read(root, path: str) -> tuple[str, object, bool]:
    """('parsed', ParsedFile), ('skipped' or 'failed', reason) or ('again', the transient error), and whether
    the outcome is the file's own doing. It is not when a package is missing, the file vanished, a symlink
    above it is refused or the machine is out of something: an unchanged file may do better at the next scan."""
    try:
        from ingest.files import read_and_parse
        from ingest.unreadable import reading
        with reading(path):  # the sift.ingest log's lines about what is not read name the file
            return "parsed", read_and_parse(root, path, rules=_rules()), False
    except Skip as reason:
        return "skipped", str(reason), reason.lasting and _the_files_doing(reason)
    except FileNotFoundError:
        if not os.path.isdir(root):  # the whole folder: 1,481 files each 'vanished' said nothing of why
            return "failed", ROOT_GONE, False
        if not_downloaded(root, path):  # a note a sync client freed, read again for a new model or chunking
            return "failed", FREED, False
        return "failed", "file vanished before it could be read", False
    except PermissionError as exc:  # errno set: the OS refused (a chmod changes ctime); unset: safe_join's refusal
        return ("failed", NO_PERMISSION, True) if exc.errno else ("failed", str(exc), False)
    except Exception as exc:  # a bad file must not stop the batch
        if retry.is_transient(exc):
            return "again", exc, False
        return "failed", _failed(path, "reading", exc), _the_files_doing(exc)


def _failed(path: str, doing: str, exc: BaseException) -> str:
    """Why a file failed, in words its reader can act on (retry.describe), and what then; the error's class and
    where it was raised go to the worker's log, for a bug report."""
    log.warning("%s: %s it failed: %s: %s", path, doing, type(exc).__name__, exc,
                exc_info=not retry.is_refusal(exc))  # a reader's refusal says all; anything else (a bug): a trace
    said = retry.describe(exc)
    if _the_files_doing(exc) and "to index it" not in said and "report it" not in said:
        said += "; it is read again once it changes"  # remembered until then (search.index.remembered)
    return retry.Reason.of(said, exc)  # its class recorded beside it (stats --json), for a bug report


def _rules() -> Rules:
    """The worker's SIFT_INCLUDE and SIFT_EXCLUDE, as the scan applies them."""
    settings = runtime.settings()
    return rules_of(settings.include, settings.exclude)


def _the_files_doing(exc: BaseException) -> bool:
    """Whether a permanent failure comes from the file's content (a parser's ValueError, a decode error, a
    PDF's extraction out of time), not the machine: an OS error, no memory, a package missing, the index.
    Its causes count too: the PDF parser says 'unreadable PDF' of whatever pypdf raised, MemoryError included."""
    seen = set()
    while exc is not None and id(exc) not in seen:
        if isinstance(exc, (OSError, MemoryError, ImportError, sqlite3.Error, db.IndexUnavailable)):
            return False
        seen.add(id(exc))
        exc = exc.__cause__ or (None if exc.__suppress_context__ else exc.__context__)
    return True


def _stat(root, path: str) -> os.stat_result | None:
    """The file's stat as the scan's walk takes it (following a symlink), or None."""
    try:
        return os.stat(Path(root) / path)
    except (OSError, ValueError):
        return None


def _kept_model(conn, collection, model: str | None) -> str | None:
    """The model to build the collection with: this worker's, unless the collection was published with another
    that a worker still running embeds with. Two workers with different SIFT_MODELs on one home (two sift-mcp
    servers whose clients set it otherwise) re-embedded every file each time the other one took a scan."""
    from workers.app import models_at_work
    published = collection_reads.published_model(conn, collection["id"]) if collection["published"] is not None else None
    if model is None or published is None or published == model or published not in models_at_work(others=True):
        return model
    log.warning("collection %s: kept with the model %s, which another worker of this home embeds with, not "
                "re-embedded with this worker's %s: give every worker the same SIFT_MODEL (or stop the other)",
                collection["name"], published, model)
    return published


def _model_of(conn, gen_id: int) -> str | None:
    """The generation's model: every stage of it chunks and embeds with it."""
    gen = generation_reads.generation(conn, gen_id)
    return gen["model"] if gen is not None else runtime.model_id()


@stage(priority=20)
def chunk(batch: Batch) -> None:
    """Cut the parsed files into chunks counted with the generation's model (its tokenizer and passage
    prefix), and send on what its embedding cache lacks."""
    conn, settings = runtime.index(), runtime.settings()
    batch.model = _model_of(conn, batch.gen)
    limit, counter = _counting(batch.model, settings)
    overlap = min(settings.chunk_overlap, limit // 2)
    most = settings.max_file_chunks if batch.model else None  # a keyword-only index embeds nothing
    skipped, failed, embedding_texts, lasting = {}, {}, {}, {}
    settings_print = _settings_prints(batch.model)
    kept = _kept_cut(conn, batch, settings_print)
    for path, version in getattr(batch, "as_indexed", {}).items():  # a freed note: its passages as indexed
        batch.chunks[path] = freed_passages.stored_rows(conn, version, embedding_texts)
    for parsed in batch.parsed:
        if parsed.path in kept:  # a big file back from the background: cut as it was then, every vector cached
            batch.chunks[parsed.path] = kept[parsed.path]
            continue
        work = Work(conn, batch.gen, "chunk", [parsed.path], parsed.size)  # a big file: stats names it
        try:  # its rows too: hashing a text that UTF-8 cannot encode must fail this file, not the job
            date_sections(parsed.doc, parsed.path)  # a running log's '## 2024-03-14' sections: each its heading's date
            pieces = chunk_document(parsed.doc, _ticking(counter, work), limit, overlap, most)
            dated = document_date(parsed.path, parsed.doc)
            rows = [_chunk_row(i, piece, embedding_texts, dated) for i, piece in enumerate(pieces)]
        except TooManyChunks as over:  # hours of embedding would hold back every other file's publication
            skipped[parsed.path] = too_many_chunks(over)
            lasting[parsed.path] = Basis(parsed.size, parsed.mtime, parsed.ctime, settings_print(parsed.path))
            continue
        except Exception as exc:
            failed[parsed.path] = _failed(parsed.path, "cutting into passages", exc)
            if _the_files_doing(exc):
                lasting[parsed.path] = Basis(parsed.size, parsed.mtime, parsed.ctime, settings_print(parsed.path))
            continue
        finally:
            work.end()
        batch.chunks[parsed.path] = rows
    batch.parsed = [p for p in batch.parsed if p.path in batch.chunks]
    if batch.model:
        cached = vector_reads.cached_hashes(conn, batch.model, _all_hashes(batch))
        _plan_embedding(batch, cached, embedding_texts)
        _to_background(conn, batch, settings, cached, embedding_texts)
    _record_trouble(batch, "chunk", skipped, failed, lasting)
    counts = {p: (len(rows), None) for p, rows in batch.chunks.items()}
    if not batch.to_embed:
        then(write, batch)
    elif settings.embed_remote:  # an embedding machine does it; the vectors come back as ``embedded``
        from workers import remote
        remote.send(batch)
    else:
        then(embed, batch)
    store.mark(conn, batch.gen, list(batch.chunks), "chunk", "done", counts=counts)


def _kept_cut(conn, batch: Batch, settings_print) -> dict[str, list]:
    """The chunk rows of the batch's files that the build which handed them to the background kept
    (``_to_background``), for the same content and settings, and whose vectors are all cached: the build that
    publishes such a file takes them instead of cutting it again (its token counts: seconds for thousands of
    chunks, while the collection's later edits wait for this build)."""
    found, parsed = {}, {p.path: p for p in batch.parsed}
    for path, row in work_reads.cut(conn, batch.collection, list(parsed)).items():
        if (row["sha256"], row["settings"]) != (parsed[path].sha256, settings_print(path)) or not batch.model:
            continue
        rows = store.chunk_rows(row["chunks"])
        hashes = [r.text_hash for r in rows]
        if len(vector_reads.cached_hashes(conn, batch.model, hashes)) == len(set(hashes)):
            found[path] = rows
    return found


def _to_background(conn, batch: Batch, settings, cached: set[str], embedding_texts: dict[str, str]) -> None:
    """Hand the chunks to embed of each file of the batch with more than SIFT_BACKGROUND_CHUNKS of them to a job
    of its own (``embed_in_background``). Embedding a 4 MB note takes a quarter of an hour, and its build held back
    every later edit of the collection for as long: the generation now publishes the other files, and the big one
    with its passages but without the vectors it lacks, searchable by keyword at once (it was not searchable at
    all for those 15-20 min, nor its words, which take seconds to index); once its job is done, a build of its own
    writes it again, finding every vector cached. Not with SIFT_EMBED_REMOTE (this machine embeds nothing then),
    nor in a build with another model than the published generation's: that one would answer without vectors for
    every file."""
    most = settings.background_chunks
    big = [p for p in batch.parsed if most and batch.embedded.get(p.path, 0) > most]
    if not big or settings.embed_remote or (collection_reads.get_collection(conn, batch.collection)["published"] is not None
                                            and collection_reads.published_model(conn, batch.collection) != batch.model):
        return
    settings_print = _settings_prints(batch.model)
    for parsed in big:
        rows = batch.chunks[parsed.path]  # written by this build all the same: its words are searchable at once
        texts = {r.text_hash: embedding_texts[r.text_hash] for r in rows if r.text_hash not in cached}
        since = time.time()
        store.keep_cut(conn, batch.collection, parsed.path, parsed.sha256, settings_print(parsed.path), rows)
        store.begin_background(conn, batch.collection, parsed.path, Basis(parsed.size, parsed.mtime, parsed.ctime,
                               settings_print(parsed.path)), parsed.size, len(texts), since)
        embed_in_background(Background(batch.collection, parsed.path, batch.model, texts, since))
        log.info("generation %s: %s has %d chunks to embed: embedding them in the background; its passages are "
                 "written now, searchable by keyword", batch.gen, parsed.path, len(texts))
    batch.to_embed, batch.embedded = {}, {}
    _plan_embedding(batch, cached, embedding_texts, apart={p.path for p in big})


def _ticking(counter, work: Work):
    """``counter`` that tells ``work`` it is still going at every count (cheap until it has taken a while)."""
    def count_and_tick(text: str) -> int:
        work.tick()
        return counter(text)
    return count_and_tick


def _counting(model: str | None, settings) -> tuple[int, object]:
    """(the chunk size, the token counter) for a generation of ``model``: its tokenizer and token limit, or for
    a keyword-only one (no model) plain tokens, so that no model is loaded or built to cut text it never embeds."""
    if model is None:
        return settings.chunk_tokens, plain_count
    embedder = runtime.embedder(model)
    return min(settings.chunk_tokens, embedder.info.max_tokens), functools.partial(_count, embedder)


@stage(priority=30)
def embed(batch: Batch) -> None:
    embedder, settings = runtime.embedder(batch.model), runtime.settings()
    hashes = list(batch.to_embed)
    work = Work(runtime.index(), batch.gen, "embed", list(batch.chunks), sum(p.size for p in batch.parsed),
                total=len(hashes))  # a big file's quarter of an hour: stats says how far it has got
    try:
        for i in range(0, len(hashes), settings.embed_batch):
            if halt.stopping(i):  # Ctrl-C: the rest goes on at the next start, the vectors so far with the job
                batch.to_embed = {h: batch.to_embed[h] for h in hashes[i:]}
                then(embed, batch)
                log.info("generation %s: the worker is stopping: %d of the job's %d chunks embedded and kept; "
                         "the rest at its next start", batch.gen, i, len(hashes))
                return
            work.tick(i)
            part = hashes[i:i + settings.embed_batch]
            matrix = embedder.embed([batch.to_embed[h] for h in part], kind="passage")
            batch.vectors.update((h, row.tobytes()) for h, row in zip(part, matrix))
    finally:
        work.end()
    batch.to_embed = {}
    then(write, batch)
    store.mark(runtime.index(), batch.gen, list(batch.chunks), "embed", "done",
               counts={p: (None, n) for p, n in batch.embedded.items()})


@stage(priority=30)
def embed_in_background(job: Background) -> None:
    """Embed a big file's chunks into the vector cache, outside any generation, a slice at a time (each slice's
    vectors kept as it ends: a job killed and handed on again goes on from there); then scan the file again,
    whose build finds every vector cached. Stops when no longer wanted (``store.background_progress``)."""
    conn, settings = runtime.index(), runtime.settings()
    if not store.take_background(conn, job.collection, job.path, job.since, os.getpid()):
        log.info("%s: no longer embedded in the background (changed, read again, or its collection removed)",
                 job.path)
        return
    embedder, hashes = runtime.embedder(job.model), list(job.texts)  # a worker killed here: its row says its pid
    cached = vector_reads.cached_hashes(conn, job.model, hashes)  # once: in the comprehension, once per chunk
    todo = [h for h in hashes if h not in cached]
    done, pid = len(hashes) - len(todo), os.getpid()
    wanted = store.background_progress(conn, job.collection, job.path, job.since, done, pid)
    for i in range(0, len(todo), settings.embed_batch):
        if not wanted:
            break
        if halt.stopping(i):
            _pause_in_background(conn, job, done)
            return
        part = todo[i:i + settings.embed_batch]
        matrix = embedder.embed([job.texts[h] for h in part], kind="passage")
        done += len(part)
        wanted = store.background_progress(conn, job.collection, job.path, job.since, done, pid, job.model,
                                           {h: row.tobytes() for h, row in zip(part, matrix)})
    if not wanted:
        log.info("%s: no longer embedded in the background (changed, read again, or its collection removed)",
                 job.path)
        return
    log.info("%s: its %d chunks are embedded: scanning it again", job.path, len(hashes))
    scan(job.collection, conn, paths=[job.path])


def _pause_in_background(conn, job: Background, done: int) -> None:
    """The consumer is stopping (Ctrl-C): queue the job again, to go on from the vectors it kept at the next
    start, and leave its row to no worker, so that no rescan takes it as lost meanwhile. Ctrl-C waited for the
    whole file: 63 s for a 260-chunk PDF, a quarter of an hour for 10,000 chunks of e5."""
    if store.background_progress(conn, job.collection, job.path, job.since, done, None):
        embed_in_background(job)
        log.info("%s: the worker is stopping: %d chunks of %d embedded and kept; the rest at its next start",
                 job.path, done, len(job.texts))


@stage(priority=35)
def embedded(answer) -> None:
    """Vectors from an embedding machine (workers.embedder.Answer): write the batch they belong to, which
    waited in the ledger (workers.remote). An answer that comes twice is written once; a refusal (another
    model) fails the files with its reason and writes nothing."""
    from workers import remote
    batch = remote.waiting(answer.id)
    if batch is None:
        log.info("vectors of embed job %s came again (from %s): written already", answer.id, answer.worker)
        return
    missing = set(batch.to_embed) - set(answer.vectors)
    refused = answer.refused or (f"embedding machine {answer.worker} answered for the model {answer.model}, not "
                                 f"{batch.model}" if answer.model != batch.model else None)
    if answer.refused:
        refused += _home_model_file(batch.model)
    if refused is None and missing:
        refused = f"embedding machine {answer.worker} sent no vector for {count(len(missing), 'chunk')}"
    if refused is None:
        refused = _misshapen(answer, batch)
    if refused:  # with the class of the error the embedding machine met (an answer sent before it had none: None)
        refused = retry.Reason.of_name(refused, getattr(answer, "error", None) if answer.refused else None)
        _record_trouble(batch, "embed", {}, dict.fromkeys(progress_reads.not_past(runtime.index(), batch.gen,
                                                                        list(batch.chunks), "embed"), refused))
    else:
        batch.vectors.update((h, answer.vectors[h]) for h in batch.to_embed)
        batch.to_embed = {}
        then(write, batch)
        store.mark(runtime.index(), batch.gen, list(batch.chunks), "embed", "done",
                   counts={p: (None, n) for p, n in batch.embedded.items()})
    remote.forget(answer.id)
    remote.resend_overdue(runtime.settings().embed_timeout)


def _misshapen(answer, batch) -> str | None:
    """Why an answer's vectors cannot be written (not the model's size, or not finite numbers), or None. The model
    ids agreed, but a vector of another size written to the index made every semantic search of the collection
    fail as the vectors were read (NumPy could not shape them)."""
    import numpy as np

    from search.model.info import dimension_of
    size = 4 * (dimension_of(batch.model) or 0)
    for h in batch.to_embed:
        vector = answer.vectors[h]
        if (size and len(vector) != size) or len(vector) % 4:
            return (f"embedding machine {answer.worker} sent a vector of {len(vector):,} bytes for the model "
                    f"{batch.model}, whose vectors are {size:,} bytes ({size // 4} float32)")
        if not np.isfinite(np.frombuffer(vector, dtype=np.float32)).all():
            return f"embedding machine {answer.worker} sent a vector that is not all finite numbers (NaN or inf)"
    return None


def _home_model_file(model: str) -> str:
    """Where the home keeps the model an embedding machine lacks: the refusal said only "the home's" GGUF file,
    and the user had to find it (a known model lives under <home>/models, converted from a pip package)."""
    settings = runtime.settings()
    path, known, name = settings.model_path, settings.known_model, model.rsplit("-", 2)[0]  # id: name-384d-hash
    if not path.exists() or not ((known is not None and known.name == name) or name in path.stem):
        return ""  # the home has moved to another model since this generation began
    return f" (on the home: {path}; copy it to the embedding machine)"


@stage(priority=40)
def write(batch: Batch) -> None:
    conn = runtime.index()
    gen = generation_reads.generation(conn, batch.gen)
    if gen is not None and gen["state"] == "building" and gen["model"] != batch.model:
        log.info("generation %s now embeds with %s, not %s: its scan queued these %d files again", batch.gen,
                 gen["model"], batch.model, len(batch.paths))
        return
    items = [(_file_version(p), batch.chunks[p.path]) for p in batch.parsed if p.path in batch.chunks]
    store.write_files(conn, batch.gen, batch.collection, items, batch.model, batch.vectors, batch.embedded,
                      getattr(batch, "as_indexed", {}))
    publish_part(conn, batch.gen)


@stage(priority=50)
def publish(gen: int) -> bool:
    return publish_part(runtime.index(), gen)


NAMED = 3  # the files a job's log lines name, then how many more


def _what(name: str, args: tuple) -> str:
    """'embed of 2 files of generation 1 (alpha.md, beta.md)': a job as its log lines name it, with its files, so
    that the line of a failure (the one with the traceback) says which they were, at every stage (only parse's
    lines about a file named it)."""
    batch = args[0] if args and isinstance(args[0], Batch) else None
    if batch is None:
        return f"{name}{args!r}"
    named = ", ".join(batch.paths[:NAMED]) + (f" and {len(batch.paths) - NAMED:,} more" if len(batch.paths) > NAMED
                                              else "")
    return f"{name} of {count(len(batch.paths), 'file')} of generation {batch.gen} ({named})"


def _give_up(stage_name: str, args: tuple, exc: BaseException, tries: int) -> None:
    """A job failed for good: its files that have not reached their end fail with the reason."""
    reason = retry.Reason.of(f"{stage_name} failed: {retry.describe(exc)}" +
                             (f" (tried {tries} times)" if tries > 1 else ""), exc)
    if stage_name == "embedded" and args:
        _give_up_answer(args[0], reason, db.is_disk_full(exc))
        return
    if args and isinstance(args[0], Background):
        _fail_background(args[0], reason)
        return
    batch = args[0] if args and isinstance(args[0], Batch) else None
    if batch is None:
        return  # discover or publish: logged; the next scan tries again
    _record_failure(batch, stage_name, reason, db.is_disk_full(exc))


def _fail_background(job: Background, reason: str) -> None:
    """A big file's background job failed for good: its row says so (stats, search's freshness line, list_files),
    and a scan leaves the file failed as before until it changes or ``ingest retry-failed`` (``_in_background``).
    It was forgotten, and only the worker's log said why: the file read 'being embedded' until the next scan, which
    handed it on again, to fail again."""
    log.error("%s: embedding it in the background failed: %s", job.path, reason)
    store.fail_background(runtime.index(), job.collection, job.path, job.since, reason, retry.error_of(reason))


def _give_up_answer(answer, reason: str, disk_full: bool) -> None:
    """Vectors from an embedding machine that could not be written: fail the batch's files with the reason
    and forget the job, which would otherwise be sent again forever and hold its generation back. A ledger
    entry that cannot even be read back is forgotten too: recovery re-queues its files from the index."""
    from workers import remote
    try:
        batch = remote.waiting(answer.id)
    except Exception as exc:  # noqa: BLE001 - e.g. a ledger written by another version of Sift
        log.error("embed job %s cannot be read back (%s: %s): forgetting it", answer.id, type(exc).__name__, exc)
        batch = None
    if batch is not None:
        _record_failure(batch, "embed", reason, disk_full)
    remote.forget(answer.id)


def _record_failure(batch: Batch, stage_name: str, reason: str, disk_full: bool) -> None:
    """Mark failed the batch's files this job had not handed on. On a full disk the reserve is given up
    to make room for this; if there is still none, wait for space (up to RECORD_PATIENCE), since a file
    left in flight would hold its generation back."""
    settings = runtime.settings()
    if disk_full and space.release_reserve(settings.home):
        log.warning("disk full: released %s to record why files failed", settings.home / space.RESERVE_NAME)
    for this in retry.tries(RECORD_POLICY):
        try:
            conn = runtime.index()
            store.mark(conn, batch.gen, progress_reads.not_past(conn, batch.gen, batch.paths, stage_name), stage_name,
                       "failed", reason, error=retry.error_of(reason))
            break
        except Exception as exc:
            if not db.is_disk_full(exc) or this.last:
                log.error("could not record that %d files of generation %s failed: %s", len(batch.paths),
                          batch.gen, db.explain(exc, settings.index_path))
                return
            if this.number == 1:
                log.error("disk full: waiting for free space on %s to record that %d files failed",
                          settings.home, len(batch.paths))
    try:
        publish_part(runtime.index(), batch.gen)
    except Exception as exc:  # the next job or scan publishes it
        log.error("generation %s not published yet: %s", batch.gen, db.explain(exc, settings.index_path))


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


def _kept(folders: list[str], current: dict) -> list[FoundFile]:
    """The indexed files under folders that cannot be listed, as they were indexed: seen unchanged, so the
    scan neither deletes nor reads them (as a missing root keeps its files)."""
    if not folders:
        return []
    return [FoundFile(path, kind_of(path) or "text", row["size"], row["mtime"], row["ctime"])
            for path, row in current.items() if path.startswith(tuple(folders))]


def _not_downloaded(root: Path, current: dict, found: list[FoundFile]) -> list[FoundFile]:
    """The indexed files gone from disk that a sync client's placeholder stands for (ingest.discover.PLACEHOLDERS:
    iCloud's '.note.md.icloud' once it freed the space), as they were indexed: the note is in the person's vault,
    only not downloaded here, and a search found nothing of it (its removal was read as the note's deletion)."""
    there = {f.path for f in found}
    return [_as_indexed(path, row) for path, row in current.items() if path not in there and not_downloaded(root, path)]


def _moved_away(root: Path, current: dict, found: list[FoundFile], placeholders: list[str],
                rules: Rules, refused: dict[str, str]) -> dict[str, str]:
    """{new path: old path} of the indexed notes not downloaded here that were moved on another device (a folder
    renamed on the phone): a placeholder stands for a note the index does not hold, where an indexed note is gone
    with its own placeholder (ingest.freed_moves). The scan found a rename by reading the new file, not on disk:
    such a note left the index. Looked for only when an indexed file is gone and a placeholder stands for a new one.
    A cloud-only note under its own name (``refused`` as CLOUD_ONLY: macOS' File Provider, OneDrive) moved likewise
    left the index, skipped at its new path: it is paired as a placeholder's is, its stat's size and mtime (kept by
    a move) telling one moved alone."""
    there = {f.path for f in found}
    cloud = {path for path, why in refused.items() if why == CLOUD_ONLY and path not in current}
    standing = [note for note in map(placeholder_for, placeholders) if note and note not in current
                and note not in there and kind_of(note) and not rules.ignored(note, False) and rules.included(note)]
    standing += sorted(cloud)
    gone = [path for path in current if path not in there] if standing else []
    def stays(folder: str) -> bool:  # asked of a pair's old folder alone, where the paths share the name only
        return os.path.isdir(os.path.join(root, folder))
    def alike(new: str, old: str) -> bool:  # its placeholder, or its stat, says the indexed note's size: moved alone
        if new in cloud:
            with contextlib.suppress(OSError):
                info = os.stat(os.path.join(root, new))
                return (info.st_size, info.st_mtime) == (current[old]["size"], current[old]["mtime"])
            return False
        return freed_moves.recorded_size(str(root), new) == current[old]["size"]
    return freed_moves.moves(gone, standing, stays, alike) if gone else {}


def _cloud_only_kept(current: dict, refused: dict[str, str], downloading: bool = False) -> list[FoundFile]:
    """The indexed files a walk found cloud-only (ingest.discover.cloud_only: OneDrive's Files On-Demand, macOS'
    dataless files), taken out of ``refused`` and kept as they were indexed: read, each would have been downloaded.
    One the index holds no version of stays refused, skipped with its reason until it is downloaded. With
    ``downloading``, those a browser's download is being written over (ingest.discover.download_beside) instead."""
    kept = [path for path, why in refused.items() if path in current and (
        why.startswith(DOWNLOADING.partition("(")[0]) if downloading else why == CLOUD_ONLY)]
    for path in kept:
        del refused[path]
    return [_as_indexed(path, current[path]) for path in kept]


def _as_indexed(path: str, row) -> FoundFile:
    """The file ``path`` as the index holds it (``row``): seen unchanged, so the scan neither reads nor deletes it."""
    return FoundFile(path, kind_of(path) or "text", row["size"], row["mtime"], row["ctime"], row["attachment"])


def _printable(reasons: dict[str, str]) -> dict[str, str]:
    """The same paths, with names that are not valid UTF-8 shown as _storable shows them."""
    return {os.fsencode(p).decode("utf-8", "backslashreplace"): r for p, r in reasons.items()}


def _record_trouble(batch: Batch, stage: str, skipped: dict, failed: dict, lasting: dict | None = None) -> None:
    """Mark the files skipped or failed with their reasons; remember the outcomes of ``lasting`` (path → what
    it was decided on), the file's own doing, so that a scan finding the file unchanged does not redo it."""
    conn = runtime.index()
    for path, reason in skipped.items():
        store.mark(conn, batch.gen, [path], stage, "skipped", reason)
    for path, reason in failed.items():
        store.mark(conn, batch.gen, [path], stage, "failed", reason, error=retry.error_of(reason))
    for path, basis in (lasting or {}).items():
        state, reason = ("skipped", skipped[path]) if path in skipped else ("failed", failed[path])
        store.remember_outcome(conn, batch.gen, batch.collection, path, basis,
                               Outcome(stage, state, reason, retry.error_of(reason)))
    if skipped or failed:
        publish_part(conn, batch.gen)


def too_many_chunks(over: TooManyChunks) -> str:
    """Why a file of more than SIFT_MAX_FILE_CHUNKS chunks is skipped, with how many it would make and what
    embedding them would cost, estimated from the part of it cut before chunking stopped."""
    passages, tokens = (over.most + 1) / over.share, over.tokens / over.share
    said = f"{over.most + 1:,}" if over.share >= 1 else f"about {int(float(f'{passages:.2g}')):,}"
    minutes = tokens / (EMBED_TOKENS_PER_CORE * (os.cpu_count() or 1)) / 60
    took = "under a minute" if minutes < 1 else f"about {minutes:.0f} min" if minutes < 90 \
        else f"about {minutes / 60:.0f} h"
    # the file comes first, then why and what to change: '(about 4 min of embedding)' after the limit read as the
    # limit's cost, not as what embedding the file would have taken
    return (f"not embedded: the file would make {said} passages, over the limit of {over.most:,} per file "
            f"(embedding them would take {took}); raise SIFT_MAX_FILE_CHUNKS to index it")


_counts: dict[tuple[str, bytes], int] = {}  # (model id, digest of the text) → tokens, oldest first


def _count(embedder, text: str) -> int:
    """``embedder.count(text)``, remembered by the text's digest: the model's tokenizer was the largest
    single cost of chunking small notes, and the same sections come back (unchanged text in a changed file,
    copies, a model's whole collection re-chunked). Bounded: the oldest count is forgotten first."""
    key = (embedder.info.model_id, hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).digest())
    tokens = _counts.get(key)
    if tokens is None:
        tokens = embedder.count(text)
        if len(_counts) >= COUNTS_KEPT:
            del _counts[next(iter(_counts))]
        _counts[key] = tokens
    return tokens


def _chunk_row(ordinal: int, piece, embedding_texts: dict[str, str], dated: float | None = None) -> store.ChunkRow:
    """The chunk's row; its text hash keys the vector of what the model embeds (the chunk's text with its
    heading context, ``ingest.chunk``), which ``embedding_texts`` gets by that hash. Its date: its section's own
    (a mail message's), else ``dated``, its file's (ingest.passage_dates)."""
    embedded = piece.embedding_text
    digest = text_hash(embedded)
    embedding_texts[digest] = embedded
    return store.ChunkRow(ordinal=ordinal, heading_path=" > ".join(piece.heading_path), text=piece.text,
                          tokens=piece.tokens, text_hash=digest, start_line=piece.start_line,
                          end_line=piece.end_line, page=piece.page, end_page=piece.end_page,
                          page_starts=piece.page_starts or None,
                          dated=piece.dated if piece.dated is not None else dated,
                          tags=list(piece.tags) or None)


def _all_hashes(batch: Batch) -> list[str]:
    return [row.text_hash for rows in batch.chunks.values() for row in rows]


def _plan_embedding(batch: Batch, cached: set[str], embedding_texts: dict[str, str], apart=frozenset()) -> None:
    """What the batch embeds: its chunks' texts the cache lacks, but those of the files in ``apart``, which a job
    of their own embeds (written without those vectors meanwhile)."""
    for path, rows in batch.chunks.items():
        if path in apart:
            batch.embedded[path] = 0
            continue
        fresh = 0
        for row in rows:
            if row.text_hash not in cached and row.text_hash not in batch.to_embed:
                batch.to_embed[row.text_hash] = embedding_texts[row.text_hash]
                fresh += 1
        batch.embedded[path] = fresh


def _file_version(parsed: ParsedFile) -> store.FileVersion:
    return store.FileVersion(path=parsed.path, kind=parsed.kind, size=parsed.size, mtime=parsed.mtime,
                             sha256=parsed.sha256, title=parsed.doc.title, meta=parsed.doc.meta,
                             ctime=settled_ctime(parsed.ctime, parsed.read_at))
