"""Notes a sync client freed to placeholders and moved on another device (a folder renamed on the phone).

A freed note is not on this disk: its placeholder ('.note.md.icloud') stands for it, and the scan keeps its indexed
version at its path (workers.tasks). When the note is moved elsewhere, its placeholder moves with it: the old path has
neither note nor placeholder, and a placeholder stands at the new path for a note the index does not hold. A scan
finds a rename by reading the new file, which is not here, so the note left the index (3 freed notes of 40 in a
folder renamed in bench/synced_folder.py) until it was downloaded. ``moves`` pairs them: same file name, the pair
sharing the longest tail of folders where several notes share a name (a folder renamed moves its notes together).
A pair whose paths share the file name alone is made only where the old note's folder is gone too (renamed or moved
on the phone): a note deleted on the phone while another of its name came freed elsewhere was taken for moved, its
passages shown at the other's path. A note moved alone between two folders that stay ('Inbox/todo.md' filed into
'Projects/' on the phone) is followed where its placeholder says the note's size and that is the indexed version's
(iCloud's '.icloud' is a property list naming it: ``recorded_size``): it left search until downloaded, and was read
and embedded again then. Nextcloud's and ownCloud's placeholders say nothing of the note: not followed there.
"""
from __future__ import annotations

import os
import plistlib
from collections import defaultdict
from pathlib import Path
from typing import Callable

from ingest.discover import _read_small, placeholders_of

PLACEHOLDER_BYTES = 64 * 1024  # of a placeholder, read for the size it records (iCloud's are a few hundred bytes)


def moves(gone: list[str], standing: list[str], stays: Callable[[str], bool] = lambda folder: False,
          alike: Callable[[str, str], bool] = lambda new, old: False) -> dict[str, str]:
    """{new path: old path} of the freed notes moved: ``gone``, indexed notes with neither file nor placeholder at
    their paths; ``standing``, the notes that placeholders stand for, the index holding none of them. Each note is
    paired with one of the same file name; of several, by the most folders their paths end in alike, and not at all
    where that leaves two equally likely (a note deleted and another of its name freed elsewhere are no move), nor
    by the file name alone where ``stays`` says the old note's folder is still there (relative, '' the root) unless
    ``alike(new, old)`` says the placeholder at ``new`` stands for a note of the old one's size."""
    by_name: dict[str, list[str]] = defaultdict(list)
    for path in gone:
        by_name[_name(path)].append(path)
    # the placeholders grouped by name once: each note compared with every other placeholder took 236 s a scan of a
    # vault of 20,000 notes freed before they were indexed, one indexed note deleted
    standing_by_name: dict[str, list[str]] = defaultdict(list)
    for path in standing:
        standing_by_name[_name(path)].append(path)
    found: dict[str, str] = {}
    taken: set[str] = set()
    for new in sorted(standing):
        olds = [old for old in by_name.get(_name(new), ()) if old not in taken]
        others = [n for n in standing_by_name[_name(new)] if n != new] if olds else []
        best = _best(new, olds, others)
        if best is not None and _shared_tail(new, best) < 2 and stays(best.rpartition("/")[0]) \
                and not alike(new, best):
            best = None  # its folder is there: the note was deleted, or moved alone, and nothing says this is it
        if best is not None:
            found[new] = best
            taken.add(best)
    return found


def _best(new: str, olds: list[str], others: list[str]) -> str | None:
    """The one of ``olds`` that ``new`` is, by their shared tail of folders, unless another of ``olds`` shares as
    long a one, or ``old`` shares a longer one with another new path of the name (``others``)."""
    if not olds:
        return None
    ranked = sorted(olds, key=lambda old: -_shared_tail(new, old))
    best = ranked[0]
    if len(ranked) > 1 and _shared_tail(new, ranked[1]) == _shared_tail(new, best):
        return None
    if any(_shared_tail(other, best) >= _shared_tail(new, best) for other in others):
        return None
    return best


def _name(path: str) -> str:
    return path.rpartition("/")[2]


def _shared_tail(a: str, b: str) -> int:
    """How many parts, from the file name up, the paths ``a`` and ``b`` have alike."""
    n = 0
    for x, y in zip(reversed(a.split("/")), reversed(b.split("/"))):
        if x != y:
            break
        n += 1
    return n


def recorded_size(root: str, note: str) -> int | None:
    """The size of the note ``note`` (relative to ``root``) that its placeholder records, or None: iCloud's
    '.note.md.icloud' is a property list of the note's name and size (NSURLNameKey, NSURLFileSizeKey); a placeholder
    of another client, or one that is not such a list, records none."""
    for placeholder in placeholders_of(note):
        if not placeholder.endswith(".icloud"):
            continue
        path = os.path.join(root, placeholder)
        if os.path.islink(path):  # iCloud writes a file: a link may lead out of the collection's folder
            continue
        try:  # a regular file alone, opened without blocking (a named pipe blocked the scan)
            listed = plistlib.loads(_read_small(Path(path), PLACEHOLDER_BYTES) or b"")
        except (OSError, ValueError, plistlib.InvalidFileException, OverflowError):  # a bad list: no size told
            continue
        size = listed.get("NSURLFileSizeKey") if isinstance(listed, dict) else None
        if isinstance(size, int) and not isinstance(size, bool) and size >= 0:
            return size
    return None
