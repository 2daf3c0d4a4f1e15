"""The fake OpenAI server itself: routing, exhausted scripts, raw SSE framing, faults."""

from __future__ import annotations

import http.client
import json
from urllib.parse import urlparse

from tests.fakes.openai_server import FakeOpenAI, error, text, tool_call
from tests.waiting import PATIENCE_S


def post(server: FakeOpenAI, path: str, body: dict) -> http.client.HTTPResponse:
    url = urlparse(server.base_url)
    conn = http.client.HTTPConnection(url.hostname, url.port, timeout=PATIENCE_S)
    conn.request("POST", url.path + path, json.dumps(body), {"Content-Type": "application/json"})
    return conn.getresponse()


def test_non_streaming_shape_and_recorded_requests() -> None:
    with FakeOpenAI([text("hi", prompt_tokens=3, completion_tokens=1)]) as server:
        resp = post(
            server,
            "/chat/completions",
            {"model": "m", "messages": [{"role": "user", "content": "q"}]},
        )
        data = json.loads(resp.read())
        assert resp.status == 200
        assert data["choices"][0]["message"] == {"role": "assistant", "content": "hi"}
        assert data["usage"] == {"prompt_tokens": 3, "completion_tokens": 1, "total_tokens": 4}
        assert server.requests[0]["messages"][0]["content"] == "q"
        assert server.remaining == 0


def test_streaming_sse_frames_and_usage_chunk() -> None:
    with FakeOpenAI([tool_call("respond", {"content": "x"}, call_id="c1")]) as server:
        body = {"messages": [], "stream": True, "stream_options": {"include_usage": True}}
        raw = post(server, "/chat/completions", body).read().decode()
    frames = [line[6:] for line in raw.splitlines() if line.startswith("data: ")]
    assert frames[-1] == "[DONE]"
    chunks = [json.loads(f) for f in frames[:-1]]
    args = "".join(
        c["choices"][0]["delta"].get("tool_calls", [{}])[0].get("function", {}).get("arguments", "")
        for c in chunks
        if c["choices"]
    )
    assert json.loads(args) == {"content": "x"}
    assert chunks[-1]["choices"] == [] and chunks[-1]["usage"]["total_tokens"] >= 1


def test_errors_unknown_routes_and_exhausted_script() -> None:
    with FakeOpenAI([error(429, "slow", retry_after=3)]) as server:
        resp = post(server, "/chat/completions", {})
        assert resp.status == 429 and resp.getheader("Retry-After") == "3"
        assert json.loads(resp.read())["error"]["message"] == "slow"
        assert post(server, "/embeddings", {}).status == 404
        assert post(server, "/chat/completions", {}).status == 500
        assert server.unexpected == ["script exhausted"]
