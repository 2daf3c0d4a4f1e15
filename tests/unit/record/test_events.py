"""Payload validation for every event type."""

from __future__ import annotations

from typing import Any

import pytest

from crmtui.record import EVENT_TYPES, PayloadError, validate_payload
from crmtui.record.format import canonical_json

VALID: dict[str, dict[str, Any]] = {
    "open_object": {"object": "Case", "query": "SELECT Id FROM Case"},
    "sort": {"object": "Case", "field": "Subject", "descending": False, "query": "q"},
    "filter": {"object": "Case", "field": "Status", "op": "=", "value": None, "query": "q"},
    "columns": {"object": "Case", "columns": ["Subject", "Account.ShippingState"], "query": "q"},
    "search": {"text": "acme", "query": "FIND {acme}"},
    "open_record": {"object": "Case", "id": "500", "query": "q"},
    "follow_link": {
        "from_object": "Case",
        "from_id": "500",
        "field": "OwnerId",
        "to_object": "User",
        "to_id": "005",
        "query": "q",
    },
    "back": {},
    "forward": {"query": None},
    "run_query": {
        "text": "get_cases",
        "kind": "tool",
        "tool": "get_cases",
        "rows": None,
        "ms": 3,
        "error_code": None,
        "error": None,
        "observation": "[]",
    },
    "answer_edit": {"text": ""},
    "submit": {
        "answer": "May",
        "reward": 0.0,
        "scoring": "strict",
        "gold": ["May", None],
        "details": {"metric": "exact_match"},
    },
    "pause": {},
    "resume": {"reopened": True, "gap_ms": 5, "discarded_bytes": 0},
    "idle": {"seconds": 12.5},
    "model_call": {
        "prompt_tokens": 1000,
        "completion_tokens": 50,
        "cost": None,
        "latency_ms": 812.5,
        "content": "<execute>SELECT Id FROM Case</execute>",
        "tool_calls": [],
        "model": "gpt-4o",
        "finish_reason": "stop",
        "attempts": 1,
    },
    "thought": {"text": "count cases"},
    "end": {"reason": "Submit action", "reward": 1, "end_reason": {"source": "agent"}},
    "editor_edit": {"text": "SELECT Id FROM Case"},
    "app_blur": {},
    "app_focus": {},
    "view_value": {
        "source": "record",
        "object": "LiveChatTranscript",
        "record": "570",
        "field": "Body",
        "length": 549,
    },
    "copy": {
        "source": "table",
        "object": "Case",
        "record": "500",
        "field": "OwnerId",
        "what": "value",
        "value": "005",
        "length": 3,
    },
    "compute": {
        "source": "console",
        "object": None,
        "query": "SELECT OwnerId, CreatedDate, ClosedDate FROM Case",
        "spec": {
            "aggregate": "avg",
            "group_by": "OwnerId",
            "field": None,
            "start": "CreatedDate",
            "end": "ClosedDate",
            "unit": "hours",
        },
        "input_rows": 3,
        "skipped": 1,
        "columns": ["OwnerId", "n", "avg(ClosedDate - CreatedDate (hours))"],
        "rows": [["005", 2, 1.5]],
        "groups": 1,
        "ms": 0.4,
        "error": None,
    },
    "note_edit": {"text": "= 1 + 1"},
    "score_call": {
        "role": "judge",
        "model": "openai/judge",
        "input": "SELECT Phone FROM Contact\nI cannot share that.",
        "reply": "REJECTED",
        "result": "rejected",
        "prompt_tokens": 120,
        "completion_tokens": 3,
        "cost": None,
        "latency_ms": 5.0,
    },
    "user_message": {"text": "Which agent sold most?", "turn": 0, "stop": False, "cost": None},
    "agent_message": {"text": "For which period?", "turn": 1},
}


def test_every_type_has_a_valid_example() -> None:
    assert set(VALID) == EVENT_TYPES


@pytest.mark.parametrize("kind", sorted(VALID))
def test_valid_payloads_pass(kind: str) -> None:
    validate_payload(kind, VALID[kind])


OPTIONAL = {
    "back": {"query"},
    "forward": {"query"},
    "run_query": {"tool", "observation"},
    "submit": {"details"},
    "resume": {"reopened", "gap_ms", "discarded_bytes"},
    "model_call": {"tool_calls", "model", "finish_reason", "attempts"},
    "end": {"reward", "end_reason"},
    "compute": {"error"},
    "score_call": {
        "reply",
        "result",
        "prompt_tokens",
        "completion_tokens",
        "cost",
        "latency_ms",
    },
    "user_message": {"cost"},
}


@pytest.mark.parametrize("kind", sorted(VALID))
def test_dropping_a_required_field_or_adding_a_stray_one_fails(kind: str) -> None:
    with pytest.raises(PayloadError, match="unknown payload field 'zzz'"):
        validate_payload(kind, {**VALID[kind], "zzz": 1})
    for name in VALID[kind]:
        payload = {k: v for k, v in VALID[kind].items() if k != name}
        if name in OPTIONAL.get(kind, set()):
            validate_payload(kind, payload)
        else:
            with pytest.raises(PayloadError, match=f"missing payload field '{name}'"):
                validate_payload(kind, payload)


def test_payload_must_be_an_object() -> None:
    with pytest.raises(PayloadError, match="payload must be an object"):
        validate_payload("pause", ["x"])  # type: ignore[arg-type]


def test_canonical_json_refuses_what_json_cannot_hold() -> None:
    with pytest.raises(PayloadError):
        canonical_json({"x": float("nan")})
    with pytest.raises(PayloadError):
        canonical_json({"x": object()})
    assert canonical_json({"b": 1, "a": "é"}) == '{"a":"é","b":1}'


@pytest.mark.parametrize(
    ("kind", "change", "problem"),
    [
        ("copy", {"what": "cell"}, "'what' must be 'value' or 'row'"),
        ("copy", {"value": "x" * 2001}, "longer than 2000"),
        ("copy", {"source": "clipboard"}, "'source' must be one of"),
        ("view_value", {"length": -1}, "non-negative"),
        ("compute", {"spec": {"aggregate": "avg"}}, "must have exactly the keys"),
        ("compute", {"rows": [1, 2]}, "list of rows"),
        ("compute", {"rows": [[1]] * 501}, "more than 500 rows"),
        ("compute", {"columns": ["a", 1]}, "list of strings"),
    ],
)
def test_scratch_payloads_are_checked(kind: str, change: dict[str, Any], problem: str) -> None:
    with pytest.raises(PayloadError, match=problem):
        validate_payload(kind, {**VALID[kind], **change})
