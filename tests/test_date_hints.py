"""What the date filters say to the forms an assistant passes on from a question ('yesterday', 'last week', 'Q1 2024',
'spring 2024', 'März 2024', '2024-W10'): the ISO form to write or the arguments to give, where they said the ISO forms
alone or today's date to count from (search.query.filters.iso_hint)."""
from __future__ import annotations

from datetime import date, datetime, timedelta

import pytest


def _local(*when) -> float:
    return datetime(*when).timestamp()


def _refused(given: str, name: str = "date_after") -> str:
    from search.query.filters import unix_time
    with pytest.raises(ValueError) as refused:
        unix_time(given, name)
    return str(refused.value).split(f"not {given!r}: ", 1)[-1]


def test_a_relative_date_is_refused_with_the_dates_it_stands_for_today():
    today = date.today()
    day = timedelta(days=1)
    monday = today - today.weekday() * day
    counted = f"give the date itself, counted from today ({today.isoformat()}): "
    assert _refused("yesterday") == counted + f"for yesterday, give date_after={today - day} and date_before={today}"
    assert _refused("today", "date_before") == counted + f"for today, give date_after={today} and date_before={today + day}"
    assert _refused("last week") == counted + (f"for the last 7 days, give date_after={today - 7 * day}; for the week "
                                               f"before this one, date_after={monday - 7 * day} and date_before={monday}")
    assert _refused("last 30 days", "--date-after") == counted + f"for last 30 days, give --date-after {today - 30 * day}"
    assert _refused("2 weeks ago") == counted + f"that is {today - 14 * day}"
    assert _refused("since yesterday", "date_before") == counted + f"'since yesterday' is date_after={today - day}"
    assert _refused("recently") == counted + (f"for recently, say the last 30 days, give "
                                              f"date_after={today - 30 * day}; the last 7 days, "
                                              f"date_after={today - 7 * day}")


@pytest.mark.parametrize("given, said", [
    ("Q1 2024", "for Q1 2024, give date_after=2024-01 and date_before=2024-04 (date_before leaves out the date it "
                "names)"),
    ("2024-Q4", "for Q4 2024, give date_after=2024-10 and date_before=2025-01 ("),
    ("H2 2023", "for H2 2023, give date_after=2023-07 and date_before=2024-01 ("),
    ("spring 2024", "for spring 2024 north of the equator, give date_after=2024-03 and date_before=2024-06 ("),
    ("winter 2024", "for winter 2024 north of the equator, give date_after=2024-12 and date_before=2025-03 ("),
    ("März 2024", "write it 2024-03 (a month is read as its first day)"),
    ("mars 2024", "write it 2024-03 (a month"), ("marzo de 2024", "write it 2024-03 (a month"),
    ("14. März 2024", "write it 2024-03-14"), ("1er mai 2023", "write it 2023-05-01"),
    ("1º de maio de 2023", "write it 2023-05-01"), ("2024年3月", "write it 2024-03 (a month"),
])
def test_a_quarter_a_season_or_a_month_in_another_language_is_refused_with_the_iso_form(given, said):
    assert _refused(given).startswith(said), _refused(given)


def test_an_iso_week_is_read_as_its_monday_on_every_python():
    """Python 3.11's fromisoformat reads '2024-W10', 3.10's (which Sift runs on too) refused it with no hint."""
    from search.query.filters import _whole_date, unix_time
    assert _whole_date("2024-W10") == _whole_date("2024W10") == "2024-03-04"
    assert _whole_date("2024-W10-3") == "2024-03-06"
    assert unix_time("2024-W10", "date_after") == _local(2024, 3, 4)
    assert "not '2024-W54'" in str(pytest.raises(ValueError, unix_time, "2024-W54", "date_after").value)


@pytest.mark.parametrize("given, said", [
    ("Q1–Q2 2024", "for Q1–Q2 2024, give date_after=2024-01 and date_before=2024-07 (date_before leaves out"),
    ("Q1-Q2 2024", "for Q1–Q2 2024, give date_after=2024-01 and date_before=2024-07 ("),
    ("between Q1 and Q2 2024", "for Q1–Q2 2024, give date_after=2024-01 and date_before=2024-07 ("),
    ("2024 Q1-Q3", "for Q1–Q3 2024, give date_after=2024-01 and date_before=2024-10 ("),
    ("from Q3 2023 to Q1 2024", "for Q3 2023 through Q1 2024, give date_after=2023-07 and date_before=2024-04 ("),
    ("Q4 2023 - Q1 2024", "for Q4 2023 through Q1 2024, give date_after=2023-10 and date_before=2024-04 ("),
    ("early 2024", "for early 2024 (its first four months, say), give date_after=2024-01 and date_before=2024-05 ("),
    ("mid-2024", "for mid 2024 (its middle four months, say), give date_after=2024-05 and date_before=2024-09 ("),
    ("late 2023", "for late 2023 (its last four months, say), give date_after=2023-09 and date_before=2024-01 ("),
    ("the end of 2024", "for the end of 2024 (its last four months, say), give date_after=2024-09 and "
                        "date_before=2025-01 ("),
    ("Anfang 2024", "for Anfang 2024 (its first four months, say), give date_after=2024-01 and date_before=2024-05"),
    ("early March 2024", "for early March 2024 (its first ten days, say), give date_after=2024-03-01 and "
                         "date_before=2024-03-11 ("),
    ("late December 2024", "for late December 2024 (its 21st day to its end, say), give date_after=2024-12-21 and "
                           "date_before=2025-01 ("),
])
def test_a_range_of_quarters_or_a_part_of_a_year_is_refused_with_the_arguments_to_give(given, said):
    """Each was refused with the ISO forms alone: where 'early' ends, how 'Q1–Q2' is written were left to guess."""
    assert _refused(given).startswith(said), _refused(given)


def test_the_command_line_is_told_its_flags():
    assert _refused("Q1-Q2 2024", "--date-after").startswith(
        "for Q1–Q2 2024, give --date-after 2024-01 --date-before 2024-07 (--date-before leaves out")


@pytest.mark.parametrize("given, today, said", [
    ("march", date(2026, 12, 6), "which year is not said: for March 2026, give date_after=2026-03 and "
                                 "date_before=2026-04; for 2025's, date_after=2025-03 and date_before=2025-04 ("),
    ("March", date(2026, 2, 10), "which year is not said: for March 2025, give date_after=2025-03 and "
                                 "date_before=2025-04; for 2024's, date_after=2024-03 and date_before=2024-04 ("),
    ("März", date(2026, 3, 1), "which year is not said: for März 2026, give date_after=2026-03 and "),
    ("Q1 to Q3", date(2026, 12, 6), "which year is not said: for Q1–Q3 2026, give date_after=2026-01 and "
                                    "date_before=2026-10; for 2025's, date_after=2025-01 and date_before=2025-10 ("),
    ("Q4", date(2026, 5, 6), "which year is not said: for Q4 2025, give date_after=2025-10 and date_before=2026-01;"),
    ("late march", date(2026, 5, 6), "which year is not said: for late march 2026 (its 21st day to its end, say), "
                                     "give date_after=2026-03-21 and date_before=2026-04; for 2025's, "),
])
def test_a_month_or_a_quarter_without_its_year_is_answered_with_the_last_one_begun_and_the_one_before(given, today,
                                                                                                       said):
    from search.query.date_hints import hint
    assert hint(given, "date_after", today).startswith(said), hint(given, "date_after", today)


def test_may_alone_is_no_month_to_answer_for():
    """'may' is a word of the question as often: no year is asked for it."""
    from search.query.date_hints import hint
    assert hint("may", "date_after", date(2026, 12, 6)) is None


def test_a_quarter_of_today_is_counted():
    today = date.today()
    first = today.replace(month=(today.month - 1) // 3 * 3 + 1, day=1)
    assert _refused("this quarter").endswith(f"for this quarter, give date_after={first}")
    previous = first.replace(year=first.year - (first.month == 1), month=(first.month - 4) % 12 + 1)
    assert _refused("last quarter").endswith(f"for last quarter, give date_after={previous} and date_before={first}")


def test_a_month_without_its_year_after_since_or_before_is_the_one_argument_that_word_means():
    from search.query.date_hints import hint
    today = date(2026, 12, 6)
    assert hint("since March", "date_after", today) == \
        "which year is not said: 'since March 2026' is date_after=2026-03; of 2025, date_after=2025-03"
    assert hint("before march", "date_after", today) == \
        "which year is not said: 'before March 2026' is date_before=2026-03; of 2025, date_before=2025-03"
    assert hint("since Q3", "--date-after", date(2026, 5, 1)) == \
        "which year is not said: 'since Q3 2025' is --date-after 2025-07; of 2024, --date-after 2024-07"


@pytest.mark.parametrize("given, year", [("late December", 2025), ("mid-December", 2025), ("early December", 2026),
                                         ("late March", 2026)])
def test_a_part_of_a_month_without_its_year_is_the_last_one_begun(given, year):
    """On 6 December 2026 late December 2026 has not begun: it was offered first, a span of days still to come that
    no search finds anything in, where the last late December is 2025's."""
    from search.query.date_hints import hint
    said = hint(given, "date_after", date(2026, 12, 6))
    assert said.startswith(f"which year is not said: for {given.replace('-', ' ')} {year} "), said
    assert f"; for {year - 1}'s, " in said, said


def test_a_quarter_with_its_year_after_since_or_before_is_the_one_argument_that_word_means():
    """'since Q3 2024' was told both ends of Q3 2024, which would have left out everything after it ('since Q3', of
    no year, was already told the one argument)."""
    from search.query.filters import iso_hint
    assert iso_hint("since Q3 2024", "date_after") == "'since Q3 2024' is date_after=2024-07"
    assert iso_hint("before H2 2023", "date_after") == "'before H2 2023' is date_before=2023-07"
    assert iso_hint("after spring 2024", "--date-after") == \
        "'after spring 2024 north of the equator' is --date-after 2024-03"


@pytest.mark.parametrize("today, said", [
    # 2026's week 53 begins on 28 December; 2025 and 2024 have 52: it was told to count from today
    (date(2026, 12, 6), "which year is not said: for week 53 of 2020, give date_after=2020-W53 and "
                        "date_before=2021-W01; for 2015's, date_after=2015-W53 and date_before=2016-W01 ("),
    (date(2027, 1, 2), "which year is not said: for week 53 of 2026, give date_after=2026-W53 and "
                       "date_before=2027-W01; for 2020's, "),
])
def test_a_53rd_week_without_its_year_is_the_last_one_begun(today, said):
    from search.query.date_hints import hint
    assert hint("week 53", "date_after", today).startswith(said), hint("week 53", "date_after", today)


def test_a_relative_period_in_another_language_counts_from_the_today_given():
    """'letzte Woche', '上周' were counted from the clock's today, whatever today ``hint`` was given."""
    from search.query.date_hints import hint
    said = hint("letzte Woche", "date_after", date(2026, 5, 6))
    assert said.startswith("'letzte Woche' is 'last week': give the date itself, counted from today (2026-05-06)"), said
    assert "date_after=2026-04-29; for the week before this one, date_after=2026-04-27 and date_before=2026-05-04" \
        in said, said


@pytest.mark.parametrize("given, days", [("十二天前", 12), ("二十天前", 20), ("十天前", 10), ("三天前", 3)])
def test_days_ago_in_chinese_of_ten_or_more_get_their_date(given, days):
    """'十二天前' (12 days ago) was refused with the ISO forms alone, as if no date were said: a count of ten or more
    is written with 十 ('十二', '二十'), which no single numeral's lookup read."""
    from search.query.date_hints import hint
    said = hint(given, "date_after")
    assert said is not None and f"is '{days} days ago'" in said


@pytest.mark.parametrize("given, said", [
    ("去年三月", "for 去年三月 (March 2025), give date_after=2025-03 and date_before=2025-04 (date_before leaves out "
              "the date it names)"),
    ("前年11月份", "for 前年11月份 (November 2024), give date_after=2024-11 and date_before=2024-12"),
    ("2025年", "for 2025年 (2025), give date_after=2025-01 and date_before=2026-01"),
    ("三月", "which year is not said: for March 2026, give date_after=2026-03 and date_before=2026-04; for 2025's, "
            "date_after=2025-03 and date_before=2025-04"),
    ("12月", "which year is not said: for December 2025, give date_after=2025-12 and date_before=2026-01; for "
            "2024's,"),
])
def test_a_chinese_month_or_year_is_answered_with_the_arguments_to_give(given, said):
    """An assistant passing on a Chinese question's '去年三月' (March last year), '三月' or '2025年' as date_after was
    refused with the ISO forms alone, where 'March' and 'in 2025' were told the arguments to give."""
    from search.query.date_hints import hint
    answer = hint(given, "date_after", date(2026, 5, 6))
    assert answer is not None and answer.startswith(said), answer
    assert hint("十三月", "date_after", date(2026, 5, 6)) is None  # no month


@pytest.mark.parametrize("given, said", [("最近一周", "'最近一周' is 'last 7 days'"), ("近一个月", "'近一个月' is 'last 30 days'"),
                                         ("過去一週", "'過去一週' is 'last 7 days'")])
def test_the_last_days_said_in_chinese_get_their_date(given, said):
    """'最近一周' (the last week), '近一个月' were refused with the ISO forms alone, where 'last 7 days' was told its
    date_after."""
    from search.query.date_hints import hint
    answer = hint(given, "date_after", date(2026, 5, 6))
    assert answer is not None and answer.startswith(said) and "date_after=2026-04-" in answer, answer
