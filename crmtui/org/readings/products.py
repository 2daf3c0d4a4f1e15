"""Readings of the product tasks: top issue (TII), monthly trend (MTA), named entity (NED)."""

from __future__ import annotations

import calendar
from collections import Counter
from collections.abc import Mapping
from datetime import date, datetime, timedelta
from typing import Any

from crmtui.org.readings.rows import OrgRows, best, in_window, stamp, words
from crmtui.org.readings.types import Reading

MONTHS = tuple(calendar.month_name[1:])
#: Words of a customer's description of a product that do not describe it.
FILLER = frozenset({"the", "a", "an", "my", "new", "that", "for", "of", "pair"})


def read_top_issue(rows: OrgRows, params: Mapping[str, Any], _: Mapping[str, Any]) -> Reading:
    """The issue most of the product's cases created in the window report.

    Shortcut ``all_time_issue``: the product's most reported issue over all its cases, or None
    when it has no case in the window.
    """
    start, end = stamp(params["start"]), stamp(params["end"])
    cases = [c for c in rows.cases_of_product.get(str(params["product_id"]), ()) if c.issue]
    in_period = Counter(c.issue for c in cases if in_window(c.created, start, end))  # type: ignore[arg-type]
    all_time = Counter(c.issue for c in cases)
    shortcut = best(all_time) if in_period else ()  # type: ignore[arg-type]
    return Reading(best(in_period), {"all_time_issue": shortcut})  # type: ignore[arg-type]


def read_monthly_trend(rows: OrgRows, params: Mapping[str, Any], _: Mapping[str, Any]) -> Reading:
    """The month name with most of the product's cases created in the window.

    Shortcuts: ``all_time_month``, the product's busiest month name over all its cases;
    ``all_time_month_in_window``, the same among the month names the window covers; and, on
    CRMArena orgs, ``peak_if_in_window``, the product's all-time busiest month name when the
    window has one of its cases in that month, else the careful answer.
    """
    start, end = stamp(params["start"]), stamp(params["end"])
    cases = rows.cases_of_product.get(str(params["product_id"]), ())
    month = {c.id: MONTHS[c.created.month - 1] for c in cases if c.created}
    in_period = Counter(month[c.id] for c in cases if in_window(c.created, start, end))  # type: ignore[arg-type]
    all_time = Counter(month.values())
    covered = _months_covered(start, end)  # type: ignore[arg-type]
    shortcuts = {
        "all_time_month": best(all_time),
        "all_time_month_in_window": best({m: n for m, n in all_time.items() if m in covered}),
    }
    if rows.pro is None:
        present = tuple(m for m in best(all_time) if m in in_period)  # type: ignore[arg-type]
        shortcuts["peak_if_in_window"] = present or best(in_period)
    return Reading(best(in_period), shortcuts)


def _months_covered(start: datetime, end: datetime) -> set[str]:
    """Month names of which some part lies in ``[start, end)``."""
    covered = {MONTHS[start.month - 1]}
    year, month = start.year, start.month
    while len(covered) < 12:
        year, month = (year + 1, 1) if month == 12 else (year, month + 1)
        if datetime(year, month, 1) >= end:
            break
        covered.add(MONTHS[month - 1])
    return covered


def months_back(day: date, count: int) -> date:
    """``day`` moved back ``count`` calendar months, clamped to the month's last day."""
    total = day.year * 12 + day.month - 1 - count
    year, month = divmod(total, 12)
    return date(year, month + 1, min(day.day, calendar.monthrange(year, month + 1)[1]))


def asked_day(today: date, unit: str, count: int, *, month_days: int | None = None) -> date:
    """The purchase day "``count`` ``unit``s ago" points at (``month_days``: a month read as
    that many days instead of a calendar month)."""
    if unit == "month":
        if month_days is not None:
            return today - timedelta(days=month_days * count)
        return months_back(today, count)
    return today - timedelta(days=count * (7 if unit == "week" else 1))


def fitting(rows: OrgRows, phrase: str) -> set[str]:
    """Products whose name or description holds every word the customer describes it with."""
    wanted = {w for w in words(phrase) if w not in FILLER}
    return {p for p, vocab in rows.product_words.items() if wanted <= vocab}


def read_named_entity(
    rows: OrgRows, params: Mapping[str, Any], context: Mapping[str, Any]
) -> Reading:
    """The contact's Activated purchase, on the day the question points at, that fits the
    customer's words; several fitting purchases that day make the instance undecidable.

    Shortcuts: ``noun_3_days``, any purchase of a product whose name ends with the phrase's
    last word within 3 days of that day; ``month_30_days`` (month questions only), the
    careful reading with a month taken as 30 days; and, on CRMArena orgs, ``fit_3_days``,
    any purchase of a product the words fit within 3 days of that day (the date read
    loosely).
    """
    phrase = str(context.get("phrase") or context.get("keyword") or "")
    unit, count = context["interval"]
    today = date.fromisoformat(str(context["today"]))
    account = rows.contact_account.get(str(params["contact_id"]))
    purchases = rows.purchases.get(account or "", [])
    fits = fitting(rows, phrase)
    day = asked_day(today, unit, int(count))
    careful = tuple(sorted({p for d, p in purchases if d == day and p in fits}))
    noun = (words(phrase) or [""])[-1]
    near = {
        p
        for d, p in purchases
        if abs((d - day).days) <= 3 and (words(rows.product_names.get(p, "")) or [""])[-1] == noun
    }
    shortcuts = {"noun_3_days": tuple(sorted(near))}
    if rows.pro is None:
        loose = {p for d, p in purchases if abs((d - day).days) <= 3 and p in fits}
        shortcuts["fit_3_days"] = tuple(sorted(loose))
    if unit == "month":
        day30 = asked_day(today, unit, int(count), month_days=30)
        shortcuts["month_30_days"] = tuple(
            sorted({p for d, p in purchases if d == day30 and p in fits})
        )
    return Reading(careful, shortcuts)
