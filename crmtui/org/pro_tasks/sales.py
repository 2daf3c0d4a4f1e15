"""Samplers of the sales analytics task types: sales amount, sales cycle, conversion rate,
lead routing and sales insight mining."""

from __future__ import annotations

import random
from datetime import date

from crmtui.org.generator.pro.team import TERRITORIES
from crmtui.org.pro_tasks import texts
from crmtui.org.pro_tasks.common import ProCandidate, ProFacts, fill, sales_period
from crmtui.org.solvers.pro import (
    conversion_rate,
    lead_routing,
    opportunity_competitors,
    opportunity_topics,
    sales_amount,
    sales_cycle,
    top_competitor,
    top_topic,
)
from crmtui.org.task_texts import today_line


def _signed_days(facts: ProFacts) -> list[date]:
    """The days on which a sale was signed (the org's signature field)."""
    field = facts.signed_field
    return [day for c in facts.index.contracts.values() if (day := c.get(field)) is not None]


def sample_sales_amount(facts: ProFacts, rng: random.Random, want_none: bool) -> ProCandidate:
    """Which agent sold the most (or least) in a period."""
    mode = "max" if rng.random() < 0.65 else "min"
    period, window, today, when = sales_period(
        facts, rng, want_none=want_none, quiet_days=_signed_days(facts)
    )
    result = sales_amount(facts.index, window.start, window.end, mode, facts.signed_field)
    query = fill(
        rng.choice(texts.SALES_AMOUNT_TEMPLATES), when, adj=rng.choice(texts.SALES_AMOUNT_ADJ[mode])
    )
    required = texts.sales_amount_policy(facts.signed_field) + "\n" + today_line(today.isoformat())
    return ProCandidate(
        query + texts.AGENT_SUFFIX,
        required,
        result.answer,
        "sales_amount",
        {**window.as_params(), "mode": mode, "signed_field": facts.signed_field},
        result.evidence,
        {"today": today.isoformat(), "period": period},
        result.detail,
        facts={"period": when, "today": today.isoformat(), "wants": f"{mode} total sales"},
    )


def sample_sales_cycle(facts: ProFacts, rng: random.Random, want_none: bool) -> ProCandidate:
    """Which agent's deals closed fastest (or slowest) on average in a period."""
    mode = "min" if rng.random() < 0.6 else "max"
    period, window, today, when = sales_period(
        facts, rng, want_none=want_none, quiet_days=_signed_days(facts)
    )
    result = sales_cycle(facts.index, window.start, window.end, mode, facts.signed_field)
    query = fill(
        rng.choice(texts.SALES_CYCLE_TEMPLATES),
        when,
        adj=rng.choice(texts.SALES_CYCLE_ADJ[mode]),
        adj2=rng.choice(texts.SALES_CYCLE_ADJ2[mode]),
    )
    required = (
        texts.sales_cycle_policy(facts.signed_field)
        + "\n"
        + today_line(today.isoformat(), heading=True)
    )
    return ProCandidate(
        query + texts.AGENT_SUFFIX,
        required,
        result.answer,
        "sales_cycle",
        {**window.as_params(), "mode": mode, "signed_field": facts.signed_field},
        result.evidence,
        {"today": today.isoformat(), "period": period},
        result.detail,
        facts={"period": when, "today": today.isoformat(), "wants": f"{mode} average sales cycle"},
    )


def sample_conversion_rate(facts: ProFacts, rng: random.Random, want_none: bool) -> ProCandidate:
    """Which agent converted leads at the best (or worst) rate in a period."""
    mode = "max" if rng.random() < 0.6 else "min"
    days = [lead.created.date() for lead in facts.index.leads if lead.created is not None]
    # Leads come in often: a week without one is as long a quiet spell as the data has.
    period, window, today, when = sales_period(
        facts, rng, want_none=want_none, quiet_days=days, quiet_weeks=1
    )
    result = conversion_rate(facts.index, window.start, window.end, mode)
    query = fill(
        rng.choice(texts.CONVERSION_TEMPLATES), when, adj=rng.choice(texts.CONVERSION_ADJ[mode])
    )
    required = texts.CONVERSION_POLICY + "\n" + today_line(today.isoformat(), heading=True)
    return ProCandidate(
        query + texts.AGENT_SUFFIX,
        required,
        result.answer,
        "conversion_rate",
        {**window.as_params(), "mode": mode},
        result.evidence,
        {"today": today.isoformat(), "period": period},
        result.detail,
        facts={"period": when, "today": today.isoformat(), "wants": f"{mode} conversion rate"},
    )


def sample_lead_routing(facts: ProFacts, rng: random.Random, want_none: bool) -> ProCandidate:
    """Which agent a new lead from a state should go to."""
    states = [s for _, members in TERRITORIES for s in members]
    state = rng.choice(states)
    result = lead_routing(facts.index, state)
    who = f"{rng.choice(facts.first_names)} {rng.choice(facts.last_names)}"
    lead_line = f"## New lead: {who}"
    if facts.org_type == "b2b":
        lead_line += (
            f" ({rng.choice(('buyer', 'coach', 'manager', 'owner'))} at a {rng.choice(_KINDS)})"
        )
    required = f"{texts.LEAD_ROUTING_POLICY}\n{lead_line}\n## Lead's region: {state}"
    return ProCandidate(
        rng.choice(texts.LEAD_ROUTING_QUERIES) + texts.AGENT_SUFFIX,
        required,
        result.answer,
        "lead_routing",
        {"state": state},
        result.evidence,
        {"lead": who},
        result.detail,
        facts={"lead": who, "region": state},
    )


_KINDS = ("running club", "school", "gym", "sports shop", "tennis club", "tour company")


def sample_insight(facts: ProFacts, rng: random.Random, want_none: bool) -> ProCandidate | None:
    """One of four sales-insight questions: the top competitor or subtopic of a period, or the
    competitors or subtopics of one opportunity's calls."""
    # Period questions are drawn more often: about half of the real file's are, and the
    # shortcut budget turns away those whose period's top is the all-time one.
    kind = rng.choices(
        ("top_competitor", "top_topic", "opportunity_competitors", "opportunity_topics"),
        (3, 3, 1, 1),
    )[0]
    sentiment = rng.choice(("negative", "positive"))
    guide = texts.insight_guide()
    if kind in ("top_competitor", "top_topic"):
        # A named month, quarter or season with its year: the real file's rows carry no date
        # (issue #32), and "the last 5 quarters" without one names no period (its golds for
        # that question differ between rows, idx 403 and 425), so a period that needs no date.
        period, window, _, when = sales_period(facts, rng, want_none=False, named_share=1.0)
        if kind == "top_competitor":
            result = top_competitor(facts.index, window.start, window.end)
            query = fill(rng.choice(texts.INSIGHT_COMPETITOR), when)
            params: dict[str, str] = window.as_params()
        else:
            result = top_topic(facts.index, window.start, window.end, sentiment)
            query = fill(
                rng.choice(texts.INSIGHT_TOPIC),
                when,
                sentiment=sentiment,
                adverb=texts.ADVERB[sentiment],
            )
            params = {**window.as_params(), "sentiment": sentiment}
        required = guide
        context = {"period": period, "kind": kind}
        told = {"period": when, "wants": kind.replace("_", " ")}
    else:
        opp_id = rng.choice(sorted(facts.index.calls_by_opp))
        if kind == "opportunity_competitors":
            result = opportunity_competitors(facts.index, opp_id)
            query = rng.choice(texts.INSIGHT_OPP_COMPETITORS)
            params = {"opportunity_id": opp_id}
        else:
            result = opportunity_topics(facts.index, opp_id, sentiment)
            query = rng.choice(texts.INSIGHT_OPP_TOPICS).format(
                sentiment=sentiment, adverb=texts.ADVERB[sentiment]
            )
            params = {"opportunity_id": opp_id, "sentiment": sentiment}
        required = guide + "\n" + texts.context_line("Opportunity", opp_id)
        context = {"kind": kind}
        told = {"opportunity_id": opp_id, "wants": kind.replace("_", " ")}
    return ProCandidate(
        query,
        required,
        result.answer,
        kind,
        params,
        result.evidence,
        context,
        result.detail,
        facts=told,
    )
