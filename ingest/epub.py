"""EPUB books (.epub: a reader's library, O'Reilly's and Pragmatic's downloads) read as a Word document is
(ingest.word): their chapters' text by heading, a line a paragraph.

An EPUB is a zip of XHTML chapters: META-INF/container.xml names the package document (the .opf), whose spine lists
the chapters in reading order. The standard library reads it (zipfile and ElementTree), and each chapter is read as
an HTML page is (ingest.webpage: its <head>, navigation and scripts left out, its h1-h6 its headings). The title is
the .opf's ``dc:title``, else the file's name. Each chapter's headings go under the book's: its highest heading is
of level 1, so chapters are siblings; a chapter whose text begins before any heading is headed by its own <title>
(a line of its own) when that is not the book's title. The lines read_file shows are these paragraphs
(ingest.word.word_lines), so a passage's lines are what read_file shows there.

Skipped with the reason: a book whose chapters are encrypted (DRM: META-INF/encryption.xml names them; fonts
obfuscated as the EPUB standard allows are no DRM, the book is read), one that is no zip or names no readable
package document, and one whose parts read unzip to more than ingest.odt's limit (a zip bomb)."""
from __future__ import annotations

import io
import posixpath
import zipfile
import xml.etree.ElementTree as ET
from urllib.parse import unquote

from ingest.document import Skip
from ingest.odt import OPENED_BYTES
from ingest.word import WordText

CONTAINER = "META-INF/container.xml"
ENCRYPTION = "META-INF/encryption.xml"
CHAPTER_TYPES = {"application/xhtml+xml", "text/html"}


def epub_text(data: bytes) -> WordText:
    """An .epub read, as ingest.word.WordText. Raises Skip when it is no readable book."""
    from ingest.decode import decode
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as package:
            names = set(package.namelist())
            if CONTAINER not in names:
                raise Skip(f"not a readable EPUB book: no {CONTAINER} in it")
            _check_size(package, [CONTAINER])
            opf_path = _rootfile(package)
            if opf_path not in names:
                raise Skip(f"not a readable EPUB book: its container names {opf_path!r}, which it does not hold")
            _check_size(package, [CONTAINER, opf_path])
            opf = ET.fromstring(package.read(opf_path))
            # a chapter the spine lists twice is read once
            chapters = list(dict.fromkeys(name for name in _spine(opf, posixpath.dirname(opf_path)) if name in names))
            if ENCRYPTION in names:
                _check_size(package, [ENCRYPTION])
                if _encrypted(package) & set(chapters):
                    raise Skip("an EPUB book with DRM (its chapters are encrypted, META-INF/encryption.xml): Sift "
                               "reads books without DRM")
            _check_size(package, [CONTAINER, opf_path, *chapters])
            pages = [(name, package.read(name)) for name in chapters]
    except (zipfile.BadZipFile, ET.ParseError, OSError, ValueError, EOFError, KeyError, RuntimeError) as error:
        raise Skip(f"not a readable EPUB book: {type(error).__name__}: {error}"[:500]) from None
    out = WordText()
    found = next((e for e in opf.iter() if _named(e, "title")), None)
    out.title = " ".join("".join(found.itertext()).split())[:500] if found is not None else ""
    for name, raw in pages:
        try:
            _chapter(out, decode(raw))
        except Skip as why:
            raise Skip(f"not a readable EPUB book: its chapter {name}: {why}"[:500]) from None
    return out


def _check_size(package, names: list[str]) -> None:
    """Skip a book whose parts to read unzip to more than OPENED_BYTES: a zip bomb (each checked before it is read)."""
    size = sum(package.getinfo(name).file_size for name in names)
    if size > OPENED_BYTES:
        raise Skip(f"its parts read unzip to {size:,} bytes (over {OPENED_BYTES:,}): a zip bomb, not a book")


def _named(element, name: str) -> bool:
    """Whether an element is ``name`` in any namespace (or none: a package document written without the OPF's)."""
    return isinstance(element.tag, str) and element.tag.rsplit("}", 1)[-1] == name


def _rootfile(package) -> str:
    """The package document's path in the zip, as container.xml names it (the first rootfile)."""
    container = ET.fromstring(package.read(CONTAINER))
    for element in container.iter():
        if _named(element, "rootfile") and element.get("full-path"):
            return element.get("full-path").lstrip("/")
    raise Skip(f"not a readable EPUB book: {CONTAINER} names no package document (rootfile)")


def _spine(opf, folder: str) -> list[str]:
    """The chapters' paths in the zip, in the spine's order (those that are (X)HTML)."""
    items = {}
    for item in opf.iter():
        href = item.get("href")
        if _named(item, "item") and item.get("id") and href and (item.get("media-type") or "") in CHAPTER_TYPES:
            items[item.get("id")] = posixpath.normpath(posixpath.join(folder, unquote(href.split("#")[0])))
    return [items[ref.get("idref")] for ref in opf.iter() if _named(ref, "itemref") and ref.get("idref") in items]


def _encrypted(package) -> set[str]:
    """The parts encryption.xml says are encrypted, fonts obfuscated as the standard allows left out (no DRM)."""
    root = ET.fromstring(package.read(ENCRYPTION))
    encrypted = set()
    for data in root.iter():
        if not isinstance(data.tag, str) or not data.tag.endswith("}EncryptedData"):
            continue
        method = next((e.get("Algorithm") or "" for e in data.iter() if isinstance(e.tag, str)
                       and e.tag.endswith("}EncryptionMethod")), "")
        if method in ("http://www.idpf.org/2008/embedding", "http://ns.adobe.com/pdf/enc#RC"):  # font obfuscation
            continue
        for reference in data.iter():
            if isinstance(reference.tag, str) and reference.tag.endswith("}CipherReference"):
                encrypted.add(posixpath.normpath(unquote(reference.get("URI") or "").lstrip("/")))
    return encrypted


def _chapter(out: WordText, text: str) -> None:
    """A chapter's lines and headings added to ``out``, read as an HTML page is (ingest.webpage)."""
    from ingest.webpage import _Reader
    reader = _Reader()
    reader.feed(text)
    reader.finish()
    kept, lines = {}, []
    for index, (_, _, pieces) in enumerate(reader.lines):
        line = "".join(pieces).strip()
        if line:
            kept[index] = len(lines)
            lines.append(line)
    if not lines:
        return
    headings = sorted((kept[index], level, name) for index, level, name in reader.headings if index in kept)
    top = min((level for _, level, _ in headings), default=1)
    title = " ".join(reader.title.split())[:500]
    first = len(out.lines)
    if (not headings or headings[0][0] > 0) and title and title != out.title:
        out.headings.append((first, 1, title))  # its text before any heading: under its own title, a line of it
        out.lines.append(title)
        first, top = first + 1, top - 1
    out.headings += [(first + line, level - top + 1, name) for line, level, name in headings]
    out.lines += lines
