"""Reading one file of a collection into a parsed document.

This is the parse stage without the queue: plain functions that
a test (or another runner) can call directly.
"""
from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass
from pathlib import Path

from ingest.document import Document, Skip
from ingest.kinds import kind_of
from ingest.links import resolve_links, same_stem_pdf
from ingest.parse import parse_file

MAX_FILE_BYTES = 64 * 1024 * 1024


@dataclass
class ParsedFile:
    path: str
    kind: str
    size: int
    mtime: float
    sha256: str
    doc: Document


def read_and_parse(root: Path | str, path: str) -> ParsedFile:
    """Read ``root/path`` (staying inside root) and parse it. Raises Skip or an error with a reason."""
    full = safe_join(root, path)
    before = os.stat(full)
    if before.st_size > MAX_FILE_BYTES:
        raise Skip(f"larger than {MAX_FILE_BYTES // (1024 * 1024)} MiB")
    with open(full, "rb") as handle:
        data = handle.read()
    doc = parse_file(path, data)
    if doc.kind == "note":
        _attach_links(root, path, doc)
    return ParsedFile(path=path, kind=kind_of(path) or doc.kind, size=len(data),
                      mtime=before.st_mtime, sha256=hashlib.sha256(data).hexdigest(), doc=doc)


def _attach_links(root, path: str, doc: Document) -> None:
    """Resolve the note's links; a same-stem PDF beside it becomes its attachment."""
    links = resolve_links(path, doc.meta.get("links", []))
    pdf = same_stem_pdf(root, path)
    if pdf:
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


def text_hash(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:32]

