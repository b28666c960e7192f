"""The notes that link to a note (its backlinks, as Obsidian calls them), for read_file.

A note's links are in the index as ingest.links resolved them: a wiki link by the bare name written
(``[[Garden Shed]]``, ``[[Garden Shed.md]]``), or by its path from the collection's folder
(``[[Projects/Garden Shed]]``), a Markdown link by the path it reaches (``Projects/Garden%20Shed.md``). A note is
linked to by any of those names of it, in any case (Unicode casefold) and either normal form, as Obsidian reads them. A bare name stands for every note so named, as the index cannot tell which
one of several a link meant.
"""
from __future__ import annotations

import posixpath
import unicodedata

from search.index import queries
from search.query.scope import nfc

SHOWN = 20  # notes listed by path; the total is given too


def linked_from(conn, collection: str, relative: str, indexed) -> tuple[list[str], int]:
    """('collection/path' of the first SHOWN published notes that link to the note, how many do), the note
    itself left out; none for a file that is not a published note."""
    if indexed is None or indexed["kind"] != "note":
        return [], 0
    name = posixpath.basename(relative)
    stem, stem_path = posixpath.splitext(name)[0], posixpath.splitext(relative)[0]
    names = {folded(target) for target in (relative, stem_path, name, stem)}
    # Obsidian reads a link's name in any case ([[garden shed]] is a link to Garden Shed.md): the targets written
    # are folded here, the index keeps them as written
    # (the targets looked at are those starting with the first letter of a name in either case and either normal
    # form; a letter's other case may be two characters, 'İ' lowered 'i̇', 'ß' raised 'SS': the first of them)
    firsts = {form[0] for target in (relative, stem) for spelled in (nfc(target), nfd(target))
              for form in (spelled[0], spelled[0].lower(), spelled[0].upper(), spelled[0].casefold())}
    targets = tuple(t for t in queries.link_targets(conn, firsts) if folded(t) in names)
    if not targets:
        return [], 0
    paths, total = queries.linking_files(conn, indexed["collection"], targets, SHOWN, besides=relative)
    return [f"{collection}/{path}" for path in paths[:SHOWN]], total


def folded(name: str) -> str:
    """A link's or a note's name as Obsidian compares them: in any case and either Unicode normal form (a file macOS
    named in NFD, 'Café.md', and a link typed in NFC, [[Café]])."""
    return nfc(nfc(name).casefold())


def nfd(text: str) -> str:
    return unicodedata.normalize("NFD", text)


def said(paths: list[str], total: int) -> str:
    """The line read_file ends a note's first lines with: '[linked from 2 notes: notes/a.md, notes/b.md]'."""
    more = (f", and {total - len(paths)} more (a search for the note's name finds them, beside the notes that name it "
            "without a link)" if total > len(paths) else "")
    return f"[linked from {total} note{'s' if total != 1 else ''}: {', '.join(paths)}{more}]"
