"""A Scrivener project (``Novel.scriv/``): its scenes are RTF files named by an id (Scrivener 3:
``Files/Data/<UUID>/content.rtf``, their notes ``notes.rtf`` and synopsis ``synopsis.txt`` beside; Scrivener 2:
``Files/Docs/<ID>.rtf``, ``<ID>_notes.rtf``, ``<ID>_synopsis.txt``), and the project's binder (``Novel.scrivx``, XML)
names each: 'The Quay' in 'Manuscript > Part One > Chapter 3'. A scene read alone was titled 'content.rtf'; it is
titled by its binder title, its passages under the folders holding it, its notes, synopsis and snapshots (earlier
versions of it) '<title> (notes)', '<title> (synopsis)', '<title> (snapshot)'; a research item kept in the project
(Files/Data/<UUID>/content.pdf) by its binder title too."""
from __future__ import annotations

import os
import re
import xml.etree.ElementTree as ET
from functools import lru_cache
from pathlib import Path

from ingest.document import Document

# a scene's file inside the project's Files/: its id, and which of its files it is
# (a research item's content.pdf too), or a snapshot of a scene, an earlier version of it (Snapshots/<UUID>.snapshots/)
SCENE_FILE = re.compile(r"Files/(?:Data/(?P<uuid>[0-9A-Fa-f-]{8,})/(?P<part>content|notes|synopsis)\.\w+|"
                        r"Docs/(?P<id>\d+)(?:_(?P<part2>notes|synopsis))?\.\w+)|"
                        r"Snapshots/(?P<snapshot>[0-9A-Fa-f-]+)\.snapshots/[^/]+\.rtf")
MAX_BINDER_BYTES = 64 << 20  # of a .scrivx read (a binder of 10,000 scenes is a few MB)


def binder_place(full: Path) -> tuple[list[str], str] | None:
    """(the binder folders holding it, its title part) of a Scrivener project's scene file ``full`` ('content.rtf',
    'notes.rtf', 'synopsis.txt' of Files/Data/<UUID>/, or Files/Docs/<ID>.rtf …): ([...'Chapter 3'], 'The Quay'),
    '(notes)', '(synopsis)' or '(snapshot)' after the title of those. None for any other file, or a scene its
    binder does not name."""
    parts = full.parts
    project = next((i for i in range(len(parts) - 2, -1, -1) if parts[i].lower().endswith(".scriv")), None)
    if project is None:
        return None
    found = SCENE_FILE.fullmatch("/".join(parts[project + 1:]))
    if found is None:
        return None
    root = Path(*parts[:project + 1])
    binder = _binder_file(root)
    if binder is None:
        return None
    try:
        seen = binder.stat()
    except OSError:
        return None
    place = _places(str(binder), seen.st_mtime_ns, seen.st_size).get(found["uuid"] or found["id"] or found["snapshot"])
    if place is None:
        return None
    folders, title = place
    part = found["part"] or found["part2"] or ("snapshot" if found["snapshot"] else "content")
    return folders, title if part == "content" else f"{title} ({part})"


def own_file(full: Path) -> str | None:
    """Why ``full`` is not read, when it is a file of a Scrivener project (a folder '*.scriv' holding its .scrivx)
    that is none of its binder's documents (``SCENE_FILE``): Scrivener's own bookkeeping (Settings/recents.txt,
    Files/version.txt, QuickLook/Preview.html), read as notes of their own before; None for any other file."""
    parts = full.parts
    project = next((i for i in range(len(parts) - 2, -1, -1) if parts[i].lower().endswith(".scriv")), None)
    if project is None or SCENE_FILE.fullmatch("/".join(parts[project + 1:])) is not None:
        return None
    if _binder_file(Path(*parts[:project + 1])) is None:  # a folder named .scriv, no project
        return None
    return "a Scrivener project's own file, none of its binder's documents (its scenes, notes and synopses are read)"


def title_scene(full: Path, doc: Document) -> None:
    """Title ``doc``, read from ``full``, by its binder title and head its passages with the folders holding it,
    when it is a Scrivener project's scene, its notes or its synopsis (``binder_place``)."""
    place = binder_place(full)
    if place is None:
        return
    folders, doc.title = place
    for section in doc.sections:
        section.heading_path = [*folders, *section.heading_path]


def _binder_file(root: Path) -> Path | None:
    """The project's .scrivx: the one named after the project ('Novel.scriv/Novel.scrivx'), else the only one."""
    named = root / (root.name[:-len(".scriv")] + ".scrivx")
    if named.is_file():
        return named
    try:
        found = [entry for entry in os.scandir(root) if entry.name.lower().endswith(".scrivx") and entry.is_file()]
    except OSError:
        return None
    return Path(found[0].path) if len(found) == 1 else None


@lru_cache(maxsize=8)
def _places(binder: str, mtime_ns: int, size: int) -> dict[str, tuple[list[str], str]]:
    """Each binder item's id (its UUID, or a Scrivener 2 project's ID) -> (the titles of the folders holding it,
    its title), read from the .scrivx at ``binder`` (as it is at ``mtime_ns``, ``size``: a rename is read)."""
    if size > MAX_BINDER_BYTES:
        return {}
    try:
        root = ET.parse(binder).getroot()
    except (OSError, ET.ParseError):
        return {}
    places: dict[str, tuple[list[str], str]] = {}
    binder_root = root.find("Binder")
    stack = [(item, []) for item in reversed(binder_root.findall("BinderItem"))] if binder_root is not None else []
    while stack:  # not recursive: a binder nested a thousand folders deep is read too
        item, above = stack.pop()
        title = " ".join((item.findtext("Title") or "").split())
        key = item.get("UUID") or item.get("ID")
        if key and title:
            places[key] = (above, title)
        children = item.find("Children")
        if children is not None:
            inside = [*above, title] if title else above
            stack.extend((child, inside) for child in reversed(children.findall("BinderItem")))
    return places
