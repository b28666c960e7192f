"""An office file's zip, opened and read with the guards every zip-based reader needs (ingest.slides, ingest.ods):
an OLE compound file (a password-protected Office file, or an old binary one renamed) skipped with the reason, a
broken zip or XML skipped with its error, and the parts read counted as they unzip: more than OPENED_BYTES is a zip
bomb, skipped before the part that would pass it is read. (ingest.word, odt, epub and xlsx each still hold a copy
of these checks, written before this module.)"""
from __future__ import annotations

import io
import zipfile
import xml.etree.ElementTree as ET
from contextlib import contextmanager

from ingest.document import Skip
from ingest.odt import OPENED_BYTES
from ingest.word import OLE_MAGIC

ERRORS = (zipfile.BadZipFile, ET.ParseError, OSError, ValueError, EOFError, KeyError, RuntimeError)


class Parts:
    """A zip's parts by name, each read counted against OPENED_BYTES (``what``: 'PowerPoint deck', in reasons)."""

    def __init__(self, package: zipfile.ZipFile, what: str):
        self.package, self.what = package, what
        self.names = set(package.namelist())
        self.opened = 0

    def _count(self, name: str) -> None:
        self.opened += self.package.getinfo(name).file_size
        if self.opened > OPENED_BYTES:
            raise Skip(f"its parts read unzip to over {OPENED_BYTES:,} bytes: a zip bomb, not a {self.what}")

    def read(self, name: str) -> bytes:
        self._count(name)
        return self.package.read(name)

    def xml(self, name: str):
        """A part's XML root, or None when the zip holds no such part."""
        return ET.fromstring(self.read(name)) if name in self.names else None

    def open(self, name: str):
        """A part as a stream (a big sheet read as it unzips), counted whole first."""
        self._count(name)
        return self.package.open(name)


@contextmanager
def opened(data: bytes, what: str):
    """The zip ``data`` as Parts; Skip with the reason when it is no readable zip of XML (``what``: 'PowerPoint
    deck', 'OpenDocument spreadsheet'), encrypted, or a zip bomb."""
    if data.startswith(OLE_MAGIC):
        raise Skip(f"a password-protected (encrypted) {what}, or an old binary Office file renamed (an OLE compound "
                   f"file, not a zip): Sift reads files saved without a password")
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as package:
            yield Parts(package, what)
    except ERRORS as error:
        raise Skip(f"not a readable {what}: {type(error).__name__}: {error}"[:500]) from None
    except RecursionError:  # a reader recursing into XML nested 100,000 deep: only a hostile file comes near
        raise Skip(f"not a readable {what}: nested too deeply") from None


def encrypted(parts: Parts) -> bool:
    """Whether an OpenDocument file is password-protected: its manifest names encryption data."""
    return "META-INF/manifest.xml" in parts.names and b"encryption-data" in parts.read("META-INF/manifest.xml")
