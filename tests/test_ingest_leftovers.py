"""Review of the last stop's ingest code and its leftovers: a thesis's macros, a heading over two lines, a chapter's
``\\input`` read from the main file's folder, main.pdf beside main.tex; BibTeX's crossref and an '@' line inside a
value; a CSV's stray quotes and one column of sentences; a defaults file saying 'do not edit'; a YAML mapping of
settings."""
from __future__ import annotations

from ingest.discover import walk
from ingest.files import read_and_parse
from ingest.latex import parse_latex
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
