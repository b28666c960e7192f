"""Hostile files against the zip-based readers (decks, spreadsheets, Word, OpenDocument, workbooks) and the zip's
own end record: each ends in a clear skip or a bounded read, through ingest.parse.parse_file. Figures at full size
(time and peak memory, /usr/bin/time -v) are in the README's Known limits; these keep the inputs small."""
from __future__ import annotations

import io
import struct
import zipfile

import pytest

from ingest.document import Skip
from ingest.parse import parse_file
from ingest.zipped import directory_size, opened
from tests.test_slides import PNS, RELS, calc, pptx, row, shape, slide, c

# a billion laughs: &j; is 10^10 bytes of 'a' (expat 2.4 and later refuse its amplification; Python 3.11 here)
LAUGHS = ('<!DOCTYPE r [<!ENTITY a "aaaaaaaaaa">' + "".join(
    f'<!ENTITY {chr(98 + i)} "{("&" + chr(97 + i) + ";") * 10}">' for i in range(9)) + ']>')


def zipped(parts: list[tuple[str, str | bytes]]) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as package:
        for name, body in parts:
            package.writestr(name, body)
    return out.getvalue()


def deck(slide_xml: str, target: str = "slides/slide1.xml") -> bytes:
    return zipped([
        ("ppt/presentation.xml", f'<p:presentation {PNS}><p:sldIdLst><p:sldId id="256" r:id="rId1"/></p:sldIdLst>'
                                 '</p:presentation>'),
        ("ppt/_rels/presentation.xml.rels", f'<Relationships {RELS}><Relationship Id="rId1" Type="x/slide" '
                                            f'Target="{target}"/></Relationships>'),
        ("ppt/slides/slide1.xml", slide_xml)])


def test_entities_that_expand_or_name_a_file_are_refused_with_the_reason():
    expanding = deck(LAUGHS + slide([shape(["&j;"], "")]))
    with pytest.raises(Skip, match="not a readable PowerPoint deck: its XML's entities expand past what is safe to "
                                   "read \\(limit on input amplification"):
        parse_file("laughs.pptx", expanding)
    external = deck('<!DOCTYPE r [<!ENTITY x SYSTEM "file:///etc/passwd">]>' + slide([shape(["&x;"], "")]))
    with pytest.raises(Skip, match="undefined entity"):
        parse_file("external.pptx", external)
    sheet = calc({"S": row(c("x"))})
    laughing = zipped([(name, LAUGHS + body.replace(">x<", ">&j;<") if name == "content.xml" else body)
                       for name, body in ((n, zipfile.ZipFile(io.BytesIO(sheet)).read(n).decode())
                                          for n in zipfile.ZipFile(io.BytesIO(sheet)).namelist())])
    with pytest.raises(Skip, match="amplification"):
        parse_file("laughs.ods", laughing)


def test_groups_nested_100000_deep_are_skipped_as_nested_too_deeply():
    deep = "<p:grpSp>" * 100_000 + shape(["the deep tapir"], None, (1, 1)) + "</p:grpSp>" * 100_000
    with pytest.raises(Skip, match="nested too deeply"):
        parse_file("deep.pptx", deck(slide([deep])))


def test_a_slide_listed_again_and_again_is_read_once():
    """A deck whose slide list names one slide 100,000 times (its notes the slide itself) was read 100,000 times:
    33.9 s and 947 MB before the zip-bomb bound stopped it; a slide is read once (0.5 s, 91 MB)."""
    listed = "".join(f'<p:sldId id="{256 + n}" r:id="rId1"/>' for n in range(3000))
    looped = zipped([
        ("ppt/presentation.xml", f'<p:presentation {PNS}><p:sldIdLst>{listed}</p:sldIdLst></p:presentation>'),
        ("ppt/_rels/presentation.xml.rels", f'<Relationships {RELS}><Relationship Id="rId1" Type="x/slide" '
                                            'Target="slides/slide1.xml"/></Relationships>'),
        ("ppt/slides/slide1.xml", slide([shape(["the looping tapir"], "")])),
        ("ppt/slides/_rels/slide1.xml.rels", f'<Relationships {RELS}><Relationship Id="rId2" '
                                             'Type="http://x/notesSlide" Target="slide1.xml"/></Relationships>')])
    doc = parse_file("loop.pptx", looped)
    text = "\n".join(s.text for s in doc.sections)
    assert text.count("the looping tapir") == 2 and "Slide 2" not in text, text[:300]  # the slide and its 'notes'


@pytest.mark.timeout(120)
def test_empty_slides_are_gathered_in_time_linear_in_their_count():
    """Headings with nothing under them open the next one's section: each was checked against every line since the
    last text (word._sections), the square of their count: a deck of 100,000 empty slides took over 10 min (hours
    by the square), now 30 s with its unzipping; the sections alone, here, a fraction of a second."""
    from ingest.word import WordText, _sections
    read = WordText()
    for n in range(1, 100_001):
        read.headings.append((len(read.lines), 1, f"Slide {n}"))
        read.lines.append(f"Slide {n}")
    read.lines.append("the last tapir")
    sections = _sections(read)
    assert len(sections) == 1 and sections[0].text.endswith("Slide 100000\nthe last tapir")
    assert sections[0].heading_path == ["Slide 100000"]


def test_part_names_that_climb_out_or_repeat_read_nothing_outside_the_zip():
    data = pptx([(slide([shape(["the kept tapir"], "")]), None)])
    out = io.BytesIO(data)
    with pytest.warns(UserWarning, match="Duplicate name"), zipfile.ZipFile(out, "a") as package:
        package.writestr("../../evil.xml", "<x/>")
        package.writestr("ppt/slides/slide1.xml", slide([shape(["the second tapir"], "")]))
    doc = parse_file("twice.pptx", out.getvalue())
    assert "the second tapir" in doc.sections[0].text  # zipfile's: the last of a name
    climbing = deck(slide([shape(["x"], "")]), target="../../../../../etc/passwd")
    assert parse_file("climb.pptx", climbing).sections == []


# --- the zip's end record (ingest.zipped.directory_size) ------------------------------------------------------

def zip64_declaring(size: int) -> bytes:
    """A small zip whose end records are ZIP64's, the ZIP64 one declaring a directory of ``size`` bytes."""
    data = zipped([("a.txt", "the tapir")])
    end = data.rfind(b"PK\x05\x06")
    count, cd_size, cd_offset = struct.unpack_from("<HLL", data, end + 10)
    record = struct.pack("<4sQ2H2L4Q", b"PK\x06\x06", 44, 45, 45, 0, 0, count, count, size, cd_offset)
    locator = struct.pack("<4sLQL", b"PK\x06\x07", 0, end, 1)
    classic = struct.pack("<4s4H2LH", b"PK\x05\x06", 0, 0, 0xFFFF, 0xFFFF, 0xFFFFFFFF, 0xFFFFFFFF, 0)
    return data[:end] + record + locator + classic


def test_the_directory_size_is_read_from_the_end_record_as_zipfile_reads_it():
    plain = zipped([(f"part{n}.xml", "<x/>") for n in range(5)])
    commented = io.BytesIO()
    with zipfile.ZipFile(commented, "w") as package:
        package.writestr("a.txt", "x")
        package.comment = b"PK\x05\x06 a comment naming the signature" + b"c" * 60_000
    wide = io.BytesIO()
    with zipfile.ZipFile(wide, "w") as package:  # over 65,535 entries: zipfile writes the ZIP64 records
        for n in range(70_000):
            package.writestr(f"{n}", b"")
    for data in (plain, commented.getvalue(), wide.getvalue(), b"junk before " + plain, zip64_declaring(1234)):
        found = directory_size(io.BytesIO(data))
        assert found == zipfile._EndRecData(io.BytesIO(data))[zipfile._ECD_SIZE], found
    assert directory_size(io.BytesIO(wide.getvalue())) > 70_000 * 46
    assert directory_size(io.BytesIO(b"no zip at all" * 10)) is None
    assert directory_size(io.BytesIO(b"")) is None


def test_a_zip64_directory_declared_huge_is_refused_before_zipfile_reads_it():
    data = zip64_declaring(2 ** 40)
    assert directory_size(io.BytesIO(data)) == 2 ** 40
    with pytest.raises(Skip, match="its zip's directory is 1,099,511,627,776 bytes"):
        with opened(io.BytesIO(data), "PowerPoint deck", ".pptx"):
            pass


# --- a deck with a broken slide, a deck of many slides ---------------------------------------------------------

def damaged_deck() -> bytes:
    """A deck of 5 slides: slide 2's part fails its CRC, slide 3's XML is broken, slide 5's part is missing."""
    decks = pptx([(slide([shape([f"Topic {n}"], "title"), shape([f"the tapir of slide {n}"], "")]), None)
                  for n in range(1, 6)])  # slide n is part slide{6 - n}.xml
    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(decks)) as source, zipfile.ZipFile(out, "w") as package:
        for item in source.infolist():
            if item.filename == "ppt/slides/slide3.xml":  # slide 3: broken XML
                package.writestr(item.filename, source.read(item)[:80] + b"<unclosed")
            elif item.filename == "ppt/slides/slide4.xml":  # slide 2: stored, its bytes changed after (bad CRC)
                package.writestr(item.filename, source.read(item), zipfile.ZIP_STORED)
            elif item.filename != "ppt/slides/slide1.xml":  # slide 5: listed, not in the zip
                package.writestr(item, source.read(item))
    return out.getvalue().replace(b"the tapir of slide 2", b"the tapis of slide 2")


def test_a_broken_or_missing_slide_is_said_and_the_others_read():
    """A slide of unparseable XML, one whose bytes fail their CRC and one listed but missing from the zip skipped
    the whole deck ('not a readable PowerPoint deck: …': its 2 good slides lost); now each is a slide of
    one line saying why, its number kept, and the deck's meta says which (cut_short). The slide failing its CRC is
    read as it unzips, the damage said (tests/test_hostile_zip_crc.py)."""
    from ingest.slides import slides_text
    data = damaged_deck()
    lines = slides_text(data, "damaged.pptx").lines
    expected = ["Slide 1: Topic 1", "the tapir of slide 1",
                "Slide 2: Topic 2", "the tapis of slide 2",
                "Slide 3", "[not readable: ppt/slides/slide3.xml: its XML is damaged (not well-formed",
                "Slide 4: Topic 4", "the tapir of slide 4",
                "Slide 5", "[not readable: ppt/slides/slide1.xml is not in the deck]"]
    assert len(lines) == len(expected) and all(map(str.startswith, lines, expected)), lines
    doc = parse_file("damaged.pptx", data)
    texts = [s.text for s in doc.sections]
    assert texts[2].startswith("Slide 3\n[not readable: ppt/slides/slide3.xml: its XML is damaged (not "
                               "well-formed"), texts
    assert texts[4] == "Slide 5\n[not readable: ppt/slides/slide1.xml is not in the deck]", texts
    assert doc.meta["cut_short"].startswith("slides 3, 5 of 5 not readable (ppt/slides/slide3.xml: its XML is "
                                            "damaged"), doc.meta
    assert doc.meta["cut_short"].endswith("; the zip is damaged: ppt/slides/slide4.xml failed its CRC check, read as "
                                          "it unzipped (its text may hold damaged characters)"), doc.meta


def many_slides(count: int) -> bytes:
    """A deck of ``count`` distinct slides (a title, a body of two lines, a text box each), as big decks are."""
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as package:
        package.writestr("ppt/presentation.xml", f'<p:presentation {PNS}><p:sldIdLst>' + "".join(
            f'<p:sldId id="{256 + n}" r:id="rId{n}"/>' for n in range(count)) + '</p:sldIdLst></p:presentation>')
        package.writestr("ppt/_rels/presentation.xml.rels", f'<Relationships {RELS}>' + "".join(
            f'<Relationship Id="rId{n}" Type="x/slide" Target="slides/slide{n}.xml"/>' for n in range(count))
            + '</Relationships>')
        for n in range(count):
            package.writestr(f"ppt/slides/slide{n}.xml", slide([
                shape([f"Topic {n}"], "title"), shape([f"the tapir number {n} swims", f"line two of {n}"], ""),
                shape([f"box {n} a", f"box {n} b"], None, (n % 7, 3))]))
    return out.getvalue()


def test_a_decks_slides_are_read_one_at_a_time_not_held_till_the_last():
    """Every slide's parsed XML was held until the deck was read: 20,000 slides (9 MB) peaked at 224 MB traced
    (591 MB resident), 25 times the file; each is read into its lines as it is parsed, 51 MB (177 MB)."""
    import tracemalloc
    data = many_slides(2000)
    tracemalloc.start()
    try:
        doc = parse_file("many.pptx", data)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert len(doc.sections) == 2000 and "the tapir number 1999 swims" in doc.sections[-1].text
    assert peak < 10 * len(data), (peak, len(data))


def test_a_deck_with_a_broken_slide_is_indexed_and_its_good_slides_found(immediate, tmp_path, monkeypatch):
    """Indexed, not a failure: its good slides found by their words, the broken one by what it says of itself."""
    import os
    from pathlib import Path
    from search.query.engine import Engine
    from tests.conftest import ingest
    monkeypatch.setenv("SIFT_EMBEDDINGS", "off")
    root = tmp_path / "work"
    root.mkdir()
    (root / "damaged.pptx").write_bytes(damaged_deck())
    published = ingest(root, "work")["published"]
    assert published["failures"] == [], published["failures"]
    engine = Engine(Path(os.environ["SIFT_HOME"]) / "index.db")
    hit = engine.search("tapir of slide 4", mode="keyword").hits[0]
    assert hit.path == "damaged.pptx" and "Slide 4: Topic 4" in hit.heading_path, hit
    assert engine.search("not readable", mode="keyword").hits[0].path == "damaged.pptx"


def replaced(deck: bytes, parts: dict[str, bytes]) -> bytes:
    """``deck`` with the parts named in ``parts`` written over with those bytes."""
    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(deck)) as source, zipfile.ZipFile(out, "w") as package:
        for item in source.infolist():
            package.writestr(item, parts.get(item.filename, source.read(item)))
    return out.getvalue()


def test_a_broken_notes_or_relationships_part_loses_that_part_alone():
    """A slide whose speaker notes' XML was broken, or whose relationships part (naming its notes, charts) was,
    was a slide of one line '[not readable: …]': its title and bullets, which were whole, were lost with them. Now
    the slide's own text is read, the part lost is said on a line of its own and in the deck's cut_short."""
    from ingest.slides import slides_text
    from tests.test_slides import lecture
    data = replaced(lecture(), {"ppt/notesSlides/notesSlide3.xml": b"<p:notes><broken",
                                "ppt/slides/_rels/slide1.xml.rels": b"<Relationships><oops"})
    lines = slides_text(data, "lecture.pptx").lines
    assert lines[lines.index("Slide 2: Precision"):lines.index("Slide 3: Costs")][:3] == [
        "Slide 2: Precision", "The fraction of retrieved documents that are relevant", "Precision at k"], lines
    assert any(line.startswith("[not readable: ppt/notesSlides/notesSlide3.xml: its XML is damaged")
               for line in lines), lines
    assert not any("precision ignores recall" in line for line in lines), lines
    backup = lines[lines.index("Slide 4 (hidden): Backup: kappa"):]
    assert backup[1] == "Cohen's kappa corrects agreement for chance", backup
    assert backup[2].startswith("[not readable: ppt/slides/_rels/slide1.xml.rels: its XML is damaged"), backup
    doc = parse_file("lecture.pptx", data)
    assert doc.meta["cut_short"].startswith("a part of slides 2, 4 of 4 not readable (ppt/notesSlides/notesSlide3"
                                            ".xml: its XML is damaged"), doc.meta
    assert doc.meta["cut_short"].endswith("the slide's own text read"), doc.meta


def many_pages(count: int, cut: int | None = None) -> bytes:
    """An Impress deck of ``count`` pages (a title, eight lines, a table of 5 rows, speaker notes each); ``cut``: its
    content.xml's XML broken off that many bytes before its end."""
    from tests.test_slides import frame, opendocument
    cells = "".join("<table:table-row>" + "<table:table-cell><text:p>cell</text:p></table:table-cell>" * 4
                    + "</table:table-row>" for _ in range(5))
    pages = "".join(
        f'<draw:page draw:name="p{n}">' + frame([f"Topic {n}"], "title")
        + frame([f"the tapir number {n} swims, line {j}" for j in range(8)], "outline")
        + f'<draw:frame svg:x="2cm" svg:y="9cm"><table:table>{cells}</table:table></draw:frame>'
        + f'<presentation:notes>{frame([f"note {n} on the okapi"], "notes")}</presentation:notes></draw:page>'
        for n in range(count))
    deck = opendocument("application/vnd.oasis.opendocument.presentation",
                        f"<office:presentation>{pages}</office:presentation>")
    if cut is None:
        return deck
    with zipfile.ZipFile(io.BytesIO(deck)) as source:
        content = source.read("content.xml")
    return zipped([("mimetype", "application/vnd.oasis.opendocument.presentation"),
                   ("content.xml", content[:-cut]), ("META-INF/manifest.xml", "<manifest/>")])


def test_an_impress_decks_pages_are_read_one_at_a_time_not_held_till_the_last():
    """An .odp's content.xml was parsed whole, every page's tree held till the last was read: 20,000 pages (46 MB
    of XML) peaked at 325 MB resident, 500 pages' at 6.6 times their XML traced. Each page is read as its end is
    parsed and let go: 73 MB resident, 1.2 times the XML traced."""
    import tracemalloc
    from ingest.slides import slides_text
    data = many_pages(500)
    with zipfile.ZipFile(io.BytesIO(data)) as package:
        size = package.getinfo("content.xml").file_size
    tracemalloc.start()
    try:
        read = slides_text(data, "many.odp")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert read.lines[-3:] == ["| cell | cell | cell | cell |", "| cell | cell | cell | cell |",
                               "Speaker notes: note 499 on the okapi"], read.lines[-3:]
    assert len(read.headings) == 500 and peak < 3 * size, (peak, size)


def test_an_impress_deck_whose_xml_breaks_off_keeps_the_pages_before_it():
    """An .odp whose content.xml breaks off (a copy cut short, a crashed save) was skipped whole ('ParseError: no
    element found'); its pages before the break are read, a last slide and the deck's cut_short say where it broke.
    Broken before its first page, it is skipped with the error, as before."""
    doc = parse_file("cut.odp", many_pages(4, cut=200))
    assert [s.heading_path[-1] for s in doc.sections] == [
        "Slide 1: Topic 0", "Slide 2: Topic 1", "Slide 3: Topic 2", "Slide 4"], doc.sections
    assert doc.sections[-1].text.startswith("Slide 4\n[not readable: content.xml: its XML is damaged ("), \
        doc.sections[-1].text
    assert doc.meta["cut_short"].startswith("slide 4 of 4 not readable (content.xml: its XML is damaged"), doc.meta
    with pytest.raises(Skip, match="not a readable OpenDocument presentation: its XML is damaged"):
        parse_file("stub.odp", many_pages(1, cut=900))
