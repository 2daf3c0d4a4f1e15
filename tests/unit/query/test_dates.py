"""Relative date literals: ranges and boundaries against a fixed today (UTC)."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable

import pytest

from crmtui.query.soql.dates import (
    N_LITERALS,
    SIMPLE_LITERALS,
    format_datetime,
    literal_range,
    normalise_stored_datetime,
    parse_datetime_literal,
)

from .conftest import C

D = dt.date
WED = D(2024, 5, 15)  # a Wednesday; its week starts Sunday 2024-05-12


@pytest.mark.parametrize(
    ("name", "n", "start", "end"),
    [
        ("TODAY", None, D(2024, 5, 15), D(2024, 5, 16)),
        ("YESTERDAY", None, D(2024, 5, 14), D(2024, 5, 15)),
        ("TOMORROW", None, D(2024, 5, 16), D(2024, 5, 17)),
        ("THIS_WEEK", None, D(2024, 5, 12), D(2024, 5, 19)),
        ("LAST_WEEK", None, D(2024, 5, 5), D(2024, 5, 12)),
        ("NEXT_WEEK", None, D(2024, 5, 19), D(2024, 5, 26)),
        ("THIS_MONTH", None, D(2024, 5, 1), D(2024, 6, 1)),
        ("LAST_MONTH", None, D(2024, 4, 1), D(2024, 5, 1)),
        ("NEXT_MONTH", None, D(2024, 6, 1), D(2024, 7, 1)),
        ("THIS_QUARTER", None, D(2024, 4, 1), D(2024, 7, 1)),
        ("LAST_QUARTER", None, D(2024, 1, 1), D(2024, 4, 1)),
        ("NEXT_QUARTER", None, D(2024, 7, 1), D(2024, 10, 1)),
        ("THIS_YEAR", None, D(2024, 1, 1), D(2025, 1, 1)),
        ("LAST_YEAR", None, D(2023, 1, 1), D(2024, 1, 1)),
        ("NEXT_YEAR", None, D(2025, 1, 1), D(2026, 1, 1)),
        ("THIS_FISCAL_QUARTER", None, D(2024, 4, 1), D(2024, 7, 1)),
        ("LAST_90_DAYS", None, D(2024, 2, 15), D(2024, 5, 16)),
        ("NEXT_90_DAYS", None, D(2024, 5, 16), D(2024, 8, 14)),
        ("LAST_N_DAYS", 7, D(2024, 5, 8), D(2024, 5, 16)),
        ("LAST_N_DAYS", 0, D(2024, 5, 15), D(2024, 5, 16)),
        ("NEXT_N_DAYS", 7, D(2024, 5, 16), D(2024, 5, 23)),
        ("N_DAYS_AGO", 3, D(2024, 5, 12), D(2024, 5, 13)),
        ("LAST_N_WEEKS", 2, D(2024, 4, 28), D(2024, 5, 12)),
        ("NEXT_N_WEEKS", 1, D(2024, 5, 19), D(2024, 5, 26)),
        ("N_WEEKS_AGO", 1, D(2024, 5, 5), D(2024, 5, 12)),
        ("LAST_N_MONTHS", 2, D(2024, 3, 1), D(2024, 5, 1)),
        ("LAST_N_MONTHS", 6, D(2023, 11, 1), D(2024, 5, 1)),
        ("NEXT_N_MONTHS", 2, D(2024, 6, 1), D(2024, 8, 1)),
        ("N_MONTHS_AGO", 5, D(2023, 12, 1), D(2024, 1, 1)),
        ("LAST_N_QUARTERS", 2, D(2023, 10, 1), D(2024, 4, 1)),
        ("NEXT_N_QUARTERS", 3, D(2024, 7, 1), D(2025, 4, 1)),
        ("N_QUARTERS_AGO", 1, D(2024, 1, 1), D(2024, 4, 1)),
        ("LAST_N_YEARS", 2, D(2022, 1, 1), D(2024, 1, 1)),
        ("NEXT_N_YEARS", 1, D(2025, 1, 1), D(2026, 1, 1)),
        ("N_YEARS_AGO", 2, D(2022, 1, 1), D(2023, 1, 1)),
        ("LAST_N_FISCAL_YEARS", 1, D(2023, 1, 1), D(2024, 1, 1)),
    ],
)
def test_literal_ranges(name: str, n: int | None, start: dt.date, end: dt.date) -> None:
    assert literal_range(name, n, WED) == (start, end)


def test_week_starts_on_sunday_even_on_sunday_and_saturday() -> None:
    assert literal_range("THIS_WEEK", None, D(2024, 5, 12))[0] == D(2024, 5, 12)
    assert literal_range("THIS_WEEK", None, D(2024, 5, 18))[0] == D(2024, 5, 12)


def test_month_arithmetic_crosses_years() -> None:
    assert literal_range("LAST_MONTH", None, D(2024, 1, 31)) == (D(2023, 12, 1), D(2024, 1, 1))
    assert literal_range("NEXT_QUARTER", None, D(2024, 11, 2)) == (D(2025, 1, 1), D(2025, 4, 1))


def test_every_known_literal_has_a_range() -> None:
    for name in SIMPLE_LITERALS:
        start, end = literal_range(name, None, WED)
        assert start < end
    for name in N_LITERALS:
        start, end = literal_range(name, 2, WED)
        assert start < end


def test_datetime_literals_normalise_to_utc() -> None:
    assert format_datetime(parse_datetime_literal("2024-05-15T12:00:00+02:00")) == (
        "2024-05-15T10:00:00.000+0000"
    )
    assert format_datetime(parse_datetime_literal("2024-05-14T22:30:00-0130")) == (
        "2024-05-15T00:00:00.000+0000"
    )
    assert format_datetime(parse_datetime_literal("2024-05-15T00:00:00.5Z")) == (
        "2024-05-15T00:00:00.500+0000"
    )


def test_stored_datetimes_normalise() -> None:
    assert normalise_stored_datetime("2024-05-26T06:58:00.000+0000") == (
        "2024-05-26T06:58:00.000+0000"
    )
    assert normalise_stored_datetime("2024-05-26T06:58:00Z") == "2024-05-26T06:58:00.000+0000"
    assert normalise_stored_datetime("2024-05-26T08:58:00+02:00") == (
        "2024-05-26T06:58:00.000+0000"
    )


# Case CreatedDate values are listed in conftest.ROWS; TODAY is 2024-05-15.
@pytest.mark.parametrize(
    ("literal", "expected"),
    [
        ("TODAY", {0}),
        ("YESTERDAY", {1}),
        ("TOMORROW", {11}),
        ("THIS_WEEK", {0, 1, 2, 11}),
        ("LAST_WEEK", {3}),
        ("NEXT_WEEK", set()),
        ("THIS_MONTH", {0, 1, 2, 3, 4, 11}),
        ("LAST_MONTH", {5}),
        ("LAST_N_DAYS:3", {0, 1, 2}),
        ("NEXT_N_DAYS:1", {11}),
        ("N_DAYS_AGO:1", {1}),
        ("LAST_N_WEEKS:1", {3}),
        ("LAST_N_MONTHS:2", {5, 6}),
        ("LAST_N_MONTHS:3", {5, 6, 7}),
        ("THIS_QUARTER", {0, 1, 2, 3, 4, 5, 11}),
        ("LAST_QUARTER", {6, 7, 8}),
        ("LAST_N_QUARTERS:2", {6, 7, 8, 9}),
        ("THIS_YEAR", {0, 1, 2, 3, 4, 5, 6, 7, 8, 11}),
        ("LAST_YEAR", {9, 10}),
        ("LAST_N_YEARS:1", {9, 10}),
        ("NEXT_YEAR", set()),
    ],
)
def test_literal_on_datetime_field(
    ids: Callable[[str], list[str]], literal: str, expected: set[int]
) -> None:
    got = ids(f"SELECT Id FROM Case WHERE CreatedDate = {literal}")
    assert set(got) == {C[i] for i in expected}


@pytest.mark.parametrize(
    ("where", "expected"),
    [
        ("CreatedDate < THIS_MONTH", {5, 6, 7, 8, 9, 10}),
        ("CreatedDate > LAST_MONTH", {0, 1, 2, 3, 4, 11}),
        ("CreatedDate <= YESTERDAY", {1, 2, 3, 4, 5, 6, 7, 8, 9, 10}),
        ("CreatedDate >= TODAY", {0, 11}),
        ("CreatedDate != TODAY", set(range(12)) - {0}),
        ("CreatedDate IN (TODAY, TOMORROW)", {0, 11}),
        ("DAY_ONLY(CreatedDate) = YESTERDAY", {1}),
    ],
)
def test_literal_with_range_operators(
    ids: Callable[[str], list[str]], where: str, expected: set[int]
) -> None:
    assert set(ids(f"SELECT Id FROM Case WHERE {where}")) == {C[i] for i in expected}


def test_literal_on_date_field(ids: Callable[[str], list[str]]) -> None:
    from .conftest import ORD

    assert set(ids("SELECT Id FROM Order WHERE EffectiveDate = THIS_MONTH")) == {
        ORD[0],
        ORD[2],
        ORD[4],
    }
    assert ids("SELECT Id FROM Order WHERE EffectiveDate = TODAY") == [ORD[4]]
    assert set(ids("SELECT Id FROM Order WHERE EffectiveDate < LAST_MONTH")) == {ORD[3]}
