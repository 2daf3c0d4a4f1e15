"""Each event payload is defined once, and the validator follows that definition (#33).

The TypedDicts of :data:`crmtui.record.events.PAYLOADS` are the one definition: the field
table the validator reads is derived from them, so a field added to a class is accepted,
a field missing from it is refused, and each annotation's types, optionality and value check
are what the validator enforces. The docs' event table comes from the same classes
(tests/docs/test_generated.py).
"""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Any, get_type_hints

import pytest

from crmtui.record import events as ev
from crmtui.record.errors import PayloadError

SAMPLE: dict[type, Any] = {
    str: "x",
    int: 1,
    float: 0.5,
    bool: True,
    list: [],
    dict: {},
    type(None): None,
}
#: Values a field's own check accepts where the plain sample would not.
VALID = {
    ("run_query", "kind"): "soql",
    ("view_value", "source"): "table",
    ("copy", "source"): "table",
    ("copy", "what"): "value",
    ("compute", "source"): "table",
    ("compute", "spec"): dict.fromkeys(
        ("aggregate", "group_by", "field", "start", "end", "unit"), "x"
    ),
    ("score_call", "role"): "judge",
}


def sample(kind: str, name: str, field: Any) -> Any:
    return VALID.get((kind, name), SAMPLE[field.types[0]])


def full_payload(kind: str) -> dict[str, Any]:
    return {name: sample(kind, name, f) for name, f in ev.PAYLOAD_FIELDS[kind].items()}


def test_every_event_type_has_one_payload_class() -> None:
    assert set(ev.PAYLOADS) == ev.EVENT_TYPES == set(ev.PAYLOAD_FIELDS)
    for kind, payload in ev.PAYLOADS.items():
        assert list(ev.PAYLOAD_FIELDS[kind]) == list(get_type_hints(payload)), kind


@pytest.mark.parametrize("kind", sorted(ev.PAYLOADS))
def test_the_validator_follows_the_class(kind: str) -> None:
    payload = full_payload(kind)
    ev.validate_payload(kind, payload)  # every declared field, well typed: accepted
    required = {n for n, f in ev.PAYLOAD_FIELDS[kind].items() if f.required}
    ev.validate_payload(kind, {n: v for n, v in payload.items() if n in required})
    with pytest.raises(PayloadError, match="unknown payload field"):
        ev.validate_payload(kind, {**payload, "not_declared": 1})
    for name in required:
        with pytest.raises(PayloadError, match=f"missing payload field '{name}'"):
            ev.validate_payload(kind, {n: v for n, v in payload.items() if n != name})
    for name, field in ev.PAYLOAD_FIELDS[kind].items():
        wrong = next(v for t, v in SAMPLE.items() if t not in field.types and t is not bool)
        if int in field.types and isinstance(wrong, float):
            continue  # floats are refused only where the class says int: covered by int fields
        with pytest.raises(PayloadError, match=f"'{name}'"):
            ev.validate_payload(kind, {**payload, name: wrong})


def test_checks_come_from_the_annotations() -> None:
    with pytest.raises(PayloadError, match="non-negative"):
        ev.validate_payload("idle", {"seconds": -1.0})
    with pytest.raises(PayloadError, match="from 0 to 1"):
        ev.validate_payload("submit", {"answer": "a", "reward": 2, "scoring": "s", "gold": None})


def test_no_second_field_table_in_the_source() -> None:
    """The field table is derived, never written out again beside the classes."""
    source = Path(ev.__file__).read_text(encoding="utf-8")
    tree = ast.parse(source)
    literal_tables = [
        node.lineno
        for node in ast.walk(tree)
        if isinstance(node, ast.Dict)
        and any(isinstance(k, ast.Name) and k.id in {"OPEN_OBJECT", "SUBMIT"} for k in node.keys)
        and not all(isinstance(v, ast.Name) and v.id.endswith("Payload") for v in node.values)
    ]
    assert literal_tables == []
