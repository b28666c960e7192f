"""Sync conflict copies: the second file a sync tool writes when a note was changed on two machines at once.

Dropbox writes ``note (conflicted copy 2024-03-01).md`` (``note (Ann's conflicted copy 2024-03-01).md``),
Nextcloud and Obsidian ``note (conflicted copy 2024-03-01 123456).md``, ownCloud ``note_conflict-20240301-123456.md``,
Syncthing ``note.sync-conflict-20240301-123456-ABCDEFG.md``, Google Drive and a browser's second download
``note (1).md``. Such a copy is a file of its own (listed, searchable, read), but it holds nearly the note's text: a
search gave each passage twice, at the same score, the copy taking a place of the page from another note.
``fold`` keeps the original's hits and names the copy on them; a copy whose original has no hit is shown as
itself, named as the copy it is.
"""
from __future__ import annotations

import re

COPY = re.compile(r"""^(?P<stem>.+?)(?:
    \ \([^()]*\bconflicted\ copy\b[^()]*(?:\(\d+\)[^()]*)?\)   # Dropbox, Nextcloud, Obsidian Sync
  | _conflict-\d{8}-\d{6}                                      # ownCloud
  | \.sync-conflict-\d{8}-\d{6}(?:-[A-Z0-9]{7})?               # Syncthing
  | \ \(\d{1,3}\)                                              # Google Drive, a second download
)(?P<ext>\.[^./ ]+)?$""", re.X | re.I)


def original_of(path: str) -> str | None:
    """The path of the note ``path`` is a sync conflict copy of (same folder, same extension), or None."""
    folder, slash, name = path.rpartition("/")
    match = COPY.match(name)
    if not match or match["stem"].startswith("."):
        return None
    return f"{folder}{slash}{match['stem']}{match['ext'] or ''}"


def fold(ranked: list, where: list[tuple[str, str]], held) -> tuple[list, dict, dict]:
    """``ranked`` (``where``: each item's (collection, path)) without the passages of a conflict copy whose original
    ranks too; {(collection, original): [the copies folded into it, 'collection/path']}, and {(collection, copy):
    'collection/original'} for a copy that stays while its original, which had no hit, is indexed (``held``)."""
    ranking = set(where)
    folded: dict[tuple[str, str], list[str]] = {}
    alone: dict[tuple[str, str], str] = {}
    kept = []
    for item, (collection, path) in zip(ranked, where):
        original = original_of(path)
        if original is not None and (collection, original) in ranking:
            names = folded.setdefault((collection, original), [])
            if f"{collection}/{path}" not in names:
                names.append(f"{collection}/{path}")
            continue
        if original is not None and held(collection, original):
            alone[(collection, path)] = f"{collection}/{original}"
        kept.append(item)
    return kept, folded, alone
