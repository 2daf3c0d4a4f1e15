"""Region reference solver: the state with the quickest case closures (BRI)."""

from __future__ import annotations

from collections import defaultdict
from datetime import date, datetime
from fractions import Fraction

from crmtui.org.solvers.common import (
    CLOSED,
    OrgIndex,
    SolverResult,
    Tables,
    elapsed_micros,
    evidence_list,
    extreme_keys,
    index_tables,
    winners_of,
)
from crmtui.org.solvers.periods import as_datetime

DateLike = str | date | datetime


def best_region(tables: Tables | OrgIndex, start: DateLike, end: DateLike) -> SolverResult:
    """The shipping state whose closed cases created in ``[start, end)`` closed fastest on average.

    A case's state is its Account's ShippingState; cases without one are left out. Closure time
    is ClosedDate - CreatedDate.

    Returns:
        A two-letter state code, a sorted list on a tie, or None when no closed case qualifies.
    """
    index = index_tables(tables)
    lo, hi = as_datetime(start), as_datetime(end)
    totals: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    members: dict[str, list[str]] = defaultdict(list)
    for case in index.cases:
        if case.status != CLOSED or case.created is None or case.closed is None:
            continue
        if not lo <= case.created < hi or not case.account_id:
            continue
        state = index.account_states.get(case.account_id)
        if not state:
            continue
        totals[state][0] += elapsed_micros(case.created, case.closed)
        totals[state][1] += 1
        members[state] += [case.id, case.account_id]
    answer = extreme_keys({s: Fraction(t, n) for s, (t, n) in totals.items()}, "min")
    evidence = [record for state in winners_of(answer) for record in members[state]]
    return SolverResult(answer, evidence_list(evidence))
