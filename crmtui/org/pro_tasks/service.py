"""The nine service task types in a CRMArena-Pro org: CRMArena's own samplers, adapted.

Upstream's Pro file asks the service questions the way CRMArena does, with the same policies;
what changes is the share of no-answer instances (20%, 77% for policy violations, and now
best-region questions too) and that each row carries a persona. The CRMArena samplers
(:mod:`crmtui.org.task_samplers`) draw the questions; this module turns their candidates
into Pro candidates with the facts a simulated user would hold, and adds the no-answer
best-region question CRMArena never asked: a period after the org's last case.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from datetime import date, datetime, timedelta
from typing import Any

from crmtui.org import task_purchases, task_texts
from crmtui.org import task_samplers as samplers
from crmtui.org.pro_tasks.common import ProCandidate, ProFacts, quiet_period
from crmtui.org.solvers import best_region
from crmtui.org.solvers.periods import named_window, relative_window
from crmtui.org.task_facts import Candidate, random_day

OriginalSampler = Callable[[Any, random.Random, bool], Candidate | None]


def adapt(
    make: Callable[[Any, random.Random], OriginalSampler],
) -> Callable[[ProFacts, random.Random], Any]:
    """A Pro sampler factory from a CRMArena sampler factory ``(facts, rng) -> sampler``."""

    def factory(facts: ProFacts, rng: random.Random) -> Any:
        original = make(facts.service, rng)

        def sample(facts: ProFacts, rng: random.Random, want_none: bool) -> ProCandidate | None:
            candidate = original(facts.service, rng, want_none)
            if candidate is None or _after_the_data(facts, candidate):
                return None
            return _pro(candidate)

        return sample

    return factory


def _after_the_data(facts: ProFacts, candidate: Candidate) -> bool:
    """Whether a no-answer candidate asks about a period after everything the org recorded:
    its date alone would give the None away (issue #32), so the Pro builder draws again."""
    start = candidate.params.get("start")
    if candidate.answer is not None or not start:
        return False
    last = max(facts.service.data_end, facts.sales_end)
    return date.fromisoformat(str(start)[:10]) > last


def _pro(candidate: Candidate) -> ProCandidate:
    """The candidate with the facts its asker holds (the query's parts, the context Ids)."""
    told: dict[str, Any] = {}
    context = candidate.context or {}
    if "today" in context:
        told["today"] = context["today"]
    if "period" in context:
        told["period"] = context["period"]
    for key in ("contact_id", "case_id", "product_id", "n_cases", "mode"):
        if key in candidate.params:
            told[key] = candidate.params[key]
    # A purchase question: how the customer describes the product ("phrase"; "keyword" in
    # task sets built before the descriptive phrases) and how long ago they bought it.
    words = context.get("phrase", context.get("keyword"))
    if words is not None:
        told["product_words"] = words
        told["bought"] = context.get("interval")
    if candidate.solver == "case_routing":
        told["case"] = candidate.query.split("## Given Case", 1)[-1].strip()
    if candidate.solver == "knowledge_qa":
        told["question"] = candidate.query
    return ProCandidate(
        candidate.query,
        candidate.required,
        candidate.answer,
        candidate.solver,
        candidate.params,
        candidate.evidence,
        candidate.context,
        candidate.detail,
        facts=told,
    )


def best_region_factory(facts: ProFacts, rng: random.Random) -> Any:
    """Best-region questions; the no-answer ones ask about weeks inside the data in which no
    case that was later closed was opened (issue #32: so that the date alone does not tell),
    or, when the data has no such weeks, about a period after the last case."""
    closed_days = sorted(
        {c.created.date() for c in facts.service.index.cases if c.created and c.status == "Closed"}
    )

    def sample(facts: ProFacts, rng: random.Random, want_none: bool) -> ProCandidate | None:
        if not want_none:
            candidate = samplers.sample_best_region(facts.service, rng, False)
            return _pro(candidate)
        end = facts.service.data_end
        quiet = quiet_period(rng, closed_days, 1, by_day=True)
        if quiet is not None:
            period, window, today = quiet
        elif rng.random() < 0.5:
            unit, count = rng.choice(
                (
                    ("month", 1),
                    ("month", 2),
                    ("month", 3),
                    ("quarter", 1),
                    ("quarter", 2),
                    ("week", 4),
                    ("week", 6),
                )
            )
            today = random_day(rng, end + timedelta(days=200), end + timedelta(days=700))
            window = relative_window(today, unit, count)
            period: dict[str, Any] = {"kind": "relative", "unit": unit, "count": count}
        else:
            year = end.year + rng.choice((0, 1, 2))
            name = rng.choice(("Q1", "Q2", "Q3", "Q4", "Spring", "Summer", "Fall", "Winter"))
            name = rng.choice((name, datetime(2000, rng.randint(1, 12), 1).strftime("%B")))
            window = named_window(name, year)
            if window.start.date() <= end:
                year += 1
                window = named_window(name, year)
            today = random_day(rng, window.end.date(), window.end.date() + timedelta(days=200))
            period = {"kind": "named", "name": name, "year": year}
        result = best_region(facts.service.index, window.start, window.end)
        template = rng.choice(task_texts.BEST_REGION_TEMPLATES)
        when = task_texts.period_phrase(period, rng)
        query = template.format(when=when, When=task_texts.capitalized(when))
        return _pro(
            Candidate(
                query + task_texts.STATE_SUFFIX,
                task_texts.today_line(today.isoformat()),
                result.answer,
                "best_region",
                window.as_params(),
                result.evidence,
                {"today": today.isoformat(), "period": period},
                result.detail,
            )
        )

    return sample


#: Task type -> Pro sampler factory ``(facts, rng) -> sampler``.
SERVICE_FACTORIES: dict[str, Callable[[ProFacts, random.Random], Any]] = {
    "knowledge_qa": adapt(samplers.pool_sampler("kqa")),
    "monthly_trend_analysis": adapt(lambda f, r: samplers.sample_monthly_trend),
    "top_issue_identification": adapt(lambda f, r: samplers.sample_top_issue),
    "case_routing": adapt(samplers.pool_sampler("ncr")),
    "named_entity_disambiguation": adapt(lambda f, r: task_purchases.sample_named_entity),
    # CRMArena-Pro's policy text counts cases transferred to an agent toward "managed more
    # than N cases" (CRMArena's counts only the cases first assigned to the agent).
    "handle_time": adapt(lambda f, r: samplers.agent_sampler("handle_time", "received")),
    "transfer_count": adapt(lambda f, r: samplers.agent_sampler("transfer_count", "received")),
    "policy_violation_identification": adapt(samplers.pool_sampler("pvi")),
    "best_region_identification": best_region_factory,
}
