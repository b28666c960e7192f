"""Turn a file's bytes into a Document, choosing the parser by kind.

Text is decoded as UTF-8 (a BOM selects UTF-8 or UTF-16); anything binary or
undecodable raises ``Skip`` with the reason, so it is never indexed as garbage.
"""
from __future__ import annotations

import codecs
from pathlib import PurePosixPath

from ingest.document import Document, Section, Skip
from ingest.kinds import kind_of
from ingest.markdown import parse_markdown

BOMS = ((codecs.BOM_UTF8, "utf-8-sig"), (codecs.BOM_UTF16_LE, "utf-16"), (codecs.BOM_UTF16_BE, "utf-16"))


def parse_file(path: str, data: bytes) -> Document:
    kind = kind_of(path)
    if kind == "pdf":
        from ingest.pdf import parse_pdf  # pypdf loads only when a PDF comes
        return parse_pdf(path, data)
    text = decode(data)
    if kind == "note":
        return parse_markdown(path, text)
    if kind == "code":
        from ingest.code import parse_code
        return parse_code(path, text)
    return parse_text(path, text)


def decode(data: bytes) -> str:
    for bom, encoding in BOMS:
        if data.startswith(bom):
            try:
                return data.decode(encoding)
            except UnicodeDecodeError as exc:
                raise Skip(f"undecodable {encoding} text: {exc.reason}") from None
    if b"\x00" in data[:8192]:
        raise Skip("binary file")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise Skip(f"not UTF-8 text (byte {exc.start}: {exc.reason})") from None
    return text.replace("\r\n", "\n").replace("\r", "\n")


def parse_text(path: str, text: str) -> Document:
    title = PurePosixPath(path).name
    lines = text.split("\n")
    while lines and not lines[-1].strip():
        lines.pop()
    body = "\n".join(lines)
    sections = [Section(text=body, heading_path=[], start_line=1, end_line=max(1, len(lines)))] if body.strip() else []
    return Document(kind="text", title=title, sections=sections)
