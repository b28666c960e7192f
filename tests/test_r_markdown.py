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
