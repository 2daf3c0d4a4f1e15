"""The task-type table: order, abbreviations and resolution of user input."""

from __future__ import annotations

import pytest

from crmtui.data.tasktypes import TASK_ORDER, TASK_TYPES, abbreviation, resolve_task_type
from crmtui.errors import ConfigError


def test_leaderboard_order() -> None:
    assert [abbreviation(code) for code in TASK_ORDER] == [
        "NCR", "HTU", "TCU", "NED", "PVI", "KQA", "TII", "MTA", "BRI",
    ]  # fmt: skip
    assert tuple(TASK_TYPES) == TASK_ORDER
    assert TASK_TYPES["handle_time"].name == "Handle Time Understanding"


def test_abbreviation_passes_unknown_codes_through() -> None:
    assert abbreviation("case_routing") == "NCR"
    assert abbreviation("lead_routing") == "lead_routing"


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
    assert resolve_task_type("lead_routing", ["lead_routing"]) == "lead_routing"


def test_resolve_error_lists_every_valid_value() -> None:
    with pytest.raises(ConfigError) as info:
        resolve_task_type("routing", ["lead_routing"])
    message = str(info.value)
    for code in TASK_ORDER:
        assert f"{abbreviation(code)} ({code})" in message
    assert message.endswith("lead_routing")
