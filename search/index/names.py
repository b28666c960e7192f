"""What may name a collection: 'collection/path' must split one way only, so a name cannot hold a folder
separator, a control character or surrounding spaces. Checked before anything is written; an existing
collection with a bad name is reported with the fix."""
from __future__ import annotations

import os
import re
import shlex
import unicodedata

MAX_NAME = 200  # what the MCP tools accept as a collection name


def check_name(name) -> None:
    """Raise ValueError, saying why and what to do, if ``name`` cannot name a collection."""
    why = name_problem(name)
    if why:
        raise ValueError(f"collection name {name!r} cannot be used: {why}, which makes 'collection/path' "
                         f"ambiguous; choose another with --name (e.g. --name {_suggested(name)!r})")


def name_problem(name) -> str | None:
    """Why ``name`` cannot name a collection ('collection/path' must split one way only), or None."""
    if not isinstance(name, str) or not name.strip():
        return "it is empty"
    if name != name.strip():
        return "it begins or ends with a space"
    if name in (".", ".."):
        return f"{name!r} means a folder in a path"
    if "/" in name or "\\" in name:
        return "it holds '/' or '\\', which separate folders"
    if any(unicodedata.category(ch) in ("Cc", "Cs", "Zl", "Zp") for ch in name):
        return "it holds a control character, a line break or bytes that are not text"
    if len(name) > MAX_NAME:
        return f"it is longer than {MAX_NAME} characters"
    return None


def bad_name_fix(name: str, root: str) -> str | None:
    """For an existing collection whose name is refused now: what is wrong and how to rename it."""
    why = name_problem(name)
    if why is None:
        return None
    return (f"the collection name {name!r} makes 'collection/path' ambiguous ({why}): rename it with "
            f"`ingest enqueue {shlex.quote(root)} --name NEWNAME` (or sift-mcp --root {shlex.quote(root)} --name NEWNAME)")


def _suggested(name) -> str:
    text = name if isinstance(name, str) else ""
    text = re.sub(r"[/\\\s\x00-\x1f\x7f-\x9f\u2028\u2029\ud800-\udfff]+", "-", text).strip("-. ")
    return text[:MAX_NAME] or "notes"


def nesting(root: str, collections, left_out=None) -> tuple[str | None, list[str]]:
    """A new root among the registered ``collections`` (rows with name and root): (why it is refused — it lies
    inside another collection's root, which indexes its files already —, or None; notes on the collections it
    holds, whose passages search would show twice). ``left_out(outer_root, folder)``, if given, says whether a
    scan of ``outer_root`` leaves out the ``folder`` under it (a hidden or ignored one): no files are shared
    then, and nothing is said of it."""
    c = container(root, collections, left_out)
    refusal = None
    if c is not None:
        rel = os.path.relpath(root, c["root"])
        refusal = (f"{root} lies inside the collection {c['name']!r} ({c['root']}), which indexes its files "
                   f"already: a second collection would show each of their passages twice in search; search them "
                   f"there with --collection {shlex.quote(c['name'])} --path-prefix {shlex.quote(rel)} (over MCP: collection "
                   f"'{c['name']}', path_prefix '{rel}')")
    held = [f"{root} holds the collection {c['name']!r} ({c['root']}): its files will be indexed in both, and "
            f"search will show each of their passages twice (--collection picks one)"
            for c in collections if _under(c["root"], root) and not _left_out(left_out, root, c["root"])]
    return refusal, held


def container(root: str, collections, left_out=None):
    """The collection (of ``collections``) whose root holds ``root`` and whose scan reads it (``left_out``, as for
    ``nesting``), the nearest if several; None if none."""
    inside = [c for c in collections if _under(root, c["root"]) and not _left_out(left_out, c["root"], root)]
    return max(inside, key=lambda c: len(c["root"])) if inside else None


def _left_out(left_out, outer: str, inner: str) -> bool:
    return left_out is not None and left_out(outer, os.path.relpath(inner, outer).replace(os.sep, "/"))


def _under(path: str, folder: str) -> bool:
    """Whether ``path`` lies strictly inside ``folder`` (both real, absolute)."""
    return path != folder and path.startswith(folder.rstrip(os.sep) + os.sep)


def moved_note(name: str, old: str, root: str) -> str:
    """What ``ingest enqueue`` and ``sift-mcp --root`` say of a collection that followed its folder
    (``store.follow_move``)."""
    return (f"collection {name!r} was at {old}, where nothing is left now: it follows the folder to {root} (files "
            "found as they were keep their passages and vectors)")


def tag_names(written) -> set[str]:
    """Tags as the index keeps them and a search names them (a file's meta's JSON list, a passage's own, a list
    or one value): without '#' and '/' around, casefolded ('#Project/Sift/' → 'project/sift'), blanks dropped."""
    import json
    if isinstance(written, (str, bytes)):
        try:
            written = json.loads(written) if written else []
        except ValueError:  # one tag, as json_extract gives a string value
            written = [written]
    if written is None:
        return set()
    if not isinstance(written, list):
        written = [written]
    return {name for name in (str(tag).strip().lstrip("#").strip("/").casefold() for tag in written) if name}
