"""Agent-centred reference solvers: handle time (HTU), transfer count (TCU), case routing (NCR).

Window conventions, as upstream computed its gold answers: ``CaseHistory__c`` rows count when
``start <= CreatedDate <= end``; Cases count when ``start <= CreatedDate < end``.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable
from datetime import date, datetime
from fractions import Fraction

from crmtui.org.solvers.common import (
    CLOSED,
    AssignmentRec,
    CaseRec,
    OrgIndex,
    SolverError,
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


def handle_time(
    tables: Tables | OrgIndex,
    start: DateLike,
    end: DateLike,
    n_cases: int,
    mode: str = "min",
) -> SolverResult:
    """The agent with the shortest (``min``) or longest (``max``) average handle time.

    Only agents first assigned more than ``n_cases`` cases in the window qualify (a case that
    reached an agent by transfer does not count toward that agent). Their closed cases created
    in ``[start, end)`` that have exactly one Owner Assignment in the window (never transferred)
    are averaged, handle time being ClosedDate - CreatedDate.

    Returns:
        The agent's User Id, a list on a tie, or None when no agent qualifies or no qualified
        agent has a closed, untransferred case in the window.
    """
    index = index_tables(tables)
    lo, hi = as_datetime(start), as_datetime(end)
    _check_n_cases(n_cases)
    rows = _assignments_in(index, lo, hi)
    qualified, first_rows = _qualified_agents(rows, n_cases)
    if not qualified:
        return SolverResult(None)
    per_case = Counter(row.case_id for row in rows)
    totals: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    counted: dict[str, list[str]] = defaultdict(list)
    for case in index.cases:
        if (
            case.status == CLOSED
            and case.owner_id in qualified
            and case.created is not None
            and case.closed is not None
            and lo <= case.created < hi
            and per_case.get(case.id) == 1
        ):
            totals[case.owner_id][0] += elapsed_micros(case.created, case.closed)
            totals[case.owner_id][1] += 1
            counted[case.owner_id].append(case.id)
    averages = {agent: Fraction(total, n) for agent, (total, n) in totals.items()}
    answer = extreme_keys(averages, mode)
    winners = winners_of(answer)
    evidence = [case_id for agent in winners for case_id in counted[agent]]
    evidence += [row.id for agent in winners for row in first_rows[agent]]
    return SolverResult(answer, evidence_list(evidence))


def transfer_count(
    tables: Tables | OrgIndex,
    start: DateLike,
    end: DateLike,
    n_cases: int,
    mode: str = "min",
) -> SolverResult:
    """The agent with the fewest (``min``) or most (``max``) transfers in the window.

    A transfer is an Owner Assignment row with a previous owner (OldValue__c); it counts for
    that previous owner. Agents qualify as in :func:`handle_time`; only qualified agents with at
    least one transfer in the window are ranked.

    Returns:
        The agent's User Id, a list on a tie, or None when nobody qualifies or transferred.
    """
    index = index_tables(tables)
    lo, hi = as_datetime(start), as_datetime(end)
    _check_n_cases(n_cases)
    rows = _assignments_in(index, lo, hi)
    qualified, first_rows = _qualified_agents(rows, n_cases)
    transfers: dict[str, list[str]] = defaultdict(list)
    for row in rows:
        if row.old_owner is not None and row.old_owner in qualified:
            transfers[row.old_owner].append(row.id)
    answer = extreme_keys({agent: len(ids) for agent, ids in transfers.items()}, mode)
    winners = winners_of(answer)
    evidence = [row_id for agent in winners for row_id in transfers[agent]]
    evidence += [row.id for agent in winners for row in first_rows[agent]]
    return SolverResult(answer, evidence_list(evidence))


def case_routing(tables: Tables | OrgIndex, issue_id: str, product_id: str) -> SolverResult:
    """The agent a new case about ``issue_id`` and ``product_id`` should be routed to.

    Rules, each applied only to the agents still tied after the previous one:

    1. most closed cases with this issue;
    2. most closed cases on order items of this product;
    3. fewest cases whose Status is not 'Closed' (the policy's wording; upstream code counted
       Status = 'Open' only, which no case has in its data).

    Returns:
        The agent's User Id, a list when all three rules leave a tie, or None when no closed
        case has the issue.
    """
    index = index_tables(tables)
    closed = [case for case in index.cases if case.status == CLOSED and case.owner_id]
    issue_cases = _group_by_owner(c for c in closed if c.issue_id == issue_id)
    if not issue_cases:
        return SolverResult(None)
    tied = _most(issue_cases, issue_cases)
    # Each rule that had to be applied contributes the winners' cases it counted.
    used: list[dict[str, list[str]]] = [issue_cases]
    if len(tied) > 1:
        items = set(index.order_items_by_product.get(product_id, ()))
        product_cases = _group_by_owner(
            c for c in closed if c.order_item_id in items and c.owner_id in tied
        )
        tied = _most(tied, product_cases)
        used.append(product_cases)
    if len(tied) > 1:
        open_cases = _group_by_owner(
            c for c in index.cases if c.status != CLOSED and c.owner_id in tied
        )
        fewest = min(len(open_cases.get(agent, ())) for agent in tied)
        tied = sorted(agent for agent in tied if len(open_cases.get(agent, ())) == fewest)
        used.append(open_cases)
    evidence = [case_id for group in used for agent in tied for case_id in group.get(agent, ())]
    answer = tied[0] if len(tied) == 1 else tied
    return SolverResult(answer, evidence_list(evidence))


def _check_n_cases(n_cases: int) -> None:
    if isinstance(n_cases, bool) or not isinstance(n_cases, int) or n_cases < 0:
        raise SolverError(f"n_cases must be a non-negative integer, got {n_cases!r}")


def _assignments_in(index: OrgIndex, lo: datetime, hi: datetime) -> list[AssignmentRec]:
    return [
        row
        for row in index.assignments
        if row.created is not None and lo <= row.created <= hi and row.case_id
    ]


def _qualified_agents(
    rows: list[AssignmentRec], n_cases: int
) -> tuple[set[str], dict[str, list[AssignmentRec]]]:
    """Agents first assigned more than ``n_cases`` cases, with those first-assignment rows."""
    first: dict[str, list[AssignmentRec]] = defaultdict(list)
    for row in rows:
        # A first assignment has no previous owner; a transfer has one.
        if row.old_owner is None and row.new_owner:
            first[row.new_owner].append(row)
    qualified = {agent for agent, got in first.items() if len(got) > n_cases}
    return qualified, first


def _group_by_owner(cases: Iterable[CaseRec]) -> dict[str, list[str]]:
    grouped: dict[str, list[str]] = defaultdict(list)
    for case in cases:
        if case.owner_id:
            grouped[case.owner_id].append(case.id)
    return dict(grouped)


def _most(agents: Iterable[str], cases_by_agent: dict[str, list[str]]) -> list[str]:
    counts = {agent: len(cases_by_agent.get(agent, ())) for agent in agents}
    best = max(counts.values())
    return sorted(agent for agent, n in counts.items() if n == best)
