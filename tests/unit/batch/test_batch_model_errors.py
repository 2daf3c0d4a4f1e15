"""The runner turns every model or engine failure into an outcome, and the batch acts on it.

Malformed replies are a finished ``Model error`` scored 0 (not run again on resume); an
outage is re-run; a configuration failure stops the batch without a results row; the first
instances all failing stops the run and voids them; an engine exception is the agent's
query error; a reply echoing the key is written scrubbed.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from crmtui.agent.batch import run_batch
from crmtui.agent.replies import ModelError
from crmtui.record.verify import load, verify
from tests.fakes.openai_server import empty_choices, error, raw, text
from tests.unit.batch.scripted import gold_text


def _pick(tasks: Any, n: int) -> list[Any]:
    return [inst for inst in tasks if inst.task == "handle_time"][:n]


def _rows(path: Any) -> dict[int, dict[str, Any]]:
    return {e["task_id"]: e for e in json.loads(path.read_text(encoding="utf-8"))}


def _answer(inst: Any) -> Any:
    return text(f"<respond>{gold_text(inst.answer)}</respond>")


def test_a_malformed_reply_is_a_finished_model_error(routing, make_config, tasks, org) -> None:
    good, broken = _pick(tasks, 2)
    server = routing({good: [_answer(good)], broken: [empty_choices()]})
    config = make_config(server, idxs=(good.idx, broken.idx))

    report = run_batch(config, org=org, tasks=tasks)

    outcome = next(o for o in report.outcomes if o.idx == broken.idx)
    assert outcome.result.end_reason["message"] == "Model error"
    assert outcome.result.end_reason["kind"] == "malformed"
    assert outcome.done and verify(outcome.path).ok
    row = _rows(report.results_path)[broken.idx]
    # Upstream's shape for an attempt that raised: reward 0, agent_info {source, content}.
    assert row["reward"] == 0
    assert row["agent_info"] == {
        "source": "api",
        "content": "Error: model openai/fake sent a reply with no choices",
    }
    assert row["crmtui"]["outcome"] == "model_error"
    (summary,) = report.summary
    assert (summary.right, summary.model_errors, summary.harness_errors) == (1, 1, 0)
    assert report.errors == 1

    # Finished: a resumed run does not pay for it again.
    again = run_batch(make_config(routing({}), idxs=config.idxs), org=org, tasks=tasks)
    assert again.tally.skipped == 2 and again.outcomes == []


def test_an_outage_is_run_again_on_resume(routing, make_config, tasks, org) -> None:
    good, flaky = _pick(tasks, 2)
    server = routing({good: [_answer(good)], flaky: [error(503), error(503)]})
    config = make_config(server, idxs=(good.idx, flaky.idx), client_options={"max_retries": 1})
    first = run_batch(config, org=org, tasks=tasks)
    assert {o.idx: o.outcome for o in first.outcomes} == {
        good.idx: "right",
        flaky.idx: "model_error",
    }

    server = routing({flaky: [_answer(flaky)]})
    second = run_batch(make_config(server, idxs=config.idxs), org=org, tasks=tasks)
    assert [o.idx for o in second.outcomes] == [flaky.idx]
    assert {k: r["crmtui"]["outcome"] for k, r in _rows(second.results_path).items()} == {
        good.idx: "right",
        flaky.idx: "right",
    }


def test_an_authentication_failure_writes_no_row(routing, make_config, tasks, org) -> None:
    picked = _pick(tasks, 3)
    server = routing({inst: [error(401, "bad key")] for inst in picked})
    config = make_config(server, idxs=tuple(i.idx for i in picked))

    with pytest.raises(ModelError, match="authentication failed") as info:
        run_batch(config, org=org, tasks=tasks)

    assert info.value.exit_code == 2
    results = list(config.out.glob("results_*.json"))
    assert all(json.loads(p.read_text(encoding="utf-8")) == [] for p in results)


def test_a_server_that_goes_away_stops_the_run_without_rows(
    routing, make_config, tasks, org
) -> None:
    picked = _pick(tasks, 3)
    server = routing({inst: [_answer(inst)] for inst in picked})
    config = make_config(
        server, idxs=tuple(i.idx for i in picked), client_options={"max_retries": 1}
    )

    # The preflight saw the server; it dies before the first instance starts.
    with pytest.raises(ModelError, match="cannot reach the provider.*stopped") as info:
        run_batch(config, org=org, tasks=tasks, on_start=lambda tally: server.stop())

    assert info.value.kind == "unreachable"
    assert not any(_rows(path) for path in config.out.glob("results_*.json"))
    recordings = list(config.recordings.rglob("*.jsonl"))
    assert len(recordings) == 1 and verify(recordings[0]).ok  # no other instance started


def test_first_instances_all_failing_stop_the_run_and_are_voided(
    routing, make_config, tasks, org
) -> None:
    picked = _pick(tasks, 5)
    garbage = raw("<html>not an LLM</html>")
    server = routing({inst: [garbage] for inst in picked})
    config = make_config(server, idxs=tuple(i.idx for i in picked), max_initial_errors=3)

    with pytest.raises(ModelError, match="first 3 instances all ended in model errors") as info:
        run_batch(config, org=org, tasks=tasks)

    assert info.value.exit_code == 3
    assert len(server.requests) == 3  # the other two never started
    (results,) = config.out.glob("results_*.json")
    assert json.loads(results.read_text(encoding="utf-8")) == []

    # Fixed (here: a server that answers), the voided instances run again.
    server = routing({inst: [_answer(inst)] for inst in picked})
    report = run_batch(make_config(server, idxs=config.idxs), org=org, tasks=tasks)
    assert report.tally.skipped == 0 and report.tally.right == 5


def test_no_initial_error_stop_when_disabled(routing, make_config, tasks, org) -> None:
    picked = _pick(tasks, 3)
    server = routing({inst: [empty_choices()] for inst in picked})
    config = make_config(server, idxs=tuple(i.idx for i in picked), max_initial_errors=0)
    report = run_batch(config, org=org, tasks=tasks)
    assert report.tally.model_errors == 3 and report.errors == 3


def test_an_engine_exception_is_the_agents_query_error(
    routing, make_config, tasks, org, monkeypatch
) -> None:
    import crmtui.query

    real_run = crmtui.query.run

    def leaky(org_: Any, query: str, **kwargs: Any) -> Any:
        if "LEAK" in query:
            raise OverflowError("Python int too large to convert to SQLite INTEGER")
        return real_run(org_, query, **kwargs)

    monkeypatch.setattr(crmtui.query, "run", leaky)
    (inst,) = _pick(tasks, 1)
    leak = text("<execute>SELECT Id FROM Case WHERE Subject = 'LEAK'</execute>")
    server = routing({inst: [leak, _answer(inst)]})

    (outcome,) = run_batch(make_config(server, idxs=(inst.idx,)), org=org, tasks=tasks).outcomes

    assert outcome.outcome == "right"
    (query,) = load(outcome.path).of_type("run_query")
    assert query.payload["error_code"] == "UNKNOWN_EXCEPTION"
    assert "OverflowError" in query.payload["observation"]


def test_a_reply_echoing_the_key_is_scrubbed_everywhere(
    routing, make_config, tasks, org, api_key: str
) -> None:
    (inst,) = _pick(tasks, 1)
    leak = text(f"<thought>my key is {api_key}</thought><respond>{api_key}</respond>")
    server = routing({inst: [leak]})
    report = run_batch(make_config(server, idxs=(inst.idx,)), org=org, tasks=tasks)
    (outcome,) = report.outcomes
    for path in (outcome.path, report.results_path):
        written = path.read_text(encoding="utf-8")
        assert api_key not in written and "***" in written
    assert verify(outcome.path).ok
