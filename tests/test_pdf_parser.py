"""Tests for ingest.pdf on the real PDFs in shared/data/pdf (see its MANIFEST.tsv)."""
from __future__ import annotations

import csv
import io
import logging
import os
import random
import tracemalloc
import zlib
from functools import lru_cache
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pypdf import PageObject, PdfReader, PdfWriter

from ingest import pdf
from ingest.chunk import chunk_document, plain_count
from ingest.document import Skip
from ingest.pdf import clean_text, dehyphenate, normalize, parse_pdf, tidy_whitespace

TEXT_PDFS = ["en/google-doc-document.pdf", "en/multicolumn.pdf", "de/GeoTopo-komprimiert.pdf",
             "en/GeoBase_NHNC1_Data_Model_UML_EN.pdf", "en/Seige_of_Vicksburg_Sample_OCR.pdf"]

# A word found (by looking) on exactly one page of each file.
WORD_ON_PAGE = [
    ("en/google-doc-document.pdf", "Beautiful", 1),
    ("en/multicolumn.pdf", "Abstract", 1),
    ("en/multicolumn.pdf", "sociosqu", 2),
    ("en/multicolumn.pdf", "Brussels", 3),
    ("en/GeoBase_NHNC1_Data_Model_UML_EN.pdf", "Gouvernement", 1),
    ("en/GeoBase_NHNC1_Data_Model_UML_EN.pdf", "HydroJunction", 10),
    ("en/GeoBase_NHNC1_Data_Model_UML_EN.pdf", "PolygonMetadata", 19),
    ("en/Seige_of_Vicksburg_Sample_OCR.pdf", "scattering", 2),
    ("en/Seige_of_Vicksburg_Sample_OCR.pdf", "treasonable", 4),
    ("en/Seige_of_Vicksburg_Sample_OCR.pdf", "bedridden", 6),
    ("de/GeoTopo-komprimiert.pdf", "Wintersemester", 2),
    ("de/GeoTopo-komprimiert.pdf", "assoziativ", 50),
    ("de/GeoTopo-komprimiert.pdf", "Einheitengruppe", 114),
]


def data_pdf() -> Path:
    """shared/data/pdf beside the repo, or under $SIFT_SHARED_DATA."""
    env = os.environ.get("SIFT_SHARED_DATA")
    base = Path(env) if env else Path(__file__).resolve().parents[2] / "shared" / "data"
    return base / "pdf"


def pdf_dir() -> Path:
    """The PDF data directory; skips the test when it is absent."""
    path = data_pdf()
    if not path.is_dir():
        pytest.skip(f"{path} not found: put shared/data beside the repo or set SIFT_SHARED_DATA")
    return path


def manifest() -> dict[str, str]:
    """file -> note, from MANIFEST.tsv."""
    with open(pdf_dir() / "MANIFEST.tsv", newline="", encoding="utf-8") as f:
        return {row["file"]: row["note"] for row in csv.DictReader(f, delimiter="\t")}


@lru_cache(maxsize=None)
def parsed(name: str):
    path = pdf_dir() / name
    return parse_pdf(str(path), path.read_bytes())


def page_at(section, offset: int) -> int:
    """The page a character offset of the section is on, as the chunker computes it."""
    pages = [page for start, page in section.page_starts if start <= offset]
    return pages[-1]


def pdf_bytes(writer: PdfWriter) -> bytes:
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


# --- the text PDFs ------------------------------------------------------------------

def test_manifest_lists_the_text_pdfs():
    files = set(manifest())
    assert set(TEXT_PDFS) <= files
    assert {f for f in files if not f.startswith("_problem/")} == set(TEXT_PDFS)


@pytest.mark.parametrize("name", TEXT_PDFS)
def test_text_pdf_parses_with_all_its_pages(name):
    doc = parsed(name)
    n_pages = len(PdfReader(pdf_dir() / name).pages)
    assert doc.kind == "pdf"
    assert doc.meta["pages"] == n_pages
    assert doc.meta["pages_without_text"] == 0
    assert doc.meta["failed_pages"] == []
    pages = [page for s in doc.sections for _, page in s.page_starts]
    assert pages == list(range(1, n_pages + 1))
    for s in doc.sections:
        assert s.start_line is None and s.end_line is None
        assert (s.page, s.end_page) == (s.page_starts[0][1], s.page_starts[-1][1])
        offsets = [start for start, _ in s.page_starts]
        assert offsets[0] == 0 and offsets == sorted(offsets)
        # every page begins right after the blank line that ends the one before
        assert all(s.text[o - 2:o] == "\n\n" for o in offsets[1:])


@pytest.mark.parametrize("name,word,page", WORD_ON_PAGE)
def test_word_is_mapped_to_its_page(name, word, page):
    raw = PdfReader(pdf_dir() / name).pages[page - 1].extract_text()
    assert word in raw  # the expectation itself is right
    hits = [(s, s.text.find(word)) for s in parsed(name).sections if word in s.text]
    assert len(hits) == 1
    section, offset = hits[0]
    assert page_at(section, offset) == page
    assert section.page <= page <= section.end_page


@pytest.mark.parametrize("name,title", [
    ("en/google-doc-document.pdf", "PDF Example Document"),
    ("de/GeoTopo-komprimiert.pdf", "Geometrie und Topologie"),
    ("en/Seige_of_Vicksburg_Sample_OCR.pdf", "Seige_of_Vicksburg_Sample_OCR"),  # metadata: Binder1.pdf
    ("en/multicolumn.pdf", "Two-Column Document with Lorem Ipsum"),  # no metadata title: drawn at 17.2 over 10
    ("en/GeoBase_NHNC1_Data_Model_UML_EN.pdf", "National Hydro Network, Canada, Level 1 Data Model Edition 1.0 "
                                               "2004 - 08"),  # none either: drawn at 18 over 12
])
def test_title_is_metadata_title_when_sensible_else_the_first_pages_largest_text_else_file_stem(name, title):
    assert parsed(name).title == title


def sized_pdf(lines: list[tuple[float, str]], info: bytes = b"", later: list[list[str]] = ()) -> bytes:
    """A PDF whose first page draws the given lines, each at its size (some through a scaled text matrix, as
    LaTeX draws), and whose pages ``later`` draw theirs at 10, with an /Info dictionary's entries ``info``."""
    content = b"".join(b"BT /F1 %g Tf 1 0 0 1 72 %d Tm (%s) Tj ET\n" % (size, 700 - 20 * i, text.encode())
                       if i % 2 else
                       b"BT /F1 1 Tf %g 0 0 %g 72 %d Tm (%s) Tj ET\n" % (size, size, 700 - 20 * i, text.encode())
                       for i, (size, text) in enumerate(lines))
    contents = [content, *(b"BT /F1 10 Tf 12 TL 72 750 Td " + b"".join(b"(%s) ' " % line.encode() for line in page)
                           + b"ET" for page in later)]
    n = len(contents)
    info_at = 4 + 2 * n
    objects = [b"<< /Type /Catalog /Pages 2 0 R >>",
               b"<< /Type /Pages /Kids [%s] /Count %d >>" % (b" ".join(b"%d 0 R" % (4 + 2 * i) for i in range(n)), n),
               b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>"]
    for i, page in enumerate(contents):
        objects += [b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents %d 0 R "
                    b"/Resources << /Font << /F1 3 0 R >> >> >>" % (5 + 2 * i),
                    b"<< /Length %d >>\nstream\n%s\nendstream" % (len(page), page)]
    data = raw_pdf(objects + ([b"<< %s >>" % info] if info else []))
    return data.replace(b"/Root 1 0 R", b"/Root 1 0 R /Info %d 0 R" % info_at) if info else data


def test_a_paper_without_a_usable_metadata_title_is_titled_by_its_first_pages_largest_text():
    """Word's 'Microsoft Word - chunking_final_v3.docx' or no title at all: the hits of such a paper were headed
    by its file's name. Its title is the first run of the first page's largest text, when that is 1.3 times the
    size of most of its text (a heading barely larger, or a page all of one size, is no title)."""
    body = [(10, "Dense retrievers encode a fixed number of tokens, so long documents"),
            (10, "must be split before indexing. We compare fixed windows and sections.")]
    paper = [(10, "Preprint, under review"), (16, "Chunking Long Documents"), (16, "for Dense Retrieval"),
             (10, "Mei Chen"), *body, (16, "Another large line")]
    word = b"/Title (Microsoft Word - chunking_final_v3.docx) /Author (mchen)"
    assert parse_pdf("chen.pdf", sized_pdf(paper, word)).title == "Chunking Long Documents for Dense Retrieval"
    assert parse_pdf("chen.pdf", sized_pdf(paper)).title == "Chunking Long Documents for Dense Retrieval"
    assert parse_pdf("chen.pdf", sized_pdf(paper, b"/Title (Chunking, the paper)")).title == "Chunking, the paper"
    assert parse_pdf("chen.pdf", sized_pdf([(12, "Introduction"), *body])).title == "chen"
    assert parse_pdf("chen.pdf", sized_pdf([(10, "Introduction"), *body])).title == "chen"
    assert parse_pdf("chen.pdf", sized_pdf([(20, "12"), *body])).title == "chen"  # a big page number


def test_a_masthead_drawn_larger_than_the_title_is_passed_over_for_the_next_largest_text():
    """'CONFIDENTIAL' or 'DRAFT' stamped in big letters, an arXiv identifier down the margin, a journal's name
    at the top of the first page (and of every later one, smaller) were the paper's title when drawn largest."""
    body = [(10, "Dense retrievers encode a fixed number of tokens, so long documents"),
            (10, "must be split before indexing. We compare fixed windows and sections.")]
    title = [(16, "Chunking Long Documents"), (16, "for Dense Retrieval"), (10, "Mei Chen")]
    later = [["Journal of Retrieval Studies", "Fixed windows lose a section's heading.", "2"],
             ["Journal of Retrieval Studies", "Sections keep it.", "3"]]
    for masthead in ("CONFIDENTIAL", "DRAFT", "arXiv:2403.01234v2 [cs.IR] 2 Mar 2024", "Journal of Retrieval Studies"):
        pdf = sized_pdf([(24, masthead), *title, *body], later=later)
        assert parse_pdf("chen.pdf", pdf).title == "Chunking Long Documents for Dense Retrieval", masthead
    # a large line that is no masthead, nor repeated, is still the title; a title repeated as a running header
    # with nothing larger than the body left after it is still the title
    assert parse_pdf("chen.pdf", sized_pdf([(24, "Retrieval Notes"), *title, *body], later=later)).title == \
        "Retrieval Notes"
    assert parse_pdf("j.pdf", sized_pdf([(24, "Journal of Retrieval Studies"), *body], later=later)).title == \
        "Journal of Retrieval Studies"


def test_a_title_repeated_as_a_running_header_is_not_passed_over_for_a_section_heading():
    """A report or paper whose later pages are headed by its own title (a Word header, fancyhdr) has the title on
    every later page, as a journal's name is: it was passed over for the next text larger than the body, its
    first section's heading ('1 Introduction', 'Executive Summary' at 14 points over a body at 10)."""
    body = [(10, "Dense retrievers encode a fixed number of tokens, so long documents"),
            (10, "must be split before indexing. We compare fixed windows and sections."),
            (10, "Fixed windows lose a section's heading; sections keep it, at a cost.")]
    later = [["Chunking Long Documents for Dense Retrieval", "Fixed windows lose a section's heading.", "2"],
             ["Chunking Long Documents for Dense Retrieval", "Sections keep it.", "3"]]
    for heading in ("1 Introduction", "I. INTRODUCTION", "2.1 Setup", "Executive Summary", "Introduction"):
        pdf = sized_pdf([(20, "Chunking Long Documents for Dense Retrieval"), (10, "Mei Chen"), *body[:2],
                         (14, heading), body[2]], later=later)
        assert parse_pdf("chen.pdf", pdf).title == "Chunking Long Documents for Dense Retrieval", heading
    # a journal's name above the title is still passed over for it
    pdf = sized_pdf([(24, "Journal of Retrieval Studies"), (16, "Chunking Long Documents for Dense Retrieval"),
                     *body[:2], (14, "1 Introduction"), body[2]],
                    later=[["Journal of Retrieval Studies", *page[1:]] for page in later])
    assert parse_pdf("chen.pdf", pdf).title == "Chunking Long Documents for Dense Retrieval"


def test_outline_chapters_and_their_sections_become_sections():
    """The outline's chapters, and the sections one level below them: '1.2 Metrische Räume' (pages 10-12) was
    only ever under '1 Topologische Grundbegriffe', over its 22 pages."""
    doc = parsed("de/GeoTopo-komprimiert.pdf")
    chapters = {tuple(s.heading_path): (s.page, s.end_page) for s in doc.sections}
    assert chapters[()] == (1, 5)  # front matter before chapter 1
    one, three = "1 Topologische Grundbegriffe", "3 Fundamentalgruppe und Überlagerungen"
    assert chapters[(one, "1.1 Topologische Räume")] == (6, 9)  # begins on the chapter's page
    assert chapters[(one, "1.2 Metrische Räume")] == (10, 12)
    assert chapters[(one, "Übungsaufgaben")] == (26, 27)
    assert chapters[(three, "3.1 Homotopie von Wegen")] == (48, 50)
    assert chapters[("Stichwortverzeichnis",)] == (114, 117)  # a chapter without sections
    assert (one,) not in chapters
    first = next(s for s in doc.sections if s.heading_path[:1] == [three])
    assert first.text.startswith("3 Fundamentalgruppe und Überlagerungen")


def test_no_outline_gives_one_section():
    doc = parsed("en/multicolumn.pdf")
    assert len(doc.sections) == 1 and doc.sections[0].heading_path == []


def test_ligatures_and_line_break_hyphens_are_cleaned_in_real_text():
    multicolumn = parsed("en/multicolumn.pdf").sections[0].text
    assert "two columns filled" in multicolumn  # "ﬁ" ligature in the PDF
    assert "adipiscing" in multicolumn and "adip-" not in multicolumn
    vicksburg = parsed("en/Seige_of_Vicksburg_Sample_OCR.pdf").sections[0].text
    assert "conspicuous and dangerous for use" in vicksburg  # "dan- \ngerous" in the PDF
    assert "THE SIEGE OF VICKSBURG" in vicksburg  # runs of spaces collapsed
    geotopo = "\n".join(s.text for s in parsed("de/GeoTopo-komprimiert.pdf").sections)
    assert "0. Auflage" in geotopo
    assert "Schwarz-\nWeiß" in geotopo  # capital after the hyphen: kept


# --- the problem PDFs ----------------------------------------------------------------

def problem_files() -> list[str]:
    """Every PDF in _problem/ (collected before the tests run, so new files are covered)."""
    return sorted(p.name for p in (data_pdf() / "_problem").glob("*.pdf")) or ["(no data)"]


@pytest.mark.parametrize("name", problem_files())
def test_problem_pdf_parses_or_says_why_not(name):
    path = pdf_dir() / "_problem" / name
    if not path.exists():
        pytest.skip("no _problem PDFs")
    note = manifest().get(f"_problem/{name}", "")
    try:
        doc = parse_pdf(str(path), path.read_bytes())
    except Skip as exc:
        reason = str(exc)
        if note.startswith("ENCRYPTED"):
            assert reason.startswith("encrypted")
        elif "no extractable text" in note:
            assert reason == pdf.NO_TEXT and reason.startswith("no text layer")
        else:
            pytest.fail(f"unexpected Skip({reason!r}) for {name}: {note}")
        return
    except ValueError as exc:
        assert str(exc).startswith("unreadable PDF: ") and len(str(exc)) > len("unreadable PDF: ")
        assert note.startswith("MALFORMED")
        return
    assert not note.startswith(("ENCRYPTED", "valid PDF with no"))
    assert doc.sections and doc.meta["pages"] >= 1


def test_known_outcomes_of_the_problem_pdfs():
    base = pdf_dir() / "_problem"

    def outcome(name):
        try:
            return parse_pdf(name, (base / name).read_bytes()).sections[0].text
        except (Skip, ValueError) as exc:
            return f"{type(exc).__name__}: {exc}"

    assert outcome("crazyones-encrypted-256.pdf") == f"Skip: {pdf.PASSWORD}"
    assert outcome("libreoffice-writer-password.pdf") == f"Skip: {pdf.PASSWORD}"
    assert outcome("git-no-text.pdf") == ("Skip: no text layer: a scan? Sift does no OCR; to index it, save a copy "
                                          "with a text layer where Sift looks (ocrmypdf in.pdf out.pdf)")
    assert outcome("issue-297.pdf") == "test example"  # broken xref, recovered
    # damaged: said in plain words, with what to do, as for the encrypted and the textless ones (pypdf's words
    # alone, 'Invalid object in /Pages', said neither)
    assert outcome("unreadablemetadata.pdf") == ("Unreadable: unreadable PDF: damaged: its structure cannot be read "
                                                 "(pypdf: Invalid object in /Pages); to index it, open it in a PDF "
                                                 "viewer and save a copy (Save As, or Print to PDF) where Sift looks")


def test_pypdf_warnings_are_counted_not_printed(capfd):
    """An application's root handler (stderr, a log file) never sees pypdf's records."""
    seen: list[logging.LogRecord] = []
    app_handler = logging.Handler(logging.DEBUG)
    app_handler.emit = seen.append
    logging.getLogger().addHandler(app_handler)
    try:
        path = pdf_dir() / "_problem" / "issue-297.pdf"
        doc = parse_pdf(str(path), path.read_bytes())
    finally:
        logging.getLogger().removeHandler(app_handler)
    assert doc.meta["pdf_warnings"] >= 1  # "incorrect startxref pointer"
    assert not [r for r in seen if r.name.startswith("pypdf")]
    assert capfd.readouterr() == ("", "")


def encrypted_copy(name: str, user_password: str) -> bytes:
    """A real PDF re-saved with AES-256 encryption and an owner password."""
    writer = PdfWriter(clone_from=PdfReader(pdf_dir() / name))
    writer.encrypt(user_password=user_password, owner_password="owner-secret", algorithm="AES-256")
    return pdf_bytes(writer)


def test_aes256_pdf_with_owner_password_only_is_read():
    pytest.importorskip("cryptography", reason="pypdf needs cryptography for AES")
    doc = parse_pdf("copy.pdf", encrypted_copy("en/google-doc-document.pdf", ""))
    assert doc.meta["encrypted"] is True
    assert "Beautiful is better than ugly." in doc.sections[0].text


def test_aes256_pdf_with_user_password_is_skipped():
    pytest.importorskip("cryptography", reason="pypdf needs cryptography for AES")
    with pytest.raises(Skip, match="^encrypted: it opens only with its password; to index it, save a copy "):
        parse_pdf("copy.pdf", encrypted_copy("en/google-doc-document.pdf", "secret"))


def test_a_failing_page_is_recorded_and_the_rest_kept(monkeypatch):
    path = pdf_dir() / "en" / "multicolumn.pdf"
    original = PageObject.extract_text
    calls = []

    def extract_text(self, *args, **kwargs):
        calls.append(1)
        if len(calls) == 2:
            raise KeyError("/Font")
        return original(self, *args, **kwargs)

    monkeypatch.setattr(PageObject, "extract_text", extract_text)
    doc = parse_pdf(str(path), path.read_bytes())
    assert doc.meta["failed_pages"] == [2]
    assert doc.meta["pages_without_text"] == 1
    assert [page for _, page in doc.sections[0].page_starts] == [1, 3]
    assert "Brussels" in doc.sections[0].text and "sociosqu" not in doc.sections[0].text


@pytest.mark.parametrize("data", [b"", b"%PDF-1.4\n garbage", b"plain text, not a PDF"])
def test_unreadable_bytes_raise_value_error(data):
    with pytest.raises(ValueError, match="^unreadable PDF: .+"):
        parse_pdf("broken.pdf", data)


@pytest.mark.parametrize("data,reason", [
    (b"", "an empty file"),
    (b"<!DOCTYPE html>\n<html><body>404 Not Found</body></html>", "not a PDF: it begins b'<!DOCTYPE html>\\n', where a PDF has %PDF-"),
    (b"PK\x03\x04\x14\x00" + bytes(200), "not a PDF: it begins b'PK\\x03\\x04\\x14\\x00"),
])
def test_a_file_named_pdf_that_is_no_pdf_says_so(data, reason):
    """A download that saved an error page or an archive as .pdf: pypdf says 'Stream has ended unexpectedly'."""
    with pytest.raises(ValueError) as raised:
        parse_pdf("paper.pdf", data)
    assert str(raised.value).startswith(f"unreadable PDF: {reason}")


def test_truncated_real_pdf_is_unreadable_or_partial():
    data = (pdf_dir() / "en" / "multicolumn.pdf").read_bytes()
    try:
        doc = parse_pdf("cut.pdf", data[: len(data) // 3])
    except (Skip, ValueError) as exc:
        assert str(exc)
    else:
        assert doc.meta["pages"] >= 1


def test_damaged_copies_of_a_real_pdf_never_raise_anything_else():
    data = (pdf_dir() / "en" / "multicolumn.pdf").read_bytes()
    rnd = random.Random(20240103)
    outcomes = set()
    for _ in range(60):
        damaged = bytearray(data)
        for _ in range(rnd.randint(1, 20)):
            damaged[rnd.randrange(len(damaged))] = rnd.randrange(256)
        if rnd.random() < 0.3:
            damaged = damaged[: rnd.randrange(len(damaged))]
        try:
            parse_pdf("damaged.pdf", bytes(damaged))
            outcomes.add("parsed")
        except Skip as exc:
            outcomes.add(f"skip: {exc}")
        except ValueError as exc:
            assert str(exc).startswith("unreadable PDF: ")
            outcomes.add("unreadable")
    assert "parsed" in outcomes and "unreadable" in outcomes


def test_pdf_without_pages_is_skipped_and_blank_pages_have_no_text_layer():
    """Skipped, not failed: retry-failed listed a PDF of no pages every time, though retrying changes nothing."""
    with pytest.raises(Skip, match=r"^no pages: the PDF holds none \(or its page list is damaged\)$"):
        parse_pdf("zero.pdf", pdf_bytes(PdfWriter()))
    blank = PdfWriter()
    blank.add_blank_page(595, 842)
    with pytest.raises(Skip, match="^no text layer"):
        parse_pdf("blank.pdf", pdf_bytes(blank))


# --- text helpers --------------------------------------------------------------------

def test_nfkc_maps_compatibility_characters():
    assert normalize("\u2f8f") == "行"  # KANGXI RADICAL WALK -> CJK ideograph
    assert normalize("ﬁnden") == "finden"
    assert normalize("ＡＢＣ１２３") == "ABC123"
    assert normalize("a\u00a0b\r\nc\rd") == "a b\nc\nd"


def test_normalize_keeps_full_width_punctuation():
    # NFKC made the marks of a Chinese PDF ASCII: 千万行,查询变慢 in its snippets and read_file pages
    assert normalize("数据量达到千万行，查询变慢：怎么办？（见「附录」）") == "数据量达到千万行，查询变慢：怎么办？（见「附录」）"
    assert normalize("ﬁ，ＡＢ：⾏") == "fi，AB：行"
    # half-width katakana and its half-width marks are widened together, as NFKC does: 'テスト｡｢ガ｣' kept ｡｢｣
    assert normalize("ﾃｽﾄ｡｢ｶﾞ｣､ｱ･ｲ") == "テスト。「ガ」、ア・イ"


@pytest.mark.parametrize("raw,clean", [
    ("exam-\nple", "example"),
    ("dan- \n  gerous", "dangerous"),
    ("Über-\nsetzung", "Übersetzung"),
    ("co-\nop-\neration", "cooperation"),
    ("exam\u00ad\nple", "example"),  # soft hyphen
    ("retriev\u2010\nal", "retrieval"),  # U+2010 HYPHEN, as LuaTeX and XeTeX map it (NFKC keeps it)
    ("Schwarz-\nWeiß", "Schwarz-\nWeiß"),  # capital after: a compound, kept
    ("X-\nray", "X-\nray"),  # capital before
    ("2013-\n2014", "2013-\n2014"),  # digits
    ("a - \nb", "a - \nb"),  # a dash, not a hyphen
    ("no break-here", "no break-here"),
])
def test_dehyphenate(raw, clean):
    assert dehyphenate(raw) == clean


@given(st.text("abcdefghijklmnopqrstuvwxyzäöüß", min_size=1, max_size=12),
       st.text("abcdefghijklmnopqrstuvwxyzäöüß", min_size=1, max_size=12))
def test_dehyphenate_joins_any_lowercase_pair(left, right):
    assert dehyphenate(f"{left}-\n{right}") == left + right
    assert dehyphenate(f"{left}-\n{right.upper()}") == f"{left}-\n{right.upper()}"


def test_tidy_whitespace():
    assert tidy_whitespace("  THE   SIEGE \t OF  \n\n\n\n  VICKSBURG. \n") == "THE SIEGE OF\n\nVICKSBURG."
    assert tidy_whitespace("a\x00b\x0cc") == "abc"


def test_clean_text_runs_all_steps():
    assert clean_text(" ﬁnd-\nings  of   the\n\n\n⾏ study ") == "findings of the\n\n行 study"


# --- hostile PDFs made here ------------------------------------------------------------

def raw_pdf(objects: list[bytes]) -> bytes:
    """A PDF of these objects (numbered from 1, the first the catalog) with a correct xref table."""
    out, offsets = bytearray(b"%PDF-1.7\n"), []
    for number, body in enumerate(objects, 1):
        offsets.append(len(out))
        out += b"%d 0 obj\n%s\nendobj\n" % (number, body)
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % offset for offset in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, xref)
    return bytes(out)


def pages_sharing_one_stream(pages: int, content: bytes) -> bytes:
    """``pages`` pages that all draw the same (compressed) content stream: a few KB of file, any amount of work."""
    packed = zlib.compress(content, 9)
    kids = b" ".join(b"%d 0 R" % (5 + i) for i in range(pages))
    return raw_pdf([b"<< /Type /Catalog /Pages 2 0 R >>",
                    b"<< /Type /Pages /Kids [%s] /Count %d >>" % (kids, pages),
                    b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
                    b"<< /Length %d /Filter /FlateDecode >>\nstream\n%s\nendstream" % (len(packed), packed)]
                   + [b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R "
                      b"/Resources << /Font << /F1 3 0 R >> >> >>"] * pages)


@pytest.mark.timeout(120)
def test_a_pdf_that_would_take_hours_to_extract_fails_once_over_its_time(monkeypatch):
    """70 KB of file: 400 pages drawing one stream that inflates to 2 MB of text operators, hours of pypdf's
    work. Its extraction stops at PDF_SECONDS, inside a page, and the file fails with the reason."""
    line = b"BT /F1 12 Tf 72 700 Td (" + b"A" * 60 + b") Tj ET\n"
    data = pages_sharing_one_stream(400, line * (2 * 1024 * 1024 // len(line)))
    assert len(data) < 100 * 1024
    monkeypatch.setattr(pdf, "PDF_SECONDS", 2.0)
    with pytest.raises(ValueError, match=r"^PDF text extraction stopped after 2 s, at page [12] of 400: "):
        parse_pdf("bomb.pdf", data)  # page 1 or 2, as fast as the machine is then: either is inside the file's work


def test_a_pdf_with_more_text_than_a_file_may_hold_is_skipped(monkeypatch):
    """Compressed text can be far larger than the file: the text kept from one PDF is bounded as a text file is."""
    data = pages_sharing_one_stream(50, b"BT /F1 12 Tf 72 700 Td (" + b"word " * 200 + b") Tj ET\n")
    monkeypatch.setattr(pdf, "MAX_TEXT_CHARS", 5_000)
    with pytest.raises(Skip, match=r"^more than 5,000 characters of text \(passed on page 6 of 50\)"):
        parse_pdf("long.pdf", data)
    monkeypatch.setattr(pdf, "MAX_TEXT_CHARS", 60_000)
    assert parse_pdf("long.pdf", data).meta["pages"] == 50



def test_pypdf_warnings_of_a_file_are_counted_without_keeping_each(monkeypatch):
    """pypdf logs a warning per operator it works around ('/X9 Do' of a missing form: one each time): every
    message was kept in a list while the file was read, 600,000 for 300,000 such operators on two pages, hundreds
    of MB within PDF_SECONDS. Now a file's warnings are a count and the first message."""
    content = b"BT /F1 12 Tf 72 700 Td (kept words) Tj ET\n" + b"/X9 Do\n" * 20_000
    doc = parse_pdf("warned.pdf", pages_sharing_one_stream(2, content))
    assert doc.meta["pdf_warnings"] == 40_000 and "kept words" in doc.sections[0].text

    pypdf_log = logging.getLogger("pypdf._page")
    monkeypatch.setattr(logging.getLogger("pypdf"), "handlers", [pdf._warnings])  # as in a worker: not pytest's
    tracemalloc.start()
    try:
        with pdf._warnings.collect() as bucket:
            for i in range(100_000):
                pypdf_log.warning("Impossible to decode XFormObject /X%d", i)
            held, _ = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert held < 1_000_000, f"{held:,} bytes held for 100,000 warnings"
    assert (bucket.count, bucket.first) == (100_000, "Impossible to decode XFormObject /X0")


@pytest.mark.timeout(300)
def test_the_inflated_streams_of_a_page_are_let_go_once_its_text_is_read():
    """pypdf keeps the inflated bytes of every stream it has read for as long as the reader lives: 25 pages each
    drawing its own stream of 70 MB (1.7 MB of file) took 1.8 GB by the last page. Only one page's are held now."""
    packed = zlib.compress(b"% " + b"A" * 8_000_000 + b"\nBT /F1 12 Tf 72 700 Td (kept) Tj ET\n", 9)
    pages = 8
    objects = [b"<< /Type /Catalog /Pages 2 0 R >>",
               b"<< /Type /Pages /Kids [%s] /Count %d >>" % (b" ".join(b"%d 0 R" % (4 + 2 * i) for i in range(pages)), pages),
               b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>"]
    for i in range(pages):
        objects.append(b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents %d 0 R "
                       b"/Resources << /Font << /F1 3 0 R >> >> >>" % (5 + 2 * i))
        objects.append(b"<< /Length %d /Filter /FlateDecode /Page %d >>\nstream\n%s\nendstream" % (len(packed), i, packed))
    data = raw_pdf(objects)
    tracemalloc.start()
    try:
        doc = parse_pdf("streams.pdf", data)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert doc.meta["pages"] == pages and doc.sections[0].text.count("kept") == pages
    assert peak < 3 * 8_000_000, f"peak {peak:,} bytes"


def pages_of_lines(pages: list[list[str]]) -> bytes:
    """A PDF whose pages draw the given lines, one under the other."""
    n = len(pages)
    kids = b" ".join(b"%d 0 R" % (4 + 2 * i) for i in range(n))
    objects = [b"<< /Type /Catalog /Pages 2 0 R >>", b"<< /Type /Pages /Kids [%s] /Count %d >>" % (kids, n),
               b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>"]
    for i, lines in enumerate(pages):
        content = b"BT /F1 12 Tf 14 TL 72 750 Td " + b"".join(b"(%s) ' " % line.encode() for line in lines) + b"ET"
        objects += [b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents %d 0 R "
                    b"/Resources << /Font << /F1 3 0 R >> >> >>" % (5 + 2 * i),
                    b"<< /Length %d >>\nstream\n%s\nendstream" % (len(content), content)]
    return raw_pdf(objects)


def test_running_headers_and_page_numbers_are_left_out_of_the_text():
    """A journal's title at the top of every page and its page number at the bottom were indexed with every page:
    a search for the title's words matched them all, and passages ran through them. Left out: a line repeated at
    the edge of most pages, and a first or last line whose number goes up with the pages (41, 42 …: 'vii' too);
    a number inside the text, or one on a line of text, stays."""
    body = [["Abstract", "Sparse retrieval scores terms.", "12 methods were compared on the test set."],
            ["Dense retrieval embeds passages.", "Table 3 lists them."],
            ["Hybrid ranking fuses both lists.", "Results in section 4"],
            ["We conclude that fusion helps.", "References follow"]]
    pages = [["Journal of Retrieval Studies, vol. 7 (2026)", *lines, str(41 + i)] for i, lines in enumerate(body)]
    pages[0][0:1] = ["A Study of Fusion"]  # the title page has no running header
    doc = parse_pdf("paper.pdf", pages_of_lines(pages))
    texts = doc.sections[0].text.split("\n\n")
    assert texts == ["A Study of Fusion\n" + "\n".join(body[0])] + ["\n".join(lines) for lines in body[1:]]
    assert [page for _, page in doc.sections[0].page_starts] == [1, 2, 3, 4]


def test_a_word_hyphenated_across_a_page_break_is_joined_on_its_first_page():
    """'dense retriev-' ending page 1 (above its page number) and 'al works well' beginning page 2: each page was
    cleaned alone, so 'retrieval' was in neither. The word is joined at the end of page 1; a capital after the
    hyphen (a compound, 'black-and-' / 'Grey') stays as it is."""
    pages = [["Sparse and dense retriev-", "1"], ["al works well. Some black-and-", "2"], ["Grey is a name here.", "3"]]
    doc = parse_pdf("paper.pdf", pages_of_lines(pages))
    assert doc.sections[0].text.split("\n\n") == ["Sparse and dense retrieval", "works well. Some black-and-",
                                                  "Grey is a name here."]
    assert [page for _, page in doc.sections[0].page_starts] == [1, 2, 3]


def test_a_page_number_under_a_running_header_and_a_blank_line_is_left_out_too():
    """With the header gone, the blank line under it was the page's first line, so the page number below that
    was no longer at the page's top and stayed in the text."""
    texts = ["A Title Page", "Journal X\n\nvii\nbody a", "Journal X\n\nviii\nbody b", "Journal X\n\nix\nbody c"]
    assert pdf.without_running_lines(texts) == ["A Title Page", "body a", "body b", "body c"]


def test_a_short_papers_running_header_and_page_numbers_are_left_out_too():
    """A 3-page paper's running header is on pages 2 and 3 (its title page has none), and a report with a
    scanned page between its two pages of text numbers them 1 and 3: under RUNNING_PAGES (3) pages they stayed,
    in snippets ('annual balance. 1 Field Report …') and passages. A line at the edge of every page with text
    but the first, and a line that is the page's number alone on every page with text, are left out; a
    section's number at the top of a page of two ('1 Introduction', '2 Methods') is text."""
    header = "Okafor and Weber - Small Embedding Models"
    paper = [["Evaluating Small Embedding Models", "We test six models.", "1"],
             [header, "Quantisation cost less than half a point.", "2"],
             [header, "Negation remains the main weakness.", "3"]]
    assert parse_pdf("okafor.pdf", pages_of_lines(paper)).sections[0].text.split("\n\n") == [
        "Evaluating Small Embedding Models\nWe test six models.", "Quantisation cost less than half a point.",
        "Negation remains the main weakness."]
    report = [["Glacier Retreat in Jotunheimen", "Stake readings were taken at twelve stakes.", "1"], [],
              ["Storbreen retreated faster than any other glacier.", "3"]]
    doc = parse_pdf("report.pdf", pages_of_lines(report))
    assert doc.sections[0].text.split("\n\n") == ["Glacier Retreat in Jotunheimen\nStake readings were taken at "
                                                  "twelve stakes.", "Storbreen retreated faster than any other glacier."]
    assert [page for _, page in doc.sections[0].page_starts] == [1, 3]
    sections = [["1 Introduction", "Text of the introduction."], ["2 Methods", "Text of the methods."]]
    assert parse_pdf("two.pdf", pages_of_lines(sections)).sections[0].text.split("\n\n") == [
        "1 Introduction\nText of the introduction.", "2 Methods\nText of the methods."]


def test_a_compounds_hyphen_at_a_line_end_is_kept_and_a_broken_words_is_not():
    """TeX breaks a line at a compound's own hyphen too: 'structure-' / 'aware' was indexed as 'structureaware'
    and 'state-of-the-' / 'art' as 'state-of-theart', which neither 'structure aware' nor 'state of the art'
    finds. The hyphen is kept (the line break gone) after a word holding a hyphen already, and for a compound
    the document writes with its hyphen on one line; 'retriev-' / 'al' is still 'retrieval'."""
    assert dehyphenate("state-of-the-\nart") == "state-of-the-art"
    assert dehyphenate("structure-\naware") == "structureaware"  # nothing says it is a compound
    assert dehyphenate("structure-\naware", frozenset({"structure-aware"})) == "structure-aware"
    assert dehyphenate("structure\u00ad\naware", frozenset({"structure-aware"})) == "structureaware"  # soft
    pages = [["Structure-aware chunking follows the headings.", "We compare structure-",
              "aware sections with state-of-the-", "art models and dense retriev-", "al baselines on long structure-"],
             ["aware reports, both fine-", "tuned."]]
    text = parse_pdf("paper.pdf", pages_of_lines(pages)).sections[0].text
    assert text.split("\n\n") == [
        "Structure-aware chunking follows the headings.\nWe compare structure-aware sections with "
        "state-of-the-art models and dense retrieval baselines on long structure-aware", "reports, both finetuned."]


def test_a_word_broken_after_a_compounds_hyphen_is_joined_where_the_document_writes_it_whole():
    """After a word holding a hyphen, a line-end hyphen was always kept: 'non-deter-' / 'ministic' (a word
    processor breaks inside a compound) was indexed as 'non deter ministic', which 'deterministic' does not find.
    Where the document writes the joined word whole, the break is a word's and is joined, across a page too;
    'state-of-the-' / 'art' keeps its hyphen ('theart' is no word of it)."""
    pages = [["Deterministic replay needs every input logged, and supervised runs too.",
              "Our runs are non-deter-", "ministic, but self-super-"],
             ["vised, unlike state-of-the-", "art models, and non-deter-"], ["ministic again."]]
    text = parse_pdf("paper.pdf", pages_of_lines(pages)).sections[0].text
    assert text.split("\n\n") == [
        "Deterministic replay needs every input logged, and supervised runs too.\nOur runs are non-deterministic, "
        "but self-supervised,", "unlike state-of-the-art models, and non-deterministic", "again."], text


@pytest.mark.parametrize("label", ["{n}/{total}", "{n} / {total}", "Page {n} of {total}"])
def test_a_slide_decks_footer_with_the_count_of_pages_is_left_out(label):
    """A lecture's slides end each page with the course, the lecture and 'n/N' ('IR701 Spring 2026 - Lecture 3
    4/10'): the line ends in the count of pages, the same on every page, so it was never read as a page number,
    and every slide's text, every passage and snippet of the deck, carried it. It is left out, on the title
    slide too; a page's own text ending in a fraction stays, as does a page label alone ('Page 2 of 5') within
    the text."""
    slides = [["Lecture 2: Regularisation", "ML650 Machine Learning"], ["Overfitting", "Train error low"],
              ["L1 penalty", "Lasso gives sparse weights"], ["Dropout", "Keep units with probability 1/2"],
              ["Early stopping", "Watch the validation loss"]]
    footer = "ML650 - Lecture 2 " + label
    pages = [[*lines, footer.format(n=i + 1, total=len(slides))] for i, lines in enumerate(slides)]
    doc = parse_pdf("lecture02.pdf", pages_of_lines(pages))
    assert doc.sections[0].text.split("\n\n") == ["\n".join(lines) for lines in slides]
    alone = [[*lines, label.format(n=i + 1, total=len(slides))] for i, lines in enumerate(slides)]
    doc = parse_pdf("lecture02.pdf", pages_of_lines(alone))
    assert doc.sections[0].text.split("\n\n") == ["\n".join(lines) for lines in slides]


def page_of_content(content: str) -> bytes:
    """A one-page PDF drawing ``content`` (PDF operators) in Times-Roman as /F1."""
    return raw_pdf([b"<< /Type /Catalog /Pages 2 0 R >>", b"<< /Type /Pages /Kids [4 0 R] /Count 1 >>",
                    b"<< /Type /Font /Subtype /Type1 /BaseFont /Times-Roman >>",
                    b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 5 0 R "
                    b"/Resources << /Font << /F1 3 0 R >> >> >>",
                    b"<< /Length %d >>\nstream\n%s\nendstream" % (len(content), content.encode())])


def test_a_footnote_mark_raised_after_a_word_is_set_apart_from_it():
    """A paper's footnote mark, a smaller '1' raised after 'retrieval' (as pdfTeX and Word draw it), came out of
    pypdf glued to the word, 'retrieval1' or 'retrieval1works': one word that a search for 'retrieval' or 'works'
    did not find; so did the footnote's own mark before its first word, '2Code'. Set apart, after a word in
    capitals too ('MARCO2': MS MARCO's footnote); a digit drawn at the body's size after a letter ('k1'), a number
    inside a word ('model1024') and a subscript drawn lower ('PSL2(R)') stay as they are."""
    content = ("BT /F1 10 Tf 72 700 Td (Dense retrieval) Tj 0 4 Td /F1 6 Tf (1) Tj 3 -4 Td /F1 10 Tf "
               "(works well with k1 = 1.2 on model1024 and passages) Tj /F1 6 Tf 4 Ts (2) Tj "
               "/F1 10 Tf 0 Ts ( too, not PSL) Tj "
               "0 -3 Td /F1 6 Tf (2) Tj 3 3 Td /F1 10 Tf (\\(R\\) nor MARCO) Tj /F1 6 Tf 4 Ts (2) Tj ET "
               "BT /F1 6 Tf 72 100 Td (2) Tj /F1 8 Tf (Code at example.org) Tj ET")
    text = parse_pdf("paper.pdf", page_of_content(content)).sections[0].text
    assert text == ("Dense retrieval 1 works well with k1 = 1.2 on model1024 and passages 2 too, "
                    "not PSL2(R) nor MARCO 2\n2 Code at example.org")


def test_a_footnote_mark_after_a_word_in_capitals_is_set_apart_but_not_after_a_symbol():
    """A mark raised after a word in capitals ('TREC', 'MARCO') stayed glued to it, 'TREC3': a search for TREC
    missed the sentence. Set apart; a raised digit after one to three capitals ('R2', 'L2', a triangle's 'ABC2'),
    after a capital ending a word of small letters ('idRSA2'), a raised '0' (an angle's degrees, 'RQPO0': no
    footnote is numbered 0) and one after a number ('7' and a raised '2', a power) stay as they are (in the shared
    German script, 'RQP0', 'ABC0' and '72' were set apart by a first try)."""
    def raised(mark: str) -> str:
        return f"/F1 6 Tf 4 Ts ({mark}) Tj /F1 10 Tf 0 Ts "
    content = ("BT /F1 10 Tf 72 700 Td (The pools of TREC) Tj " + raised("3") + "( were judged, with R) Tj "
               + raised("2") + "( near 1, L) Tj " + raised("2") + "( norms on idRSA) Tj " + raised("2")
               + "(, ABC) Tj " + raised("2") + "( and RQPO) Tj " + raised("0") + "( in 7) Tj " + raised("2")
               + "( ways.) Tj ET BT /F1 6 Tf 72 100 Td (3) Tj /F1 8 Tf ( Text REtrieval Conference.) Tj ET")
    text = parse_pdf("paper.pdf", page_of_content(content)).sections[0].text
    assert text.split("\n")[0] == ("The pools of TREC 3 were judged, with R2 near 1, L2 norms on idRSA2, ABC2 and "
                                   "RQPO0 in 72 ways."), text


def test_a_footnote_mark_sets_apart_only_the_words_it_is_drawn_beside():
    """A page's footnote marks ('1', '2' drawn small) were set apart wherever the page's text glued one to a word:
    'python3' and 'ipv4' in the body, drawn at its size, became 'python 3' and 'ipv 4', and a line starting '2nd'
    '2 nd', words a search for 'python3' or '2nd' no longer found. Only the word a mark is drawn after (or, for a
    footnote's own mark, before) is set apart from it."""
    content = ("BT /F1 10 Tf 72 700 Td (Dense retrieval) Tj 0 4 Td /F1 6 Tf (1) Tj 3 -4 Td /F1 10 Tf "
               "( runs on python3 and ipv4 hosts) Tj ET "
               "BT /F1 10 Tf 72 680 Td (2nd edition of the corpus) Tj ET "
               + "".join(f"BT /F1 6 Tf 72 {100 - 10 * n} Td ({n}) Tj /F1 8 Tf (Note {n}) Tj ET " for n in (1, 2, 3, 4)))
    text = parse_pdf("paper.pdf", page_of_content(content)).sections[0].text
    assert text == "Dense retrieval 1 runs on python3 and ipv4 hosts\n2nd edition of the corpus\n" + "\n".join(
        f"{n} Note {n}" for n in (1, 2, 3, 4)), text


def test_a_title_pages_line_ending_in_a_count_of_its_own_stays():
    """A line ending in 'n of N' or 'n/N' was taken for the page's label on the first page too when n fit the
    running page numbers, whatever N was: a report's title page ending 'Annual report, volume 1 of 2' lost that
    line, though its pages number themselves '2' to '5'. A count is a page label's when the pages' labels carry it."""
    pages = [["Annual report", "Annual report, volume 1 of 2"], *([f"Chapter {i}", "Revenue grew", str(i + 1)]
                                                                  for i in range(1, 5))]
    text = parse_pdf("report.pdf", pages_of_lines(pages)).sections[0].text
    assert text.split("\n\n")[0] == "Annual report\nAnnual report, volume 1 of 2", text
    assert "\n5" not in text and not text.rstrip().endswith("5"), text


def cjk_pages(pages: list[list[str]]) -> bytes:
    """A PDF whose pages draw the given lines (Chinese and any other text), one under the other, in a Type0 font
    as a CJK font's subset is drawn (Identity-H: each character a two-byte CID), its text given by the font's
    ToUnicode map alone, no glyph embedded."""
    chars = sorted({ch for lines in pages for line in lines for ch in line})
    cid = {ch: i + 1 for i, ch in enumerate(chars)}
    blocks = "".join(f"{len(part)} beginbfchar\n" + "".join(
        f"<{cid[ch]:04X}> <{ch.encode('utf-16-be').hex().upper()}>\n" for ch in part) + "endbfchar\n"
        for part in (chars[i:i + 100] for i in range(0, len(chars), 100)))
    cmap = ("/CIDInit /ProcSet findresource begin 12 dict begin begincmap /CIDSystemInfo << /Registry (Adobe) "
            "/Ordering (UCS) /Supplement 0 >> def /CMapName /Adobe-Identity-UCS def /CMapType 2 def\n"
            "1 begincodespacerange <0000> <FFFF> endcodespacerange\n" + blocks +
            "endcmap CMapName currentdict /CMap defineresource pop end end").encode()
    n = len(pages)
    kids = b" ".join(b"%d 0 R" % (6 + 2 * i) for i in range(n))
    objects = [b"<< /Type /Catalog /Pages 2 0 R >>", b"<< /Type /Pages /Kids [%s] /Count %d >>" % (kids, n),
               b"<< /Type /Font /Subtype /Type0 /BaseFont /WenQuanYiMicroHei /Encoding /Identity-H "
               b"/DescendantFonts [4 0 R] /ToUnicode 5 0 R >>",
               b"<< /Type /Font /Subtype /CIDFontType2 /BaseFont /WenQuanYiMicroHei /CIDSystemInfo << /Registry "
               b"(Adobe) /Ordering (Identity) /Supplement 0 >> /DW 1000 /CIDToGIDMap /Identity >>",
               b"<< /Length %d >>\nstream\n%s\nendstream" % (len(cmap), cmap)]
    for i, lines in enumerate(pages):
        shown = "".join(f"<{''.join(f'{cid[ch]:04X}' for ch in line)}> ' " for line in lines)
        content = f"BT /F1 10 Tf 14 TL 40 780 Td {shown}ET".encode()
        objects += [b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Contents %d 0 R "
                    b"/Resources << /Font << /F1 3 0 R >> >> >>" % (7 + 2 * i),
                    b"<< /Length %d >>\nstream\n%s\nendstream" % (len(content), content)]
    return raw_pdf(objects)


@pytest.mark.parametrize("label", ["第 {n} 页 共 {of} 页", "第{n}页/共{of}页", "第 {n} 頁，共 {of} 頁", "第 {n} 页",
                                   "— {n} —", "- {n} -", "共 {of} 页 第 {n} 页"])
def test_a_chinese_page_label_is_left_out_as_running_footer(label):
    """A Chinese paper's footer, '第 3 页 共 10 页' (page 3 of 10), '第 3 頁，共 10 頁', '第 3 页', or the number
    between dashes, '— 3 —', carries the page's number inside the label's words: read as no page number, it was
    indexed with every page, shown in snippets ('…的电影”。 第 1 页 共 3 页') and ran through passages."""
    body = [["混合检索方法研究", "稀疏检索擅长精确匹配专有名词。"], ["稠密检索能够捕捉语义相似性。", "倒数排序融合只依赖排名。"],
            ["实验在两个数据集上进行。"], ["本文验证了混合检索的有效性。"]]
    pages = [lines + [label.format(n=i + 1, of=len(body))] for i, lines in enumerate(body)]
    texts = [section.text for section in parse_pdf("论文.pdf", cjk_pages(pages)).sections]
    assert texts == ["\n\n".join("\n".join(lines) for lines in body)], texts


def test_a_two_page_chinese_papers_page_labels_are_left_out():
    """A paper of two pages numbers them '第 1 頁，共 2 頁' and '第 2 頁，共 2 頁': fewer than the three pages a
    running footer is otherwise looked for on, its count of pages names them page labels."""
    body = [["繁體中文斷詞之條件隨機場方法", "本研究以條件隨機場進行繁體中文斷詞。"], ["三、實驗結果", "本方法的精確率為 95.8%。"]]
    pages = [lines + [f"第 {i + 1} 頁，共 2 頁"] for i, lines in enumerate(body)]
    text = parse_pdf("斷詞.pdf", cjk_pages(pages)).sections[0].text
    assert text == "\n\n".join("\n".join(lines) for lines in body), text


def test_a_slide_deck_is_a_passage_a_slide():
    """A deck of ten short slides, its footers left out, fitted one passage: a slide's words were diluted by the
    nine others' (a question about one ranked the deck lower) and a hit by meaning named pages 1-10. A PDF of wide
    pages (as shown, /Rotate read) with few words on each is cut a section a page; the same pages tall, or wide pages
    of a page's worth of prose, stay one section."""
    slides = [[f"Slide {n}: {topic}", f"{topic} in two short lines of bullet text"]
              for n, topic in enumerate(["Precision", "Recall", "MAP", "nDCG", "Pooling", "Agreement", "Tests",
                                         "Clicks", "Bias", "Summary"], start=1)]
    tall = pages_of_lines(slides)
    wide = tall.replace(b"/MediaBox [0 0 612 792]", b"/MediaBox [0 0 792 612]")
    turned = tall.replace(b"/MediaBox [0 0 612 792]", b"/Rotate 90 /MediaBox [0 0 612 792]")
    for pdf in (wide, turned):
        doc = parse_pdf("lecture05.pdf", pdf)
        assert [(s.page, s.end_page, s.text) for s in doc.sections] == [
            (n, n, "\n".join(lines)) for n, lines in enumerate(slides, start=1)]
        chunks = chunk_document(doc, plain_count, 256, 32)
        assert [(c.page, c.end_page) for c in chunks] == [(n, n) for n in range(1, 11)]
    assert len(parse_pdf("handout.pdf", tall).sections) == 1
    prose = [[" ".join(["words of a long page of prose"] * 20)] for _ in range(4)]
    assert len(parse_pdf("report.pdf", pages_of_lines(prose).replace(b"0 612 792]", b"0 792 612]")).sections) == 1
