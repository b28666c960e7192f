"""The one text decoder: what the indexer reads and what read_file shows are decoded the same way.

A byte-order mark selects UTF-8, UTF-16 or UTF-32 (little or big endian);
without one, text is UTF-8. A NUL in the first 8 KiB (after the BOM's decoding)
means a binary file. Undecodable bytes mean "not text". Both verdicts raise
``Skip`` with the reason, so the indexer records it and read_file refuses with it;
the indexer's reason for text that is not UTF-8 also guesses its legacy encoding
(GB18030 or Windows-1252) and gives the iconv command that converts it.

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
HINT_SAMPLE = 64 * 1024  # bytes looked at to guess the legacy encoding of a file that is not UTF-8


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
            raise Skip(binary(head.index(b"\x00")))
        return UTF8
    text = incremental(encoding, errors="replace").decode(head[encoding.bom:HEAD])
    if "\x00" in text:  # binary bytes behind a BOM decode to text with NULs
        raise Skip(binary(encoding.bom + len(text[:text.index("\x00")].encode(encoding.codec, "replace"))))
    return encoding


def binary(at: int) -> str:
    """The verdict on a file with a NUL: where the first is, so a text note damaged by a crash (a run of NULs
    where its last write was lost) can be found and mended; 'binary file' alone said nothing of where."""
    return f"binary file (a NUL byte at byte {at:,})"


def incremental(encoding: Encoding, errors: str = "strict"):
    """A decoder fed piece by piece (a character cut between two reads is kept for the next)."""
    return codecs.getincrementaldecoder(encoding.codec)(errors)


def decode(data: bytes) -> str:
    """The text of a whole file, with '\\n' line ends (a UTF-16 file from Windows has '\\r\\n' too)."""
    encoding = sniff(data[:HEAD + 4])
    try:
        text = data[encoding.bom:].decode(encoding.codec)
    except UnicodeDecodeError as exc:
        why = not_text(encoding, encoding.bom + exc.start, exc.reason)
        raise Skip(why if encoding.bom else f"{why}: {legacy_hint(data)}") from None
    return text.replace("\r\n", "\n").replace("\r", "\n")


def legacy_hint(data: bytes) -> str:
    """What to do with text that is not UTF-8, most often a note saved in a legacy encoding: GBK (GB18030, whose
    two-byte characters decode as Chinese) or Windows-1252/Latin-1. Only a guess, said as one."""
    sample = data[:HINT_SAMPLE]
    try:
        chinese = codecs.getincrementaldecoder("gb18030")().decode(sample)  # a character cut at the end is kept
    except UnicodeDecodeError:
        chinese = ""
    cjk = sum(1 for c in chinese if "\u4e00" <= c <= "\u9fff" or "\u3000" <= c <= "\u303f" or "\uff00" <= c <= "\uffef")
    if chinese and cjk * 2 >= sum(1 for b in sample if b >= 0x80):
        source = "GB18030"  # every byte above ASCII is half of a Chinese character or mark
    else:
        source = "WINDOWS-1252"
    return (f"Sift reads UTF-8 (and UTF-16/32 with a BOM); if it is {source} text, convert it to index it: "
            f"iconv -f {source} -t UTF-8 FILE > NEW")


def not_text(encoding: Encoding, at: int, reason: str) -> str:
    """The reason given for undecodable bytes at byte ``at`` of the file."""
    if encoding.bom:
        return f"undecodable {encoding.name} text (byte {at}: {reason})"
    return f"not UTF-8 text (byte {at}: {reason})"
