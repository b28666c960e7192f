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
    assert _refused("recently") == counted[:-2]  # no date read from it: today's, to count from


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
