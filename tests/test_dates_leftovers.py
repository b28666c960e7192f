"""Dates the last round's reader left out (ingest.passage_dates): an org file's '#+DATE: May 1, 2023' (only ISO was
read), French '1er mai 2023' and 'le 1er mai', Italian and Portuguese '1º maggio 2023', '1º de maio de 2023', a day
folder named with its month ('March 14, 2024/', '2024/March 14/'); each was dated by its file's modified time."""
from __future__ import annotations

from datetime import datetime

import pytest

from ingest.code import parse_code
from ingest.markdown import parse_markdown
from ingest.org import parse_org
from ingest.passage_dates import date_sections, document_date, folder_date, heading_parts, name_date, written_date


def _local(*when) -> float:
    return datetime(*when).timestamp()


@pytest.mark.parametrize("value, when", [
    ("May 1, 2023", (2023, 5, 1)), ("1 May 2023", (2023, 5, 1)), ("01.05.2023", (2023, 5, 1)),
    ("1er mai 2023", (2023, 5, 1)), ("<2023-05-01 Mon>", (2023, 5, 1)), ("[2023-05-01]", (2023, 5, 1)),
    ("<2023-05-01 Mon 10:30>", (2023, 5, 1, 10, 30)), ("2023-05-01", (2023, 5, 1)), ("soon", None),
    ("03/04/2023", None),
])
def test_an_org_files_date_written_otherwise_than_iso_dates_its_passages(value, when):
    doc = parse_org("notes/review.org", f"#+TITLE: Review\n#+DATE: {value}\n\n* Heating\nThe heating review.\n")
    assert document_date("notes/review.org", doc) == (_local(*when) if when else None)


@pytest.mark.parametrize("value", ["1er mai 2023", "le 1er mai 2023", "Le lundi 1er mai 2023", "1 de mayo de 2023",
                                   "1º de maio de 2023", "1. Mai 2023", "1º maggio 2023", "1° maggio 2023"])
def test_a_date_in_french_spanish_portuguese_german_or_italian_is_read(value):
    may_first = _local(2023, 5, 1)
    assert heading_parts(value) == (2023, 5, 1)
    assert written_date(value) == may_first  # front matter's date:
    doc = parse_markdown("notes/review.md", f"---\ndate: {value}\n---\n# Review\n\nThe heating review.\n")
    assert document_date("notes/review.md", doc) == may_first
    if not value.lower().startswith("le"):
        assert name_date(f"notes/{value}.md") == may_first


def test_a_day_without_its_year_in_french_or_italian_takes_the_year_over_it():
    doc = parse_markdown("journal/2023.md", "# Journal\n\n## le 1er mai\n\nFête du travail.\n\n"
                                            "## 1º maggio\n\nFesta dei lavoratori.\n\n## 1o piano\n\nAltro.\n")
    date_sections(doc, "journal/2023.md")
    dated = {section.heading_path[-1]: section.dated for section in doc.sections if section.heading_path}
    assert dated["le 1er mai"] == dated["1º maggio"] == _local(2023, 5, 1)
    assert dated["1o piano"] is None  # an ordinal before a word that is no month


@pytest.mark.parametrize("path, when", [
    ("journal/March 14, 2024/notes.md", (2024, 3, 14)), ("journal/14 March 2024/notes.md", (2024, 3, 14)),
    ("journal/2024/March 14/notes.md", (2024, 3, 14)), ("journal/2024/14 March/call/notes.md", (2024, 3, 14)),
    ("journal/2024/14. März/notes.md", (2024, 3, 14)), ("journal/2024/March 14 Thursday/notes.md", (2024, 3, 14)),
    ("journal/2024/03 March/14.md", (2024, 3, 14)), ("journal/2024/March 14.md", (2024, 3, 14)),
    ("journal/2024/Top 10/notes.md", None), ("journal/2024/Apollo 11/notes.md", None),
    ("journal/2024/set 14/notes.md", None), ("Top 10 May 2023 picks/notes.md", None),
])
def test_a_day_folder_named_with_its_month_dates_the_notes_in_it(path, when):
    assert folder_date(path) == (_local(*when) if when else None)
    doc = parse_markdown(path, "# Notes\n\nThe heating review.\n")
    assert document_date(path, doc) == (_local(*when) if when else None)


def test_a_code_or_data_file_under_an_api_version_folder_is_not_dated_by_it():
    """botocore's data/ec2/2016-04-01/*.json: an API's version, not what the file is about (969 files on this
    machine, all kind code: none dated)."""
    path = "botocore/data/ec2/2016-04-01/paginators-1.json"
    assert folder_date(path) is not None  # the folder says a date …
    doc = parse_code(path, '{"pagination": {"DescribeInstances": {"limit_key": "MaxResults"}}}\n')
    assert document_date(path, doc) is None  # … a code file is not dated by it
