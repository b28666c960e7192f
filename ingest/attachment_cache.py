"""What a mail attachment's reader made of it, kept: a mailbox is read whole at each change (Thunderbird appends a
message, and the whole .mbox is read again), and each attached PDF was read again with it: 150 messages with
attachments took 53-55 s at every change, 3.7 s without them. An attachment read once is not read again while its
bytes are the same: its passages as its reader gave them (their text, headings, pages), or why the reader refused it
(``ingest.document.Skip``: an encrypted PDF), are kept in ``<home>/cache/attachments/``, a file each, named by the
SHA-256 of the attachment's decoded bytes, the name it is read under (its ending picks the reader), and the
chunker's VERSION (a reader whose passages change bumps it, and every attachment is read again).

Bounded: ``SIFT_ATTACHMENT_CACHE_MB`` (256; 0: nothing kept) in all; past it, the files used longest ago go first
(a file is touched when used). Two workers may read and write it at once: a file is written whole under another
name and renamed into place, one that goes while read is a miss. A cache file that cannot be read (cut short,
damaged, of another format) is a miss too, and the attachment is read again; a cache that cannot be written (a
read-only home, a full disk) is passed by.
"""
from __future__ import annotations

import hashlib
import json
import os
import threading
import zlib
from pathlib import Path

from ingest.document import Document, Section

FORMAT = 1  # of a cache file; another is a miss
FOLDER = ("cache", "attachments")


class AttachmentCache:
    """A home's attachment cache; ``hits``, ``misses`` and ``written`` count this reading's (a mail file's)."""

    def __init__(self, folder: Path | None, cap_bytes: int) -> None:
        self.folder = folder if cap_bytes > 0 else None
        self.cap = cap_bytes
        self.hits = self.misses = self.written = 0

    @classmethod
    def of_home(cls) -> AttachmentCache:
        """The cache of the home the settings name (SIFT_HOME); none when they cannot be read."""
        from search.settings import load
        try:
            settings = load()
        except ValueError:  # a bad SIFT_* value: the entry point has said so already; read without a cache
            return cls(None, 0)
        return cls(settings.home.joinpath(*FOLDER), settings.attachment_cache_mb << 20)

    def key(self, reader_name: str, data: bytes) -> str:
        """The SHA-256 of what the reading depends on: the bytes, the name they are read under (its ending picks
        the reader; a few readers heed the rest: a Notion page's id, an '.excalidraw.md'), the chunker's VERSION."""
        from ingest.chunk import VERSION
        head = f"sift attachment {FORMAT} chunker {VERSION} {reader_name}\0".encode("utf-8", "surrogateescape")
        return hashlib.sha256(head + data).hexdigest()

    def get(self, key: str) -> Document | str | None:
        """The attachment's Document as kept (its sections), or why its reader refused it; None: not kept."""
        if self.folder is None:
            return None
        path = self.folder / f"{key}.json.z"
        try:
            kept = json.loads(zlib.decompress(path.read_bytes()))
            found = kept["why"] if "why" in kept else Document(kind=kept["kind"], title="", sections=[
                Section(text=text, heading_path=list(heading_path), page=page, end_page=end_page,
                        atomic=[(a, b) for a, b in atomic])
                for text, heading_path, page, end_page, atomic in kept["sections"]])
            if not isinstance(found, str) and not all(isinstance(s.text, str) for s in found.sections):
                raise ValueError("not a reading")
        except (OSError, ValueError, KeyError, TypeError, zlib.error):  # missing, cut short, damaged: read again
            self.misses += 1
            return None
        try:
            os.utime(path)  # used now: evicted last
        except OSError:
            pass
        self.hits += 1
        return found

    def put(self, key: str, found: Document | str, chars: int) -> None:
        """Keep a reading: a Document (its non-empty sections, until ``chars`` of text) or a refusal's reason."""
        if self.folder is None:
            return
        if isinstance(found, str):
            kept: dict = {"why": found}
        else:
            sections, total = [], 0
            for part in found.sections:
                if total >= chars:
                    break
                if part.text.strip():
                    total += len(part.text)
                    sections.append([part.text, part.heading_path, part.page, part.end_page,
                                     [list(pair[:2]) for pair in part.atomic]])
            kept = {"kind": found.kind, "sections": sections}
        path = self.folder / f"{key}.json.z"
        tmp = self.folder / f".{key}.{os.getpid()}.{threading.get_ident()}.tmp"  # a worker's own, thread's own
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            tmp.write_bytes(zlib.compress(json.dumps(kept, ensure_ascii=False).encode(), 6))
            os.replace(tmp, path)
            self.written += 1
        except OSError:  # read-only, full: the attachment was read, only not kept
            try:
                tmp.unlink()
            except OSError:
                pass

    def trim(self) -> None:
        """Within the cap: the files used longest ago removed until the rest fit (run after a mail file wrote)."""
        if self.folder is None or not self.written:
            return
        files = []
        try:
            with os.scandir(self.folder) as entries:
                for entry in entries:
                    try:
                        info = entry.stat()
                    except OSError:  # removed by another worker meanwhile
                        continue
                    files.append((info.st_mtime, info.st_size, entry.path))
        except OSError:
            return
        total = sum(size for _, size, _ in files)
        for _, size, path in sorted(files):
            if total <= self.cap:
                break
            try:
                os.unlink(path)
            except OSError:
                pass
            total -= size
