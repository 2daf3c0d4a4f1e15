"""How well a task set discriminates: per task type, the shape of its gold answers and how
clearly each answer beats the other candidates.

:func:`task_stats` is pure. From the instances alone it reports the distribution of gold
answers (None share, distinct values, top-3 share), which works for any task file, the real
CRMArena one included. Given the ``.solutions.json`` written beside a generated org's tasks,
it adds what the reference solvers saw: how many candidates each argmax/argmin question had,
how close the best and the second-best were, how many records the answer rests on, and, for
case routing, which rule decided. Given the org's tables too, it re-runs every table solver
from its recorded parameters instead of trusting the file, and counts gold answers that no
longer agree. :func:`check_targets` compares the figures with issue #13's calibration targets.

CRMArena-Pro task sets (list answers, ``[None]`` for None) are measured the same way: the
Pro table solvers re-run on a :class:`~crmtui.org.solvers.pro.ProIndex` of the org, the
sales rankings join the argmax/argmin types, lead routing reports which rule decided, and
the None shares are held against the real b2b file's.
"""

from __future__ import annotations

import statistics
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass, field
from typing import Any, Protocol

from crmtui.org.readings import SHORTCUT_FLOORS, SHORTCUTS, OrgRows, summarize
from crmtui.org.solvers import TABLE_SOLVERS, OrgIndex, SolverError, run_solver
from crmtui.org.solvers.common import Tables
from crmtui.org.solvers.pro import PRO_TABLE_SOLVERS, ProIndex, run_pro_solver

#: Task types whose answer is the best of several ranked candidates (argmax / argmin).
RANKED_TYPES = (
    "transfer_count",
    "top_issue_identification",
    "monthly_trend_analysis",
    "handle_time",
    "best_region_identification",
    "sales_amount_understanding",
    "sales_cycle_understanding",
    "conversion_rate_comprehension",
    "sales_insight_mining",
)
#: Two averages this close (relative to the best) are "close"; two counts within one are.
CLOSE_SHARE = 0.01
CLOSE_COUNT = 1
#: The wider margin: best and second within 10% of the best (averages and counts alike).
NEAR_SHARE = 0.10
#: Most a named shortcut may pass, and the careful reading's required agreement (issue #24).
SHORTCUT_LIMIT = 0.40
#: Gold None share of each type in the real CRMArena file (39 of 130 in five types;
#: the Hugging Face dataset Salesforce/CRMArena); the generator is calibrated to stay within
#: ten points of it.
UPSTREAM_NONE_SHARE = {
    "knowledge_qa": 0.0,
    "monthly_trend_analysis": 0.0,
    "top_issue_identification": 0.3,
    "case_routing": 0.0,
    "named_entity_disambiguation": 0.3,
    "handle_time": 0.3,
    "transfer_count": 0.3,
    "policy_violation_identification": 0.3,
    "best_region_identification": 0.0,
}
#: Gold None share of each type in the real CRMArena-Pro b2b file (CRMARENAPRO-TASKS.md):
#: 20 of 100 in most exact-match types, 77 of 100 policy violations, none in five types, all
#: of the three confidentiality types.
UPSTREAM_PRO_NONE_SHARE = {
    **dict.fromkeys(
        (
            "lead_qualification",
            "activity_priority",
            "top_issue_identification",
            "invalid_config",
            "sales_amount_understanding",
            "handle_time",
            "conversion_rate_comprehension",
            "best_region_identification",
            "transfer_count",
            "wrong_stage_rectification",
            "quote_approval",
            "named_entity_disambiguation",
            "sales_cycle_understanding",
        ),
        0.2,
    ),
    **dict.fromkeys(
        (
            "monthly_trend_analysis",
            "sales_insight_mining",
            "knowledge_qa",
            "case_routing",
            "lead_routing",
        ),
        0.0,
    ),
    "policy_violation_identification": 0.77,
    **dict.fromkeys(
        (
            "private_customer_information",
            "internal_operation_data",
            "confidential_company_knowledge",
        ),
        1.0,
    ),
}


def none_anchors(tasks: Iterable[str]) -> dict[str, float]:
    """The real file's None shares to compare a task set with: the CRMArena-Pro ones when
    the set holds a type only CRMArena-Pro has, else CRMArena's."""
    pro_only = set(UPSTREAM_PRO_NONE_SHARE) - set(UPSTREAM_NONE_SHARE)
    return UPSTREAM_PRO_NONE_SHARE if pro_only.intersection(tasks) else UPSTREAM_NONE_SHARE


class InstanceLike(Protocol):
    """What :func:`task_stats` reads from an instance (``crmtui.data.instances.Instance``)."""

    idx: int
    task: str
    answer: Any


@dataclass(frozen=True)
class TypeStats:
    """Figures for one task type; shares are fractions of the answered instances.

    Attributes:
        task: Task type code.
        instances: Instances of this type.
        answered: Instances whose gold answer is not None.
        none_share: Share of all instances whose gold is None.
        distinct: Distinct gold values among the answered.
        top3_share: Share of the answered held by the three most frequent gold values.
        solved: Answered instances with a recorded solution (0 without solutions).
        ranked: Answered instances with a candidate ranking (argmax/argmin types, routing).
        single_share: Ranked instances with one candidate only.
        close_share: Ranked instances whose best and second are within 1% (averages) or one
            (counts), exact ties included.
        ties: Ranked instances whose best and second are exactly equal.
        evidence_median: Median count of evidence records per answered instance.
        extras: Type-specific figures: ``winner_3_cases`` (best region), ``months_3``
            (monthly trend), ``rule_1``..``rule_3`` (case routing, shares) and
            ``subject_reused`` (case routing, a count; only with the org's subjects).
        mismatches: Gold answers a re-run of the solver disagrees with (None: not re-run).
        near_share: Ranked instances whose best and second are within 10% of the best.
        careful_share: Instances whose gold the independent careful reading
            (:mod:`crmtui.org.readings`) gives as its only answer (None: not read).
        undecidable_share: Instances whose text does not fix one answer for a careful solver.
        date_none_share: Instances about a period whose gold None the period alone gives
            away (it lies wholly outside the org's data), among those about a period.
        shortcuts: Shortcut code -> ``{"share": expected accuracy, "n": instances it
            applies to}`` (see :data:`crmtui.org.readings.SHORTCUTS`).
    """

    task: str
    instances: int
    answered: int
    none_share: float
    distinct: int
    top3_share: float | None
    solved: int = 0
    ranked: int = 0
    single_share: float | None = None
    close_share: float | None = None
    ties: int | None = None
    evidence_median: float | None = None
    extras: dict[str, float] = field(default_factory=dict)
    mismatches: int | None = None
    near_share: float | None = None
    careful_share: float | None = None
    undecidable_share: float | None = None
    date_none_share: float | None = None
    shortcuts: dict[str, dict[str, float]] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        """Plain JSON values."""
        return asdict(self)


#: Columns the reference solvers (and the subject check) read, per object.
ORG_FIELDS: dict[str, tuple[str, ...]] = {
    "Case": (
        "Id",
        "OwnerId",
        "Status",
        "CreatedDate",
        "ClosedDate",
        "AccountId",
        "IssueId__c",
        "OrderItemId__c",
        "Subject",
    ),
    "CaseHistory__c": ("Id", "CaseId__c", "CreatedDate", "Field__c", "NewValue__c", "OldValue__c"),
    "Order": ("Id", "AccountId", "EffectiveDate", "Status"),
    "OrderItem": ("Id", "OrderId", "Product2Id"),
    "Account": ("Id", "ShippingState"),
    "Contact": ("Id", "AccountId"),
    "Product2": ("Id", "Name", "Description"),
}
#: Columns the CRMArena-Pro sales solvers read, per object.
PRO_ORG_FIELDS: dict[str, tuple[str, ...]] = {
    "Opportunity": ("Id", "OwnerId", "CreatedDate", "StageName", "ContractID__c"),
    "Contract": ("Id", "CompanySignedDate", "CustomerSignedDate"),
    "OpportunityLineItem": ("Id", "OpportunityId", "TotalPrice"),
    "Lead": ("Id", "OwnerId", "CreatedDate", "IsConverted", "ConvertedDate", "Status"),
    "Quote": ("Id", "OpportunityId", "Status", "CreatedDate", "ExpirationDate"),
    "QuoteLineItem": ("Id", "QuoteId", "Product2Id", "Quantity", "Discount"),
    "Task": ("Id", "WhatId", "Subject", "Status"),
    "Event": ("Id", "WhatId", "Subject"),
    "VoiceCallTranscript__c": (
        "Id",
        "CreatedDate",
        "OpportunityId__c",
        "LeadId__c",
        "TranscriptBody__c",
        "Body__c",
    ),
    "Territory2": ("Id", "Description"),
    "UserTerritory2Association": ("Id", "Territory2Id", "UserId"),
    "Knowledge__kav": ("Id", "Title", "FAQ_Answer__c"),
    "Product2": ("Id", "Name"),
}


def task_stats(
    instances: Iterable[InstanceLike],
    solutions: Mapping[str, Mapping[str, Any]] | None = None,
    index: OrgIndex | None = None,
    case_subjects: Iterable[str] | None = None,
    pro_index: ProIndex | None = None,
    rows: OrgRows | None = None,
) -> list[TypeStats]:
    """Figures per task type, in the order the types first appear.

    Args:
        instances: The task set.
        solutions: ``str(idx)`` -> ``{"solver", "params", "evidence", "detail"?}`` as written
            beside a generated org's tasks; without it only the gold distribution is reported.
        index: The org's tables (indexed); when given, table solvers are re-run from the
            recorded parameters and their fresh results are used.
        case_subjects: The org's case subjects; when given, case routing reports how many of
            its new cases reuse one (``subject_reused``).
        pro_index: The org's sales objects (indexed); when given, the CRMArena-Pro table
            solvers are re-run too.
        rows: The org's rows for the independent readings; when given (with solutions), each
            type reports its careful agreement, undecidable share and shortcut accuracies.
    """
    by_type: dict[str, list[InstanceLike]] = {}
    for inst in instances:
        by_type.setdefault(inst.task, []).append(inst)
    subjects = None if case_subjects is None else set(case_subjects)
    return [
        _one_type(task, group, solutions, (index, pro_index), subjects, rows)
        for task, group in by_type.items()
    ]


def read_org_tables(
    conn: Any,
    objects: Mapping[str, Iterable[str]],
    fields: Mapping[str, tuple[str, ...]] = ORG_FIELDS,
) -> Tables:
    """The rows the solvers need from an org file's SQLite connection.

    Args:
        conn: An open ``sqlite3`` connection to an org in the org layout.
        objects: Object -> the columns present in the org (others read as missing).
        fields: Object -> the columns wanted (default: what the CRMArena solvers read).
    """
    tables: dict[str, list[dict[str, Any]]] = {}
    for obj, wanted in fields.items():
        present = set(objects.get(obj, ()))
        columns = [c for c in wanted if c in present]
        if "Id" not in columns:
            continue
        names = ", ".join(f'"{c}"' for c in columns)
        rows = conn.execute(f'SELECT {names} FROM "{obj}"')
        tables[obj] = [dict(zip(columns, row, strict=True)) for row in rows]
    return tables


def _gold_key(answer: Any) -> str | None:
    if answer is None:
        return None
    if isinstance(answer, list) and all(a is None for a in answer):
        return None  # CRMArena-Pro's [None]
    if isinstance(answer, list):
        return " | ".join("None" if a is None else str(a) for a in answer)
    return str(answer)


def _one_type(
    task: str,
    group: list[InstanceLike],
    solutions: Mapping[str, Mapping[str, Any]] | None,
    indexes: tuple[OrgIndex | None, ProIndex | None],
    subjects: set[str] | None,
    rows: OrgRows | None = None,
) -> TypeStats:
    golds = [_gold_key(inst.answer) for inst in group]
    answered = [g for g in golds if g is not None]
    counts = Counter(answered)
    top3 = sum(n for _, n in counts.most_common(3))
    base = {
        "task": task,
        "instances": len(group),
        "answered": len(answered),
        "none_share": (len(group) - len(answered)) / len(group),
        "distinct": len(counts),
        "top3_share": top3 / len(answered) if answered else None,
    }
    if solutions is None:
        return TypeStats(**base)
    runs: list[tuple[dict[str, Any], list[str]]] = []
    mismatches = 0 if any(i is not None for i in indexes) else None
    for inst in group:
        solution = solutions.get(str(inst.idx))
        if solution is None:
            continue
        detail, evidence, answer = _solution_view(solution, indexes)
        if mismatches is not None and answer is not _NOT_RUN and not _same(answer, inst.answer):
            mismatches += 1
        if _gold_key(inst.answer) is not None:
            runs.append((detail, evidence))
    figures = _ranking_figures(task, runs)
    if task == "case_routing" and subjects is not None:
        reused = sum(1 for inst in group if _routing_subject(inst) in subjects)
        figures["extras"]["subject_reused"] = float(reused)
    if rows is not None:
        figures.update(summarize(rows, task, group, solutions))
    return TypeStats(**base, **figures, mismatches=mismatches)


def _routing_subject(inst: InstanceLike) -> str | None:
    query = getattr(inst, "query", "") or ""
    for line in query.splitlines():
        if line.startswith("- Case Subject: "):
            return line.removeprefix("- Case Subject: ").strip()
    return None


_NOT_RUN = object()


def _same(answer: Any, gold: Any) -> bool:
    """Whether a solver's answer is the gold answer (a Pro gold is a list, [None] for None)."""
    if isinstance(gold, list) and not isinstance(answer, list):
        return [answer] == gold
    return bool(answer == gold)


def _solution_view(
    solution: Mapping[str, Any], indexes: tuple[OrgIndex | None, ProIndex | None]
) -> tuple[dict[str, Any], list[str], Any]:
    """``(detail, evidence, answer)``: re-run when possible, else as recorded."""
    name = solution.get("solver")
    index, pro = indexes
    if index is not None and name in TABLE_SOLVERS:
        try:
            result = run_solver(str(name), solution.get("params", {}), tables=index)
        except SolverError:
            return {}, [], None
        return result.detail, result.evidence, result.answer
    if pro is not None and name in PRO_TABLE_SOLVERS:
        try:
            result = run_pro_solver(str(name), solution.get("params", {}), tables=pro)
        except SolverError:
            return {}, [], None
        return result.detail, result.evidence, result.answer
    return dict(solution.get("detail") or {}), list(solution.get("evidence") or []), _NOT_RUN


def _ranking_figures(task: str, runs: list[tuple[dict[str, Any], list[str]]]) -> dict[str, Any]:
    ranked = [(detail, evidence) for detail, evidence in runs if detail.get("scores")]
    if task not in RANKED_TYPES and task not in ("case_routing", "lead_routing"):
        ranked = []
    figures: dict[str, Any] = {
        "solved": len(runs),
        "ranked": len(ranked),
        "evidence_median": (
            float(statistics.median(len(evidence) for _, evidence in runs)) if runs else None
        ),
        "extras": _extras(task, [detail for detail, _ in ranked]),
    }
    if ranked and task in RANKED_TYPES:
        margins = [margin(detail) for detail, _ in ranked]
        figures["single_share"] = sum(1 for m in margins if m == "single") / len(ranked)
        figures["close_share"] = sum(1 for m in margins if m in ("close", "tie")) / len(ranked)
        figures["ties"] = sum(1 for m in margins if m == "tie")
        near = sum(1 for detail, _ in ranked if within(detail, NEAR_SHARE))
        figures["near_share"] = near / len(ranked)
    return figures


def _ordered(detail: Mapping[str, Any]) -> list[tuple[str, float]]:
    scores = detail["scores"]
    reverse = detail.get("better", "max") == "max"
    return sorted(scores.items(), key=lambda item: item[1], reverse=reverse)


def margin(detail: Mapping[str, Any]) -> str:
    """How clearly a ranking's best beats its second: ``single`` (no second), ``tie``,
    ``close`` (within 1% for averages, one for counts) or ``clear``.

    Args:
        detail: A solver's ranking (``SolverResult.detail``) with ``scores``.
    """
    ordered = _ordered(detail)
    if len(ordered) < 2:
        return "single"
    best, second = ordered[0][1], ordered[1][1]
    if best == second:
        return "tie"
    if detail.get("kind") == "average":
        close = abs(best - second) <= CLOSE_SHARE * abs(best)
    else:
        close = abs(best - second) <= CLOSE_COUNT
    return "close" if close else "clear"


def within(detail: Mapping[str, Any], share: float) -> bool:
    """Whether a ranking's second-best is within ``share`` of its best (ties included; a
    ranking with a single candidate is not)."""
    ordered = _ordered(detail)
    if len(ordered) < 2:
        return False
    best, second = ordered[0][1], ordered[1][1]
    return abs(best - second) <= share * abs(best)


def _extras(task: str, details: list[dict[str, Any]]) -> dict[str, float]:
    if not details:
        return {}
    n = len(details)
    if task == "best_region_identification":
        rested = sum(1 for d in details if d["support"].get(_ordered(d)[0][0], 0) >= 3)
        return {"winner_3_cases": rested / n}
    if task == "monthly_trend_analysis":
        return {"months_3": sum(1 for d in details if len(d["scores"]) >= 3) / n}
    if task in ("case_routing", "lead_routing"):
        rules = Counter(d.get("rule") for d in details)
        return {f"rule_{r}": rules.get(r, 0) / n for r in (1, 2, 3)}
    return {}


@dataclass(frozen=True)
class TargetCheck:
    """One calibration target and whether a task set meets it.

    Attributes:
        task: Task type code.
        target: What is measured, in words.
        value: The measured value (a share, or a count for ties).
        limit: The bound, read with ``op`` (``<=`` or ``>=``).
        op: ``<=`` or ``>=``.
        ok: Whether ``value op limit`` holds.
    """

    task: str
    target: str
    value: float
    limit: float
    op: str
    ok: bool


def check_targets(
    stats: Iterable[TypeStats], anchor_none: Mapping[str, float] | None = None
) -> list[TargetCheck]:
    """Issue #13's calibration targets, checked against ``stats`` (which need solutions).

    Args:
        stats: Output of :func:`task_stats` with solutions.
        anchor_none: Task type -> None share of the real task file (default: the published
            :data:`UPSTREAM_NONE_SHARE`, or :data:`UPSTREAM_PRO_NONE_SHARE` for a CRMArena-Pro
            task set); every type must stay within ten points of it.
    """
    stats = list(stats)
    anchors = none_anchors(i.task for i in stats) if anchor_none is None else anchor_none
    checks: list[TargetCheck] = []

    def check(task: str, target: str, value: float | None, op: str, limit: float) -> None:
        measured = 0.0 if value is None else value
        ok = value is not None and (measured <= limit if op == "<=" else measured >= limit)
        checks.append(TargetCheck(task, target, measured, limit, op, ok))

    for item in stats:
        if item.task in RANKED_TYPES:
            check(item.task, "single-candidate share", item.single_share, "<=", 0.15)
            check(item.task, "best vs second within 1% or one", item.close_share, "<=", 0.10)
            check(item.task, "exact ties", item.ties, "<=", 0)
        extra = {
            "best_region_identification": ("winner rests on >= 3 cases", "winner_3_cases", 0.8),
            "monthly_trend_analysis": ("window has >= 3 months with cases", "months_3", 0.7),
        }.get(item.task)
        if extra is not None:
            check(item.task, extra[0], item.extras.get(extra[1]), ">=", extra[2])
        if item.task == "case_routing":
            for rule in (1, 2, 3):
                share = item.extras.get(f"rule_{rule}")
                check(item.task, f"decided by rule {rule}", share, ">=", 0.15)
            if "subject_reused" in item.extras:
                reused = item.extras["subject_reused"]
                check(item.task, "new-case subjects equal to an org subject", reused, "<=", 0)
        if item.task in anchors:
            gap = abs(item.none_share - anchors[item.task])
            check(item.task, "None share vs the real file (gap)", gap, "<=", 0.10)
        if item.careful_share is not None:
            check(item.task, "careful reading agrees with the gold", item.careful_share, ">=", 1.0)
        if item.undecidable_share is not None:
            check(item.task, "undecidable instances", item.undecidable_share, "<=", 0.0)
        # Issue #32: no None whose period alone gives it away (CRMArena and CRMArena-Pro).
        if item.date_none_share is not None:
            check(item.task, "None given away by the date alone", item.date_none_share, "<=", 0.0)
        labels = dict(SHORTCUTS.get(item.task, ()))
        for code, figure in item.shortcuts.items():
            label = labels.get(code, code)
            # A shortcut no data can hold to the limit is held to its floor (invalid config).
            limit = max(SHORTCUT_LIMIT, SHORTCUT_FLOORS.get((item.task, code), 0.0))
            check(item.task, f"shortcut: {label}", figure["share"], "<=", limit)
    return checks
