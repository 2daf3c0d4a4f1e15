"""Region reference solver: the state with the quickest case closures (BRI).

A case belongs to the period when its CreatedDate falls in ``[start, end)``; its closure may
come later (after the period, or after today's date) and still counts, as upstream computed it.
"""

from __future__ import annotations

from collections import defaultdict
from datetime import date, datetime
from fractions import Fraction

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
from crmtui.org.solvers.periods import as_datetime

DateLike = str | date | datetime
MICROS_PER_HOUR = 3_600_000_000


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
    # Closed cases with a state, created in the window (the index pairs each with its state
    # and closure time once, as many questions are asked of one org).
    for case_id, account_id, state, micros in index.closures_created(lo, hi):
        totals[state][0] += micros
        totals[state][1] += 1
        members[state] += [case_id, account_id]
    hours = {s: Fraction(t, n * MICROS_PER_HOUR) for s, (t, n) in totals.items()}
    answer = extreme_keys(hours, "min")
    evidence = [record for state in winners_of(answer) for record in members[state]]
    support = {state: n for state, (_, n) in totals.items()}
    return SolverResult(answer, evidence_list(evidence), ranking(hours, support, "min"))
