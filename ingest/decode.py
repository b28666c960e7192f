"""The one text decoder: what the indexer reads and what read_file shows are decoded the same way.

A byte-order mark selects UTF-8, UTF-16 or UTF-32 (little or big endian);
without one, text is UTF-8. A NUL in the first 8 KiB (after the BOM's decoding)
means a binary file. Undecodable bytes mean "not text". Both verdicts raise
``Skip`` with the reason, so the indexer records it and read_file refuses with it.

``Encoding`` names an explicit codec (``utf-16-le``, never ``utf-16``), so any
character boundary of the file can be decoded on its own: read_file streams a
huge file from the middle with ``incremental(encoding)``. Line breaks are
``\\r\\n``, ``\\r`` or ``\\n`` for both (code units 13 and 10 in every one of
these encodings, never part of another character).
"""
from __future__ import annotations

import codecs
from dataclasses import dataclass

from ingest.document import Skip

HEAD = 8192  # bytes looked at for NULs


@dataclass(frozen=True)
class Encoding:
    codec: str  # an explicit codec: utf-8, utf-16-le, utf-16-be, utf-32-le, utf-32-be
    bom: int  # bytes of byte-order mark before the text
    unit: int  # bytes per code unit: 1, 2 or 4

    @property
    def name(self) -> str:
        """utf-8, utf-16 or utf-32: what messages say."""
        return self.codec[:6] if self.unit > 1 else "utf-8"


UTF8 = Encoding("utf-8", 0, 1)
# UTF-32 first: its little-endian BOM begins with UTF-16's.
BOMS = ((codecs.BOM_UTF8, Encoding("utf-8", 3, 1)),
        (codecs.BOM_UTF32_LE, Encoding("utf-32-le", 4, 4)), (codecs.BOM_UTF32_BE, Encoding("utf-32-be", 4, 4)),
        (codecs.BOM_UTF16_LE, Encoding("utf-16-le", 2, 2)), (codecs.BOM_UTF16_BE, Encoding("utf-16-be", 2, 2)))


def sniff(head: bytes) -> Encoding:
    """The encoding of a file that begins with ``head`` (its first HEAD bytes or more); raises Skip for a
    binary file."""
    for bom, encoding in BOMS:
        if head.startswith(bom):
            break
    else:
        if b"\x00" in head[:HEAD]:
            raise Skip("binary file")
        return UTF8
    text = incremental(encoding, errors="replace").decode(head[encoding.bom:HEAD])
    if "\x00" in text:  # binary bytes behind a BOM decode to text with NULs
        raise Skip("binary file")
    return encoding


def incremental(encoding: Encoding, errors: str = "strict"):
    """A decoder fed piece by piece (a character cut between two reads is kept for the next)."""
    return codecs.getincrementaldecoder(encoding.codec)(errors)


def decode(data: bytes) -> str:
    """The text of a whole file, with '\\n' line ends (a UTF-16 file from Windows has '\\r\\n' too)."""
    encoding = sniff(data[:HEAD + 4])
    try:
        text = data[encoding.bom:].decode(encoding.codec)
    except UnicodeDecodeError as exc:
        raise Skip(not_text(encoding, encoding.bom + exc.start, exc.reason)) from None
    return text.replace("\r\n", "\n").replace("\r", "\n")


def not_text(encoding: Encoding, at: int, reason: str) -> str:
    """The reason given for undecodable bytes at byte ``at`` of the file."""
    if encoding.bom:
        return f"undecodable {encoding.name} text (byte {at}: {reason})"
    return f"not UTF-8 text (byte {at}: {reason})"
