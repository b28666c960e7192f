"""An HTML page's paragraph past a bound is read in pieces, not held as one line.

A paragraph is one line of text however many lines of the file it span, and a page of one 20 MB ``<p>`` (bench/
hostile.py's ``text-node.html``) was handed to the reader whole, its 4 million words split at once into a list, and
cut by the chunker a word at a time: 590 MB and 15 s to be refused at chunk. Now a paragraph past
ingest.webpage.LINE_CHARS goes on in lines ended at the file's next line break (else sentence end) past PIECE_CHARS,
which the chunker takes whole as a text file's lines. The page is fed to the parser whole: fed 64 KB at a time (as it
was from that fix until base-52) it held no page less, the peak being the lines and sections made after, and a big
<script> held two and a half times its size. The bytes Python holds are counted here (tracemalloc), not the
process's memory."""
from __future__ import annotations

import tracemalloc

import pytest

from ingest.webpage import LINE_CHARS, PIECE_CHARS, parse_page

LINE = "the tapir sleeps all day long\n"


def _page(body: str) -> str:
    return ("<!DOCTYPE html><html><body><h1>Tapirs</h1><p>" + body + "</p><p>the okapi after it</p></body></html>\n")


def _parsed(page: str):
    """(the page parsed, the most bytes Python held meanwhile)."""
    parse_page("warm.html", _page("x"))  # its imports done
    tracemalloc.start()
    try:
        doc = parse_page("tapirs.html", page)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    return doc, peak


def test_a_paragraph_of_a_megabyte_is_read_in_pieces_holding_a_few_times_its_size():
    body = LINE * 40_000  # 1.2 MB of one paragraph
    page = _page(body)
    doc, peak = _parsed(page)
    assert peak < 4 * len(page), peak  # 3.3 MB; 17 MB (14 times) when its words were split at once
    [section] = doc.sections
    heading, *lines = section.text.split("\n")
    assert heading == "Tapirs"
    assert len(LINE) * 2 < len(lines[-2]) <= PIECE_CHARS + len(LINE)  # the paragraph's last piece
    assert LINE_CHARS <= len(lines[0]) <= LINE_CHARS + len(LINE)
    assert all(PIECE_CHARS <= len(line) <= PIECE_CHARS + len(LINE) for line in lines[1:-2])  # ended at a line break
    assert lines[-1] == "the okapi after it"  # the next paragraph a line of its own, as before
    assert " ".join(lines[:-1]).split() == body.split()  # every word kept, in order
    assert (section.start_line, section.end_line) == (1, 40_001)


def test_a_paragraph_on_one_line_of_the_file_is_cut_at_a_sentence_end():
    sentence = "The tapir sleeps all day long. "
    doc, _ = _parsed(_page(sentence * 5_000))  # 155 KB on one line
    lines = doc.sections[0].text.split("\n")[1:]
    assert lines[0].endswith("long.") and LINE_CHARS <= len(lines[0]) <= LINE_CHARS + len(sentence)
    assert all(line.endswith("long.") for line in lines[:-1])
    assert " ".join(lines[:-1]) == (sentence * 5_000).strip()


def test_a_paragraph_on_one_line_without_a_sentence_end_is_cut_at_a_space():
    """Words without a sentence end ('tapir okapi tapir …', a tag cloud, an index) on one line of the file were one
    line however long, its words split at once: 1.2 MB held 17 MB."""
    words = "tapir okapi " * 100_000
    page = _page(words)
    doc, peak = _parsed(page)
    lines = doc.sections[0].text.split("\n")[1:-1]
    assert peak < 4 * len(page), peak
    assert all(len(line) <= LINE_CHARS + len("okapi ") for line in lines) and len(lines) > 1
    assert " ".join(lines).split() == words.split()  # every word kept, in order


def test_a_long_paragraph_of_prose_stays_one_line():
    doc, _ = _parsed(_page(LINE * 3_000))  # 90 KB, under the bound
    assert doc.sections[0].text.split("\n") == ["Tapirs", " ".join((LINE * 3_000).split()), "the okapi after it"]


def test_preformatted_lines_are_whole_where_the_pieces_fed_meet():
    """A page fed to the parser in pieces had a <pre>'s line cut between two as two pieces of text, its spaces
    before the cut lost (each piece was then ended at a line break; the page is now fed whole)."""
    line = "total = a" + " " * 40 + "+ b\n"
    page = "<!DOCTYPE html><html><body><pre>" + line * 5_000 + "</pre></body></html>\n"  # 265 KB
    doc, _ = _parsed(page)
    assert doc.sections[0].text.split("\n") == [line.rstrip()] * 5_000


def test_a_big_inline_script_is_held_once():
    """A saved page's bundled JavaScript, left out: fed 64 KB at a time, the parser held the unclosed <script> back
    and each piece was added to it, the piece as long as what it held: 2 MB held 5 MB (2.5 times), now 2 MB."""
    page = "<html><head><script>" + "var tapir = 1; // sleeps\n" * 80_000 + "</script></head><body><p>the tapir</p>"
    doc, peak = _parsed(page)
    assert [section.text for section in doc.sections] == ["the tapir"]
    assert peak < 1.5 * len(page), peak


def test_a_start_tag_never_closed_is_not_matched_attribute_by_attribute():
    """'<a ' then 500 KB of 'x=y': the standard library matched the attributes with a regular expression whose
    backtracking held 160 bytes for each (a 2 MB page 390 MB, bench/hostile.py's unclosed-tag.html; 10 MB 1.7 GB)."""
    page = "<!DOCTYPE html><html><body><p>the kept tapir</p><a " + "x=y \n" * 100_000
    doc, peak = _parsed(page)
    assert [section.text for section in doc.sections] == ["the kept tapir"]
    assert peak < 4 * len(page), peak  # 1 MB (the page held as it is fed); 85 MB when matched


def test_a_closed_start_tag_of_many_attributes_is_not_matched_attribute_by_attribute():
    """The same 500 KB of 'x=y' with its '>' come: the unclosed tag's test holds without TAG_CHARS (a tag never
    closed is waited for), this one took 85 MB matched (TAG_CHARS); the text after it is read."""
    page = _page("the tapir <a " + "x=y \n" * 100_000 + "> sleeps")
    doc, peak = _parsed(page)
    assert doc.sections[0].text.split("\n") == ["Tapirs", "the tapir sleeps", "the okapi after it"]
    assert peak < 4 * len(page), peak  # 1 MB


def test_a_start_tag_of_64_kb_is_left_out_the_text_after_it_read():
    picture = "<img src='data:image/png;base64," + "iVBORw0KGgo" * 10_000 + "' alt='a tapir'>"
    doc, _ = _parsed(_page("the tapir " + picture + " sleeps"))
    assert doc.sections[0].text.split("\n") == ["Tapirs", "the tapir sleeps", "the okapi after it"]


@pytest.mark.parametrize("tag", ["script", "style"])
def test_a_script_whose_start_tag_is_over_64_kb_is_still_skipped(tag):
    """Left out whole, a <script> or <style> of so long a start tag (an inlined blob in an attribute) was not skipped:
    its code was read as the page's text, and a '<' in it as a tag."""
    code = f"<{tag} data-blob='" + "x" * 70_000 + "'>var tapir = '<p>' + (a < b);</" + tag + ">"
    doc, _ = _parsed(_page("the tapir " + code + " sleeps"))
    assert doc.sections[0].text.split("\n") == ["Tapirs", "the tapir sleeps", "the okapi after it"]
