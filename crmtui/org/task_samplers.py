"""One sampler per task type: draw parameters, word the question, run the reference solver.

Every sampler has the signature ``(facts, rng, want_none) -> Candidate | None``. ``want_none``
only nudges the draw toward questions without an answer (shorter or later windows, larger
case-count filters); :mod:`crmtui.org.tasks` decides from the solver's answer whether the
candidate is kept. Samplers over the truth pools (KQA, PVI, NCR) draw without replacement.
The named-entity sampler lives in :mod:`crmtui.org.task_purchases`.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable, Iterator
from typing import Any

from crmtui.org import task_texts as texts
from crmtui.org.solvers import (
    best_region,
    case_routing,
    handle_time,
    knowledge_qa,
    monthly_trend,
    policy_violation,
    top_issue,
    transfer_count,
)
from crmtui.org.task_facts import (
    PERIOD_MIXES,
    Candidate,
    OrgFacts,
    PoolExhausted,
    sample_period,
)

Sampler = Callable[[OrgFacts, random.Random, bool], Candidate | None]


def _fill(template: str, period_text: str, **fields: str) -> str:
    return template.format(when=period_text, When=texts.capitalized(period_text), **fields)


def agent_sampler(solver_name: str, managed: str = "first") -> Sampler:
    """Sampler for handle_time / transfer_count (same parameters, different solver).

    ``managed``: which cases the "more than N cases" filter counts, "first" (CRMArena's text)
    or "received" (CRMArena-Pro's: cases transferred to the agent count too); the policy text
    says which, and a non-default rule is recorded in the parameters.
    """
    is_handle = solver_name == "handle_time"
    solver = handle_time if is_handle else transfer_count
    templates = texts.HANDLE_TIME_TEMPLATES if is_handle else texts.TRANSFER_COUNT_TEMPLATES
    adjectives = texts.HANDLE_TIME_ADJ if is_handle else texts.TRANSFER_COUNT_ADJ
    if managed == "received":
        policy = texts.PRO_HANDLE_TIME_POLICY if is_handle else texts.PRO_TRANSFER_COUNT_POLICY
    else:
        policy = texts.HANDLE_TIME_POLICY if is_handle else texts.TRANSFER_COUNT_POLICY
    rule = {} if managed == "first" else {"managed": managed}
    # Transfers are rarer than cases: a "fewest transfers" question seldom has a clear
    # answer (several agents hand on one case each).
    mix = PERIOD_MIXES["handle_time" if is_handle else "transfer_count"]
    fewest_share = 0.5 if is_handle else 0.35
    if managed == "received" and not is_handle:
        # The triage desk, which passes on the most cases, also receives the most, so under
        # this rule it passes any case filter: "most transfers" questions would hardly need
        # the filter. "Fewest" questions do (many agents hand on one case, few of them
        # managed enough cases).
        fewest_share = 0.75

    def sample(facts: OrgFacts, rng: random.Random, want_none: bool) -> Candidate:
        # No window after the data: a None its date alone gives away is no question (#32).
        period, window, today = sample_period(
            facts, rng, mix, late_share=0.0 if want_none else 0.05
        )
        # Counting cases transferred to an agent too, more agents pass a filter: ask for more.
        n_cases = rng.choice((3, 4, 5, 6)) if want_none else rng.choice((0, 1, 1, 2, 2, 3, 4))
        n_cases += 0 if managed == "first" else rng.choice((0, 2, 4))
        if want_none and rng.random() < 0.5:
            # Nobody managed more: the filter, read carefully, leaves no one (in a big org
            # every window has busy agents, and a window after the data would give itself
            # away). At exactly the top count, "more than" excludes the top agent too.
            top = _most_managed(facts, window, managed)
            n_cases = max(n_cases, top + rng.choice((0, 0, 1, 2)))
        mode = "min" if rng.random() < fewest_share else "max"
        if managed == "received" and not is_handle and mode == "max" and rng.random() < 0.8:
            n_cases = _past_the_top(facts, window, n_cases)
        result = solver(facts.index, window.start, window.end, n_cases, mode, managed)
        query = _fill(
            rng.choice(templates),
            texts.period_phrase(period, rng),
            adj=rng.choice(adjectives[mode]),
            past=texts.count_clause(n_cases, rng, gerund=False),
            gerund=texts.count_clause(n_cases, rng, gerund=True),
        )
        required = f"{policy}\n{texts.today_line(today.isoformat(), heading=True)}"
        params = {**window.as_params(), "n_cases": n_cases, "mode": mode, **rule}
        return Candidate(
            query + texts.AGENT_SUFFIX,
            required,
            result.answer,
            solver_name,
            params,
            result.evidence,
            {"today": today.isoformat(), "period": period},
            result.detail,
        )

    return sample


def _most_managed(facts: OrgFacts, window: Any, managed: str) -> int:
    """The most cases one agent managed in ``window``: opened (the first owner), or with
    ``managed == "received"`` opened or transferred to them."""
    rows = facts.index.assignments_dated(window.start, window.end)
    cases = {
        (r.new_owner, r.case_id)
        for r in rows
        if r.new_owner and (managed == "received" or r.old_owner is None)
    }
    counts = Counter(agent for agent, _ in cases)
    return max(counts.values(), default=0)


def _past_the_top(facts: OrgFacts, window: Any, n_cases: int) -> int:
    """A case filter that leaves out the agent with the most transfers in ``window`` when
    another agent managed more cases (counting cases transferred to them too), else
    ``n_cases``: under that rule the triage desk, which passes on the most cases, also
    receives the most, and would otherwise pass any filter (issue #32)."""
    rows = facts.index.assignments_dated(window.start, window.end)
    transfers = Counter(r.old_owner for r in rows if r.old_owner)
    managed = Counter(a for a, _ in {(r.new_owner, r.case_id) for r in rows if r.new_owner})
    if not transfers:
        return n_cases
    top = max(transfers, key=lambda a: (transfers[a], a))
    others = [n for a, n in managed.items() if a != top]
    if others and max(others) > managed[top]:
        return managed[top]
    return n_cases


sample_handle_time = agent_sampler("handle_time")
sample_transfer_count = agent_sampler("transfer_count")


def sample_best_region(facts: OrgFacts, rng: random.Random, want_none: bool) -> Candidate:
    """A best-region question over a relative or named period."""
    period, window, today = sample_period(facts, rng, PERIOD_MIXES["best_region_identification"])
    result = best_region(facts.index, window.start, window.end)
    query = _fill(rng.choice(texts.BEST_REGION_TEMPLATES), texts.period_phrase(period, rng))
    return Candidate(
        query + texts.STATE_SUFFIX,
        texts.today_line(today.isoformat()),
        result.answer,
        "best_region",
        window.as_params(),
        result.evidence,
        {"today": today.isoformat(), "period": period},
        result.detail,
    )


def sample_top_issue(facts: OrgFacts, rng: random.Random, want_none: bool) -> Candidate:
    """A top-issue question about a product that has cases (or, for no-answer, any product)."""
    # No-answer questions may be about any product; the others about one with cases.
    product_id = (
        rng.choice(list(facts.product_names)) if want_none else facts.busy_product(rng, 0.5)
    )
    period, window, today = sample_period(
        facts,
        rng,
        PERIOD_MIXES["top_issue_identification"],
        late_share=0.0,
    )
    result = top_issue(facts.index, product_id, window.start, window.end)
    query = _fill(
        rng.choice(texts.TOP_ISSUE_TEMPLATES),
        texts.period_phrase(period, rng),
        product=facts.product_names[product_id],
    )
    return Candidate(
        query + texts.ISSUE_SUFFIX.format(product_id=product_id),
        texts.today_line(today.isoformat()),
        result.answer,
        "top_issue",
        {"product_id": product_id, **window.as_params()},
        result.evidence,
        {"today": today.isoformat(), "period": period},
        result.detail,
    )


def sample_monthly_trend(facts: OrgFacts, rng: random.Random, want_none: bool) -> Candidate:
    """A monthly-trend question over the past months or quarters of a product with cases."""
    product_id = facts.busy_product(rng)
    period, window, today = sample_period(facts, rng, PERIOD_MIXES["monthly_trend_analysis"])
    result = monthly_trend(facts.index, product_id, window.start, window.end)
    query = _fill(
        rng.choice(texts.MONTHLY_TREND_TEMPLATES),
        texts.period_phrase(period, rng),
        product=facts.product_names[product_id],
    )
    return Candidate(
        query + texts.MONTH_SUFFIX.format(product_id=product_id),
        texts.today_line(today.isoformat()),
        result.answer,
        "monthly_trend",
        {"product_id": product_id, **window.as_params()},
        result.evidence,
        {"today": today.isoformat(), "period": period},
        result.detail,
    )


def pool_sampler(kind: str) -> Callable[[OrgFacts, random.Random], Sampler]:
    """Make a sampler factory over the truth pool ``kind`` (kqa, pvi or ncr).

    The factory shuffles the pool once with the given rng; the sampler then hands out entries
    in that order, raising :class:`PoolExhausted` when none is left.
    """

    def factory(facts: OrgFacts, rng: random.Random) -> Sampler:
        entries = list(facts.truth.get(kind, ()))
        rng.shuffle(entries)
        entries = _spread(entries, _pool_key(kind, facts))
        answered: Iterator[dict[str, Any]] = iter(
            [e for e in entries if kind != "pvi" or e.get("article_id")]
        )
        unanswered: Iterator[dict[str, Any]] = iter(
            [e for e in entries if kind == "pvi" and not e.get("article_id")]
        )

        def sample(facts: OrgFacts, rng: random.Random, want_none: bool) -> Candidate:
            entry = next(unanswered if want_none else answered, None)
            if entry is None:
                raise PoolExhausted(kind)
            return _POOL_BUILDERS[kind](facts, rng, entry)

        return sample

    return factory


def _kqa(facts: OrgFacts, rng: random.Random, entry: dict[str, Any]) -> Candidate:
    result = knowledge_qa(facts.truth, entry["question"])
    return Candidate(
        entry["question"],
        texts.KNOWLEDGE_QA_REQUIRED,
        result.answer,
        "knowledge_qa",
        {"question": entry["question"]},
        result.evidence,
    )


def _pvi(facts: OrgFacts, rng: random.Random, entry: dict[str, Any]) -> Candidate:
    result = policy_violation(facts.truth, entry["case_id"])
    # The articles of the policies the conversation takes up, first request first.
    context = {"policies": list(entry.get("policy_articles") or ())}
    return Candidate(
        rng.choice(texts.POLICY_VIOLATION_TEMPLATES) + texts.ARTICLE_SUFFIX,
        f"- Case Id to be considered is: {entry['case_id']}",
        result.answer,
        "policy_violation",
        {"case_id": entry["case_id"]},
        result.evidence,
        context,
    )


def _ncr(facts: OrgFacts, rng: random.Random, entry: dict[str, Any]) -> Candidate:
    result = case_routing(facts.index, entry["issue_id"], entry["product_id"])
    required = texts.CASE_ROUTING_POLICY
    if entry.get("contact_id"):
        required += texts.routing_contact_line(entry["contact_id"])
    context = {"mention": entry["mention"]} if entry.get("mention") else {}
    return Candidate(
        texts.routing_query(entry["subject"], entry["description"]),
        required,
        result.answer,
        "case_routing",
        {"issue_id": entry["issue_id"], "product_id": entry["product_id"]},
        result.evidence,
        context,
        detail=result.detail,
    )


_POOL_BUILDERS = {"kqa": _kqa, "pvi": _pvi, "ncr": _ncr}


def _pool_key(kind: str, facts: OrgFacts) -> Callable[[dict[str, Any]], Any]:
    """What makes two pool entries alike, for taking them round-robin over kinds.

    Knowledge questions spread over answers, policy checks over articles; new cases spread
    over the routing rule that decides them, so each of the three rules decides a good share
    of the routing questions (and, within a rule, over issues).
    """
    if kind == "kqa":
        return lambda e: e.get("kind") or e.get("answer")
    if kind == "pvi":
        return lambda e: e.get("article_id")

    rules: dict[tuple[str, str], Any] = {}

    def rule(entry: dict[str, Any]) -> Any:
        key = (entry["issue_id"], entry["product_id"])
        if key not in rules:
            rules[key] = case_routing(facts.index, *key).detail.get("rule")
        return rules[key]

    return rule


def _spread(
    entries: list[dict[str, Any]], key: Callable[[dict[str, Any]], Any]
) -> list[dict[str, Any]]:
    """Reorder entries round-robin over groups of alike entries, keeping order within groups."""
    groups: dict[Any, list[dict[str, Any]]] = {}
    for entry in entries:
        groups.setdefault(key(entry), []).append(entry)
    queues = list(groups.values())
    out: list[dict[str, Any]] = []
    for depth in range(max((len(q) for q in queues), default=0)):
        out.extend(q[depth] for q in queues if depth < len(q))
    return out
