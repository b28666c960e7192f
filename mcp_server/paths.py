"""Turning a path a client gives into a file inside a registered root, or refusing it.

A path may be "collection/relative/path", a path relative to a root, an
absolute path inside a root, or a bare file name of an indexed file. Every
candidate is resolved with realpath (so ``..`` and symlinks are followed) and
must land inside a root's realpath; anything else is refused.

Names match in either Unicode normal form: a client that writes "café.md" in
NFC finds the file macOS named in NFD, and the answer names it as it is on disk.
"""
from __future__ import annotations

import os
import stat
import unicodedata
from dataclasses import dataclass

from mcp_server.errors import Problem
from search.query.scope import (Scope, _collection_named, _collection_prefix, nfc, on_disk,  # noqa: F401
                                relative_folder, scope)


@dataclass(frozen=True)
class Target:
    collection: str
    relative: str  # '/'-separated, relative to the collection root
    absolute: str  # the real path on disk

    @property
    def name(self) -> str:
        return f"{self.collection}/{self.relative}"


class Ambiguous(Exception):
    """Several files answer to the name; ``candidates`` lists them as collection/path."""

    def __init__(self, raw: str, candidates: list[str]):
        super().__init__(f"{len(candidates)} files are called {raw!r}")
        self.candidates = candidates


def resolve(raw: str, roots: dict[str, str], indexed_by_name=None) -> Target:
    """The file ``raw`` names. ``indexed_by_name(name)`` lists (collection, path) of indexed files so named."""
    raw = _checked(raw)
    real_roots = {name: os.path.realpath(root) for name, root in roots.items()}
    if not real_roots:
        raise Problem("no folders are registered yet: start sift-mcp with --root FOLDER")
    collection = _collection_named(raw.rstrip("/"), roots)
    if collection is not None:
        raise Problem(f"{raw!r} is a collection (a folder): use list_files with collection={collection!r}")
    found, refused = [], False
    for candidate in _candidates(raw, roots):
        target = _inside(candidate, real_roots)
        if target is None:
            refused = True
        elif os.path.lexists(candidate) and target not in found:
            found.append(target)
    if refused and not found:
        raise Problem(f"refused: {raw!r} lies outside the indexed folders ({', '.join(sorted(roots))}); "
                      "read_file only reads files inside them. Give a path like 'collection/relative/path'.")
    if "/" not in raw and indexed_by_name is not None:
        for spelling in dict.fromkeys((raw, nfc(raw), unicodedata.normalize("NFD", raw))):
            found = _by_name(spelling, found, indexed_by_name, real_roots)
    if not found:
        raise Problem(f"no file {raw!r} in the indexed folders: find it with search or list_files, "
                      "then pass the path they give ('collection/relative/path')")
    if len(found) > 1:
        raise Ambiguous(raw, sorted(t.name for t in found))
    return _regular(found[0], raw)


def _checked(raw) -> str:
    if not isinstance(raw, str) or not raw.strip():
        raise Problem("the path is empty: give a path like 'collection/relative/path'")
    if "\x00" in raw:
        raise Problem("refused: the path contains a NUL byte")
    try:
        raw.encode("utf-8")
    except UnicodeEncodeError:
        raise Problem("refused: the path is not valid Unicode text (it holds a lone surrogate)") from None
    return os.path.expanduser(raw.strip())


def _candidates(raw: str, roots: dict[str, str]) -> list[str]:
    """Where ``raw`` may be on disk, each spelled as it is on disk when a spelling in another normal
    form exists. A leading collection name wins: the longest one that ``raw`` begins with."""
    if os.path.isabs(raw):
        return [on_disk(raw)]
    named = []
    head = _collection_prefix(raw, roots)
    if head is not None:
        named = [on_disk(os.path.join(roots[head], nfc(raw)[len(nfc(head)) + 1:]))]
        if os.path.lexists(named[0]):
            return named  # an explicit collection prefix wins
    return named + [on_disk(os.path.join(root, raw)) for root in roots.values()]


def split_collection(raw: str, roots: dict[str, str]) -> tuple[str, str] | None:
    """(collection, relative path) of a path spelled 'collection/relative/path' as search gives it, taken as
    it is (nothing looked up on disk); None for any other form."""
    raw = _checked(raw)
    head = _collection_prefix(raw, roots)
    if head is None or not raw.startswith(head + "/"):
        return None
    return head, raw[len(head) + 1:]


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


SPECIAL = ((stat.S_ISFIFO, "a named pipe (FIFO)"), (stat.S_ISSOCK, "a socket"),
           (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"))


def _regular(target: Target, raw: str) -> Target:
    if os.path.isdir(target.absolute):
        raise Problem(f"{target.name} is a folder: use list_files with collection and path_prefix to see inside")
    try:
        mode = os.stat(target.absolute).st_mode
    except OSError as exc:
        raise Problem(f"{raw!r} cannot be read: {exc.strerror}") from None
    refuse_special(target.name, mode)
    return target


def refuse_special(name: str, mode: int) -> None:
    """A Problem unless ``mode`` is a regular file's: a FIFO would block the reader, a device never end."""
    if stat.S_ISREG(mode):
        return
    what = next((label for test, label in SPECIAL if test(mode)), "not a regular file")
    raise Problem(f"{name} is {what}, not a regular file: read_file reads regular files only")


def glob_hint(glob: str | None, roots: dict[str, str]) -> str | None:
    """What to write instead, when a glob that matched nothing begins with a collection's name or is absolute."""
    if not glob:
        return None
    head = _collection_prefix(glob, roots)
    if head is not None:
        return (f"glob matches paths relative to the collection root, without the collection name: "
                f"collection={head!r}, glob={glob[len(head) + 1:]!r}")
    if os.path.isabs(glob):
        return "glob matches paths relative to the collection root: not an absolute path, e.g. 'tech/*.md'"
    return None
