"""Edge cases of the wiki export readers (ingest.webpage, ingest.table) found in review: each lost text a user
had written."""
from __future__ import annotations

import pytest

from ingest.parse import parse_file

PAGE = ("<!DOCTYPE html>\n<html><head><title>Runbook</title></head>\n<body>\n{empty}\n<h1>Failover</h1>\n"
        "<p>Promote the replica in eu-west first.</p>\n</body></html>\n")


@pytest.mark.parametrize("empty", ['<div class="sidebar"/>', '<nav id="menu" />', '<iframe src="video.html"/>',
                                   '<script src="app.js"/>', "<svg><svg/></svg>"])
def test_a_page_goes_on_after_a_skipped_element_written_self_closed(empty):
    """An XHTML export's empty sidebar, menu, iframe or script written self-closed ('<div class="sidebar"/>') was
    taken as opened and never closed: everything after it was skipped as navigation, and the page had no text."""
    doc = parse_file("Runbook.html", PAGE.format(empty=empty).encode())
    assert (doc.kind, doc.title) == ("note", "Runbook")
    assert [(s.heading_path, s.text) for s in doc.sections] == [
        (["Failover"], "Failover\nPromote the replica in eu-west first.")]


def test_a_page_whose_head_has_an_empty_title_written_self_closed_is_titled_by_its_heading():
    """'<title/>' in the <head>: the title was taken as open until the page's end, every word of the body went into
    it and the page had no text."""
    doc = parse_file("Runbook.html", PAGE.replace("<title>Runbook</title>", "<title/>").format(empty="").encode())
    assert doc.title == "Failover"
    assert [s.text for s in doc.sections] == ["Failover\nPromote the replica in eu-west first."]


@pytest.mark.parametrize("name, sep", [("tweets.tsv", "\t"), ("tweets.csv", ",")])
def test_a_quote_never_closed_holds_no_row_after_it(name, sep):
    """A cell opened with a quote that never closes ('"so good' in a TSV of tweets) held every line after it as one
    cell, cut at 2,000 characters: the rows after it were lost (of 200, 3 left). Rows before it are read as
    quoted (a cell's tab or line break kept), the rest with the quote as a plain mark, each at its line."""
    rows = [f"row{i}{sep}" + ('"so good' if i == 2 else "tweet") + f" number {i} about the launch" for i in range(200)]
    rows[1] = f'row1{sep}"a quoted{sep}cell\nover two lines"'
    doc = parse_file(name, ("Id" + sep + "Text\n" + "\n".join(rows) + "\n").encode())
    assert len(doc.sections) == 200
    assert (doc.sections[1].start_line, doc.sections[1].end_line) == (3, 4)
    assert doc.sections[1].text == f"row1 | a quoted{sep}cell over two lines".replace("\t", " ")
    assert [(s.start_line, s.end_line) for s in doc.sections[2:4]] == [(5, 5), (6, 6)]
    assert doc.sections[2].text == 'row2 | "so good number 2 about the launch'
    assert doc.sections[-1].text == "row199 | tweet number 199 about the launch"
    assert doc.sections[-1].start_line == 202
    # past the csv module's field limit (128 KiB) the whole file was refused: 'not a readable TSV table'
    rows += [f"row{i}{sep}tweet number {i} about the launch" for i in range(200, 5000)]
    doc = parse_file(name, ("Id" + sep + "Text\n" + "\n".join(rows) + "\n").encode())
    assert len(doc.sections) == 5000
    assert (doc.sections[-1].start_line, doc.sections[-1].text) == (
        5002, "row4999 | tweet number 4999 about the launch")


def test_a_csv_of_excel_in_a_european_locale_is_read_by_its_semicolons():
    """Excel writes 'Name;Assignee;Status' where a comma is the decimal mark: read with commas, a row was one cell
    ('Book venue;Lin;Open') and a decimal comma split it, so a file of readings was no data file (past 10,000 rows it
    was skipped as 'a data set, not notes'). Its 'sep=;' first line, when written, says so itself."""
    tasks = parse_file("Tasks.csv", b"Name;Assignee;Status\nBook venue;Lin;Open\n\"Plan, then book\";Bo;Done\n")
    assert tasks.meta == {"columns": "Name | Assignee | Status", "data": False}
    assert [(s.start_line, s.text) for s in tasks.sections] == [
        (2, "Book venue | Lin | Open"), (3, "Plan, then book | Bo | Done")]
    readings = parse_file("readings.csv", b"sep=;\nt;temperature;pressure\n1;20,5;1013,2\n2;21,0;1012,8\n")
    assert readings.meta == {"columns": "t | temperature | pressure", "data": True, "rows": 2, "more_rows": False}
    assert [(s.start_line, s.text) for s in readings.sections] == [(3, "1 | 20,5 | 1013,2"), (4, "2 | 21,0 | 1012,8")]
    # a comma-separated table whose header holds a semicolon stays comma-separated
    notes = parse_file("notes.csv", b"Name,Notes; misc\nA,b; c\n")
    assert (notes.meta["columns"], notes.sections[0].text) == ("Name | Notes; misc", "A | b; c")
    quoted = parse_file("notes.csv", b'"Notes; misc; more",Owner\n"a;b;c",Lin\n')
    assert (quoted.meta["columns"], quoted.sections[0].text) == ("Notes; misc; more | Owner", "a;b;c | Lin")


def test_a_table_of_its_header_alone_or_after_blank_lines_is_read(embedder):
    """A CSV of its column names alone (a tracker not filled in yet, or one line of values) was no passage: the file
    was counted searchable and no search found it. Blank lines before the header were taken for an empty header,
    and the column names for a row."""
    from ingest.chunk import chunk_document
    doc = parse_file("Hiring tracker.csv", b"Candidate,Interviewer,Stage,Offer\n")
    assert [(s.start_line, s.text) for s in doc.sections] == [(1, "Candidate | Interviewer | Stage | Offer")]
    chunks = chunk_document(doc, embedder.count, 256, 32)
    assert [c.text for c in chunks] == ["Candidate | Interviewer | Stage | Offer"]
    later = parse_file("Tasks.csv", b"\n\r\nName,Assignee\nBook venue,Lin\n")
    assert later.meta["columns"] == "Name | Assignee"
    assert [(s.start_line, s.text) for s in later.sections] == [(4, "Book venue | Lin")]


def test_a_page_beside_a_pdf_of_its_name_is_no_change_at_the_next_scan(immediate, tmp_path, monkeypatch):
    """A saved HTML page beside the PDF of its name (paper.html, paper.pdf: the HTML version of a paper) was parsed
    as a note holding the PDF as its attachment, where the scan pairs a PDF with its Markdown conversion alone: each
    scan found the page 'changed' (an attachment it was parsed with, none as the walk saw it) and published a
    generation reading it again. It holds no attachment, as the walk says, and a scan finds nothing changed."""
    from tests.conftest import ingest, write_tree
    from tests.test_read_file import pages_pdf
    monkeypatch.setenv("SIFT_EMBEDDINGS", "off")
    root = write_tree(tmp_path / "papers", {"paper.html": PAGE.format(empty="")})
    (root / "paper.pdf").write_bytes(pages_pdf([["Replica failover in practice"]]))
    first = ingest(root, "papers")
    assert first["files"] == 2 and not first["published"]["failures"], first
    again = ingest(root, "papers")
    assert again["published"]["id"] == first["published"]["id"], "a scan of nothing changed makes no generation"


def test_a_page_with_no_title_nor_heading_is_titled_by_its_name_as_a_note_is():
    """A page without <title> or <h1> was titled by its file name whole, '.html' and Notion's id with it
    ('Roadmap 3f2a….html'), where a note is titled 'Roadmap'."""
    doc = parse_file("Wiki/Roadmap 3f2a1b0c9d8e7f6a5b4c3d2e1f0a9b8c.html",
                     b"<!DOCTYPE html><html><body><p>Q4: billing migration.</p></body></html>")
    assert doc.title == "Roadmap"
    assert parse_file("saved.page.htm", b"<html><body><h2>Notes</h2><p>x</p></body></html>").title == "saved.page"


@pytest.mark.parametrize("start", ['<html lang="en" class="light sidebar-visible">\n<body>',  # mdBook
                                   '<html>\n<body class="wy-body-for-nav">',  # Sphinx's Read the Docs theme
                                   '<html>\n<body>\n<main class="has-sidebar">'])
def test_a_page_whose_html_or_body_class_names_a_sidebar_is_read(start):
    """mdBook writes <html class="light sidebar-visible">, Read the Docs <body class="wy-body-for-nav">: a class word
    naming navigation took the whole page for navigation, and it was read as no text (1,087 of the 2,989 whole
    HTML pages on this machine: every page of Rust's books). The elements holding the page are never skipped so."""
    page = (f"<!DOCTYPE html>\n{start}\n<nav class=\"sidebar\"><h2>Contents</h2></nav>\n<h1>Failover</h1>\n"
            "<p>Promote the replica in eu-west first.</p>\n</body></html>\n")
    doc = parse_file("book/failover.html", page.encode())
    assert [(s.heading_path, s.text) for s in doc.sections] == [
        (["Failover"], "Failover\nPromote the replica in eu-west first.")]


RTD = """<!DOCTYPE html>
<html class="writer-html5" lang="en">
<head><title>Install — Proj docs</title></head>
<body class="wy-body-for-nav">
  <div class="wy-grid-for-nav">
    <nav data-toggle="wy-nav-shift" class="wy-nav-side"><div class="wy-side-scroll"><ul><li>Home</li></ul></div></nav>
    <section data-toggle="wy-nav-shift" class="wy-nav-content-wrap">
      <nav class="wy-nav-top" aria-label="Mobile navigation menu"><a href="index.html">Proj</a></nav>
      <div class="wy-nav-content">
        <div class="rst-content">
          <div role="navigation" aria-label="Page navigation"><ul class="wy-breadcrumbs"><li>Docs</li></ul></div>
          <div role="main" class="document" itemscope="itemscope">
            <section id="install"><h1>Install</h1><p>Run pip install proj.</p></section>
          </div>
          <footer><p>Built with Sphinx</p></footer>
        </div>
      </div>
    </section>
  </div>
</body></html>
"""


def test_the_main_content_inside_what_class_words_took_for_navigation_is_read():
    """Read the Docs' theme holds the whole page in <div class="wy-grid-for-nav">, its text in <div
    class="wy-nav-content">: taken for navigation by the word 'nav', a Sphinx page was no text. Its main content
    (role main, or <main>) is read; the sidebar, breadcrumbs and footer around it still are not."""
    doc = parse_file("docs/install.html", RTD.encode())
    assert [(s.heading_path, s.text) for s in doc.sections] == [(["Install"], "Install\nRun pip install proj.")]


def test_the_main_content_whose_own_class_words_say_navigation_is_read():
    """<div role="main" class="content has-sidebar">, the page's main content laid out beside a sidebar, was taken
    for navigation by its own class word 'sidebar' and skipped whole: the page was no text. An element of role main
    is the page, whatever its class words; the sidebar beside it is still left out."""
    page = ('<html><head><title>Install</title></head><body><div class="sidebar"><a href="/">Home</a></div>'
            '<div role="main" class="content has-sidebar"><h1>Install</h1><p>Run pip install proj.</p></div>'
            '</body></html>')
    doc = parse_file("docs/install.html", page.encode())
    assert [(s.heading_path, s.text) for s in doc.sections] == [(["Install"], "Install\nRun pip install proj.")]
