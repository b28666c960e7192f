"""Date headings written short (ingest.short_dates): a two-digit year ('## 14.03.24', '## 3/14/24'), a weekday with a
day and no year ('## Di 14.5.', '## Tue 5/14'), a calendar week ('## KW 10', '## Week 10', '## 第10周'). Each went
by its file's modified time; a version, a score, a time or a list's number stays none."""
from __future__ import annotations

from datetime import date, datetime, timedelta

import pytest

from ingest.markdown import parse_markdown
from ingest.passage_dates import date_sections, heading_parts
from ingest.short_dates import weekday_year


def _dated(path: str, text: str) -> dict:
    doc = parse_markdown(path, text)
    date_sections(doc, path)
    return {(s.heading_path or [""])[-1]: s.dated and datetime.fromtimestamp(s.dated).strftime("%Y-%m-%d")
            for s in doc.sections}


def _log(*headings: str) -> str:
    return "# Log\n\n" + "".join(f"## {heading}\n\nNotes.\n\n" for heading in headings)


@pytest.mark.parametrize("heading, parts", [
    ("14.03.24", (2024, 3, 14)), ("01.03.24", (2024, 3, 1)), ("14.03.24 Standup", (2024, 3, 14)),
    ("14.03.24: Standup", (2024, 3, 14)), ("Do 14.03.24", (2024, 3, 14)), ("Fr, 1.3.24", (2024, 3, 1)),
    ("3/14/24", (2024, 3, 14)), ("14/3/24", (2024, 3, 14)), ("Thu 3/14/24 - call", (2024, 3, 14)),
    ("31.12.99", (1999, 12, 31)),
    # none: the year first or the day first, nothing tells; a version, a numbered heading, a score, a time
    ("24-03-14", None), ("1.3.24", None), ("1.2.3", None), ("v14.03.24", None), ("14.03.245", None),
    ("1.2.24.3", None), ("14.03.24b", None), ("3/4/24", None), ("3/2", None), ("10:30", None), ("31.02.24", None),
    ("Di 1.3.24", None),  # 1 March 2024 was a Friday
])
def test_a_two_digit_year_is_read_where_the_form_tells_the_day(heading, parts):
    assert heading_parts(heading) == parts


def test_a_slashed_two_digit_year_takes_the_logs_order():
    assert _dated("log.md", _log("3/14/24", "3/4/24")) == {"3/14/24": "2024-03-14", "3/4/24": "2024-03-04"}
    assert _dated("log.md", _log("14/3/24", "3/4/24")) == {"14/3/24": "2024-03-14", "3/4/24": "2024-04-03"}


def test_a_weekday_and_a_day_take_the_year_of_the_file_or_its_front_matter():
    log = _log("Di 14.5.", "Tue 5/14", "Mi 14.5.", "Tue 14/5", "14.5.", "5/14")
    assert _dated("journal/2024.md", log) == {
        "Di 14.5.": "2024-05-14", "Tue 5/14": "2024-05-14", "Tue 14/5": "2024-05-14",
        "Mi 14.5.": None,  # 14 May 2024 was a Tuesday: read wrong or mistyped, none
        "14.5.": None, "5/14": None}  # no weekday: a list's number, a score
    matter = "---\ndate: 2024-01-05\n---\n" + log
    assert _dated("log.md", matter)["Di 14.5."] == "2024-05-14"


def test_a_weekday_picks_the_year_where_nothing_else_says_one():
    assert weekday_year(1, 5, 14, date(2026, 12, 6)) == 2024  # a Tuesday in 2024 (and 2019, 2030: not of the last few)
    assert weekday_year(0, 5, 14, date(2026, 12, 6)) is None  # a Monday in 2029, 2018
    day = date.today() - timedelta(days=40)
    german = "Mo Di Mi Do Fr Sa So".split()[day.weekday()]
    heading = f"{german} {day.day}.{day.month}."
    assert _dated("notes/log.md", _log(heading))[heading] == day.isoformat()


def test_a_calendar_week_is_its_monday_in_the_year_over_it():
    log = _log("KW 10", "KW10", "Kalenderwoche 10", "10. KW", "CW 12", "KW 10: Planung", "KW 10 Planung", "KW 1")
    assert _dated("journal/2024.md", log) == {
        "KW 10": "2024-03-04", "KW10": "2024-03-04", "Kalenderwoche 10": "2024-03-04", "10. KW": "2024-03-04",
        "CW 12": "2024-03-18", "KW 10: Planung": "2024-03-04", "KW 10 Planung": "2024-03-04", "KW 1": "2024-01-01"}
    assert _dated("notes/log.md", _log("KW 10", "Week 10"))["KW 10"] is None  # no year: none


WEEKS = ("Woche 11", "Week 11", "Wk 11", "第11周", "第11週", "Week 11 - review", "Semaine 11", "Semana 11")


@pytest.mark.parametrize("heading", WEEKS)
def test_a_week_that_may_be_a_courses_is_a_calendar_week_only_with_its_days_under_it(heading):
    """A course's '## Week 11' in 'Course 2024.md' was read as ISO week 11 of 2024 (11 March): a semester's weeks
    are no calendar weeks. Its days under it, in that calendar week, tell a log's week; a lecture's topic, or a day
    of another week (a term begun in September), does not."""
    course = f"# Course\n\n## {heading}\n\nx\n\n### Lecture 19: graphs\n\ny\n"
    assert _dated("Course 2024.md", course)[heading] is None
    assert _dated("journal/2024.md", _log(heading))[heading] is None
    other = f"# Course\n\n## {heading}\n\nx\n\n### 2024-11-18\n\ny\n"
    assert _dated("Course 2024.md", other)[heading] is None
    log = f"# Log\n\n## Week 10\n\nx\n\n### Di 5.3.\n\ny\n\n## {heading}\n\nz\n"
    assert _dated("journal/2024.md", log) == {"Week 10": "2024-03-04", "Di 5.3.": "2024-03-05",
                                              heading: "2024-03-11"}
    beside = f"# Log\n\n## KW 10\n\nx\n\n## {heading}\n\ny\n"  # the note's other week says it is the calendar's
    assert _dated("journal/2024.md", beside) == {"KW 10": "2024-03-04", heading: "2024-03-11"}
    under = f"# 2024\n\n## {heading}\n\nx\n\n### 2024-03-13\n\ny\n"
    assert _dated("log.md", under) == {heading: "2024-03-11", "2024-03-13": "2024-03-13"}


def test_a_calendar_week_with_its_own_year_or_under_a_year_heading():
    log = _log("KW 10/2024", "Week 10, 2024", "2024 KW 10", "2024-W10", "2024年第10周", "2025-W01", "W10/2024",
               "2024/W10")
    assert _dated("notes/log.md", log) == {
        "KW 10/2024": "2024-03-04", "Week 10, 2024": "2024-03-04", "2024 KW 10": "2024-03-04",
        "2024-W10": "2024-03-04", "2024年第10周": "2024-03-04", "2025-W01": "2024-12-30", "W10/2024": "2024-03-04",
        "2024/W10": "2024-03-04"}
    nested = "# 2023\n\n## KW 52\n\nEnd of year.\n\n# 2024\n\n## KW 1\n\nNew year.\n\n### Notes\n\nUnder it.\n"
    assert _dated("log.md", nested) == {"KW 52": "2023-12-25", "KW 1": "2024-01-01", "Notes": "2024-01-01"}


@pytest.mark.parametrize("heading", [
    "Week 10 of the course", "W10", "W 10", "W. 10", "w 10: wing", "Week 54", "Week 0", "KW 10 2024 2025", "Top 10", "Chapter 10", "Part 3/4",
    "Woche 10 Sprachkurs",
])
def test_what_is_no_calendar_week_stays_none(heading):
    assert _dated("journal/2024.md", _log(heading))[heading] is None


def test_a_53rd_week_of_a_year_of_52_is_none():
    assert _dated("journal/2024.md", _log("KW 53")) == {"KW 53": None}
    assert _dated("journal/2020.md", _log("KW 53")) == {"KW 53": "2020-12-28"}


def test_a_weekday_alone_under_a_week_is_its_day_of_that_week():
    log = ("# Log\n\n## KW 10\n\nPlan.\n\n### Montag\n\nM.\n\n### Di\n\nT.\n\n### Freitag:\n\nF.\n\n### Notizen\n\nN.\n\n"
           "## Other\n\n### Dienstag\n\nX.\n")
    assert _dated("journal/2024.md", log) == {"KW 10": "2024-03-04", "Montag": "2024-03-04", "Di": "2024-03-05",
                                              "Freitag:": "2024-03-08", "Notizen": "2024-03-04", "Dienstag": None}


@pytest.mark.parametrize("heading, read", [
    ("Di 14.5. Standup", True), ("Tue 5/14 standup", True), ("Tue 5/14: call", True), ("Di, 14.05.", True),
    ("Do 1.2 things", False), ("Do 3/4 of the tests", False), ("Di 14.5 Standup", False),
])
def test_words_after_a_weekdays_day_only_after_its_dot_a_mark_or_a_weekday_written_out(heading, read):
    assert _dated("journal/2024.md", _log(heading))[heading] == ("2024-05-14" if read else None)


def test_a_day_under_a_week_that_spans_new_year_takes_the_year_that_puts_it_in_the_week():
    """A week's year is its ISO year, its month its Monday's: '## KW 1' of 2025 began on 30 December 2024, and the
    '### 30.12.' under it was dated 2025-12-30; '### Fr 1.1.' under 2026's week 53 (ending 3 January 2027) had
    2026's 1 January (a Thursday) and fell back to the week's Monday."""
    first = "# 2025\n\n## KW 1\n\nx\n\n### 30.12.\n\ny\n\n### Di 31.12.\n\nz\n\n### Mi 1.1.\n\nw\n"
    assert _dated("log.md", first) == {"KW 1": "2024-12-30", "30.12.": "2024-12-30", "Di 31.12.": "2024-12-31",
                                       "Mi 1.1.": "2025-01-01"}
    last = "# 2026\n\n## KW 53\n\nx\n\n### 31.12.\n\ny\n\n### Fr 1.1.\n\nz\n\n### Samstag\n\nq\n"
    assert _dated("log.md", last) == {"KW 53": "2026-12-28", "31.12.": "2026-12-31", "Fr 1.1.": "2027-01-01",
                                      "Samstag": "2027-01-02"}


def test_a_changelogs_versions_with_their_release_dates_are_no_days():
    """Docker's changelog writes '## 20.10.17 (2022-06-06)': a version of two-digit numbers and the day it was
    released. Its versions were read as 20 October 2017 and the like, its passages dated five years early; a log's
    day does not write its year again, and a note whose headings do so writes versions in all its headings."""
    changelog = "# Changelog\n\n## 20.10.17 (2022-06-06)\n\nx\n\n## 20.10.16\n\ny\n\n## 19.03.12 - 2019-08-21\n\nz\n"
    assert _dated("CHANGELOG.md", changelog) == {"20.10.17 (2022-06-06)": None, "20.10.16": None,
                                                 "19.03.12 - 2019-08-21": None}
    assert heading_parts("20.10.17 (2022-06-06)") is None
    assert _dated("log.md", _log("20.10.17", "14.03.24 Standup")) == {"20.10.17": "2017-10-20",
                                                                     "14.03.24 Standup": "2024-03-14"}


def test_a_log_begun_in_december_dates_its_january_days_in_the_next_year():
    """A log whose front matter says it began on 20 December 2026 dated its '## 04.01.' and '## KW 1' in January
    2026, a year before it began, and its '## Sa 2.1.' none (2 January 2026 was a Friday). A day over a month before
    the front matter's is of the next year; under a heading that says its year ('# 2026'), of that year."""
    log = "---\ncreated: 2026-12-20\n---\n" + _log("21.12.", "Sa 2.1.", "04.01.", "KW 1")
    assert _dated("log.md", log) == {"21.12.": "2026-12-21", "Sa 2.1.": "2027-01-02", "04.01.": "2027-01-04",
                                     "KW 1": "2027-01-04"}
    begun = "---\ncreated: 2023-01-05\n---\n" + _log("02.01.", "20.08.")
    assert _dated("log.md", begun) == {"02.01.": "2023-01-02", "20.08.": "2023-08-20"}, "a few days before: its year"
    said = "---\ncreated: 2026-12-20\n---\n# 2026\n\n## 04.01.\n\nc\n"
    assert _dated("log.md", said)["04.01."] == "2026-01-04"


@pytest.mark.parametrize("path, headings", [
    ("CHANGELOG.md", ("19.03.12",)), ("docs/NEWS.md", ("19.03.12",)),  # a project's file of releases
    ("notes/docker.md", ("19.03.12", "19.03.11", "18.09.09")),  # the patch changes, not the day
    ("notes/docker.md", ("19.03.12", "1.2.3")), ("notes/docker.md", ("19.03.12", "v19.03.11")),
    ("CHANGES.rst", ("19.03.12",)), ("Changes", ("19.03.12",)),  # a project's, as projects name it
    ("notes/app.md", ("[Unreleased]", "19.03.12")),  # Keep a Changelog's heading of what is to come
    ("notes/app.md", ("19.03.12", "1.2.3 (2020-01-01)")), ("notes/app.md", ("19.03.12", "[1.2.3] - 2020-01-01")),
    ("notes/app.md", ("v2.0: the new parser", "19.03.12")),  # a version named so, words after it
    ("notes/app.md", ("2.1.0 - Fixes", "2.0.0 - First release", "19.03.12"))])  # newest first: a changelog's
def test_a_changelogs_versions_without_release_dates_are_no_days(path, headings):
    """'## 19.03.12' with no release date beside it was dated 19 March 2012: a version is told from a day by its
    file's name, a sibling heading that is a version no day can be, or a sequence whose last number changes where a
    log's first one does."""
    assert set(_dated(path, _log(*headings)).values()) == {None}


@pytest.mark.parametrize("path, headings", [
    ("news.md", ("14.03.24",)),  # a person's 'news' in lower case is a log
    ("log.md", ("14.03.24", "15.03.24", "18.03.24")), ("log.md", ("01.04.24", "14.03.24", "15.03.24")),
    ("log.md", ("1.3.24", "14.03.24")),  # '1.3.24' is a day without its zeros, no version
    ("log.md", ("1.2.3 Introduction", "14.03.24")),  # a numbered section is no version
    ("log.md", ("1.2.3. Einleitung", "14.03.24")),  # nor one numbered with a dot after it, as German numbers them
    ("log.md", ("3.1.4: Results", "14.03.24")),  # nor one with a mark and words after it
    ("log.md", ("3.1.3: Methods", "3.1.4: Results", "14.03.24")),  # sections go up, a changelog's versions down
    ("log.md", ("2024.03.15", "2024.03.14", "14.03.24")),  # days of their whole year first, newest first
    ("log.md", ("7.3.", "1.3.", "14.03.24")),  # days without their year, newest first: no versions going down
    ("log.md", ("15.03.2024", "14.03.24")),  # a day of its whole year last, as German writes one, is no version
    ("changes.md", ("14.03.24",)), ("history.md", ("14.03.24",)),  # a person's log of changes, in lower case
    ("notes/Changes.md", ("14.03.24",))])  # or a note named as notes are (Perl's 'Changes' has no extension)
def test_a_logs_short_days_are_no_versions(path, headings):
    read = _dated(path, _log(*headings))
    assert read["14.03.24"] == "2024-03-14"


@pytest.mark.timeout(60)  # a few milliseconds now; 200,000 spaces took the square of that (about ten minutes)
def test_a_headings_run_of_spaces_is_read_once():
    """A version's lookahead for a release date after it ('1.2.3 - 2020-01-01') read its spaces, a mark and spaces
    again from each space of a run: 6 s a heading of 20,000 (a line may hold a million)."""
    from ingest.short_dates import versioned
    assert not versioned("log.md", ["1.2.3" + " " * 200_000 + "x", "14.03.24"])
    assert versioned("log.md", ["1.2.3" + " " * 200_000 + "- 2020-01-01", "14.03.24"])


def test_a_persons_diary_of_changes_keeps_its_days():
    """A personal 'changes.md', a diary of changes ('## 03.11.24', newest first), had its days read as versions (its
    name that of a project's CHANGES file), and so had any note with a section '## 3.1.4: Results': their passages
    were dated by the file's time. A changelog is told by its file's shape: its name as a project writes it, a
    version with its date or 'Unreleased', versions going down."""
    diary = _dated("notes/changes.md", _log("07.11.24", "04.11.24: new shelves", "03.11.24"))
    assert diary == {"07.11.24": "2024-11-07", "04.11.24: new shelves": "2024-11-04",
                     "03.11.24": "2024-11-03"}
    report = _dated("report.md", _log("3.1.3: Methods", "3.1.4: Results", "12.11.24"))
    assert report["12.11.24"] == "2024-11-12"


def test_a_log_of_one_year_runs_on_past_new_year():
    """In 'log-2024.md', '## Wed 1/1' after '## Tue 12/31' was none (1 January 2024 a Monday): a day that follows
    the log's last day of December is of the next year, and so are the days after it; a day far from the one
    before it, or whose weekday fits its file's year, keeps that year."""
    read = _dated("log-2024.md", _log("Mon 12/30", "Tue 12/31", "Wed 1/1", "Thu 1/2"))
    assert (read["Wed 1/1"], read["Thu 1/2"]) == ("2025-01-01", "2025-01-02")
    assert _dated("2024.md", _log("31.12.", "01.01."))["01.01."] == "2025-01-01"
    assert _dated("2024.md", _log("01.01.", "15.06.", "31.12."))["01.01."] == "2024-01-01"
    assert _dated("2024.md", _log("15.06.", "01.01."))["01.01."] == "2024-01-01"  # not a day after the one before
    assert _dated("2024.md", _log("Tue 12/31", "Mon 1/1"))["Mon 1/1"] == "2024-01-01"  # its weekday fits 2024


def test_a_log_run_on_past_new_year_stays_in_the_next_year_after_a_gap():
    """Once 'log-2024.md' ran on into 2025 ('## Tue 12/31', '## Thu 1/2'), a day more than a month after the one
    before it went back a year: '## 20.02.' was 20 February 2024, and '## Thu 2/20' none (a Tuesday in 2024)."""
    read = _dated("2024.md", _log("30.12.", "31.12.", "02.01.", "20.02.", "03.03."))
    assert (read["20.02."], read["03.03."]) == ("2025-02-20", "2025-03-03")
    assert _dated("log-2024.md", _log("Mon 12/30", "Tue 12/31", "Thu 1/2", "Thu 2/20"))["Thu 2/20"] == "2025-02-20"


def test_a_log_with_a_day_of_next_year_written_whole_does_not_run_on():
    """A day of the next year written with its year ('## 2025-01-10', a date planned) in '2024.md' made every later
    day of the log 2025's: a day after a day in the next year was of that year however far, as where the log had run
    on past New Year. It is only where that day was one without its year."""
    read = _dated("2024.md", _log("18.02.", "2025-01-10", "20.03.", "02.05."))
    assert (read["2025-01-10"], read["20.03."], read["02.05."]) == ("2025-01-10", "2024-03-20", "2024-05-02")
    read = _dated("2024.md", _log("31.12.", "2025-01-02", "03.01."))  # run on past New Year: as before
    assert read["03.01."] == "2025-01-03"
