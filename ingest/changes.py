"""What changed in a collection since the index last saw it.

Files are compared by size and mtime first; only when those differ is the
content hashed. A deleted file whose content reappears under a new path is a
rename: it still goes down the pipeline (its chunks keep their paths), but the
embedding cache means nothing is embedded again.
"""
from __future__ import annotations

import errno
import hashlib
import os
import stat
from dataclasses import dataclass, field
from pathlib import Path

from ingest.discover import FoundFile


@dataclass
class Known:
    size: int
    mtime: float
    sha256: str
    attachment: str | None = None  # of a note: the same-stem PDF it was parsed with (ingest.links)


@dataclass
class Plan:
    changes: dict[str, str] = field(default_factory=dict)  # path → added/changed/renamed/deleted
    touched: dict[str, tuple[int, float]] = field(default_factory=dict)  # same content, new stat
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


def plan_changes(root: Path, found: list[FoundFile], known: dict[str, Known],
                 everything: bool = False) -> Plan:
    """Compare the files on disk with the index's current versions.

    ``everything`` sends every file down the pipeline (the model changed).
    """
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
        elif old.size != file.size or old.mtime != file.mtime:
            digest = _hash_or_empty(root / file.path)
            if digest == old.sha256:
                plan.touched[file.path] = (file.size, file.mtime)
            else:
                plan.changes[file.path] = "changed"
    deleted = {path: k.sha256 for path, k in known.items() if path not in present}
    for path in deleted:
        plan.changes[path] = "deleted"
    by_hash = {sha: path for path, sha in deleted.items()}
    for path, sha in new_hashes.items():
        if sha in by_hash:
            plan.changes[path] = "renamed"
            plan.renamed_from[path] = by_hash[sha]
    return plan


def _hash_or_empty(path: Path) -> str:
    try:
        return sha256_file(path)
    except OSError:
        return ""  # vanished or unreadable: parse will record why
