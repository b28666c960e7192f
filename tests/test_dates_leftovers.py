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


@pytest.mark.parametrize("value, when", [
    ("1ª de mayo de 2023", (2023, 5, 1)), ("1.º de maio de 2023", (2023, 5, 1)), ("1.ª de mayo de 2023", (2023, 5, 1)),
    ("1 de mayo del 2023", (2023, 5, 1)), ("14.März 2024", (2024, 3, 14)), ("14. Jänner 2024", (2024, 1, 14)),
    ("14 Jän 2024", (2024, 1, 14)), ("14 de setiembre de 2024", (2024, 9, 14)),
])
def test_spanish_and_portuguese_ordinals_and_other_forms_people_write_are_read(value, when):
    """'1ª' and '1.º' (Spanish and Portuguese ordinals), 'del 2023', German '14.März' without its space, Austrian
    'Jänner', Latin American 'setiembre': each was no date, in a heading, front matter or a file's name."""
    assert heading_parts(value) == when
    assert written_date(value) == _local(*when)
    assert name_date(f"journal/{value}.md") == _local(*when)


@pytest.mark.parametrize("value, month", [("Mayo de 2023", 5), ("março de 2024", 3), ("Mai 2023", 5)])
def test_a_month_of_a_year_written_with_de_is_its_first_day(value, month):
    year = int(value[-4:])
    assert heading_parts(value) == (year, month, None)
    assert written_date(value) == _local(year, month, 1)


@pytest.mark.parametrize("name", ["le 1er mai 2023.md", "Le 1er mai 2023.md", "lundi 1er mai 2023.md",
                                  "Montag, 1. Mai 2023.md", "El 1 de mayo de 2023.md", "lunes_1_de_mayo_de_2023.md",
                                  "1ᵉʳ mai 2023.md"])
def test_a_daily_note_named_after_le_or_its_weekday_is_dated_by_its_name(name):
    """A day first had to begin the name: 'le 1er mai 2023.md' and 'lundi 1er mai 2023.md' went by their mtimes."""
    assert name_date(f"journal/{name}") == _local(2023, 5, 1)
    doc = parse_markdown(f"journal/{name}", "Fête du travail.\n")
    assert document_date(f"journal/{name}", doc) == _local(2023, 5, 1)


@pytest.mark.parametrize("name", ["Top 10 May 2023 picks.md", "Projekt 1. Mai 2023.md", "Le Monde 1 mai 2023.md"])
def test_a_day_first_after_other_words_is_still_none(name):
    assert name_date(f"notes/{name}") is None


@pytest.mark.parametrize("name, when", [
    ("202403141530 Heating.md", (2024, 3, 14, 15, 30)), ("202403141530.md", (2024, 3, 14, 15, 30)),
    ("20240314153012 scan.pdf", (2024, 3, 14, 15, 30, 12)), ("202403141530-heating.md", (2024, 3, 14, 15, 30)),
    # an order's, an invoice's number after a word, or no real time: none
    ("Invoice 202403141530.pdf", None), ("order_20240314153012.pdf", None), ("INV-202403141530.md", None),
    ("Bestellung 202403141530 Quittung.md", None), ("202403142599 Heating.md", None), ("20240314153075.md", None),
    ("2024031415 Heating.md", None),
])
def test_twelve_or_fourteen_digits_are_a_moment_only_as_a_zettelkasten_id(name, when):
    """An order or invoice number of 12 or 14 digits that happened to read as a date-time dated the file (as 'Invoice
    202403141530.pdf' on 2024-03-14 15:30): only a name that begins with one, as a Zettelkasten id does, is dated."""
    assert name_date(f"inbox/{name}") == (_local(*when) if when else None)


def test_an_ordinal_day_without_its_year_takes_the_year_over_it():
    doc = parse_markdown("journal/2023.md", "# Diario\n\n## 1.º de mayo\n\nDía del trabajo.\n\n"
                                            "## 2ª de mayo\n\nOtro día.\n")
    date_sections(doc, "journal/2023.md")
    dated = {section.heading_path[-1]: section.dated for section in doc.sections if section.heading_path}
    assert dated["1.º de mayo"] == _local(2023, 5, 1)
    assert dated["2ª de mayo"] == _local(2023, 5, 2)


@pytest.mark.parametrize("name, when", [
    ("2024-03.md", (2024, 3, 1)), ("2024-W10.md", (2024, 3, 4)), ("2025-W01.md", (2024, 12, 30)),
    ("2024-Q2.md", (2024, 4, 1)), ("2020-W53.md", (2020, 12, 28)),
    ("2024-W53.md", None), ("report-2024-03.md", None), ("2024-13.md", None), ("2019-20.md", None),
])
def test_a_periodic_notes_name_dates_it_by_its_first_day(name, when):
    """Obsidian's Periodic Notes name a month's, a week's and a quarter's note '2024-03.md', '2024-W10.md',
    '2024-Q1.md': they went by their files' modified times. A week is its Monday, as the filters read '2024-W10'."""
    assert name_date(f"periodic/{name}") == (_local(*when) if when else None)


def test_a_week_notes_headings_take_its_own_year():
    """'2025-W01.md' begins on Monday 2024-12-30: its '## 2 January' is 2025's, the year its name says."""
    doc = parse_markdown("periodic/2025-W01.md", "# Week 1\n\n## 2 January\n\nBack at work.\n")
    date_sections(doc, "periodic/2025-W01.md")
    assert doc.sections[-1].dated == _local(2025, 1, 2)
