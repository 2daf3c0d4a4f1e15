"""A real browser at 800x600 (the smallest the study page is made for): an annotator
submits an answer with the controls the screen shows, and nothing else.

Each key pressed is first found on screen: the picker's hint for the next instance, the
answer box's own "F4" and "Enter or Ctrl+S: submit", its Submit button, and the
confirmation's key. Skipped when Playwright or Debian's chromium is missing.
"""

from __future__ import annotations

import os
from typing import Any

import pytest

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

pytestmark = pytest.mark.skipif(bool(browser_missing()), reason=browser_missing() or "")


def _last_frame(screen: Screen, marker: str) -> str:
    """The text drawn since ``marker`` last appeared (the current screen, roughly)."""
    text = screen.text
    return text[text.rfind(marker) :] if marker in text else text


def test_an_answer_is_submitted_at_800x600_with_the_visible_controls(served_study: Any) -> None:
    from playwright.sync_api import sync_playwright

    study, tokens = served_study
    server, url = start_server(str(study.folder), dict(os.environ))
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_FLAGS)
            try:
                page = patient(browser.new_page(viewport={"width": 800, "height": 600}))
                screen = Screen()
                screen.attach(page)
                assert page.goto(f"{url}/?token={tokens['ann']}").status == 200
                screen.wait_for("Annotator: ann", page=page)
                page.click("#terminal")
                screen.wait_for("Next", page=page)  # the picker's footer: n, the next one
                page.keyboard.press("n")
                screen.wait_for("Enter or Ctrl+S: submit", page=page)
                shown = screen.text
                assert "Answer · F4" in shown and "Submit" in shown
                page.keyboard.press("F4")
                page.keyboard.type("CA")
                page.keyboard.press("Enter")
                screen.wait_for("You cannot change it afterwards", page=page)
                assert "Submit" in _last_frame(screen, "You cannot change it afterwards")
                page.keyboard.press("y")
                screen.wait_for("Submitted.", page=page)
                path = sorted((study.recordings / "ann").glob("*.jsonl"))[-1]
                wait_until(lambda: '"type":"submit"' in path.read_text(), 10, "the submission")
                assert str(study.folder) not in screen.text + page.inner_text("body")
            finally:
                browser.close()
    finally:
        stop_server(server)
