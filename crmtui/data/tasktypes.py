"""CRMArena's task types, their leaderboard abbreviations and paper names, and CRMArena-Pro's.

The leaderboard orders its columns NCR, HTU, TCU, NED, PVI, KQA, TII, MTA, BRI; every table
here follows that order, so reports line up with published results.

CRMArena-Pro keeps those nine and adds thirteen (:data:`PRO_TASK_TYPES`). Neither its paper
nor its code gives them abbreviations that could be checked here, so the short labels of the
thirteen (SAU, LRO, ...) are crmtui's own, made like the leaderboard's from the paper's task
names; :data:`PRO_ORDER` lists all 22 in the order ``run_tasks.py --task_category`` does.

A task type may be given anywhere (``--task HTU``, ``--task handle_time``, ``--task SAU``) as
either its code or its abbreviation; :func:`resolve_task_type` turns both into the code.
Other codes are accepted as codes when the caller knows them (e.g. because they occur in the
loaded task set).
"""

from __future__ import annotations

from collections.abc import Iterable

from crmtui.errors import ConfigError
from crmtui.value_class import FrozenValue


class TaskType(FrozenValue):
    """One original CRMArena task type.

    Attributes:
        code: The ``task`` value in the data, e.g. ``handle_time``.
        abbreviation: The leaderboard column, e.g. ``HTU``.
        name: The paper's name, e.g. ``Handle Time Understanding``.
        persona: The paper's persona asking this kind of question.
        answer: What a gold answer looks like.
    """

    FIELDS = ("code", "abbreviation", "name", "persona", "answer")

    code: str
    abbreviation: str
    name: str
    persona: str
    answer: str

    def __init__(self, code: str, abbreviation: str, name: str, persona: str, answer: str) -> None:
        self._set(code=code, abbreviation=abbreviation, name=name, persona=persona, answer=answer)


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

_SALES, _CPQ, _SECRET = "Sales", "CPQ", "Confidentiality"
# The paper's task names; the abbreviations are crmtui's (see the module docstring).
_PRO_TYPES = (
    TaskType("sales_amount_understanding", "SAU", "Sales Amount Understanding", _SALES, "User Id"),
    TaskType("lead_routing", "LRO", "Lead Routing", _SALES, "User Id"),
    TaskType("sales_cycle_understanding", "SCU", "Sales Cycle Understanding", _SALES, "User Id"),
    TaskType(
        "conversion_rate_comprehension", "CRC", "Conversion Rate Comprehension", _SALES, "User Id"
    ),
    TaskType(
        "wrong_stage_rectification", "WSR", "Wrong Stage Rectification", _SALES, "a stage name"
    ),
    TaskType("sales_insight_mining", "SIM", "Sales Insight Mining", _SALES, "short free text"),
    TaskType("quote_approval", "QAP", "Quote Approval", _CPQ, "Knowledge__kav Id or None"),
    TaskType("lead_qualification", "LQU", "Lead Qualification", _SALES, "BANT factors or None"),
    TaskType("activity_priority", "APR", "Activity Priority", _SALES, "Task Ids or None"),
    TaskType(
        "invalid_config", "ICI", "Invalid Configuration Identification", _CPQ,
        "Knowledge__kav Id or None",
    ),
    TaskType(
        "private_customer_information", "PCI", "Private Customer Information", _SECRET,
        "a refusal",
    ),
    TaskType(
        "internal_operation_data", "IOD", "Internal Operation Data", _SECRET, "a refusal"
    ),
    TaskType(
        "confidential_company_knowledge", "CCK", "Confidential Company Knowledge", _SECRET,
        "a refusal",
    ),
)  # fmt: skip

#: code -> TaskType of the thirteen task types CRMArena-Pro adds.
PRO_TASK_TYPES: dict[str, TaskType] = {t.code: t for t in _PRO_TYPES}

#: CRMArena-Pro's 22 task codes in ``run_tasks.py``'s ``--task_category`` order.
PRO_ORDER: tuple[str, ...] = (
    "handle_time",
    "transfer_count",
    "knowledge_qa",
    "best_region_identification",
    "case_routing",
    "named_entity_disambiguation",
    "policy_violation_identification",
    "top_issue_identification",
    "monthly_trend_analysis",
    "sales_amount_understanding",
    "lead_routing",
    "sales_cycle_understanding",
    "conversion_rate_comprehension",
    "wrong_stage_rectification",
    "sales_insight_mining",
    "quote_approval",
    "lead_qualification",
    "activity_priority",
    "invalid_config",
    "private_customer_information",
    "internal_operation_data",
    "confidential_company_knowledge",
)

#: Every known task type, CRMArena's first.
ALL_TASK_TYPES: dict[str, TaskType] = {**TASK_TYPES, **PRO_TASK_TYPES}

_BY_ABBREVIATION: dict[str, TaskType] = {t.abbreviation: t for t in ALL_TASK_TYPES.values()}
# After the nine leaderboard columns, CRMArena-Pro's own types in their code order.
_ORDER = TASK_ORDER + tuple(code for code in PRO_ORDER if code not in TASK_TYPES)


def abbreviation(task: str) -> str:
    """Leaderboard abbreviation of a task code (``handle_time`` -> ``HTU``).

    An abbreviation is returned unchanged, and so is an unknown code, so the result is
    always printable as a label.
    """
    known = ALL_TASK_TYPES.get(task)
    if known is not None:
        return known.abbreviation
    return task


def sort_key(task: str) -> tuple[int, str]:
    """Sort key: original task codes in leaderboard order, CRMArena-Pro's next, then others
    by name."""
    try:
        return (_ORDER.index(task), task)
    except ValueError:
        return (len(_ORDER), task)


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
    if text in ALL_TASK_TYPES or text in extra:
        return text
    by_abbrev = _BY_ABBREVIATION.get(text.upper())
    if by_abbrev is not None:
        return by_abbrev.code
    lowered = text.lower()
    if lowered in ALL_TASK_TYPES or lowered in extra:
        return lowered
    valid = [f"{t.abbreviation} ({t.code})" for t in ALL_TASK_TYPES.values()]
    valid += sorted(extra - set(ALL_TASK_TYPES), key=sort_key)
    raise ConfigError(f"unknown task type {value!r}; valid values: {', '.join(valid)}")


#: What a person is shown instead of a customer-facing task type's code (the picker, the
#: status bar, the filter): the five types whose asker is a customer share one label, so a
#: label never tells that the right answer is a refusal (the three confidentiality types).
PERSON_TYPE_LABEL = ("CR", "customer_request")

#: Task types whose asker is a customer (upstream's ``EXTERNAL_FACING_TASKS``): the model's
#: prompt and the person's screens say so in the same words
#: (:data:`crmtui.data.parity.INTERNAL_AUDIENCE`).
CUSTOMER_FACING = frozenset(
    {
        "knowledge_qa",
        "named_entity_disambiguation",
        "private_customer_information",
        "internal_operation_data",
        "confidential_company_knowledge",
    }
)


def person_task_label(task: str) -> tuple[str, str]:
    """``(abbreviation, code)`` a person is shown for ``task`` (see :data:`PERSON_TYPE_LABEL`).

    The model is never told an instance's type; a person needs one to choose instances by,
    so theirs names what the instance is about, never what kind of answer is right.
    """
    if task in CUSTOMER_FACING:
        return PERSON_TYPE_LABEL
    return abbreviation(task), task
