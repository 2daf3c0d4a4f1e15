"""ModelClient over real local HTTP (litellm -> fake OpenAI server): replies, usage, cost,
retries, timeouts and clear errors."""

from __future__ import annotations

import os

import pytest

from crmtui.agent.client import ModelClient, ModelError, scrub_secrets
from tests.fakes.openai_server import FakeOpenAI, delayed, empty, error, text, tool_call
from tests.waiting import promptly

MESSAGES = [{"role": "system", "content": "be brief"}, {"role": "user", "content": "hi there"}]
TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "soql_query",
            "parameters": {"type": "object", "properties": {"query": {"type": "string"}}},
        },
    }
]


def test_text_reply_usage_and_unknown_cost(server: FakeOpenAI, make_client) -> None:
    server.push(text("Hello back", prompt_tokens=12, completion_tokens=3))
    r = make_client().complete(MESSAGES)
    assert r.content == "Hello back"
    assert r.tool_calls == []
    assert (r.prompt_tokens, r.completion_tokens, r.total_tokens) == (12, 3, 15)
    assert r.cost is None  # openai/fake has no price in litellm's map
    assert r.finish_reason == "stop"
    assert r.latency_ms > 0 and r.attempts == 1
    sent = server.requests[0]
    assert sent["model"] == "fake"
    assert sent["messages"] == MESSAGES
    assert sent["temperature"] == 0.0 and sent["max_tokens"] == 2000


def test_known_model_gets_a_cost(server: FakeOpenAI, make_client) -> None:
    server.push(text("ok", prompt_tokens=1000, completion_tokens=100))
    r = make_client("openai/gpt-4o-2024-08-06").complete(MESSAGES)
    assert r.cost is not None and r.cost > 0


def test_tool_call_reply(server: FakeOpenAI, make_client) -> None:
    server.push(tool_call("soql_query", {"query": "SELECT Id FROM Case"}, call_id="call_9"))
    r = make_client().complete(MESSAGES, TOOLS)
    assert len(r.tool_calls) == 1
    call = r.tool_calls[0]
    assert (call.id, call.name, call.arguments) == (
        "call_9",
        "soql_query",
        {"query": "SELECT Id FROM Case"},
    )
    assert call.parse_error is None
    assert server.requests[0]["tools"] == TOOLS


def test_malformed_tool_arguments_are_kept_with_an_error(server: FakeOpenAI, make_client) -> None:
    server.push(tool_call("soql_query", '{"query": "SELECT'))
    call = make_client().complete(MESSAGES, TOOLS).tool_calls[0]
    assert call.arguments is None
    assert call.arguments_text == '{"query": "SELECT'
    assert "not valid JSON" in (call.parse_error or "")


def test_empty_reply(server: FakeOpenAI, make_client) -> None:
    server.push(empty())
    r = make_client().complete(MESSAGES)
    assert r.content == "" and r.tool_calls == []


def test_streamed_text_and_deltas(server: FakeOpenAI, make_client) -> None:
    server.push(text("<respond> CA </respond>", chunks=4, prompt_tokens=7, completion_tokens=2))
    pieces: list[str] = []
    r = make_client().complete(MESSAGES, on_delta=pieces.append)
    assert server.requests[0]["stream"] is True
    assert len(pieces) >= 2 and "".join(pieces) == "<respond> CA </respond>"
    assert r.content == "<respond> CA </respond>"
    assert (r.prompt_tokens, r.completion_tokens) == (7, 2)


def test_streamed_tool_call(server: FakeOpenAI, make_client) -> None:
    server.push(tool_call("respond", {"content": "005xx"}, call_id="call_s"))
    r = make_client(stream=True).complete(MESSAGES, TOOLS)
    assert [(c.id, c.name, c.arguments) for c in r.tool_calls] == [
        ("call_s", "respond", {"content": "005xx"})
    ]


def test_429_honours_retry_after(server: FakeOpenAI, make_client, sleeps: list[float]) -> None:
    server.push(error(429, "slow down", retry_after=7), text("fine"))
    r = make_client().complete(MESSAGES)
    assert r.content == "fine" and r.attempts == 2
    assert sleeps == [7.0]
    assert len(server.requests) == 2


def test_500_retries_with_growing_jittered_backoff(server: FakeOpenAI, make_client, sleeps) -> None:
    server.push(error(500), error(502), error(503), text("up again"))
    r = make_client(max_retries=3).complete(MESSAGES)
    assert r.content == "up again" and r.attempts == 4
    assert len(sleeps) == 3
    for attempt, delay in enumerate(sleeps, start=1):
        ceiling = 2 ** (attempt - 1)
        assert ceiling / 2 <= delay <= ceiling


def test_retries_exhausted_is_a_clear_error(server: FakeOpenAI, make_client, sleeps) -> None:
    server.push(error(500), error(500), error(500))
    with pytest.raises(ModelError, match=r"server error 500 .*gave up after 3 attempts") as info:
        make_client(max_retries=2).complete(MESSAGES)
    assert info.value.retryable and info.value.attempts == 3
    assert len(sleeps) == 2


def test_timeout_is_retried_then_succeeds(server: FakeOpenAI, make_client, sleeps) -> None:
    server.push(delayed(30.0), text("quick now"))
    # Short enough to cut the first reply off, long enough for the second on a busy machine.
    r = make_client(timeout=promptly(0.3, instead=30.0)).complete(MESSAGES)
    assert r.content == "quick now" and r.attempts == 2


def test_timeout_every_time_gives_clear_error(server: FakeOpenAI, make_client) -> None:
    server.push(delayed(0.8), delayed(0.8))
    with pytest.raises(
        ModelError, match=r"did not answer within 0.25 s \(gave up after 2 attempts\)"
    ):
        make_client(timeout=0.25, max_retries=1).complete(MESSAGES)


def test_401_is_not_retried_and_names_the_key(server: FakeOpenAI, make_client, sleeps) -> None:
    server.push(error(401, "Incorrect API key provided: sk-test-not-a-real-key"), text("never"))
    with pytest.raises(ModelError) as info:
        make_client().complete(MESSAGES)
    message = str(info.value)
    assert message == "authentication failed for model openai/fake: the API key given was refused"
    assert info.value.kind == "config" and info.value.exit_code == 2
    assert len(server.requests) == 1 and sleeps == []
    assert not info.value.retryable


def test_400_is_not_retried_and_scrubbed(server: FakeOpenAI, make_client, sleeps) -> None:
    server.push(error(400, "bad field; key sk-test-not-a-real-key rejected"))
    with pytest.raises(ModelError, match="rejected the request") as info:
        make_client().complete(MESSAGES)
    assert "sk-test" not in str(info.value) and "***" in str(info.value)
    assert sleeps == []


def test_connection_refused_is_retried_then_reported(sleeps: list[float]) -> None:
    with FakeOpenAI() as dead:
        base = dead.base_url
    client = ModelClient(
        "openai/fake", api_base=base, api_key="sk-x", max_retries=1, sleep=sleeps.append
    )
    with pytest.raises(ModelError, match="cannot reach the provider of openai/fake"):
        client.complete(MESSAGES)
    assert len(sleeps) == 1


def test_scrub_secrets_uses_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MY_PROVIDER_API_KEY", "abcdefgh12345678")
    assert scrub_secrets("key abcdefgh12345678 and sk-live123456") == "key *** and ***"
    assert "abcdefgh" not in repr(os.environ.get("UNRELATED", ""))


def test_bad_construction() -> None:
    with pytest.raises(ModelError, match="no model given"):
        ModelClient(" ")
    with pytest.raises(ModelError, match="timeout must be a positive number"):
        ModelClient("openai/x", timeout=0)


def test_time_budget_stops_retries(server: FakeOpenAI, make_client, sleeps) -> None:
    # Retry-After 30 s does not fit in a 5 s budget: give up instead of sleeping past it.
    server.push(error(429, "busy", retry_after=30), text("too late"))
    with pytest.raises(ModelError, match="gave up after 1 attempt\\)"):
        make_client(max_retries=4).complete(MESSAGES, timeout=5)
    assert sleeps == [] and len(server.requests) == 1
