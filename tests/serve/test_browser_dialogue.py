"""A real browser in a multi-turn study: a person as the agent answers a simulated user.

``crmtui serve`` on a study made with ``--interactive`` (the simulated user is a scripted
model on 127.0.0.1, reached over real HTTP by the served app); headless Chromium signs in,
opens the instance, reads the user's opening message, types a reply and sends it; the user
ends the conversation. The study's recording holds exactly the typed reply as the agent's
message and as the scored answer, and verifies.

Skipped (with the reason) when Playwright or Debian's chromium is missing.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from crmtui.play.dialogue import STOP_TOKEN
from crmtui.record.verify import load, verify
from tests.fakes.openai_server import FakeOpenAI, text
from tests.fixtures import pro_org as fx
from tests.serve.browser import (
    CHROMIUM,
    CHROMIUM_FLAGS,
    Screen,
    browser_missing,
    patient,
    start_server,
    stop_server,
)
from tests.waiting import PATIENCE_S

pytestmark = pytest.mark.skipif(bool(browser_missing()), reason=browser_missing() or "")

IDX = 9  # lead_routing; gold U4
OPENING = "Hi! A new lead came in and I need to know who should get it."
# What the person types: punctuation, quotes and a non-ASCII letter, as typed.
REPLY = f'Route it to {fx.U4} -- "the Ohio rep", ok? (né 2024)'


def test_a_person_answers_the_simulated_user_in_the_browser(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from playwright.sync_api import sync_playwright

    from crmtui.study import StudyRequest, create_study
    from crmtui.study.roles import Conversation

    monkeypatch.setenv("CRMTUI_STUDIES", str(tmp_path / "studies"))
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-a-real-key")
    fx.build_pro_org(tmp_path)
    with FakeOpenAI(model_name="user") as user:
        user.push(text(OPENING), text(STOP_TOKEN))
        study, tokens = create_study(
            StudyRequest(
                name="chat", annotators=["ann"], org="pro-fixture", idx=[IDX], shared=0.0,
                overlap=1,
                conversation=Conversation(user_model="openai/user", user_api_base=user.base_url),
            )
        )  # fmt: skip
        server, url = start_server(str(study.folder), dict(os.environ), "--standby", "1")
        try:
            with sync_playwright() as p:
                browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_FLAGS)
                try:
                    page = patient(browser.new_page(viewport={"width": 1400, "height": 900}))
                    screen = Screen()
                    screen.attach(page)
                    assert page.goto(f"{url}/?token={tokens['ann']}").status == 200
                    page.wait_for_selector("body.-first-byte", timeout=PATIENCE_S * 1000)
                    screen.wait_for("simulated user openai/user", page=page)
                    page.click("#terminal")
                    page.keyboard.press("n")
                    screen.wait_for(OPENING[:40], page=page)
                    page.keyboard.press("F4")
                    page.keyboard.type(REPLY)
                    page.keyboard.press("Enter")
                    screen.wait_for("your last message was scored", page=page)
                finally:
                    browser.close()
        finally:
            log = stop_server(server)
    (path,) = sorted((study.recordings / "ann").glob("*.jsonl"))
    assert verify(path).ok, log
    recording = load(path)
    said = [(e.type, e.payload["text"]) for e in recording.events
            if e.type in ("user_message", "agent_message")]  # fmt: skip
    assert said == [("user_message", OPENING), ("agent_message", REPLY),
                    ("user_message", STOP_TOKEN)]  # fmt: skip
    assert recording.submit is not None and recording.submit.payload["answer"] == REPLY
    assert recording.submit.payload["reward"] == 1.0
    assert "Traceback" not in log
