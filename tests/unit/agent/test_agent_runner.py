"""The episode runner: scripted runs over real HTTP and with a scripted client."""

from __future__ import annotations

import json
from typing import Any

import pytest

from crmtui.agent.prompts import OBSERVATION_PREFIX, REACT_REMINDER, TOOL_REMINDER
from crmtui.agent.runner import AgentResult, EpisodeOptions, StepInfo, run_instance
from crmtui.agent.strategies import make_strategy
from crmtui.agent.upstream_rows import upstream_row
from tests.fakes.openai_server import FakeOpenAI, delayed, empty, error, text, tool_call
from tests.unit.agent.agent_helpers import (
    Events,
    FakeExecutor,
    Inst,
    ScriptedClient,
    exact_score,
    reply,
)

SCHEMA = "The objects available in the Salesforce instance are: Case, Account"
QUERY = "SELECT ShippingState FROM Account LIMIT 1"
ROWS = [{"ShippingState": "CA"}]


def run(client: Any, strategy: str = "react", executor: FakeExecutor | None = None, **kwargs: Any):
    events = Events()
    inst = kwargs.pop("instance", Inst())
    result = run_instance(
        inst,
        client,
        make_strategy(strategy, toolset=kwargs.pop("toolset", "query")),
        executor or FakeExecutor({QUERY: ROWS}),
        events,
        exact_score(inst.answer),
        EpisodeOptions(**{"schema_text": SCHEMA, **kwargs}),
    )
    return result, events


def test_react_query_then_correct_answer_over_http(server: FakeOpenAI, make_client) -> None:
    server.push(
        text(
            f"<thought>Find the state.</thought>\n<execute>{QUERY}</execute>",
            prompt_tokens=50,
            completion_tokens=9,
        ),
        text(
            "<thought>It is CA.</thought>\n<respond>CA</respond>",
            prompt_tokens=70,
            completion_tokens=6,
        ),
    )
    steps: list[StepInfo] = []
    result, events = run(make_client(), on_step=steps.append)

    assert result.reward == 1 and result.answer == "CA" and result.scoring == "exact_match"
    assert result.end_reason == {
        "source": "agent",
        "message": "Submit action",
        "content": "CA",
        "parsed_answer": "CA",
    }
    assert events.types == [
        "model_call",
        "thought",
        "run_query",
        "model_call",
        "thought",
        "answer_edit",
        "submit",
        "end",
    ]
    call = events.of("model_call")[0]
    assert (call["prompt_tokens"], call["completion_tokens"], call["cost"]) == (50, 9, None)
    assert call["content"].startswith("<thought>Find the state.")
    assert events.of("thought")[0] == {"text": "Find the state."}
    rq = events.of("run_query")[0]
    assert rq["text"] == QUERY and rq["kind"] == "soql" and rq["rows"] == 1
    assert rq["error_code"] is None and rq["observation"] == str(ROWS)
    assert events.of("answer_edit") == [{"text": "CA"}]
    assert events.of("submit") == [
        {"answer": "CA", "reward": 1, "scoring": "exact_match", "gold": "CA"}
    ]
    assert events.of("end")[0]["reason"] == "Submit action" and events.of("end")[0]["reward"] == 1

    # The model saw the observation as upstream words it.
    second = server.requests[1]["messages"]
    assert [m["role"] for m in second] == ["system", "user", "assistant", "user"]
    assert second[3]["content"] == OBSERVATION_PREFIX + str(ROWS)
    assert second[0]["content"].startswith("You are an expert Salesforce user")
    assert [s.index for s in steps] == [1, 2] and steps[-1].done and steps[-1].reward == 1
    assert steps[0].result == str(ROWS)


def test_wrong_answer_scores_zero(make_client, server: FakeOpenAI) -> None:
    server.push(text("<respond>NY</respond>"))
    result, _ = run(make_client())
    assert result.reward == 0 and result.end_reason["message"] == "Submit action"


def test_upstream_result_shape() -> None:
    client = ScriptedClient(
        [reply(f"<execute>{QUERY}</execute>", cost=0.02), reply("<respond>CA</respond>", cost=None)]
    )
    result, _ = run(client)
    out = upstream_row(result)
    assert set(out) == {
        "task_id",
        "task_type",
        "gt_answer",
        "reward",
        "agent_info",
        "traj",
        "crmtui",
    }
    assert (out["task_id"], out["task_type"], out["gt_answer"], out["reward"]) == (
        7,
        "best_region_identification",
        "CA",
        1,
    )
    info = out["agent_info"]
    assert info["observation_sizes"] == [1]
    assert info["usage"] == {
        "cost": [0.02, None],
        "completion_tokens": [10, 10],
        "prompt_tokens": [100, 100],
        "total_tokens": [110, 110],
    }
    assert info["total_cost"] == pytest.approx(0.02)
    # Upstream's ChatAgent resets its turn counter on a respond: [user turns 0, 0 + 1].
    assert info["num_turns"] == [0, 1]
    assert info["end_reason"]["message"] == "Submit action"
    assert out["crmtui"]["steps"] == 2 and out["crmtui"]["answer"] == "CA"
    assert out["traj"][0]["role"] == "system" and len(out["traj"]) == 5
    json.dumps(out)  # serialisable as the results file needs


def test_empty_reply_is_an_invalid_turn_then_continues(server: FakeOpenAI, make_client) -> None:
    server.push(empty(), text("<respond>CA</respond>"))
    result, events = run(make_client())
    assert result.reward == 1 and result.steps == 2
    assert server.requests[1]["messages"][-1] == {"role": "user", "content": REACT_REMINDER}
    assert events.types == ["model_call", "model_call", "answer_edit", "submit", "end"]


def test_max_turns_counts_invalid_replies() -> None:
    client = ScriptedClient([reply("I think the answer is CA ")] * 3)
    result, events = run(client, "act", max_turns=3)
    assert result.steps == 3 and result.reward == 0
    # Upstream: the last reply was invalid, so the episode ends as "Invalid action" with it.
    assert result.end_reason == {
        "source": "agent",
        "message": "Invalid action",
        "content": "I think the answer is CA",
    }
    assert events.of("end") == [
        {"reason": "Invalid action", "reward": 0, "end_reason": result.end_reason}
    ]


def test_max_turns_content_is_the_models_last_reply() -> None:
    client = ScriptedClient([reply(f"<execute>{QUERY}</execute>  ")] * 2)
    result, _ = run(client, max_turns=2)
    assert result.end_reason == {
        "source": "agent",
        "message": "Max turns reached",
        "content": f"<execute>{QUERY}</execute>",
    }
    assert upstream_row(result)["agent_info"]["num_turns"] == [0, 3]


def test_query_error_on_last_step_is_the_end_reason() -> None:
    client = ScriptedClient(
        [reply(f"<execute>{QUERY}</execute>"), reply("<execute>SELEC Id</execute>")]
    )
    result, events = run(client, max_turns=2)
    assert result.end_reason["message"] == "SOQL/SOSL query error"
    assert result.end_reason["content"].startswith("MALFORMED_QUERY:")
    assert events.of("run_query")[1]["error_code"] == "MALFORMED_QUERY"
    assert result.observation_sizes == [1]


def test_query_error_earlier_does_not_end_the_episode() -> None:
    client = ScriptedClient(
        [reply("<execute>SELEC Id</execute>"), reply(f"<execute>{QUERY}</execute>")]
    )
    result, _ = run(client, max_turns=2)
    assert result.end_reason["message"] == "Max turns reached"


def test_time_limit_with_injected_clock() -> None:
    now = [0.0]

    def advance() -> None:
        now[0] += 40.0

    client = ScriptedClient([reply(f"<execute>{QUERY}</execute>")] * 5, on_call=advance)
    result, events = run(client, time_limit_s=100, clock=lambda: now[0])
    assert result.steps == 3
    assert result.end_reason == {"source": "runner", "message": "Time limit reached"}
    assert client.timeouts == [100.0, 60.0, 20.0]  # each call gets only the time left
    assert events.types[-1] == "end"


def test_model_error_ends_with_api_reason(server: FakeOpenAI, make_client) -> None:
    server.push(error(401, "bad key"))
    result, events = run(make_client())
    assert result.end_reason == {
        "source": "api",
        "message": "Model error",
        "content": "authentication failed for model openai/fake: the API key given was refused",
        "kind": "config",
    }
    assert result.steps == 0 and events.types == ["end"]


def test_timeouts_retry_then_clear_end_reason(server: FakeOpenAI, make_client, sleeps) -> None:
    server.push(delayed(0.6), delayed(0.6))
    result, _ = run(make_client(timeout=0.2, max_retries=1))
    assert result.end_reason["source"] == "api"
    assert "did not answer within 0.2 s (gave up after 2 attempts)" in result.end_reason["content"]
    assert len(sleeps) == 1


def test_should_stop_is_polled_between_steps() -> None:
    polls = iter([False, True])
    client = ScriptedClient([reply(f"<execute>{QUERY}</execute>")] * 3)
    result, _ = run(client, should_stop=lambda: next(polls))
    assert result.steps == 1
    assert result.end_reason == {"source": "runner", "message": "Stopped"}


def test_tool_call_strategy_over_http(server: FakeOpenAI, make_client) -> None:
    server.push(
        tool_call("soql_query", '{"query": "SELECT', call_id="c1"),
        tool_call("soql_query", {"query": QUERY}, call_id="c2"),
        tool_call("respond", {"content": "CA"}, call_id="c3"),
    )
    result, events = run(make_client(), "tool_call")
    assert result.reward == 1 and result.steps == 3
    second = server.requests[1]["messages"]
    assert second[-2]["tool_calls"][0]["id"] == "c1"
    assert second[-1]["role"] == "tool" and second[-1]["tool_call_id"] == "c1"
    assert second[-1]["content"].startswith(TOOL_REMINDER)
    third = server.requests[2]["messages"]
    assert third[-1] == {
        "role": "tool",
        "tool_call_id": "c2",
        "name": "soql_query",
        "content": str(ROWS),
    }
    assert server.requests[0]["tools"][0]["function"]["name"] == "soql_query"
    assert events.of("run_query")[0]["observation"] == str(ROWS)
    assert upstream_row(result)["agent_info"]["num_turns"] == 3


def test_tool_call_text_only_reply_gets_a_reminder() -> None:
    client = ScriptedClient([reply("CA"), reply("", [("c1", "respond", '{"content": "CA"}')])])
    result, _ = run(client, "tool_call")
    assert client.requests[1][-1] == {"role": "user", "content": TOOL_REMINDER}
    assert result.reward == 1


def test_upstream_helper_tool_is_recorded_as_one_tool_event() -> None:
    client = ScriptedClient(
        [
            reply("", [("c1", "get_period", '{"period_name": "Winter", "year": 2023}')]),
            reply("", [("c2", "respond", '{"content": "CA"}')]),
        ]
    )
    result, events = run(client, "tool_call", toolset="upstream")
    rq = events.of("run_query")[0]
    assert rq["kind"] == "tool" and rq["tool"] == "get_period"
    expected = str({"start_date": "2023-12-01T00:00:00Z", "end_date": "2024-03-01T00:00:00Z"})
    assert rq["observation"] == expected
    assert client.requests[1][-1]["content"] == expected
    assert "# Salesforce instance description" not in client.requests[0][0]["content"]


def test_transcript_is_recoverable_from_events() -> None:
    client = ScriptedClient(
        [
            reply(f"<thought>a</thought><execute>{QUERY}</execute>"),
            reply("oops"),
            reply("<execute>SELEC</execute>"),
            reply("<respond>CA</respond>"),
        ]
    )
    result, events = run(client)
    rebuilt = list(result.messages[:2])
    for kind, payload in events.items:
        if kind == "model_call":
            rebuilt.append({"role": "assistant", "content": payload["content"].strip()})
            if "<execute>" not in payload["content"] and "<respond>" not in payload["content"]:
                rebuilt.append({"role": "user", "content": REACT_REMINDER})
        elif kind == "run_query":
            rebuilt.append({"role": "user", "content": OBSERVATION_PREFIX + payload["observation"]})
    assert rebuilt == result.messages


def test_default_schema_is_the_builtin_one() -> None:
    client = ScriptedClient([reply("<respond>CA</respond>")])
    result = run_instance(
        Inst(), client, make_strategy("react"), FakeExecutor(), Events(), exact_score("CA")
    )
    assert isinstance(result, AgentResult)
    assert "Knowledge__kav" in result.messages[0]["content"]


def test_non_model_errors_propagate() -> None:
    class Boom(Exception):
        pass

    client = ScriptedClient([Boom("bug")])
    # Only ModelError becomes an end reason; anything else is a bug and keeps its traceback
    # (the session records it as a Harness error).
    with pytest.raises(Boom):
        run(client)


def test_an_engine_exception_becomes_a_query_error_observation() -> None:
    def broken(text: str) -> Any:
        raise RecursionError("maximum recursion depth exceeded")

    client = ScriptedClient(
        [
            reply("<execute>SELECT Id FROM Case WHERE ((((x</execute>"),
            reply("<respond>CA</respond>"),
        ]
    )
    events = Events()
    result = run_instance(
        Inst(),
        client,
        make_strategy("react"),
        broken,
        events,
        exact_score("CA"),
        EpisodeOptions(schema_text="s"),
    )
    assert result.reward == 1
    (query,) = events.of("run_query")
    assert query["error_code"] == "UNKNOWN_EXCEPTION"
    assert "RecursionError" in query["observation"]
    assert client.requests[1][-1]["content"].startswith(OBSERVATION_PREFIX + "UNKNOWN_EXCEPTION")


def test_a_helper_tool_that_raises_answers_an_error() -> None:
    client = ScriptedClient(
        [
            reply("", [("c1", "get_cases", '{"start_date": 5}')]),
            reply("", [("c2", "respond", '{"content": "CA"}')]),
        ]
    )

    def broken(text: str) -> Any:
        raise ValueError("engine fell over")

    events = Events()
    strategy = make_strategy("tool_call", toolset="upstream")
    result = run_instance(Inst(), client, strategy, broken, events, exact_score("CA"))
    assert result.reward == 1
    tool_result = client.requests[1][-1]
    assert tool_result["role"] == "tool" and tool_result["content"].startswith("Error:")


def test_long_observations_are_cut_with_a_note() -> None:
    rows = [{"Id": f"500{i:015d}", "Subject": "x" * 50} for i in range(200)]
    executor = FakeExecutor({QUERY: rows})
    client = ScriptedClient([reply(f"<execute>{QUERY}</execute>"), reply("<respond>CA</respond>")])
    events = Events()
    result = run_instance(
        Inst(),
        client,
        make_strategy("react"),
        executor,
        events,
        exact_score("CA"),
        EpisodeOptions(schema_text="s", observation_cap=1000),
    )
    sent = client.requests[1][-1]["content"]
    assert sent.startswith(OBSERVATION_PREFIX + str(rows)[:1000])
    assert f"showing the first 1,000 of {len(str(rows)):,} characters" in sent
    assert events.of("run_query")[0]["observation"] == sent[len(OBSERVATION_PREFIX) :]
    assert result.truncated_observations == 1
    assert upstream_row(result)["crmtui"]["truncated_observations"] == 1


def test_unbounded_observations_are_sent_whole() -> None:
    rows = [{"Id": f"500{i:015d}"} for i in range(500)]
    client = ScriptedClient([reply(f"<execute>{QUERY}</execute>"), reply("<respond>CA</respond>")])
    result = run_instance(
        Inst(),
        client,
        make_strategy("react"),
        FakeExecutor({QUERY: rows}),
        Events(),
        exact_score("CA"),
        EpisodeOptions(schema_text="s", observation_cap=None),
    )
    assert client.requests[1][-1]["content"] == OBSERVATION_PREFIX + str(rows)
    assert result.truncated_observations == 0


def test_huge_replies_are_stored_capped_with_their_length() -> None:
    from crmtui.agent.limits import STORED_TEXT_CHARS

    huge = "<respond>CA</respond>" + "z" * (STORED_TEXT_CHARS + 10)
    client = ScriptedClient([reply(huge)])
    result, events = run(client)
    (call,) = events.of("model_call")
    assert len(call["content"]) == STORED_TEXT_CHARS
    assert call["content_chars"] == len(huge)
    assert result.reward == 1
