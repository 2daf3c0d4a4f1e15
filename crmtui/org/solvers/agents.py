"""Agent-centred reference solvers: handle time (HTU), transfer count (TCU), case routing (NCR).

Window convention (stated in every generated task, see ``task_texts``): a period is the
half-open interval ``[start, end)``; a case belongs to it when its CreatedDate does, a
``CaseHistory__c`` row when its own CreatedDate does. Upstream counted history rows up to and
including ``end``; the generator never stamps anything exactly on a period boundary, so on
generated orgs both readings agree, and the solvers follow the stated one.
"""

from __future__ import annotations

from collections import defaultdict
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
    ranking,
    winners_of,
)
from crmtui.org.solvers.periods import as_datetime

DateLike = str | date | datetime
#: Which cases an agent "managed" for a case-count filter: those first assigned to the agent
#: (CRMArena), or also those transferred to the agent (CRMArena-Pro).
MANAGED_RULES = ("first", "received")
MICROS_PER_HOUR = 3_600_000_000


def handle_time(
    tables: Tables | OrgIndex,
    start: DateLike,
    end: DateLike,
    n_cases: int,
    mode: str = "min",
    managed: str = "first",
) -> SolverResult:
    """The agent with the shortest (``min``) or longest (``max``) average handle time.

    Only agents first assigned more than ``n_cases`` cases in ``[start, end)`` qualify (a case
    that reached an agent by transfer does not count toward that agent; with ``managed=
    "received"``, CRMArena-Pro's rule, it does: see :func:`_qualified_agents`). Their closed cases
    created in ``[start, end)`` that were never transferred (exactly one Owner Assignment in
    the case's whole history, so a transfer after the period still counts as a transfer) are
    averaged, handle time being ClosedDate - CreatedDate, whenever the case closed.

    Returns:
        The agent's User Id, a list on a tie, or None when no agent qualifies or no qualified
        agent has a closed, untransferred case in the window. ``detail`` ranks every agent
        with counted cases by average hours.
    """
    index = index_tables(tables)
    lo, hi = as_datetime(start), as_datetime(end)
    _check_n_cases(n_cases)
    _check_mode(mode)
    qualified, first_rows = _qualified_agents(index.assignments_dated(lo, hi), n_cases, managed)
    if not qualified:
        return SolverResult(None)
    assignments = index.owner_assignments_per_case
    totals: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    counted: dict[str, list[str]] = defaultdict(list)
    for case in index.cases_created(lo, hi):
        if (
            case.status == CLOSED
            and case.owner_id in qualified
            and case.closed is not None
            and assignments.get(case.id) == 1
        ):
            totals[case.owner_id][0] += elapsed_micros(case.created, case.closed)  # type: ignore[arg-type]
            totals[case.owner_id][1] += 1
            counted[case.owner_id].append(case.id)
    averages = {agent: Fraction(total, n * MICROS_PER_HOUR) for agent, (total, n) in totals.items()}
    answer = extreme_keys(averages, mode)
    winners = winners_of(answer)
    evidence = [case_id for agent in winners for case_id in counted[agent]]
    evidence += [row.id for agent in winners for row in first_rows[agent]]
    support = {agent: len(ids) for agent, ids in counted.items()}
    return SolverResult(answer, evidence_list(evidence), ranking(averages, support, mode))


def transfer_count(
    tables: Tables | OrgIndex,
    start: DateLike,
    end: DateLike,
    n_cases: int,
    mode: str = "min",
    managed: str = "first",
) -> SolverResult:
    """The agent with the fewest (``min``) or most (``max``) transfers in ``[start, end)``.

    A transfer is an Owner Assignment row with a previous owner (OldValue__c), dated in the
    window whenever its case was opened; it counts for that previous owner. Agents qualify as
    in :func:`handle_time`; only qualified agents with at least one transfer are ranked.

    Returns:
        The agent's User Id, a list on a tie, or None when nobody qualifies or transferred.
    """
    index = index_tables(tables)
    lo, hi = as_datetime(start), as_datetime(end)
    _check_n_cases(n_cases)
    _check_mode(mode)
    rows = index.assignments_dated(lo, hi)
    qualified, first_rows = _qualified_agents(rows, n_cases, managed)
    transfers: dict[str, list[str]] = defaultdict(list)
    for row in rows:
        if row.old_owner is not None and row.old_owner in qualified:
            transfers[row.old_owner].append(row.id)
    counts = {agent: len(ids) for agent, ids in transfers.items()}
    answer = extreme_keys(counts, mode)
    winners = winners_of(answer)
    evidence = [row_id for agent in winners for row_id in transfers[agent]]
    evidence += [row.id for agent in winners for row in first_rows[agent]]
    return SolverResult(answer, evidence_list(evidence), ranking(counts, counts, mode))


def case_routing(tables: Tables | OrgIndex, issue_id: str, product_id: str) -> SolverResult:
    """The agent a new case about ``issue_id`` and ``product_id`` should be routed to.

    Rules, each applied only to the agents still tied after the previous one:

    1. most closed cases with this issue;
    2. most closed cases on order items of this product;
    3. fewest cases whose Status is not 'Closed' (the policy's wording; upstream code counted
       Status = 'Open' only, which no case has in its data).

    Returns:
        The agent's User Id, a list when all three rules leave a tie, or None when no closed
        case has the issue. ``detail`` ranks agents by rule 1 and names the deciding ``rule``.
    """
    index = index_tables(tables)
    issue_cases = index.closed_by_issue.get(issue_id, {})
    if not issue_cases:
        return SolverResult(None)
    issue_counts = {agent: len(ids) for agent, ids in issue_cases.items()}
    tied = _most(issue_cases, issue_cases)
    rule = 1
    # Each rule that had to be applied contributes the winners' cases it counted.
    used: list[dict[str, list[str]]] = [issue_cases]
    if len(tied) > 1:
        rule = 2
        product_cases = _group_by_owner(
            case
            for item in index.order_items_by_product.get(product_id, ())
            for case in index.closed_by_item.get(item, ())
            if case.owner_id in tied
        )
        tied = _most(tied, product_cases)
        used.append(product_cases)
    if len(tied) > 1:
        rule = 3
        open_cases = {agent: index.open_by_owner.get(agent, []) for agent in tied}
        fewest = min(len(open_cases[agent]) for agent in tied)
        tied = sorted(agent for agent in tied if len(open_cases[agent]) == fewest)
        used.append(open_cases)
    evidence = [case_id for group in used for agent in tied for case_id in group.get(agent, ())]
    answer = tied[0] if len(tied) == 1 else tied
    detail = ranking(
        issue_counts, issue_counts, "max", rule=rule if len(tied) == 1 else None, rules=len(used)
    )
    return SolverResult(answer, evidence_list(evidence), detail)


def _check_n_cases(n_cases: int) -> None:
    if isinstance(n_cases, bool) or not isinstance(n_cases, int) or n_cases < 0:
        raise SolverError(f"n_cases must be a non-negative integer, got {n_cases!r}")


def _check_mode(mode: str) -> None:
    if mode not in ("min", "max"):
        raise SolverError(f"mode must be 'min' or 'max', not {mode!r}")


def _qualified_agents(
    rows: list[AssignmentRec], n_cases: int, managed: str = "first"
) -> tuple[set[str], dict[str, list[AssignmentRec]]]:
    """Agents who managed more than ``n_cases`` cases, with the assignment rows that count.

    ``managed="first"`` (CRMArena's policy text): the cases first assigned to the agent.
    ``managed="received"`` (CRMArena-Pro's text: the filter "applies to both the first agent
    that the case was first assigned to and the agent that the case was transferred to"): the
    distinct cases assigned to the agent in the window, at opening or by a transfer.
    """
    if managed not in MANAGED_RULES:
        raise SolverError(f"managed must be one of {', '.join(MANAGED_RULES)}, not {managed!r}")
    first: dict[str, list[AssignmentRec]] = defaultdict(list)
    cases: dict[str, set[str]] = defaultdict(set)
    for row in rows:
        # A first assignment has no previous owner; a transfer has one.
        received = managed == "received" or row.old_owner is None
        if received and row.new_owner and row.case_id:
            first[row.new_owner].append(row)
            cases[row.new_owner].add(row.case_id)
    qualified = {agent for agent, got in cases.items() if len(got) > n_cases}
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
