"""What changed in a collection since the index last saw it.

Files are compared by size, mtime and ctime first; only when one of those differs is the
content hashed. The ctime catches what size and mtime miss: an edit of the same length whose mtime was set back
(``cp -p``, ``rsync -t``, sync tools) and a file replaced by one of the same size and mtime (a ctime cannot be
set back). A ctime so recent that another write in the same clock tick could follow unseen (RACY_SECONDS) is not
kept: such a file is hashed again at the next scan, until its ctime is older.

A deleted file whose content reappears under a new path is a rename: it still goes down the pipeline (its chunks
keep their paths), but the embedding cache means nothing is embedded again.
"""
from __future__ import annotations

import errno
import hashlib
import os
import stat
import time
from dataclasses import dataclass, field
from pathlib import Path

from ingest.discover import FoundFile


@dataclass
class Known:
    size: int
    mtime: float
    sha256: str
    attachment: str | None = None  # of a note: the same-stem PDF it was parsed with (ingest.links)
    ctime: float | None = None  # None: not known or too recent to trust (see settled_ctime): hash at the next scan


@dataclass
class Plan:
    changes: dict[str, str] = field(default_factory=dict)  # path → added/changed/renamed/deleted
    touched: dict[str, tuple[int, float, float | None]] = field(default_factory=dict)  # same content, new stat
    settled: dict[str, float | None] = field(default_factory=dict)  # same content, size and mtime; a new ctime
    renamed_from: dict[str, str] = field(default_factory=dict)  # new path → old path
    seen: int = 0

    @property
    def to_parse(self) -> list[str]:
        return sorted(p for p, c in self.changes.items() if c != "deleted")


def sha256_file(path: Path) -> str:
    """The file's SHA-256. Opened without blocking and refused unless it is a regular file: a file swapped
    for a named pipe after the walk would block the scan until some process wrote to it."""
    digest = hashlib.sha256()
    with open(os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0)), "rb") as handle:
        if not stat.S_ISREG(os.fstat(handle.fileno()).st_mode):
            raise OSError(errno.EINVAL, "not a regular file", str(path))
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


# Seconds within which a file's ctime is too recent to be kept: a second write of the same length in the same
# timestamp tick leaves size, mtime and ctime as they were. The kernel's clock ticks in milliseconds, FAT's mtime
# in 2 s; a network file system's server may run a little ahead.
RACY_SECONDS = 3.0


def settled_ctime(ctime: float | None, now: float) -> float | None:
    """The ctime to keep for a version of a file read (or hashed) at ``now``: None while it is so recent that a
    write in the same tick could still follow unseen, so that the next scan hashes the file again."""
    return ctime if ctime is not None and 0 < ctime < now - RACY_SECONDS else None


def plan_changes(root: Path, found: list[FoundFile], known: dict[str, Known],
                 everything: bool = False, now: float | None = None) -> Plan:
    """Compare the files on disk with the index's current versions.

    ``everything`` sends every file down the pipeline (the model changed). ``now``: when the walk began.
    """
    now = time.time() if now is None else now
    plan = Plan(seen=len(found))
    new_hashes: dict[str, str] = {}
    present = {f.path for f in found}
    # a new file is hashed only to find the deleted file it was renamed from: none deleted, none to read
    renames_possible = any(path not in present for path in known)
    for file in found:
        old = known.get(file.path)
        if old is None:
            plan.changes[file.path] = "added"
            if renames_possible:
                new_hashes[file.path] = _hash_or_empty(root / file.path)
        elif everything or bool(old.attachment) != bool(file.attachment):  # a PDF beside the note came or went
            plan.changes[file.path] = "changed"
        elif old.size != file.size or old.mtime != file.mtime or old.ctime != file.ctime:
            digest = _hash_or_empty(root / file.path)
            if digest != old.sha256:
                plan.changes[file.path] = "changed"
            elif old.size != file.size or old.mtime != file.mtime:
                plan.touched[file.path] = (file.size, file.mtime, settled_ctime(file.ctime, now))
            elif settled_ctime(file.ctime, now) != old.ctime:
                plan.settled[file.path] = settled_ctime(file.ctime, now)
    deleted = {path: k.sha256 for path, k in known.items() if path not in present}
    for path in deleted:
        plan.changes[path] = "deleted"
    by_hash = {sha: path for path, sha in deleted.items()}
    for path, sha in new_hashes.items():
        if sha in by_hash:
            plan.changes[path] = "renamed"
            plan.renamed_from[path] = by_hash[sha]
    if not everything:  # a page of Telegram's HTML export says whether a day goes on into the page beside it
        from ingest.chat import pages_to_mark_again
        unchanged = {path for path in present if path not in plan.changes}
        plan.changes.update(dict.fromkeys(pages_to_mark_again(root, list(plan.changes), unchanged), "changed"))
    return plan


def _hash_or_empty(path: Path) -> str:
    try:
        return sha256_file(path)
    except OSError:
        return ""  # vanished or unreadable: parse will record why
