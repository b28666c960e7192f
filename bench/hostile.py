"""Hostile and broken files against every parser: time and memory per file, and what each ends as.

A user's folder holds whatever it holds: files cut off by a crash, binary files named like notes, a log of
hundreds of MB, a PDF that is an HTML error page or encrypted or nested 10,000 outline levels deep, a CSV of one
50 MB line or of 100,000 columns, an HTML page of 100,000 nested <div>s, a notebook with a 30 MB image, a canvas
whose groups hold each other, Markdown nested 50,000 levels, an unterminated 10 MB code fence, a 1 MB line of
code, a FIFO or a socket named like a note, a sparse file of 16 GB and a link to it, a link to /dev/zero, a symlink
loop, a file nobody may read, a notebook with a 40 MB output cell, JSON of 60 and 100 MB on one line, a PDF whose
page tree holds itself and one whose object stream holds a million objects, a PDF of 20,000 pages of text, one of
10,000 annotations, two whose cross-reference table is wrong, zip bombs named .docx, .xlsx and .epub, Markdown of one
60 or 200 MB line or 100,000 nested lists or quotes, links into /proc, PDFs of 10,001 fonts inherited or listed by a
form, and the other parsers' own: zip bombs named .odt, .ods, .odp and a Slack export, a billion laughs in a .fodt, an
.enex and an .xlsx, nesting 100,000 deep in an .enex, a Keep note, a canvas, a .bib and a .tex, a .bib of one 50 MB
line, two .tex files that \\input each other, a winmail.dat claiming 4 GB, an OpenDocument paragraph of 50 MB (flat
and zipped, in a .fodp, a .fods' cell) and one of three billion spaces (``text:s``), an EPUB book of 100,000
chapters and an .xlsx of a full sheet of 1,048,576 rows. ``make`` writes them (sizes times ``--scale``) into a
folder; each file is then read, parsed and cut into chunks (ingest.files.read_and_parse and
ingest.chunk.chunk_document, plain token counts, the worker's limit of SIFT_MAX_FILE_CHUNKS) in a fresh process
of at most 4 GB, and its CPU seconds, peak memory and outcome (chunks, or skipped/failed with the reason) are
printed; a file over ``--timeout`` seconds is a hang. With ``--consumer`` the folder is then indexed by a real
``huey_consumer`` (keyword-only, no model) and every file's outcome in ``stats`` is printed: a bad file must
not keep the others from being indexed.

    .venv/bin/python bench/hostile.py [--scale 1] [--only NAME ...] [--runs 3] [--consumer] [--data /tmp/sift-hostile]
"""
from __future__ import annotations

import argparse
import base64
import io
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

from common import REPO
from tests.pdf_writer import annotated_pdf, broken_xref, many_fonts_pdf, nested_forms_pdf, raw_pdf

MB = 1024 * 1024
PROBE = r"""
import json, resource, sys, time
resource.setrlimit(resource.RLIMIT_AS, (4 << 30, 4 << 30))
from ingest.chunk import TooManyChunks, chunk_document, plain_count
from ingest.files import read_and_parse
from ingest.document import Skip
root, rel = sys.argv[1], sys.argv[2]
start = time.process_time()
try:
    parsed = read_and_parse(root, rel)
    chunks = chunk_document(parsed.doc, plain_count, 256, 32, 10_000)
    outcome = f"indexed: {len(parsed.doc.sections):,} sections, {len(chunks):,} chunks"
except TooManyChunks as over:
    outcome = f"skipped at chunk: {over}"
except Skip as skip:
    outcome = f"skipped: {skip}"
except BaseException as exc:
    outcome = f"failed: {type(exc).__name__}: {str(exc)[:160]}"
# this process's own peak (VmHWM): ru_maxrss keeps the peak of the process it was started from, this script's,
# which holds the corpus it wrote (every file read 718 MB)
peak = next(int(line.split()[1]) for line in open("/proc/self/status") if line.startswith("VmHWM:"))
print(json.dumps({"cpu": time.process_time() - start, "mb": peak // 1024, "outcome": outcome[:240]}))
"""


def lines(total: int, line: str) -> str:
    return (line * (total // len(line) + 1))[:total]


def pdf_bytes(build) -> bytes:
    from pypdf import PdfWriter
    writer = PdfWriter()
    writer.add_blank_page(200, 200)
    build(writer)
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


def deep_outline(levels: int) -> bytes:
    """A page of text and an outline nested ``levels`` deep, each entry the only child of the one above
    (pypdf's writer cannot write it: it recurses up the parents)."""
    stream = "BT /F1 12 Tf 20 100 Td (the tapir in a deep outline) Tj ET"
    objects = ["<< /Type /Catalog /Pages 2 0 R /Outlines 5 0 R >>",
               "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
               "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 200] /Contents 4 0 R "
               "/Resources << /Font << /F1 << /Type /Font /Subtype /Type1 /BaseFont /Helvetica >> >> >> >>",
               f"<< /Length {len(stream)} >>\nstream\n{stream}\nendstream",
               "<< /Type /Outlines /First 6 0 R /Last 6 0 R /Count 1 >>"]
    for i in range(levels):
        number = 6 + i
        child = f"/First {number + 1} 0 R /Last {number + 1} 0 R /Count 1 " if i < levels - 1 else ""
        objects.append(f"<< /Title (level {i}) /Parent {number - 1} 0 R {child}/Dest [3 0 R /Fit] >>")
    return raw_pdf(objects)


def encrypted(writer):
    writer.encrypt("secret", algorithm="RC4-128")


def canvas_cycles(groups: int) -> str:
    """Groups that all hold each other (one box), an edge from every card to the next and back, a node that is its
    own edge's both ends, and ids used twice."""
    nodes = [{"id": f"g{i}", "type": "group", "label": f"group {i}", "x": 0, "y": 0, "width": 100, "height": 100}
             for i in range(groups)]
    nodes += [{"id": "c", "type": "text", "text": "# Card\n\nthe tapir in every group", "x": 10, "y": 10,
               "width": 10, "height": 10}] * 2
    edges = [{"id": f"e{i}", "fromNode": f"g{i}", "toNode": f"g{(i + 1) % groups}", "label": "next"}
             for i in range(groups)] + [{"id": "self", "fromNode": "c", "toNode": "c", "label": "itself"}]
    return json.dumps({"nodes": nodes, "edges": edges}, indent="\t")


def notebook_image(size: int) -> str:
    image = base64.b64encode(os.urandom(size * 3 // 4)).decode()
    cell = {"cell_type": "code", "source": ["plot(x)\n"], "metadata": {}, "execution_count": 1,
            "outputs": [{"output_type": "display_data", "data": {"image/png": image}, "metadata": {}}]}
    return json.dumps({"cells": [{"cell_type": "markdown", "source": ["# Plot\n"], "metadata": {}}, cell],
                       "metadata": {}, "nbformat": 4, "nbformat_minor": 5}, indent=1)


def notebook_output(size: int) -> str:
    """A notebook whose one code cell printed ``size`` bytes of text (a training loop's log) as its output."""
    log = [f"epoch {i}: loss {1 / (i + 1):.6f} the tapir learns\n" for i in range(size // 36)]
    cell = {"cell_type": "code", "source": ["train(model)\n"], "metadata": {}, "execution_count": 1,
            "outputs": [{"output_type": "stream", "name": "stdout", "text": log}]}
    return json.dumps({"cells": [{"cell_type": "markdown", "source": ["# Training\n"], "metadata": {}}, cell],
                       "metadata": {}, "nbformat": 4, "nbformat_minor": 5}, indent=1)


def one_line_json(size: int) -> str:
    """A JSON array of records on one line, ``size`` bytes: an API's dump."""
    record = '{"id": 1, "name": "the tapir", "tags": ["a", "b"], "score": 0.5}, '
    return "[" + record * (size // len(record)) + "{}]"


def object_stream_pdf(objects: int) -> bytes:
    """A page whose font is the first of ``objects`` objects in one object stream (the rest: '[1]')."""
    import struct
    import zlib
    text = b"BT /F1 12 Tf 20 100 Td (the tapir in an object stream) Tj ET"
    font = b"<< /Font << /F1 << /Type /Font /Subtype /Type1 /BaseFont /Helvetica >> >> >>"
    header = b"6 0 " + b"".join(b"%d %d " % (7 + i, len(font) + i * 3) for i in range(objects - 1))
    packed = zlib.compress(header + font + b"[1]" * (objects - 1))
    bodies = [b"<< /Type /Catalog /Pages 2 0 R >>", b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
              b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 200] /Contents 4 0 R /Resources 6 0 R >>",
              b"<< /Length %d >>\nstream\n%s\nendstream" % (len(text), text),
              b"<< /Type /ObjStm /N %d /First %d /Filter /FlateDecode /Length %d >>\nstream\n%s\nendstream"
              % (objects, len(header), len(packed), packed)]
    out, offsets = bytearray(b"%PDF-1.7\n"), {}
    for number, body in enumerate(bodies, 1):
        offsets[number] = len(out)
        out += b"%d 0 obj\n%s\nendobj\n" % (number, body)
    xref_number = 6 + objects
    offsets[xref_number] = len(out)
    rows = b"".join(struct.pack(">BII", 1, offsets[n], 0) if n in offsets else
                    struct.pack(">BII", 2, 5, n - 6) if 6 <= n < xref_number else struct.pack(">BII", 0, 0, 0)
                    for n in range(xref_number + 1))
    rows = zlib.compress(rows)
    out += (b"%d 0 obj\n<< /Type /XRef /Size %d /W [1 4 4] /Root 1 0 R /Filter /FlateDecode /Length %d >>\n"
            b"stream\n%s\nendstream\nendobj\nstartxref\n%d\n%%%%EOF\n"
            % (xref_number, xref_number + 1, len(rows), rows, offsets[xref_number]))
    return bytes(out)


def cyclic_pages() -> bytes:
    """A page tree whose root lists itself among its kids, and a branch that lists the root."""
    stream = "BT /F1 12 Tf 20 100 Td (the tapir in a loop) Tj ET"
    return raw_pdf(["<< /Type /Catalog /Pages 2 0 R >>",
                    "<< /Type /Pages /Kids [3 0 R 2 0 R 5 0 R] /Count 3 >>",
                    "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 200] /Contents 4 0 R "
                    "/Resources << /Font << /F1 << /Type /Font /Subtype /Type1 /BaseFont /Helvetica >> >> >> >>",
                    f"<< /Length {len(stream)} >>\nstream\n{stream}\nendstream",
                    "<< /Type /Pages /Parent 2 0 R /Kids [2 0 R 3 0 R] /Count 2 >>"])


def long_pdf(pages: int, branch: int = 100) -> bytes:
    """A PDF of ``pages`` pages of a line of text each, 100 pages a branch of its page tree (a report's export)."""
    branches = -(-pages // branch)
    objects = {1: "<< /Type /Catalog /Pages 2 0 R >>", 3: "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>"}
    kids: list[list[int]] = [[] for _ in range(branches)]
    for index in range(pages):
        number = 4 + branches + 2 * index  # the page, then its content stream
        kids[index // branch].append(number)
        stream = f"BT /F3 12 Tf 72 720 Td (page {index + 1} tells of the okapi and the tapir) Tj ET"
        objects[number] = (f"<< /Type /Page /Parent {4 + index // branch} 0 R /MediaBox [0 0 612 792] "
                           f"/Resources << /Font << /F3 3 0 R >> >> /Contents {number + 1} 0 R >>")
        objects[number + 1] = f"<< /Length {len(stream)} >>\nstream\n{stream}\nendstream"
    for k, leaves in enumerate(kids):
        objects[4 + k] = (f"<< /Type /Pages /Parent 2 0 R /Count {len(leaves)} "
                          f"/Kids [{' '.join(f'{n} 0 R' for n in leaves)}] >>")
    objects[2] = f"<< /Type /Pages /Count {pages} /Kids [{' '.join(f'{4 + k} 0 R' for k in range(branches))}] >>"
    return raw_pdf([objects[n] for n in sorted(objects)])


def zip_bomb(parts: dict[str, bytes], bomb: str, size: int) -> bytes:
    """A zip of ``parts`` and ``bomb``, a part of ``size`` bytes of one letter (a 1,000:1 zip bomb)."""
    import zipfile
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as package:
        for name, body in parts.items():
            package.writestr(name, body)
        with package.open(bomb, "w", force_zip64=True) as part:
            part.write(b"<?xml version='1.0'?><a><b>")
            for _ in range(size // MB):
                part.write(b"a" * MB)
            part.write(b"</b></a>")
    return out.getvalue()


def odf_text(body: str, kind: str = "text") -> str:
    """A flat OpenDocument file (an .odt's content.xml too) whose office:text (or ``kind``) holds ``body``."""
    return ("<?xml version='1.0'?><office:document xmlns:office='urn:oasis:names:tc:opendocument:xmlns:office:1.0' "
            "xmlns:text='urn:oasis:names:tc:opendocument:xmlns:text:1.0' "
            "xmlns:draw='urn:oasis:names:tc:opendocument:xmlns:drawing:1.0' "
            f"xmlns:table='urn:oasis:names:tc:opendocument:xmlns:table:1.0'><office:body><office:{kind}>" + body
            + f"</office:{kind}></office:body></office:document>\n")


def zipped_parts(parts: dict[str, bytes]) -> bytes:
    import zipfile
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as package:
        for name, body in parts.items():
            package.writestr(name, body)
    return out.getvalue()


WORD_PARTS = {"[Content_Types].xml": b"<?xml version='1.0'?><Types/>", "_rels/.rels": b"<?xml version='1.0'?><x/>"}
XLSX_PARTS = {**WORD_PARTS, "xl/workbook.xml": (
    b"<?xml version='1.0'?><workbook xmlns='http://schemas.openxmlformats.org/spreadsheetml/2006/main' xmlns:r="
    b"'http://schemas.openxmlformats.org/officeDocument/2006/relationships'><sheets><sheet name='S' sheetId='1' "
    b"r:id='rId1'/></sheets></workbook>"), "xl/_rels/workbook.xml.rels": (
    b"<?xml version='1.0'?><Relationships xmlns='http://schemas.openxmlformats.org/package/2006/relationships'>"
    b"<Relationship Id='rId1' Type='http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet' "
    b"Target='worksheets/sheet1.xml'/></Relationships>")}
EPUB_PARTS = {"mimetype": b"application/epub+zip", "META-INF/container.xml": (
    b"<?xml version='1.0'?><container xmlns='urn:oasis:names:tc:opendocument:xmlns:container'><rootfiles>"
    b"<rootfile full-path='content.opf' media-type='application/oebps-package+xml'/></rootfiles></container>"),
    "content.opf": (b"<?xml version='1.0'?><package xmlns='http://www.idpf.org/2007/opf'><manifest><item id='c' "
                    b"href='c.xhtml' media-type='application/xhtml+xml'/></manifest><spine><itemref idref='c'/>"
                    b"</spine></package>")}


ODF_PARTS = {kind: {"mimetype": f"application/vnd.oasis.opendocument.{kind}".encode(), "META-INF/manifest.xml": (
    b"<?xml version='1.0'?><manifest:manifest xmlns:manifest='urn:oasis:names:tc:opendocument:xmlns:manifest:1.0'/>")}
    for kind in ("text", "spreadsheet", "presentation")}
SLACK_PARTS = {"channels.json": b'[{"id": "C1", "name": "general"}]', "users.json": b"[]"}
# a billion laughs: &j; is 10^10 bytes of 'a'
LAUGHS = '<!DOCTYPE r [<!ENTITY a "aaaaaaaaaa">' + "".join(
    f'<!ENTITY {chr(98 + i)} "{("&" + chr(97 + i) + ";") * 10}">' for i in range(9)) + ']>'


def many_chapters(count: int) -> bytes:
    """An EPUB book of ``count`` chapters, each a short page: a book split a page a chapter, a web archive saved as
    one."""
    items = "".join(f"<item id='c{i}' href='c{i}.xhtml' media-type='application/xhtml+xml'/>" for i in range(count))
    spine = "".join(f"<itemref idref='c{i}'/>" for i in range(count))
    parts = {**EPUB_PARTS, "content.opf": (f"<?xml version='1.0'?><package xmlns='http://www.idpf.org/2007/opf'>"
                                           f"<manifest>{items}</manifest><spine>{spine}</spine></package>").encode()}
    for i in range(count):
        parts[f"c{i}.xhtml"] = (f"<html><body><h1>Chapter {i}</h1><p>the tapir sleeps in chapter {i}</p></body>"
                                "</html>").encode()
    return zipped_parts(parts)


def full_sheet(rows: int) -> bytes:
    """An .xlsx of one sheet of ``rows`` rows (Excel's most: 1,048,576) of two cells each, its text inline."""
    body = "".join(f"<row r='{r}'><c r='A{r}' t='inlineStr'><is><t>tapir {r}</t></is></c><c r='B{r}'><v>{r}</v></c>"
                   "</row>" for r in range(1, rows + 1))
    sheet = ("<?xml version='1.0'?><worksheet xmlns='http://schemas.openxmlformats.org/spreadsheetml/2006/main'>"
             f"<sheetData>{body}</sheetData></worksheet>")
    return zipped_parts({**XLSX_PARTS, "xl/worksheets/sheet1.xml": sheet.encode()})


def json_bomb(parts: dict[str, bytes], bomb: str, size: int) -> bytes:
    """A zip of ``parts`` and ``bomb``, a JSON list of ``size`` bytes of one message said again and again."""
    import zipfile
    out, message = io.BytesIO(), b'{"type": "message", "user": "U1", "text": "the tapir", "ts": "1709251200.0"},'
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as package:
        for name, body in parts.items():
            package.writestr(name, body)
        with package.open(bomb, "w", force_zip64=True) as part:
            part.write(b"[")
            for _ in range(size // MB):
                part.write(message * (MB // len(message)))
            part.write(message[:-1] + b"]")
    return out.getvalue()


def enex(content: str, head: str = "", title: str = "the tapir") -> str:
    """An Evernote export of one note whose body (ENML) is ``content``; ``head``: a doctype before the root."""
    return (f"<?xml version='1.0' encoding='UTF-8'?>{head}<en-export><note><title>{title}</title><content>"
            f"<![CDATA[<en-note>{content}</en-note>]]></content></note></en-export>\n")


def tnef_claiming(length: int) -> bytes:
    """A mail with a winmail.dat attachment whose TNEF attribute claims ``length`` bytes it does not hold."""
    tnef = base64.b64encode(b"\x78\x9f\x3e\x22\x01\x00" + b"\x01" + (0x00069005).to_bytes(4, "little")
                            + length.to_bytes(4, "little") + b"\x00" * 64).decode()
    return ("From: a@example.org\nTo: b@example.org\nSubject: the tapir\nMIME-Version: 1.0\n"
            "Content-Type: multipart/mixed; boundary=X\n\n--X\nContent-Type: text/plain\n\nthe tapir sleeps\n--X\n"
            "Content-Type: application/ms-tnef; name=winmail.dat\nContent-Transfer-Encoding: base64\n"
            f"Content-Disposition: attachment; filename=winmail.dat\n\n{tnef}\n--X--\n")


def markdown_table(size: int) -> str:
    """A note that is one Markdown table of ``size`` bytes (a spreadsheet pasted into a note)."""
    header = "| date | animal | place | count | notes |\n|---|---|---|---|---|\n"
    row = "| 2026-01-{day:02d} | the tapir {i} | the river bank | {i} | seen at dawn, eating leaves |\n"
    rows, total, i = [header], len(header), 0
    while total < size:
        rows.append(row.format(day=i % 28 + 1, i=i))
        total += len(rows[-1])
        i += 1
    return "".join(rows)


def corpus(scale: float) -> dict[str, bytes | str]:
    """File name -> content: each hostile file, at ``scale`` times its size."""
    n = lambda count: max(1, int(count * scale))  # noqa: E731
    pdf = pdf_bytes(lambda w: None)
    return {
        "normal.md": "# Normal\n\nThe aardvark eats ants at night.\n",
        "binary.md": b"\x89PNG\r\n\x1a\n\x00\x00" + os.urandom(n(1 * MB)),
        "invalid-utf8.md": "# 合同\n\n付款".encode() * n(1000) + b"\xff\xfe" + b"text\n",
        "cut-front-matter.md": "---\ntitle: cut\ntags: [a, b\n" + lines(n(1 * MB), "more: text\n"),
        "cut-fence.md": "# Code\n\n```python\n" + lines(n(10 * MB), "x = compute(y) + 1  # a line of code\n"),
        "nested-lists.md": "- " * n(50_000) + "deep\n",
        "nested-quotes.md": "> " * n(50_000) + "deep\n",
        "nested-list-lines.md": "".join(" " * (2 * i) + "- item\n" for i in range(n(3_000))),
        "one-line.csv": "a," * n(25 * MB),
        "wide.csv": ",".join(f"c{i}" for i in range(n(100_000))) + "\n" + ",".join(
            "word" for _ in range(n(100_000))) + "\n",
        "wide-header.csv": ",".join(f"c{i}" for i in range(n(100_000))) + "\n" + "the tapir,sleeps\n" * n(10_000),
        "unclosed-quote.csv": 'name,notes\nx,"' + lines(n(10 * MB), "a line in one cell\n"),
        "nested-divs.html": "<!DOCTYPE html><html><body>" + "<div>\n" * n(100_000) + "deep" + "</div>" * n(100_000)
                            + "</body></html>\n",
        "text-node.html": "<!DOCTYPE html><html><body><p>" + lines(n(20 * MB), "the tapir sleeps all day long\n")
                          + "</p></body></html>\n",
        "unclosed-comment.html": "<!DOCTYPE html><html><body><!--" + lines(n(2 * MB), "<a <b &c \n"),
        "unclosed-tag.html": "<!DOCTYPE html><html><body><a " + lines(n(2 * MB), "x=y \n"),
        "image.ipynb": notebook_image(n(30 * MB)),
        "deep.ipynb": "[" * n(100_000) + "]" * n(100_000),
        "cut.ipynb": notebook_image(1024)[:-100],
        "cycles.canvas": canvas_cycles(n(2_000)),
        "cycles-at-limit.canvas": canvas_cycles(n(9_999)),
        "long-line.py": "x = [" + "1, " * n(333_000) + "]\n",
        "deep-nesting.js": "f(\n" * n(100_000) + ")\n" * n(100_000),
        "deep-braces.c": "int f() {\n" + "{\n" * n(100_000) + "}\n" * n(100_000) + "}\n",
        "deep-defs.py": "".join(" " * i + f"def f{i}():\n" for i in range(n(3_000))) + " " * n(3_000) + "pass\n",
        "html-error.pdf": "<!DOCTYPE html><html><body><h1>502 Bad Gateway</h1></body></html>\n",
        "encrypted.pdf": pdf_bytes(encrypted),
        "deep-outline.pdf": deep_outline(n(10_000)),
        "cut.pdf": pdf[:len(pdf) // 2],
        "empty.pdf": b"",
        "output.ipynb": notebook_output(n(40 * MB)),
        "output-one-line.ipynb": json.dumps(json.loads(notebook_output(n(40 * MB)))),  # saved without line breaks
        "one-line.json": one_line_json(n(60 * MB)),
        "one-line-100.json": one_line_json(n(100 * MB)),
        "one-line-100.csv": "a," * n(50 * MB),
        "cyclic-pages.pdf": cyclic_pages(),
        "long-text.pdf": long_pdf(n(20_000)),
        "bomb.docx": zip_bomb({**WORD_PARTS, "word/_rels/document.xml.rels": b"<?xml version='1.0'?><x/>"},
                              "word/document.xml", n(256 * MB)),
        "bomb.xlsx": zip_bomb(XLSX_PARTS, "xl/worksheets/sheet1.xml", n(256 * MB)),
        "bomb.epub": zip_bomb(EPUB_PARTS, "c.xhtml", n(256 * MB)),
        "chapters.epub": many_chapters(n(100_000)),
        "rows.xlsx": full_sheet(n(1_048_576)),
        "one-line-200.md": "the tapir " * n(20 * MB),
        "one-line-60.md": "the tapir " * n(6 * MB),
        "nested-lists-100k.md": "- " * n(100_000) + "deep\n",
        "nested-quotes-100k.md": "> " * n(100_000) + "deep\n",
        "quote-lines.md": ("> " * n(1_000) + "deep\n") * n(1_000),
        "annotations.pdf": annotated_pdf(n(10_000)),
        "xref-shifted.pdf": broken_xref(long_pdf(3), 7),
        "xref-lost.pdf": broken_xref(long_pdf(3), 0),
        "object-stream.pdf": object_stream_pdf(n(1_000_000)),
        "object-stream-500k.pdf": object_stream_pdf(n(500_000)),
        "fonts.pdf": many_fonts_pdf(n(10_000)),
        "fonts-over.pdf": many_fonts_pdf(n(10_001)),
        "fonts-in-parent.pdf": many_fonts_pdf(n(10_001), where="parent"),  # inherited from its /Pages node
        "fonts-in-form.pdf": many_fonts_pdf(n(10_001), where="form"),  # listed by a form the page draws
        "nested-forms.pdf": nested_forms_pdf(50),
        "nested-forms-deep.pdf": nested_forms_pdf(n(5_000)),
        "one-table.md": markdown_table(n(5 * MB)),
        # the other parsers' hostile files: a zip bomb in each zip-based kind, a billion laughs in each XML one, a
        # nesting 100,000 deep, a huge single line
        "bomb.odt": zip_bomb(ODF_PARTS["text"], "content.xml", n(256 * MB)),
        "bomb.ods": zip_bomb(ODF_PARTS["spreadsheet"], "content.xml", n(256 * MB)),
        "bomb.odp": zip_bomb(ODF_PARTS["presentation"], "content.xml", n(256 * MB)),
        "Acme Slack export bomb.zip": json_bomb(SLACK_PARTS, "general/2024-03-01.json", n(256 * MB)),
        "laughs.fodt": f"<?xml version='1.0'?>{LAUGHS}<r>&j;</r>\n",
        "laughs.enex": enex("the tapir", LAUGHS, "&j;"),
        "laughs.xlsx": zipped_parts({**XLSX_PARTS, "xl/worksheets/sheet1.xml":
                                     f"<?xml version='1.0'?>{LAUGHS}<worksheet>&j;</worksheet>".encode()}),
        "deep.enex": enex("<div>" * n(100_000) + "the tapir" + "</div>" * n(100_000)),
        "deep-xml.enex": "<?xml version='1.0'?><en-export>" + "<x>" * n(100_000) + "</x>" * n(100_000)
                         + "</en-export>\n",
        "deep-keep.json": '{"createdTimestampUsec": 1, "textContent": "the tapir", "x": ' + "[\n" * n(100_000)
                          + "]\n" * n(100_000) + "}\n",
        "deep.canvas": '{"nodes": ' + "[\n" * n(100_000) + "]\n" * n(100_000) + "}\n",
        "deep.bib": "@article{k,\n title = {" + "{\n" * n(100_000) + "the tapir" + "}\n" * n(100_000) + "}}\n",
        "one-line.bib": "@article{k, title = {" + "the tapir " * n(5 * MB) + "}}\n",
        "deep.tex": "\\section{A}\n" + "\\begin{itemize}\n" * n(100_000) + "the tapir\n"
                    + "\\end{itemize}\n" * n(100_000),
        "cyclic-a.tex": "\\section{A}\n\\input{cyclic-b}\nthe tapir\n",
        "cyclic-b.tex": "\\section{B}\n\\input{cyclic-a}\nthe okapi\n",
        "tnef-claims.eml": tnef_claiming(0xFFFFFFF0),
        "one-line.fodt": odf_text("<text:p>" + "the tapir " * n(5 * MB) + "</text:p>"),
        "one-line.odt": zipped_parts({**ODF_PARTS["text"], "content.xml": odf_text(
            "<text:p>" + "the tapir " * n(5 * MB) + "</text:p>").encode()}),  # 50 MB of content.xml in 0.2 MB
        "one-line.fodp": odf_text("<draw:page><draw:frame><draw:text-box><text:p>" + "the tapir " * n(5 * MB)
                                  + "</text:p></draw:text-box></draw:frame></draw:page>", "presentation"),
        "one-cell.fods": odf_text("<table:table><table:table-row><table:table-cell><text:p>" + "the tapir " * n(5 * MB)
                                  + "</text:p></table:table-cell></table:table-row></table:table>", "spreadsheet"),
        "spaces.fodt": odf_text("<text:p>the tapir<text:s text:c='3000000000'/>sleeps</text:p>"),  # 3 billion spaces
        "one-line.enex": enex("the tapir " * n(5 * MB)),
    }


def make(folder: Path, scale: float, only: set[str] | None = None) -> list[str]:
    """Write the corpus into ``folder`` (emptied first), with the files no content makes (SPECIAL): a 200 MB log
    (sparse), a FIFO and a socket named like notes, a sparse file of 16 GB and a link to it, a link to /dev/zero, a
    symbolic link loop and a note nobody may read. Returns the names written."""
    if folder.exists():
        for path in folder.rglob("*"):
            if not path.is_symlink():
                path.chmod(0o700 if path.is_dir() else 0o600)
        shutil.rmtree(folder)
    folder.mkdir(parents=True)
    names = []
    for name, content in corpus(scale).items():
        if only and name not in only:
            continue
        (folder / name).write_bytes(content.encode() if isinstance(content, str) else content)
        names.append(name)
    for name, made in SPECIAL.items():
        if not only or name in only:
            made(folder)
            names.append(name)
    return names


def _socket(folder: Path) -> None:
    import socket
    with socket.socket(socket.AF_UNIX) as bound:  # the name stays once it is closed
        bound.bind(str(folder / "socket.md"))


def _sparse(path: Path, size: int, head: bytes = b"") -> None:
    with open(path, "wb") as handle:
        handle.write(head)
        handle.truncate(size)


def _private(folder: Path) -> None:
    (folder / "private.md").write_text("# Private\n\nnobody may read this\n")
    (folder / "private.md").chmod(0)


def _loop(folder: Path) -> None:
    os.symlink("loop-b.md", folder / "loop-a.md")
    os.symlink("loop-a.md", folder / "loop-b.md")


BAD_NAME = os.fsdecode(b"name-\xff\xfe.md")  # a file name that is not UTF-8 (Python holds it as surrogates)
# the files no content makes, by name (written by ``make`` too, each when --only names it)
SPECIAL = {
    "proc.md": lambda folder: os.symlink("/proc/self/status", folder / "proc.md"),
    "kcore.md": lambda folder: os.symlink("/proc/kcore", folder / "kcore.md"),
    "big.log.txt": lambda folder: _sparse(folder / "big.log.txt", 200 * MB, b"2026-01-01 started\n"),
    "note.md": lambda folder: os.mkfifo(folder / "note.md"),
    "socket.md": _socket,
    "sparse.md": lambda folder: _sparse(folder / "sparse.md", 16 << 30),  # 16 GB of nothing
    "link-to-sparse.md": lambda folder: os.symlink("sparse.md", folder / "link-to-sparse.md"),
    "zero.md": lambda folder: os.symlink("/dev/zero", folder / "zero.md"),
    "loop-a.md": _loop,
    "loop-dir": lambda folder: os.symlink(".", folder / "loop-dir"),  # a folder link to the folder it is in
    BAD_NAME: lambda folder: (folder / BAD_NAME).write_text("# Bytes\n\nthe okapi behind a name not UTF-8\n"),
    "private.md": _private,
}


def probe_median(folder: Path, name: str, timeout: float, runs: int) -> dict:
    """``probe`` ``runs`` times: the median CPU seconds and peak memory, the last outcome."""
    import statistics
    results = [probe(folder, name, timeout) for _ in range(runs)]
    if any(r["cpu"] is None or r["mb"] is None for r in results):
        return results[-1]
    return {"cpu": statistics.median(r["cpu"] for r in results), "mb": statistics.median(r["mb"] for r in results),
            "outcome": results[-1]["outcome"]}


def probe(folder: Path, name: str, timeout: float) -> dict:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    try:
        done = subprocess.run([sys.executable, "-c", PROBE, str(folder), name], cwd=REPO, env=env,
                              capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return {"cpu": timeout, "mb": None, "outcome": f"HANG: over {timeout:g} s"}
    if done.returncode:
        return {"cpu": None, "mb": None, "outcome": f"CRASH: exit {done.returncode}: {done.stderr[-300:]}"}
    return json.loads(done.stdout.strip().splitlines()[-1])


def through_consumer(folder: Path, home: Path) -> None:
    """Index ``folder`` with a real huey_consumer (keyword only) and print every file's outcome."""
    from common import BIN, consumer
    shutil.rmtree(home, ignore_errors=True)
    home.mkdir(parents=True)
    env = {**os.environ, "SIFT_HOME": str(home), "SIFT_EMBEDDINGS": "off", "PYTHONPATH": str(REPO)}
    proc = consumer("workers.app.huey", env, home / "consumer.log")
    try:
        start = time.monotonic()
        subprocess.run([str(BIN / "ingest"), "enqueue", str(folder), "--name", "hostile"], cwd=REPO, env=env,
                       check=True, capture_output=True)
        while time.monotonic() - start < 3600:
            stats = json.loads(subprocess.run([str(BIN / "ingest"), "stats", "--json"], cwd=REPO, env=env,
                                              capture_output=True, text=True, check=True).stdout)
            mine = next((c for c in stats["collections"] if c["name"] == "hostile"), None)
            if mine and mine["published"] and not mine["building"]:
                break
            time.sleep(2)
        print(f"\nthrough a real huey_consumer: published after {time.monotonic() - start:.0f} s")
        for failure in mine["published"]["failures"]:
            print(f"  {failure['path']}: {failure['state']}: {failure['reason'][:150]}")
        listed = json.loads(subprocess.run([str(BIN / "ingest"), "files", "--collection", "hostile", "--limit", "500",
                                            "--json"], cwd=REPO, env=env, capture_output=True, text=True).stdout)
        print("  indexed:", ", ".join(sorted(f["path"] for f in listed["files"] if f.get("state") == "indexed")))
    finally:
        os.killpg(proc.pid, 15)
        proc.wait(timeout=60)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--scale", type=float, default=1.0)
    parser.add_argument("--only", nargs="*")
    parser.add_argument("--timeout", type=float, default=300)
    parser.add_argument("--data", type=Path, default=Path("/tmp/sift-hostile"))
    parser.add_argument("--consumer", action="store_true")
    parser.add_argument("--runs", type=int, default=1, help="probes of each file: medians of their figures")
    args = parser.parse_args()
    folder = args.data / "files"
    names = make(folder, args.scale, set(args.only) if args.only else None)
    print(f"{'file':24} {'size':>9} {'CPU s':>7} {'peak MB':>8}  outcome")
    for name in names:
        size = os.lstat(folder / name).st_size
        result = probe_median(folder, name, args.timeout, args.runs)
        cpu = "" if result["cpu"] is None else f"{result['cpu']:.2f}"
        shown = name.encode("utf-8", "backslashreplace").decode()  # a name that is not UTF-8 cannot be printed
        print(f"{shown:24} {size / MB:8.1f}M {cpu:>7} {result['mb'] or '':>8}  {result['outcome']}", flush=True)
    if args.consumer:
        through_consumer(folder, args.data / "home")


if __name__ == "__main__":
    main()
