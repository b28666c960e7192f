"""An OpenDocument text's paragraph is bounded as it is parsed, not after.

A flat .fodt of one 50 MB paragraph took 980 MB to be refused (bench/hostile.py's ``one-line.fodt``): ElementTree
parsed the whole file, the reader joined the paragraph's text and the line check cut it to lines, each a copy. Now
the parser's builder counts a paragraph's text as it comes (ingest.odt._BoundedBuilder) and stops at a line's bound,
in a flat file or an .odt's content.xml. A ``text:s`` of three billion spaces (a 200-byte file) took 5.7 GB. The
bytes Python holds are counted here (tracemalloc), not the process's memory."""
from __future__ import annotations

import tracemalloc

import pytest

from ingest.document import Skip
from ingest.parse import parse_file
from tests.odt_writer import zipped_odt

HEAD = ("<?xml version='1.0'?><office:document xmlns:office='urn:oasis:names:tc:opendocument:xmlns:office:1.0' "
        "xmlns:text='urn:oasis:names:tc:opendocument:xmlns:text:1.0' "
        "xmlns:draw='urn:oasis:names:tc:opendocument:xmlns:drawing:1.0'><office:body><office:text>")
TAIL = "</office:text></office:body></office:document>"
LONG = "the tapir " * 600_000  # 6 MB in one paragraph


def _kept(path: str, data: bytes):
    """(what parse_file raised or returned, the most bytes Python held meanwhile)."""
    parse_file(path, zipped_odt(HEAD + TAIL) if path.endswith(".odt") else (HEAD + TAIL).encode())  # its imports done
    tracemalloc.start()
    try:
        try:
            outcome = parse_file(path, data)
        except Skip as skip:
            outcome = skip
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    return outcome, peak


@pytest.mark.parametrize("path", ["one-line.fodt", "one-line.odt"])
def test_a_paragraph_over_a_lines_bound_is_refused_holding_a_part_of_it(path):
    content = HEAD + "<text:h text:outline-level='1'>Tapirs</text:h><text:p>" + LONG + "</text:p>" + TAIL
    data = content.encode() if path.endswith(".fodt") else zipped_odt(content)
    outcome, peak = _kept(path, data)
    assert peak < len(LONG) // 3, peak  # 1.3 MB for 6 MB; 95 MB (16 times) when it was parsed whole first
    assert isinstance(outcome, Skip) and "a line of over 1,000,000 characters" in str(outcome), outcome


def test_a_paragraph_cut_by_footnotes_is_bounded_as_a_whole():
    """A footnote's paragraph inside a paragraph ended the count of its line: a 6 MB paragraph with a note every
    500 KB was held whole (100 MB) and refused only once joined."""
    note = "<text:note><text:note-body><text:p>1</text:p></text:note-body></text:note>"
    content = HEAD + "<text:p>" + note.join([LONG[:500_000]] * 12) + "</text:p>" + TAIL
    outcome, peak = _kept("notes.fodt", content.encode())
    assert peak < len(LONG) // 3, peak  # 1.3 MB
    assert isinstance(outcome, Skip) and "a line of over 1,000,000 characters" in str(outcome), outcome


@pytest.mark.parametrize("fake", ["<!-- </text:p> -->", "<![CDATA[</text:p>]]>", "<?pi </text:p> ?>"])
def test_a_paragraphs_tag_inside_other_markup_does_not_bound_it(fake):
    """ElementTree's own builder reads a document while its bytes show a paragraph's tag often enough
    (ingest.odt._marked_tree): one spelled inside a comment, CDATA or a processing instruction every 100 KB of a 6 MB
    paragraph had it held whole (86 MB) and refused only once joined. A document as Writer saves it still is."""
    from ingest.odt import MARKED_BYTES, _marked_tree
    content = HEAD + "<text:p>" + fake.join([LONG[:100_000]] * 60) + "</text:p>" + TAIL
    outcome, peak = _kept("marks.fodt", content.encode())
    assert peak < len(LONG) // 3, peak  # 1.3 MB
    assert isinstance(outcome, Skip) and "a line of over 1,000,000 characters" in str(outcome), outcome
    saved = "<?xml version='1.0' encoding='UTF-8'?>" + HEAD[len("<?xml version='1.0'?>"):] + "<text:p>a</text:p>" + TAIL
    assert _marked_tree(saved.encode(), "OpenDocument text", MARKED_BYTES) is not None


def test_a_paragraph_holding_a_big_picture_is_read():
    """A flat file holds its pictures in base64 inside the paragraph showing them: not text, not counted."""
    picture = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJ" * 50_000  # 2.2 MB
    content = (HEAD + "<text:p>The tapir at dawn <draw:frame><draw:image><office:binary-data>" + picture
               + "</office:binary-data></draw:image></draw:frame> by the river.</text:p>" + TAIL)
    outcome, peak = _kept("photo.fodt", content.encode())
    assert [section.text for section in outcome.sections] == ["The tapir at dawn by the river."]
    assert peak < len(picture) // 2, peak  # 0.3 MB, the picture's text not held; 6.4 MB when it was


def test_a_count_of_spaces_is_not_made_into_spaces():
    content = HEAD + "<text:p>the tapir<text:s text:c='3000000000'/>sleeps</text:p>" + TAIL
    outcome, peak = _kept("spaces.fodt", content.encode())
    assert [section.text for section in outcome.sections] == ["the tapir sleeps"]
    assert peak < 1_000_000, peak  # 3 GB made and collapsed to one space


def _flat(kind: str, body: str) -> bytes:
    return (HEAD.replace("office:text>", f"office:{kind}>").replace(
        "xmlns:draw=", "xmlns:table='urn:oasis:names:tc:opendocument:xmlns:table:1.0' xmlns:draw=")
        + body + TAIL.replace("office:text>", f"office:{kind}>")).encode()


def test_a_slides_paragraph_over_a_lines_bound_is_refused_holding_a_part_of_it():
    """A flat .fodp of one 50 MB paragraph took 33 s and 1.4 GB to be skipped at chunk (ingest.slides._odp_pages)."""
    data = _flat("presentation", "<draw:page><draw:frame><draw:text-box><text:p>" + LONG
                 + "</text:p></draw:text-box></draw:frame></draw:page>")
    outcome, peak = _kept("one-line.fodp", data)
    assert peak < len(LONG) // 3, peak  # 1.3 MB
    assert isinstance(outcome, Skip) and "a line of over 1,000,000 characters" in str(outcome), outcome


def test_a_cells_text_past_a_lines_bound_is_not_held():
    """A cell keeps its first 2,000 characters (ingest.table.CELL_CHARS): a .fods of one 50 MB cell took 1 GB."""
    data = _flat("spreadsheet", "<table:table table:name='Tapirs'><table:table-row><table:table-cell><text:p>" + LONG
                 + "</text:p></table:table-cell><table:table-cell><text:p>okapi</text:p></table:table-cell>"
                 "</table:table-row></table:table>")
    outcome, peak = _kept("one-cell.fods", data)
    assert peak < 4 * len(LONG), peak  # 16 MB (its first 1,000,000 characters read into a row); 98 MB held whole
    assert outcome.sections[0].text.startswith("the tapir the tapir")


# A document is parsed by ElementTree's own builder while its bytes show every paragraph bounded (ingest.odt.
# _marked_tree), else again with its text counted: what its bytes cannot show is read by the count.

def test_a_paragraph_whose_bytes_name_another_text_namespace_text_is_refused_holding_a_part_of_it():
    """'<text:p>' inside the paragraph, the prefix bound to another namespace: no paragraph's tag to ODF, and the
    paragraph's 6 MB of text is still one line (a false boundary to the bytes, were the prefix not checked)."""
    other = "<text:p xmlns:text='urn:example:other'/>"
    content = HEAD + "<text:p>" + ("the tapir " * 10_000 + other) * 60 + "</text:p>" + TAIL
    outcome, peak = _kept("one-line.odt", zipped_odt(content))
    assert peak < 2_000_000, peak
    assert isinstance(outcome, Skip) and "a line of over 1,000,000 characters" in str(outcome), outcome


def test_a_paragraph_made_long_by_an_entity_is_refused():
    """An entity of the document's own makes more text than its bytes: 2 MB from 10 KB."""
    declared = "<?xml version='1.0'?><!DOCTYPE office:document [<!ENTITY t '" + "the tapir " * 1_000 + "'>]>"
    content = HEAD.replace("<?xml version='1.0'?>", declared) + "<text:p>" + "&t;" * 200 + "</text:p>" + TAIL
    outcome, _ = _kept("entity.fodt", content.encode())
    assert isinstance(outcome, Skip) and "a line of over 1,000,000 characters" in str(outcome), outcome


def test_a_document_naming_its_text_namespace_otherwise_is_read_alike():
    body = "<text:h text:outline-level='1'>Tapirs</text:h><text:p>the tapir <text:span>sleeps</text:span></text:p>"
    usual = parse_file("usual.fodt", (HEAD + body + TAIL).encode())
    renamed = (HEAD + body + TAIL).replace("<text:", "<t:").replace("</text:", "</t:").replace(" text:", " t:")
    other = parse_file("other.fodt", renamed.replace("xmlns:text=", "xmlns:t=").encode())
    assert [(s.heading_path, s.text) for s in other.sections] == [(s.heading_path, s.text) for s in usual.sections]
    assert usual.sections[0].text.endswith("the tapir sleeps")


def test_a_declaration_cut_between_two_pieces_of_the_parse_is_seen():
    """The same false tags, each one's declaration cut where the parse's pieces of 64 KB meet (ingest.odt
    READ_AT_ONCE): seen whole, in the bytes of the piece before and its own."""
    from ingest.odt import READ_AT_ONCE
    other = "<text:p xmlns:text='urn:example:other'/>"
    cut = other.index("xmlns:te") + len("xmlns:te")  # where the pieces meet inside it
    start = HEAD + "<text:p>"
    first = READ_AT_ONCE - len(start) - cut  # the filler before the first false tag
    unit = ("the tapir " * READ_AT_ONCE)[:READ_AT_ONCE - len(other)] + other  # each next one a piece later
    content = start + ("the tapir " * READ_AT_ONCE)[:first] + other + unit * 100 + "</text:p>" + TAIL
    assert content.encode()[READ_AT_ONCE - 8:READ_AT_ONCE + 2] == b"xmlns:text"
    outcome, peak = _kept("one-line.odt", zipped_odt(content))
    assert peak < 2_000_000, peak
    assert isinstance(outcome, Skip) and "a line of over 1,000,000 characters" in str(outcome), outcome
