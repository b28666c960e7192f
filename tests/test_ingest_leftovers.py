"""Review of the last stop's ingest code and its leftovers: a thesis's macros, a heading over two lines, a chapter's
``\\input`` read from the main file's folder, main.pdf beside main.tex; BibTeX's crossref and an '@' line inside a
value; a CSV's stray quotes and one column of sentences; a defaults file saying 'do not edit'; a YAML mapping of
settings."""
from __future__ import annotations

import pytest

from ingest.bibtex import parse_bibtex
from ingest.code import parse_code
from ingest.discover import walk
from ingest.document import Skip
from ingest.files import read_and_parse
from ingest.latex import parse_latex
from ingest.parse import parse_file
from tests.conftest import write_tree

THESIS = r"""\documentclass{report}
\newcommand{\sift}{\textsc{Sift}\xspace}
\newcommand\corpus{SciFact}
\def\metric{nDCG@10}
\newcommand{\tool}[1]{\texttt{#1}}
\title{Searching Notes with \sift}
\begin{document}
\chapter{Introduction}
We present \sift{} and evaluate it on \corpus, reporting \metric.
\newcommand\later{LaterDefined}
\section{Dense retrieval for verifying
  scientific claims in \corpus}
Text of the section, \later.
\section{Short}
Done.
\end{document}
"""


def test_a_macro_of_no_argument_is_read_as_its_text():
    doc = parse_latex("thesis/main.tex", THESIS)
    assert doc.title == "Searching Notes with Sift"
    intro = doc.sections[0]
    assert "We present Sift and evaluate it on SciFact, reporting nDCG@10." in intro.text, intro.text
    assert "LaterDefined" not in intro.text  # its definition is no text of the thesis
    assert "Text of the section, LaterDefined." in doc.sections[1].text


def test_a_heading_over_two_lines_is_named_by_both():
    doc = parse_latex("thesis/main.tex", THESIS)
    assert [s.heading_path for s in doc.sections] == [
        ["Introduction"], ["Introduction", "Dense retrieval for verifying scientific claims in SciFact"],
        ["Introduction", "Short"]]
    lines = THESIS.split("\n")
    assert lines[doc.sections[1].start_line - 1].startswith("\\section{Dense")  # lines still the file's
    assert doc.sections[2].start_line == lines.index("\\section{Short}") + 1


def test_a_chapters_input_is_read_from_the_main_files_folder_when_it_is_there(tmp_path):
    write_tree(tmp_path, {"thesis/main.tex": "\\begin{document}\n\\input{chapters/ch1}\n\\end{document}\n",
                          "thesis/chapters/ch1.tex": "\\chapter{One}\n\\input{sections/intro}\n\\input{local}\n",
                          "thesis/sections/intro.tex": "Intro.\n", "thesis/chapters/local.tex": "Local.\n"})
    links = read_and_parse(tmp_path, "thesis/chapters/ch1.tex").doc.meta["links"]
    assert links == ["thesis/chapters/local.tex", "thesis/sections/intro.tex"], links
    assert read_and_parse(tmp_path, "thesis/main.tex").doc.meta["links"] == ["thesis/chapters/ch1.tex"]


def test_the_pdf_latex_typeset_beside_its_tex_is_its_attachment_not_read_twice(tmp_path):
    write_tree(tmp_path, {"thesis/main.tex": THESIS, "thesis/main.pdf": "%PDF", "refs.bib": "@misc{a, title={A}}",
                          "refs.pdf": "%PDF"})
    assert [(f.path, f.attachment) for f in walk(tmp_path)] == [
        ("refs.bib", None), ("refs.pdf", None), ("thesis/main.tex", "thesis/main.pdf")]
    assert read_and_parse(tmp_path, "thesis/main.tex").doc.meta["attachments"] == ["thesis/main.pdf"]


LIBRARY = r"""@InProceedings{lee2019child,
  author   = {Lee, Kenton},
  title    = {A Child Paper},
  crossref = {conf2019},
  pages    = {1--10},
}

@Proceedings{conf2019,
  title     = {Proceedings of the Conference on Things},
  year      = {2019},
  publisher = {ACM},
  doi       = {10.1145/0000},
}
"""


def test_an_entry_takes_what_it_lacks_from_the_entry_its_crossref_names():
    child, parent = parse_bibtex("refs.bib", LIBRARY).sections
    assert child.text == ("@lee2019child (inproceedings)\nA Child Paper\nKenton Lee (2019)\n"
                          "In: Proceedings of the Conference on Things\nPublisher: ACM\nPages: 1–10"), child.text
    assert "DOI" not in child.text  # the proceedings' own DOI is not the paper's
    assert parent.text.startswith("@conf2019 (proceedings)\nProceedings of the Conference on Things\n(2019)")


def test_a_line_starting_like_an_entry_inside_a_value_does_not_end_the_entry():
    bib = ("@article{smith2020,\n  title = {Graphs},\n  abstract = {We describe the format.\n"
           "@article{ is how entries begin}, and so on.},\n  year = 2020,\n}\n@book{doe2019, title = {Other}}\n")
    entries = parse_bibtex("refs.bib", bib).sections
    assert [s.heading_path for s in entries] == [["smith2020"], ["doe2019"]]
    assert "Graphs\n(2020)\nWe describe the format. @article is how entries begin, and so on." in entries[0].text
    assert (entries[0].start_line, entries[0].end_line) == (1, 6)
    # a brace left open still costs its entry alone: the next line beginning an entry by its key begins one
    broken = "@article{a,\n  title = {Open\n}\n@book{b, title = {Other}}\n"
    assert [s.heading_path for s in parse_bibtex("refs.bib", broken).sections] == [["a"], ["b"]]


def test_two_stray_quotes_do_not_make_the_rows_between_them_one_cell():
    text = 'Item,Size,Notes\nTV,"55,Big screen\nMonitor,27,4K\nLaptop,14,light\nPhone,6",small\nTablet,10,ok\n'
    doc = parse_file("devices.csv", text.encode())
    assert [(s.text, s.start_line, s.end_line) for s in doc.sections] == [
        ('TV | "55 | Big screen', 2, 2), ("Monitor | 27 | 4K", 3, 3), ("Laptop | 14 | light", 4, 4),
        ('Phone | 6" | small', 5, 5), ("Tablet | 10 | ok", 6, 6)]
    # a cell of several lines quoted as it should be stays one cell
    text = 'Name,Address,Phone\nAna,"12 Main St, Apt 4\nSpringfield, IL\nUSA",555\nBob,"1 Elm St",556\n'
    assert [s.text for s in parse_file("people.csv", text.encode()).sections] == [
        "Ana | 12 Main St, Apt 4 Springfield, IL USA | 555", "Bob | 1 Elm St | 556"]


def test_a_one_column_csv_of_sentences_is_read_whole_not_cut_at_its_commas():
    text = "Quotes\nHello, world\nLife is good, isn't it\nNo comma here\nOne, two, three\n"
    doc = parse_file("quotes.csv", text.encode())
    assert doc.meta["columns"] == "Quotes"
    assert [(s.text, s.start_line) for s in doc.sections] == [
        ("Hello, world", 2), ("Life is good, isn't it", 3), ("No comma here", 4), ("One, two, three", 5)]
    # a table under a title, and one written with a space after its commas, are still cut into cells
    doc = parse_file("budget.csv", b"Budget 2024\nItem, Cost, Owner\nDesk, 200, Ana\nChair, 90, Bob\n")
    assert doc.meta["columns"] == "Item | Cost | Owner"


def test_do_not_edit_alone_is_no_generated_marker():
    text = "# Default settings. Do not edit this file; override in local.yml\nport: 8080\nlog_level: info\n"
    assert "port: 8080" in parse_file("config/defaults.yml", text.encode()).sections[0].text
    for generated in ("# This file is automatically generated.\n# DO NOT EDIT.\n", "# DO NOT EDIT: written by gen.py\n",
                      "/* DO NOT EDIT THIS FILE - it is machine generated */\n"):
        with pytest.raises(Skip, match="^minified or generated: marker"):
            parse_file("gen/consts.py" if generated[0] == "#" else "gen/consts.h", (generated + "A = 1\n").encode())


def test_a_yaml_mapping_of_many_settings_records_is_read_whole():
    jobs = "".join(  # a CI file's jobs: named records as Rails' fixtures are, of lists and mappings
        f"test-service-{i}:\n  stage: test\n  image: registry.example.com/ci/python-{'x' * 300}:3.12\n"
        f"  script:\n    - make test-s{i}\n  rules:\n    - changes: [services/s{i}/**/*]\n  needs: [build-{i}]\n"
        f"  artifacts:\n    reports:\n      junit: report-{i}.xml\n" for i in range(200))
    assert len(jobs) >= 64 * 1024
    doc = parse_code(".gitlab-ci.yml", jobs)
    assert "data" not in doc.meta and doc.sections[-1].end_line == len(jobs.splitlines())
    fixtures = "".join(f"invoice_{i}:\n  customer: customer_{i % 40}\n  amount_cents: {i * 7}\n  currency: EUR\n"
                       f"  lines: [{i}, {i + 1}]\n  notes: {'y' * 500}\n" for i in range(150))
    assert parse_code("test/fixtures/invoices.yml", fixtures).meta["rows"] == 150  # a table's rows: a data set


def test_a_block_ends_a_skipped_paragraph_with_what_it_left_open():
    """A browser ends '<p class="footer">' at the next block, with the '<span>' left open inside it: the rest of
    the page was read as inside the footer, and skipped."""
    page = ("<html><head><title>T</title></head><body><p class=footer><span>© 2024\n<div>Main content kangaroo</div>"
            "\n<p class=footer>x<button><div>in the button</div></button><p>After</p></body></html>")  # not out of it
    doc = parse_file("page.html", page.encode())
    assert [s.text for s in doc.sections] == ["Main content kangaroo\nAfter"], doc.sections


def test_an_office_owner_file_is_an_editors_temp_file(tmp_path):
    """Word and Excel write '~$report.docx' (162 bytes, no document) beside a document open in them."""
    write_tree(tmp_path, {"~$report.md": "owner", "docs/~$budget.md": "owner", "~$old/x.md": "# X", "a.md": "# A"})
    assert [f.path for f in walk(tmp_path)] == ["a.md", "~$old/x.md"]  # a folder of that name is read
