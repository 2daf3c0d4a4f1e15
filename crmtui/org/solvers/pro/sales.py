"""Sales performance solvers: sales amount (SAU), sales cycle (SCU), lead conversion (CRC).

Window convention, as for the service solvers: a period is ``[start, end)``. A sale belongs to
the period in which its contract was signed (``CompanySignedDate`` in the b2b org,
``CustomerSignedDate`` in the b2c org, whose contracts have no company signature); a lead
belongs to the period in which it was created, and counts as converted when it was converted
(IsConverted) on a day inside the same period. Each ranking is over the agents (OwnerId) with
at least one record in the period; None when there is none.
"""

from __future__ import annotations

from collections import defaultdict
from datetime import date, datetime
from fractions import Fraction

from crmtui.org.solvers.common import (
    SolverError,
    SolverResult,
    evidence_list,
    extreme_keys,
    ranking,
    winners_of,
)
from crmtui.org.solvers.periods import as_datetime
from crmtui.org.solvers.pro.index import ProIndex, Tables, pro_index

DateLike = str | date | datetime
SIGNED_FIELDS = ("CompanySignedDate", "CustomerSignedDate")


def _check(mode: str, signed_field: str | None = None) -> None:
    if mode not in ("min", "max"):
        raise SolverError(f"mode must be 'min' or 'max', not {mode!r}")
    if signed_field is not None and signed_field not in SIGNED_FIELDS:
        raise SolverError(f"signed_field must be one of {', '.join(SIGNED_FIELDS)}")


def sales_amount(
    tables: Tables | ProIndex,
    start: DateLike,
    end: DateLike,
    mode: str = "max",
    signed_field: str = "CompanySignedDate",
) -> SolverResult:
    """The agent with the largest (``max``) or smallest (``min``) total sales in the period.

    An agent's sales: the opportunities they own whose contract was signed in the period, each
    worth the sum of its line items' TotalPrice.
    """
    _check(mode, signed_field)
    index = pro_index(tables)
    lo, hi = as_datetime(start), as_datetime(end)
    totals: dict[str, Fraction] = defaultdict(Fraction)
    support: dict[str, int] = defaultdict(int)
    evidence: dict[str, list[str]] = defaultdict(list)
    for opp in index.signed_between(signed_field, lo, hi):
        if opp.owner_id:
            totals[opp.owner_id] += index.amounts.get(opp.id, Fraction(0))
            support[opp.owner_id] += 1
            evidence[opp.owner_id] += [opp.id, str(opp.contract_id)]
    # Fractions keep sums exact; a Fraction marks the scores as amounts (compared relatively).
    scores = {agent: Fraction(total) for agent, total in totals.items()}
    answer = extreme_keys(scores, mode)
    kept = [i for agent in winners_of(answer) for i in evidence[agent]]
    return SolverResult(answer, evidence_list(kept), ranking(scores, support, mode))


def sales_cycle(
    tables: Tables | ProIndex,
    start: DateLike,
    end: DateLike,
    mode: str = "min",
    signed_field: str = "CompanySignedDate",
) -> SolverResult:
    """The agent whose deals signed in the period took the fewest (``min``) or most (``max``)
    days on average from the opportunity's CreatedDate (its date) to the contract's signing."""
    _check(mode, signed_field)
    index = pro_index(tables)
    lo, hi = as_datetime(start), as_datetime(end)
    days: dict[str, list[int]] = defaultdict(list)
    evidence: dict[str, list[str]] = defaultdict(list)
    for opp in index.signed_between(signed_field, lo, hi):
        contract = index.contracts[str(opp.contract_id)]
        signed = contract[signed_field]
        if opp.owner_id and opp.created is not None and signed is not None:
            days[opp.owner_id].append((signed - opp.created.date()).days)
            evidence[opp.owner_id] += [opp.id, str(opp.contract_id)]
    averages = {agent: Fraction(sum(v), len(v)) for agent, v in days.items()}
    answer = extreme_keys(averages, mode)
    support = {agent: len(v) for agent, v in days.items()}
    kept = [i for agent in winners_of(answer) for i in evidence[agent]]
    return SolverResult(answer, evidence_list(kept), ranking(averages, support, mode))


def conversion_rate(
    tables: Tables | ProIndex, start: DateLike, end: DateLike, mode: str = "max"
) -> SolverResult:
    """The agent with the highest (``max``) or lowest (``min``) lead conversion rate: of the
    leads they own created in the period, the share converted on a day in the same period."""
    _check(mode)
    index = pro_index(tables)
    lo, hi = as_datetime(start), as_datetime(end)
    total: dict[str, int] = defaultdict(int)
    won: dict[str, int] = defaultdict(int)
    evidence: dict[str, list[str]] = defaultdict(list)
    for lead in index.leads_created(lo, hi):
        if not lead.owner_id:
            continue
        total[lead.owner_id] += 1
        evidence[lead.owner_id].append(lead.id)
        day = lead.converted_date
        if lead.converted and day is not None and lo <= datetime(day.year, day.month, day.day) < hi:
            won[lead.owner_id] += 1
    # A whole-number rate would be ranked as a count; keep every rate a Fraction (an average).
    rates = {agent: Fraction(won[agent], n) for agent, n in total.items()}
    answer = extreme_keys(rates, mode)
    kept = [i for agent in winners_of(answer) for i in evidence[agent]]
    detail = ranking(rates, dict(total), mode)
    detail["kind"] = "average"
    return SolverResult(answer, evidence_list(kept), detail)
