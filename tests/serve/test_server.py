"""The study server's guard: sign-in, cookies, refusals, the cap; and one real session."""

from __future__ import annotations

import asyncio
import json
import re
from typing import Any

import pytest
from aiohttp import WSServerHandshakeError
from aiohttp.test_utils import TestClient, TestServer

from crmtui.errors import ConfigError
from crmtui.serve import ServeOptions, check_options, is_loopback
from crmtui.ui.web import COOKIE_NAME, LiveSession, StudyServer, child_command
from tests.serve.terminal import Terminal
from tests.waiting import PATIENCE_S


async def _client(study: Any, **kwargs: Any) -> TestClient:
    # No pre-started apps unless a test opens sessions (each would start a standby process).
    server = StudyServer(study, **{"standby": 0, **kwargs})
    client = TestClient(TestServer(await server._make_app()))
    await client.start_server()
    client.study_server = server  # type: ignore[attr-defined]
    return client


async def _sign_in(client: TestClient, token: str) -> Any:
    return await client.get(f"/?token={token}", allow_redirects=False)


async def test_everything_needs_a_signed_in_cookie(served_study: Any) -> None:
    study, tokens = served_study
    client = await _client(study)
    try:
        page = await client.get("/")
        assert page.status == 401
        assert "Your access token" in await page.text()
        assert page.headers["X-Frame-Options"] == "DENY"
        assert "frame-ancestors 'none'" in page.headers["Content-Security-Policy"]
        assert (await client.get("/ws")).status == 401
        assert (await client.get("/static/js/textual.js")).status == 401
        assert (await client.get("/download/abc")).status == 401
        with pytest.raises(WSServerHandshakeError) as refused:
            await client.ws_connect("/ws")
        assert refused.value.status == 401

        bad = await _sign_in(client, "not-the-token")
        assert bad.status == 401
        assert "not valid for this study" in await bad.text()

        good = await _sign_in(client, tokens["ann"])
        assert good.status == 303 and good.headers["Location"] == "/"
        cookie = good.headers["Set-Cookie"]
        for flag in ("HttpOnly", "SameSite=Lax", "Path=/", "Max-Age=43200"):
            assert flag in cookie
        assert "Secure" not in cookie
        assert tokens["ann"] not in cookie
        page = await client.get("/")
        assert page.status == 200
        text = await page.text()
        assert f"ws://{client.host}:{client.port}/ws" in text
        assert "crmtui study web · ann" in text
        assert (await client.get("/static/js/textual.js")).status == 200
        assert (await client.get("/download/abc")).status == 404
    finally:
        await client.close()


async def test_sign_in_form_and_sign_out(served_study: Any) -> None:
    """Signing out takes a POST, and the cookie is refused afterwards even when a copy of
    it is sent again (it is invalid on the server, not only forgotten by the browser)."""
    study, tokens = served_study
    client = await _client(study, secure=True)
    try:
        assert (await client.get("/signin")).status == 200
        posted = await client.post("/signin", data={"token": tokens["ben"]}, allow_redirects=False)
        assert posted.status == 303
        assert "Secure" in posted.headers["Set-Cookie"]  # under TLS
        # (The test client speaks plain HTTP, so the Secure cookie is sent by hand.)
        copy = {"Cookie": f"{COOKIE_NAME}={posted.cookies[COOKIE_NAME].value}"}
        page = await client.get("/", headers=copy)
        assert page.status == 200 and 'action="/signout"' in await page.text()
        # A link or a prefetch (GET) shows the button and signs nobody out.
        form = await client.get("/signout", headers=copy)
        assert form.status == 200 and "id='sign-out'" in await form.text()
        assert (await client.get("/", headers=copy)).status == 200
        # A POST from another site is refused (SameSite=Lax would not send the cookie anyway).
        for foreign in (
            {"Origin": "https://evil.example"},
            {"Origin": "null", "Sec-Fetch-Site": "cross-site"},
        ):
            refused = await client.post("/signout", headers={**copy, **foreign})
            assert refused.status == 403 and (await client.get("/", headers=copy)).status == 200
        # What Chromium sends for the page's own form under Referrer-Policy: no-referrer.
        origin = {"Origin": "null", "Sec-Fetch-Site": "same-origin"}
        out = await client.post("/signout", headers={**copy, **origin})
        assert out.status == 200 and "Signed out" in await out.text()
        assert COOKIE_NAME in out.headers["Set-Cookie"]  # the browser forgets it...
        assert (await client.get("/", headers=copy)).status == 401  # ...and a copy is refused
        # A second server on the same study folder refuses it too.
        other = await _client(study)
        try:
            assert (await other.get("/", headers=copy)).status == 401
        finally:
            await other.close()
        # Signing in again works, with a new cookie.
        again = await client.post("/signin", data={"token": tokens["ben"]}, allow_redirects=False)
        fresh = {"Cookie": f"{COOKIE_NAME}={again.cookies[COOKIE_NAME].value}"}
        assert (await client.get("/", headers=fresh)).status == 200
    finally:
        await client.close()


async def test_forged_expired_and_rotated_cookies_are_refused(served_study: Any) -> None:
    from crmtui.study import rotate_tokens, sign_cookie

    study, tokens = served_study
    client = await _client(study)
    try:
        await _sign_in(client, tokens["ann"])
        value = next(c.value for c in client.session.cookie_jar if c.key == COOKIE_NAME)
        client.session.cookie_jar.clear()

        async def status(cookie: str) -> int:
            return (await client.get("/", headers={"Cookie": f"{COOKIE_NAME}={cookie}"})).status

        assert await status(value) == 200
        _, mac = value.split(".")
        other = sign_cookie(b"guessed secret", "ben", 1).split(".")[0]
        assert await status(f"{other}.{mac}") == 401  # ben's claims under ann's signature
        assert await status(sign_cookie(b"guessed secret", "ben", 1)) == 401
        assert await status(sign_cookie(client.study_server.secret, "ann", 1, now=0)) == 401
        rotate_tokens(str(study.folder), ["ann"])  # signs ann out everywhere
        assert await status(value) == 401
        assert (await _sign_in(client, tokens["ann"])).status == 401  # the old token too
    finally:
        await client.close()


async def test_cross_origin_websocket_is_forbidden(served_study: Any) -> None:
    study, tokens = served_study
    client = await _client(study)
    try:
        await _sign_in(client, tokens["ann"])
        with pytest.raises(WSServerHandshakeError) as refused:
            await client.ws_connect("/ws", headers={"Origin": "http://evil.example"})
        assert refused.value.status == 403
    finally:
        await client.close()


async def test_a_full_server_says_so(served_study: Any) -> None:
    study, tokens = served_study
    client = await _client(study, max_sessions=1)
    try:
        client.study_server.sessions["ben"] = LiveSession("ben")  # type: ignore[attr-defined]
        await _sign_in(client, tokens["ann"])
        page = await client.get("/")
        assert page.status == 503 and "The server is full" in await page.text()
        with pytest.raises(WSServerHandshakeError) as refused:
            await client.ws_connect("/ws")
        assert refused.value.status == 503
        # ben's own reconnection takes over his slot rather than being refused
        client.session.cookie_jar.clear()
        await _sign_in(client, tokens["ben"])
        assert (await client.get("/")).status == 200
    finally:
        await client.close()


async def test_repeated_wrong_tokens_are_refused_for_a_while(served_study: Any) -> None:
    study, tokens = served_study
    client = await _client(study)
    try:
        for _ in range(10):
            assert (await _sign_in(client, "wrong")).status == 401
        assert (await _sign_in(client, "wrong")).status == 429
        # A valid token still signs in (annotators behind one proxy share an address).
        assert (await _sign_in(client, tokens["ann"])).status == 303
    finally:
        await client.close()


async def test_an_annotator_added_while_serving_can_sign_in(served_study: Any) -> None:
    from crmtui.study import add_annotator

    study, _ = served_study
    client = await _client(study)
    try:
        _, _, token = add_annotator(str(study.folder), "cat")
        assert (await _sign_in(client, token)).status == 303
        assert (await client.get("/")).status == 200
    finally:
        await client.close()


def test_address_and_tls_rules() -> None:
    assert is_loopback("127.0.0.1") and is_loopback("::1") and is_loopback("localhost")
    assert not is_loopback("0.0.0.0") and not is_loopback("example.org")
    check_options(ServeOptions())
    check_options(ServeOptions(host="0.0.0.0", insecure=True))
    with pytest.raises(ConfigError, match="without TLS"):
        check_options(ServeOptions(host="0.0.0.0"))
    with pytest.raises(ConfigError, match="both --certfile and --keyfile"):
        check_options(ServeOptions(certfile="c.pem"))  # type: ignore[arg-type]
    with pytest.raises(ConfigError, match="at least 1"):
        check_options(ServeOptions(max_sessions=0))


def test_the_child_command_names_the_signed_in_annotator(served_study: Any) -> None:
    study, _ = served_study
    command = child_command(study.folder, "ann")
    assert command.endswith("--annotator ann")
    assert "play --study" in command


_ANSI = re.compile(rb"\x1b\[[0-9;?<>=]*[ -/]*[@-~]|\x1b[()][0-9A-Za-z]|\x1b[=>]")


@pytest.mark.parametrize("standby", [0, 2], ids=["fresh-process", "pre-started"])
async def test_a_websocket_session_runs_the_annotators_app(served_study: Any, standby: int) -> None:
    """A real app process, started for the session or pre-started and handed over: the
    screen names the cookie's annotator and their instances."""
    study, tokens = served_study
    client = await _client(study, standby=standby)
    try:
        await _sign_in(client, tokens["ben"])
        ws = await client.ws_connect(
            "/ws?width=120&height=30", headers={"Origin": f"http://{client.host}:{client.port}"}
        )
        screen = b""
        first = study.assignments["ben"].instances[0]
        async with asyncio.timeout(PATIENCE_S):
            while b"Annotator: ben" not in _ANSI.sub(b"", screen):
                message = await ws.receive()
                if isinstance(message.data, bytes):
                    screen += message.data
        text = _ANSI.sub(b"", screen).decode("utf-8", "replace")
        assert f" {first} " in text
        assert len(client.study_server.sessions) == 1  # type: ignore[attr-defined]
        await ws.send_str(json.dumps(["ping", "1"]))
        await ws.close()
        async with asyncio.timeout(PATIENCE_S):
            while client.study_server.sessions:  # type: ignore[attr-defined]
                await asyncio.sleep(0.05)
    finally:
        await client.close()


async def _shown(ws: Any, screen: Terminal, done: Any) -> None:
    """Apply the app's frames to ``screen`` until ``done()`` holds."""
    async with asyncio.timeout(PATIENCE_S):
        while not done():
            message = await ws.receive()
            if isinstance(message.data, bytes):
                screen.feed(message.data)


async def _screen_until(ws: Any, needle: bytes, screen: bytes = b"") -> bytes:
    async with asyncio.timeout(PATIENCE_S):
        while needle not in _ANSI.sub(b"", screen):
            message = await ws.receive()
            if isinstance(message.data, bytes):
                screen += message.data
    return screen


async def test_a_dropped_connection_leaves_the_attempt_resumable(served_study: Any) -> None:
    """The websocket drops mid-instance: the recording stays unfinished (not "quit"), and
    the same annotator's next connection continues it, answer as typed."""
    from crmtui.record.sessions import find_unfinished
    from crmtui.record.verify import load, verify

    study, tokens = served_study
    client = await _client(study, standby=2)
    origin = {"Origin": f"http://{client.host}:{client.port}"}
    try:
        await _sign_in(client, tokens["ben"])
        ws = await client.ws_connect("/ws?width=160&height=48", headers=origin)
        await ws.send_str(json.dumps(["focus"]))  # as the browser's terminal does
        screen = Terminal(160, 48)  # each key repaints only what changed: read the screen
        await _shown(ws, screen, lambda: "Annotator: ben" in screen.text)
        await ws.send_str(json.dumps(["stdin", "n"]))  # the next instance to do
        await _shown(ws, screen, lambda: "Task context" in screen.text)
        await ws.send_str(json.dumps(["stdin", "\x1bOS"]))  # F4: the answer box
        # Typing waits until the text cursor is on the answer box's row (beside Submit).
        await _shown(ws, screen, lambda: "Submit" in screen.line(screen.y))
        await ws.send_str(json.dumps(["stdin", "draft"]))
        await _shown(ws, screen, lambda: "draft" in screen.text)
        await ws.close()  # the browser tab is gone
        async with asyncio.timeout(PATIENCE_S):
            while client.study_server.sessions:  # type: ignore[attr-defined]
                await asyncio.sleep(0.05)
        [path] = find_unfinished(study.recordings)
        events = load(path).events
        assert verify(path).ok and "end" not in [e.type for e in events]
        assert [e.payload["text"] for e in events if e.type == "answer_edit"] == ["draft"]

        ws = await client.ws_connect("/ws?width=160&height=48", headers=origin)
        # No dialog, no picker first: straight back in (the title's "(resumed)" may come a
        # frame after the panels).
        screen = await _screen_until(ws, b"(resumed)")
        assert b"Task context" in _ANSI.sub(b"", screen)
        assert b"Annotator: ben" not in _ANSI.sub(b"", screen)
        await _screen_until(ws, b"draft", screen)
        await ws.close()
        async with asyncio.timeout(PATIENCE_S):
            while client.study_server.sessions:  # type: ignore[attr-defined]
                await asyncio.sleep(0.05)
        assert find_unfinished(study.recordings) == [path]
        types = [e.type for e in load(path).events]
        assert verify(path).ok and types.count("resume") == 1 and "end" not in types
    finally:
        await client.close()
