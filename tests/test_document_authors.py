"""The author each kind of document records in its metadata, read as a .docx's core properties author is: an
.odt's and an .odp's meta.xml (``meta:initial-creator``, else ``dc:creator``), an EPUB's package ``dc:creator``s (an
editor left out), a .pptx's docProps/core.xml ``dc:creator``. They were not read, so search's author filter found no
such file; and a metadata author of two Chinese characters (王伟) was dropped by the rule that a name has three
letters."""
from __future__ import annotations

import io
import zipfile

import pytest

from ingest.parse import parse_file

DC = 'xmlns:dc="http://purl.org/dc/elements/1.1/"'
ODF = ('xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" '
       'xmlns:meta="urn:oasis:names:tc:opendocument:xmlns:meta:1.0" '
       'xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" '
       'xmlns:draw="urn:oasis:names:tc:opendocument:xmlns:drawing:1.0" ' + DC)


def _zip(parts: dict[str, str]) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as package:
        for name, text in parts.items():
            package.writestr(name, text)
    return out.getvalue()


def _odf_meta(creators: str) -> str:
    return f'<office:document-meta {ODF}><office:meta>{creators}</office:meta></office:document-meta>'


def odt(text: str, creators: str) -> bytes:
    return _zip({"mimetype": "application/vnd.oasis.opendocument.text",
                 "content.xml": f"<office:document-content {ODF}><office:body><office:text><text:p>{text}</text:p>"
                                "</office:text></office:body></office:document-content>",
                 "meta.xml": _odf_meta(creators), "META-INF/manifest.xml": "<manifest/>"})


def odp(text: str, creators: str) -> bytes:
    return _zip({"mimetype": "application/vnd.oasis.opendocument.presentation",
                 "content.xml": f"<office:document-content {ODF}><office:body><office:presentation>"
                                f'<draw:page draw:name="One"><draw:frame><draw:text-box><text:p>{text}</text:p>'
                                "</draw:text-box></draw:frame></draw:page></office:presentation></office:body>"
                                "</office:document-content>",
                 "meta.xml": _odf_meta(creators), "META-INF/manifest.xml": "<manifest/>"})


def epub(text: str, creators: str) -> bytes:
    opf = ('<package xmlns="http://www.idpf.org/2007/opf" xmlns:opf="http://www.idpf.org/2007/opf" version="2.0">'
           f'<metadata {DC}><dc:title>Harbours</dc:title>{creators}</metadata>'
           '<manifest><item id="c1" href="c1.xhtml" media-type="application/xhtml+xml"/></manifest>'
           '<spine><itemref idref="c1"/></spine></package>')
    return _zip({"mimetype": "application/epub+zip",
                 "META-INF/container.xml": '<container xmlns="urn:oasis:names:tc:opendocument:xmlns:container">'
                                           '<rootfiles><rootfile full-path="content.opf"/></rootfiles></container>',
                 "content.opf": opf,
                 "c1.xhtml": f'<html xmlns="http://www.w3.org/1999/xhtml"><body><p>{text}</p></body></html>'})


def pptx(text: str, creator: str) -> bytes:
    pns = ('xmlns:p="http://schemas.openxmlformats.org/presentationml/2006/main" '
           'xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main" '
           'xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"')
    rels = 'xmlns="http://schemas.openxmlformats.org/package/2006/relationships"'
    return _zip({
        "ppt/presentation.xml": f'<p:presentation {pns}><p:sldIdLst><p:sldId id="256" r:id="rId1"/></p:sldIdLst>'
                                "</p:presentation>",
        "ppt/_rels/presentation.xml.rels": f'<Relationships {rels}><Relationship Id="rId1" Type="x/slide" '
                                           'Target="slides/slide1.xml"/></Relationships>',
        "ppt/slides/slide1.xml": f'<p:sld {pns}><p:cSld><p:spTree><p:sp><p:nvSpPr><p:cNvPr id="2" name="t"/>'
                                 '<p:cNvSpPr/><p:nvPr/></p:nvSpPr><p:txBody><a:bodyPr/><a:p><a:r>'
                                 f"<a:t>{text}</a:t></a:r></a:p></p:txBody></p:sp></p:spTree></p:cSld></p:sld>",
        "docProps/core.xml": '<cp:coreProperties xmlns:cp="http://schemas.openxmlformats.org/package/2006/metadata/'
                             f'core-properties" {DC}><dc:creator>{creator}</dc:creator></cp:coreProperties>'})


def docx(text: str, author: str) -> bytes:
    import docx as word
    document = word.Document()
    document.core_properties.author = author
    document.add_paragraph(text)
    out = io.BytesIO()
    document.save(out)
    return out.getvalue()


# --- the authors each kind of document records ---------------------------------------------------------------------

META = '<meta:initial-creator>{}</meta:initial-creator><dc:creator>{}</dc:creator>'


@pytest.mark.parametrize("path, data, author", [
    ("a.odt", odt("The harbour survey.", META.format("Ingrid Halvorsen", "Per Olsen")), "Ingrid Halvorsen"),
    ("b.odt", odt("The harbour survey.", "<dc:creator>Per Olsen</dc:creator>"), "Per Olsen"),  # saved last by
    ("c.odp", odp("Harbour tides.", META.format("Mei Lin", "Per Olsen")), "Mei Lin"),
    ("d.epub", epub("The tide tables.", '<dc:creator opf:role="aut">Ingrid Halvorsen</dc:creator>'
                                        '<dc:creator>Okonkwo Eze</dc:creator>'
                                        '<dc:creator opf:role="edt">Per Olsen</dc:creator>'),
     "Ingrid Halvorsen; Okonkwo Eze"),  # the editor is no author
    ("e.pptx", pptx("Harbour tides.", "Mei Lin"), "Mei Lin"),
    ("f.pptx", pptx("Harbour tides.", "python-pptx"), None),
    ("g.docx", docx("The harbour survey.", "王伟"), "王伟"),
    ("h.odt", odt("The harbour survey.", META.format("李娜", "")), "李娜"),
    ("i.odt", odt("The harbour survey.", META.format("王", "")), None),  # one character: no name
])
def test_each_document_kind_records_its_author(path, data, author):
    assert parse_file(path, data).meta.get("author") == author
