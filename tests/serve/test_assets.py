"""What a browser loads before the websocket opens: the page (stylesheet inlined) and one
script, gzip-compressed, cached at a versioned URL, revalidated by ETag; nothing else of
textual-serve's static folder is served, and nothing without a sign-in."""

from __future__ import annotations

import gzip
import re
from pathlib import Path
from typing import Any

import pytest
from aiohttp.test_utils import TestClient, TestServer

from crmtui.serve.assets import CACHE_FOREVER, SCRIPT, accepts_gzip
from crmtui.ui.web import StudyServer

#: The most a first visit may download before the websocket opens (page + script, gzip).
FIRST_VISIT_BYTES = 140_000


async def test_the_page_and_its_script_are_compressed_cached_and_few(served_study: Any) -> None:
    study, tokens = served_study
    server = StudyServer(study, standby=0)
    client = TestClient(TestServer(await server._make_app()), auto_decompress=False)
    await client.start_server()
    gz = {"Accept-Encoding": "gzip, deflate, br"}
    try:
        assert (await client.get("/static/" + SCRIPT)).status == 401  # not signed in
        await client.get(f"/?token={tokens['ann']}", headers=gz)
        page = await client.get("/", headers={"Accept-Encoding": "gzip"})
        assert page.status == 200 and page.headers["Content-Encoding"] == "gzip"
        html = gzip.decompress(await page.read()).decode()
        # One request more: the script, at a versioned URL. The stylesheet is inline.
        urls = re.findall(r'(?:src|href)="(/[^"]*)"', html)
        assert len(urls) == 1 and urls[0].startswith(f"/static/{SCRIPT}?v=")
        assert "xterm-viewport" in html  # xterm.css, inlined
        script = await client.get(urls[0], headers=gz)
        assert script.headers["Content-Encoding"] == "gzip"
        assert script.headers["Cache-Control"] == CACHE_FOREVER
        body = await script.read()
        original = (Path(server.statics_path) / SCRIPT).read_bytes()
        assert gzip.decompress(body) == original and len(body) < len(original) / 3
        first_visit = len(await page.read()) + len(body)
        assert first_visit < FIRST_VISIT_BYTES, first_visit
        # Revalidation costs no body; a browser without gzip gets the file as it is.
        again = await client.get(urls[0], headers={"If-None-Match": script.headers["ETag"]})
        assert again.status == 304 and not await again.read()
        plain = await client.get(urls[0], headers={"Accept-Encoding": "identity"})
        assert "Content-Encoding" not in plain.headers and await plain.read() == original
        # Nothing else of textual-serve's folder (fonts, images, maps).
        for other in ("fonts/RobotoMono-VariableFont_wght.ttf", "images/background.png",
                      "js/textual.js.map", "css/xterm.css.map"):  # fmt: skip
            assert (await client.get("/static/" + other)).status == 404, other
    finally:
        await client.close()


@pytest.mark.parametrize(
    ("header", "ok"),
    [("gzip, deflate, br", True), ("br", False), (None, False), ("gzip;q=0", False),
     ("*", True), ("GZIP;q=0.5", True), ("gzip;q=x", False)],
)  # fmt: skip
def test_accept_encoding(header: str | None, ok: bool) -> None:
    assert accepts_gzip(header) is ok
