"""Watch every collection root and queue a scan of the collection whose files changed.

    python -m workers.watch [--home DIR] [--queued-scan ID]

File-system events come from ``watchfiles`` (inotify, FSEvents, ReadDirectoryChangesW; polling
where none of them works). A burst of events is grouped until the folders have been quiet for
``QUIET_MS`` (at most ``MAX_MS``), mapped to collections and filtered: events inside ignored
folders (.git, node_modules ... and the exclude globs) and on files Sift does not index are
dropped, but for a file of a kind Sift does not read that comes or goes (stats counts them). Sift's own home, where it
lies in a root, is not watched at all (``watch_plan``). Each collection that
changed gets one ``discover`` of the paths that changed (it reads those alone, see ``Watcher.paths`` for when it
walks the whole collection instead), through ``rescan.request_scan``:
while that would duplicate work (jobs waiting, a generation of it being built) the collection
stays marked and is asked for again every ``TICK_MS``, so a burst makes one generation, not one
per event. Scans that ``discover`` put off because a build was under way are run the same way.

The collections table is re-read every ``REFRESH_SECONDS`` (a new collection is watched from
then on) and the roots are looked at every tick: a root that disappears, comes back or is
replaced by another folder gets a scan, which records or clears "root missing". At start every
collection is scanned once, to catch changes made while nothing watched, but those given with
``--queued-scan``: ``sift-mcp --root`` has just queued that scan itself, and a second one made a
second, empty generation at every start. Logs go to stderr.
"""
from __future__ import annotations

import argparse
import logging
import os
import sqlite3
import stat
import sys
import threading
import time
from pathlib import Path

from watchfiles import Change, watch

from ingest.discover import HOME_FILES, Rules, extension, kind_on_disk, own_entries, placeholder_for
from search.index import collection_reads, file_reads
from search.index.status import count
from search.settings import add_home_flag, use_flags
from workers import refusal

log = logging.getLogger("sift.watch")
# Test hook (tests/test_home_in_collection.py): SIFT_FAULT_WATCH_QUIET_MS=ms paces the three below from that quiet,
# not 1,000 ms, so a test that watches for scans that must not come watches as many bursts in a fraction of the time
QUIET_MS = int(os.environ.get("SIFT_FAULT_WATCH_QUIET_MS") or 1000)  # a burst ends after this much quiet ...
MAX_MS = 5 * QUIET_MS  # ... or after this long, whichever comes first
TICK_MS = QUIET_MS  # how often the loop wakes: to ask again for scans that had to wait, to check the roots
REFRESH_SECONDS = 10.0  # how often the collections table is re-read
QUEUE_LIMIT = Path("/proc/sys/fs/inotify/max_queued_events")  # Linux: the events one inotify instance holds unread


class Watcher:
    """Maps file events to collections and asks for one scan per changed collection."""

    def __init__(self, conn, rules: Rules, stop: threading.Event | None = None, queued: tuple[int, ...] = (),
                 walk_every: float = 600.0, storm: int | None = None):
        self.conn = conn
        self.queued = set(queued)  # collections whose start-up scan the caller has queued already
        self.rules = rules
        self.stop = stop or threading.Event()
        self.known: dict[int, str] = {}  # collection id → root, every registered collection
        self.names: dict[int, str] = {}  # collection id → name: what the log calls it (its id meant nothing to a user)
        self.present: dict[int, tuple[int, int]] = {}  # roots on disk: collection id → (device, inode)
        self.roots: dict[int, str] = {}  # the roots present on disk: what is watched
        self.changed: dict[int, set[str]] = {}  # paths noticed since the collection's last queued scan
        self.force_polling: bool | None = None  # None: watchfiles decides (WATCHFILES_FORCE_POLLING)
        self.next_read = 0.0  # when to re-read the collections table
        # a scan of the changed paths alone counts as the collection's last scan, which held back the periodic
        # rescan (the safety net for events missed) for as long as saves came: every ``walk_every`` seconds
        # (SIFT_RESCAN_MINUTES) the watcher's scan walks the whole collection instead
        self.walk_every = walk_every
        self.started = time.monotonic()
        self.walked: dict[int, float] = {}  # collection id → when the watcher last queued a walk of all of it
        # inotify drops events once its queue is full and says so with one event that watchfiles does not pass
        # on: a batch at least a quarter of that queue's size (each file makes two or three events) may have lost
        # some, anywhere under the watched roots, so every collection is walked
        self.storm = storm if storm is not None else storm_size()
        self.flat: set[str] = set()  # folders watched without what is below them: those above Sift's home
        self.deep: set[str] = set()  # the folders beside them, watched with all below (watch_plan)
        self.replan = False  # a folder came or went beside the home's way down: watch again (watch_plan)

    def run(self) -> None:
        self.refresh()
        if not self.roots:  # it said nothing at all: a watcher started before any enqueue looked stuck
            log.info("watching no folder yet: %s (ingest enqueue FOLDER registers one; it is watched within %.0f s)",
                     "none is registered" if not self.known else "no registered folder is on disk",
                     REFRESH_SECONDS)
        # catch up on what changed while unwatched (what the caller already queued a scan of, it does)
        self.changed = {cid: {"."} for cid in self.known if cid not in self.queued}
        while not self.stop.is_set():
            self.flush()
            if self.roots:
                self.watch_until_roots_change()
            else:
                self.stop.wait(TICK_MS / 1000)
                self.tick()

    def watch_until_roots_change(self) -> None:
        try:
            for batch in self.batches(*watch_plan(list(self.roots.values()), self.rules.home)):
                self.note(batch)
                self.flush()
                if self.tick() or self.replan:
                    return
        except (OSError, RuntimeError) as exc:  # e.g. out of inotify watches, a root removed at the start
            self.fall_back(exc)

    def batches(self, deep: list[str], flat: list[str]):
        """The batches of events of the folders ``deep`` (with all below them) and ``flat`` (alone), an empty one
        every tick. Two watches, asked in turn, where the home lies in a root: watchfiles' one ``recursive`` is
        for all the paths of a watch."""
        self.flat, self.deep, self.replan = set(flat), set(deep) if flat else set(), False
        options = dict(watch_filter=None, debounce=MAX_MS, step=QUIET_MS, yield_on_timeout=True,
                       stop_event=self.stop, force_polling=self.force_polling, poll_delay_ms=2000)
        if not flat:
            yield from watch(*deep, rust_timeout=TICK_MS, **options)
            return
        both = [watch(*paths, recursive=recursive, rust_timeout=TICK_MS // 2, **options)
                for paths, recursive in ((deep, True), (flat, False)) if paths]
        try:
            while True:
                batch = set()
                for events in both:
                    try:
                        batch |= next(events)
                    except StopIteration:  # stopped: what came before is still told
                        if batch:
                            yield batch
                        return
                yield batch
        finally:  # each watch's inotify instance (or poller thread) ends with it
            for events in both:
                events.close()

    def tick(self) -> bool:
        """Check the roots, and every REFRESH_SECONDS the collections; True when the watched roots changed."""
        reread = time.monotonic() >= self.next_read
        if reread:
            self.next_read = time.monotonic() + REFRESH_SECONDS
        return self.refresh(reread)

    def fall_back(self, exc: Exception) -> None:
        """The watch failed: a root came or went (watch the new set), or events are unavailable (poll)."""
        if self.refresh():
            return
        if not self.force_polling:
            log.warning("file-system events unavailable (%s): polling every 2 s instead", exc)
            self.force_polling = True
            return
        log.warning("watching failed (%s); trying again in %.0f s", exc, REFRESH_SECONDS)
        self.stop.wait(REFRESH_SECONDS)

    def refresh(self, reread: bool = True) -> bool:
        """Check the roots (and re-read the collections); True when the set of watched roots changed.

        A root that appeared, disappeared or was replaced (a new folder at the same path) gets a scan.
        """
        if reread:
            rows = collection_reads.collections(self.conn)
            self.known = {row["id"]: row["root"] for row in rows}
            self.names = {row["id"]: row["name"] for row in rows}
        present = {cid: ident for cid, ident in ((cid, _identity(root)) for cid, root in self.known.items()) if ident}
        if present == self.present:
            return False
        for cid in set(present) | set(self.present):
            if present.get(cid) != self.present.get(cid):
                self.changed.setdefault(cid, set()).add(".")
        self.present = present
        self.roots = {cid: self.known[cid] for cid in present}
        log.info("watching %d folder(s): %s", len(self.roots), ", ".join(sorted(self.roots.values())) or "none")
        return True

    def note(self, batch) -> None:
        """Record the relevant changes of one batch, per collection."""
        touched = set()
        # polled changes are not sure to name every path (a file changed twice within a poll, one replaced
        # between two): each collection with one is walked whole, as is every collection at start
        sure = not self.force_polling
        if sure and len(batch) >= self.storm:
            log.info("a burst of %d file events: the system's event queue may have overflowed and lost some; "
                     "walking every watched folder", len(batch))
            for cid in self.roots:
                self.changed.setdefault(cid, set()).add(".")
        for change, path in batch:
            if self.flat and ((change == Change.added and os.path.dirname(path) in self.flat and os.path.isdir(path))
                              or (change == Change.deleted and path in self.deep)):
                self.replan = True  # a folder beside the home's way down: watched with what is in it from now on
            for cid, root in self.roots.items():
                rel = _relative(path, root)
                if rel is not None and _rules_file(rel) and not self.in_ignored_folder(root, rel):
                    self.changed.setdefault(cid, set()).add(".")  # what it leaves out anywhere below: walk all
                    touched.add(cid)
                    continue
                for one in _with_placeholders_note(rel):
                    if self.relevant(cid, root, change, one):
                        self.changed.setdefault(cid, set()).add(one if sure else ".")
                        touched.add(cid)
        for cid in touched:
            _quietly(self.note_changes, cid)

    def note_changes(self, cid: int) -> None:
        from search.index import freshness
        freshness.note_changes(self.conn, cid, len(self.changed[cid] - {"."}))

    def relevant(self, cid: int, root: str, change: Change, rel: str) -> bool:
        """Could this event change what the collection's index holds?"""
        if rel == ".":
            return True
        if self.in_ignored_folder(root, rel):
            return False
        if kind_on_disk(Path(root) / rel, rel) is not None:  # a script without an extension: by its shebang
            return self.rules.included(rel) and not self.rules.left_out(root, rel, False)
        if os.path.isdir(os.path.join(root, rel)):  # a folder made, or moved in
            return not self.rules.left_out(root, rel, True)
        if change == Change.deleted:  # a file or folder deleted or moved out that the index holds, whatever its
            # name (a script without an extension was indexed by its shebang, unreadable once it is gone), or one
            # of a kind Sift does not read, while the last scan counted such files
            return file_reads.indexed_file(self.conn, cid, rel) or file_reads.indexed_under(self.conn, cid, rel) or \
                (self.counts_as_unread(root, rel) and file_reads.unread_counts(self.conn, cid).get(extension(rel), 0) > 0)
        path = os.path.join(root, rel)
        return change == Change.added and os.path.isfile(path) and not os.path.islink(path) and \
            self.counts_as_unread(root, rel)

    def in_ignored_folder(self, root: str, rel: str) -> bool:
        parts = rel.split("/")
        return any(self.rules.left_out(root, "/".join(parts[:i]), True) for i in range(1, len(parts)))

    def counts_as_unread(self, root: str, rel: str) -> bool:
        """A file a scan would count among those of kinds Sift does not read (stats names them; as
        ingest.discover counts them: neither hidden nor left out by the rules); its coming or going changes
        that count, which stats showed unchanged until the periodic rescan."""
        return not rel.rsplit("/", 1)[-1].startswith(".") and self.rules.included(rel) and \
            not self.rules.left_out(root, rel, False)

    def flush(self) -> None:
        """Ask for a scan of each changed collection (and each with a scan requested while it was
        being built); those refused stay marked for the next tick."""
        from search.index import freshness
        from workers import rescan
        requested = set(_quietly(freshness.requested, self.conn) or ())
        for cid in sorted(set(self.changed) | requested):
            if cid not in self.known:
                self.changed.pop(cid, None)
                continue
            if cid in requested:  # a scan put off (its paths unknown: it may have been a walk): walk
                self.changed.setdefault(cid, set()).add(".")
            paths = self.paths(cid)
            if _quietly(rescan.request_scan, cid, self.conn, paths):
                log.info("queued a scan of collection %s (%s)", self.names.get(cid, cid),
                         scan_text(len(self.changed.pop(cid, set()) - {"."}), paths is not None))
                if paths is None:
                    self.walked[cid] = time.monotonic()

    def paths(self, cid: int) -> list[str] | None:
        """What the collection's scan is to read: the paths the watcher saw change, or None (the whole collection)
        when it cannot be sure that they are all: at start, for a root that came, went or was replaced, under
        polling, for a .gitignore changed, and for a scan that ``discover`` put off (freshness.requested)."""
        changed = self.changed.get(cid)
        if time.monotonic() - self.walked.get(cid, self.started) >= self.walk_every:
            return None  # the periodic walk is due: see walk_every
        return sorted(changed) if changed and "." not in changed else None


def watch_plan(roots: list[str], home: str | None) -> tuple[list[str], list[str]]:
    """(the folders to watch with all below them, those to watch alone) so that Sift's home is not watched: each
    write of its index and queue woke the watcher with events it then dropped (and counted them towards an
    overflow of the kernel's queue). A root the home lies in is watched alone, as is every folder on the way down
    to the home, and each other folder in them with all below it; a root that is the home itself is watched alone
    and its folders, but Sift's (models/, cache/), with all below them (its index.db-wal is in the root: those
    events are still dropped one by one)."""
    deep: list[str] = []
    flat: list[str] = []
    for root in roots:
        entries = own_entries(root, home)
        if len(entries) != 1 or entries == ("",):  # none of the home is here, or the root is the home itself
            if not entries or entries == ("",):
                deep.append(root)
                continue
            flat.append(root)
            deep += _folders(root, set(HOME_FILES))
            continue
        folder, parts = root, entries[0].split("/")
        for part in parts:  # the folders on the way down to the home, and what lies beside it
            flat.append(folder)
            deep += _folders(folder, {part})
            folder = os.path.join(folder, part)
    return deep, flat


def _folders(folder: str, but: set[str]) -> list[str]:
    """The folders in ``folder`` but those named in ``but``."""
    try:
        with os.scandir(folder) as entries:
            return sorted(entry.path for entry in entries if entry.name not in but and _is_folder(entry))
    except OSError:
        return []


def _is_folder(entry: os.DirEntry) -> bool:
    try:
        return entry.is_dir()
    except OSError:
        return False


def storm_size() -> int:
    """How many events in one batch mean the kernel's queue may have overflowed: a quarter of inotify's
    ``max_queued_events`` (16,384 by default: 4,096), or 4,096 where that cannot be read (not Linux)."""
    try:
        return max(1, int(QUEUE_LIMIT.read_text()) // 4)
    except (OSError, ValueError):
        return 4096


def _rules_file(rel: str) -> bool:
    """A .gitignore: its change can add or leave out files anywhere below its folder."""
    return rel.rsplit("/", 1)[-1] == ".gitignore"


def _identity(root: str) -> tuple[int, int] | None:
    """(device, inode) of the folder at ``root``; None when there is none."""
    try:
        st = os.stat(root)
    except OSError:
        return None
    return (st.st_dev, st.st_ino) if stat.S_ISDIR(st.st_mode) else None


def _with_placeholders_note(rel: str | None) -> list[str]:
    """``rel``, and for a sync client's placeholder ('.note.md.icloud') the note it stands for, whose scan keeps or
    deletes it: a placeholder is never indexed, so its event was dropped, and a note deleted on the phone (iCloud
    removes its placeholder here) stayed searchable until the periodic rescan. ``rel`` itself stays: it may be a
    folder so named."""
    if rel is None:
        return []
    note = placeholder_for(rel)
    return [rel] if note is None else [rel, note]


def _relative(path: str, root: str) -> str | None:
    """``path`` relative to ``root`` with '/' separators ('.' for the root itself); None if outside."""
    if path == root:
        return "."
    prefix = root.rstrip(os.sep) + os.sep
    if not path.startswith(prefix):
        return None
    return path[len(prefix):].replace(os.sep, "/")


def scan_text(changed: int, alone: bool) -> str:
    """What the watcher's scan reads, for its log: '3 changed paths, read alone', '3 changed paths, its whole
    folder walked', 'its whole folder' (at start, for what changed while nobody watched: '0 changed paths')."""
    if alone:
        return f"{count(changed, 'changed path')}, read alone"
    return f"{count(changed, 'changed path')}, its whole folder walked" if changed else "its whole folder"


def _quietly(func, *args):
    """Run a small index or queue operation; a busy database, a queue that cannot be used until someone
    replaces it, or the queue's Redis out of reach (SIFT_QUEUE: the watcher ended with redis's traceback, and was
    started again to end the same way every minute) is logged and tried again later, the same failure logged once
    until it changes; a collection removed meanwhile (``ingest remove``) is dropped at the next re-read of the
    collections."""
    from workers.queues import QueueUnavailable, redis_unusable
    try:
        done = func(*args)
    except (sqlite3.Error, QueueUnavailable, LookupError) as exc:
        _warn_once(func.__name__, str(exc))
        return None
    except Exception as exc:
        said = redis_unusable(exc, os.environ.get("SIFT_QUEUE", ""))
        if said is None:
            raise
        _warn_once(func.__name__, said)
        return None
    _warned.pop(func.__name__, None)
    return done


_warned: dict[str, str] = {}  # an operation → its failure logged last: the loop meets it again every tick


def _warn_once(name: str, why: str) -> None:
    if _warned.get(name) != why:
        _warned[name] = why
        log.warning("%s failed, will try again: %s", name, why)


def run(stop: threading.Event | None = None, queued: tuple[int, ...] = ()) -> None:
    """Watch every collection of the index in SIFT_HOME until ``stop`` is set (or the process ends); those in
    ``queued`` have a scan queued already and are not scanned at start."""
    from search.index import db
    from search.settings import load
    settings = load()
    conn = db.connect(settings.index_path)
    refusal.ready()
    Watcher(conn, Rules(settings.include, settings.exclude), stop, queued, settings.rescan_minutes * 60).run()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m workers.watch", description="Queue a scan of a collection "
                                     "whenever its files change (needs a running worker to do the scans).")
    add_home_flag(parser)
    parser.add_argument("--queued-scan", type=int, action="append", default=[], metavar="ID",
                        help="a collection whose scan the caller has just queued: not scanned again at start")
    args = parser.parse_args(argv)
    use_flags(args)
    logging.basicConfig(level=logging.INFO, stream=sys.stderr, format="%(asctime)s %(name)s %(message)s")
    from search.index.db import IndexUnavailable
    from search.settings import load
    try:
        load()  # a bad setting: one line here, not the traceback of importing the queue
    except ValueError as exc:
        refusal.refuse(f"sift watcher: error: {exc}")
        return 2
    try:
        run(queued=tuple(args.queued_scan))
    except KeyboardInterrupt:
        return 130
    except IndexUnavailable as exc:  # read-only or damaged: one line naming the path and the fix
        refusal.refuse(f"sift watcher: error: {exc}")
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())

