"""``verify`` checks the conversation's rules, not only the chain (issue #35).

The property: a dialogue recording edited by a careful forger (every ``seq``, ``prev`` and
``hash`` recomputed, so the chain holds) that records what the dialogue core could never
have let happen (a turn after ``###STOP###``, the STOP dropped while the answer is still
scored, more user replies than the limit, turn numbers duplicated, skipped or swapped, the
same side speaking twice, a STOP flag that contradicts the text) fails ``verify`` with a
line naming the rule and the first line that breaks it. The honest recording verifies.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from crmtui.play.dialogue import STOP_TOKEN, DialogueSpec, Side
from crmtui.record import Recorder, verify
from tests.property.fuzz_inputs import rechain

INSTANCE = {"idx": 3, "task": "lead_routing", "query": "Who gets this lead?", "reward_metric": "x"}
ORG = {"path": "/o.db", "digest": "d" * 64, "name": "o"}
SIM = "openai/sim"

Lines = list[dict[str, Any]]


def _honest(tmp_path: Path, max_user_turns: int = 3) -> Path:
    spec = DialogueSpec("agent", Side("human", "ann"), Side("model", SIM), max_user_turns)
    rec = Recorder.create(
        tmp_path / "r.jsonl",
        actor={"kind": "human", "id": "ann"},
        instance=INSTANCE,
        org=ORG,
        tasks_source="t",
        dialogue=spec.to_json(),
        fsync=False,
    )
    rec.emit("user_message", {"text": "I need a lead routed", "turn": 0, "stop": False}, actor=SIM)
    rec.emit("agent_message", {"text": "Which state?", "turn": 1})
    rec.emit("user_message", {"text": "CA", "turn": 1, "stop": False}, actor=SIM)
    rec.emit("agent_message", {"text": "Route it to U4", "turn": 2})
    rec.emit("user_message", {"text": STOP_TOKEN, "turn": 2, "stop": True}, actor=SIM)
    rec.emit("submit", {"answer": "Route it to U4", "reward": 1.0, "scoring": "strict",
                        "gold": "U4"})  # fmt: skip
    rec.close("Submit action")
    return rec.path


def _lines(path: Path) -> Lines:
    return [json.loads(line) for line in path.read_text("utf-8").splitlines()]


def _forge(path: Path, lines: Lines) -> None:
    for number, obj in enumerate(lines[1:], 1):
        obj["seq"] = number  # a careful forger renumbers too
    path.write_bytes(rechain(lines))


def _message(lines: Lines, kind: str, n: int) -> dict[str, Any]:
    return [line for line in lines if line.get("type") == kind][n]


def _after_stop(lines: Lines) -> None:
    extra = dict(_message(lines, "agent_message", 1), payload={"text": "more", "turn": 3})
    lines.insert(6, extra)


def _stop_dropped(lines: Lines) -> None:
    lines.remove(_message(lines, "user_message", 2))


def _past_limit(lines: Lines) -> None:
    lines[0]["dialogue"]["max_user_turns"] = 1


def _duplicated_turn(lines: Lines) -> None:
    _message(lines, "agent_message", 1)["payload"]["turn"] = 1


def _swapped_turns(lines: Lines) -> None:
    first, second = _message(lines, "agent_message", 0), _message(lines, "agent_message", 1)
    first["payload"]["turn"], second["payload"]["turn"] = 2, 1


def _agent_twice(lines: Lines) -> None:
    lines[3], lines[4] = lines[4], lines[3]  # the user's reply after the agent's answer


def _stop_flag_false(lines: Lines) -> None:
    _message(lines, "user_message", 2)["payload"]["stop"] = False


def _user_turn_number(lines: Lines) -> None:
    _message(lines, "user_message", 1)["payload"]["turn"] = 0


def _agent_opens(lines: Lines) -> None:
    lines.remove(_message(lines, "user_message", 0))


FORGERIES: dict[str, tuple[Callable[[Lines], None], str, int]] = {
    "turn after STOP": (_after_stop, "turn order", 7),
    "STOP dropped, answer scored": (_stop_dropped, "the scored answer", 6),
    "more user turns than the limit": (_past_limit, "the limit", 5),
    "duplicated turn number": (_duplicated_turn, "turn numbers", 5),
    "swapped turn numbers": (_swapped_turns, "turn numbers", 3),
    "agent speaks twice": (_agent_twice, "turn order", 4),
    "STOP flag contradicts the text": (_stop_flag_false, "STOP", 6),
    "user turn number": (_user_turn_number, "turn numbers", 4),
    "agent opens": (_agent_opens, "turn order", 2),
}


def test_the_honest_recording_verifies(tmp_path: Path) -> None:
    path = _honest(tmp_path)
    assert verify(path).ok
    _forge(path, _lines(path))  # re-chaining alone changes nothing
    assert verify(path).ok


@pytest.mark.parametrize("name", sorted(FORGERIES))
def test_a_rechained_rule_break_is_named_with_its_line(tmp_path: Path, name: str) -> None:
    forge, rule, line = FORGERIES[name]
    path = _honest(tmp_path)
    lines = _lines(path)
    forge(lines)
    _forge(path, lines)
    report = verify(path)
    assert not report.ok
    assert report.problem is not None and f"conversation rule ({rule})" in report.problem
    assert report.first_bad_line == line, report.describe()


def _at_the_limit(tmp_path: Path, one_more_action: bool, extra_rounds: int) -> Path:
    """A conversation with a limit of 1 user reply, then ``extra_rounds`` more agent/user
    rounds; under upstream HEAD's count (``one_more_action``) the user's reply to the
    agent's last action is the one that ends it."""
    spec = DialogueSpec(
        "agent", Side("model", "m", "react"), Side("model", SIM), 1, one_more_action=one_more_action
    )
    rec = Recorder.create(
        tmp_path / f"r{one_more_action}{extra_rounds}.jsonl",
        actor={"kind": "model", "id": "m", "strategy": "react"},
        instance=INSTANCE,
        org=ORG,
        tasks_source="t",
        dialogue=spec.to_json(),
        fsync=False,
    )
    rec.emit("user_message", {"text": "Route my lead", "turn": 0, "stop": False}, actor=SIM)
    rec.emit("agent_message", {"text": "Which state?", "turn": 1})
    rec.emit("user_message", {"text": "CA", "turn": 1, "stop": False}, actor=SIM)
    for turn in range(2, 2 + extra_rounds):
        rec.emit("agent_message", {"text": "Route it to U4", "turn": turn})
        rec.emit("user_message", {"text": "Thanks", "turn": turn, "stop": False}, actor=SIM)
    rec.close("Max user turns")
    return rec.path


@pytest.mark.parametrize(
    ("one_more_action", "extra_rounds", "ok"),
    [(False, 0, True), (False, 1, False), (True, 1, True), (True, 2, False)],
)
def test_the_limit_is_counted_as_the_header_says(
    tmp_path: Path, one_more_action: bool, extra_rounds: int, ok: bool
) -> None:
    """``one_more_action`` in the header (what ``--preset head`` records) allows exactly one
    more agent action and the user's answer to it; without it, nothing after the limit."""
    result = verify(_at_the_limit(tmp_path, one_more_action, extra_rounds))
    assert result.ok is ok, result.describe()
    if not ok:
        assert "conversation rule (the limit)" in result.describe()


def test_one_more_action_round_trips_through_the_header() -> None:
    spec = DialogueSpec("agent", Side("model", "m"), Side("model", SIM), 3, one_more_action=True)
    assert DialogueSpec.from_json(spec.to_json()) == spec
    plain = DialogueSpec("agent", Side("model", "m"), Side("model", SIM), 3)
    assert "one_more_action" not in plain.to_json()
