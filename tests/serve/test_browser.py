"""A real browser end to end: headless Chromium signs in, annotates, is refused, is signed
out by a token rotation, and signs out with the page's button.

Skipped (with the reason, printed by CI's ``-rs``) when Playwright or Debian's chromium is
missing; ``.ci/run`` installs both.
"""

from __future__ import annotations

import os
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from crmtui.record.verify import load, verify
from crmtui.ui.web import COOKIE_NAME
from tests.serve.browser import (
    CHROMIUM,
    CHROMIUM_FLAGS,
    Screen,
    browser_missing,
    patient,
    start_server,
    stop_server,
    wait_until,
)
from tests.waiting import PATIENCE_S, promptly

pytestmark = pytest.mark.skipif(bool(browser_missing()), reason=browser_missing() or "")


def _recording(study: Any, annotator: str) -> Path | None:
    found = sorted((study.recordings / annotator).glob("*.jsonl"))
    return found[-1] if found else None


def _status(url: str, cookie: str) -> int:
    request = urllib.request.Request(url + "/", headers={"Cookie": f"{COOKIE_NAME}={cookie}"})
    try:
        with urllib.request.urlopen(request, timeout=PATIENCE_S) as response:
            return int(response.status)
    except urllib.error.HTTPError as exc:
        return int(exc.code)


def test_sign_in_annotate_and_be_refused(served_study: Any) -> None:
    from playwright.sync_api import sync_playwright

    from crmtui import paths
    from crmtui.org.store import Org

    study, tokens = served_study
    history_rows = Org.open(paths.org_path("sample")).count("CaseHistory__c")
    first = study.assignments["ann"].instances[0]
    total = len(study.assignments["ann"].instances)
    server, url = start_server(str(study.folder), dict(os.environ))
    log = ""
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_FLAGS)
            try:
                # -- refused: no token, a wrong token, a websocket without the cookie ---------
                stranger = patient(browser.new_page())
                assert stranger.goto(url + "/").status == 401
                assert stranger.locator("#token").is_visible()
                wrong = stranger.goto(url + "/?token=wrong-token")
                assert wrong.status == 401
                assert "not valid for this study" in stranger.locator("#problem").inner_text()
                outcome = stranger.evaluate(
                    """url => new Promise(done => {
                        const ws = new WebSocket(url);
                        ws.onopen = () => done("opened");
                        ws.onclose = event => done("closed " + event.code);
                    })""",
                    url.replace("http://", "ws://") + "/ws",
                )
                assert outcome.startswith("closed"), outcome
                stranger.close()

                # -- ann signs in with her link and works on her first instance ---------------
                page = patient(browser.new_page(viewport={"width": 1400, "height": 900}))
                screen = Screen()
                screen.attach(page)
                response = page.goto(f"{url}/?token={tokens['ann']}")
                assert response.status == 200 and response.url == url + "/"
                page.wait_for_selector("body.-first-byte", timeout=PATIENCE_S * 1000)
                screen.wait_for("Annotator: ann", page=page)
                page.click("#terminal")
                # The next unsolved (her first assigned instance), and at once, while it
                # opens, the console and a query: the keys wait for the screen, none is lost.
                page.keyboard.press("n")
                page.keyboard.press("F3")
                page.keyboard.type("SELECT Id, Subject FROM Case LIMIT 2")
                page.keyboard.press("F5")
                screen.wait_for("2 rows", page=page)
                screen.wait_for(f"1 of {total}", page=page)
                assert f"idx {first} " in screen.text
                screen.wait_for(f"{history_rows:,}", page=page)

                page.keyboard.press("F4")
                page.keyboard.type("CA")
                page.keyboard.press("Enter")
                screen.wait_for("You cannot change it afterwards", page=page)
                page.keyboard.press("y")
                screen.wait_for("Submitted.", page=page)

                path = _recording(study, "ann")
                assert path is not None and path.parent == study.recordings / "ann"
                wait_until(lambda: '"type":"submit"' in path.read_text(), 10, "the submission")
                # Served blind: no reward and no gold answer anywhere on the page or screen.
                shown = screen.text + page.inner_text("body")
                assert "reward" not in shown and "gold" not in shown
                assert str(study.folder) not in shown

                # -- the organizer rotates ann's token: her page says so within seconds ----
                from crmtui.study import rotate_tokens

                rotate_tokens(str(study.folder), ["ann"])
                rotated = time.monotonic()
                page.wait_for_selector("text=Your sign-in has ended (token rotated)")
                # Within seconds (the server looks every WATCH_S), more on a loaded machine.
                assert time.monotonic() - rotated < promptly(5.0, instead=PATIENCE_S)
                page.close()

                # -- ben signs out with the button: a POST from the page itself (Chromium
                # sends it with Origin: null under the page's no-referrer policy) ---------------
                context = patient(browser.new_context())
                ben = patient(context.new_page())
                assert ben.goto(f"{url}/?token={tokens['ben']}").status == 200
                cookie = next(c["value"] for c in context.cookies() if c["name"] == COOKIE_NAME)
                ben.click("#sign-out")
                ben.wait_for_selector("#signed-out")
                assert _status(url, cookie) == 401  # refused on the server, not only forgotten
                assert ben.goto(url + "/signout").status == 200  # a GET signs nobody out
                context.close()
            finally:
                browser.close()
    finally:
        log = stop_server(server)
        print(f"-- the server's log --\n{log}")  # pytest shows it when the test fails
    path = _recording(study, "ann")
    assert path is not None
    assert verify(path).ok, log
    recording = load(path)
    assert recording.header["actor"] == {"kind": "human", "id": "ann"}
    assert recording.header["instance"]["idx"] == first
    types = [event.type for event in recording.events]
    assert "run_query" in types and "submit" in types and types[-1] == "end"
    query = next(e for e in recording.events if e.type == "run_query")
    assert query.payload["text"] == "SELECT Id, Subject FROM Case LIMIT 2"
    assert recording.submit.payload["answer"] == "CA"
    assert "failed sign-in" in log and "ann signed in" in log
    assert "ann: token rotated; ending the session" in log and "ben signed out" in log
    assert "Traceback" not in log
