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


def nfc(text: str) -> str:
    return unicodedata.normalize("NFC", text)


def _collection_named(text: str, roots: dict[str, str]) -> str | None:
    """The collection whose name is ``text`` in either normal form."""
    if text in roots:
        return text
    return next((name for name in roots if nfc(name) == nfc(text)), None)


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


def _collection_prefix(raw: str, roots: dict[str, str]) -> str | None:
    """The collection named at the start of ``raw`` ("name/..."), the longest if several are."""
    text = nfc(raw)
    heads = [name for name in roots if text.startswith(nfc(name) + "/") and len(text) > len(nfc(name)) + 1]
    return max(heads, key=len, default=None)


def on_disk(path: str) -> str:
    """``path`` as spelled on disk, each part matched in either Unicode normal form (NFC/NFD); the exact
    spelling is tried first, and a folder that exists in both forms is searched in both. Unchanged when
    it exists as given or nothing matches."""
    if os.path.lexists(path):
        return path
    parts = path.split(os.sep)
    pending = [(parts[0] or os.sep, 1)]
    while pending:
        spelled, i = pending.pop()
        if i == len(parts):
            return spelled
        part = parts[i]
        options = [part] if part in ("", ".", "..") else _spellings(spelled, part)
        pending += [(os.path.join(spelled, option), i + 1) for option in reversed(options)]
    return path


def _spellings(folder: str, name: str) -> list[str]:
    """The entries of ``folder`` that are ``name`` in one normal form or another, the exact one first."""
    exact = [name] if os.path.lexists(os.path.join(folder, name)) else []
    if unicodedata.is_normalized("NFC", name) and unicodedata.is_normalized("NFD", name):
        return exact  # plain ASCII and the like: no other spelling
    wanted = nfc(name)
    try:
        with os.scandir(folder) as entries:
            return exact + sorted(e.name for e in entries if e.name != name and nfc(e.name) == wanted)
    except (OSError, ValueError):
        return exact


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


# --- path_prefix: a folder to search or list -------------------------------------------------------------

@dataclass(frozen=True)
class Scope:
    """Where search and list_files look: a collection (None: all) and a folder relative to its root (None:
    all of it), with a note on how path_prefix was read and a hint to show if nothing matches."""
    collection: str | None
    folder: str | None
    read_as: str | None = None
    hint: str | None = None

    def notes(self, found: bool) -> list[str]:
        return [n for n in (self.read_as, None if found else self.hint) if n]


def scope(collection: str | None, prefix: str | None, roots: dict[str, str]) -> Scope:
    """The folder ``prefix`` names, written as search and list_files show paths ('notes/tech': collection
    notes, folder tech/), as an absolute path inside a root, or relative to the collection root. A
    'collection/folder' that also exists as written inside a root in scope (a folder named like the
    collection) is read as written: what is on disk as given wins, as with read_file."""
    if prefix is None or not prefix.strip():
        return Scope(collection, None)
    text = os.path.expanduser(prefix.strip())
    if os.path.isabs(text):
        inside = _absolute_folder(text, roots)
        if inside is not None:
            return _named(collection, prefix, *inside)
    folder = relative_folder(text)
    if folder and ".." in folder.split("/"):  # indexed paths have no '..': it would match nothing, unexplained
        return Scope(collection, folder, hint=f"path_prefix {prefix!r} has a '..' part, which no indexed path has: "
                     "give the folder as results show paths ('collection/folder'), relative to the collection "
                     "root without '..', or as an absolute path inside an indexed folder")
    head = (_collection_named(folder, roots) or _collection_prefix(folder, roots)) if folder else None
    if head is None:
        return Scope(collection, folder, hint=_outside_hint(prefix, roots) if os.path.isabs(text) else None)
    if collection is not None and collection != head:
        return Scope(collection, folder, hint=f"path_prefix {prefix!r} begins with the collection name {head!r} "
                     f"but collection is {collection!r}: leave collection out, or drop {head + '/'!r} from path_prefix")
    if any(_exists(roots[name], folder) for name in ([collection] if collection else roots) if name in roots):
        other = nfc(folder)[len(nfc(head)) + 1:]
        return Scope(collection, folder, read_as=f"path_prefix {prefix!r} read as the folder {folder!r}, "
                     f"which exists as written; for collection {head!r}"
                     + (f", folder {other!r}" if other else "") + f", pass collection={head!r}"
                     + (f" and path_prefix={other!r}" if other else "") + " instead")
    return _named(collection, prefix, head, nfc(folder)[len(nfc(head)) + 1:] or None)


def relative_folder(prefix: str | None) -> str | None:
    """A folder, relative to the collection root: 'tech', 'tech/', '/tech/' and './tech/' all mean tech/."""
    from search.query.filters import folder_prefix
    if prefix is None:
        return None
    prefix = prefix.strip().lstrip("/")
    while prefix.startswith("./"):
        prefix = prefix[2:].lstrip("/")
    return folder_prefix(prefix)


def _named(collection: str | None, prefix: str, name: str, folder: str | None) -> Scope:
    """The scope of a prefix that named collection ``name``: refused when another collection was asked for."""
    where = f"collection {name!r}" + (f", folder {folder!r}" if folder else "")
    if collection is not None and collection != name:
        return Scope(collection, relative_folder(prefix), hint=f"path_prefix {prefix!r} lies in {where}, but "
                     f"collection is {collection!r}: leave collection out, or give a folder inside {collection!r}")
    return Scope(name, folder, read_as=f"path_prefix {prefix!r} read as {where}")


def _absolute_folder(text: str, roots: dict[str, str]) -> tuple[str, str | None] | None:
    """(collection, folder relative to its root) of an absolute path inside a root, as written or by its
    real path; the deepest root wins. None when it lies in no root."""
    try:
        spellings = {nfc(os.path.normpath(text)), nfc(os.path.realpath(text))}
    except ValueError:  # a NUL byte or a lone surrogate: no such folder on disk
        return None
    found = []
    for name, root in roots.items():
        for base in {nfc(os.path.normpath(root)), nfc(os.path.realpath(root))}:
            for path in spellings:
                if path == base or path.startswith(base.rstrip("/") + "/"):
                    found.append((len(base), name, path[len(base):].strip("/") or None))
    return max(found, key=lambda f: f[0])[1:] if found else None


def _exists(root: str, folder: str) -> bool:
    try:
        return os.path.lexists(on_disk(os.path.join(root, folder)))
    except ValueError:
        return False


def _outside_hint(prefix: str, roots: dict[str, str]) -> str:
    return (f"path_prefix {prefix!r} is not inside an indexed folder ({', '.join(sorted(roots.values()))}), so it "
            "was read as a folder relative to the collection root; give 'collection/folder' as results show "
            "paths, an absolute path inside one of those folders, or a folder relative to the root")


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
