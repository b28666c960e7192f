"""The page of results: at most PER_FILE passages of a file while other files fill it (``per_file``), a file
reached through two collections shown through one (``twins_left_out``), sync conflict copies folded into their note
(``copies_folded``), and the lines under a hit that say so."""
from __future__ import annotations

import functools
import os
from collections import Counter

from search.index import chunk_reads
from search.query import copies
from search.query.catalog import Catalog
from search.query.passages import Passages
from search.query.symbols import MORE_NAMED
from search.query.scope import file_place


# Passages of one file on a page of results at most while other files fill it: a long list of links (a README of
# every note's title) or a long note matched by many passages took a whole page from the notes themselves.
# A file of PER_FILE passages or fewer (a short note cut in two) takes one place: its two passages are the whole
# note, and took two of the top five ('skip a broken commit when bisecting'); its first hit says the rest ranked.
PER_FILE = 2
# A how-question about code asks for a mechanism, which one file's code often holds in several passages: the answer to
# 'how does aiosqlite run sqlite calls off the event loop' was core.py's fourth passage (_connection_worker_thread,
# under connect, Connection.__init__ and _connect), ranked fourth of all, and left off for passages of other files
# that ranked below it. Such a file keeps up to HOW_PER_FILE passages where they ranked among the first HOW_DEPTH of
# all; only passages that ranked below them give way (three a file everywhere took other files' places higher up).
HOW_PER_FILE = 4
HOW_DEPTH = 5


def per_file(ranked: list, limit: int, catalog: Catalog, how: bool = False) -> tuple[list, dict[int, list[int]]]:
    """The first ``limit`` of ``ranked`` with at most PER_FILE passages of a file, one of a file that has no more
    than PER_FILE (with ``how``, a how-question's: up to HOW_PER_FILE of a code file among the first HOW_DEPTH ranked;
    ``symbols.asks_how``) (the passages left off fill
    the page when too few other files match), in rank order, and {chunk id of a file's first passage on the page:
    the chunk ids of its passages that ranked above the page's last and were left off, in rank order}."""
    files = catalog.files([cid for cid, _, _ in ranked])
    seen: Counter = Counter()
    kept, over = [], []
    early = catalog.kinds_of([cid for cid, _, _ in ranked[:HOW_DEPTH]]) if how else []
    for i, file in enumerate(files):
        seen[file] += 1
        room = PER_FILE if catalog.passages(file) > PER_FILE else 1
        room = HOW_PER_FILE if room == PER_FILE and i < len(early) and early[i] == "code" else room
        (kept if seen[file] <= room else over).append(i)
        if len(kept) == limit:
            break
    if len(kept) < limit:  # too few other files: none was left off for them
        kept, over = sorted(kept + over[:limit - len(kept)]), []
    left: dict[int, list[int]] = {}
    for i in over:
        left.setdefault(files[i], []).append(ranked[i][0])
    first: dict[int, int] = {}
    for i in kept:
        first.setdefault(files[i], ranked[i][0])
    return [ranked[i] for i in kept], {first[f]: ids for f, ids in left.items()}


NAMES_SHOWN = 5  # definitions named on the line saying a code file's passages were left off


def left_off_names(read: Passages, ids: list[int]) -> list[str]:
    """The definitions the code passages ``ids`` left off the page are (``definition_names``): the one answering
    'how does aiosqlite run sqlite calls off the event loop' was core.py's fourth passage, and the page said only
    '+ 2 more passages of this file'."""
    code = [cid for cid, kind in zip(ids, read.catalog.kinds_of(ids)) if kind == "code"]
    heads = chunk_reads.headings(read.conn, code)
    return definition_names([heads.get(cid) or "" for cid in code])


def definition_names(headings: list[str]) -> list[str]:
    """The definitions code passages' heading paths name, qualified by their classes (``core > Connection >
    _connect``: ``Connection._connect``; a joined passage's each), in order, each once; a module's own lines name
    none."""
    names: list[str] = []
    for heading in headings:
        parts = [part.strip() for part in heading.split(" > ")]
        if len(parts) < 2:
            continue
        names += [".".join([*parts[1:-1], name]) for name in MORE_NAMED.sub("", parts[-1]).split(", ")]
    return list(dict.fromkeys(names))


def more_in_file(count: int, again: str | None = None, names: list[str] | tuple = ()) -> str:
    """The line under a file's first hit when more of its passages ranked among the page's than PER_FILE;
    ``again``: the search that shows them (the MCP tool's arguments), else read_file is named; ``names``: the
    definitions they are (``left_off_names``), the first NAMES_SHOWN said."""
    how = f": search again with {again} to see them" if again else " (read_file shows the file)"
    said = ", ".join(names[:NAMES_SHOWN]) + (", …" if len(names) > NAMES_SHOWN else "")
    what = f" ({said})" if names else ""
    return (f"+ {count:,} more passage{'s' if count > 1 else ''} of this file ranked among these{what}, left off for "
            f"other files{how}")


def twins_left_out(ranked: list, catalog: Catalog, roots: dict[str, str]) -> tuple[list, dict]:
    """``ranked`` with the passages of a file reached through two collections (a root inside another's:
    personal/x.md and all/personal/x.md) kept through one alone, the innermost root's (as one_per_file keeps
    for similar), and {(collection, path) kept: the other collections' paths of the file}. Twins ranked at the
    same score and took two of the page's places for one file."""
    if not ranked or not _nested(tuple(sorted(roots.values()))):
        return ranked, {}
    rows = catalog.files([item[0] for item in ranked])
    where = {row: (str(catalog.collections[row]), catalog.paths[row]) for row in set(rows)}
    twins: dict[str, list[tuple[str, str]]] = {}
    for collection, path in where.values():
        twins.setdefault(file_place(roots, collection, path), []).append((collection, path))
    kept_of, also = {}, {}
    for names in twins.values():
        names.sort(key=lambda cp: (-len(roots.get(cp[0], "")), cp[0]))
        for name in names:
            kept_of[name] = names[0]
        if len(names) > 1:
            also[names[0]] = [f"{c}/{p}" for c, p in names[1:]]
    return [item for item, row in zip(ranked, rows) if kept_of[where[row]] == where[row]], also


@functools.lru_cache(maxsize=8)
def _nested(roots: tuple[str, ...]) -> bool:
    """Whether a root holds another, worked out once per set of roots: every pair was compared on every search (60
    collections, 3,600 pairs: 7 ms a search)."""
    return any(a != b and b.startswith(a.rstrip(os.sep) + os.sep) for a in roots for b in roots)


def copies_folded(ranked: list, catalog: Catalog, read: Passages, query: str,
                  common: set[str]) -> tuple[list, dict, dict]:
    """``ranked`` without the passages of the sync conflict copies whose note ranks too (search.query.copies): a
    copy holds nearly the note's text, and each of its passages took a second place on the page, at the same
    score, for what the note said already."""
    if not ranked:
        return ranked, {}, {}
    rows = catalog.files([item[0] for item in ranked])
    where = [(str(catalog.collections[row]), catalog.paths[row]) for row in rows]

    def held(collection: str, path: str) -> bool:
        return any(str(catalog.collections[row]) == collection and catalog.paths[row] == path
                   for row in catalog.named(path.rsplit("/", 1)[-1]))
    return copies.fold(ranked, where, held, lambda ids: {cid: row["text"] for cid, row in read.rows(ids).items()},
                       query, common)


def conflict_line(copies_folded: list[str] | None, copy_of: str | None, original_matched: bool = False) -> str:
    """The line under a hit that is, or stands for, a sync conflict copy (search.query.copies)."""
    if copy_of and original_matched:
        return f"(a sync conflict copy of {copy_of}, which matched too: this copy holds words of the search it does not)"
    if copy_of:
        return f"(a sync conflict copy of {copy_of}, which did not match)"
    return f"(its sync conflict {'copy' if len(copies_folded) == 1 else 'copies'} {', '.join(copies_folded)} " \
           "matched too: left off the page for other notes; read_file reads each)"
