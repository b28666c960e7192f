"""Where search and list_files look: a ``path_prefix`` as a client or ``ingest search --path-prefix`` writes it
('notes/tech' as results show paths, an absolute path inside a root, or a folder relative to the collection root),
read into a collection and a folder, with a note on how it was read. Shared by the MCP tools and the CLI, so both
read a prefix alike; each passes its own ``Wording`` (MCP, CLI) so that a note names what its reader can type.
Names match in either Unicode normal form (NFC or NFD, whichever is on disk).
"""
from __future__ import annotations

import difflib
import os
import shlex
import unicodedata
from dataclasses import dataclass, replace

from search.index import listing_reads


def nfc(text: str) -> str:
    return unicodedata.normalize("NFC", text)


def file_place(roots: dict[str, str], collection: str, path: str) -> str:
    """Where a collection's file is on disk (roots are stored resolved): a file reached through two collections,
    one root inside the other's, has one place."""
    root = roots.get(collection)
    return os.path.join(root, path) if root else f"{collection}\0{path}"


def collection_named(text: str, roots: dict[str, str]) -> str | None:
    """The collection whose name is ``text`` in either normal form."""
    if text in roots:
        return text
    return next((name for name in roots if nfc(name) == nfc(text)), None)


def unknown_collection(name: str, roots) -> str:
    """The refusal of an unknown collection: the known ones, and the one probably meant (written in the other
    Chinese script, in other case, or one slip away: 中文资料 for 中文資料 was refused with no hint)."""
    near = _near_collection(name, list(roots))
    meant = f" (did you mean {near!r}?)" if near else ""
    return f"no collection named {name!r}{meant}; collections: {', '.join(sorted(roots)) or 'none'}"


def _near_collection(name: str, names: list[str]) -> str | None:
    from search.query.text import simplified
    key = lambda text: simplified(nfc(text).casefold())  # noqa: E731
    same = [n for n in sorted(names) if key(n) == key(name)]
    if same:
        return same[0]
    by_key = {key(n): n for n in sorted(names)}
    close = difflib.get_close_matches(key(name), list(by_key), n=1, cutoff=0.75)
    return by_key[close[0]] if close else None


def collection_prefix(raw: str, roots: dict[str, str]) -> str | None:
    """The collection named at the start of ``raw`` ("name/..."), the longest if several are."""
    text = nfc(raw)
    heads = [name for name in roots if text.startswith(nfc(name) + "/") and len(text) > len(nfc(name)) + 1]
    return max(heads, key=len, default=None)


def on_disk(path: str, fold=None) -> str:
    """``path`` as spelled on disk, each part matched in either Unicode normal form (NFC/NFD); the exact
    spelling is tried first, and a folder that exists in both forms is searched in both. Unchanged when
    it exists as given or nothing matches. ``fold``: a name's key to match parts by instead of its NFC form
    (search.query.files.in_either_script matches Chinese in either script so)."""
    if os.path.lexists(path):
        return path
    parts = path.split(os.sep)
    pending = [(parts[0] or os.sep, 1)]
    while pending:
        spelled, i = pending.pop()
        if i == len(parts):
            return spelled
        part = parts[i]
        options = [part] if part in ("", ".", "..") else _spellings(spelled, part, fold)
        pending += [(os.path.join(spelled, option), i + 1) for option in reversed(options)]
    return path


def either_script(name: str) -> str:
    """A name's key that matches its Chinese in either script, character by character (Simplified, Traditional),
    for ``on_disk``'s ``fold``."""
    from search.query.text import simplified
    return simplified(nfc(name))


def in_other_script(root: str, folder: str) -> str | None:
    """``folder`` (relative to ``root``) as spelled on disk where it is there only with its Chinese in the other
    script ('论文' for 論文, '筆記' for 笔记), else None."""
    if folder.isascii():
        return None
    try:
        spelled = on_disk(os.path.join(root, folder.rstrip("/")), either_script)
        relative = os.path.relpath(spelled, root).replace(os.sep, "/")
        return relative if os.path.isdir(spelled) and nfc(relative) != nfc(folder.rstrip("/")) else None
    except (OSError, ValueError):
        return None


def _spellings(folder: str, name: str, fold=None) -> list[str]:
    """The entries of ``folder`` that are ``name`` in one normal form or another (or by ``fold``), the exact
    one first."""
    exact = [name] if os.path.lexists(os.path.join(folder, name)) else []
    if name.isascii() or (fold is None and unicodedata.is_normalized("NFC", name)
                          and unicodedata.is_normalized("NFD", name)):
        return exact  # plain ASCII and the like: no other spelling (a root's folders above it not read, nor folded)
    key = fold or nfc
    wanted = key(name)
    try:
        with os.scandir(folder) as entries:
            return exact + sorted(e.name for e in entries if e.name != name and key(e.name) == wanted)
    except (OSError, ValueError):
        return exact


@dataclass(frozen=True)
class Wording:
    """How a surface names what the notes mention: its two arguments, how to give both, and where the folders
    are seen. The MCP tools' parameters or ``ingest search``'s flags, so each reader is told what it can type."""
    prefix: str  # the path prefix argument: 'path_prefix' or '--path-prefix'
    collection: str  # the collection argument
    folders: str  # what shows the folders there are
    flags: bool  # '--collection notes' rather than "collection='notes'"
    glob: str = "glob"  # list_files' pattern argument
    limit: str = "limit"  # list_files' count argument
    offset: str | None = None  # list_files' argument to skip the files listed already (None: the surface has none)
    date_after: str = "date_after"  # list_files' date range
    date_before: str = "date_before"

    def given(self, collection: str, folder: str | None, name: str | None = None) -> str:
        """'collection='notes' and path_prefix='tech'' / '--collection notes --path-prefix tech' (``name``:
        the second argument's, when it is not the path prefix)."""
        pairs = [(self.collection, collection)] + ([(name or self.prefix, folder)] if folder else [])
        if self.flags:
            return " ".join(f"{argument} {shlex.quote(value)}" for argument, value in pairs)
        return " and ".join(f"{argument}={value!r}" for argument, value in pairs)


MCP = Wording("path_prefix", "collection", "list_files with sort='path' shows the folders there are", flags=False,
              offset="offset")
CLI = Wording("--path-prefix", "--collection", "`ingest files --sort path` shows the folders there are", flags=True,
              glob="--glob", limit="--limit", date_after="--date-after", date_before="--date-before")


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


def scope(collection: str | None, prefix: str | None, roots: dict[str, str], say: Wording, conn) -> Scope:
    """The folder ``prefix`` names, written as search and list_files show paths ('notes/tech': collection
    notes, folder tech/), as an absolute path inside a root, or relative to the collection root. A
    'collection/folder' that also exists as written inside a root in scope (a folder named like the
    collection) is read as written: what is on disk as given wins, as with read_file. The notes name the
    arguments as ``say`` words them; a folder that is not there is told the nearest one the index (``conn``)
    holds files in."""
    if prefix is None or not prefix.strip():
        return Scope(collection, None)
    text = os.path.expanduser(prefix.strip())
    if os.path.isabs(text):
        inside = absolute_folder(text, roots)
        if inside is not None:
            return _there(_named(collection, prefix, *inside, say), prefix, roots, say, conn)
    folder = relative_folder(text)
    if folder and ".." in folder.split("/"):  # indexed paths have no '..': it would match nothing, unexplained
        return Scope(collection, folder, hint=f"{say.prefix} {prefix!r} has a '..' part, which no indexed path "
                     "has: give the folder as results show paths ('collection/folder'), relative to the collection "
                     "root without '..', or as an absolute path inside an indexed folder")
    head = (collection_named(folder, roots) or collection_prefix(folder, roots)) if folder else None
    if head is None:
        names = [collection] if collection else sorted(roots)
        if folder and not any(_exists(roots[n], folder) for n in names if n in roots):
            for name in (n for n in names if n in roots):
                spelled = in_other_script(roots[name], folder)
                if spelled is not None:
                    return Scope(collection, spelled, read_as=f"{say.prefix} {prefix!r} read as the folder "
                                 f"{spelled!r}, its Chinese in the other script")
        return Scope(collection, folder, hint=_outside_hint(prefix, roots, say) if os.path.isabs(text)
                     else _missing_hint(prefix, folder, collection, roots, say, conn))
    if collection is not None and collection != head:
        return Scope(collection, folder, hint=f"{say.prefix} {prefix!r} begins with the collection name {head!r} "
                     f"but {say.collection} is {collection!r}: leave {say.collection} out, or drop {head + '/'!r} "
                     f"from {say.prefix}")
    if any(_exists(roots[name], folder) for name in ([collection] if collection else roots) if name in roots):
        other = nfc(folder)[len(nfc(head)) + 1:]
        return Scope(collection, folder, read_as=f"{say.prefix} {prefix!r} read as the folder {folder!r}, "
                     f"which exists as written; for collection {head!r}"
                     + (f", folder {other!r}" if other else "") + f", pass {say.given(head, other)} instead")
    inside = nfc(folder)[len(nfc(head)) + 1:] or None
    where = _named(collection, prefix, head, inside, say)
    if folder in (head, f"{head}/{inside}"):  # 'notes/tech' read as collection notes, folder tech: the paths shown
        where = replace(where, read_as=None)  # say so; the note cost 80 characters an answer and told nothing new
    return _there(where, prefix, roots, say, conn)


def relative_folder(prefix: str | None) -> str | None:
    """A folder, relative to the collection root: 'tech', 'tech/', '/tech/' and './tech/' all mean tech/, and
    '.', './' or '' the whole root (None). Empty and '.' parts anywhere mean nothing, as on disk: 'tech/.',
    'tech//deep' and 'tech/./deep' matched no indexed path, and the folder existing, nothing said why."""
    from search.query.filters import folder_prefix
    if prefix is None:
        return None
    parts = [part for part in prefix.strip().split("/") if part not in ("", ".")]
    return folder_prefix("/".join(parts))


def _named(collection: str | None, prefix: str, name: str, folder: str | None, say: Wording) -> Scope:
    """The scope of a prefix that named collection ``name``: refused when another collection was asked for."""
    where = f"collection {name!r}" + (f", folder {folder!r}" if folder else "")
    if collection is not None and collection != name:
        return Scope(collection, relative_folder(prefix), hint=f"{say.prefix} {prefix!r} lies in {where}, but "
                     f"{say.collection} is {collection!r}: leave {say.collection} out, or give a folder inside "
                     f"{collection!r}")
    return Scope(name, folder, read_as=f"{say.prefix} {prefix!r} read as {where}")


def absolute_folder(text: str, roots: dict[str, str]) -> tuple[str, str | None] | None:
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


def _there(where: Scope, prefix: str, roots: dict[str, str], say: Wording, conn) -> Scope:
    """``where``, with a note for when nothing matches if its folder is not in its collection ('til/gti')."""
    if where.hint is not None or where.collection is None:
        return where
    root = roots.get(where.collection)
    if where.folder and root is not None and not _exists(root, where.folder):
        spelled = in_other_script(root, where.folder)
        if spelled is not None:  # '論文' for the folder 论文/: read as the folder that is there
            return replace(where, folder=spelled, read_as=f"{say.prefix} {prefix!r} read as collection "
                           f"{where.collection!r}, folder {spelled!r}, its Chinese in the other script")
    return replace(where, hint=_missing_hint(prefix, where.folder, where.collection, roots, say, conn))


def _missing_hint(prefix: str, folder: str | None, collection: str | None, roots: dict[str, str],
                  say: Wording, conn) -> str | None:
    """What to do when a relative folder is in no root in scope: 'no passages match' alone did not say that
    the folder itself was not there (a typo, or a folder of another collection's name)."""
    names = [collection] if collection else sorted(roots)
    if not folder or any(_exists(roots[n], folder) for n in names if n in roots):
        return None
    where = f"collection {collection!r}" if collection else f"any collection ({', '.join(names) or 'none'})"
    near = _near(folder, [n for n in names if n in roots], conn)
    head, slash, _ = prefix.strip().rstrip("/").rpartition("/")
    meant = f" (did you mean {head + slash + near!r}?)" if near else _deeper(folder, collection, names, roots, conn)
    return f"{say.prefix} {prefix!r}: there is no folder {folder.rstrip('/')!r} in {where}{meant}; {say.folders}"


def _deeper(folder: str, collection: str | None, names: list[str], roots: dict[str, str], conn) -> str:
    """' (did you mean 'code/huey/tests'?)' for a folder that is not at the root but lower down ('tests' in a
    repository whose tests are in huey/tests): the note said only that there was no folder 'tests' and to list
    the files by path, a hundred files to read for the folder meant. Written as the prefix was: relative to the
    root with the collection given, else as results show paths."""
    found = sorted((f.count("/"), f if collection else f"{name}/{f}") for name in names if name in roots
                   for f in listing_reads.folders_ending(conn, name, folder))
    found = [shown for _, shown in found[:3]]
    return f" (did you mean {' or '.join(repr(f) for f in found)}?)" if found else ""


def _near(folder: str, collections: list[str], conn) -> str | None:
    """The folder beside a missing one whose name is closest to its last part ('sqlite' for 'til/sqlte'), as
    the spelling note does for query words: the folders listing alone does not show a typo. Only folders the
    index holds files in are offered: read from disk, the nearest could be .git, node_modules or a folder the
    collection's rules exclude, where search and list_files find nothing. Asked only when the answer already
    says the folder is missing."""
    parent, _, last = folder.rstrip("/").rpartition("/")
    names = set()
    for spelling in dict.fromkeys((parent, nfc(parent), unicodedata.normalize("NFD", parent))):
        for collection in collections:
            names |= listing_reads.subfolders(conn, collection, spelling)
    by_lower = {nfc(name).lower(): name for name in sorted(names)}
    found = difflib.get_close_matches(nfc(last).lower(), list(by_lower), n=1, cutoff=0.7)
    return by_lower[found[0]] if found else None


def _outside_hint(prefix: str, roots: dict[str, str], say: Wording) -> str:
    return (f"{say.prefix} {prefix!r} is not inside an indexed folder ({', '.join(sorted(roots.values()))}), so it "
            "was read as a folder relative to the collection root; give 'collection/folder' as results show "
            "paths, an absolute path inside one of those folders, or a folder relative to the root")
