"""The task-type table: order, abbreviations and resolution of user input."""

from __future__ import annotations

import pytest

from crmtui.data.tasktypes import (
    PRO_ORDER,
    PRO_TASK_TYPES,
    TASK_ORDER,
    TASK_TYPES,
    abbreviation,
    resolve_task_type,
    sort_key,
)
from crmtui.errors import ConfigError


def test_leaderboard_order() -> None:
    assert [abbreviation(code) for code in TASK_ORDER] == [
        "NCR", "HTU", "TCU", "NED", "PVI", "KQA", "TII", "MTA", "BRI",
    ]  # fmt: skip
    assert tuple(TASK_TYPES) == TASK_ORDER
    assert TASK_TYPES["handle_time"].name == "Handle Time Understanding"


def test_abbreviation_passes_unknown_codes_through() -> None:
    assert abbreviation("case_routing") == "NCR"
    assert abbreviation("lead_routing") == "LRO"  # CRMArena-Pro's, labelled by crmtui
    assert abbreviation("my_own_task") == "my_own_task"


def test_pro_task_types() -> None:
    assert len(PRO_ORDER) == 22 and set(TASK_ORDER) < set(PRO_ORDER)
    assert set(PRO_ORDER) == set(TASK_ORDER) | set(PRO_TASK_TYPES)
    labels = [abbreviation(code) for code in PRO_ORDER]
    assert len(set(labels)) == 22  # no two types share a label
    assert resolve_task_type("sau") == "sales_amount_understanding"
    assert resolve_task_type("invalid_config") == "invalid_config"
    # Reports put the nine leaderboard columns first, then Pro's in run_tasks.py's order.
    ordered = sorted(PRO_ORDER, key=sort_key)
    assert ordered[:9] == list(TASK_ORDER)
    assert ordered[9:] == [c for c in PRO_ORDER if c not in TASK_ORDER]


@pytest.mark.parametrize(
    ("value", "code"),
    [
        ("NCR", "case_routing"),
        ("bri", "best_region_identification"),
        (" MTA ", "monthly_trend_analysis"),
        ("transfer_count", "transfer_count"),
        ("KNOWLEDGE_QA", "knowledge_qa"),
    ],
)
def test_resolve(value: str, code: str) -> None:
    assert resolve_task_type(value) == code


def test_resolve_accepts_known_extra_codes() -> None:
    assert resolve_task_type("my_task", ["my_task"]) == "my_task"


def test_resolve_error_lists_every_valid_value() -> None:
    with pytest.raises(ConfigError) as info:
        resolve_task_type("routing", ["my_task"])
    message = str(info.value)
    for code in PRO_ORDER:
        assert f"{abbreviation(code)} ({code})" in message
    assert message.endswith("my_task")
