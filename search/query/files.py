"""The file a name a user gives stands for, inside the indexed folders: 'collection/relative/path' as search
shows it, a path relative to a collection root, an absolute path inside one, or the bare file name of an
indexed file. Every candidate is resolved with realpath (so ``..`` and symbolic links are followed) and must
land inside a root's realpath. Shared by the MCP tools (read_file, similar) and ``ingest similar``, which word
the failures (``Outside``, ``Missing``, ``Ambiguous``) each for its own reader.

Names match in either Unicode normal form: "café.md" written in NFC finds the file macOS named in NFD, and the
answer names it as it is on disk.
"""
from __future__ import annotations

import os
import unicodedata
from dataclasses import dataclass

from search.index import file_reads
from search.query.scope import collection_prefix, either_script, nfc, on_disk


@dataclass(frozen=True)
class Target:
    collection: str
    relative: str  # '/'-separated, relative to the collection root
    absolute: str  # the real path on disk

    @property
    def name(self) -> str:
        return f"{self.collection}/{self.relative}"


class Ambiguous(LookupError):
    """Several files answer to the name; ``candidates`` lists them as collection/path."""

    def __init__(self, raw: str, candidates: list[str]):
        super().__init__(f"{len(candidates)} files are called {raw!r}")
        self.candidates = candidates


class Outside(LookupError):
    """The name lands outside every indexed folder (by '..', a symbolic link or an absolute path) and nowhere
    inside."""


class Missing(LookupError):
    """No file inside the indexed folders answers to the name."""


class NotIndexable(LookupError):
    """The file is one a scan leaves out (a kind Sift does not read, ignored, excluded): ``reason`` says why,
    as read_file says it (ingest.discover.why_not_indexed)."""

    def __init__(self, name: str, reason: str):
        super().__init__(f"{name} is not a file Sift indexes ({reason})")
        self.name, self.reason = name, reason


def find(raw: str, roots: dict[str, str], indexed_by_name=None, cwd: str | None = None) -> Target:
    """The file ``raw`` names. ``indexed_by_name(name)`` lists (collection, path) of indexed files so named;
    ``cwd``: a relative path may also be relative to this folder (the command line's; a server's means nothing),
    and a file found there is the one meant."""
    real_roots = {name: os.path.realpath(root) for name, root in roots.items()}
    found, refused = [], False
    if cwd is not None and not os.path.isabs(raw):
        # a file there, as the shell names it, is the one meant: 'notes.md' typed in a folder holding one was
        # ambiguous beside the other indexed files of that name; outside the roots, it is just not this one
        _add(on_disk(os.path.join(cwd, raw)), found, real_roots)
        if found:
            return found[0]
    for candidate in _candidates(raw, roots):
        refused |= not _add(candidate, found, real_roots)
    if refused and not found:
        raise Outside(raw)
    if "/" not in raw and indexed_by_name is not None:
        for spelling in dict.fromkeys((raw, nfc(raw), unicodedata.normalize("NFD", raw))):
            found = _by_name(spelling, found, indexed_by_name, real_roots)
    if not found:
        raise Missing(raw)
    if len(found) > 1:
        at_root = [t for t in found if "/" not in t.relative] if "/" not in raw else []
        if len(at_root) == 1:  # 'todo.md' is a path relative to a root, as the tools take one: that root's file
            return at_root[0]
        raise Ambiguous(raw, sorted(t.name for t in found))
    return found[0]


def roots_named(raw: str, roots: dict[str, str]) -> list[str]:
    """The collections whose root folder ``raw`` itself names ('/home/me/notes', '.', 'notes/.', 'tech/..'),
    as ``find`` would look for it: a root is no file inside it, so ``find`` calls it Outside."""
    real_roots = {name: os.path.realpath(root) for name, root in roots.items()}
    named = set()
    for candidate in _candidates(raw, roots):
        real = os.path.realpath(candidate)
        named |= {name for name, root in real_roots.items() if real == root}
    return sorted(named)


def indexed_file(conn, raw: str, roots: dict[str, str], cwd: str | None = None, locate=None,
                 why_not=None) -> tuple[str, str]:
    """(collection, relative path) of the published file ``raw`` names, for similar: by 'collection/path' in
    the index alone first (similar compares stored vectors, so a file deleted from disk since is found until
    the next publish), else on disk as ``locate`` finds it (``find``, or the caller's checks around it).
    ``why_not(root, relative)``: why a scan leaves the file out, or None (ingest.discover.why_not_indexed, which
    read_file asks too); a file found on disk but not in the index that it names raises NotIndexable: similar
    said 'not indexed yet, empty, or failed to parse' of a MANIFEST.tsv, which no scan will ever index."""
    named = split_collection(raw, roots)
    if named is not None and file_reads.visible_file(conn, *named) is not None:
        return named
    locate = locate or (lambda text, where, by_name: find(text, where, by_name, cwd))
    # a bare name as read_file finds it: of a file not in the index too (failed, skipped, not read yet), beside
    # indexed ones, so that its reason is told, where 'no file ... in the indexed folders' sent to list_files
    found = locate(raw, roots, lambda name: file_reads.visible_by_name(conn, name) or beside_indexed(conn, name, roots))
    if why_not is not None and file_reads.visible_file(conn, found.collection, found.relative) is None:
        reason = why_not(roots[found.collection], found.relative)
        if reason is not None:
            raise NotIndexable(found.name, reason)
    return found.collection, found.relative


def beside_indexed(conn, name: str, roots: dict[str, str]) -> list[tuple[str, str]]:
    """(collection, path) of each file called ``name`` on disk in a folder that holds a published file: one not
    indexed yet (a note just written, before the scan that reads it) found by its bare name as by its path.
    One look per folder the index knows, never a walk of the tree."""
    return [(collection, folder + name) for collection, folder in file_reads.visible_folders(conn)
            if collection in roots and os.path.lexists(os.path.join(roots[collection], folder, name))]


def split_collection(raw: str, roots: dict[str, str]) -> tuple[str, str] | None:
    """(collection, relative path) of a path spelled 'collection/relative/path' as search gives it, taken as
    it is (nothing looked up on disk); None for any other form."""
    head = collection_prefix(raw, roots)
    if head is None or not raw.startswith(head + "/"):
        return None
    relative = "/".join(part for part in raw[len(head) + 1:].split("/") if part not in ("", "."))
    return (head, relative) if relative else None


def _candidates(raw: str, roots: dict[str, str], spell=on_disk) -> list[str]:
    """Where ``raw`` may be on disk, each spelled as it is on disk when a spelling in another normal
    form exists (``spell``). A leading collection name wins: the longest one that ``raw`` begins with."""
    if os.path.isabs(raw):
        return [spell(raw)]
    named = []
    head = collection_prefix(raw, roots)
    if head is not None:
        # 'notes//tech/x.md': the rest joined as '/tech/x.md' was an absolute path, outside every root
        named = [spell(os.path.join(roots[head], nfc(raw)[len(nfc(head)) + 1:].lstrip("/")))]
        if os.path.lexists(named[0]):
            return named  # an explicit collection prefix wins
    return named + [spell(os.path.join(root, raw)) for root in roots.values()]


def in_either_script(raw: str, roots: dict[str, str]) -> list[str]:
    """The files on disk that ``raw`` names with its Chinese matched character by character in either script
    (Simplified, Traditional): 繁體/软体.md, partly in each, names the file 繁體/軟體.md, and 繁体/软体.md the file
    繁體/软体.md; each part of the path is matched against its folder's entries."""
    return list(dict.fromkeys(path for path in _candidates(raw, roots, lambda path: on_disk(path, either_script))
                              if os.path.lexists(path)))


def _add(candidate: str, found: list[Target], real_roots: dict[str, str]) -> bool:
    """Add the file at ``candidate`` to ``found`` if it exists inside a root; False if it lies outside them."""
    target = _inside(candidate, real_roots)
    if target is not None and os.path.lexists(candidate) and target not in found:
        found.append(target)
    return target is not None


def _inside(path: str, real_roots: dict[str, str]) -> Target | None:
    """The file as a Target if its real path lies inside a root (the deepest one), else None."""
    real = os.path.realpath(path)
    best = None
    for name, root in real_roots.items():
        if real != root and os.path.commonpath([real, root]) == root:
            if best is None or len(root) > len(real_roots[best]):
                best = name
    if best is None:
        return None
    relative = os.path.relpath(real, real_roots[best]).replace(os.sep, "/")
    return Target(best, relative, real)


def _by_name(raw, found, indexed_by_name, real_roots) -> list[Target]:
    """A bare file name: every indexed file so named, plus any found beside a root."""
    for collection, relative in indexed_by_name(raw):
        if collection in real_roots:
            target = _inside(os.path.join(real_roots[collection], relative), real_roots)
            if target is not None and target not in found:
                found.append(target)
    return found
