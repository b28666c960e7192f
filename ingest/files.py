"""Reading one file of a collection into a parsed document.

This is the parse stage without the queue: plain functions that
a test (or another runner) can call directly.
"""
from __future__ import annotations

import errno
import hashlib
import os
import stat
import time
from dataclasses import dataclass
from pathlib import Path

from ingest import joplin
from ingest.chat import parse_slack_day, slack_day, slack_metadata
from ingest.code_languages import SHEBANG_BYTES
from ingest.discover import Rules, not_a_file, refused_link, why_not_indexed
from ingest.document import NOTION_ID, Document, Skip
from ingest.scrivener import own_file, title_scene
from ingest.kinds import (EPUB_EXTENSIONS, FLAT_EXTENSIONS, SLIDE_EXTENSIONS, SPREADSHEET_EXTENSIONS,
                          WORD_EXTENSIONS, WORKBOOK_EXTENSIONS, chat_zip, is_mailbox, kind_of, suffix)
from ingest.links import resolve_links, same_stem_pdf
from ingest.parse import parse_file

MAX_FILE_BYTES = 64 * 1024 * 1024
# zips of XML read from the file by what they unzip (ingest.zipped), not by their size (read_zip_file)
ZIPPED_EXTENSIONS = (WORD_EXTENSIONS | EPUB_EXTENSIONS | WORKBOOK_EXTENSIONS | SLIDE_EXTENSIONS |
                     SPREADSHEET_EXTENSIONS) - FLAT_EXTENSIONS
READ_ATTEMPTS = 3  # reads of a file that changes while it is read, before giving up until the next scan
NAME_CHARS = 500  # of a title or a heading kept: each is stored and indexed again with every chunk under it


class FileChanging(OSError):
    """The file kept changing while it was read; the next scan picks it up once it settles."""


@dataclass
class ParsedFile:
    path: str
    kind: str
    size: int
    mtime: float
    sha256: str
    doc: Document
    ctime: float = 0.0  # of the stat that matches the bytes read (0: a job queued before it was kept)
    read_at: float = 0.0  # when it was read, before the read began (0: a job queued before it was kept)


def read_and_parse(root: Path | str, path: str, rules: Rules | None = None) -> ParsedFile:
    """Read ``root/path`` (staying inside root) and parse it. Raises Skip or an error with a reason. ``rules``: the
    scan's (SIFT_INCLUDE, SIFT_EXCLUDE), which say whether the same-stem PDF beside a note is its attachment."""
    full = safe_join(root, path)
    every_row = notion_all_rows(full)
    if every_row:
        raise Skip(f"a Notion database view: {every_row} beside it holds every row (its rows would show twice)")
    if (tex := latex_log(full)) is not None:
        raise Skip(f"LaTeX's log of {tex} beside it: its build's output, not notes")
    from ingest.keep import html_beside
    if (keep := html_beside(full)) is not None:
        raise Skip(f"a Google Keep note's page: {keep} beside it holds the note, read for it (it would show twice)")
    if (slack := slack_metadata(full)) is not None:
        raise Skip(slack)
    if (scrivener := own_file(full)) is not None:  # Settings/recents.txt … (ingest.scrivener)
        raise Skip(scrivener)
    read_at = time.time()
    if _size(full) > MAX_FILE_BYTES and _mailbox(path, full):  # a Takeout of gigabytes: read as it comes
        doc, seen, digest = read_mbox_file(full)
    elif suffix(path).lower() == ".enex" and _size(full) > MAX_FILE_BYTES:  # Evernote's, of pictures: as it comes
        from ingest.enex import read_enex
        doc, seen, digest = read_mbox_file(full, read_enex)
    elif suffix(path).lower() in ZIPPED_EXTENSIONS or chat_zip(path, full):  # by what it unzips: a deck of photographs
        doc, seen, digest = read_zip_file(full, path)
    else:
        data, seen = read_settled(full)
        slack = slack_day(full)  # a Slack export's channel day: its authors' names from the export's users.json
        doc, digest = (slack is not None and parse_slack_day(path, data, *slack)) or parse_file(path, data), None
    _bound_names(doc)
    title_scene(full, doc)  # a Scrivener project's scene: titled by its binder title (ingest.scrivener)
    if doc.meta.get("chat_export") == "a Telegram chat export (HTML)":  # a day going on across its pages says so
        from ingest.chat import mark_continued_days
        mark_continued_days(doc, Path(full))
    if doc.kind == "note":
        _attach_links(root, path, doc, rules)
        stem = path.rsplit("/", 1)[-1][:-3]  # a Joplin raw note's '<id>.md'
        tags = joplin.note_tags(os.path.dirname(full), stem) if path.endswith(".md") and joplin.ID.fullmatch(stem) \
            else []
        if tags:
            held = {tag.casefold() for tag in doc.meta.get("tags", [])}  # a Joplin note's tags: records beside it
            doc.meta["tags"] = [*doc.meta.get("tags", []), *(tag for tag in tags if tag.casefold() not in held)]
    # an HTML page read as a document (ingest.webpage) is a note, where its name says code
    kind = "note" if doc.kind == "note" else kind_of(path) or doc.kind
    return ParsedFile(path=path, kind=kind, size=seen.st_size if digest else len(data), mtime=seen.st_mtime,
                      sha256=digest or hashlib.sha256(data).hexdigest(), doc=doc, ctime=seen.st_ctime, read_at=read_at)


def _found_choices(root, links: list[str], choices: list[list[str]]) -> list[str]:
    """``links`` with each first choice of ``choices`` that is not there replaced by the first of the others that
    is: a LaTeX chapter's ``\\input{sections/intro}`` names the main file's sections/ (ingest.latex._folders)."""
    if not choices:
        return links
    chosen = set(links)
    for choice in choices:
        there = next((link for link in choice if (Path(root) / link.lstrip("/")).is_file()), None)
        if there is not None and there != choice[0]:
            chosen.discard(choice[0])
            chosen.add(there)
    return sorted(chosen)


def notion_all_rows(full: Path) -> str | None:
    """For a Notion database's CSV ('Tasks 1a2b….csv', the rows of its view), the name of the '…_all.csv' beside
    it, with every row, if there is one."""
    name = full.name
    if not name.lower().endswith(".csv") or not NOTION_ID.search(name[:-4]) or name[:-4].endswith("_all"):
        return None
    every = full.with_name(name[:-4] + "_all" + name[-4:])
    return every.name if every.is_file() else None


def latex_log(full: Path) -> str | None:
    """For a '.log' with a '.tex' of its stem beside it (LaTeX writes main.log beside main.tex at each build: pages
    of 'Overfull \\hbox'), that .tex's name; None for any other file (an incident's app.log is read)."""
    if full.suffix.lower() != ".log":
        return None
    tex = full.with_suffix(".tex")
    return tex.name if tex.is_file() else None


def read_settled(full: Path) -> tuple[bytes, os.stat_result]:
    """The file's bytes and a stat that matches them.

    Opened without blocking (a FIFO named like a note must not hang the worker)
    and refused unless it is a regular file. A file rewritten while it is read
    (same inode or a new one renamed over it) is read again, so the bytes, size,
    mtime and hash stored together all belong to one version of the file.
    """
    for _ in range(READ_ATTEMPTS):
        fd, before = _open_regular(full)
        try:
            if before.st_size > MAX_FILE_BYTES:
                raise Skip(f"larger than {MAX_FILE_BYTES // (1024 * 1024)} MiB")
            with open(fd, "rb", closefd=False) as handle:
                data = handle.read(MAX_FILE_BYTES + 1)
            after = os.fstat(fd)
        finally:
            os.close(fd)
        if len(data) > MAX_FILE_BYTES:
            raise Skip(f"larger than {MAX_FILE_BYTES // (1024 * 1024)} MiB")
        try:
            on_disk = os.stat(full)
        except FileNotFoundError:
            on_disk = None  # deleted after it was read: what was read is one whole version
        if _same(before, after) and len(data) == after.st_size and (on_disk is None or _same(after, on_disk)):
            return data, after
    raise FileChanging(KEPT_CHANGING)


MBOX_BLOCK = 1 << 20
KEPT_CHANGING = (f"the file kept changing while it was read ({READ_ATTEMPTS} tries); the next scan indexes it once it "
                 "settles")
# without blocking (a FIFO named like a note must not hang the worker), and not inherited by a child process
OPEN_FLAGS = os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0)


def _open_regular(full: Path) -> tuple[int, os.stat_result]:
    """``full`` opened for reading (OPEN_FLAGS) and its stat, refused (Skip) unless it is a regular file: how
    ``read_settled`` and ``read_mbox_file`` begin each try."""
    try:
        fd = os.open(full, OPEN_FLAGS)
    except OSError as exc:  # a socket does not open ('No such device or address'): say what it is
        if exc.errno == errno.ENXIO and not stat.S_ISREG(mode := os.stat(full).st_mode):
            raise Skip(not_a_file(mode)) from None
        raise
    try:
        before = os.fstat(fd)
        if not stat.S_ISREG(before.st_mode):  # a FIFO or a device, made where the walk saw a file
            raise Skip(not_a_file(before.st_mode))
    except BaseException:
        os.close(fd)
        raise
    return fd, before


def _size(full: Path) -> int:
    try:
        return full.stat().st_size
    except OSError:
        return 0  # read_settled says what is wrong


def _mailbox(path: str, full: Path) -> bool:
    """Whether ``path`` is a mailbox: an .mbox, or a name without an extension holding one (Thunderbird's Inbox)."""
    if suffix(path):
        return suffix(path).lower() == ".mbox"
    try:
        with open(full, "rb") as handle:
            return is_mailbox(handle.read(SHEBANG_BYTES))
    except OSError:
        return False  # read_settled says what is wrong


def read_mbox_file(full: Path, reader=None) -> tuple[Document, os.stat_result, str]:
    """A mailbox over MAX_FILE_BYTES (Google Takeout's 'All mail Including Spam and Trash.mbox' of gigabytes), its
    document, the stat that matches it and its SHA-256: read in blocks as ingest.mail.read_mbox takes them, never
    whole (a message's first 32 MiB and 64 MiB of text at most are held), opened as ``read_settled`` opens a file.
    It was refused as 'larger than 64 MiB', none of its messages found. A mailbox appended to while it is read is
    read again, as ``read_settled`` reads a file again."""
    from ingest.mail import read_mbox
    reader = reader or read_mbox  # or an Evernote export's (ingest.enex.read_enex), read the same way
    for _ in range(READ_ATTEMPTS):
        fd, before = _open_regular(full)
        try:
            digest = hashlib.sha256()
            with open(fd, "rb", closefd=False) as handle:
                def blocks():
                    while block := handle.read(MBOX_BLOCK):
                        digest.update(block)
                        yield block
                doc = reader(full.name, blocks())
                while block := handle.read(MBOX_BLOCK):  # what read_mbox left unread (its text was cut short)
                    digest.update(block)
            after = os.fstat(fd)
        finally:
            os.close(fd)
        if _same(before, after):
            return doc, after, digest.hexdigest()
    raise FileChanging(KEPT_CHANGING)


def read_zip_file(full: Path, path: str) -> tuple[Document, os.stat_result, str]:
    """A zip-based file (ZIPPED_EXTENSIONS: a .pptx or .docx of 200 MB of photographs and a few hundred KB of XML),
    its document, the stat that matches it and its SHA-256: hashed in blocks, then its zip read from the open file
    part by part, its text's parts counted against ingest.zipped's limit (a zip bomb is still refused) and its
    pictures never read. It was read whole, and refused over MAX_FILE_BYTES ('larger than 64 MiB'), its text with
    it. A file changed while it is read is read again, as ``read_settled`` reads a file again."""
    for _ in range(READ_ATTEMPTS):
        fd, before = _open_regular(full)
        try:
            digest = hashlib.sha256()
            with open(fd, "rb", closefd=False) as handle:
                # parsed first: what is no zip fails at its end record, before gigabytes are hashed for nothing
                # (a 4 GB sparse .pptx took 40 s to be refused as 'not a zip file')
                doc = parse_file(path, handle)
                handle.seek(0)
                while block := handle.read(MBOX_BLOCK):
                    digest.update(block)
            after = os.fstat(fd)
        finally:
            os.close(fd)
        try:
            on_disk = os.stat(full)
        except FileNotFoundError:
            on_disk = None  # deleted after it was read: what was read is one whole version
        if _same(before, after) and (on_disk is None or _same(after, on_disk)):
            return doc, after, digest.hexdigest()
    raise FileChanging(KEPT_CHANGING)


def can_open(root: Path | str, path: str) -> bool:
    """Whether ``root/path`` opens for reading now, as ``read_settled`` opens it (nothing is read): one system
    call, to see if a remembered "no permission" still holds after a change that left the file's ctime alone
    (its folder's permissions, the user's groups, an ACL)."""
    try:
        os.close(os.open(safe_join(root, path), OPEN_FLAGS))
    except OSError:
        return False
    return True


def _same(a: os.stat_result, b: os.stat_result) -> bool:
    return (a.st_dev, a.st_ino, a.st_size, a.st_mtime_ns, a.st_ctime_ns) == \
        (b.st_dev, b.st_ino, b.st_size, b.st_mtime_ns, b.st_ctime_ns)


def _bound_names(doc: Document) -> None:
    """Cut the title and headings to NAME_CHARS: a heading line of 200,000 characters over a 400 KB note made
    a 390 MB index. A Markdown heading's whole line is still in its section's text."""
    doc.title = doc.title[:NAME_CHARS]
    for section in doc.sections:
        section.heading_path = [name[:NAME_CHARS] for name in section.heading_path]


def _attach_links(root, path: str, doc: Document, rules: Rules | None = None) -> None:
    """Resolve the note's links; a same-stem PDF beside it becomes its attachment, unless the scan leaves it out
    (SIFT_EXCLUDE, SIFT_INCLUDE, a .gitignore, a symbolic link it does not follow: ingest.discover pairs only the
    files it takes): search hits listed it as the note's 'attached PDF', and each scan found the note changed (no
    PDF beside it, as the walk saw it)."""
    links = resolve_links(path, _found_choices(root, doc.meta.get("links", []), doc.meta.pop("link_choices", [])),
                          set(doc.meta.pop("wiki_links", [])))
    pdf = same_stem_pdf(root, path)
    if pdf and why_not_indexed(root, pdf, rules) is None and refused_link(root, pdf) is None:
        doc.meta["attachments"] = [pdf]
        links = sorted(set(links) | {pdf})
    doc.meta["links"] = links


def safe_join(root: Path | str, path: str) -> Path:
    """root/path, refusing anything that resolves outside root."""
    real_root = Path(root).resolve()
    full = (real_root / path).resolve()
    if not full.is_relative_to(real_root):
        raise PermissionError(f"{path} resolves outside the collection root")
    return full

