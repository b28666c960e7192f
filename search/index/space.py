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
