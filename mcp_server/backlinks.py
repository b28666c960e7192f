"""The notes that link to a note (its backlinks, as Obsidian calls them), for read_file.

A note's links are in the index as ingest.links resolved them: a wiki link by the bare name written
(``[[Garden Shed]]``, ``[[Garden Shed.md]]``), or by its path from the collection's folder
(``[[Projects/Garden Shed]]``), a Markdown link by the path it reaches (``Projects/Garden%20Shed.md``). A note is
linked to by any of those names of it, in any case (Unicode casefold) and either normal form, as Obsidian reads them. A bare name stands for every note so named, as the index cannot tell which
one of several a link meant. An org-mode note is linked to by an ``[[id:…]]`` link naming one of its ids too.
"""
from __future__ import annotations

import json
import posixpath

from ingest.logseq import journal_name, namespace_name
from search.index import file_reads, link_reads

SHOWN = 20  # notes listed by path; the total is given too
IDS = 200  # an org note's ids looked for as links' targets


def linked_from(conn, collection: str, relative: str, indexed) -> tuple[list[str], int]:
    """('collection/path' of the first SHOWN published notes that link to the note, how many do), the note
    itself left out; none for a file that is not a published note."""
    if indexed is None or indexed["kind"] != "note":
        return [], 0
    name = posixpath.basename(relative)
    stem, stem_path = posixpath.splitext(name)[0], posixpath.splitext(relative)[0]
    # Obsidian reads a link's name in any case ([[garden shed]] is a link to Garden Shed.md)
    paths, total = link_reads.linking_files_any_case(conn, indexed["collection"],
                                                     (relative, stem_path, name, stem, *_org_ids(indexed),
                                                      *_logseq_names(conn, relative, stem, indexed)),
                                                     SHOWN, besides=relative)
    return [f"{collection}/{path}" for path in paths[:SHOWN]], total


def citing(conn, collection: str, relative: str, indexed) -> tuple[list[str], int]:
    """('collection/path' of the first SHOWN published notes that link to a PDF, how many do): a wiki link by its
    name, a Markdown link by its path, a .bib entry's file field, as search's 'cited by notes' counts them. read_file
    on a paper said none, so an assistant that read the paper could not go back to the reading notes on it."""
    if indexed is None or indexed["kind"] != "pdf":
        return [], 0
    paths, total = link_reads.linking_files_any_case(conn, indexed["collection"],
                                                     (relative, posixpath.basename(relative)), SHOWN)
    return [f"{collection}/{path}" for path in paths[:SHOWN]], total


def _org_ids(indexed) -> list[str]:
    """An org-mode note's ids (its headlines' :ID: and :CUSTOM_ID: properties, ingest.org) as another note's
    ``[[id:…]]`` link names them: 'id:5b2f…'."""
    try:
        ids = json.loads(indexed["meta"] or "{}").get("ids", [])
    except (ValueError, TypeError, IndexError, AttributeError):
        return []
    return [f"id:{id_}" for id_ in ids[:IDS] if isinstance(id_, str)]


def _logseq_names(conn, relative: str, stem: str, indexed) -> list[str]:
    """The other names Logseq links a page by: its namespace's ('[[projects/garden]]' for 'projects___garden.md'),
    a journal's date ('[[Mar 14th, 2024]]' for 'journals/2024_03_14.md') and its aliases ('alias:: sift' makes
    '[[sift]]' a link to the page), but an alias that another note is named by: '[[AI]]' is a link to AI.md (as
    Obsidian reads it), which listed every note linking to AI.md as linking to the note aliased 'AI'."""
    names = [name for name in (namespace_name(stem), journal_name(relative)) if name]
    return names + [alias for alias in aliases(indexed["meta"])
                    if not file_reads.visible_by_name(conn, alias + ".md")]


def aliases(meta: str | None) -> list[str]:
    """The first ALIASES of a note's aliases, from its meta (JSON); [] when it has none or is not read."""
    try:
        found = json.loads(meta or "{}").get("aliases", [])
    except (ValueError, TypeError, IndexError, AttributeError):
        return []
    return [alias for alias in found[:ALIASES] if isinstance(alias, str) and alias] if isinstance(found, list) \
        else []


ALIASES = 20  # a note's aliases read as names links give it (each looked up as another note's name)


folded = link_reads.folded_name  # a link's or a note's name as Obsidian compares them (read_file's wiki links too)


def said(paths: list[str], total: int) -> str:
    """The line read_file ends a note's first lines with: '[linked from 2 notes: notes/a.md, notes/b.md]'."""
    more = (f", and {total - len(paths)} more (a search for the note's name finds them, beside the notes that name it "
            "without a link)" if total > len(paths) else "")
    return f"[linked from {total} note{'s' if total != 1 else ''}: {', '.join(paths)}{more}]"


def cited_said(paths: list[str], total: int) -> str:
    """The line read_file ends a PDF's first page with: '[cited by 2 notes: notes/a.md, notes/library.bib]'."""
    more = f", and {total - len(paths)} more (a search for the file's name finds them)" if total > len(paths) else ""
    return f"[cited by {total} note{'s' if total != 1 else ''}: {', '.join(paths)}{more}]"
