"""Which named careless shortcuts a proposed task instance lets through (issue #24).

The task builder (:mod:`crmtui.org.tasks`) keeps, per task type, the share of instances a
shortcut passes under a budget: the generator plants data on which every shortcut usually
fails (eras of issues, peaks that move, transferred cases that change a winner, ...), and the
builder takes care that the instances it keeps do not lean on the few where it would not.

These checks run on the solvers' :class:`~crmtui.org.solvers.common.OrgIndex`, beside the
reference solver. ``crmtui tasks stats`` measures the same shortcuts again with the
independent code of :mod:`crmtui.org.readings`; a test holds the two to the same figures.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping
from datetime import date, datetime, timedelta
from fractions import Fraction
from typing import Any

from crmtui.org.solvers.common import CLOSED, elapsed_micros
from crmtui.org.solvers.periods import MONTH_NAMES, add_months, as_datetime
from crmtui.org.task_facts import Candidate, OrgFacts

#: Shortcuts that only apply to some instances of their type (budgeted as a running share).
CONDITIONAL = frozenset({"month_30_days"})
_EARLIEST = datetime(1, 1, 1)
_LATEST = datetime(9999, 1, 1)


def passes(task: str, facts: OrgFacts, candidate: Candidate) -> dict[str, float]:
    """Shortcut code -> expected accuracy (0..1) of that shortcut on ``candidate``.

    A shortcut that leaves a tie counts as picking one of the tied answers at random.
    Shortcuts that do not apply (a month shortcut on a question about days) are left out.
    """
    check = _CHECKS.get(task)
    if check is None:
        return {}
    gold = candidate.answer if isinstance(candidate.answer, str) else None
    return {code: _expected(answers, gold) for code, answers in check(facts, candidate).items()}


def _expected(answers: Iterable[str], gold: str | None) -> float:
    options = set(answers)
    if not options:
        return 1.0 if gold is None else 0.0
    return 1.0 / len(options) if gold in options else 0.0


def _top(scores: Mapping[str, Any], mode: str = "max") -> list[str]:
    if not scores:
        return []
    pick = max if mode == "max" else min
    target = pick(scores.values())
    return sorted(key for key, value in scores.items() if value == target)


def _product_cases(facts: OrgFacts, product_id: str) -> list[Any]:
    return facts.index.product_cases_created(product_id, _EARLIEST, _LATEST)


def _top_issue(facts: OrgFacts, candidate: Candidate) -> dict[str, list[str]]:
    product = candidate.params["product_id"]
    counts = Counter(c.issue_id for c in _product_cases(facts, product) if c.issue_id)
    in_period = bool(candidate.detail.get("scores"))
    return {"all_time_issue": _top(counts) if in_period else []}


def _monthly_trend(facts: OrgFacts, candidate: Candidate) -> dict[str, list[str]]:
    product = candidate.params["product_id"]
    counts = Counter(
        MONTH_NAMES[c.created.month - 1] for c in _product_cases(facts, product) if c.created
    )
    start = as_datetime(candidate.params["start"])
    end = as_datetime(candidate.params["end"])
    covered: set[str] = set()
    month = start.replace(day=1, hour=0, minute=0, second=0, microsecond=0)
    while month < end and len(covered) < 12:
        covered.add(MONTH_NAMES[month.month - 1])
        month = add_months(month, 1)
    in_window = set(candidate.detail.get("scores") or {})
    present = [m for m in _top(counts) if m in in_window]
    return {
        "all_time_month": _top(counts),
        "all_time_month_in_window": _top({m: n for m, n in counts.items() if m in covered}),
        "peak_if_in_window": present or _top(candidate.detail.get("scores") or {}),
    }


def _case_routing(facts: OrgFacts, candidate: Candidate) -> dict[str, list[str]]:
    return {"rule_1": _top(candidate.detail.get("scores") or {})[:1]}


def _agent_rows(facts: OrgFacts, candidate: Candidate) -> tuple[list[Any], set[str]]:
    start = as_datetime(candidate.params["start"])
    end = as_datetime(candidate.params["end"])
    rows = facts.index.assignments_dated(start, end)
    first = Counter(r.new_owner for r in rows if r.old_owner is None and r.new_owner and r.case_id)
    n_cases = int(candidate.params["n_cases"])
    return rows, {agent for agent, n in first.items() if n > n_cases}


def _handle_time(facts: OrgFacts, candidate: Candidate) -> dict[str, list[str]]:
    _, qualified = _agent_rows(facts, candidate)
    start = as_datetime(candidate.params["start"])
    end = as_datetime(candidate.params["end"])
    transfers = facts.index.owner_assignments_per_case
    kept: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    unfiltered: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for case in facts.index.cases_created(start, end):
        if case.status != CLOSED or not case.closed or not case.owner_id:
            continue
        micros = elapsed_micros(case.created, case.closed)  # type: ignore[arg-type]
        if case.owner_id in qualified:
            kept[case.owner_id][0] += micros
            kept[case.owner_id][1] += 1
        if transfers[case.id] == 1:
            unfiltered[case.owner_id][0] += micros
            unfiltered[case.owner_id][1] += 1
    mode = candidate.params["mode"]
    return {
        "keep_transferred": _top(_means(kept), mode),
        "no_case_filter": _top(_means(unfiltered), mode),
    }


def _means(totals: Mapping[str, list[int]]) -> dict[str, Fraction]:
    return {agent: Fraction(total, n) for agent, (total, n) in totals.items()}


def _transfer_count(facts: OrgFacts, candidate: Candidate) -> dict[str, list[str]]:
    rows, qualified = _agent_rows(facts, candidate)
    counts = Counter(r.old_owner for r in rows if r.old_owner)
    assigned = Counter(r.new_owner for r in rows if r.new_owner in qualified)
    return {
        "no_case_filter": _top(counts, candidate.params["mode"]),
        "every_row": _top(assigned, candidate.params["mode"]),  # type: ignore[arg-type]
    }


def _named_entity(facts: OrgFacts, candidate: Candidate) -> dict[str, list[str]]:
    context = candidate.context
    unit, count = context["interval"]
    today = date.fromisoformat(context["today"])
    asked = date.fromisoformat(candidate.params["purchase_date"])
    account = facts.index.contact_accounts.get(candidate.params["contact_id"]) or ""
    bought = facts.purchases(account)
    noun = str(context.get("phrase") or context.get("keyword") or "").lower().split()[-1:]
    near = [
        product
        for day, product in bought
        if abs((day - asked).days) <= 3 and facts.name_noun(product) in noun
    ]
    wanted = set(candidate.params["product_ids"])
    loose = sorted({p for day, p in bought if abs((day - asked).days) <= 3 and p in wanted})
    found: dict[str, list[str]] = {"noun_3_days": near, "fit_3_days": loose}
    if unit == "month":
        day30 = today - timedelta(days=30 * int(count))
        found["month_30_days"] = [p for day, p in bought if day == day30 and p in wanted]
    return found


def _best_region(facts: OrgFacts, candidate: Candidate) -> dict[str, list[str]]:
    """Open cases counted as handled until the question's today (issue #32)."""
    start = as_datetime(candidate.params["start"])
    end = as_datetime(candidate.params["end"])
    now = datetime.fromisoformat(str(candidate.context["today"])[:10])
    totals: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for case in facts.index.cases_created(start, end):
        state = facts.index.account_states.get(case.account_id or "")
        if not state or case.created is None:
            continue
        if case.status == CLOSED and case.closed:
            micros = elapsed_micros(case.created, case.closed)
        elif case.status != CLOSED:
            micros = elapsed_micros(case.created, max(now, case.created))
        else:
            continue
        totals[state][0] += micros
        totals[state][1] += 1
    return {"open_until_today": _top(_means(totals), "min")}


def _policy_violation(facts: OrgFacts, candidate: Candidate) -> dict[str, list[str]]:
    policies = candidate.context.get("policies") or []
    return {"topic_policy": [str(policies[0])]} if policies else {}


_CHECKS = {
    "top_issue_identification": _top_issue,
    "monthly_trend_analysis": _monthly_trend,
    "case_routing": _case_routing,
    "handle_time": _handle_time,
    "transfer_count": _transfer_count,
    "named_entity_disambiguation": _named_entity,
    "policy_violation_identification": _policy_violation,
    "best_region_identification": _best_region,
}
