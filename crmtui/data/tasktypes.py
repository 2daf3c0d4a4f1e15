"""The nine original CRMArena task types, their leaderboard abbreviations and paper names.

The leaderboard orders its columns NCR, HTU, TCU, NED, PVI, KQA, TII, MTA, BRI; every table
here follows that order, so reports line up with published results.

A task type may be given anywhere (``--task HTU``, ``--task handle_time``) as either its code
or its abbreviation; :func:`resolve_task_type` turns both into the code. CRMArena-Pro adds
task codes without official abbreviations; those are accepted as codes when the caller knows
them (e.g. because they occur in the loaded task set).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from crmtui.errors import ConfigError


@dataclass(frozen=True)
class TaskType:
    """One original CRMArena task type.

    Attributes:
        code: The ``task`` value in the data, e.g. ``handle_time``.
        abbreviation: The leaderboard column, e.g. ``HTU``.
        name: The paper's name, e.g. ``Handle Time Understanding``.
        persona: The paper's persona asking this kind of question.
        answer: What a gold answer looks like.
    """

    code: str
    abbreviation: str
    name: str
    persona: str
    answer: str


_TYPES = (
    TaskType("case_routing", "NCR", "New Case Routing", "Service Manager", "User Id"),
    TaskType(
        "handle_time", "HTU", "Handle Time Understanding", "Service Manager", "User Id or None"
    ),
    TaskType(
        "transfer_count",
        "TCU",
        "Transfer Count Understanding",
        "Service Manager",
        "User Id or None",
    ),
    TaskType(
        "named_entity_disambiguation",
        "NED",
        "Named Entity Disambiguation",
        "Service Agent",
        "Product2 Id or None",
    ),
    TaskType(
        "policy_violation_identification",
        "PVI",
        "Policy Violation Identification",
        "Service Agent",
        "Knowledge__kav Id or None",
    ),
    TaskType(
        "knowledge_qa", "KQA", "Knowledge Question Answering", "Service Agent", "short free text"
    ),
    TaskType(
        "top_issue_identification",
        "TII",
        "Top Issue Identification",
        "Service Analyst",
        "Issue__c Id or None",
    ),
    TaskType(
        "monthly_trend_analysis",
        "MTA",
        "Monthly Trend Analysis",
        "Service Analyst",
        "English month name",
    ),
    TaskType(
        "best_region_identification",
        "BRI",
        "Best Region Identification",
        "Service Analyst",
        "two-letter US state",
    ),
)

#: code -> TaskType, in leaderboard order.
TASK_TYPES: dict[str, TaskType] = {t.code: t for t in _TYPES}

#: Task codes in leaderboard order (NCR, HTU, TCU, NED, PVI, KQA, TII, MTA, BRI).
TASK_ORDER: tuple[str, ...] = tuple(TASK_TYPES)

_BY_ABBREVIATION: dict[str, TaskType] = {t.abbreviation: t for t in _TYPES}


def abbreviation(task: str) -> str:
    """Leaderboard abbreviation of a task code (``handle_time`` -> ``HTU``).

    An abbreviation is returned unchanged. Codes without an abbreviation (CRMArena-Pro's
    extra tasks) are returned as they are, so the result is always printable as a label.
    """
    known = TASK_TYPES.get(task)
    if known is not None:
        return known.abbreviation
    return task


def sort_key(task: str) -> tuple[int, str]:
    """Sort key putting original task codes in leaderboard order, then others by name."""
    try:
        return (TASK_ORDER.index(task), task)
    except ValueError:
        return (len(TASK_ORDER), task)


def resolve_task_type(value: str, known: Iterable[str] = ()) -> str:
    """Turn a task code or abbreviation given by a user into the task code.

    Args:
        value: ``HTU``, ``htu``, ``handle_time``, ... .
        known: Further task codes to accept as they are (e.g. the CRMArena-Pro codes present
            in a loaded task set).

    Returns:
        The task code.

    Raises:
        ConfigError: ``value`` is neither a known code nor an abbreviation; the message lists
            the valid values.
    """
    text = value.strip()
    extra = set(known)
    if text in TASK_TYPES or text in extra:
        return text
    by_abbrev = _BY_ABBREVIATION.get(text.upper())
    if by_abbrev is not None:
        return by_abbrev.code
    lowered = text.lower()
    if lowered in TASK_TYPES or lowered in extra:
        return lowered
    valid = [f"{t.abbreviation} ({t.code})" for t in _TYPES]
    valid += sorted(extra - set(TASK_TYPES), key=sort_key)
    raise ConfigError(f"unknown task type {value!r}; valid values: {', '.join(valid)}")
