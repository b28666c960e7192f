"""Dates written the ways people write them (ingest.passage_dates): a front matter date not in ISO form ('date: May 1,
2023', 'created: 2023-05-01 14:32') and under the keys people use ('created_at', 'Date', 'published'), a file named
'14-03-2024.md', 'March 14, 2024.md' or by a Zettelkasten id ('202403141530 Title.md'), a running log's '## 14-03-2024'
or German '## 14.03.' under a year, and abbreviated month names ('14 mrt 2024', '14 févr. 2024'). Each was dated by its
file's modified time; an ambiguous '03/04/2023' still is (never a guess)."""
from __future__ import annotations

import os
import time
from datetime import datetime, timedelta, timezone

import pytest

from ingest.markdown import parse_markdown
from ingest.passage_dates import date_sections, document_date, heading_parts, meta_date, name_date
from ingest.short_dates import weekday_year
from tests.conftest import ingest, write_tree


def _local(*when) -> float:
    return datetime(*when).timestamp()


def _front(matter: str, path: str = "notes/review.md") -> float | None:
    """The date a note with this front matter, named ``path``, gives its passages."""
    return document_date(path, parse_markdown(path, f"---\n{matter}\n---\n# Review\n\nThe heating review.\n"))


@pytest.mark.parametrize("value, when", [
    ("May 1, 2023", (2023, 5, 1)), ("1 May 2023", (2023, 5, 1)), ("2023/05/01", (2023, 5, 1)),
    ("01.05.2023", (2023, 5, 1)), ("Monday, May 1st, 2023", (2023, 5, 1)), ("'1 mai 2023'", (2023, 5, 1)),
    ("14/03/2023", (2023, 3, 14)), ("03/14/2023", (2023, 3, 14)), ("May 2023", (2023, 5, 1)),
    ("2023-05-01 14:32", (2023, 5, 1, 14, 32)), ("May 1, 2023 2:32 pm", (2023, 5, 1, 14, 32)),
    ("1 May 2023, 09:15", (2023, 5, 1, 9, 15)),
    ("03/04/2023", None), ("May 1, 2023 draft", None), ("2023", None), ("soon", None), ("01.05.2023 25:00", None),
])
def test_a_front_matter_date_written_otherwise_than_iso_dates_the_note(value, when):
    assert _front(f"date: {value}") == (_local(*when) if when else None)
    assert meta_date(value) == (_local(*when) if when else None)


def test_a_front_matter_date_with_its_zone_is_that_moment():
    expected = datetime(2023, 5, 1, 7, tzinfo=timezone.utc).timestamp()
    assert _front('date: "2023-05-01T09:00:00+02:00"') == expected
    assert _front("date: 2023-05-01T09:00:00+02:00") == expected  # YAML's own timestamp
    assert _front("created: 2023-05-01T10:00:00+03:00") == expected
    assert _front("date: 2023-05-01 09:00:00 +0200") == expected  # Jekyll's


@pytest.mark.parametrize("matter, when", [
    ("Date: May 1, 2023", (2023, 5, 1)), ("published: 2023-05-01", (2023, 5, 1)), ("pubDate: 2023-05-01", (2023, 5, 1)),
    ("created_at: 2023-05-01", (2023, 5, 1)), ("creation date: 01.05.2023", (2023, 5, 1)),
    ("Created: 2023-05-01 14:32", (2023, 5, 1, 14, 32)), ("createdAt: 2023-05-01", (2023, 5, 1)),
    # what the note is about before when it was written, a date before a blog's 'published:'
    ("created: 2023-01-02\ndate: 2023-05-01", (2023, 5, 1)), ("date: 2023-05-01\npublished: 2023-06-01", (2023, 5, 1)),
    # an edit is no date of what a note is about: 'updated' / 'modified' never replace 'created'
    ("created: 2023-05-01\nupdated: 2024-01-10\nmodified: 2024-01-11", (2023, 5, 1)),
    ("updated: 2024-01-10\nmodified: 2024-01-11\nlast_modified: 2024-01-12", None),
    ("published: true\ncreated_at: 2023-05-01", (2023, 5, 1)), ("published: true", None),
])
def test_the_keys_people_date_a_note_by(matter, when):
    assert _front(matter) == (_local(*when) if when else None)


def test_a_name_or_folder_comes_before_a_created_key_as_before_created():
    assert _front("created_at: 2023-05-01", "journal/14-03-2024.md") == _local(2024, 3, 14)
    assert _front("date: May 1, 2023", "journal/14-03-2024.md") == _local(2023, 5, 1)


@pytest.mark.parametrize("name, when", [
    ("14-03-2024.md", (2024, 3, 14)), ("03-14-2024.md", (2024, 3, 14)), ("14_03_2024.md", (2024, 3, 14)),
    ("14.03.2024.md", (2024, 3, 14)), ("03.04.2024.md", (2024, 4, 3)), ("2024_03_14.md", (2024, 3, 14)),
    ("March 14, 2024.md", (2024, 3, 14)), ("14 March 2024.md", (2024, 3, 14)), ("Mar 14th, 2024.md", (2024, 3, 14)),
    ("14 févr. 2024.md", (2024, 2, 14)), ("Meeting March 14, 2024.md", (2024, 3, 14)),
    ("14_March_2024.md", (2024, 3, 14)), ("2024-03-14 Meeting with Ana.md", (2024, 3, 14)),
    ("20240314.md", (2024, 3, 14)), ("202403141530 Title.md", (2024, 3, 14, 15, 30)),
    ("20240314153012 Title.md", (2024, 3, 14, 15, 30, 12)),
    ("03-04-2024.md", None), ("03_04_2024.md", None), ("30-02-2024.md", None), ("v14.03.2024.md", None),
    ("14.03.2024.1.md", None), ("14 Marching 2024.md", None), ("202413141530 x.md", None),
    ("202403142530 x.md", None), ("2024031415.md", None), ("Top 10 May 2023 picks.md", None),
    ("the 3 set 2024 rules.md", None), ("2 out 2024.md", None), ("3-Mar-2024.md", (2024, 3, 3)),
])
def test_a_date_written_otherwise_in_a_name(name, when):
    assert name_date("notes/" + name) == (_local(*when) if when else None)


@pytest.mark.parametrize("heading, parts", [
    ("14-03-2024", (2024, 3, 14)), ("03-14-2024", (2024, 3, 14)), ("Thu 14-03-2024 standup", (2024, 3, 14)),
    ("03-04-2024", None), ("14.03.2024", (2024, 3, 14)),
    ("14.03.", (None, 3, 14)), ("Do 14.03.", (None, 3, 14)), ("14.03. - Planung", (None, 3, 14)),
    ("1.2. Setup", None), ("3.10. Results", None), ("1.2.", None), ("14.03 Uhr", None),
    ("14 mrt 2024", (2024, 3, 14)), ("14 gen 2024", (2024, 1, 14)), ("14 févr. 2024", (2024, 2, 14)),
    ("Jan. 14, 2024", (2024, 1, 14)), ("14 Jan. 2024", (2024, 1, 14)), ("3 ago 2024", (2024, 8, 3)),
    ("14 de dic. de 2024", (2024, 12, 14)), ("14 янв. 2024", (2024, 1, 14)), ("14. Mär", (None, 3, 14)),
    ("14 mrt", (None, 3, 14)), ("14 févr.", (None, 2, 14)),
    # an abbreviation that is a word as often is a month only with its year: 'set 3', '2 out'
    ("14 set", None), ("2 out", None), ("14 set 2024", (2024, 9, 14)),
    # a month's name alone is its full name: 'mrt', 'Jan' (a person) are none
    ("May", (None, 5, None)), ("mrt", None), ("févr.", None),
])
def test_headings_written_otherwise(heading, parts):
    assert heading_parts(heading) == parts


def _dated(path: str, text: str) -> dict[str, str | None]:
    doc = parse_markdown(path, text)
    date_sections(doc, path)
    return {(s.heading_path or [""])[-1]: s.dated and datetime.fromtimestamp(s.dated).strftime("%Y-%m-%d")
            for s in doc.sections}


def test_a_german_log_of_days_under_its_year():
    log = "# 2024\n\n## 14.03.\n\nStandup.\n\n## Fr 15.03.\n\nRetro.\n\n## 1.2. Setup\n\nNumbered.\n"
    assert _dated("log.md", log) == {"14.03.": "2024-03-14", "Fr 15.03.": "2024-03-15", "1.2. Setup": None}
    # no year over it: a Friday's 15 March is 2024's while 2024 is one of the last few years (weekday_year)
    friday = "2024-03-15" if weekday_year(4, 3, 15) == 2024 else None
    assert _dated("log.md", log.replace("# 2024\n\n", "")) == {"14.03.": None, "Fr 15.03.": friday, "1.2. Setup": None}


def test_a_dashed_log_is_read_in_the_order_its_headings_tell():
    log = "## 03-04-2024\n\nFirst.\n\n## 14-04-2024\n\nSecond.\n"
    assert _dated("log.md", log) == {"03-04-2024": "2024-04-03", "14-04-2024": "2024-04-14"}
    assert _dated("log.md", "## 03-04-2024\n\nFirst.\n")["03-04-2024"] is None  # nothing tells: no guess


def test_a_month_heading_dates_its_notes_by_its_first_day():
    assert _dated("2024.md", "## May\n\nGarden.\n\n## 14 mrt\n\nSeeds.\n") == {"May": "2024-05-01",
                                                                               "14 mrt": "2024-03-14"}


WEEKS_AGO = time.time() - 21 * 86400


def test_search_by_date_finds_notes_dated_the_ways_people_write_them(immediate, sift_env, tmp_path):
    """A keyword-only build: each note, modified three weeks ago, is found by the date it writes otherwise."""
    root = write_tree(tmp_path / "n", {
        "posts/review.md": "---\ndate: May 1, 2023\n---\n# Review\n\nThe greenhouse heating review.\n",
        "posts/launch.md": "---\ncreated_at: 01.06.2023\nupdated: 2024-01-10\n---\n# Launch\n\nGreenhouse launch.\n",
        "daily/14-03-2024.md": "# Thursday\n\nPlanted the greenhouse tomatoes.\n",
        "zettel/202403201530 Greenhouse.md": "Greenhouse humidity.\n",
        "log/2022.md": "## 14.03.\n\nGreenhouse glass ordered.\n",
        "posts/unsure.md": "---\ndate: 03/04/2023\n---\nThe greenhouse door.\n",
    })
    for path in root.rglob("*.md"):
        os.utime(path, (WEEKS_AGO, WEEKS_AGO))
    ingest(root, "notes")
    from search.query.engine import from_settings
    from search.query.filters import Filters, unix_time
    from search.settings import load
    engine = from_settings(load())

    def found(**dates) -> set[str]:
        filters = Filters(**{key: unix_time(value, key) for key, value in dates.items()})
        return {hit.path for hit in engine.search("greenhouse", limit=20, mode="keyword", filters=filters).hits}

    assert found(date_after="2023-05-01", date_before="2023-05-02") == {"posts/review.md"}
    assert found(date_after="2023-06", date_before="2023-07") == {"posts/launch.md"}
    assert found(date_after="2024-03-14", date_before="2024-03-15") == {"daily/14-03-2024.md"}
    assert found(date_after="2024-03-20", date_before="2024-03-21") == {"zettel/202403201530 Greenhouse.md"}
    assert found(date_after="2022-03", date_before="2022-04") == {"log/2022.md"}
    recent = (datetime.now() - timedelta(days=30)).date().isoformat()
    assert found(date_after=recent) == {"posts/unsure.md"}  # by its file's modified time
