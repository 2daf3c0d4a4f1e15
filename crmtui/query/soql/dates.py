"""Date and datetime literals: parsing, Salesforce formatting, and relative date ranges.

All ranges are computed in UTC relative to a caller-supplied ``today`` (an instance's
"today", or the real UTC date). Each relative literal is a half-open range
``[start, end)`` of calendar days; ``field = LITERAL`` means "inside the range",
``field < LITERAL`` "before start", ``field > LITERAL`` "on or after end", and so on, as
Salesforce defines them. Weeks start on Sunday (Salesforce's en_US locale); the fiscal year
is the calendar year (Salesforce's default fiscal year settings).

Definitions (n >= 0; "sow" = Sunday starting this week, "som" = first of this month,
"soq" = first day of this quarter, "soy" = January 1st):

=====================  ==================================================================
TODAY / YESTERDAY /    that one day
TOMORROW
THIS_WEEK / LAST_WEEK  [sow, sow+7) / [sow-7, sow) / [sow+7, sow+14)
/ NEXT_WEEK
THIS/LAST/NEXT_MONTH   the calendar month containing today / before it / after it
THIS/LAST/NEXT_QUARTER the calendar quarter containing today / before / after
THIS/LAST/NEXT_YEAR    the calendar year containing today / before / after
LAST_90_DAYS           = LAST_N_DAYS:90
NEXT_90_DAYS           = NEXT_N_DAYS:90
LAST_N_DAYS:n          [today-n, today+1): n days back *including today*, through end of today
NEXT_N_DAYS:n          [today+1, today+1+n): the next n days, *excluding today*
N_DAYS_AGO:n           the single day today-n
LAST_N_WEEKS:n         [sow-7n, sow): the n whole weeks before this week
NEXT_N_WEEKS:n         [sow+7, sow+7+7n): the n whole weeks after this week
N_WEEKS_AGO:n          the whole week starting sow-7n
LAST_N_MONTHS:n        [som-n months, som): the n whole months before this month
NEXT_N_MONTHS:n        [som+1 month, som+1+n months): the n whole months after this month
N_MONTHS_AGO:n         the whole month starting som-n months
LAST_N_QUARTERS:n      the n whole quarters before this quarter (likewise NEXT_, N_..._AGO)
LAST_N_YEARS:n         the n whole years before this year (likewise NEXT_, N_YEARS_AGO)
*_FISCAL_*             the calendar equivalents (fiscal year = calendar year)
=====================  ==================================================================
"""

from __future__ import annotations

import datetime as dt
import re

_DATETIME = re.compile(
    r"(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,3}))?(Z|[+-]\d{2}:?\d{2})$",
    re.IGNORECASE,
)


def parse_datetime_literal(text: str) -> dt.datetime:
    """Parse an unquoted SOQL datetime (``2020-01-01T00:00:00Z``, ``...+05:30``) to UTC.

    Raises:
        ValueError: When the text is not a valid datetime.
    """
    m = _DATETIME.match(text)
    if not m:
        raise ValueError(text)
    year, month, day, hour, minute, second = (int(m.group(i)) for i in range(1, 7))
    millis = int((m.group(7) or "0").ljust(3, "0"))
    zone = m.group(8).upper()
    if zone == "Z":
        offset = dt.timedelta(0)
    else:
        digits = zone[1:].replace(":", "")
        offset = dt.timedelta(hours=int(digits[:2]), minutes=int(digits[2:]))
        if zone[0] == "-":
            offset = -offset
    value = dt.datetime(
        year, month, day, hour, minute, second, millis * 1000, tzinfo=dt.timezone(offset)
    )
    return value.astimezone(dt.UTC)


def format_datetime(value: dt.datetime) -> str:
    """Salesforce's datetime format, in UTC: ``2024-05-26T06:58:00.000+0000``.

    Stored org datetimes use exactly this fixed-width format, so two such strings compare
    lexicographically in the same order as the instants they denote (same zone, same field
    widths, most significant field first). That is why filters compare normalised text.
    """
    value = value.astimezone(dt.UTC)
    return value.strftime("%Y-%m-%dT%H:%M:%S.") + f"{value.microsecond // 1000:03d}+0000"


def day_start(day: dt.date) -> str:
    """Midnight UTC of ``day`` in Salesforce datetime format."""
    return f"{day.isoformat()}T00:00:00.000+0000"


def normalise_stored_datetime(text: str) -> str:
    """Return a stored datetime string in Salesforce's format (fast path for ``+0000``)."""
    # Canonical YYYY-MM-DDTHH:MM:SS.mmm+0000 (what org files store): nothing to do.
    if len(text) == 28 and text[10] == "T" and text.endswith("+0000"):
        return text
    try:
        parsed = dt.datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return text
    if parsed.tzinfo is None:
        parsed = parsed.replace(tzinfo=dt.UTC)
    return format_datetime(parsed)


def _add_months(day: dt.date, months: int) -> dt.date:
    index = day.year * 12 + (day.month - 1) + months
    return dt.date(index // 12, index % 12 + 1, 1)


def _week_start(today: dt.date) -> dt.date:
    # date.weekday(): Monday=0 ... Sunday=6; Salesforce en_US weeks begin on Sunday.
    return today - dt.timedelta(days=(today.weekday() + 1) % 7)


def _quarter_start(today: dt.date) -> dt.date:
    return dt.date(today.year, 3 * ((today.month - 1) // 3) + 1, 1)


Range = tuple[dt.date, dt.date]


def _unit_range(unit: str, today: dt.date, offset: int, count: int = 1) -> Range:
    """``count`` whole units starting ``offset`` units from the current one."""
    if unit == "DAY":
        start = today + dt.timedelta(days=offset)
        return start, start + dt.timedelta(days=count)
    if unit == "WEEK":
        start = _week_start(today) + dt.timedelta(days=7 * offset)
        return start, start + dt.timedelta(days=7 * count)
    if unit == "MONTH":
        som = dt.date(today.year, today.month, 1)
        return _add_months(som, offset), _add_months(som, offset + count)
    if unit == "QUARTER":
        soq = _quarter_start(today)
        return _add_months(soq, 3 * offset), _add_months(soq, 3 * (offset + count))
    start_year = today.year + offset
    return dt.date(start_year, 1, 1), dt.date(start_year + count, 1, 1)


_SIMPLE = {
    "TODAY": ("DAY", 0),
    "YESTERDAY": ("DAY", -1),
    "TOMORROW": ("DAY", 1),
}
_UNITS = {"WEEK": "WEEK", "MONTH": "MONTH", "QUARTER": "QUARTER", "YEAR": "YEAR"}

#: Literals that take no ``:n`` argument.
SIMPLE_LITERALS: frozenset[str] = frozenset(
    list(_SIMPLE)
    + [f"{rel}_{unit}" for rel in ("THIS", "LAST", "NEXT") for unit in _UNITS]
    + [f"{rel}_FISCAL_{unit}" for rel in ("THIS", "LAST", "NEXT") for unit in ("QUARTER", "YEAR")]
    + ["LAST_90_DAYS", "NEXT_90_DAYS"]
)

#: Literals of the form ``NAME:n``.
N_LITERALS: frozenset[str] = frozenset(
    [f"{rel}_N_{unit}S" for rel in ("LAST", "NEXT") for unit in ("DAY", *_UNITS)]
    + [f"N_{unit}S_AGO" for unit in ("DAY", *_UNITS)]
    + [f"{rel}_N_FISCAL_{unit}S" for rel in ("LAST", "NEXT") for unit in ("QUARTER", "YEAR")]
    + [f"N_FISCAL_{unit}S_AGO" for unit in ("QUARTER", "YEAR")]
)


def literal_range(name: str, n: int | None, today: dt.date) -> Range:
    """The half-open day range ``[start, end)`` a relative date literal denotes.

    Args:
        name: Upper-case literal name (``LAST_N_DAYS``, ``THIS_MONTH``...).
        n: The ``:n`` argument for ``*_N_*`` literals, else None.
        today: The reference date (UTC).

    Raises:
        KeyError: When ``name`` is not a known literal.
    """
    name = name.replace("_FISCAL_", "_")
    if name in _SIMPLE:
        unit, offset = _SIMPLE[name]
        return _unit_range(unit, today, offset)
    if name == "LAST_90_DAYS":
        name, n = "LAST_N_DAYS", 90
    elif name == "NEXT_90_DAYS":
        name, n = "NEXT_N_DAYS", 90
    rel, _, rest = name.partition("_")
    if n is None:
        unit = _UNITS[rest]
        offset = {"THIS": 0, "LAST": -1, "NEXT": 1}[rel]
        return _unit_range(unit, today, offset)
    if rel == "N" and rest.endswith("S_AGO"):
        unit = rest[: -len("S_AGO")]
        if unit not in (*_UNITS, "DAY"):
            raise KeyError(name)
        return _unit_range(unit, today, -n)
    if not rest.startswith("N_") or not rest.endswith("S"):
        raise KeyError(name)
    unit = rest[2:-1]
    if unit not in (*_UNITS, "DAY"):
        raise KeyError(name)
    if unit == "DAY":
        # Days are the exception: LAST_N_DAYS includes today; NEXT_N_DAYS starts tomorrow.
        if rel == "LAST":
            return today - dt.timedelta(days=n), today + dt.timedelta(days=1)
        return today + dt.timedelta(days=1), today + dt.timedelta(days=1 + n)
    if rel == "LAST":
        return _unit_range(unit, today, -n, n)
    if rel == "NEXT":
        return _unit_range(unit, today, 1, n)
    raise KeyError(name)
