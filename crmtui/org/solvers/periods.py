"""Resolve the time periods task questions talk about into ``[start, end)`` datetimes.

Two kinds of period appear in the questions:

* relative ones ("the past 3 months"): the window ends at today's date, 00:00:00 UTC, and
  starts ``count`` units earlier, with calendar arithmetic for months (one quarter = three
  months, one year = twelve), the way ``dateutil.relativedelta`` does it: Mar 31 minus one
  month is Feb 28/29;
* named ones ("Winter 2021", "Q4 2022", "February 2021"): a calendar month, a quarter, or a
  season of three months; Winter starts on December 1 of the named year.

Every solver treats a window as half-open, ``[start, end)``: the start is in, the end is not
(so "the past 3 months" never includes anything stamped at 00:00:00 of today).
"""

from __future__ import annotations

import calendar
from dataclasses import dataclass
from datetime import date, datetime, timedelta

from crmtui.org.solvers.common import SolverError, parse_datetime

UNITS = ("day", "week", "month", "quarter", "year")
MONTHS_PER_UNIT = {"month": 1, "quarter": 3, "year": 12}
MONTH_NAMES = tuple(calendar.month_name[1:])
QUARTERS = ("Q1", "Q2", "Q3", "Q4")
SEASON_START_MONTH = {"Spring": 3, "Summer": 6, "Fall": 9, "Winter": 12}
SEASON_ALIASES = {"Autumn": "Fall"}
NAMED_PERIODS = MONTH_NAMES + QUARTERS + tuple(SEASON_START_MONTH)


def add_months(moment: datetime, months: int) -> datetime:
    """``moment`` shifted by ``months`` calendar months, clamping the day to the month's end."""
    total = moment.year * 12 + (moment.month - 1) + months
    year, month = divmod(total, 12)
    month += 1
    if not 1 <= year <= 9999:
        raise SolverError(f"date out of range after adding {months} months to {moment:%Y-%m-%d}")
    day = min(moment.day, calendar.monthrange(year, month)[1])
    return moment.replace(year=year, month=month, day=day)


def shift_back(end: datetime, unit: str, count: int) -> datetime:
    """The moment ``count`` units (day, week, month, quarter, year) before ``end``.

    Raises:
        SolverError: For an unknown unit or a negative count.
    """
    if unit not in UNITS:
        raise SolverError(f"unknown period unit {unit!r}; expected one of {', '.join(UNITS)}")
    if count < 0:
        raise SolverError(f"period count must not be negative, got {count}")
    if unit == "day":
        return end - timedelta(days=count)
    if unit == "week":
        return end - timedelta(weeks=count)
    return add_months(end, -count * MONTHS_PER_UNIT[unit])


def relative_window(today: str | date | datetime, unit: str, count: int) -> Window:
    """The window "the past ``count`` ``unit``s" as seen on ``today``."""
    end = _midnight(today)
    return Window(shift_back(end, unit, count), end)


def named_window(name: str, year: int) -> Window:
    """The window of a named month, quarter or season of ``year``.

    Raises:
        SolverError: For a name that is none of these.
    """
    name = SEASON_ALIASES.get(name, name)
    if name in QUARTERS:
        start = datetime(year, 3 * int(name[1]) - 2, 1)
        return Window(start, add_months(start, 3))
    if name in SEASON_START_MONTH:
        start = datetime(year, SEASON_START_MONTH[name], 1)
        return Window(start, add_months(start, 3))
    if name in MONTH_NAMES:
        start = datetime(year, MONTH_NAMES.index(name) + 1, 1)
        return Window(start, add_months(start, 1))
    raise SolverError(f"unknown period name {name!r}; expected a month name, Q1-Q4 or a season")


@dataclass(frozen=True)
class Window:
    """A time window: ``start`` is inclusive, ``end`` exclusive."""

    start: datetime
    end: datetime

    def as_params(self) -> dict[str, str]:
        """The window as solver keyword arguments (``start``/``end`` ISO strings)."""
        return {"start": iso(self.start), "end": iso(self.end)}


def iso(moment: datetime) -> str:
    """A naive UTC datetime as ``YYYY-MM-DDTHH:MM:SSZ``."""
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


def as_datetime(value: str | date | datetime) -> datetime:
    """Coerce a solver's ``start``/``end`` argument to a naive UTC datetime."""
    if isinstance(value, datetime):
        parsed = parse_datetime(value)
    elif isinstance(value, date):
        parsed = datetime(value.year, value.month, value.day)
    else:
        parsed = parse_datetime(value)
    if parsed is None:
        raise SolverError("a window bound is missing")
    return parsed


def _midnight(today: str | date | datetime) -> datetime:
    moment = as_datetime(today)
    return moment.replace(hour=0, minute=0, second=0, microsecond=0)
