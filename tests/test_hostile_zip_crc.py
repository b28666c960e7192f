"""An office file (.docx, .odt, .odp, .pptx, .xlsx) one of whose zip parts fails its CRC check: a byte changed on a
bad disk or in a broken download. zipfile raised BadZipFile at the part's last bytes and the whole file was skipped
('Bad CRC-32 for file content.xml'), however little was damaged. The part is read as it unzips now
(ingest.zipped.Parts.open_unchecked): the file is indexed, its listing saying which part was damaged (cut_short);
where the damage breaks the XML, the skip's reason says the zip is damaged, not only that the XML is."""
from __future__ import annotations

import io
import re
import struct
import zipfile

import pytest

from ingest.document import Skip
from ingest.parse import parse_file
from tests.test_slides import impress, lecture
from tests.test_word import odt, report
from tests.test_xlsx import budget

# a file, the part damaged, a word of it that is read as text
FILES = {"deck.odp": (impress, "content.xml", b"boots"), "minutes.docx": (report, "word/document.xml", b"chaired"),
         "survey.odt": (odt, "content.xml", b"waders"), "budget.xlsx": (budget, "xl/worksheets/sheet1.xml", b"Ingrid"),
         "talk.pptx": (lecture, "ppt/slides/slide2.xml", b"Assessors")}


def damaged(data: bytes, part: str, old: bytes, new: bytes, last: bool = False) -> bytes:
    """The zip again with ``part`` stored as it is and ``old`` in it changed to ``new`` (as long) after the zip was
    written: the part's CRC-32 no longer matches what it unzips to."""
    source, out = zipfile.ZipFile(io.BytesIO(data)), io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as copy:
        for info in source.infolist():
            copy.writestr(info, source.read(info), zipfile.ZIP_STORED if info.filename == part else None)
    raw = bytearray(out.getvalue())
    info = zipfile.ZipFile(io.BytesIO(bytes(raw))).getinfo(part)
    name_len, extra_len = struct.unpack("<HH", raw[info.header_offset + 26:info.header_offset + 30])
    start = info.header_offset + 30 + name_len + extra_len
    at = (raw.rindex if last else raw.index)(old, start, start + info.compress_size)
    raw[at:at + len(old)] = new
    return bytes(raw)


@pytest.mark.parametrize("name", sorted(FILES))
def test_a_part_failing_its_crc_is_read_and_the_damage_said(name):
    make, part, word = FILES[name]
    data = make()
    doc = parse_file(name, damaged(data, part, word, word[:-1] + b"Q"))
    text = "\n".join(s.text for s in doc.sections)
    assert word[:-1].decode() + "Q" in text  # the damaged part read, as it unzipped
    assert doc.meta["cut_short"] == (f"the zip is damaged: {part} failed its CRC check, read as it unzipped (its "
                                     "text may hold damaged characters)")
    assert "cut_short" not in parse_file(name, data).meta


@pytest.mark.parametrize("name", sorted(FILES))
def test_a_part_whose_damage_breaks_its_xml_is_skipped_saying_the_zip_is_damaged(name):
    make, part, _ = FILES[name]
    data = damaged(make(), part, b"</", b"<!")
    if name.endswith(".pptx"):  # a deck keeps what it can read: its other slides, this one saying why
        doc = parse_file(name, data)
        assert "failed its CRC check" in doc.meta["cut_short"]
        assert any(f"[not readable: {part}" in s.text for s in doc.sections)
        return
    with pytest.raises(Skip, match=re.escape(f"(the zip is damaged: {part} failed its CRC check")):
        parse_file(name, data)


def test_an_impress_deck_damaged_in_a_later_page_keeps_the_pages_before():
    doc = parse_file("deck.odp", damaged(impress(), "content.xml", b"</", b"<!", last=True))
    assert "Bring boots" in doc.sections[0].text and "failed its CRC check" in doc.meta["cut_short"]
