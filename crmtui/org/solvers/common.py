"""Shared pieces of the reference solvers: the result type, an index over org tables, ranking.

The solvers are pure functions over the raw org tables (``{object name: [row dict, ...]}``,
values as text in the org layout). Parsing every row on every call would make task generation
slow, so a caller that runs many solvers over one org builds an :class:`OrgIndex` once with
:func:`index_tables` and passes it instead of the raw tables; every solver accepts either.
"""

from __future__ import annotations

from bisect import bisect_left
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from fractions import Fraction
from functools import cached_property
from typing import Any

from crmtui.errors import CrmtuiError

Row = Mapping[str, str | None]
Tables = Mapping[str, Sequence[Row]]
Answer = str | list[str] | None

OWNER_ASSIGNMENT = "Owner Assignment"
CLOSED = "Closed"


class SolverError(CrmtuiError):
    """A reference solver was given parameters it cannot interpret (bad period, mode, date)."""


@dataclass(frozen=True)
class SolverResult:
    """What a reference solver computed.

    Attributes:
        answer: The gold answer: one string, a list of strings when several candidates tie,
            or None when the question has no answer in the data.
        evidence: Ids of the records the answer rests on (cases, history rows, order items,
            articles), sorted, without duplicates.
        detail: How the answer was reached, as plain JSON values (see :func:`ranking`):
            ``scores`` (candidate -> the value it was ranked by), ``support`` (candidate ->
            how many records that value rests on), ``better`` (``min`` or ``max``), ``kind``
            (``count`` or ``average``); case routing adds ``rule``, the rule that decided.
    """

    answer: Answer
    evidence: list[str] = field(default_factory=list)
    detail: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class CaseRec:
    """The Case fields the solvers use, parsed."""

    id: str
    owner_id: str | None
    status: str | None
    created: datetime | None
    closed: datetime | None
    account_id: str | None
    issue_id: str | None
    order_item_id: str | None


@dataclass(frozen=True)
class AssignmentRec:
    """One ``CaseHistory__c`` row with ``Field__c = 'Owner Assignment'``."""

    id: str
    case_id: str | None
    created: datetime | None
    new_owner: str | None
    old_owner: str | None


@dataclass(frozen=True)
class OrderRec:
    """The Order fields the solvers use."""

    id: str
    account_id: str | None
    effective_date: str | None
    status: str | None


@dataclass
class OrgIndex:
    """Parsed, cross-referenced view of org tables, built once by :func:`index_tables`."""

    cases: list[CaseRec]
    assignments: list[AssignmentRec]
    orders: dict[str, OrderRec]
    order_items_by_product: dict[str, list[str]]
    order_items_by_order: dict[str, list[tuple[str, str | None]]]
    account_states: dict[str, str | None]
    contact_accounts: dict[str, str | None]
    cases_by_order_item: dict[str, list[CaseRec]] = field(default_factory=dict)

    # Windows are searched by bisection: task generation asks thousands of window questions
    # of one org, and a scan of every case per question would dominate the build.
    @cached_property
    def _case_timeline(self) -> tuple[list[datetime], list[CaseRec]]:
        return _timeline(self.cases)

    @cached_property
    def _assignment_timeline(self) -> tuple[list[datetime], list[AssignmentRec]]:
        return _timeline(self.assignments)

    @cached_property
    def owner_assignments_per_case(self) -> Counter[str]:
        """How many Owner Assignment rows each case has over its whole history."""
        return Counter(row.case_id for row in self.assignments if row.case_id)

    @cached_property
    def _product_timelines(self) -> dict[str, tuple[list[datetime], list[CaseRec]]]:
        return {
            product_id: _timeline(
                case for item_id in items for case in self.cases_by_order_item.get(item_id, ())
            )
            for product_id, items in self.order_items_by_product.items()
        }

    @cached_property
    def closed_by_issue(self) -> dict[str, dict[str, list[str]]]:
        """Issue Id -> owner -> Ids of that owner's closed cases about the issue."""
        grouped: dict[str, dict[str, list[str]]] = defaultdict(lambda: defaultdict(list))
        for case in self.cases:
            if case.status == CLOSED and case.owner_id and case.issue_id:
                grouped[case.issue_id][case.owner_id].append(case.id)
        return {issue: dict(owners) for issue, owners in grouped.items()}

    @cached_property
    def closed_by_item(self) -> dict[str, list[CaseRec]]:
        """Order item Id -> the closed cases on it that have an owner."""
        grouped: dict[str, list[CaseRec]] = defaultdict(list)
        for case in self.cases:
            if case.status == CLOSED and case.owner_id and case.order_item_id:
                grouped[case.order_item_id].append(case)
        return dict(grouped)

    @cached_property
    def open_by_owner(self) -> dict[str, list[str]]:
        """Owner -> Ids of their cases whose Status is not 'Closed'."""
        grouped: dict[str, list[str]] = defaultdict(list)
        for case in self.cases:
            if case.status != CLOSED and case.owner_id:
                grouped[case.owner_id].append(case.id)
        return dict(grouped)

    @cached_property
    def _closure_timeline(self) -> tuple[list[datetime], list[tuple[str, str, str, int]]]:
        """Closed cases with a shipping state, by CreatedDate: (case Id, account, state,
        microseconds from creation to closure)."""
        times: list[datetime] = []
        rows: list[tuple[str, str, str, int]] = []
        for case in self._case_timeline[1]:
            if case.status != CLOSED or case.closed is None or not case.account_id:
                continue
            state = self.account_states.get(case.account_id)
            if state:
                times.append(case.created)  # type: ignore[arg-type]
                micros = elapsed_micros(case.created, case.closed)  # type: ignore[arg-type]
                rows.append((case.id, case.account_id, state, micros))
        return times, rows

    def closures_created(self, start: datetime, end: datetime) -> list[tuple[str, str, str, int]]:
        """Closed cases with a shipping state created in ``[start, end)``, oldest first:
        (case Id, account Id, state, microseconds from creation to closure)."""
        return _between(self._closure_timeline, start, end)

    def cases_created(self, start: datetime, end: datetime) -> list[CaseRec]:
        """Cases with ``start <= CreatedDate < end``, oldest first."""
        return _between(self._case_timeline, start, end)

    def assignments_dated(self, start: datetime, end: datetime) -> list[AssignmentRec]:
        """Owner Assignment rows with ``start <= CreatedDate < end``, oldest first."""
        return _between(self._assignment_timeline, start, end)

    def product_cases_created(
        self, product_id: str, start: datetime, end: datetime
    ) -> list[CaseRec]:
        """Cases about ``product_id`` (through their order item) created in ``[start, end)``."""
        timeline = self._product_timelines.get(product_id)
        return _between(timeline, start, end) if timeline else []

    def product_case_count(self, product_id: str) -> int:
        """How many cases are about ``product_id``, at any time."""
        timeline = self._product_timelines.get(product_id)
        return len(timeline[1]) if timeline else 0


def _timeline(records: Iterable[Any]) -> tuple[list[datetime], list[Any]]:
    dated = sorted((r for r in records if r.created is not None), key=lambda r: (r.created, r.id))
    return [r.created for r in dated], dated


def _between(timeline: tuple[list[datetime], list[Any]], start: datetime, end: datetime) -> list:
    times, records = timeline
    return records[bisect_left(times, start) : bisect_left(times, end)]


def parse_datetime(value: str | datetime | None) -> datetime | None:
    """Parse a Salesforce-style datetime or date into a naive UTC datetime.

    Accepts ``2024-05-26T06:58:00.000+0000``, ``...Z``, ``2024-05-26`` and datetime objects.

    Raises:
        SolverError: When the text is not a date or datetime.
    """
    if value is None or value == "":
        return None
    if isinstance(value, datetime):
        moment = value
    else:
        try:
            moment = datetime.fromisoformat(value.strip())
        except ValueError:
            raise SolverError(f"not a date or datetime: {value!r}") from None
    if moment.tzinfo is not None:
        moment = moment.astimezone(UTC).replace(tzinfo=None)
    return moment


def index_tables(tables: Tables | OrgIndex) -> OrgIndex:
    """Build (or pass through) the :class:`OrgIndex` for ``tables``.

    Missing objects count as empty tables, so a fixture only needs the objects a solver reads.
    """
    if isinstance(tables, OrgIndex):
        return tables
    cases = [
        CaseRec(
            id=str(row["Id"]),
            owner_id=row.get("OwnerId"),
            status=row.get("Status"),
            created=parse_datetime(row.get("CreatedDate")),
            closed=parse_datetime(row.get("ClosedDate")),
            account_id=row.get("AccountId"),
            issue_id=row.get("IssueId__c"),
            order_item_id=row.get("OrderItemId__c"),
        )
        for row in tables.get("Case", ())
    ]
    assignments = [
        AssignmentRec(
            id=str(row["Id"]),
            case_id=row.get("CaseId__c"),
            created=parse_datetime(row.get("CreatedDate")),
            new_owner=row.get("NewValue__c") or None,
            old_owner=row.get("OldValue__c") or None,
        )
        for row in tables.get("CaseHistory__c", ())
        if row.get("Field__c") == OWNER_ASSIGNMENT
    ]
    orders = {
        str(row["Id"]): OrderRec(
            id=str(row["Id"]),
            account_id=row.get("AccountId"),
            effective_date=_date_part(row.get("EffectiveDate")),
            status=row.get("Status"),
        )
        for row in tables.get("Order", ())
    }
    by_product: dict[str, list[str]] = defaultdict(list)
    by_order: dict[str, list[tuple[str, str | None]]] = defaultdict(list)
    for row in tables.get("OrderItem", ()):
        item_id, product_id = str(row["Id"]), row.get("Product2Id")
        if product_id:
            by_product[product_id].append(item_id)
        if row.get("OrderId"):
            by_order[str(row["OrderId"])].append((item_id, product_id))
    by_item: dict[str, list[CaseRec]] = defaultdict(list)
    for case in cases:
        if case.order_item_id:
            by_item[case.order_item_id].append(case)
    return OrgIndex(
        cases=cases,
        assignments=assignments,
        orders=orders,
        order_items_by_product=dict(by_product),
        order_items_by_order=dict(by_order),
        account_states={str(r["Id"]): r.get("ShippingState") for r in tables.get("Account", ())},
        contact_accounts={str(r["Id"]): r.get("AccountId") for r in tables.get("Contact", ())},
        cases_by_order_item=dict(by_item),
    )


def elapsed_micros(start: datetime, end: datetime) -> int:
    """Whole microseconds from ``start`` to ``end``; integers keep averages exact for ties."""
    delta = end - start
    return (delta.days * 86_400 + delta.seconds) * 1_000_000 + delta.microseconds


def _date_part(value: str | None) -> str | None:
    # EffectiveDate is a date, but tolerate a datetime-shaped value by keeping its date.
    return value[:10] if value else None


def extreme_keys(values: Mapping[str, int | Fraction], mode: str) -> Answer:
    """The key with the smallest (``mode='min'``) or largest (``'max'``) value.

    Returns:
        None for an empty mapping, the single best key, or a sorted list of keys that tie.

    Raises:
        SolverError: When ``mode`` is neither 'min' nor 'max'.
    """
    if mode not in ("min", "max"):
        raise SolverError(f"mode must be 'min' or 'max', not {mode!r}")
    if not values:
        return None
    best = min(values.values()) if mode == "min" else max(values.values())
    winners = sorted(key for key, value in values.items() if value == best)
    return winners[0] if len(winners) == 1 else winners


def ranking(
    scores: Mapping[str, int | Fraction],
    support: Mapping[str, int],
    better: str,
    **extra: Any,
) -> dict[str, Any]:
    """A solver's ``detail``: every candidate's score and support, as plain JSON values.

    Averages (Fractions) become floats in the unit they were computed in; counts stay ints.
    """
    kind = "average" if any(isinstance(v, Fraction) for v in scores.values()) else "count"
    return {
        "scores": {
            key: float(value) if isinstance(value, Fraction) else value
            for key, value in sorted(scores.items())
        },
        "support": {key: support.get(key, 0) for key in sorted(scores)},
        "better": better,
        "kind": kind,
        **extra,
    }


def winners_of(answer: Answer) -> list[str]:
    """The answer as a list of keys (empty for None)."""
    if answer is None:
        return []
    return [answer] if isinstance(answer, str) else list(answer)


def evidence_list(ids: Iterable[str | None]) -> list[str]:
    """Sorted, de-duplicated, non-empty ids."""
    return sorted({i for i in ids if i})
