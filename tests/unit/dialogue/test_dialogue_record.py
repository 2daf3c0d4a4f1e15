"""Dialogue events and the header's ``dialogue`` object: recorded, verified, attributed."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from crmtui.play.dialogue import DialogueSpec, Side
from crmtui.record import PayloadError, Recorder, load, verify
from crmtui.record.format import sealed_line

INSTANCE = {"idx": 3, "task": "lead_routing", "query": "Who gets this lead?", "reward_metric": "x"}
ORG = {"path": "/o.db", "digest": "d" * 64, "name": "o"}


def _spec(role: str = "agent") -> DialogueSpec:
    return DialogueSpec(role, Side("human", "ann"), Side("model", "openai/sim"), 10)


def _record(tmp_path: Path, spec: DialogueSpec | None = None) -> Recorder:
    spec = spec or _spec()
    return Recorder.create(
        tmp_path / "r.jsonl",
        actor={"kind": spec.own.kind, "id": spec.own.id},
        instance=INSTANCE,
        org=ORG,
        tasks_source="t",
        dialogue=spec.to_json(),
        fsync=False,
    )


def test_a_dialogue_recording_verifies_and_keeps_who_said_what(tmp_path: Path) -> None:
    rec = _record(tmp_path)
    rec.emit(
        "user_message",
        {
            "text": "hi",
            "turn": 0,
            "stop": False,
            "model": "openai/sim",
            "prompt_tokens": 5,
            "completion_tokens": 1,
            "cost": 0.0,
            "latency_ms": 2.0,
        },
        actor="openai/sim",
    )
    rec.emit("agent_message", {"text": "which lead?", "turn": 1})
    rec.close("finished")
    loaded = load(rec.path)
    assert DialogueSpec.from_header(loaded.header) == _spec()
    assert [e.actor for e in loaded.events[:2]] == ["openai/sim", "ann"]
    assert verify(rec.path).ok


def test_a_message_from_the_wrong_side_is_a_bad_line(tmp_path: Path) -> None:
    rec = _record(tmp_path)
    rec.emit("user_message", {"text": "hi", "turn": 0, "stop": False})  # as the agent
    rec.close("finished")
    report = verify(rec.path)
    assert not report.ok and report.first_bad_line == 2
    assert "the user is 'openai/sim'" in str(report.problem)


def test_dialogue_events_need_a_dialogue_header(tmp_path: Path) -> None:
    rec = Recorder.create(
        tmp_path / "r.jsonl",
        actor={"kind": "human", "id": "ann"},
        instance=INSTANCE,
        org=ORG,
        tasks_source="t",
        fsync=False,
    )
    rec.emit("agent_message", {"text": "x", "turn": 1})
    rec.close("finished")
    assert "without a dialogue" in str(verify(rec.path).problem)


def test_the_recorded_side_must_be_the_headers_actor(tmp_path: Path) -> None:
    with pytest.raises(PayloadError, match="must be the header's actor"):
        Recorder.create(
            tmp_path / "r.jsonl",
            actor={"kind": "human", "id": "bob"},
            instance=INSTANCE,
            org=ORG,
            tasks_source="t",
            dialogue=_spec().to_json(),
            fsync=False,
        )


@pytest.mark.parametrize(
    ("change", "problem"),
    [
        ({"role": "judge"}, "'role' must be"),
        ({"max_user_turns": 0}, "max_user_turns"),
        ({"user": {"kind": "robot", "id": "x"}}, "'kind' must be"),
        ({"extra": 1}, "unknown field 'extra'"),
    ],
)
def test_a_forged_dialogue_header_is_named(tmp_path: Path, change: dict, problem: str) -> None:
    rec = _record(tmp_path)
    rec.close("finished")
    lines = rec.path.read_text(encoding="utf-8").splitlines()
    header = json.loads(lines[0])
    header["dialogue"] = {**header["dialogue"], **change}
    _, text = sealed_line(header)
    rec.path.write_text(text + "\n".join(lines[1:]) + "\n", encoding="utf-8")
    report = verify(rec.path)
    assert report.first_bad_line == 1 and problem in str(report.problem)
