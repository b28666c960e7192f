"""Sync conflict copies: the second file a sync tool writes when a note was changed on two machines at once.

Dropbox writes ``note (conflicted copy 2024-03-01).md`` (``note (Ann's conflicted copy 2024-03-01).md``),
Nextcloud and Obsidian ``note (conflicted copy 2024-03-01 123456).md``, ownCloud ``note_conflict-20240301-123456.md``,
Syncthing ``note.sync-conflict-20240301-123456-ABCDEFG.md``, Google Drive and a browser's second download
``note (1).md``, OneDrive the machine's name appended, ``note-DESKTOP-AB12CDE.md`` (taken only for Windows' default
names, DESKTOP- or LAPTOP- and capitals or digits: ``note-Anns-PC.md`` cannot be told from a note so named).
iCloud Drive writes ``note 2.md``, as ``chapter 2.md`` beside ``chapter.md`` may well be named: ``original_of`` does
not take it, ``maybe_original_of`` does, for a caller that compares the texts too (similar). Dropbox copies a whole
folder too: a folder left out by selective sync and made again on this machine comes back beside it as ``Notes
(Selective Sync Conflict)/`` (``… Conflict 2)``), each note in it a copy of the note at the same path in ``Notes/``.

Such a copy is a file of its own (listed, searchable, read), but it holds nearly the note's text: a search gave
each passage twice, at the same score, the copy taking a place of the page from another note.
``fold`` keeps the original's hits and names the copy on them; a copy whose original has no hit is shown as
itself, named as the copy it is, and so is a passage of the copy the original does not hold: a conflict copy is
the other machine's edit, and 'note (1).md' may be a note of its own, so the passage a search found only there
was left off the page for the original's.
"""
from __future__ import annotations

import re

COPY = re.compile(r"""^(?P<stem>.+?)(?:
    \ \([^()]*\bconflicted\ copy\b[^()]*(?:\(\d+\)[^()]*)?\)   # Dropbox, Nextcloud, Obsidian Sync
  | _conflict-\d{8}-\d{6}                                      # ownCloud
  | \.sync-conflict-\d{8}-\d{6}(?:-[A-Z0-9]{7})?               # Syncthing
  | \ \(\d{1,3}\)                                              # Google Drive, a second download
  | -(?-i:(?:DESKTOP|LAPTOP)-[A-Z0-9]{3,8})                     # OneDrive, Windows' default machine names
)(?P<ext>\.[^./ ]+)?$""", re.X | re.I)
# Dropbox's copy of a folder ('Notes (Selective Sync Conflict)', '… Conflict 2)'): few name a folder of theirs so
FOLDER_COPY = re.compile(r"^(?P<stem>.*[^ ]) \(Selective Sync Conflict(?: \d{1,3})?\)$", re.I)
NUMBERED = re.compile(r"^(?P<stem>.*[^ ]) (?:[2-9]|[1-9]\d)(?P<ext>\.[^./ ]+)?$")  # iCloud Drive's 'note 2.md'


def original_of(path: str) -> str | None:
    """The path of the note ``path`` is a sync conflict copy of (same folder, same extension; a copy inside
    Dropbox's copy of a folder, 'Notes (Selective Sync Conflict)/plan (1).md', copies the original folder's note,
    'Notes/plan.md'), or None."""
    named = _named_original(path)
    if named is None:
        return _in_original_folder(path)
    return _in_original_folder(named) or named


def originals(path: str) -> list[str]:
    """The notes ``path`` may be folded into, the first original first: ``original_of``'s, then, for a copy of a
    note inside Dropbox's copy of a folder, the note so named in that folder ('Notes (Selective Sync Conflict)/
    plan.md', itself a copy), which takes its copies where the index does not hold the original ('Notes/plan.md')."""
    original = original_of(path)
    if original is None:
        return []
    named = _named_original(path)
    return [original] if named is None or named == original else [original, named]


def _named_original(path: str) -> str | None:
    """The note of the same folder whose copy ``path``'s name says it is ('plan (1).md': 'plan.md'), or None."""
    folder, slash, name = path.rpartition("/")
    match = COPY.match(name)
    if not match or match["stem"].startswith("."):
        return None
    return f"{folder}{slash}{match['stem']}{match['ext'] or ''}"


def _in_original_folder(path: str) -> str | None:
    """``path`` with each folder of it that is Dropbox's copy of a folder (FOLDER_COPY) named as the folder it
    copies ('Notes (Selective Sync Conflict)/a.md': 'Notes/a.md'), or None when no folder of it is one."""
    parts = path.split("/")
    folders = [FOLDER_COPY.sub(r"\g<stem>", part) for part in parts[:-1]]
    if folders == parts[:-1]:
        return None
    return "/".join([*folders, parts[-1]])


def maybe_original_of(path: str) -> str | None:
    """``original_of``, or the note an iCloud Drive copy's name says it copies (``note 2.md``: ``note.md``), which a
    note of its own may be named like (``chapter 2.md``): for a caller that compares the texts too."""
    found = original_of(path)
    if found is not None:
        return found
    folder, slash, name = path.rpartition("/")
    match = NUMBERED.match(name)
    if not match or match["stem"].startswith("."):
        return None
    return f"{folder}{slash}{match['stem']}{match['ext'] or ''}"


WORD = re.compile(r"\w+")


def fold(ranked: list, where: list[tuple[str, str]], held, texts, query: str,
         skip: set[str] | frozenset = frozenset()) -> tuple[list, dict, dict]:
    """``ranked`` (``where``: each item's (collection, path)) without the passages of a conflict copy whose original
    ranks too, unless the copy's passage holds a word of ``query`` none of the original's ranked passages holds;
    {(collection, original): [the copies folded into it, 'collection/path']}, and {(collection, copy):
    ('collection/original', whether the original ranks)} for a copy that stays: its original, which had no hit, is
    indexed (``held``), or its passage holds what the original's do not (the copy's side of the conflict, the other
    machine's edit; or 'note (1).md' is a note of its own). ``texts``: {chunk id: its text} of the ids given; ``skip``:
    the query's words search does not look up (a question's framing, common words: engine's ``common_words``), which
    keep no copy: 'how do I feed the starter?' kept a copy whose edit said 'I do it', as holding 'i' and 'do'."""
    ranking = set(where)

    def ranking_original(collection: str, path: str) -> str | None:  # the first of its originals that ranks
        return next((o for o in originals(path) if (collection, o) in ranking), None)

    folding = [i for i, place in enumerate(where) if ranking_original(*place) is not None]
    asked = set(WORD.findall(query.casefold())) - set(skip)
    text: dict = {}
    if folding and asked:  # only a copy whose original ranks, and the original's passages, are read
        into = {(where[i][0], ranking_original(*where[i])) for i in folding}
        text = texts([item[0] for item, place in zip(ranked, where) if place in into]
                     + [ranked[i][0] for i in folding])
    found: dict[tuple[str, str], set] = {}  # (collection, path): the query's words its ranked passages hold
    for item, place in zip(ranked, where):
        found.setdefault(place, set()).update(asked.intersection(WORD.findall(text.get(item[0], "").casefold())))
    folded: dict[tuple[str, str], list[str]] = {}
    alone: dict[tuple[str, str], tuple[str, bool]] = {}
    kept = []
    for item, (collection, path) in zip(ranked, where):
        original = ranking_original(collection, path)
        ranks = original is not None
        if not ranks:  # named as the copy of the first of its originals the index holds
            original = next((o for o in originals(path) if held(collection, o)), None)
        own = ranks and asked.intersection(WORD.findall(text.get(item[0], "").casefold())) - found[
            (collection, original)]
        if ranks and not own:
            names = folded.setdefault((collection, original), [])
            if f"{collection}/{path}" not in names:
                names.append(f"{collection}/{path}")
            continue
        if original is not None:
            alone[(collection, path)] = (f"{collection}/{original}", ranks)
        kept.append(item)
    return kept, folded, alone
