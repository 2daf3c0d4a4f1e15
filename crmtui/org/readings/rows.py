"""The org rows the readings use, parsed and indexed once, with code of their own.

Nothing here comes from :mod:`crmtui.org.solvers`: the readings are a second, independent
implementation of each task's definition, so a fault in one shows as a disagreement with the
other. Datetimes are naive UTC; only the first 19 characters of a stamp are read, which fits
both ``2024-05-26T06:58:00.000+0000`` (org rows) and ``2024-05-26T00:00:00Z`` (parameters).
"""

from __future__ import annotations

import re
from bisect import bisect_left
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date, datetime
from fractions import Fraction
from functools import cached_property
from typing import Any

Rows = Mapping[str, Sequence[Mapping[str, Any]]]
#: Words of a name or description: letters, digits, apostrophes, inner hyphens.
WORD = re.compile(r"[a-z0-9']+(?:-[a-z0-9']+)*")


def stamp(value: Any) -> datetime | None:
    """A stored date or datetime as a naive UTC datetime (None when empty)."""
    if not value:
        return None
    text = str(value).strip()
    if len(text) == 10:
        return datetime.fromisoformat(text)
    return datetime.fromisoformat(text[:19])


def words(text: str) -> list[str]:
    """Lower-cased words of ``text``."""
    return WORD.findall(text.lower())


@dataclass(frozen=True)
class CaseRow:
    """The Case fields the readings use."""

    id: str
    owner: str | None
    closed_status: bool
    created: datetime | None
    closed: datetime | None
    account: str | None
    issue: str | None
    item: str | None


@dataclass(frozen=True)
class Assignment:
    """One ``Owner Assignment`` history entry."""

    case: str
    when: datetime
    new: str | None
    old: str | None


@dataclass
class OrgRows:
    """Cases, assignments, orders and products of an org, indexed for the readings."""

    cases: list[CaseRow]
    assignments: list[Assignment]
    item_product: dict[str, str]
    order_items: dict[str, list[str]]
    orders: list[tuple[str, str | None, date | None, str | None]]
    product_names: dict[str, str]
    product_words: dict[str, frozenset[str]]
    account_state: dict[str, str | None]
    contact_account: dict[str, str | None]
    #: The sales rows of a CRMArena-Pro org (:class:`~crmtui.org.readings.pro_rows.ProRows`).
    pro: Any = None
    _cache: dict[Any, Any] = field(default_factory=dict)

    @classmethod
    def from_tables(cls, tables: Rows, sales: Rows | None = None) -> OrgRows:
        """Index raw org rows (values as text, the org layout); ``sales``: a CRMArena-Pro
        org's sales rows (:data:`~crmtui.org.readings.pro_rows.PRO_READING_FIELDS`)."""
        from crmtui.org.readings.pro_rows import ProRows

        cases = [
            CaseRow(
                str(r["Id"]),
                r.get("OwnerId") or None,
                r.get("Status") == "Closed",
                stamp(r.get("CreatedDate")),
                stamp(r.get("ClosedDate")),
                r.get("AccountId") or None,
                r.get("IssueId__c") or None,
                r.get("OrderItemId__c") or None,
            )
            for r in tables.get("Case", ())
        ]
        assignments = []
        for r in tables.get("CaseHistory__c", ()):
            when = stamp(r.get("CreatedDate"))
            if r.get("Field__c") == "Owner Assignment" and r.get("CaseId__c") and when:
                assignments.append(
                    Assignment(
                        str(r["CaseId__c"]),
                        when,
                        r.get("NewValue__c") or None,
                        r.get("OldValue__c") or None,
                    )
                )
        item_product: dict[str, str] = {}
        order_items: dict[str, list[str]] = defaultdict(list)
        for r in tables.get("OrderItem", ()):
            product = r.get("Product2Id")
            if not product:
                continue
            item_product[str(r["Id"])] = str(product)
            if r.get("OrderId"):
                order_items[str(r["OrderId"])].append(str(product))
        orders = []
        for r in tables.get("Order", ()):
            effective = r.get("EffectiveDate")
            day = date.fromisoformat(str(effective)[:10]) if effective else None
            orders.append((str(r["Id"]), r.get("AccountId") or None, day, r.get("Status")))
        names, vocab = {}, {}
        for r in tables.get("Product2", ()):
            name = str(r.get("Name") or "")
            names[str(r["Id"])] = name
            vocab[str(r["Id"])] = frozenset(words(f"{name} {r.get('Description') or ''}"))
        return cls(
            cases=cases,
            assignments=assignments,
            item_product=item_product,
            order_items=dict(order_items),
            orders=orders,
            product_names=names,
            product_words=vocab,
            account_state={str(r["Id"]): r.get("ShippingState") for r in tables.get("Account", ())},
            contact_account={str(r["Id"]): r.get("AccountId") for r in tables.get("Contact", ())},
            pro=None if sales is None else ProRows.from_tables(sales),
        )

    @cached_property
    def data_range(self) -> tuple[datetime, datetime] | None:
        """The first and last moment anything was recorded: cases opened and, in a
        CRMArena-Pro org, deals opened, leads created and contracts signed."""
        moments = [c.created for c in self.cases if c.created is not None]
        if self.pro is not None:
            moments += self.pro.moments()
        return (min(moments), max(moments)) if moments else None

    def window_outside_data(self, start: datetime, end: datetime) -> bool:
        """Whether ``[start, end)`` holds no moment of the org's data range at all (a question
        about it has no answer, and its date alone says so)."""
        span = self.data_range
        return span is not None and (end <= span[0] or start > span[1])

    @cached_property
    def _case_times(self) -> tuple[list[datetime], list[CaseRow]]:
        dated = sorted((c for c in self.cases if c.created), key=lambda c: (c.created, c.id))
        return [c.created for c in dated], dated  # type: ignore[misc]

    @cached_property
    def _assignment_times(self) -> tuple[list[datetime], list[Assignment]]:
        dated = sorted(self.assignments, key=lambda a: (a.when, a.case))
        return [a.when for a in dated], dated

    def cases_created(self, start: datetime, end: datetime) -> list[CaseRow]:
        """Cases whose CreatedDate lies in ``[start, end)``."""
        times, cases = self._case_times
        return cases[bisect_left(times, start) : bisect_left(times, end)]

    def assignments_dated(self, start: datetime, end: datetime) -> list[Assignment]:
        """Owner Assignment entries dated in ``[start, end)``."""
        times, rows = self._assignment_times
        return rows[bisect_left(times, start) : bisect_left(times, end)]

    @cached_property
    def cases_of_product(self) -> dict[str, list[CaseRow]]:
        """Product Id -> its cases (through the case's order item), at any time."""
        grouped: dict[str, list[CaseRow]] = defaultdict(list)
        for case in self.cases:
            product = self.item_product.get(case.item or "")
            if product:
                grouped[product].append(case)
        return dict(grouped)

    @cached_property
    def assignment_count(self) -> Counter[str]:
        """Case Id -> Owner Assignment entries over the case's whole history."""
        return Counter(a.case for a in self.assignments)

    @cached_property
    def purchases(self) -> dict[str, list[tuple[date, str]]]:
        """Account Id -> (EffectiveDate, product) of every item of its Activated orders."""
        grouped: dict[str, list[tuple[date, str]]] = defaultdict(list)
        for order_id, account, day, status in self.orders:
            if account and day and status == "Activated":
                grouped[account] += [(day, p) for p in self.order_items.get(order_id, ())]
        return dict(grouped)

    @cached_property
    def bought(self) -> dict[str, set[str]]:
        """Account Id -> products on any of its orders, whatever their status."""
        grouped: dict[str, set[str]] = defaultdict(set)
        for order_id, account, _, _ in self.orders:
            if account:
                grouped[account].update(self.order_items.get(order_id, ()))
        return dict(grouped)

    @cached_property
    def closed_by_issue(self) -> dict[str, Counter[str]]:
        """Issue Id -> owner -> closed cases about it, over the org's whole history."""
        grouped: dict[str, Counter[str]] = defaultdict(Counter)
        for case in self.cases:
            if case.closed_status and case.owner and case.issue:
                grouped[case.issue][case.owner] += 1
        return dict(grouped)

    @cached_property
    def unclosed_by_owner(self) -> Counter[str]:
        """Owner -> cases whose Status is anything but Closed."""
        return Counter(c.owner for c in self.cases if c.owner and not c.closed_status)

    def closed_on_product(self, product: str) -> Counter[str]:
        """Owner -> closed cases about ``product``."""
        return Counter(
            c.owner for c in self.cases_of_product.get(product, ()) if c.closed_status and c.owner
        )


def in_window(moment: datetime | None, start: datetime, end: datetime) -> bool:
    """Whether ``moment`` lies in the half-open window ``[start, end)``."""
    return moment is not None and start <= moment < end


def best(scores: Mapping[str, Any], mode: str = "max") -> tuple[str, ...]:
    """Every key holding the best score (several on a tie; none for no scores)."""
    if not scores:
        return ()
    top = max(scores.values()) if mode == "max" else min(scores.values())
    return tuple(sorted(k for k, v in scores.items() if v == top))


def averages(values: Iterable[tuple[str, int]]) -> dict[str, Fraction]:
    """Exact mean per key of ``(key, whole number)`` pairs (exact, so ties are real ties)."""
    totals: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for key, value in values:
        totals[key][0] += value
        totals[key][1] += 1
    return {key: Fraction(total, n) for key, (total, n) in totals.items()}


def seconds(start: datetime, end: datetime) -> int:
    """Whole seconds from ``start`` to ``end``."""
    delta = end - start
    return delta.days * 86_400 + delta.seconds
