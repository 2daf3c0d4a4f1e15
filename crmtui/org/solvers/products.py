"""Product-centred reference solvers: top issue (TII), monthly trend (MTA), named entity (NED).

A product's cases are the cases whose ``OrderItemId__c`` is an order item of that product.
Periods are half-open, ``[start, end)``, and a case belongs to one when its CreatedDate does
(upstream counted top-issue cases up to and including ``end``; generated orgs never stamp a
case exactly on a boundary, so both readings agree there, and the solvers follow the stated
one).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from datetime import date, datetime

from crmtui.org.solvers.common import (
    OrgIndex,
    SolverResult,
    Tables,
    evidence_list,
    extreme_keys,
    index_tables,
    ranking,
    winners_of,
)
from crmtui.org.solvers.periods import MONTH_NAMES, as_datetime

DateLike = str | date | datetime
ACTIVATED = "Activated"


def top_issue(
    tables: Tables | OrgIndex, product_id: str, start: DateLike, end: DateLike
) -> SolverResult:
    """The issue most often reported for ``product_id`` by cases created in ``[start, end)``.

    Every case counts whatever its status. Cases without an issue are not counted.

    Returns:
        The Issue__c Id, a list on a tie, or None when the product has no such case.
    """
    index = index_tables(tables)
    lo, hi = as_datetime(start), as_datetime(end)
    by_issue: dict[str, list[str]] = defaultdict(list)
    for case in index.product_cases_created(product_id, lo, hi):
        if case.issue_id:
            by_issue[case.issue_id].append(case.id)
    counts = {issue: len(ids) for issue, ids in by_issue.items()}
    answer = extreme_keys(counts, "max")
    evidence = [case_id for issue in winners_of(answer) for case_id in by_issue[issue]]
    return SolverResult(answer, evidence_list(evidence), ranking(counts, counts, "max"))


def monthly_trend(
    tables: Tables | OrgIndex, product_id: str, start: DateLike, end: DateLike
) -> SolverResult:
    """The month in which ``product_id`` got the most cases created in ``[start, end)``.

    Months are keyed by their English name only, so the same month of two different years
    adds up (as upstream did).

    Returns:
        A month name such as ``"March"``, a list on a tie, or None when there is no case.
    """
    index = index_tables(tables)
    lo, hi = as_datetime(start), as_datetime(end)
    by_month: dict[str, list[str]] = defaultdict(list)
    for case in index.product_cases_created(product_id, lo, hi):
        by_month[MONTH_NAMES[case.created.month - 1]].append(case.id)  # type: ignore[union-attr]
    counts = {month: len(ids) for month, ids in by_month.items()}
    answer = extreme_keys(counts, "max")
    if isinstance(answer, list):
        answer.sort(key=MONTH_NAMES.index)
    evidence = [case_id for month in winners_of(answer) for case_id in by_month[month]]
    return SolverResult(answer, evidence_list(evidence), ranking(counts, counts, "max"))


def named_entity(
    tables: Tables | OrgIndex,
    contact_id: str,
    purchase_date: DateLike,
    product_ids: Sequence[str],
) -> SolverResult:
    """The product among ``product_ids`` that the contact bought on ``purchase_date``.

    The contact's account must have an Activated order with that EffectiveDate containing an
    order item of one of the candidate products (the products a search for the customer's
    words finds).

    Returns:
        The Product2 Id, a sorted list when several different candidates were bought that day,
        or None when none was (or the contact is unknown).
    """
    index = index_tables(tables)
    day = as_datetime(purchase_date).strftime("%Y-%m-%d")
    account_id = index.contact_accounts.get(contact_id)
    if not account_id:
        return SolverResult(None)
    wanted = set(product_ids)
    bought: dict[str, list[str]] = defaultdict(list)
    for order in index.orders.values():
        if order.account_id != account_id or order.effective_date != day:
            continue
        if order.status != ACTIVATED:
            continue
        for item_id, product_id in index.order_items_by_order.get(order.id, ()):
            if product_id in wanted:
                bought[product_id] += [item_id, order.id]
    if not bought:
        return SolverResult(None)
    found = sorted(bought)
    answer: str | list[str] = found[0] if len(found) == 1 else found
    items = {product: len(ids) // 2 for product, ids in bought.items()}
    return SolverResult(
        answer,
        evidence_list(i for ids in bought.values() for i in ids),
        {"candidates": found, "items": items},
    )
