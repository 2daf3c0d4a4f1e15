"""Lead routing (LR): which agent a new lead from a given state should go to.

The policy, in the order its rules apply (each later rule only breaks the ties of the one
before):

1. Territory: the agents associated (UserTerritory2Association) with the territory whose
   Description lists the lead's state;
2. Quote success: among them, the agents with the most quotes in Status 'Accepted', a quote
   belonging to the owner of its opportunity;
3. Workload: among those, the agents with the fewest open leads (IsConverted false and Status
   not 'Closed').

Counts cover the org's whole history. ``detail`` ranks the territory's agents by accepted
quotes and records the rule that decided (2 or 3; 1 when the territory has a single agent).
"""

from __future__ import annotations

from collections import Counter

from crmtui.org.solvers.common import SolverError, SolverResult, evidence_list, ranking
from crmtui.org.solvers.pro.index import ProIndex, Tables, pro_index

ACCEPTED = "Accepted"


def lead_routing(tables: Tables | ProIndex, state: str) -> SolverResult:
    """The agent a new lead from ``state`` is routed to (a sorted list on a full tie).

    Raises:
        SolverError: No territory lists ``state``.
    """
    index = pro_index(tables)
    wanted = state.strip().upper()
    territory = next((tid for tid, states in index.territories.items() if wanted in states), None)
    if territory is None:
        raise SolverError(f"no territory covers the state {state!r}")
    agents = sorted(set(index.territory_users.get(territory, ())))
    if not agents:
        return SolverResult(None, [territory])
    accepted = _accepted_quotes(index)
    scores = {agent: len(accepted.get(agent, ())) for agent in agents}
    best = max(scores.values())
    tied = [agent for agent in agents if scores[agent] == best]
    rule = 1 if len(agents) == 1 else 2
    workload = {agent: len(_open_leads(index, agent)) for agent in tied}
    if len(tied) > 1:
        rule = 3
        fewest = min(workload.values())
        tied = [agent for agent in tied if workload[agent] == fewest]
    answer: str | list[str] = tied[0] if len(tied) == 1 else tied
    evidence = [territory, *(q for agent in tied for q in accepted.get(agent, ()))]
    if rule == 3:
        evidence += [lead for agent in tied for lead in _open_leads(index, agent)]
    detail = ranking(scores, scores, "max", rule=rule, workload=workload)
    return SolverResult(answer, evidence_list(evidence), detail)


def _accepted_quotes(index: ProIndex) -> dict[str, list[str]]:
    cached = index.extra.get("accepted_quotes")
    if cached is None:
        cached = {}
        for quote in index.quotes.values():
            opp = index.opps.get(quote.opportunity_id or "")
            if quote.status == ACCEPTED and opp is not None and opp.owner_id:
                cached.setdefault(opp.owner_id, []).append(quote.id)
        index.extra["accepted_quotes"] = cached
    return cached


def _open_leads(index: ProIndex, agent: str) -> list[str]:
    return [
        lead.id
        for lead in index.leads_by_owner.get(agent, ())
        if not lead.converted and lead.status != "Closed"
    ]


def accepted_counts(tables: Tables | ProIndex) -> Counter[str]:
    """Accepted quotes per agent over the whole org (for statistics and tests)."""
    return Counter({a: len(q) for a, q in _accepted_quotes(pro_index(tables)).items()})
