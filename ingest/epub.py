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
package document, one whose parts read unzip to more than ingest.zipped's limit (a zip bomb), and one of more chapters
than the passages one file may make where passages are embedded (most_chapters)."""
from __future__ import annotations

import posixpath
import re
import xml.etree.ElementTree as ET
from urllib.parse import unquote

from ingest.document import Skip
from ingest.passage_dates import property_date
from ingest.word import WordText
from ingest.zipped import opened

CONTAINER = "META-INF/container.xml"
ENCRYPTION = "META-INF/encryption.xml"
CHAPTER_TYPES = {"application/xhtml+xml", "text/html"}
TAG = re.compile(r"<[^>]*>")
# a footnote's mark, a link to the note a reader shows as a popup (EPUB 3's epub:type, DPUB-ARIA's role): its number
# was glued to the word before it ('harbour1'), a word no search for 'harbour' found
NOTEREF = re.compile(r"""<a\b[^>]*\b(?:epub:type|role)\s*=\s*["'][^"']*\b(?:doc-)?noteref\b[^>]*>(.{0,200}?)</a>""",
                     re.IGNORECASE | re.DOTALL)


def epub_text(data: bytes) -> WordText:
    """An .epub read, as ingest.word.WordText. Raises Skip when it is no readable book."""
    from ingest.decode import decode
    with opened(data, "EPUB book", ".epub") as parts:
        if CONTAINER not in parts.names:
            raise Skip(f"not a readable EPUB book: no {CONTAINER} in it")
        opf_path = _rootfile(parts)
        if opf_path not in parts.names:
            raise Skip(f"not a readable EPUB book: its container names {opf_path!r}, which it does not hold")
        opf = parts.xml(opf_path)
        # a chapter the spine lists twice is read once
        chapters = list(dict.fromkeys(name for name in _spine(opf, posixpath.dirname(opf_path))
                                      if name in parts.names))
        most = most_chapters()
        if most is not None and len(chapters) > most:
            raise Skip(f"an EPUB book of {len(chapters):,} chapters, each a passage at least: more than the "
                       f"{most:,} passages one file may make (SIFT_MAX_FILE_CHUNKS); raise it to index the book")
        if ENCRYPTION in parts.names and _encrypted(parts) & set(chapters):
            raise Skip("an EPUB book with DRM (its chapters are encrypted, META-INF/encryption.xml): Sift reads "
                       "books without DRM")
        contents_path = _contents_part(opf, posixpath.dirname(opf_path))
        pages = [(name, parts.read(name)) for name in chapters]
        contents = _contents(parts.read(contents_path), contents_path) if contents_path in parts.names else {}
    out = WordText()
    found = next((e for e in opf.iter() if _named(e, "title")), None)
    out.title = " ".join("".join(found.itertext()).split())[:500] if found is not None else ""
    out.created = _published(opf)
    out.author = _creators(opf)
    for name, raw in pages:
        try:
            _chapter(out, decode(raw), contents.get(name, []))
        except Skip as why:
            raise Skip(f"not a readable EPUB book: its chapter {name}: {why}"[:500]) from None
    if not out.lines:  # a comic's or a scanned book's pages are pictures: nothing to search, said so (as a scan's PDF)
        raise Skip(f"no text: its {len(pages)} chapters hold only pictures (a comic, or a book of page scans?)")
    return out


def most_chapters() -> int | None:
    """The most chapters a book may have to be read: the passages one file may make (SIFT_MAX_FILE_CHUNKS), as each
    chapter with text is a passage at least; None in a keyword-only index (SIFT_EMBEDDINGS=off), which has no such
    limit (the parts' 128 MiB unzipped, ingest.zipped, bounds it). Checked before the chapters are read: an .epub of
    100,000 short chapters (bench/hostile.py's chapters.epub) took 6.8 s and 240 MB to be refused at chunk. A fixed
    10,000 said 'more passages than one file may make' of a book SIFT_MAX_FILE_CHUNKS had been raised for, and
    refused it in a keyword-only index too."""
    from search.settings import Settings, load
    try:
        settings = load()
    except ValueError:  # a bad SIFT_* value: the entry point has said so already; the default limit
        return Settings.max_file_chunks
    return settings.max_file_chunks if settings.embeddings else None


def _creators(opf) -> str:
    """The book's authors: the package document's ``dc:creator`` elements, '; ' between them (ingest.recorded_author);
    one whose ``opf:role`` names another part (an editor, 'edt'; an illustrator, 'ill') is none. Not read, a book was
    found by no author filter."""
    from ingest.recorded_author import recorded_author
    creators = [e for e in opf.iter() if _named(e, "creator")
                and next((value for key, value in e.attrib.items() if key.endswith("role")), "aut") == "aut"]
    return recorded_author(*(" ".join("".join(e.itertext()).split()) for e in creators))


def _published(opf) -> str:
    """The book's ``dc:date`` (its publication: EPUB 2's may say which event each is, and one of its modification
    or creation is no publication), as front matter writes a date; '' for none."""
    dates = sorted((e for e in opf.iter() if _named(e, "date") and _event(e) in ("publication", "")),
                   key=lambda e: _event(e) != "publication")
    return property_date("".join(dates[0].itertext())) if dates else ""


def _event(element) -> str:
    return next((value for key, value in element.attrib.items() if key.rsplit("}", 1)[-1] == "event"), "")


def _named(element, name: str) -> bool:
    """Whether an element is ``name`` in any namespace (or none: a package document written without the OPF's)."""
    return isinstance(element.tag, str) and element.tag.rsplit("}", 1)[-1] == name


def _rootfile(parts) -> str:
    """The package document's path in the zip, as container.xml names it (the first rootfile)."""
    container = parts.xml(CONTAINER)
    for element in container.iter():
        if _named(element, "rootfile") and element.get("full-path"):
            return element.get("full-path").lstrip("/")
    raise Skip(f"not a readable EPUB book: {CONTAINER} names no package document (rootfile)")


def _spine(opf, folder: str) -> list[str]:
    """The chapters' paths in the zip, in the spine's order (those that are (X)HTML); not the navigation document
    (EPUB 3's table of contents, which a spine may list: its lines repeat the headings, as a Word document's)."""
    items = {}
    for item in opf.iter():
        href = item.get("href")
        if _named(item, "item") and item.get("id") and href and (item.get("media-type") or "") in CHAPTER_TYPES \
                and "nav" not in (item.get("properties") or "").split():
            items[item.get("id")] = posixpath.normpath(posixpath.join(folder, unquote(href.split("#")[0])))
    return [items[ref.get("idref")] for ref in opf.iter() if _named(ref, "itemref") and ref.get("idref") in items]


def _contents_part(opf, folder: str) -> str:
    """The path of the book's table of contents: its EPUB 3 navigation document (the manifest item of property
    'nav'), else its EPUB 2 toc.ncx (the spine's ``toc``, else the item of the NCX media type); '' when none."""
    items = [item for item in opf.iter() if _named(item, "item") and item.get("href")]
    spine = next((e for e in opf.iter() if _named(e, "spine")), None)
    toc = spine.get("toc") if spine is not None else None
    found = [i for i in items if "nav" in (i.get("properties") or "").split()] + [
        i for i in items if toc and i.get("id") == toc] + [
        i for i in items if i.get("media-type") == "application/x-dtbncx+xml"]
    return posixpath.normpath(posixpath.join(folder, unquote(found[0].get("href").split("#")[0]))) if found else ""


def _contents(raw: bytes, path: str) -> dict[str, list[tuple[str, int, str]]]:
    """The table of contents' entries by the chapter they point to: (its fragment, depth from 1, label), in order.
    A navigation document's <nav epub:type="toc"> (else its first <nav>) or an NCX's navPoints; a contents that is
    not readable XML is none (the chapters are read without it)."""
    try:
        root = ET.fromstring(raw)
    except ET.ParseError:
        return {}
    entries: dict[str, list[tuple[str, int, str]]] = {}
    folder = posixpath.dirname(path)

    def add(href: str, depth: int, label: str) -> None:
        target, _, fragment = href.partition("#")
        label = " ".join(label.split())
        if label and "://" not in target:
            name = posixpath.normpath(posixpath.join(folder, unquote(target))) if target else path
            entries.setdefault(name, []).append((unquote(fragment), depth, label))

    def walk(element, depth: int) -> None:
        for child in element:
            if _named(child, "navPoint"):  # NCX: <navLabel><text>…</text></navLabel><content src="…"/>
                label = next((e for e in child if _named(e, "navLabel")), None)
                content = next((e for e in child if _named(e, "content")), None)
                if label is not None and content is not None:
                    add(content.get("src") or "", depth, "".join(label.itertext()))
                walk(child, depth + 1)
            elif _named(child, "a") and child.get("href"):
                add(child.get("href"), depth, "".join(child.itertext()))
            elif _named(child, "ol"):
                walk(child, depth + 1)
            elif isinstance(child.tag, str):
                walk(child, depth)

    navs = [e for e in root.iter() if _named(e, "nav")]
    toc = next((n for n in navs if "toc" in (n.get("{http://www.idpf.org/2007/ops}type") or "").split()), None)
    try:
        if toc is not None or navs:
            walk(toc if toc is not None else navs[0], 0)
        else:
            walk(next((e for e in root.iter() if _named(e, "navMap")), root), 1)
    except RecursionError:  # entries nested past the stack: only a hostile file, read without its contents
        return {}
    return entries


def _encrypted(parts) -> set[str]:
    """The parts encryption.xml says are encrypted, fonts obfuscated as the standard allows left out (no DRM)."""
    root = parts.xml(ENCRYPTION)
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


def _chapter(out: WordText, text: str, entries: list[tuple[str, int, str]] = ()) -> None:
    """A chapter's lines and headings added to ``out``, read as an HTML page is (ingest.webpage). ``entries``, the
    table of contents' entries pointing into it, head it where its own tags do not: a line of an entry's label (a
    converted book's 'Chapter 3' is a styled paragraph, no <h1>) is a heading of the entry's depth, and a chapter
    whose text begins before any heading is headed by the label of the entry pointing at its start, else by its
    <title>."""
    from ingest.webpage import _Reader
    reader = _Reader()
    reader.feed(NOTEREF.sub(_note_mark, text) if "noteref" in text else text)
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
    labelled, start = _labelled(lines, headings, entries, text)
    title = start or " ".join(reader.title.split())[:500]
    first = len(out.lines)
    if (not (headings or labelled) or min(headings[:1] + labelled)[0] > 0) and title and title != out.title:
        out.headings.append((first, 1, title))  # its text before any heading: under its own title, a line of it
        out.lines.append(title)
        first, top = first + 1, top - 1
    out.headings += sorted([(first + line, level - top + 1, name) for line, level, name in headings]
                           + [(first + line, depth, name) for line, depth, name in labelled])
    out.lines += lines


def _labelled(lines: list[str], headings: list, entries, text: str) -> tuple[list[tuple[int, int, str]], str]:
    """(the chapter's lines that are a contents entry's label and no heading already, as (line, depth, label); the
    label of the entry pointing at its start, or '')."""
    headed = {line for line, _, _ in headings} | {None}
    names = {_folded(name) for _, _, name in headings}
    labelled, start = [], ""
    for fragment, depth, label in entries:
        if not start and (not fragment or _at_start(text, fragment)):
            start = label
        if _folded(label) in names:
            continue
        line = next((n for n, shown in enumerate(lines) if _folded(shown) == _folded(label)), None)
        if line not in headed:
            headed.add(line)
            names.add(_folded(label))
            labelled.append((line, max(depth, 1), label))
    if any(_folded(start) == _folded(name) for _, _, name in labelled):
        start = ""  # its label is a line of it further on: that line is its heading
    return labelled, start


def _note_mark(found) -> str:
    """A footnote's mark as a Word document's are ('[^3]'), apart from the word it follows."""
    label = " ".join(TAG.sub("", found.group(1)).split()).strip("[]()")
    return f"[^{label}]" if label else ""


def _folded(text: str) -> str:
    return " ".join(text.split()).casefold()


def _at_start(text: str, fragment: str) -> bool:
    """Whether the element of id ``fragment`` comes before any text of the chapter's body."""
    at = text.rfind("<", 0, max(text.find(f'id="{fragment}"'), 0))  # its tag's start
    body = re.search(r"<body[^>]*>", text, re.IGNORECASE)
    return at >= 0 and (body is None or body.end() <= at) and not TAG.sub(
        "", text[body.end() if body else 0:at]).strip()
