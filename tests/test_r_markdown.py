"""R Markdown and Quarto documents (a statistics course's homework) are Markdown notes: they were kinds Sift did not
read, so 'the chi-squared test of homework 3' found nothing, and the knitted PDF beside one was read alone."""
from __future__ import annotations

from ingest.kinds import kind_of
from ingest.links import converted_pdfs
from ingest.parse import parse_file

HOMEWORK = """---
title: "STAT210 Homework 3"
author: "Mia Novak"
---

## Question 1

We test independence with a chi-squared test.

```{r}
chisq.test(table(survey$smoke, survey$exer))
```
"""


def test_an_r_markdown_or_quarto_document_is_a_markdown_note_its_knitted_pdf_its_attachment():
    assert kind_of("hw3.Rmd") == kind_of("report.qmd") == "note"
    for name in ("stats/hw3.Rmd", "stats/hw3.qmd"):
        doc = parse_file(name, HOMEWORK.encode())
        assert doc.title == "STAT210 Homework 3"
        [section] = doc.sections
        assert section.heading_path == ["Question 1"] and "chisq.test(table(survey$smoke" in section.text
    assert converted_pdfs({"stats/hw3.Rmd", "stats/hw3.pdf"}) == {"stats/hw3.Rmd": "stats/hw3.pdf"}


def test_the_html_page_a_report_was_knitted_to_is_its_export_not_a_second_copy(tmp_path):
    """report.html beside report.Rmd (or .qmd) is what knitting made of it: it was indexed as a file of its own, so
    each passage of the report came twice in a search's results. A walk, and a walk of the page alone (a save the
    watcher saw), leave it out as they leave out the PDF beside it; a page with no such document is a page."""
    from ingest.discover import walk, walk_paths, with_partners
    from tests.conftest import write_tree

    write_tree(tmp_path, {"stats/hw3.Rmd": HOMEWORK, "stats/hw3.html": "<html><body><h2>Question 1</h2></body></html>",
                          "stats/hw3.pdf": "%PDF-1.4", "q/report.QMD": HOMEWORK, "q/report.htm": "<p>chi</p>",
                          "web/hw3.html": "<p>a page</p>"})
    assert [f.path for f in walk(tmp_path)] == ["q/report.QMD", "stats/hw3.Rmd", "web/hw3.html"]
    assert [f.path for f in walk_paths(tmp_path, with_partners(tmp_path, {"stats/hw3.html"}))] == ["stats/hw3.Rmd"]


def test_the_authors_an_r_markdown_or_quarto_front_matter_names_are_each_one_person(sift_env, immediate, tmp_path):
    """An .Rmd's front matter names each person apart, as a .md's does: 'John Tolkien' found no one recording John
    Ronald Reuel Tolkien there (a PDF's metadata author may run several persons together, a note's does not)."""
    from search.query import authors
    from tests.conftest import ingest_keyword_only, write_tree
    from workers import runtime
    front = HOMEWORK.replace('"Mia Novak"', '"John Ronald Reuel Tolkien"')
    root = write_tree(tmp_path / "r", {"hw3.Rmd": front, "report.qmd": front, "plain.txt": "No author.\n"})
    ingest_keyword_only(root, "r")
    conn = runtime.index()
    paths = dict(conn.execute("SELECT id, path FROM files"))
    assert sorted(paths[file] for file, author in authors.file_authors(conn)
                  if authors.wrote(author, "John Tolkien")) == ["hw3.Rmd", "report.qmd"]
