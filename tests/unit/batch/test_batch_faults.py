"""Injected faults end in a clear end reason and an intact recording, never a crash."""

from __future__ import annotations

import json
from typing import Any

import pytest

from crmtui.agent.batch import run_batch
from crmtui.agent.replies import ModelError
from crmtui.record.verify import load, verify
from tests.fakes.openai_server import delayed, empty, error, text, tool_call
from tests.unit.batch.scripted import gold_text
from tests.waiting import promptly


def _instances(tasks: Any, n: int) -> list[Any]:
    return [inst for inst in tasks if inst.answer is not None][:n]


def test_faults_end_cleanly_with_verifiable_recordings(routing, make_config, tasks, org) -> None:
    a, b, c, e, f = _instances(tasks, 5)
    answer = lambda inst: text(f"<respond>{gold_text(inst.answer)}</respond>")  # noqa: E731
    scripts = {
        a: [error(429, "slow down", retry_after=0.01), answer(a)],  # retried, then solved
        b: [error(500), error(500), error(500)],  # retries used up
        c: [delayed(30.0)] * 3,  # client timeouts, retried
        e: [empty(), text("no tags here")],  # invalid replies use up the turns
        f: [error(500), answer(f)],  # one 5xx, then fine
    }
    server = routing(scripts)
    config = make_config(
        server,
        idxs=tuple(i.idx for i in scripts),
        concurrency=2,
        max_turns=2,
        # Cuts c's replies off; the others answer at once, in time on a busy machine too.
        timeout=promptly(0.7, instead=30.0),
        client_options={"max_retries": 2, "backoff_base_s": 0.01},
    )

    report = run_batch(config, org=org, tasks=tasks)

    outcomes = {o.idx: o for o in report.outcomes}
    assert set(outcomes) == {i.idx for i in scripts}
    reasons = {idx: o.result.end_reason for idx, o in outcomes.items()}
    assert outcomes[a.idx].reward == 1.0
    assert load(outcomes[a.idx].path).of_type("model_call")[0].payload["attempts"] == 2
    assert reasons[b.idx]["source"] == "api" and reasons[b.idx]["message"] == "Model error"
    assert "server error 500" in reasons[b.idx]["content"]
    assert "gave up after 3 attempts" in reasons[b.idx]["content"]
    assert "did not answer within" in reasons[c.idx]["content"]
    assert reasons[e.idx] == {
        "source": "agent",
        "message": "Invalid action",
        "content": "no tags here",
    }
    assert outcomes[f.idx].reward == 1.0
    for outcome in outcomes.values():
        assert verify(outcome.path).ok
        end = load(outcome.path).end
        assert end is not None and end.payload["end_reason"] == outcome.result.end_reason
    # Model failures score 0 in the results file, as upstream's exceptions do.
    entries = json.loads(report.results_path.read_text(encoding="utf-8"))
    assert sorted(e["task_id"] for e in entries) == sorted(i.idx for i in scripts)


def test_malformed_tool_json_is_an_invalid_turn(routing, make_config, tasks, org) -> None:
    (inst,) = _instances(tasks, 1)
    server = routing(
        {
            inst: [
                tool_call("soql_query", '{"query": "SELECT Id FROM Case', call_id="x"),
                tool_call("respond", {"content": gold_text(inst.answer)}, call_id="y"),
            ]
        }
    )
    config = make_config(server, strategy="tool_call", idxs=(inst.idx,))

    (outcome,) = run_batch(config, org=org, tasks=tasks).outcomes

    assert outcome.reward == 1.0
    tool_messages = [m for m in outcome.result.messages if m.get("role") == "tool"]
    assert "not valid JSON" in tool_messages[0]["content"]
    assert verify(outcome.path).ok


def test_time_limit_ends_the_attempt(routing, make_config, tasks, org) -> None:
    (inst,) = _instances(tasks, 1)
    server = routing({inst: [delayed(0.8)]})
    config = make_config(server, idxs=(inst.idx,), time_limit_s=0.2, timeout=5.0)

    (outcome,) = run_batch(config, org=org, tasks=tasks).outcomes

    assert outcome.result.end_reason == {"source": "runner", "message": "Time limit reached"}
    assert outcome.done  # a real outcome: counted, not re-run on resume
    assert verify(outcome.path).ok


def test_model_failures_are_retried_on_resume(routing, make_config, tasks, org) -> None:
    good, flaky = _instances(tasks, 2)
    server = routing({good: [text("<respond>x</respond>")], flaky: [error(500), error(500)]})
    config = make_config(server, idxs=(good.idx, flaky.idx), client_options={"max_retries": 1})
    first = run_batch(config, org=org, tasks=tasks)
    assert {o.idx: o.result.end_reason["source"] for o in first.outcomes} == {
        good.idx: "agent",
        flaky.idx: "api",
    }

    server = routing({flaky: [text(f"<respond>{gold_text(flaky.answer)}</respond>")]})
    second = run_batch(make_config(server, idxs=config.idxs), org=org, tasks=tasks)

    assert second.tally.skipped == 1
    assert [(o.idx, o.reward) for o in second.outcomes] == [(flaky.idx, 1.0)]
    entries = json.loads(second.results_path.read_text(encoding="utf-8"))
    assert {e["task_id"]: e["crmtui"]["reward"] for e in entries} == {good.idx: 0.0, flaky.idx: 1.0}


def test_an_authentication_failure_stops_the_batch(routing, make_config, tasks, org) -> None:
    picked = _instances(tasks, 5)
    server = routing({inst: [error(401, "bad key")] for inst in picked})
    config = make_config(server, idxs=tuple(i.idx for i in picked))

    with pytest.raises(ModelError, match="authentication failed for model openai/fake"):
        run_batch(config, org=org, tasks=tasks)

    assert len(server.requests) == 1  # no other instance was started
    (path,) = list(config.recordings.rglob("*.jsonl"))
    assert verify(path).ok
