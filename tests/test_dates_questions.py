"""Questions anchored in a date, as an assistant passes them on (the question's words, and the dates it reads in it
as date_after / date_before, or the words themselves where it did not work one out), over a few notes a person
writes by the week and the day: 'what did I decide in week 10', 'notes from last Tuesday', 'Besprechung KW 12',
'上周的会议'. Each must find its note's passage, or be told the dates to give."""
from __future__ import annotations

import os
from datetime import date, timedelta
from pathlib import Path

import pytest

from search.query.engine import Engine
from search.query.filters import Filters, unix_time
from tests.conftest import ingest, write_tree

TODAY = date.today()
LAST_TUESDAY = TODAY - timedelta(days=(TODAY.weekday() - 1) % 7 or 7)
MONDAY = TODAY - timedelta(days=TODAY.weekday())
LAST_WEEK = MONDAY - timedelta(days=5)  # last week's Wednesday
GERMAN_DAYS = "Mo Di Mi Do Fr Sa So".split()


def _notes() -> dict[str, str]:
    return {
        "journal/2024.md": "# 2024\n\n## KW 10\n\nDecided to move the billing service to Postgres.\n\n"
                           "## KW 12\n\nBesprechung mit Anna: das Budget für den Umzug ist freigegeben.\n\n"
                           "## Week 14: review\n\nThe migration finished; decided to keep the old replica a month.\n",
        "standups.md": "# Standups\n\n## 14.03.24\n\nThe release slipped a week: the installer failed on arm64.\n\n"
                       "## 3/21/24\n\nThe release shipped; the installer works on arm64.\n",
        "log.md": f"# Log\n\n## {GERMAN_DAYS[LAST_TUESDAY.weekday()]} {LAST_TUESDAY.day}.{LAST_TUESDAY.month}.\n\n"
                  "Met the landlord about the heating; he will send a plumber.\n\n"
                  "## Sonstiges\n\nThe heating manual is in the drawer.\n",
        "会议.md": f"# 会议记录\n\n## {LAST_WEEK.year}年{LAST_WEEK.month}月{LAST_WEEK.day}日\n\n会议讨论了发布计划和预算。\n",
        "old.md": "# 2023\n\n## KW 10\n\nDecided to keep the billing service on MySQL.\n",
    }


@pytest.fixture(scope="module")
def engine(tmp_path_factory):
    monkeypatch = pytest.MonkeyPatch()
    home = tmp_path_factory.mktemp("questions")
    monkeypatch.setenv("SIFT_HOME", str(home / "home"))
    monkeypatch.setenv("SIFT_EMBEDDINGS", "off")
    from workers.app import huey
    huey.immediate = True
    try:
        root = write_tree(home / "notes", _notes())
        for path in root.rglob("*.md"):
            os.utime(path, (0, 0))  # modified long ago: only their headings date them
        assert ingest(root, "notes")["published"]["failures"] == []
        yield Engine(Path(os.environ["SIFT_HOME"]) / "index.db")
    finally:
        huey.immediate = False
        monkeypatch.undo()


def _top(engine, query: str, after: str | None = None, before: str | None = None) -> tuple[str, str] | None:
    filters = Filters(date_after=unix_time(after, "date_after"), date_before=unix_time(before, "date_before"))
    hits = engine.search(query, mode="keyword", filters=filters).hits
    return (hits[0].path, hits[0].heading_path) if hits else None


@pytest.mark.parametrize("query, after, before, found", [
    ("what did I decide in week 10", "2024-W10", "2024-W11", ("journal/2024.md", "2024 > KW 10")),
    ("what did I decide in week 10", "2023-W10", "2023-W11", ("old.md", "2023 > KW 10")),
    ("what did we decide about the billing service in March 2024", "2024-03", "2024-04",
     ("journal/2024.md", "2024 > KW 10")),
    ("Besprechung KW 12", None, None, ("journal/2024.md", "2024 > KW 12")),
    ("Besprechung Budget", "2024-W12", "2024-W13", ("journal/2024.md", "2024 > KW 12")),
    ("what did I decide in week 14", "2024-W14", "2024-W15", ("journal/2024.md", "2024 > Week 14: review")),
    ("why did the release slip", "2024-03-14", "2024-03-15", ("standups.md", "Standups > 14.03.24")),
    ("did the release ship", "2024-03-21", "2024-03-22", ("standups.md", "Standups > 3/21/24")),
    ("release installer arm64", "2024-03-18", "2024-03-25", ("standups.md", "Standups > 3/21/24")),
    ("my notes on the heating from last Tuesday", LAST_TUESDAY.isoformat(), (LAST_TUESDAY + timedelta(days=1)).isoformat(),
     ("log.md", f"Log > {GERMAN_DAYS[LAST_TUESDAY.weekday()]} {LAST_TUESDAY.day}.{LAST_TUESDAY.month}.")),
    ("what did the landlord say about the heating last Tuesday", LAST_TUESDAY.isoformat(), None,
     ("log.md", f"Log > {GERMAN_DAYS[LAST_TUESDAY.weekday()]} {LAST_TUESDAY.day}.{LAST_TUESDAY.month}.")),
    ("上周的会议", (MONDAY - timedelta(days=7)).isoformat(), MONDAY.isoformat(),
     ("会议.md", f"会议记录 > {LAST_WEEK.year}年{LAST_WEEK.month}月{LAST_WEEK.day}日")),
    ("预算", (MONDAY - timedelta(days=7)).isoformat(), None,
     ("会议.md", f"会议记录 > {LAST_WEEK.year}年{LAST_WEEK.month}月{LAST_WEEK.day}日")),
    ("billing service Postgres", "2024-W11", "2024-W12", None),  # week 11: nothing of week 10
])
def test_a_date_anchored_question_finds_its_days_passage(engine, query, after, before, found):
    assert _top(engine, query, after, before) == found


@pytest.mark.parametrize("value, name, said", [
    ("week 10", "date_after", "W10"), ("KW 12", "date_after", "W12"), ("Woche 12", "date_after", "W12"),
    ("KW 12/2024", "date_after", "date_after=2024-W12 and date_before=2024-W13"),
    ("week 10 2024", "date_after", "date_after=2024-W10 and date_before=2024-W11"),
    ("第10周", "date_after", "W10"),
    ("last Tuesday", "date_after", LAST_TUESDAY.isoformat()),
    ("上周", "date_after", (MONDAY - timedelta(days=7)).isoformat()),
    ("letzte Woche", "date_after", (MONDAY - timedelta(days=7)).isoformat()),
])
def test_a_date_given_in_words_is_told_the_dates_to_give(value, name, said):
    with pytest.raises(ValueError) as refused:
        unix_time(value, name)
    assert said in str(refused.value), str(refused.value)
