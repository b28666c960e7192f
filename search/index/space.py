"""Disk space for the index: how much is free, and a small reserve for saying why ingestion stopped.

When the disk holding ``<home>`` fills up, every write fails, including the one that would record
why files failed. So the worker keeps a reserve file (``<home>/space-reserve``, 2 MiB) while there is
room, and deletes it when the disk is full, just before it records the failures; it is made again once
there is room. ``ingest stats`` and the MCP ``stats`` tool also look at the free space themselves.
"""
from __future__ import annotations

import os
from pathlib import Path

RESERVE_NAME = "space-reserve"
RESERVE_BYTES = 2 * 1024 * 1024
LOW_BYTES = 1024 * 1024  # below this, stats say the disk is full


def free_bytes(folder: Path | str) -> int | None:
    """Bytes an unprivileged process may still write on the file system holding ``folder``."""
    try:
        info = os.statvfs(folder)
    except OSError:
        return None
    return info.f_bavail * info.f_frsize


def low_space_line(home: Path | str) -> str | None:
    """'disk full: …' when the disk holding the index has (almost) no room left; None otherwise."""
    free = free_bytes(home)
    if free is None or free >= LOW_BYTES:
        return None
    return (f"disk full: {free // 1024} KiB free on the disk holding {home}; ingestion fails until space is "
            "freed (then run `ingest retry-failed`). Searches still answer from the last published generation")


def keep_reserve(home: Path | str) -> bool:
    """Make the reserve if it is missing and there is plenty of room; True if it is there."""
    path = Path(home) / RESERVE_NAME
    if path.exists():
        return True
    free = free_bytes(home)
    if free is None or free < 4 * RESERVE_BYTES:
        return False
    temp = path.with_name(f".{RESERVE_NAME}.{os.getpid()}")
    try:
        with open(temp, "wb") as handle:
            handle.write(b"\0" * RESERVE_BYTES)  # real blocks, not a sparse file
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temp, path)
        return True
    except OSError:
        temp.unlink(missing_ok=True)
        return False


def release_reserve(home: Path | str) -> bool:
    """Delete the reserve to make room; True if there was one."""
    try:
        (Path(home) / RESERVE_NAME).unlink()
        return True
    except FileNotFoundError:
        return False


def sqlite_temp_folder() -> Path:
    """Where SQLite writes its temporary files (a VACUUM's copy of the database): the first writable folder of
    SQLITE_TMPDIR, TMPDIR, /var/tmp, /usr/tmp, /tmp and the working folder, as its unix layer chooses."""
    for folder in (os.environ.get("SQLITE_TMPDIR"), os.environ.get("TMPDIR"), "/var/tmp", "/usr/tmp", "/tmp", "."):
        if folder and os.path.isdir(folder) and os.access(folder, os.W_OK | os.X_OK):
            return Path(folder)
    return Path(".")


def compact_shortfall(home: Path | str, in_use: int) -> str | None:
    """Why a VACUUM of an index with ``in_use`` bytes of pages cannot fit, or None when it can. It writes them
    twice: a temporary copy (in sqlite_temp_folder) and the index's WAL (beside it), both on one disk when the
    temporary folder is on the home's. Started without the room, it ran until the disk filled (SQLite rolled it
    back)."""
    from search.index.status import size
    margin = RESERVE_BYTES
    temp = sqlite_temp_folder()
    places = [(Path(home), in_use + margin, "the index's WAL")]
    try:
        shared = os.stat(temp).st_dev == os.stat(home).st_dev
    except OSError:
        shared = False
    if shared:
        places = [(Path(home), 2 * in_use + margin, f"the index's WAL and SQLite's temporary copy in {temp}")]
    else:
        places.append((temp, in_use + margin, "SQLite's temporary copy"))
    for folder, need, what in places:
        free = free_bytes(folder)
        if free is not None and free < need:
            return (f"compacting needs about {size(need)} free on the disk holding {folder} (the {size(in_use)} the "
                    f"index uses, written to {what}); it has {size(free)}: free some space"
                    + ("" if shared or folder != temp else ", or point SQLITE_TMPDIR at a folder on a disk with room")
                    + ", then run `ingest compact` again. Nothing was changed")
    return None
