"""Independent readings of generated tasks: the careful reading and named careless shortcuts.

A reading re-solves an instance from the org's raw rows with code of its own (nothing from
:mod:`crmtui.org.solvers`), once the careful way and once per named shortcut, a plausible
careless way of solving that type (keeping transferred cases in handle time, taking a
product's all-time top issue, ...). ``crmtui tasks stats`` turns the readings into the share
of instances each shortcut passes, the share a careful solver cannot decide, and whether the
careful reading agrees with every gold answer.

Public API: :data:`SHORTCUTS` (task type -> (code, description) pairs), :class:`OrgRows`
(:meth:`OrgRows.from_tables`), :func:`read_instance`, :func:`summarize` (a type's figures),
:class:`Reading`, :func:`hit`.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from crmtui.org.readings.agents import read_case_routing, read_handle_time, read_transfer_count
from crmtui.org.readings.insights import read_sales_insight
from crmtui.org.readings.others import read_best_region, read_policy_violation
from crmtui.org.readings.pro_products import read_pro_named_entity
from crmtui.org.readings.products import read_monthly_trend, read_top_issue
from crmtui.org.readings.records import (
    read_invalid_config,
    read_lead_qualification,
    read_quote_approval,
)
from crmtui.org.readings.rows import OrgRows, stamp
from crmtui.org.readings.sales import (
    read_activity_priority,
    read_conversion_rate,
    read_lead_routing,
    read_sales_amount,
    read_sales_cycle,
    read_wrong_stage,
)
from crmtui.org.readings.types import Answers, Reading, answer_key, gold_key, hit

__all__ = [
    "SHORTCUTS",
    "SHORTCUT_FLOORS",
    "Answers",
    "PRO_CONDITIONAL",
    "OrgRows",
    "Reading",
    "answer_key",
    "gold_key",
    "hit",
    "read_instance",
    "summarize",
]

#: The named shortcuts per task type: (code, what the careless solver does).
SHORTCUTS: dict[str, tuple[tuple[str, str], ...]] = {
    "monthly_trend_analysis": (
        ("all_time_month", "all-time busiest month"),
        ("all_time_month_in_window", "all-time busiest of the window's months"),
        ("peak_if_in_window", "all-time busiest month if the window has its cases"),
        ("most_common", "always the type's most common answer"),
    ),
    "top_issue_identification": (
        ("all_time_issue", "all-time top issue (None without a case in the period)"),
        ("most_common", "always the type's most common answer"),
    ),
    "case_routing": (
        ("rule_1", "rule 1 only, the first Id on a tie"),
        ("most_common", "always the type's most common answer"),
    ),
    "named_entity_disambiguation": (
        ("noun_3_days", "a purchase of the same noun within 3 days"),
        ("month_30_days", "'a month' read as 30 days (month questions)"),
        ("latest_fitting", "the latest fitting purchase, the date ignored (Pro orgs)"),
        ("fit_3_days", "a purchase the words fit within 3 days"),
        ("most_common", "always the type's most common answer"),
    ),
    "handle_time": (
        ("keep_transferred", "transferred cases kept in the averages"),
        ("no_case_filter", "the 'more than N cases' filter ignored"),
        ("most_common", "always the type's most common answer"),
    ),
    "transfer_count": (
        ("no_case_filter", "the 'more than N cases' filter ignored"),
        ("every_row", "every Owner Assignment row counted, by new owner"),
        ("most_common", "always the type's most common answer"),
    ),
    "policy_violation_identification": (
        ("topic_policy", "the policy the conversation opens with"),
        ("most_common", "always the type's most common answer"),
    ),
    "best_region_identification": (
        ("open_until_today", "open cases counted, handled until today"),
        ("most_common", "always the type's most common answer"),
    ),
    # CRMArena-Pro's sales types (issue #32).
    "sales_amount_understanding": (("close_date", "Closed deals by CloseDate"),),
    "sales_cycle_understanding": (("close_date", "CloseDate as the end of the cycle"),),
    "conversion_rate_comprehension": (("converted_any_time", "a conversion at any time counts"),),
    "lead_routing": (("all_quotes", "quotes of every status counted"),),
    "wrong_stage_rectification": (
        ("any_status", "tasks of any status count as work done"),
        ("latest_activity", "the stage of the latest activity"),
        ("tasks_only", "Events ignored"),
    ),
    "activity_priority": (("all_not_started", "every Not Started task"),),
    "quote_approval": (("discount_article", "always the discount article"),),
    "invalid_config": (
        ("per_line", "each line held to the product's limit alone"),
        ("at_limit", "a product at exactly its limit counts as breaking it (>= for >)"),
        ("no_companion", "the companion article ignored (its kit clause too)"),
    ),
    "lead_qualification": (
        ("strict_thresholds", "strict thresholds (above the budget, under the months)"),
        ("missing_pass", "a factor never discussed counts as met (leads missing one)"),
    ),
    "sales_insight_mining": (("all_time", "the period ignored (period questions)"),),
}
#: Shortcuts held to a share above the usual 40%, with that share.
SHORTCUT_FLOORS: dict[tuple[str, str], float] = {
    # None now: invalid config's two were, until its quotes carried decoys that each
    # careless reading misreads (issue #32, docs/pro-tasks.md).
}
#: CRMArena-Pro shortcuts that apply to some instances of their type only: their share is of
#: the instances they apply to (and the Pro builder budgets them so).
PRO_CONDITIONAL = frozenset({"missing_pass", "all_time"})

Reader = Callable[[OrgRows, Mapping[str, Any], Mapping[str, Any]], Reading]
_READERS: dict[str, Reader] = {
    "handle_time": read_handle_time,
    "transfer_count": read_transfer_count,
    "best_region_identification": read_best_region,
    "top_issue_identification": read_top_issue,
    "monthly_trend_analysis": read_monthly_trend,
    "named_entity_disambiguation": read_pro_named_entity,
    "policy_violation_identification": read_policy_violation,
    "sales_amount_understanding": read_sales_amount,
    "sales_cycle_understanding": read_sales_cycle,
    "conversion_rate_comprehension": read_conversion_rate,
    "lead_routing": read_lead_routing,
    "wrong_stage_rectification": read_wrong_stage,
    "activity_priority": read_activity_priority,
    "quote_approval": read_quote_approval,
    "invalid_config": read_invalid_config,
    "lead_qualification": read_lead_qualification,
    "sales_insight_mining": read_sales_insight,
}


def read_instance(
    rows: OrgRows,
    task: str,
    solution: Mapping[str, Any],
    query: str = "",
    required: str = "",
) -> Reading | None:
    """Read one instance from its recorded parameters and context.

    Args:
        rows: The org's rows.
        task: Task type code.
        solution: The instance's entry of ``.solutions.json`` (``params``, ``context``).
        query: The instance's question (routing reads the case text from it).
        required: Its ``metadata.required`` (routing may name the customer there).

    Returns:
        The reading, or None for a type without one (knowledge questions) or a solution
        whose parameters the reading cannot use.
    """
    params = solution.get("params") or {}
    context = solution.get("context") or {}
    try:
        if task == "case_routing":
            return read_case_routing(rows, params, context, query, required)
        reader = _READERS.get(task)
        return None if reader is None else reader(rows, params, context)
    except (KeyError, TypeError, ValueError):
        return None


def summarize(
    rows: OrgRows,
    task: str,
    instances: Iterable[Any],
    solutions: Mapping[str, Mapping[str, Any]],
) -> dict[str, Any]:
    """A task type's figures from reading each of its instances.

    Args:
        rows: The org's rows.
        task: Task type code.
        instances: The type's instances (``idx``, ``answer``, ``query``, ``metadata``).
        solutions: ``str(idx)`` -> the instance's solution (instances without one are skipped).

    Returns:
        ``careful_share`` (instances whose gold the careful reading gives as its only
        answer, among those it can read), ``undecidable_share``, ``date_none_share`` (among
        the instances about a period, those whose None its date alone gives away: the
        period lies wholly before or after everything the org recorded) and ``shortcuts`` (code ->
        ``{"share": expected accuracy, "n": instances it applies to}``); None where nothing
        was read.
    """
    careful: list[bool] = []
    undecidable: list[bool] = []
    by_date: list[bool] = []
    golds: list[str | None] = []
    passed: dict[str, list[float]] = {code: [] for code, _ in SHORTCUTS.get(task, ())}
    for inst in instances:
        solution = solutions.get(str(inst.idx))
        if solution is None:
            continue
        metadata = getattr(inst, "metadata", None)
        query = getattr(inst, "query", "") or ""
        required = getattr(metadata, "required", "") or ""
        gold = gold_key(inst.answer)
        params = solution.get("params") or {}
        if params.get("start") and params.get("end"):
            start, end = stamp(params["start"]), stamp(params["end"])
            by_date.append(gold is None and rows.window_outside_data(start, end))  # type: ignore[arg-type]
        reading = read_instance(rows, task, solution, query, required)
        if reading is None:
            continue
        undecidable.append(reading.is_undecidable())
        if reading.careful is not None:
            careful.append(reading.careful == (() if gold is None else (gold,)))
        for code, answers in reading.shortcuts.items():
            passed.setdefault(code, []).append(hit(answers, gold))
        golds.append(gold)
    if golds and rows.pro is None and any(c == "most_common" for c, _ in SHORTCUTS.get(task, ())):
        # A solver that always gives the answer the type gives most (None included).
        top = Counter(golds).most_common(1)[0][0]
        passed["most_common"] = [float(g == top) for g in golds]
    return {
        "careful_share": sum(careful) / len(careful) if careful else None,
        "undecidable_share": sum(undecidable) / len(undecidable) if undecidable else None,
        "date_none_share": sum(by_date) / len(by_date) if by_date else None,
        "shortcuts": {
            code: {"share": sum(hits) / len(hits), "n": len(hits)}
            for code, hits in passed.items()
            if hits
        },
    }
