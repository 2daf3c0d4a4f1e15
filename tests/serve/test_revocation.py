"""A sign-in that stops counting ends the live session: rotated or revoked token, sign-out
(on this or another server), annotator gone. The attempt stays unfinished and resumable."""

from __future__ import annotations

import asyncio
import json
import re
import time
from typing import Any

from aiohttp import WSMsgType
from aiohttp.test_utils import TestClient, TestServer

from crmtui.study import read_cookie, revoke_tokens, rotate_tokens
from crmtui.study.signouts import SignOuts
from crmtui.ui.web import COOKIE_NAME, SIGNED_OUT_CLOSE, WATCH_S, LiveSession, StudyServer
from tests.waiting import PATIENCE_S, promptly

_ANSI = re.compile(rb"\x1b\[[0-9;?<>=]*[ -/]*[@-~]|\x1b[()][0-9A-Za-z]|\x1b[=>]")


async def _client(study: Any) -> TestClient:
    server = StudyServer(study)
    client = TestClient(TestServer(await server._make_app()))
    await client.start_server()
    client.study_server = server  # type: ignore[attr-defined]
    return client


async def _screen_until(ws: Any, needle: bytes, screen: bytes = b"") -> bytes:
    async with asyncio.timeout(PATIENCE_S):
        while needle not in _ANSI.sub(b"", screen):
            message = await ws.receive()
            assert message.type == WSMsgType.BINARY, message
            screen += message.data
    return screen


async def test_a_rotated_token_ends_the_open_session_within_seconds(served_study: Any) -> None:
    """ann is typing an answer when her token is rotated: the server closes her websocket
    within a few seconds (it checks every WATCH_S), her app exits, and the attempt is
    saved unfinished, not submitted; her new link reopens it with the draft."""
    from crmtui.record.sessions import find_unfinished
    from crmtui.record.verify import load, verify

    study, tokens = served_study
    client = await _client(study)
    origin = {"Origin": f"http://{client.host}:{client.port}"}
    server: StudyServer = client.study_server  # type: ignore[attr-defined]
    try:
        await client.get(f"/?token={tokens['ann']}")
        ws = await client.ws_connect("/ws?width=160&height=48", headers=origin)
        await ws.send_str(json.dumps(["focus"]))
        await _screen_until(ws, b"Annotator: ann")
        await ws.send_str(json.dumps(["stdin", "n"]))
        await _screen_until(ws, b"Task context")
        await ws.send_str(json.dumps(["stdin", "\x1bOS"]))  # F4: the answer box
        await asyncio.sleep(0.5)
        await ws.send_str(json.dumps(["stdin", "half"]))
        await _screen_until(ws, b"half")

        rotated_at = time.monotonic()
        _, fresh = rotate_tokens(str(study.folder), ["ann"])
        async with asyncio.timeout(PATIENCE_S):
            while (message := await ws.receive()).type == WSMsgType.BINARY:
                pass
        closed_after = time.monotonic() - rotated_at
        assert message.type == WSMsgType.CLOSE and message.data == SIGNED_OUT_CLOSE
        assert message.extra == "token rotated"
        # The watch runs every WATCH_S: within seconds, more on a loaded machine.
        assert closed_after < promptly(5.0, instead=PATIENCE_S), closed_after
        async with asyncio.timeout(PATIENCE_S):
            while server.sessions:
                await asyncio.sleep(0.05)
        [path] = find_unfinished(study.recordings)
        events = load(path).events
        assert verify(path).ok
        types = [e.type for e in events]
        assert "end" not in types and "submit" not in types  # resumable, not counted
        assert [e.payload["text"] for e in events if e.type == "answer_edit"] == ["half"]

        # The old cookie is refused; the new link signs in and resumes the attempt.
        assert (await client.get("/")).status == 401
        await client.get(f"/?token={fresh['ann']}")
        ws = await client.ws_connect("/ws?width=160&height=48", headers=origin)
        screen = await _screen_until(ws, b"(resumed)")
        await _screen_until(ws, b"half", screen)
        await ws.close()
        async with asyncio.timeout(PATIENCE_S):
            while server.sessions:
                await asyncio.sleep(0.05)
    finally:
        await client.close()


async def test_every_way_a_sign_in_stops_counting_ends_its_session(served_study: Any) -> None:
    """The check itself, on sessions without an app: revoked token, sign-out on another
    server (same study folder), rotation; a valid sign-in is left alone."""
    study, tokens = served_study
    client = await _client(study)
    server: StudyServer = client.study_server  # type: ignore[attr-defined]
    try:
        claims = {}
        for who in ("ann", "ben"):
            signed = await client.get(f"/?token={tokens[who]}", allow_redirects=False)
            claims[who] = read_cookie(server.secret, signed.cookies[COOKIE_NAME].value)
        for who in ("ann", "ben"):
            server.sessions[who] = LiveSession(who, claims=claims[who])
        assert server.check_sessions() == []

        revoke_tokens(str(study.folder), ["ann"])
        [ended] = server.check_sessions()
        assert ended.annotator == "ann" and ended.ending == "token revoked"
        assert server.check_sessions() == []  # not ended twice
        assert (await client.get(f"/?token={tokens['ann']}")).status == 401  # link dead

        SignOuts(study.signouts_path).add(claims["ben"])  # as another server would
        [ended] = server.check_sessions()
        assert ended.annotator == "ben" and ended.ending == "signed out"
        await asyncio.sleep(0)  # let the ending tasks run (no websockets: they return)
    finally:
        server.sessions.clear()
        await client.close()


async def test_the_watch_runs_while_serving(served_study: Any) -> None:
    study, tokens = served_study
    client = await _client(study)
    server: StudyServer = client.study_server  # type: ignore[attr-defined]
    try:
        signed = await client.get(f"/?token={tokens['ann']}", allow_redirects=False)
        claims = read_cookie(server.secret, signed.cookies[COOKIE_NAME].value)
        live = LiveSession("ann", claims=claims)
        live.done.set()  # no app to wait for
        server.sessions["ann"] = live
        rotate_tokens(str(study.folder), ["ann"])
        async with asyncio.timeout(promptly(WATCH_S * 5, instead=PATIENCE_S)):
            while live.ending is None:
                await asyncio.sleep(0.05)
        assert live.ending == "token rotated"
    finally:
        server.sessions.clear()
        await client.close()
