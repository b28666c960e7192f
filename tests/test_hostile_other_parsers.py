"""Hostile files against the parsers beyond Markdown, PDF and the decks (bench/hostile.py makes them full size and
measures each): a zip bomb inside an .odt, .ods and a chat export, a billion laughs in a flat .fodt and an Evernote
export, nesting 100,000 deep in a canvas, a BibTeX entry and LaTeX, a TNEF attachment claiming 4 GB. Each is a
bounded read: indexed, or a skip or failure that says why while the rest of the folder is indexed.

An Evernote export whose XML broke off before its first note (a billion laughs, which expat refuses, or a file cut
short) was 'indexed' with no passage, its reason in no listing: it is skipped saying why now; a note of a line over
ingest.parse.MAX_LINE_CHARS is left out, as a text file of one is skipped."""
from __future__ import annotations

import base64
import io
import zipfile

import pytest

from ingest import zipped
from ingest.document import Skip
from ingest.parse import parse_file
from tests.conftest import ingest, write_tree

# a billion laughs: &j; is 10^10 bytes of 'a' (expat 2.4 and later refuse its amplification)
LAUGHS = '<!DOCTYPE r [<!ENTITY a "aaaaaaaaaa">' + "".join(
    f'<!ENTITY {chr(98 + i)} "{("&" + chr(97 + i) + ";") * 10}">' for i in range(9)) + ']>'
ODT = {"mimetype": b"application/vnd.oasis.opendocument.text", "META-INF/manifest.xml": b"<?xml version='1.0'?><m/>"}


def bomb(parts: dict[str, bytes], name: str, size: int) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as package:
        for part, body in parts.items():
            package.writestr(part, body)
        package.writestr(name, b"<?xml version='1.0'?><a>" + b"a" * size + b"</a>")
    return out.getvalue()


def laughs_enex() -> bytes:
    return (f"<?xml version='1.0'?>{LAUGHS}<en-export><note><title>&j;</title><content><![CDATA[<en-note>the tapir"
            "</en-note>]]></content></note></en-export>\n").encode()


def tnef_mail(claimed: int) -> bytes:
    tnef = base64.b64encode(b"\x78\x9f\x3e\x22\x01\x00\x01" + (0x00069005).to_bytes(4, "little")
                            + claimed.to_bytes(4, "little") + b"\x00" * 64).decode()
    return ("From: a@example.org\nTo: b@example.org\nSubject: the okapi\nMIME-Version: 1.0\n"
            "Content-Type: multipart/mixed; boundary=X\n\n--X\nContent-Type: text/plain\n\nthe okapi sleeps\n--X\n"
            "Content-Type: application/ms-tnef; name=winmail.dat\nContent-Transfer-Encoding: base64\n\n"
            f"{tnef}\n--X--\n").encode()


def hostile() -> dict[str, bytes]:
    deep = 100_000
    return {
        "bomb.odt": bomb(ODT, "content.xml", 2 << 20),
        "laughs.fodt": f"<?xml version='1.0'?>{LAUGHS}<r>&j;</r>\n".encode(),
        "laughs.enex": laughs_enex(),
        "deep.canvas": ('{"nodes": ' + "[\n" * deep + "]\n" * deep + "}\n").encode(),
        "deep.bib": ("@article{k,\n title = {" + "{\n" * deep + "the tapir" + "}\n" * deep + "}}\n").encode(),
        "deep.tex": ("\\section{A}\n" + "\\begin{itemize}\n" * 20_000 + "the tapir\n" + "\\end{itemize}\n" * 20_000
                     ).encode(),
        "winmail.eml": tnef_mail(0xFFFFFFF0),
    }


def test_an_evernote_export_broken_before_its_first_note_is_skipped_saying_why():
    with pytest.raises(Skip, match=r"no note read: the XML breaks off \(limit on input amplification"):
        parse_file("laughs.enex", laughs_enex())


def test_a_note_of_one_line_over_the_line_bound_is_left_out_saying_why_and_the_others_read(monkeypatch):
    """Not checked for long lines as a text file is, a note of one 50 MB line was cut into chunks for 27 s, then the
    whole export skipped as over the chunk limit."""
    import ingest.parse
    monkeypatch.setattr(ingest.parse, "MAX_LINE_CHARS", 1_000)
    notes = "".join(f"<note><title>{title}</title><content><![CDATA[<en-note>{body}</en-note>]]></content></note>"
                    for title, body in (("Long", "the tapir " * 200), ("Short", "the okapi sleeps")))
    doc = parse_file("x.enex", f"<?xml version='1.0'?><en-export>{notes}</en-export>\n".encode())
    assert [s.heading_path[0] for s in doc.sections] == ["Short"]
    assert doc.meta["unreadable_notes"] == 1 and "a line of 1,999 characters (over 1,000)" in doc.meta["unreadable_why"][0]


def test_each_hostile_file_is_a_bounded_read_through_the_parse_path(monkeypatch):
    monkeypatch.setattr(zipped, "OPENED_BYTES", 1 << 20)
    said = {}
    for name, data in hostile().items():
        try:
            said[name] = "\n".join(s.text for s in parse_file(name, data).sections)
        except Skip as skip:
            said[name] = f"skipped: {skip}"
    assert said["bomb.odt"].startswith("skipped: its parts read unzip to") and "a zip bomb" in said["bomb.odt"]
    # its entities' text counted as it expands (ingest.odt._BoundedBuilder), before expat's amplification limit
    assert said["laughs.fodt"].startswith("skipped: a line of over 1,000,000 characters")
    assert said["laughs.enex"].startswith("skipped: no note read")
    assert said["deep.canvas"].startswith("skipped: not a canvas")
    assert "the tapir" in said["deep.bib"] and "the tapir" in said["deep.tex"]
    assert "the okapi sleeps" in said["winmail.eml"]


def test_the_hostile_files_in_a_folder_leave_the_rest_indexed(immediate, tmp_path, monkeypatch):
    monkeypatch.setenv("SIFT_EMBEDDINGS", "off")
    monkeypatch.setattr(zipped, "OPENED_BYTES", 1 << 20)
    root = write_tree(tmp_path / "notes", {"kept.md": "# Kept\n\nthe heron was indexed first\n"})
    assert ingest(root)["published"]["failures"] == []
    for name, data in hostile().items():
        (root / name).write_bytes(data)
    report = ingest(root)
    failures = {f["path"]: (f["state"], f["reason"]) for f in report["published"]["failures"]}
    assert set(failures) == {"bomb.odt", "laughs.fodt", "laughs.enex", "deep.canvas"}, failures
    assert "no note read" in failures["laughs.enex"][1] and "zip bomb" in failures["bomb.odt"][1]
    from search.query.engine import Engine
    from workers import runtime
    engine = Engine(runtime.settings().index_path)
    found = {query: {hit.path for hit in engine.search(query, mode="keyword").hits}
             for query in ("heron indexed first", "okapi sleeps")}
    assert found == {"heron indexed first": {"kept.md"}, "okapi sleeps": {"winmail.eml"}}
