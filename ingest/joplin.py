"""A note as Joplin keeps it in a raw export directory or a file-system sync target (ingest.markdown).

Each item there is a file '<id>.md': its title on the first line, its body, then its properties, 'key: value'
lines ending with 'type_: N' (1 a note; 2 a notebook, 4 a resource, 5 a tag, 6 a note's tag: records, no notes).
A note is titled by its first line (not its file's id), its created and updated times are the note's, and its
properties are no text of its passages (they were 30 lines of ids and zeros in its last passage). A record of
another type is skipped, saying so, and so is a note in the trash (Joplin 3's deleted_time) or encrypted by
end-to-end encryption (its text ciphertext). Its links to other notes, '[x](:/0123…)', name those files (ingest.links).
Its tags are records beside it, a tag's (type_ 5: its name the first line) and a note's tag's (type_ 6: note_id and
tag_id): note_tags reads them from the note's folder (ingest.files), and they are the note's tags, searched with its
title as a Markdown note's #tags are. A note is read again only when its own file changes: a tag given to a note
already indexed is its tag once the note is next edited (or the index made again).
"""
from __future__ import annotations

import os
import re
from pathlib import PurePosixPath

from ingest.document import Skip

TYPE = re.compile(r"type_: ?(\d{1,3})")
PROPERTY = re.compile(r"[a-z_]{1,40}: ?.*")
ID = re.compile(r"[0-9a-f]{32}")
PROPERTIES = 100  # lines looked at above 'type_:'
TYPES = {2: "notebook", 3: "setting", 4: "resource", 5: "tag", 6: "note's tag", 9: "master key", 13: "revision",
         14: "migration", 15: "share", 16: "command"}
TIMES = {"created_time": "created", "updated_time": "updated"}


def raw_item(path: str, lines: list[str]) -> tuple[int, dict] | None:
    """(the first line of a Joplin item's properties, its title and times as note meta) when ``lines`` are one
    (of a file named by its id); None for any other note. Raises Skip for an item that is no note (a notebook's, a
    tag's record)."""
    if not ID.fullmatch(PurePosixPath(path).stem):
        return None
    end = len(lines)
    while end and not lines[end - 1].strip():
        end -= 1
    kind = TYPE.fullmatch(lines[end - 1].strip()) if end else None
    if kind is None:
        return None
    start = end - 1
    while start > 0 and end - start < PROPERTIES and PROPERTY.fullmatch(lines[start - 1]):
        start -= 1
    properties = dict(line.split(":", 1) for line in lines[start:end])
    if not ID.fullmatch(properties.get("id", "").strip()):
        return None
    if int(kind.group(1)) != 1:
        name = TYPES.get(int(kind.group(1)), f"item of type {kind.group(1)}")
        named = f" ({lines[0].strip()[:80]!r})" if start > 0 else ""  # a note's tag's record has no name
        raise Skip(f"a Joplin {name}'s record{named}, not a note")
    if properties.get("encryption_applied", "").strip() == "1":  # its text is encryption_cipher_text's ciphertext
        raise Skip("a Joplin note encrypted (end-to-end encryption): its text is ciphertext; Sift reads notes "
                   "synced or exported without encryption")
    if properties.get("deleted_time", "0").strip() not in ("", "0"):  # Joplin 3's trash keeps a note so
        raise Skip(f"a Joplin note in the trash ({lines[0].strip()[:80]!r}), not indexed")
    meta = {TIMES[key]: value.strip() for key, value in properties.items() if key in TIMES and value.strip()}
    if lines[0].strip():
        meta["title"] = lines[0].strip()[:500]
    return start, meta


RECORD_BYTES = 2048  # of an item's file, at most, for a tag's or a note's tag's record (some 500 bytes of properties)
MAX_ITEMS = 200_000  # of a folder's files looked at for tags
MAX_TAGS = 50  # of a note's tags kept
FOLDERS = 4  # whose tags are kept: a worker may read notes of two exports in turn
_folders: dict[str, tuple[tuple, dict[str, list[str]]]] = {}  # folder → (its stat's key, note id → tag names)


def note_tags(folder: str, note_id: str) -> list[str]:
    """The names of the tags Joplin's records in ``folder`` (a raw export, a sync target) give the note of this id;
    the folder read once while its files are the same (its mtime changes when a record is added or removed)."""
    try:
        seen = os.stat(folder)
    except OSError:
        return []
    key = (seen.st_mtime_ns, seen.st_ino)
    cached = _folders.get(folder)
    if cached is None or cached[0] != key:
        cached = key, _read_tags(folder)
        _folders.pop(folder, None)
        while len(_folders) >= FOLDERS:  # the folder read longest ago let go
            _folders.pop(next(iter(_folders)))
        _folders[folder] = cached
    return cached[1].get(note_id, [])


def _read_tags(folder: str) -> dict[str, list[str]]:
    names: dict[str, str] = {}  # tag id → its name
    links: list[tuple[str, str]] = []  # (note id, tag id)
    try:
        entries = os.scandir(folder)
    except OSError:
        return {}
    with entries:
        for n, entry in enumerate(entries):
            if n >= MAX_ITEMS:
                break
            if not (entry.name.endswith(".md") and ID.fullmatch(entry.name[:-3])):
                continue
            try:
                if entry.stat().st_size > RECORD_BYTES:  # a note, most likely: not opened
                    continue
                with open(entry.path, "rb") as f:
                    text = f.read(RECORD_BYTES + 1).decode("utf-8", "replace")
            except OSError:
                continue
            if "type_: 5" not in text[-20:] and "type_: 6" not in text[-20:]:
                continue
            lines = text.rstrip().split("\n")
            kind = TYPE.fullmatch(lines[-1].strip())
            if kind is None:
                continue
            properties = dict(line.split(":", 1) for line in lines if PROPERTY.fullmatch(line))
            properties = {key: value.strip() for key, value in properties.items()}
            if kind.group(1) == "5" and lines[0].strip() and not PROPERTY.fullmatch(lines[0]):
                names[properties.get("id", "")] = lines[0].strip()[:200]
            elif kind.group(1) == "6" and properties.get("note_id") and properties.get("tag_id"):
                links.append((properties["note_id"], properties["tag_id"]))
    tags: dict[str, list[str]] = {}
    for note, tag in links:
        if tag in names and names[tag] not in tags.setdefault(note, []) and len(tags[note]) < MAX_TAGS:
            tags[note].append(names[tag])
    return tags
