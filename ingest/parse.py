"""Turn a file's bytes into a Document, choosing the parser by kind.

Text is decoded as UTF-8 (a BOM selects UTF-8, UTF-16 or UTF-32); anything binary or
undecodable raises ``Skip`` with the reason, so it is never indexed as garbage.
So does a file with a line of over a million characters: that is a
data dump, an encoded blob or minified output, not prose, and cut into tens of
thousands of chunks it would take the embedder hours and bury real passages.
"""
from __future__ import annotations

import codecs
from pathlib import PurePosixPath

from ingest.document import Document, Section, Skip
from ingest.kinds import kind_of
from ingest.markdown import parse_markdown

# UTF-32 first: its little-endian BOM begins with UTF-16's.
BOMS = ((codecs.BOM_UTF8, "utf-8-sig"), (codecs.BOM_UTF32_LE, "utf-32"), (codecs.BOM_UTF32_BE, "utf-32"),
        (codecs.BOM_UTF16_LE, "utf-16"), (codecs.BOM_UTF16_BE, "utf-16"))
MAX_LINE_CHARS = 1_000_000


def parse_file(path: str, data: bytes) -> Document:
    kind = kind_of(path)
    if kind == "pdf":
        from ingest.pdf import parse_pdf  # pypdf loads only when a PDF comes
        return parse_pdf(path, data)
    text = decode(data)
    check_lines(text)
    if kind == "note":
        return parse_markdown(path, text)
    if kind == "code":
        from ingest.code import parse_code
        return parse_code(path, text)
    return parse_text(path, text)


def decode(data: bytes) -> str:
    """The text of ``data`` with '\\n' line ends (a UTF-16 file from Windows has '\\r\\n' too)."""
    for bom, encoding in BOMS:
        if data.startswith(bom):
            try:
                text = data.decode(encoding)
            except UnicodeDecodeError as exc:
                raise Skip(f"undecodable {encoding} text: {exc.reason}") from None
            break
    else:
        if b"\x00" in data[:8192]:
            raise Skip("binary file")
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise Skip(f"not UTF-8 text (byte {exc.start}: {exc.reason})") from None
    if "\x00" in text[:8192]:  # binary bytes behind a BOM decode to text with NULs
        raise Skip("binary file")
    return text.replace("\r\n", "\n").replace("\r", "\n")


def check_lines(text: str) -> None:
    """Raise Skip when a line is too long to be prose (the 50 MB single-line file)."""
    start = 0 if len(text) > MAX_LINE_CHARS else len(text)
    while start < len(text):
        end = text.find("\n", start)
        end = len(text) if end < 0 else end
        if end - start > MAX_LINE_CHARS:
            raise Skip(f"a line of {end - start:,} characters (over {MAX_LINE_CHARS:,}): a data dump, "
                       "encoded blob or minified text, not prose")
        start = end + 1


def parse_text(path: str, text: str) -> Document:
    title = PurePosixPath(path).name
    lines = text.split("\n")
    while lines and not lines[-1].strip():
        lines.pop()
    body = "\n".join(lines)
    sections = [Section(text=body, heading_path=[], start_line=1, end_line=max(1, len(lines)))] if body.strip() else []
    return Document(kind="text", title=title, sections=sections)
