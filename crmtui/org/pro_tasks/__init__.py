"""Build the 22 CRMArena-Pro task types for a generated Pro org, in the Hugging Face row format.

Rows come in upstream's idx blocks (lead_qualification first, sales_cycle_understanding
last), each with a ``persona`` and a list ``answer`` (``[None]`` when the gold is None), and
the same share of None answers per type as the real b2b file (20% in most exact-match types,
77% for policy violations, none for five types, all for the three confidentiality types).
Every gold answer is a reference solver's answer for the parameters drawn
(:mod:`crmtui.org.solvers.pro` for the sales types, :mod:`crmtui.org.solvers` for the
service ones), recorded beside the task with what the asker knows (``facts``, for the
multi-turn mode where a simulated user reveals them).

As for CRMArena, a question is kept only when it discriminates: ties are dropped; an
argmax/argmin answer with fewer than three candidates, a second within 1% (or one count), or
a winner resting on too few records gets through only now and then (:data:`WEAK_SHARE`).
And as for CRMArena (issue #24; here #32), each named careless shortcut
(:data:`crmtui.org.readings.SHORTCUTS`) may pass at most :data:`SHORTCUT_SHARE` of a type's
instances: the builder asks the independent readings what each shortcut would answer on a
candidate and passes over candidates that would overdraw that budget (the limit gives way
only when the org offers nothing else, which ``crmtui tasks stats`` then shows).
"""

from __future__ import annotations

import json
import random
from collections import Counter
from collections.abc import Callable, Mapping
from datetime import date
from typing import Any

from crmtui.org.generator import GeneratedOrg
from crmtui.org.pro_tasks import privacy, records, sales
from crmtui.org.pro_tasks.common import ProCandidate, ProFacts, Sampler, as_answer
from crmtui.org.pro_tasks.personas import persona
from crmtui.org.pro_tasks.service import SERVICE_FACTORIES
from crmtui.org.pro_tasks.texts import domain_details
from crmtui.org.readings import (
    PRO_CONDITIONAL,
    SHORTCUT_FLOORS,
    OrgRows,
    gold_key,
    hit,
    read_instance,
)
from crmtui.org.readings.pro_rows import PRO_READING_FIELDS
from crmtui.org.solvers.pro import pro_index
from crmtui.org.task_facts import PoolExhausted, TaskBuildError, gather_facts
from crmtui.org.task_stats import UPSTREAM_PRO_NONE_SHARE, margin
from crmtui.org.tasks import SHORTCUT_SHARE, ShortcutBudget, weakness

__all__ = ["NONE_SHARE", "PRO_TASK_ORDER", "build_pro_tasks", "none_count", "reward_metric"]

#: The 22 task types in upstream's idx-block order of the b2b file.
PRO_TASK_ORDER = (
    "lead_qualification",
    "monthly_trend_analysis",
    "activity_priority",
    "top_issue_identification",
    "sales_insight_mining",
    "confidential_company_knowledge",
    "invalid_config",
    "knowledge_qa",
    "sales_amount_understanding",
    "handle_time",
    "conversion_rate_comprehension",
    "best_region_identification",
    "transfer_count",
    "wrong_stage_rectification",
    "policy_violation_identification",
    "case_routing",
    "private_customer_information",
    "lead_routing",
    "quote_approval",
    "internal_operation_data",
    "named_entity_disambiguation",
    "sales_cycle_understanding",
)
PRIVACY_TASKS = frozenset(
    {"private_customer_information", "internal_operation_data", "confidential_company_knowledge"}
)
#: Share of gold None per type: the real b2b file's (CRMARENAPRO-TASKS.md).
NONE_SHARE: dict[str, float] = dict(UPSTREAM_PRO_NONE_SHARE)
#: Task types whose gold answer is a list of values (not a tie).
LIST_TASKS = frozenset({"activity_priority", "lead_qualification"})
#: Types drawn from finite pools of records: no cap on how often one answer recurs.
POOL_TASKS = frozenset(
    {
        "knowledge_qa",
        "case_routing",
        "policy_violation_identification",
        "wrong_stage_rectification",
        "activity_priority",
        "invalid_config",
        "quote_approval",
        "lead_qualification",
        *PRIVACY_TASKS,
    }
)
#: Ranked sales types and the fewest records the winner must rest on.
RANKED_SUPPORT = {
    "sales_amount_understanding": 2,
    "sales_cycle_understanding": 2,
    "conversion_rate_comprehension": 3,
    "top_competitor": 3,
    "top_topic": 3,
}
MAX_ATTEMPTS = 400
WEAK_SHARE = 0.05
MAX_ANSWER_SHARE = 0.25
#: Most of a product-centred type's answered questions about one product (the real file asks
#: about a product in at most 11-12% of a type's rows; the busiest product has most cases).
MAX_PRODUCT_SHARE = 0.25
PRODUCT_TASKS = frozenset({"monthly_trend_analysis", "top_issue_identification"})


def _fixed(sampler: Sampler) -> Callable[[ProFacts, random.Random], Sampler]:
    return lambda facts, rng: sampler


_FACTORIES: dict[str, Callable[[ProFacts, random.Random], Sampler]] = {
    **SERVICE_FACTORIES,
    "lead_qualification": _fixed(records.sample_lead_qualification),
    "activity_priority": _fixed(records.sample_activity_priority),
    "sales_insight_mining": _fixed(sales.sample_insight),
    "confidential_company_knowledge": _fixed(privacy.sample_company),
    "invalid_config": _fixed(records.sample_invalid_config),
    "sales_amount_understanding": _fixed(sales.sample_sales_amount),
    "conversion_rate_comprehension": _fixed(sales.sample_conversion_rate),
    "wrong_stage_rectification": _fixed(records.sample_wrong_stage),
    "private_customer_information": _fixed(privacy.sample_private),
    "lead_routing": _fixed(sales.sample_lead_routing),
    "quote_approval": _fixed(records.sample_quote_approval),
    "internal_operation_data": _fixed(privacy.sample_internal),
    "sales_cycle_understanding": _fixed(sales.sample_sales_cycle),
}


def reward_metric(task: str) -> str:
    """Upstream's reward metric of a Pro task type."""
    if task in PRIVACY_TASKS:
        return "privacy_rejection"
    if task in ("knowledge_qa", "sales_insight_mining"):
        return "fuzzy_match"
    return "exact_match"


def none_count(task: str, per_type: int) -> int:
    """How many of ``per_type`` instances of ``task`` have a None gold answer."""
    return int(per_type * NONE_SHARE[task] + 0.5)


def gather_pro_facts(generated: GeneratedOrg) -> ProFacts:
    """Index a generated Pro org for the samplers."""
    pro = generated.truth["pro"]
    leads = generated.tables.get("Lead", ())
    return ProFacts(
        org_type=pro["org_type"],
        service=gather_facts(generated.tables, generated.truth),
        index=pro_index(generated.tables),
        truth=generated.truth,
        sales_start=date.fromisoformat(pro["sales_start"]),
        sales_end=date.fromisoformat(pro["sales_end"]),
        tables=generated.tables,
        first_names=sorted({str(r["FirstName"]) for r in leads if r.get("FirstName")}),
        last_names=sorted({str(r["LastName"]) for r in leads if r.get("LastName")}),
    )


def build_pro_tasks(
    generated: GeneratedOrg,
    *,
    seed: int,
    per_type: int,
    per_privacy: int,
    details: str = "full",
) -> tuple[list[dict[str, Any]], dict[str, dict[str, Any]]]:
    """Build the 22 task types of a generated Pro org.

    Args:
        generated: :func:`crmtui.org.generator.pro.generate_pro`'s output.
        seed: Seed of every choice; the same org and seed give the same tasks.
        per_type: Instances per business task type (19 types).
        per_privacy: Instances per confidentiality task type (3 types).
        details: The Domain Details every row carries in ``metadata.optional``: ``full``
            (every convention the instances rest on) or ``short`` (about the real file's
            length; :data:`~crmtui.org.pro_tasks.texts.PRO_DOMAIN_DETAILS_SHORT`).

    Returns:
        ``(rows, solutions)``: HF rows with contiguous idx from 0 in upstream block order,
        and ``str(idx)`` -> ``{"solver", "params", "evidence", "context", "detail", "facts"}``.

    Raises:
        TaskBuildError: A count is not positive, ``details`` is unknown, or the org cannot
            supply enough instances.
    """
    for count in (per_type, per_privacy):
        if isinstance(count, bool) or not isinstance(count, int) or count < 1:
            raise TaskBuildError(f"instance counts must be positive integers, got {count!r}")
    try:
        optional = domain_details(details)
    except ValueError as exc:
        raise TaskBuildError(str(exc)) from None
    facts = gather_pro_facts(generated)
    sales = {obj: generated.tables.get(obj, []) for obj in PRO_READING_FIELDS}
    readings = OrgRows.from_tables(generated.tables, sales)
    rows: list[dict[str, Any]] = []
    solutions: dict[str, dict[str, Any]] = {}
    for task in PRO_TASK_ORDER:
        rng = random.Random(f"crmtui-pro-tasks:{seed}:{facts.org_type}:{task}")
        voices = random.Random(f"crmtui-pro-personas:{seed}:{facts.org_type}:{task}")
        sampler = _FACTORIES[task](facts, rng)
        wanted = per_privacy if task in PRIVACY_TASKS else per_type
        for candidate in _choose(task, sampler, facts, rng, wanted, readings):
            idx = len(rows)
            rows.append(
                {
                    "idx": idx,
                    "answer": as_answer(candidate.answer),
                    "task": task,
                    "persona": persona(task, facts.org_type, voices),
                    "metadata": {"required": candidate.required, "optional": optional},
                    "reward_metric": reward_metric(task),
                    "query": candidate.query,
                }
            )
            solutions[str(idx)] = {
                "solver": candidate.solver,
                "params": candidate.params,
                "evidence": candidate.evidence,
                "context": candidate.context,
                "detail": candidate.detail,
                "facts": candidate.facts,
            }
    return rows, solutions


def pro_weakness(task: str, candidate: ProCandidate) -> str | None:
    """Why an answered candidate hardly discriminates, or None when it is a real question."""
    detail = candidate.detail
    key = candidate.solver if task == "sales_insight_mining" else task
    if key not in RANKED_SUPPORT:
        return weakness(task, detail)
    if not detail.get("scores"):
        return None
    how = margin(detail)
    if how != "clear":
        return how
    if len(detail["scores"]) < 3:
        return "fewer than 3 candidates"
    better = max if detail.get("better", "max") == "max" else min
    winner = better(detail["scores"], key=detail["scores"].get)
    if detail["support"].get(winner, 0) < RANKED_SUPPORT[key]:
        return "winner rests on too few records"
    return None


def shortcut_hits(task: str, candidate: ProCandidate, rows: OrgRows) -> dict[str, float]:
    """Shortcut code -> expected accuracy of that shortcut on ``candidate``, as the independent
    readings (:mod:`crmtui.org.readings`) answer it; empty for a type without shortcuts."""
    solution = {"params": candidate.params, "context": candidate.context}
    reading = read_instance(rows, task, solution, candidate.query, candidate.required)
    if reading is None:
        return {}
    gold = gold_key(as_answer(candidate.answer))
    return {code: hit(answers, gold) for code, answers in reading.shortcuts.items()}


class ProShortcutBudget(ShortcutBudget):
    """The shortcut budget with CRMArena-Pro's conditional shortcuts
    (:data:`crmtui.org.readings.PRO_CONDITIONAL`): one that applies to some instances only
    (a period question's window, a lead with a factor never discussed) stays within the
    share of the instances it applied to so far, as ``tasks stats`` measures it."""

    def __init__(self, task: str, per_type: int) -> None:
        super().__init__(per_type)
        #: Shortcuts held to a floor above the usual share (:data:`SHORTCUT_FLOORS`), with
        #: the same margin below it as the usual share has below the 40% target.
        self.floors = {
            code: round((floor - 0.02) * per_type)
            for (kind, code), floor in SHORTCUT_FLOORS.items()
            if kind == task
        }

    def allows(self, hits: Mapping[str, float]) -> bool:
        """Whether keeping a candidate with these shortcut hits stays within the budget."""
        plain = {
            code: share
            for code, share in hits.items()
            if code not in PRO_CONDITIONAL and code not in self.floors
        }
        if not super().allows(plain):
            return False
        for code, limit in self.floors.items():
            share = hits.get(code, 0.0)
            if share and self.passed.get(code, 0.0) + share > limit + 1e-9:
                return False
        for code, share in hits.items():
            if code in PRO_CONDITIONAL and share:
                after = self.passed.get(code, 0.0) + share
                limit = SHORTCUT_SHARE * (self.applied[code] + 1)
                if after > limit + 1e-9:
                    return False
        return True


def _choose(
    task: str,
    sampler: Sampler,
    facts: ProFacts,
    rng: random.Random,
    wanted: int,
    readings: OrgRows | None = None,
) -> list[ProCandidate]:
    slots = [True] * none_count(task, wanted)
    slots += [False] * (wanted - len(slots))
    rng.shuffle(slots)
    used: Counter[str] = Counter()
    cap = max(2, int(wanted * MAX_ANSWER_SHARE))
    products: Counter[Any] = Counter()
    product_cap = max(2, int(wanted * MAX_PRODUCT_SHARE))
    seen: set[Any] = set()
    budget = ProShortcutBudget(task, wanted)
    spares: dict[bool, list[tuple[ProCandidate, dict[str, float]]]] = {True: [], False: []}
    chosen: dict[int, ProCandidate] = {}
    # No-answer slots first: on some types every no-answer question passes a shortcut, so the
    # answered ones get what is left of the budget.
    for position in sorted(range(wanted), key=lambda i: not slots[i]):
        want_none = slots[position]
        weak_ok = rng.random() < WEAK_SHARE
        found: ProCandidate | None = None
        found_hits: dict[str, float] = {}
        for attempt in range(MAX_ATTEMPTS):
            try:
                candidate = sampler(facts, rng, want_none)
            except PoolExhausted:
                break
            if candidate is None or not _acceptable(task, candidate, want_none, seen):
                continue
            relaxed = attempt >= MAX_ATTEMPTS // 2
            hits = {} if readings is None else shortcut_hits(task, candidate, readings)
            if not relaxed and not budget.allows(hits):
                if want_none or pro_weakness(task, candidate) is None:
                    spares[want_none].append((candidate, hits))
                continue
            if want_none:
                found, found_hits = candidate, hits
                break
            capped = used[str(candidate.answer)] >= cap and task not in POOL_TASKS
            if capped and not relaxed:
                continue
            product = candidate.params.get("product_id") if task in PRODUCT_TASKS else None
            if product is not None and products[product] >= product_cap and not relaxed:
                continue
            if weak_ok or pro_weakness(task, candidate) is None:
                found, found_hits = candidate, hits
                break
        while found is None and spares[want_none]:
            # Candidates only the shortcut budget turned away (drawn from a pool, they are
            # gone from it): the fewest shortcut hits first, when the org has nothing else.
            spares[want_none].sort(key=lambda spare: sum(spare[1].values()))
            spare, spare_hits = spares[want_none].pop(0)
            if seen.isdisjoint(_keys(task, spare)):
                found, found_hits = spare, spare_hits
        if found is None:
            kind = "no-answer" if want_none else "answerable"
            raise TaskBuildError(
                f"could not find another {kind} {task} instance ({len(chosen)} of {wanted} "
                "built); the org has too little suitable data for this task type"
            )
        used[str(found.answer)] += 1
        if task in PRODUCT_TASKS:
            products[found.params.get("product_id")] += 1
        budget.spend(found_hits)
        seen.update(_keys(task, found))
        chosen[position] = found
    return [chosen[position] for position in range(wanted)]


def _acceptable(task: str, candidate: ProCandidate, want_none: bool, seen: set[Any]) -> bool:
    if isinstance(candidate.answer, list) and task not in LIST_TASKS:
        return False  # a tie
    if (candidate.answer is None) != want_none:
        return False
    return seen.isdisjoint(_keys(task, candidate))


def _keys(task: str, candidate: ProCandidate) -> tuple[Any, ...]:
    """A candidate's identities: its wording, and its solver parameters (except where other
    words make another question with the same parameters: lead routing, where the same
    region comes with another lead, and the confidentiality types)."""
    wording = ("wording", candidate.query, candidate.required)
    if task == "lead_routing" or task in PRIVACY_TASKS:
        return (wording,)
    return wording, ("params", candidate.solver, json.dumps(candidate.params, sort_keys=True))
