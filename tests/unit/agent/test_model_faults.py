"""Every kind of broken model reply becomes a one-line ModelError of a known kind, over real HTTP.

One fake-server test per fault: empty ``choices``, ``Retry-After: nan``, a lone surrogate,
malformed JSON, an HTML body, a server that ignores ``stream``, one that trickles its reply
past the deadline, and a cancel in the middle of a call.
"""

from __future__ import annotations

import threading
import time

import pytest

from crmtui.agent.client import ModelCancelled, ModelError
from tests.fakes.openai_server import (
    FakeOpenAI,
    delayed,
    empty,
    empty_choices,
    error,
    ignoring_stream,
    raw,
    text,
    tool_call,
    trickled,
)
from tests.waiting import promptly

MESSAGES = [{"role": "user", "content": "hi"}]

_COMPLETION = (
    '{"id": "x", "object": "chat.completion", "created": 1, "model": "fake", '
    '"choices": [{"index": 0, "message": {"role": "assistant", "content": %s}, '
    '"finish_reason": "stop"}]}'
)


def test_empty_choices_is_a_malformed_reply(server: FakeOpenAI, make_client, sleeps) -> None:
    server.push(empty_choices(), text("never"))
    with pytest.raises(ModelError, match="sent a reply with no choices") as info:
        make_client().complete(MESSAGES)
    assert info.value.kind == "malformed" and not info.value.retryable
    assert len(server.requests) == 1 and sleeps == []


def test_a_lone_surrogate_is_a_malformed_reply(server: FakeOpenAI, make_client) -> None:
    server.push(raw(_COMPLETION % '"broken \\ud800 text"'))
    with pytest.raises(ModelError, match="not valid Unicode") as info:
        make_client().complete(MESSAGES)
    assert info.value.kind == "malformed"


def test_a_lone_surrogate_in_tool_arguments_is_malformed(server: FakeOpenAI, make_client) -> None:
    server.push(tool_call("soql_query", '{"query": "\ud83d"}'))
    with pytest.raises(ModelError, match="not valid Unicode"):
        make_client().complete(MESSAGES)


@pytest.mark.parametrize(
    "body",
    ['{"choices": [ {"message": ', "<html><body>502 Bad Gateway</body></html>", ""],
    ids=["truncated-json", "html", "empty-body"],
)
def test_a_body_that_is_not_json_is_malformed(server: FakeOpenAI, make_client, body: str) -> None:
    server.push(raw(body))
    with pytest.raises(ModelError, match="not valid JSON|cannot read") as info:
        make_client().complete(MESSAGES)
    assert info.value.kind == "malformed"
    assert len(server.requests) == 1  # not retried: the same server would send the same


def test_content_of_the_wrong_type_is_malformed(server: FakeOpenAI, make_client) -> None:
    server.push(raw(_COMPLETION % '{"not": "text"}'))
    with pytest.raises(ModelError) as info:
        make_client().complete(MESSAGES)
    assert info.value.kind == "malformed"


@pytest.mark.parametrize("value", ["nan", "inf", "-5", "Wed, 21 Oct 2015 07:28:00 GMT"])
def test_a_bad_retry_after_falls_back_to_backoff(
    server: FakeOpenAI, make_client, sleeps, value: str
) -> None:
    server.push(error(429, "slow down", retry_after=value), text("fine"))
    reply = make_client().complete(MESSAGES)
    assert reply.content == "fine" and reply.attempts == 2
    assert len(sleeps) == 1 and 0 < sleeps[0] <= 1.0  # our own jittered backoff


def test_a_sane_retry_after_is_honoured(server: FakeOpenAI, make_client, sleeps) -> None:
    server.push(error(429, "slow down", retry_after=0.25), text("fine"))
    make_client().complete(MESSAGES)
    assert sleeps == [0.25]


def test_a_server_that_ignores_stream_gets_one_unstreamed_retry(
    server: FakeOpenAI, make_client
) -> None:
    server.push(ignoring_stream(text("<respond>CA</respond>")), text("<respond>CA</respond>"))
    server.push(text("second call"))
    client = make_client(stream=True)
    pieces: list[str] = []

    first = client.complete(MESSAGES, on_delta=pieces.append)

    assert first.content == "<respond>CA</respond>" and first.stream_fallback
    assert [bool(r.get("stream")) for r in server.requests] == [True, False]
    assert pieces == ["<respond>CA</respond>"]  # the transcript still gets the text
    assert client.streaming_off and client.settings()["stream"] is False
    second = client.complete(MESSAGES, on_delta=pieces.append)
    assert second.content == "second call" and not second.stream_fallback
    assert server.requests[-1].get("stream") is None  # streaming stays off


def test_an_empty_reply_to_both_tries_keeps_streaming_on(server: FakeOpenAI, make_client) -> None:
    server.push(empty(), empty())
    client = make_client(stream=True)
    reply = client.complete(MESSAGES, on_delta=lambda piece: None)
    assert reply.content == "" and not reply.stream_fallback and not client.streaming_off


def test_a_trickling_server_is_cut_off_at_the_total_deadline(
    server: FakeOpenAI, make_client
) -> None:
    # One byte every 50 ms: no single read ever waits long, only a total deadline ends it.
    server.push(trickled(text("x" * 400), 0.05))
    began = time.monotonic()
    with pytest.raises(ModelError, match="did not answer within 0.6 s") as info:
        make_client(timeout=0.6, max_retries=0).complete(MESSAGES)
    assert time.monotonic() - began < promptly(3.0, instead=400 * 0.05)
    assert info.value.kind == "unavailable" and info.value.retryable


def test_the_callers_budget_holds_mid_call(server: FakeOpenAI, make_client) -> None:
    server.push(delayed(30.0))
    began = time.monotonic()
    with pytest.raises(ModelError, match="in the time left"):
        make_client(timeout=60).complete(MESSAGES, timeout=0.5)
    assert time.monotonic() - began < promptly(3.0, instead=30.0)


def test_cancel_abandons_a_call_in_flight(server: FakeOpenAI, make_client) -> None:
    server.push(delayed(30.0))
    cancel = threading.Event()
    threading.Timer(0.3, cancel.set).start()
    began = time.monotonic()
    with pytest.raises(ModelCancelled):
        make_client(timeout=60).complete(MESSAGES, cancel=cancel)
    assert time.monotonic() - began < promptly(2.0, instead=30.0)


def test_cancel_cuts_a_backoff_short(server: FakeOpenAI, litellm_loaded) -> None:
    from crmtui.agent.client import ModelClient

    server.push(error(429, "busy", retry_after=30), text("late"))
    cancel = threading.Event()
    threading.Timer(0.3, cancel.set).start()
    client = ModelClient("openai/fake", api_base=server.base_url, api_key="sk-x")
    began = time.monotonic()
    with pytest.raises(ModelCancelled):
        client.complete(MESSAGES, cancel=cancel)
    assert time.monotonic() - began < promptly(2.0, instead=30.0)  # the Retry-After


def test_unknown_provider_is_a_configuration_error(litellm_loaded) -> None:
    from crmtui.agent.client import ModelClient

    with pytest.raises(ModelError, match="knows no provider") as info:
        ModelClient("nonsense-model", api_key="x", max_retries=0).complete(MESSAGES)
    assert info.value.kind == "config" and info.value.exit_code == 2
