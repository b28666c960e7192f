"""PDFs written object by object, for the hostile-input tests and bench/hostile.py alike (one writer where each
had its own copy): pypdf's writer cannot write most of them (a wrong cross-reference table, 10,000 fonts, forms
nested 50 deep)."""
from __future__ import annotations

import re

FONT = "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>"
RESOURCES = f"<< /Font << /F1 {FONT} >> >>"


def raw_pdf(objects: list[str], trailer: str = "") -> bytes:
    """A PDF of ``objects`` (object 1 the catalog), with its cross-reference table; ``trailer``: more entries."""
    out, offsets = bytearray(b"%PDF-1.7\n"), []
    for number, body in enumerate(objects, 1):
        offsets.append(len(out))
        out += f"{number} 0 obj\n{body}\nendobj\n".encode()
    xref = len(out)
    out += f"xref\n0 {len(objects) + 1}\n0000000000 65535 f \n".encode()
    out += b"".join(f"{o:010d} 00000 n \n".encode() for o in offsets)
    out += f"trailer\n<< /Size {len(objects) + 1} /Root 1 0 R {trailer}>>\nstartxref\n{xref}\n%%EOF\n".encode()
    return bytes(out)


def stream(body: str, entries: str = "") -> str:
    return f"<< /Length {len(body.encode())} {entries}>>\nstream\n{body}\nendstream"


def page_pdf(text: str, extra: str = "", more: list[str] = (), resources: str = RESOURCES,
             catalog: str = "") -> bytes:
    """One page drawing ``text`` in /F1 (objects 1-4: catalog, pages, page, content); ``extra``: more entries of
    the page, ``more``: objects 5 on, ``catalog``: more entries of the catalog."""
    return raw_pdf([f"<< /Type /Catalog /Pages 2 0 R {catalog}>>", "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
                    f"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 200] /Contents 4 0 R {extra} "
                    f"/Resources {resources} >>",
                    stream(f"BT /F1 12 Tf 20 100 Td ({text}) Tj ET"), *more])


def pages_pdf(texts: list[str], catalog: str = "", more: list[str] = ()) -> bytes:
    """A page for each of ``texts``, in one branch; ``catalog``: more entries of the catalog (/PageLabels),
    ``more``: objects after the pages' (numbered from 3 + 2 * len(texts))."""
    kids = " ".join(f"{3 + 2 * i} 0 R" for i in range(len(texts)))
    objects = [f"<< /Type /Catalog /Pages 2 0 R {catalog}>>", f"<< /Type /Pages /Kids [{kids}] /Count {len(texts)} >>"]
    for i, text in enumerate(texts):
        objects += [f"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents {4 + 2 * i} 0 R "
                    f"/Resources {RESOURCES} >>", stream(f"BT /F1 12 Tf 72 720 Td ({text}) Tj ET")]
    return raw_pdf([*objects, *more])


def annotated_pdf(annotations: int, text: str = "the tapir under ten thousand links") -> bytes:
    """A page of a line of text and ``annotations`` link annotations (a PDF exported with every word linked)."""
    links = [f"<< /Type /Annot /Subtype /Link /Rect [{i % 200} 0 {i % 200 + 1} 1] /Border [0 0 0] "
             f"/A << /S /URI /URI (https://example.org/{i}) >> >>" for i in range(annotations)]
    listed = "[" + " ".join(f"{6 + i} 0 R" for i in range(annotations)) + "]"
    return page_pdf(text, "/Annots 5 0 R", [listed, *links])


def broken_xref(pdf: bytes, shift: int) -> bytes:
    """``pdf`` with every offset of its cross-reference table ``shift`` bytes off (or its startxref, with 0).
    (The table is the last line that is 'xref': 'startxref' ends so too, and the copies of this in the test and
    bench/hostile.py shifted nothing after it.)"""
    if not shift:
        return re.sub(rb"startxref\n\d+", b"startxref\n999999", pdf)
    head, _, tail = pdf.rpartition(b"\nxref\n")
    tail = re.sub(rb"(\d{10}) 00000 n", lambda m: b"%010d 00000 n" % (int(m.group(1)) + shift), tail)
    return head + b"\nxref\n" + tail


def many_fonts_pdf(fonts: int, text: str = "the tapir among ten thousand fonts", where: str = "page") -> bytes:
    """A page whose resources list ``fonts`` fonts, each used to draw one letter (a PDF converted glyph by glyph
    from a typesetter's output), ``text`` drawn in the last. ``where`` the fonts are listed: 'page', its 'parent'
    /Pages node (which the page inherits them from), or a 'form' XObject the page draws (the letters with them)."""
    names = " ".join(f"/F{i} {7 + i} 0 R" for i in range(fonts))
    draws = " ".join(f"/F{i} 1 Tf ({chr(97 + i % 26)}) Tj" for i in range(fonts - 1))
    content = f"BT 20 100 Td {draws} ET BT /F{fonts - 1} 12 Tf 20 50 Td ({text}) Tj ET"
    page = {"page": "/Resources 5 0 R", "parent": "", "form": "/Resources << /XObject << /X1 6 0 R >> >>"}[where]
    objects = ["<< /Type /Catalog /Pages 2 0 R >>",
               f"<< /Type /Pages /Kids [3 0 R] /Count 1 {'/Resources 5 0 R ' if where == 'parent' else ''}>>",
               f"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 200] /Contents 4 0 R {page} >>",
               stream("q /X1 Do Q" if where == "form" else content), f"<< /Font << {names} >> >>",
               stream(content, "/Type /XObject /Subtype /Form /BBox [0 0 200 200] /Resources 5 0 R ")]
    objects += [f"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica{'' if i % 2 else '-Bold'} >>"
                for i in range(fonts)]
    return raw_pdf(objects)


def nested_forms_pdf(depth: int, text: str = "the tapir inside fifty forms") -> bytes:
    """A page whose text is all in Form XObjects nested ``depth`` deep: the page draws form 1, which draws form 2,
    …, the last draws ``text`` (a PDF made by placing a PDF inside a PDF, again and again)."""
    objects = ["<< /Type /Catalog /Pages 2 0 R >>", "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
               "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 200] /Contents 4 0 R "
               "/Resources << /XObject << /X1 5 0 R >> >> >>", stream("q /X1 Do Q")]
    for level in range(1, depth + 1):
        body = f"q /X{level + 1} Do Q" if level < depth else f"BT /F1 12 Tf 20 100 Td ({text}) Tj ET"
        inner = f"/XObject << /X{level + 1} {6 + level - 1} 0 R >>" if level < depth else f"/Font << /F1 {FONT} >>"
        objects.append(stream(body, f"/Type /XObject /Subtype /Form /BBox [0 0 200 200] /Resources << {inner} >> "))
    return raw_pdf(objects)
