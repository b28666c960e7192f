"""Links between notes and the files they cite, PDFs above all.

A note's links are resolved to paths inside its collection: a Markdown link
relative to the note's folder (one starting with ``/`` from the collection's
folder, as GitHub reads it; ``[x](paper.pdf)`` is the paper beside the note), a
wiki-link ``[[name]]`` by file name (kept bare, since it may live anywhere),
``[[folder/name]]`` from the collection's folder, as Obsidian writes a path
(``[[./name]]`` and ``[[../name]]`` from the note's). Links to other schemes (``data:``,
``tel:``) and those that leave the collection are dropped. A PDF with a
Markdown file of the same stem beside it is that note's attachment: the note's text stands for the PDF, and
the PDF is not indexed a second time.
"""
from __future__ import annotations

import posixpath
import re
from collections.abc import Collection
from pathlib import Path, PurePosixPath
from urllib.parse import unquote

from ingest.kinds import kind_of

# Links that name no file (URLs with :// never get here). Only these: a wiki name may hold a colon ([[Plan: Q3]]).
SCHEME = re.compile(r"(?:data|tel|sms|javascript|geo|magnet|urn|news|xmpp|callto|mailto):", re.IGNORECASE)
DRIVE = re.compile(r"[A-Za-z]:[/\\]")  # C:/notes or C:\notes: another machine's path
UNPRINTABLE = re.compile(r"[\x00-\x1f\x7f]")


def resolve_links(note_path: str, raw_links: list[str], wiki: Collection[str] = ()) -> list[str]:
    """The paths ``raw_links`` name, ``wiki`` those of them written as wiki links (a target written both ways
    is read as a wiki link). A Markdown link without a '/' was kept bare, as a wiki link is: the note then
    listed every PDF of that name in the collection, and each of them was 'cited by' it."""
    folder = posixpath.dirname(note_path)
    resolved = []
    for raw in raw_links:
        if SCHEME.match(raw) or DRIVE.match(raw):
            continue
        target = UNPRINTABLE.sub("", unquote(raw.split("#", 1)[0].split("?", 1)[0])).strip()
        if not target:
            continue
        resolved.append(_resolve(folder, target, by_name=raw in wiki))
    return sorted({target for target in resolved if target is not None})


def _resolve(folder: str, target: str, by_name: bool) -> str | None:
    """A wiki link (``by_name``) is a bare file name, or a path from the collection's folder unless it starts
    with '.'; a Markdown link is read from the note's folder unless it starts with '/'. None outside."""
    if by_name and "/" not in target and not target.startswith("."):
        return target
    start = "" if target.startswith("/") or (by_name and not target.startswith(".")) else folder
    target = posixpath.normpath(posixpath.join(start, target.lstrip("/")))
    if target in (".", "..") or target.startswith("../"):
        return None  # the collection's folder itself, or outside it
    return target


def same_stem_pdf(root: Path | str, note_path: str) -> str | None:
    """The PDF beside a note with the same stem (``paper.md`` or ``Paper.MD`` → ``paper.pdf``, ``paper.PDF`` or
    any case of it, as converted_pdfs finds it), if there is one."""
    for suffix in (".pdf", ".PDF", *(f".{p}{d}{f}" for p in "pP" for d in "dD" for f in "fF")):
        pdf = PurePosixPath(note_path).with_suffix(suffix).as_posix()
        if (Path(root) / pdf).is_file():
            return pdf
    return None


def converted_pdfs(paths: set[str]) -> dict[str, str]:
    """PDFs whose same-stem Markdown conversion is among ``paths``, by that note's path: a note of any Markdown
    suffix, in any case (the same test as same_stem_pdf, so a PDF attached to a note is never indexed again as
    well)."""
    kinds = {p: kind_of(p) for p in paths}
    pdfs = {_stem(p): p for p, kind in kinds.items() if kind == "pdf"}
    if not pdfs:  # each path's kind asked twice and its stem made for nothing: a third of a rescan's CPU
        return {}
    return {p: pdfs[_stem(p)] for p, kind in kinds.items() if kind == "note" and _stem(p) in pdfs}


def _stem(path: str) -> str:
    return PurePosixPath(path).with_suffix("").as_posix()
