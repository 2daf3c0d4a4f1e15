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
