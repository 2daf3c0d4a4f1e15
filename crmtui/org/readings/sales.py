"""Readings of the CRMArena-Pro sales types: sales amount (SAU), sales cycle (SCU), conversion
rate (CRC), lead routing (LRO), wrong stage (WSR), activity priority (AP); quote approval is in
:mod:`crmtui.org.readings.records`.

Each reader follows the policy text the instance states, on the org's raw rows
(:class:`~crmtui.org.readings.pro_rows.ProRows`), and returns per named shortcut what a solver
taking it would answer. Several answers mean a tie.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping
from datetime import date
from fractions import Fraction
from typing import Any

from crmtui.org.readings.pro_rows import STAGE_ORDER, OppRow, ProRows
from crmtui.org.readings.rows import OrgRows, best, stamp
from crmtui.org.readings.types import Answers, Reading, answer_key


def _pro(rows: OrgRows) -> ProRows:
    if rows.pro is None:
        raise ValueError("not a CRMArena-Pro org")
    return rows.pro  # type: ignore[no-any-return]


def _window(params: Mapping[str, Any]) -> tuple[date, date]:
    start, end = stamp(params["start"]), stamp(params["end"])
    assert start is not None and end is not None
    return start.date(), end.date()


def _inside(day: date | None, window: tuple[date, date]) -> bool:
    return day is not None and window[0] <= day < window[1]


def _closed_by_close_date(pro: ProRows, window: tuple[date, date]) -> list[OppRow]:
    """The shortcut's sales: deals whose StageName is Closed and whose CloseDate is in the
    window, whatever the contract says."""
    return [o for o in pro.opps.values() if o.stage == "Closed" and _inside(o.close, window)]


def read_sales_amount(rows: OrgRows, params: Mapping[str, Any], _: Mapping[str, Any]) -> Reading:
    """Total line-item value per owner of the deals whose contract was signed in the window.

    Shortcut ``close_date``: the Closed deals whose CloseDate lies in the window instead.
    """
    pro, window = _pro(rows), _window(params)
    field = str(params.get("signed_field") or "CompanySignedDate")
    mode = str(params["mode"])

    def totals(opps: list[OppRow]) -> Answers:
        scores: dict[str, Fraction] = defaultdict(Fraction)
        for opp in opps:
            if opp.owner:
                scores[opp.owner] += pro.amounts.get(opp.id, Fraction(0))
        return best(scores, mode)

    signed = [o for o in pro.opps.values() if _inside(pro.signed_on(o, field), window)]
    return Reading(totals(signed), {"close_date": totals(_closed_by_close_date(pro, window))})


def read_sales_cycle(rows: OrgRows, params: Mapping[str, Any], _: Mapping[str, Any]) -> Reading:
    """Average days from an opportunity's creation to its contract's signing, per owner, over
    the deals signed in the window.

    Shortcut ``close_date``: CloseDate as the end, over the Closed deals closing in the window.
    """
    pro, window = _pro(rows), _window(params)
    field = str(params.get("signed_field") or "CompanySignedDate")
    mode = str(params["mode"])
    careful: dict[str, list[int]] = defaultdict(list)
    for opp in pro.opps.values():
        day = pro.signed_on(opp, field)
        if opp.owner and opp.created and _inside(day, window):
            careful[opp.owner].append((day - opp.created).days)  # type: ignore[operator]
    shortcut: dict[str, list[int]] = defaultdict(list)
    for opp in _closed_by_close_date(pro, window):
        if opp.owner and opp.created and opp.close:
            shortcut[opp.owner].append((opp.close - opp.created).days)

    def mean(days: dict[str, list[int]]) -> Answers:
        return best({a: Fraction(sum(v), len(v)) for a, v in days.items()}, mode)

    return Reading(mean(careful), {"close_date": mean(shortcut)})


def read_conversion_rate(rows: OrgRows, params: Mapping[str, Any], _: Mapping[str, Any]) -> Reading:
    """Per owner, the share of the leads created in the window converted inside it.

    Shortcut ``converted_any_time``: a conversion counts whenever it happened.
    """
    pro = _pro(rows)
    start, end = stamp(params["start"]), stamp(params["end"])
    assert start is not None and end is not None
    window = (start.date(), end.date())
    mode = str(params["mode"])
    total: dict[str, int] = defaultdict(int)
    inside: dict[str, int] = defaultdict(int)
    ever: dict[str, int] = defaultdict(int)
    for lead in pro.leads:
        if not lead.owner or lead.created is None or not start <= lead.created < end:
            continue
        total[lead.owner] += 1
        if lead.converted:
            ever[lead.owner] += 1
            if _inside(lead.converted_on, window):
                inside[lead.owner] += 1
    careful = best({a: Fraction(inside[a], n) for a, n in total.items()}, mode)
    shortcut = best({a: Fraction(ever[a], n) for a, n in total.items()}, mode)
    return Reading(careful, {"converted_any_time": shortcut})


def read_lead_routing(rows: OrgRows, params: Mapping[str, Any], _: Mapping[str, Any]) -> Reading:
    """The territory's agents, the most Accepted quotes (on deals they own), then the fewest
    open leads.

    Shortcut ``all_quotes``: quotes of every status counted in the second rule.
    """
    pro = _pro(rows)
    candidates = pro.territory_agents.get(str(params["state"]), set())
    owner_of = {o.id: o.owner for o in pro.opps.values()}
    open_leads: dict[str, int] = defaultdict(int)
    for lead in pro.leads:
        if lead.owner and not lead.converted and lead.status != "Closed":
            open_leads[lead.owner] += 1

    def route(accepted_only: bool) -> Answers:
        quotes: dict[str, int] = dict.fromkeys(candidates, 0)
        for _, opp, status in pro.quotes:
            owner = owner_of.get(opp or "")
            if owner in quotes and (status == "Accepted" or not accepted_only):
                quotes[owner] += 1
        tied = best(quotes)
        if len(tied) > 1:
            tied = best({a: open_leads[a] for a in tied}, "min")
        return tied

    return Reading(route(True), {"all_quotes": route(False)})


def _stage_answer(opp: OppRow, stage: str | None) -> Answers:
    return () if stage is None or stage == opp.stage else (stage,)


def _top_stage(pro: ProRows, subjects: list[str]) -> str | None:
    ranks = [STAGE_ORDER.index(pro.stage_of[s]) for s in subjects if s in pro.stage_of]
    return STAGE_ORDER[max(ranks)] if ranks else None


def read_wrong_stage(rows: OrgRows, params: Mapping[str, Any], _: Mapping[str, Any]) -> Reading:
    """The most advanced stage with work done (Completed tasks, Events) when the StageName
    differs from it, else None.

    Shortcuts: ``any_status``, tasks of every status count as work done; ``latest_activity``,
    the stage of the opportunity's latest-dated task or event; ``tasks_only``, Events ignored.
    """
    pro = _pro(rows)
    opp = pro.opps[str(params["opportunity_id"])]
    acts = pro.activities.get(opp.id, [])
    done = [a.subject for a in acts if a.status in ("Completed", "Event")]
    every = [a.subject for a in acts]
    tasks = [a.subject for a in acts if a.status == "Completed"]
    dated = sorted((a for a in acts if a.when is not None), key=lambda a: (a.when, a.id))
    latest = pro.stage_of.get(dated[-1].subject) if dated else None
    return Reading(
        _stage_answer(opp, _top_stage(pro, done)),
        {
            "any_status": _stage_answer(opp, _top_stage(pro, every)),
            "latest_activity": _stage_answer(opp, latest),
            "tasks_only": _stage_answer(opp, _top_stage(pro, tasks)),
        },
    )


def read_activity_priority(
    rows: OrgRows, params: Mapping[str, Any], _: Mapping[str, Any]
) -> Reading:
    """The Not Started tasks whose activity belongs to a stage other than the StageName.

    Shortcut ``all_not_started``: every Not Started task.
    """
    pro = _pro(rows)
    opp = pro.opps[str(params["opportunity_id"])]
    pending = [a for a in pro.activities.get(opp.id, []) if a.status == "Not Started"]
    off = [a.id for a in pending if pro.stage_of.get(a.subject) != opp.stage]

    def one(ids: list[str]) -> Answers:
        return (answer_key(ids),) if ids else ()

    return Reading(one(off), {"all_not_started": one([a.id for a in pending])})
