"""The mark search and similar put on a hit of a file not downloaded on this machine: a note a sync client freed to
a placeholder (iCloud's '.note.md.icloud'), or keeps in the cloud under its own name (OneDrive's Files On-Demand).
The index keeps its version, and a hit of it read as any note's, until read_file said it was not on the disk."""
from __future__ import annotations

from ingest.discover import away


def mark(hits: list[dict], roots: dict[str, str]) -> None:
    """Set ``not_downloaded`` on each hit (as render.hit_data makes them) whose file is not downloaded on this
    machine (ingest.discover.away): one look on disk per file."""
    looked: dict[str, bool] = {}
    for hit in hits:
        if hit["path"] not in looked:
            root = roots.get(hit["collection"])
            looked[hit["path"]] = root is not None and away(root, hit["relative_path"])
        if looked[hit["path"]]:
            hit["not_downloaded"] = True
