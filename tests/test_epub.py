"""EPUB books (.epub, ingest.epub): small books written here with zipfile, read by the parser and the real engine.

Before, .epub was among the 'kinds Sift does not read': none of these searches found its answer."""
from __future__ import annotations

import io
import os
import zipfile
from pathlib import Path

import pytest

from ingest.document import Skip
from ingest.kinds import kind_of
from ingest.parse import parse_file
from tests.conftest import ingest, write_tree

CONTAINER = """<?xml version="1.0"?>
<container version="1.0" xmlns="urn:oasis:names:tc:opendocument:xmlns:container">
  <rootfiles><rootfile full-path="OEBPS/content.opf" media-type="application/oebps-package+xml"/></rootfiles>
</container>"""
OPF = """<?xml version="1.0" encoding="utf-8"?>
<package xmlns="http://www.idpf.org/2007/opf" version="3.0" unique-identifier="id">
  <metadata xmlns:dc="http://purl.org/dc/elements/1.1/">{title}<dc:language>en</dc:language></metadata>
  <manifest>
    <item id="nav" href="nav.xhtml" media-type="application/xhtml+xml" properties="nav"/>
    <item id="c2" href="text/chapter%202.xhtml" media-type="application/xhtml+xml"/>
    <item id="c1" href="text/ch1.xhtml" media-type="application/xhtml+xml"/>
    <item id="css" href="style.css" media-type="text/css"/>
  </manifest>
  <spine><itemref idref="c1"/><itemref idref="c2"/></spine>
</package>"""
PAGE = """<?xml version="1.0" encoding="utf-8"?>
<html xmlns="http://www.w3.org/1999/xhtml"><head><title>{title}</title></head>
<body>
{body}
</body></html>"""
CHAPTER_1 = PAGE.format(title="Tides", body="""<h1>Tides of the Fjord</h1>
<p>The tide table of Kvarven harbour was kept by Ingrid Halvorsen.</p>
<h2>Spring tides</h2>
<p>At spring tide the <em>sonar survey</em> found 14 metres.</p>""")
CHAPTER_2 = PAGE.format(title="Storms", body="""<p>Storm surges flooded the quay in 1953.</p>
<h3>Aftermath</h3>
<p>Okonkwo rebuilt the breakwater.</p>""")


def book(title: str = "<dc:title>The Harbour Book</dc:title>", chapters: dict | None = None,
         extra: dict | None = None) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as package:
        package.writestr("mimetype", "application/epub+zip", compress_type=zipfile.ZIP_STORED)
        package.writestr("META-INF/container.xml", CONTAINER)
        package.writestr("OEBPS/content.opf", OPF.format(title=title))
        package.writestr("OEBPS/nav.xhtml", PAGE.format(title="Contents", body="<nav><ol><li>Tides</li></ol></nav>"))
        files = {"OEBPS/text/ch1.xhtml": CHAPTER_1, "OEBPS/text/chapter 2.xhtml": CHAPTER_2, **(chapters or {}),
                 **(extra or {})}
        for name, text in files.items():
            package.writestr(name, text)
    return out.getvalue()


def test_an_epub_is_a_note_its_chapters_in_spine_order_by_their_headings():
    assert kind_of("library/harbour.epub") == "note"
    doc = parse_file("library/harbour.epub", book())
    assert doc.title == "The Harbour Book"
    sections = [(s.heading_path, s.text, s.start_line, s.end_line) for s in doc.sections]
    assert sections == [
        (["Tides of the Fjord"], "Tides of the Fjord\nThe tide table of Kvarven harbour was kept by Ingrid "
                                 "Halvorsen.", 1, 2),
        (["Tides of the Fjord", "Spring tides"], "Spring tides\nAt spring tide the sonar survey found 14 metres.",
         3, 4),
        # chapter 2 (a file name with a space, '%20' in the manifest) begins before its first heading: its title
        # heads it, and its h3 is under it, not under chapter 1's headings
        (["Storms"], "Storms\nStorm surges flooded the quay in 1953.", 5, 6),
        (["Storms", "Aftermath"], "Aftermath\nOkonkwo rebuilt the breakwater.", 7, 8),
    ], sections


def test_an_epub_title_is_its_dc_title_else_its_file_name():
    assert parse_file("shelf/the-harbour.epub", book(title="")).title == "the-harbour"


def test_an_epub_paragraph_over_a_million_characters_is_read_in_pieces_as_an_html_pages_is():
    """A chapter is read as an HTML page (ingest.webpage): a paragraph past its LINE_CHARS goes on in lines of about
    PIECE_CHARS, so no line reaches the million characters a text file's line is refused at. The book was skipped so
    (as a .docx still is) until the page reader cut such paragraphs; this test still expected it."""
    from ingest.webpage import LINE_CHARS, PIECE_CHARS
    dump = PAGE.format(title="Dump", body="<p>" + "word " * 220_000 + "</p>")
    first = parse_file("shelf/dump.epub", book(chapters={"OEBPS/text/ch1.xhtml": dump})).sections[0]
    heading, *lines = first.text.split("\n")
    assert heading == "Dump" and len(lines[0]) <= LINE_CHARS + 10 and max(map(len, lines[1:])) <= PIECE_CHARS + 10
    assert " ".join(lines).split() == ["word"] * 220_000


def test_a_broken_or_drm_epub_is_skipped_with_its_reason():
    with pytest.raises(Skip, match="not a readable EPUB book"):
        parse_file("broken.epub", b"PK\x03\x04 truncated")
    with pytest.raises(Skip, match="no META-INF/container.xml"):
        parse_file("empty.epub", _zip({"mimetype": "application/epub+zip"}))
    encryption = """<encryption xmlns="urn:oasis:names:tc:opendocument:xmlns:container"
        xmlns:enc="http://www.w3.org/2001/04/xmlenc#"><enc:EncryptedData>
        <enc:EncryptionMethod Algorithm="http://www.w3.org/2001/04/xmlenc#aes128-cbc"/>
        <enc:CipherData><enc:CipherReference URI="OEBPS/text/ch1.xhtml"/></enc:CipherData>
        </enc:EncryptedData></encryption>"""
    with pytest.raises(Skip, match="DRM"):
        parse_file("locked.epub", book(extra={"META-INF/encryption.xml": encryption}))
    # fonts obfuscated as the standard allows are no DRM: the book is read
    fonts = encryption.replace("http://www.w3.org/2001/04/xmlenc#aes128-cbc", "http://www.idpf.org/2008/embedding") \
        .replace("OEBPS/text/ch1.xhtml", "OEBPS/font.otf")
    assert parse_file("fonts.epub", book(extra={"META-INF/encryption.xml": fonts})).title == "The Harbour Book"


def test_an_epub_whose_chapters_are_a_zip_bomb_is_skipped_unread(monkeypatch):
    import ingest.zipped
    monkeypatch.setattr(ingest.zipped, "OPENED_BYTES", 50_000)
    assert parse_file("fine.epub", book()).title == "The Harbour Book"
    bomb = PAGE.format(title="Tides", body="<p>" + "a " * 40_000 + "</p>")
    with pytest.raises(Skip, match="a zip bomb"):
        parse_file("bomb.epub", book(chapters={"OEBPS/text/ch1.xhtml": bomb}))
    with pytest.raises(Skip, match="a zip bomb"):  # the package document counts too
        parse_file("bomb.epub", book(title="<dc:title>Bomb</dc:title>" + " " * 60_000))


def test_a_package_document_without_its_namespace_or_a_chapter_listed_twice_is_read_once():
    """A spine naming a chapter twice read its text twice; an .opf written without the OPF namespace read nothing."""
    title = "<dc:title>The Harbour Book</dc:title>"
    paths = [["Tides of the Fjord"], ["Tides of the Fjord", "Spring tides"], ["Storms"], ["Storms", "Aftermath"]]
    plain = with_opf(OPF.replace(' xmlns="http://www.idpf.org/2007/opf"', "").format(title=title))
    assert parse_file("plain.epub", plain).title == "The Harbour Book"
    assert [s.heading_path for s in parse_file("plain.epub", plain).sections] == paths
    twice = with_opf(OPF.replace('<itemref idref="c2"/>', '<itemref idref="c2"/><itemref idref="c1"/>')
                     .format(title=title))
    assert [s.heading_path for s in parse_file("twice.epub", twice).sections] == paths


def with_opf(opf: str) -> bytes:
    """``book()`` with this package document."""
    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(book()), "r") as original, zipfile.ZipFile(out, "w") as package:
        for info in original.infolist():
            package.writestr(info.filename, opf if info.filename == "OEBPS/content.opf" else original.read(info))
    return out.getvalue()


def _zip(files: dict) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as package:
        for name, text in files.items():
            package.writestr(name, text)
    return out.getvalue()


def test_epub_books_are_searched_and_read_by_their_lines_and_headings(immediate, tmp_path, monkeypatch):
    """Searched by a chapter's words, a broken book a visible failure costing nothing else; read_file shows the
    lines search names, and a chapter's section by its heading."""
    from mcp_server import reading
    from mcp_server.service import Sift
    from search.query.engine import Engine
    from search.settings import load
    monkeypatch.setenv("SIFT_EMBEDDINGS", "off")
    root = write_tree(tmp_path / "library", {"notes/plan.md": "# Plan\n\nThe ferry runs hourly.\n"})
    (root / "books").mkdir()
    (root / "books" / "harbour.epub").write_bytes(book())
    (root / "books" / "broken.epub").write_bytes(b"PK\x03\x04 truncated")
    published = ingest(root, "library")["published"]
    assert ".epub" not in published["unread"], published
    failed = {f["path"]: f for f in published["failures"]}
    assert list(failed) == ["books/broken.epub"], published["failures"]
    assert "not a readable EPUB book" in str(failed["books/broken.epub"]), failed
    engine = Engine(Path(os.environ["SIFT_HOME"]) / "index.db")

    def found(query: str):
        return [(h.path, h.heading_path, h.start_line, h.end_line)
                for h in engine.search(query, mode="keyword").hits]

    assert found("Okonkwo breakwater")[0][:2] == ("books/harbour.epub", "Storms > Aftermath")
    assert found("Halvorsen")[0][:2] == ("books/harbour.epub", "Tides of the Fjord")
    _, _, first, last = found("Halvorsen")[0]
    sift = Sift(load())
    shown, data = reading.read(sift, "library/books/harbour.epub", first, last, None)
    assert "The tide table of Kvarven harbour was kept by Ingrid Halvorsen." in shown and "an EPUB book" in shown
    assert (data["start_line"], data["end_line"], data["total_lines"]) == (first, last, 8), data
    shown, data = reading.read(sift, "library/books/harbour.epub", None, None, None, heading="Storms")
    assert (data["start_line"], data["end_line"]) == (5, 8), data
    assert "Okonkwo rebuilt the breakwater." in shown and "Spring tides" not in shown, shown


CALIBRE_OPF = """<?xml version="1.0" encoding="utf-8"?>
<package xmlns="http://www.idpf.org/2007/opf" version="2.0" unique-identifier="id">
  <metadata xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:title>The Harbour Book</dc:title></metadata>
  <manifest>
    <item id="ncx" href="toc.ncx" media-type="application/x-dtbncx+xml"/>
    <item id="s0" href="index_split_000.html" media-type="application/xhtml+xml"/>
    <item id="s1" href="index_split_001.html" media-type="application/xhtml+xml"/>
    <item id="s2" href="index_split_002.html" media-type="application/xhtml+xml"/>
  </manifest>
  <spine toc="ncx"><itemref idref="s0"/><itemref idref="s1"/><itemref idref="s2"/></spine>
</package>"""
NCX = """<?xml version="1.0" encoding="utf-8"?>
<ncx xmlns="http://www.daisy.org/z3986/2005/ncx/" version="2005-1"><navMap>
  <navPoint id="n1" playOrder="1"><navLabel><text>Chapter One: Tides</text></navLabel>
    <content src="index_split_000.html"/></navPoint>
  <navPoint id="n2" playOrder="2"><navLabel><text>Chapter Two: Storms</text></navLabel>
    <content src="index_split_001.html#filepos2104"/>
    <navPoint id="n3" playOrder="3"><navLabel><text>Aftermath</text></navLabel>
      <content src="index_split_001.html#filepos3000"/></navPoint></navPoint>
  <navPoint id="n4" playOrder="4"><navLabel><text>Epilogue</text></navLabel>
    <content src="index_split_002.html#start"/></navPoint>
</navMap></ncx>"""


def calibre_book(ncx: str = NCX) -> bytes:
    """A book as Calibre converts one (EPUB 2, a toc.ncx, no nav document): its files split by size, each titled by
    the book, its chapters' headings styled paragraphs, the second chapter beginning halfway through a file."""
    page = PAGE.replace("{title}", "The Harbour Book")
    return _zip({"mimetype": "application/epub+zip", "META-INF/container.xml": CONTAINER,
                 "OEBPS/content.opf": CALIBRE_OPF, "OEBPS/toc.ncx": ncx,
                 "OEBPS/index_split_000.html": page.format(body='<p class="calibre3">Chapter One: Tides</p>'
                                                           '<p class="calibre1">Ingrid Halvorsen kept the tide table.</p>'),
                 "OEBPS/index_split_001.html": page.format(body='<p class="calibre1">The lighthouse keeper slept.</p>'
                                                           '<p class="calibre3" id="filepos2104">Chapter Two: Storms</p>'
                                                           '<p class="calibre1">Storm surges flooded the quay.</p>'
                                                           '<p class="calibre4" id="filepos3000">Aftermath</p>'
                                                           '<p class="calibre1">Okonkwo rebuilt the breakwater.</p>'),
                 "OEBPS/index_split_002.html": page.format(body='<div id="start"><p>The harbour sleeps.</p></div>')})


def test_a_converted_books_chapters_are_headed_by_its_table_of_contents():
    """Calibre's books (EPUB 2, only a toc.ncx) head chapters with styled paragraphs, no <h1>, and give every file
    the book's title: the whole book was one section without a heading, the second chapter's start filed in the
    first chapter's text. The contents' labels head them now, a label's line (at its depth), or a file's start."""
    doc = parse_file("calibre.epub", calibre_book())
    sections = [(s.heading_path, s.text) for s in doc.sections]
    assert sections == [
        (["Chapter One: Tides"], "Chapter One: Tides\nIngrid Halvorsen kept the tide table.\n"
                                 "The lighthouse keeper slept."),
        (["Chapter Two: Storms"], "Chapter Two: Storms\nStorm surges flooded the quay."),
        (["Chapter Two: Storms", "Aftermath"], "Aftermath\nOkonkwo rebuilt the breakwater."),
        # its label is no line of it: the label heads it, a line of its own
        (["Epilogue"], "Epilogue\nThe harbour sleeps."),
    ], sections
    # an EPUB 3 navigation document says the same
    nav = PAGE.format(title="Contents", body='<nav xmlns:epub="http://www.idpf.org/2007/ops" epub:type="toc"><ol>'
                      '<li><a href="index_split_000.html">Chapter One: Tides</a></li>'
                      '<li><a href="index_split_001.html#filepos2104">Chapter Two: Storms</a><ol>'
                      '<li><a href="index_split_001.html#filepos3000">Aftermath</a></li></ol></li>'
                      '<li><a href="index_split_002.html#start">Epilogue</a></li></ol></nav>')
    epub3 = _zip({**{n: zipfile.ZipFile(io.BytesIO(calibre_book())).read(n) for n in
                     zipfile.ZipFile(io.BytesIO(calibre_book())).namelist()},
                  "OEBPS/content.opf": CALIBRE_OPF.replace('<item id="ncx" href="toc.ncx" media-type="application/'
                                                           'x-dtbncx+xml"/>', '<item id="nav" href="nav.xhtml" '
                                                           'media-type="application/xhtml+xml" properties="nav"/>'),
                  "OEBPS/nav.xhtml": nav})
    assert [(s.heading_path, s.text) for s in parse_file("calibre3.epub", epub3).sections] == sections
    # a contents that is no XML, or nested past the stack, is none: the book is read as before, not skipped
    assert parse_file("broken-toc.epub", calibre_book(ncx="<ncx><navMap>")).sections[0].heading_path == []
    deep = "<ncx><navMap>" + "<navPoint>" * 100_000 + "</navPoint>" * 100_000 + "</navMap></ncx>"
    assert parse_file("deep-toc.epub", calibre_book(ncx=deep)).sections[0].heading_path == []


def test_the_navigation_document_a_spine_lists_is_no_chapter():
    """EPUB 3 books often list their navigation document in the spine: its heading ('Contents') was a line of the
    first chapter's first passage (its list, a <nav>, was left out already)."""
    opf = OPF.replace('<itemref idref="c1"/>', '<itemref idref="nav"/><itemref idref="c1"/>')
    nav = PAGE.format(title="Contents", body='<h1>Contents</h1><nav><ol><li><a href="text/ch1.xhtml">Tides</a></li>'
                      '</ol></nav>')
    listed = _zip({**{n: zipfile.ZipFile(io.BytesIO(book())).read(n)
                      for n in zipfile.ZipFile(io.BytesIO(book())).namelist()},
                   "OEBPS/content.opf": opf.format(title="<dc:title>The Harbour Book</dc:title>"),
                   "OEBPS/nav.xhtml": nav})
    assert [(s.heading_path, s.text) for s in parse_file("listed.epub", listed).sections] == \
        [(s.heading_path, s.text) for s in parse_file("harbour.epub", book()).sections]


def test_an_epub_of_pictures_only_is_skipped_saying_so():
    """A comic's or a scanned book's pages are images: it was 'indexed' with nothing any search could find."""
    pictures = PAGE.format(title="Page 1", body='<div><img src="../images/p1.jpg" alt=""/></div>')
    with pytest.raises(Skip, match="no text: its 2 chapters hold only pictures"):
        parse_file("comic.epub", book(chapters={"OEBPS/text/ch1.xhtml": pictures,
                                                "OEBPS/text/chapter 2.xhtml": pictures}))


def test_a_popup_footnotes_mark_is_apart_from_the_word_it_follows():
    """EPUB 3 marks a footnote by a link (epub:type="noteref"): its number was glued to the word before it
    ('harbour1'), and no search for 'harbour' found that paragraph by it."""
    chapter = PAGE.format(title="Tides", body='''<h1>Tides</h1><p>The harbour<a epub:type="noteref" href="#n1"
        id="r1"><sup>1</sup></a> silted up, as Aasen<a role="doc-noteref" href="#n2">[2]</a> saw.</p>
        <aside epub:type="footnote" id="n1"><p>Dredged in 1987.</p></aside>''')
    doc = parse_file("notes.epub", book(chapters={"OEBPS/text/ch1.xhtml": chapter}))
    assert doc.sections[0].text.split("\n") == ["Tides", "The harbour[^1] silted up, as Aasen[^2] saw.",
                                                "Dredged in 1987."], doc.sections[0].text
