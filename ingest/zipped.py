"""An office file's zip, opened and read with the guards every zip-based reader needs (ingest.word, odt, epub,
xlsx, slides, ods): an OLE compound file (a password-protected Office file, or an old binary one renamed) skipped
with the reason, a broken zip or XML skipped with its error, and the parts read counted as they unzip: more than
OPENED_BYTES is a zip bomb, skipped before the part that would pass it is read. A file over the 64 MiB any other
file may be comes as an open file (ingest.files.read_zip_file), its zip read from the disk part by part: a deck of
200 MB of photographs is read by the text it unzips, its pictures never read."""
from __future__ import annotations

import io
import struct
import zipfile
import zlib
import xml.etree.ElementTree as ET
from contextlib import contextmanager
from contextvars import ContextVar

from ingest.document import Skip

ERRORS = (zipfile.BadZipFile, ET.ParseError, OSError, ValueError, EOFError, KeyError, RuntimeError)
# of the parts read, unzipped: more is a zip bomb, not a document (a 1,000-page book's document.xml is some 30 MB;
# pictures are stored as they are, about their size in the file)
OPENED_BYTES = 128 * 1024 * 1024
OLE_MAGIC = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"  # a compound file: Office's encryption of a .docx, or a .doc renamed
# the streams an OLE compound file's directory names (UTF-16): an Office file saved with a password holds its zip
# encrypted in 'EncryptedPackage'; an old binary Word document its text in 'WordDocument', an old workbook
# 'Workbook', an old deck 'PowerPoint Document'
OLE_STREAMS = (("EncryptedPackage", "password-protected (encrypted) {what}: Sift reads {ext} files saved without a "
                                    "password"),
               ("WordDocument", "an old binary Word document (.doc, Word 97-2003) named {ext}: Sift reads {ext}; "
                                "save it as {ext} (Word or LibreOffice: Save As)"),
               ("Workbook", "an old binary Excel workbook (.xls, Excel 97-2003) named {ext}: Sift reads {ext}; save "
                            "it as {ext} (Excel or LibreOffice: Save As)"),
               ("PowerPoint Document", "an old binary PowerPoint deck (.ppt, PowerPoint 97-2003) named {ext}: Sift "
                                       "reads {ext}; save it as {ext} (PowerPoint or LibreOffice: Save As)"))


def ole_reason(data: bytes, what: str, ext: str) -> str:
    """Why a {what} named {ext} that is an OLE compound file is not read: it was saved with a password, or it is
    an old binary .doc, .xls or .ppt renamed (the streams its directory names say which)."""
    for stream, reason in OLE_STREAMS:
        if stream.encode("utf-16-le") in data:
            return reason.format(what=what, ext=ext)
    return (f"password-protected (encrypted) {what}, or an old binary Office file named {ext} (an OLE compound "
            f"file, not a zip): Sift reads {ext} files saved without a password")


class Parts:
    """A zip's parts by name, each read counted against OPENED_BYTES (``what``: 'PowerPoint deck', in reasons)."""

    def __init__(self, package: zipfile.ZipFile, what: str, ext: str):
        self.package, self.what, self.ext = package, what, ext
        self.names = set(package.namelist())
        self.opened = 0

    def count(self, *names: str) -> None:
        """Count parts about to be read (by another reader: python-docx), before any is: Skip past OPENED_BYTES, or
        when one is encrypted in the zip (zipfile raised RuntimeError at it, which python-docx let through)."""
        infos = [self.package.getinfo(name) for name in names]
        locked = next((info.filename for info in infos if info.flag_bits & 0x1), None)
        if locked is not None:
            raise Skip(f"password-protected (encrypted) {self.what}: its part {locked} is encrypted in the zip; Sift "
                       f"reads {self.ext} files saved without a password")
        self.opened += sum(info.file_size for info in infos)
        if self.opened > OPENED_BYTES:
            article = "an" if self.what[:1] in "AEIOU" else "a"
            raise Skip(f"its parts read unzip to {self.opened:,} bytes (over {OPENED_BYTES:,}): a zip bomb, not "
                       f"{article} {self.what}")

    def read(self, name: str) -> bytes:
        self.count(name)
        try:
            return self.package.read(name)
        except zipfile.BadZipFile as error:
            if not crc_failed(error):
                raise
        with self.open_unchecked(name) as stream:
            return stream.read()

    def open_unchecked(self, name: str):
        """A part as a stream whose CRC is checked here, not by zipfile: one that does not match (a byte changed in a
        damaged file) is read all the same and noted (``damage_noted``), as what of it can be read."""
        return _Checked(self.package.open(name), self.package.getinfo(name))

    def xml(self, name: str):
        """A part's XML root, or None when the zip holds no such part."""
        return ET.fromstring(self.read(name)) if name in self.names else None

    def open(self, name: str):
        """A part as a stream (a big sheet read as it unzips), counted whole first; one failing its CRC read all the
        same (``open_unchecked``)."""
        self.count(name)
        return self.open_unchecked(name)


# The parts found damaged while a file is read (``damage_noted``): their CRC-32 does not match what they unzip to.
# zipfile raised BadZipFile at a part's last bytes, and the whole file was skipped for a changed byte in one part.
_damaged: ContextVar[list | None] = ContextVar("damaged_parts", default=None)


def crc_failed(error: BaseException) -> bool:
    return isinstance(error, zipfile.BadZipFile) and str(error).startswith("Bad CRC-32")


@contextmanager
def damage_noted():
    """The names of the parts read meanwhile whose CRC did not match (read all the same), in a list."""
    found: list[str] = []
    token = _damaged.set(found)
    try:
        yield found
    finally:
        _damaged.reset(token)


def damage_said(names: list[str]) -> str:
    shown = ", ".join(dict.fromkeys(names))
    return (f"the zip is damaged: {shown} failed its CRC check, read as it unzipped (its text may hold damaged "
            "characters)")


class _Checked:
    """A part's stream (zipfile's) whose CRC-32 is compared here once its last byte is read: a mismatch is noted
    (``_damaged``), not raised."""

    def __init__(self, stream, info: zipfile.ZipInfo):
        self.stream, self.info = stream, info
        stream._expected_crc = None  # zipfile's own check, which raises at the last bytes
        self.crc, self.size, self.noted = 0, 0, False

    def read(self, size: int = -1) -> bytes:
        data = self.stream.read(size)
        self.crc, self.size = zlib.crc32(data, self.crc), self.size + len(data)
        if not self.noted and (not data or size is None or size < 0 or self.size >= self.info.file_size):
            self.noted = True
            if self.crc != self.info.CRC and self.size >= self.info.file_size:
                found = _damaged.get()
                if found is not None:
                    found.append(self.info.filename)
        return data

    def close(self) -> None:
        self.stream.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        self.close()


OLE_SCAN = 64 * 1024 * 1024  # of an OLE compound file that comes open, read for the streams its directory names
# of a zip's directory, read whole by zipfile (some 500 bytes held a part): as much as a file read whole held at most
DIRECTORY_BYTES = 64 * 1024 * 1024


def head(source, size: int) -> bytes:
    """The first ``size`` bytes of ``source``: the file's bytes, or a binary file open on it (left where it was)."""
    if isinstance(source, (bytes, bytearray, memoryview)):
        return bytes(source[:size])
    at = source.tell()
    try:
        source.seek(0)
        return source.read(size)
    finally:
        source.seek(at)


@contextmanager
def opened(data, what: str, ext: str):
    """The zip ``data`` (its bytes, or a binary file open on it, which stays open) as Parts; Skip with the reason
    when it is no readable zip of XML (``what``: 'PowerPoint deck', 'OpenDocument spreadsheet'; ``ext`` its usual
    extension, '.pptx'), encrypted, or a zip bomb."""
    if head(data, len(OLE_MAGIC)) == OLE_MAGIC:
        raise Skip(ole_reason(head(data, OLE_SCAN), what, ext))
    if not isinstance(data, (bytes, bytearray, memoryview)):
        _directory_bounded(data, what)
    try:
        with zipfile.ZipFile(io.BytesIO(data) if isinstance(data, (bytes, bytearray, memoryview)) else data) as package:
            yield Parts(package, what, ext)
    except ERRORS as error:
        from ingest.unreadable import ZIP_START, not_readable
        raise Skip(not_readable(error, what, ext, head(data, len(ZIP_START)))[:500]) from None
    except RecursionError:  # a reader recursing into XML nested 100,000 deep: only a hostile file comes near
        raise Skip(f"not a readable {what}: nested too deeply") from None


def _directory_bounded(source, what: str) -> None:
    """Skip a zip whose directory is over DIRECTORY_BYTES (millions of parts: a hostile file, which zipfile would
    hold as many ZipInfo), before zipfile reads it; a file of no zip directory is left to zipfile to refuse."""
    at = source.tell()
    try:
        size = directory_size(source)
    except OSError:
        size = None
    finally:
        source.seek(at)
    if size is not None and size > DIRECTORY_BYTES:
        raise Skip(f"not a readable {what}: its zip's directory is {size:,} bytes (over {DIRECTORY_BYTES:,}: "
                   f"millions of parts)")


END = struct.Struct("<4s4H2LH")  # end of central directory: signature, 2 disks, 2 entries, size, offset, comment
END_SIGNATURE = b"PK\x05\x06"
LOCATOR = struct.Struct("<4sLQL")  # ZIP64 end of central directory locator, just before the end record
LOCATOR_SIGNATURE = b"PK\x06\x07"
END64 = struct.Struct("<4sQ2H2L4Q")  # ZIP64 end of central directory record: the directory's size is its 9th field
END64_SIGNATURE = b"PK\x06\x06"
COMMENT_MAX = 0xFFFF


def directory_size(source) -> int | None:
    """The size of the central directory that the zip open in ``source`` declares (APPNOTE 4.3.14-4.3.16), as
    zipfile finds it: the last end record in the file's last 64 KiB + 22 bytes (a comment may follow it), and when a
    ZIP64 locator comes just before it and a ZIP64 end record just before that, that record's size. None when no
    end record is found. Reads at most those 64 KiB; moves ``source``."""
    source.seek(0, 2)
    length = source.tell()
    start = max(length - END.size - COMMENT_MAX, 0)
    source.seek(start)
    tail = source.read()
    found = len(tail) - END.size  # no comment: the record ends the file (zipfile looks there first)
    if found < 0 or tail[found:found + 4] != END_SIGNATURE or tail[-2:] != b"\0\0":
        found = tail.rfind(END_SIGNATURE)
    if found < 0 or len(tail) - found < END.size:
        return None
    size = END.unpack_from(tail, found)[5]
    at = start + found  # where the end record is in the file
    if at < LOCATOR.size + END64.size:
        return size
    source.seek(at - LOCATOR.size - END64.size)
    before = source.read(END64.size + LOCATOR.size)
    if len(before) < END64.size + LOCATOR.size or LOCATOR.unpack_from(before, END64.size)[0] != LOCATOR_SIGNATURE:
        return size
    record = END64.unpack_from(before)
    return record[8] if record[0] == END64_SIGNATURE else size


@contextmanager
def opened_odf(data, what: str, ext: str):
    """An OpenDocument file's zip as Parts (opened); Skip also when it holds no content.xml or is password-protected
    (its manifest names encryption data)."""
    with opened(data, what, ext) as parts:
        if "content.xml" not in parts.names:
            raise Skip(f"not a readable {what}: no content.xml in it")
        if "META-INF/manifest.xml" in parts.names and b"encryption-data" in parts.read("META-INF/manifest.xml"):
            raise Skip(f"password-protected (encrypted) {what}: Sift reads {ext} files saved without a password")
        yield parts
