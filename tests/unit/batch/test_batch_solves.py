"""A scripted agent solves one instance of every task type, over real HTTP, in each strategy."""

from __future__ import annotations

from typing import Any

import pytest

from crmtui.agent.batch import run_batch
from crmtui.data.tasktypes import TASK_ORDER
from crmtui.record.verify import load, verify
from tests.unit.batch.scripted import QUERIES, solving_script


def one_per_type(tasks: Any) -> list[Any]:
    """The first instance of each task type, plus the first with a null gold answer."""
    chosen: dict[str, Any] = {}
    for inst in tasks:
        chosen.setdefault(inst.task, inst)
    null = next(inst for inst in tasks if inst.answer is None)
    picked = list(chosen.values())
    return picked if null in picked else [*picked, null]


@pytest.mark.parametrize("strategy", ["react", "act", "tool_call"])
def test_every_task_type_is_solved_end_to_end(strategy, routing, make_config, tasks, org) -> None:
    picked = one_per_type(tasks)
    assert {inst.task for inst in picked} == set(TASK_ORDER)
    server = routing({inst: solving_script(inst, strategy) for inst in picked})
    config = make_config(server, strategy=strategy, idxs=tuple(i.idx for i in picked))

    report = run_batch(config, org=org, tasks=tasks)

    assert report.tally.finished == len(picked) and not report.stopped
    by_idx = {o.idx: o for o in report.outcomes}
    for inst in picked:
        outcome = by_idx[inst.idx]
        assert outcome.reward == 1.0, (inst.task, outcome.result.end_reason)
        assert outcome.result.end_reason["message"] == "Submit action"
        assert verify(outcome.path).ok
        recording = load(outcome.path)
        assert recording.actor == {"kind": "model", "id": "openai/fake", "strategy": strategy}
        assert recording.instance["idx"] == inst.idx
        queries = recording.of_type("run_query")
        assert [q.payload["text"] for q in queries] == [QUERIES[inst.task]]
        assert queries[0].payload["error"] is None
        assert [e.type for e in recording.of_type("model_call", "submit", "end")] == [
            "model_call",
            "model_call",
            "submit",
            "end",
        ]
        submit = recording.submit
        assert submit is not None and submit.payload["scoring"] == "strict"
        assert submit.payload["gold"] == inst.answer
        assert recording.end is not None
        assert recording.end.payload["end_reason"]["message"] == "Submit action"
    assert server.unexpected == []
    assert report.summary[-1].task == "all" and report.summary[-1].accuracy == 1.0


def test_upstream_helper_toolset_records_its_strategy(routing, make_config, tasks, org) -> None:
    from tests.fakes.openai_server import tool_call

    inst = next(i for i in tasks if i.task == "top_issue_identification")
    script = [
        tool_call("get_issues", {}, call_id="a"),
        tool_call("respond", {"content": str(inst.answer)}, call_id="b"),
    ]
    server = routing({inst: script})
    config = make_config(server, strategy="tool_call", toolset="upstream", idxs=(inst.idx,))

    report = run_batch(config, org=org, tasks=tasks)

    (outcome,) = report.outcomes
    assert outcome.reward == 1.0
    recording = load(outcome.path)
    assert recording.actor["strategy"] == "tool_call/upstream"
    (event,) = recording.of_type("run_query")
    assert event.payload["kind"] in ("soql", "tool")
    assert report.results_path.name == "results_openai-fake_tool_call-upstream_all.json"
