"""The file read_file is asked for: the path resolved inside a root, or beside an indexed file of that name; the
place a result wrote after it ('notes/x.md:12-30'); a link's note in another case, a Logseq page's or an alias's
name; refused when Sift would not index it, and said when it is gone from disk since it was indexed."""
from __future__ import annotations

import os
import posixpath

from ingest.discover import why_not_indexed
from ingest.logseq import journal_name, namespace_name
from mcp_server import backlinks, paths
from mcp_server.errors import Problem
from search.index import file_reads
from search.query import files
from search.query.scope import file_place


def find_target(conn, raw_path: str, roots: dict[str, str]) -> paths.Target:
    return paths.resolve(raw_path, roots, lambda name: (file_reads.visible_by_name(conn, name)
                                                        or files.beside_indexed(conn, name, roots)))


def place_after(conn, raw_path: str, roots: dict[str, str]):
    """(file, location) of a path that names no file as written but does without the lines or page a result
    wrote after it ('notes/x.md:12-30', 'notes/x.md  lines 12-30', 'notes/paper.pdf  page 4'), the path with its
    Chinese in either script ('论文/繁体.pdf p.2' for 论文/繁體.pdf: neither way alone found it); else None."""
    place = paths.location(raw_path)
    if place is None:
        return None
    try:
        return find_target(conn, place.path, roots), place
    except Problem:
        other = paths.in_other_script(place.path, roots, lambda form: find_target(conn, form, roots))
        return None if other is None else (other[1], place)


def paths_target(sift, name: str) -> paths.Target:
    conn, roots = sift.conn(), sift.roots()
    return find_target(conn, name, roots)


def note_in_any_case(conn, name: str, roots: dict[str, str]) -> paths.Target | None:
    """The one published note a link's ``name`` names in another case ('garden shed' for Garden Shed.md, a path
    from the collection's folder when it holds a '/'), as Obsidian reads a link, or as Logseq names a page ('Mar 14th,
    2024' for journals/2024_03_14.md, 'projects/garden' for pages/projects___garden.md), else the one note aliased
    so ('alias:: sift', front matter's 'aliases:'); None for none or several."""
    wanted = {backlinks.folded(name), backlinks.folded(name + ".md")}
    # by its place on disk: under a root inside another's, one note is in both collections (read through the
    # innermost, as find_target finds it)
    found = list({file_place(roots, collection, path): f"{collection}/{path}"
                  for collection, path in file_reads.visible_notes(conn)
                  if backlinks.folded(path if "/" in name else posixpath.basename(path)) in wanted
                  or ("/" in name and _namespace_page(path) in wanted)
                  or backlinks.folded(journal_name(path) or "") in wanted}.values())
    if not found:  # no note of that name: the one page aliased so ('alias:: sift'), as its backlinks read a link
        found = list({file_place(roots, collection, path): f"{collection}/{path}"
                      for collection, path, meta in file_reads.visible_note_aliases(conn)
                      if any(backlinks.folded(alias) in wanted for alias in backlinks.aliases(meta))}.values())
    if len(found) != 1:
        return None
    try:
        return find_target(conn, found[0], roots)
    except Problem:
        return None


def _namespace_page(path: str) -> str | None:
    """A Logseq namespace page's name as a link writes it, folded: 'projects/garden' for pages/projects___garden.md
    (a link [[projects/garden]] names it)."""
    name = namespace_name(posixpath.splitext(posixpath.basename(path))[0])
    return backlinks.folded(name) if name else None


def refuse_unindexable(sift, target: paths.Target, roots: dict[str, str]) -> None:
    """Refuse a file a scan would leave out: read_file reads what Sift indexes, so an assistant cannot read
    .env, .git/config or a file .gitignore keeps private just because it lies inside a root."""
    why = why_not_indexed(roots[target.collection], target.relative, sift.rules())
    if why is not None:
        raise Problem(f"refused: {target.name} is not a file Sift indexes ({why}); read_file reads only the "
                      "files search and list_files can find")


def refuse_deleted(conn, raw_path: str, roots: dict[str, str]) -> None:
    """A Problem that says so when ``raw_path`` names a published file gone from disk since (search still
    gives its path until the next publish): 'no such file, find it with search' would send a client round.
    Named as search gives it, or by its absolute path (which said only 'no file …')."""
    named = paths.split_collection(raw_path, roots) or paths.under_a_root(raw_path, roots)
    indexed = file_reads.visible_file(conn, *named) if named is not None else None
    root = roots[named[0]] if named is not None else ""
    if indexed is not None and not os.path.lexists(os.path.join(root, named[1])):
        from ingest.discover import not_downloaded  # a note a sync client freed: it answers searches, kept
        if os.path.isdir(root) and not_downloaded(root, named[1]):
            raise Problem(f"{'/'.join(named)} is not downloaded to this disk (a sync client's placeholder stands for "
                          f"it): search answers from the version generation {indexed['published']} indexed, but "
                          "read_file reads files on disk; opening it on this machine downloads it") from None
        gone = "was deleted from disk" if os.path.isdir(root) else f"is not on disk: the folder {root} is missing"
        raise Problem(f"{'/'.join(named)} {gone} after generation {indexed['published']} indexed it: search "
                      "finds it until the generation that notices is published, but read_file reads files as "
                      "they are on disk now") from None
