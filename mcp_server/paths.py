"""Turning a path a client gives into a file inside a registered root, or refusing it, in MCP terms.

Finding the file is search.query.files' (shared with ``ingest similar``): "collection/relative/path", a path
relative to a root, an absolute path inside a root, or a bare file name of an indexed file, each resolved with
realpath and kept inside a root's realpath, in either Unicode normal form. This module checks the text first,
refuses a collection, a folder or a special file, and says each failure as a tool error.
"""
from __future__ import annotations

import os
import re
import stat
from typing import NamedTuple
from urllib.parse import unquote

from ingest.discover import why_not_indexed
from mcp_server.errors import Problem
from search.query import files
from search.query.files import Ambiguous, Target  # noqa: F401  (paths.Target, paths.Ambiguous to the tools)
from search.query.scope import collection_named
from search.query.text import CJK_RUN, other_scripts


def resolve(raw: str, roots: dict[str, str], indexed_by_name=None) -> Target:
    """The file ``raw`` names. ``indexed_by_name(name)`` lists (collection, path) of indexed files so named."""
    raw = _checked(raw)
    if not roots:
        raise Problem("no folders are registered yet: start sift-mcp with --root FOLDER")
    collection = collection_named(raw.rstrip("/"), roots)
    if collection is not None:
        raise Problem(f"{raw!r} is a collection (a folder): use list_files with collection={collection!r}")
    try:
        found = files.find(raw, roots, indexed_by_name)
    except files.Outside:
        _refuse_a_root(raw, roots)
        raise Problem(f"refused: {raw!r} lies outside the indexed folders ({', '.join(sorted(roots))}); "
                      "read_file only reads files inside them. Give a path like 'collection/relative/path'."
                      + _link_meant(raw, indexed_by_name)) from None
    except files.Missing:
        unescaped = _unescaped(raw, roots, indexed_by_name)
        if unescaped is not None:
            return _regular(unescaped, raw)
        meant = _with_slashes(raw, roots, indexed_by_name)
        if meant is not None:
            raise Problem(f"no file {raw!r} in the indexed folders: did you mean {meant!r}? Paths are written "
                          "with '/', as search and list_files give them") from None
        raise Problem(f"no file {raw!r} in the indexed folders{_no_such_collection(raw, roots)}: find it with "
                      "search or list_files, then pass the path they give ('collection/relative/path'); a file "
                      "not indexed yet is found by its bare name only beside indexed files: elsewhere give its "
                      "path") from None
    return _regular(found, raw)


LINK_MEANT = 3  # indexed files named as a note's '../' link is, offered for it


def _link_meant(raw: str, indexed_by_name) -> str:
    """" A note's link is relative to the note's folder: did you mean 'research/papers/x.pdf#page=7'?" for a path
    copied from a note's link ('../papers/x.pdf#page=7'): an assistant that read the note and followed its link to
    a paper was told only that it lies outside the indexed folders. The indexed files whose path ends as the link's
    does after its '..' (by the file's name, a '#page=…' after it set aside, when none does)."""
    if indexed_by_name is None or os.path.isabs(raw) or ".." not in raw.split("/"):
        return ""
    tail = "/".join(part for part in raw.split("/") if part not in ("..", "."))
    cut = tail.rfind("#")
    tried = [(tail, "")] + ([(tail[:cut], tail[cut:])] if cut > 0 else [])
    # a Markdown link as written ('../papers/Multi%20Column.pdf'), a space in a name escaped: its file's name too
    tried += [(unquote(path), place) for path, place in tried if unquote(path) != path]
    for path, place in tried:
        if not path.rsplit("/", 1)[-1]:  # '../', '..': no file named (by '' every folder is found, offered for it)
            continue
        found = [f"{collection}/{relative}" for collection, relative in indexed_by_name(path.rsplit("/", 1)[-1])]
        ending = [f for f in found if f == path or f.endswith("/" + path)]
        if ending or found:
            shown = " or ".join(repr(f + place) for f in (ending or found)[:LINK_MEANT])
            return f" A note's link is relative to the note's folder: did you mean {shown}?"
    return ""


def _no_such_collection(raw: str, roots: dict[str, str]) -> str:
    """' ('notes' names no collection, they are code, pdf, nor a folder at their roots)' for a path whose first
    part is neither: a path a search gave before its collection was removed (`ingest remove notes`) was told
    only that no such file was in the indexed folders, as if the file alone had gone."""
    first, slash, _ = raw.lstrip("/").partition("/")
    if not slash or not first or os.path.isabs(raw) or collection_named(first, roots) is not None:
        return ""
    try:
        if any(os.path.lexists(os.path.join(root, first)) for root in roots.values()):
            return ""
    except ValueError:
        return ""
    return f" ({first!r} names no collection, they are {', '.join(sorted(roots))}, nor a folder at their roots)"


ESCAPE = re.compile(r"\\(?:x[0-9a-f]{2}|u[0-9a-f]{4}|U[0-9a-f]{8}|[ntr])")


def _unescaped(raw: str, roots: dict[str, str], indexed_by_name) -> Target | None:
    """The file 'notes/odd\\nname.md' names as the tools' text shows a name with a control character in it
    (escaped, so that it stays on one line: workers.stats.printable), when no file is called so as written: a
    model that copied the name from the text was told there is no such file."""
    if not ESCAPE.search(raw):
        return None
    try:
        return files.find(ESCAPE.sub(lambda m: m.group().encode("ascii").decode("unicode_escape"), raw), roots,
                          indexed_by_name)
    except LookupError:  # Outside, Missing, Ambiguous: the text as written is what failed
        return None


def _with_slashes(raw: str, roots: dict[str, str], indexed_by_name) -> str | None:
    """The file 'notes\\tech\\x.md' (a path written as Windows writes it) means with '/' for '\\', when there is
    one: a name may hold a backslash here, so it is offered, not taken."""
    if "\\" not in raw:
        return None
    try:
        return files.find(raw.replace("\\", "/"), roots, indexed_by_name).name
    except LookupError:  # Outside, Missing, Ambiguous: nothing to offer
        return None


def _refuse_a_root(raw: str, roots: dict[str, str]) -> None:
    """A collection's own folder ('/home/me/notes', '.', 'notes/.') is a folder, not a file: it was refused as
    lying outside the indexed folders, which it is not."""
    named = files.roots_named(raw, roots)
    if named:
        which = f"collection {named[0]!r}" if len(named) == 1 else f"collections {', '.join(map(repr, named))}"
        raise Problem(f"{raw!r} is the folder of {which} (its root), not a file: use list_files with "
                      f"collection={named[0]!r} to see inside")


def indexed(conn, raw: str, roots: dict[str, str], rules=None) -> tuple[str, str]:
    """(collection, relative path) of the file similar is asked about (see files.indexed_file): a published
    'collection/path' as it is, else the file read_file would open; one a scan leaves out is refused as
    read_file refuses it (``rules``: the discovery rules). A path with the lines or page a result wrote after
    it ('notes/x.md:12-30') that names no file as written is the file without them."""
    try:
        return _indexed(conn, raw, roots, rules)
    except Problem:
        place = location(raw)
        if place is not None:
            try:
                return _indexed(conn, place.path, roots, rules)
            except Problem:
                pass
        other = in_other_script(raw, roots, lambda form: _indexed(conn, form, roots, rules))
        if other is None:
            raise
        return other[1]  # similar's answer names the file it compared ('passages like 繁體/軟體.md')


def in_other_script(raw: str, roots: dict[str, str], locate):
    """(the path as read, ``locate(it)``) for a path with Chinese in it that names no file as written but does
    in the other script: 繁体/软体.md for the file 繁體/軟體.md (as search finds 資料 for 资料); else None.
    The whole path in one script first (search.query.text.other_scripts), then each character in either
    (files.in_either_script): 繁體/软体.md, partly in each, was not found."""
    if not CJK_RUN.search(raw):
        return None
    for form in _in_other_scripts(raw, roots):
        try:
            return form, locate(form)
        except (Problem, LookupError):
            continue
    return None


def _in_other_scripts(raw: str, roots: dict[str, str]):
    yield from other_scripts(raw)
    yield from files.in_either_script(_checked(raw), roots)  # looked for on disk once those are not found


def _indexed(conn, raw: str, roots: dict[str, str], rules) -> tuple[str, str]:
    try:
        return files.indexed_file(conn, _checked(raw), roots, locate=resolve,
                                  why_not=lambda root, rel: why_not_indexed(root, rel, rules))
    except files.NotIndexable as left_out:
        raise Problem(f"{left_out}: similar compares only the files search can find") from None


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


def split_collection(raw: str, roots: dict[str, str]) -> tuple[str, str] | None:
    """(collection, relative path) of a path spelled 'collection/relative/path' as search gives it, taken as
    it is (nothing looked up on disk); None for any other form."""
    return files.split_collection(_checked(raw), roots)


def under_a_root(raw: str, roots: dict[str, str]) -> tuple[str, str] | None:
    """(collection, relative path) of an absolute path inside a root as written (nothing looked up on disk: the
    file, or the root itself, may be gone); None for any other form."""
    from search.query.scope import absolute_folder
    text = _checked(raw)
    inside = absolute_folder(text, roots) if os.path.isabs(text) else None
    return inside if inside is not None and inside[1] else None


SPECIAL = ((stat.S_ISFIFO, "a named pipe (FIFO)"), (stat.S_ISSOCK, "a socket"),
           (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"))


def _regular(target: Target, raw: str) -> Target:
    if os.path.isdir(target.absolute):
        # its arguments written out, to copy: 'with collection and path_prefix' left the model to split the path
        raise Problem(f"{target.name} is a folder: list_files with collection={target.collection!r}, "
                      f"path_prefix={target.relative!r} shows what is inside")
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


class Location(NamedTuple):
    """A path with the place a result gave after it: 'notes/x.md:12-30', 'notes/x.md  lines 12-30'."""
    path: str
    start_line: int | None
    end_line: int | None
    page: int | None


# The places results write after a path: ':12', ':12-30' (ingest search, grep, compilers; ':12:5' with a column),
# '#L12-L30' (GitHub), '#page=4' (PDF viewers), '  lines 12-30', '  line 12', '  page 4 (printed 8)', '  pages
# 4-5' (search and similar), ' p.4' (ingest search's PDF hits).
PLACE = re.compile(
    r"(?::(?P<colon>\d+)(?:-(?P<colon_end>\d+)|:\d+)?"
    r"|#L(?P<anchor>\d+)(?:-L?(?P<anchor_end>\d+))?"
    r"|#page=(?P<anchor_page>\d+)"
    r"|\s+lines?\s+(?P<words>\d+)(?:-(?P<words_end>\d+))?"
    r"|\s+(?:pages?\s+|p\.)(?P<page>\d+)(?:-\d+)?(?:\s+\(printed [^)]*\))?)\s*$")


def location(raw) -> Location | None:
    """``raw`` split into a path and the lines or page written after it, when it ends with such a place; for a
    path that names no file as written (a file may be named 'x:12')."""
    if not isinstance(raw, str):
        return None
    found = PLACE.search(raw)
    if found is None or not raw[:found.start()].strip():
        return None
    number = lambda *keys: next((int(found[k]) for k in keys if found[k] is not None), None)  # noqa: E731
    return Location(raw[:found.start()], number("colon", "anchor", "words"),
                    number("colon_end", "anchor_end", "words_end"), number("page", "anchor_page"))
