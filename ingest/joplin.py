"""A note as Joplin keeps it in a raw export directory or a file-system sync target (ingest.markdown).

Each item there is a file '<id>.md': its title on the first line, its body, then its properties, 'key: value'
lines ending with 'type_: N' (1 a note; 2 a notebook, 4 a resource, 5 a tag, 6 a note's tag: records, no notes).
A note is titled by its first line (not its file's id), its created and updated times are the note's, and its
properties are no text of its passages (they were 30 lines of ids and zeros in its last passage). A record of
another type is skipped, saying so. Its links to other notes, '[x](:/0123…)', name those files (ingest.links).
"""
from __future__ import annotations

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
        raise Skip(f"a Joplin {name}'s record ({lines[0].strip()[:80]!r}), not a note")
    meta = {TIMES[key]: value.strip() for key, value in properties.items() if key in TIMES and value.strip()}
    if lines[0].strip():
        meta["title"] = lines[0].strip()[:500]
    return start, meta
