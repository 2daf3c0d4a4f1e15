"""Oversized and malformed input over real HTTP: capped, refused in one line, never a
traceback, and the session goes on."""

from __future__ import annotations

import asyncio
import json
import logging
import re
from typing import Any

import pytest
from aiohttp import WSMsgType
from aiohttp.test_utils import TestClient, TestServer

from crmtui.serve import wire
from crmtui.ui.web import StudyServer
from tests.waiting import PATIENCE_S

_ANSI = re.compile(rb"\x1b\[[0-9;?<>=]*[ -/]*[@-~]|\x1b[()][0-9A-Za-z]|\x1b[=>]")


async def _client(study: Any) -> TestClient:
    server = StudyServer(study)
    client = TestClient(TestServer(await server._make_app()))
    await client.start_server()
    client.study_server = server  # type: ignore[attr-defined]
    return client


async def _until_drawn(ws: Any, needle: bytes, timeout: float = PATIENCE_S) -> int:
    """Read frames until ``needle`` is on screen; returns the bytes received."""
    screen = b""
    async with asyncio.timeout(timeout):
        while needle not in _ANSI.sub(b"", screen):
            message = await ws.receive()
            assert message.type == WSMsgType.BINARY, message
            screen += message.data
    return len(screen)


async def _gone(client: TestClient) -> None:
    async with asyncio.timeout(PATIENCE_S):
        while client.study_server.sessions:  # type: ignore[attr-defined]
            await asyncio.sleep(0.05)


async def test_a_huge_first_size_is_capped_and_deep_json_is_ignored(
    served_study: Any, caplog: pytest.LogCaptureFixture
) -> None:
    """One session: its first size asks for 10,000 x 4,000 (160 MB of first frame before the
    cap); then a 100,000-deep message, which used to end the session with a traceback."""
    study, tokens = served_study
    client = await _client(study)
    caplog.set_level(logging.INFO)
    try:
        await client.get(f"/?token={tokens['ann']}")
        ws = await client.ws_connect(
            "/ws?width=10000&height=4000",
            headers={"Origin": f"http://{client.host}:{client.port}"},
            max_msg_size=0,
        )
        sent = await _until_drawn(ws, b"Annotator: ann")
        # 1000 x 500 cells: a couple of MB for the first screen, not 160.
        assert sent < 8_000_000, sent
        await ws.send_str("[" * 100_000 + "]" * 100_000)
        await ws.send_str(json.dumps(["stdin", "?"]))  # the session still takes keys
        await _until_drawn(ws, b"Keys of the instance picker")
        await ws.close()
        await _gone(client)
    finally:
        await client.close()
    assert "Traceback" not in caplog.text and "RecursionError" not in caplog.text
    assert "ann: ignored a malformed websocket message" in caplog.text


async def test_an_oversized_message_closes_with_1009(served_study: Any) -> None:
    study, tokens = served_study
    client = await _client(study)
    try:
        await client.get(f"/?token={tokens['ben']}")
        ws = await client.ws_connect(
            "/ws?width=80&height=24", headers={"Origin": f"http://{client.host}:{client.port}"}
        )
        await _until_drawn(ws, b"Annotator: ben")
        await ws.send_str(json.dumps(["stdin", "x" * wire.MAX_MESSAGE_BYTES]))
        async with asyncio.timeout(PATIENCE_S):
            while (message := await ws.receive()).type == WSMsgType.BINARY:
                pass
        assert message.type == WSMsgType.CLOSE and message.data == 1009  # message too big
        await _gone(client)
    finally:
        await client.close()


async def test_overlong_urls_and_headers_are_refused_in_one_log_line(
    served_study: Any, caplog: pytest.LogCaptureFixture
) -> None:
    study, _ = served_study
    client = await _client(study)
    caplog.set_level(logging.INFO)
    try:
        long_url = await client.get("/?token=" + "a" * 20_000)
        assert long_url.status == 400 and "Got more than 8190 bytes" in await long_url.text()
        long_header = await client.get("/", headers={"X-Filler": "b" * 20_000})
        assert long_header.status == 400
        many = await client.get("/", headers={f"X-{n}": "c" for n in range(200)})
        assert many.status == 400
        body = await client.post("/signin", data={"token": "d" * 2_000_000})
        assert body.status == 413
        assert (await client.get("/signin")).status == 200  # the server is fine
    finally:
        await client.close()
    assert "Traceback" not in caplog.text
    refusals = [r for r in caplog.records if r.getMessage().startswith("refused a request")]
    assert len(refusals) == 3, caplog.text
    assert all(len(r.getMessage()) < 160 for r in refusals)
