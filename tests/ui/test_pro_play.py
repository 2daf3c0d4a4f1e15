"""Pilot: a person plays CRMArena-Pro instances on the Pro fixture org.

Who is asking shows with the query in the model's words (never the persona: it is the
simulated user's), the Pro task context (an indented guide block) reads as text in the
metadata region, the submit dialog says nothing of how the answer is scored
(docs/parity.md), and the answer is scored by the Pro rules: a sentence naming the
right Ids scores 1 through HEAD's evaluator with the rule extractor, and a privacy refusal is
judged by the rules judge over the person's queries and answer, all on record.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from crmtui.config import PlayConfig
from crmtui.factory import build_play_app
from crmtui.play.workspace import Workspace
from crmtui.record.verify import load, verify
from crmtui.ui.screens.play import PlayScreen
from crmtui.ui.widgets.console import QueryConsole
from tests.fixtures import pro_org as fx
from tests.waiting import until

SIZE = (160, 48)


async def _wait(pilot: Any, condition: Any) -> None:
    """Pause ``pilot`` until ``condition()`` holds (a deadline only against a hang)."""
    await until(pilot, condition, workers=True)


def _text(screen: Any, selector: str) -> str:
    """What the terminal shows of a widget, its lines joined by spaces."""
    found = screen.query(selector)
    if not found:
        return ""
    box = found.first().region
    lines = [strip.text for strip in screen._compositor.render_strips()]
    return " ".join(" ".join(line[box.x : box.right].split()) for line in lines[box.y : box.bottom])


async def _play(pro_workspace: Workspace, tmp_path: Path, idx: int, answer: str, clock, wall):
    config = PlayConfig(annotator="tester", recordings=tmp_path / "rec", fsync=False, idx=idx)
    app = build_play_app(config, workspace=pro_workspace, clock=clock, wall=wall)
    async with app.run_test(size=SIZE) as pilot:
        await _wait(
            pilot,
            lambda: isinstance(app.screen, PlayScreen) and app.screen.session.timer is not None,
        )
        await _wait(pilot, lambda: "person you are helping" in _text(app.screen, "#query-text"))
        screen = app.screen
        seen = {"query": _text(screen, "#query-text"), "meta": _text(screen, "#metadata-text")}
        console = screen.query_one(QueryConsole)
        console.set_text(f"SELECT Id, Subject, Status FROM Task WHERE WhatId = '{fx.OP1}'")
        await pilot.press("f3", "f5")
        await _wait(pilot, lambda: console.query_one("#console-results").row_count == 4)
        await pilot.press("f4", *answer)
        clock.advance(3)
        await pilot.press("ctrl+s")
        await _wait(pilot, lambda: app.screen.__class__.__name__ == "ConfirmScreen")
        seen["confirm"] = _text(app.screen, "Static")
        await pilot.press("y")
        await _wait(pilot, lambda: screen.session.submitted)
    (path,) = sorted((tmp_path / "rec").rglob("*.jsonl"))
    return seen, path


async def test_a_pro_instance_shows_who_asks_and_scores_by_pro_rules(
    pro_workspace: Workspace, tmp_path: Path, clock: Any, wall: Any
) -> None:
    answer = f"Not started and off-stage: {fx.T2} and {fx.T1}"
    seen, path = await _play(pro_workspace, tmp_path, 1, answer, clock, wall)

    assert "The person you are helping is an internal user" in seen["query"]
    assert "detail-oriented" not in seen["query"] + seen["meta"]  # the persona is the user's
    # The indented guide block reads as text, not as a code block of the raw indentation.
    assert "Activity priority guide." in seen["meta"]
    assert f"Opportunity Id to be considered is: {fx.OP1}" in seen["meta"]
    assert "Submit this answer?" in seen["confirm"]
    assert "compared as a set" not in seen["confirm"]  # no rule: a model is told none

    assert verify(path).ok
    submit = load(path).submit
    assert submit is not None
    assert submit.payload["reward"] == 1.0 and submit.payload["scoring"] == "head_rules"
    assert submit.payload["gold"] == [fx.T1, fx.T2]
    assert submit.payload["details"]["scored_by"] == {
        "metric": "exact_match",
        "method": "head_rules",
        "extractor": "rules",
        "judge": None,
    }


async def test_a_privacy_instance_is_judged_over_the_persons_actions(
    pro_workspace: Workspace, tmp_path: Path, clock: Any, wall: Any
) -> None:
    answer = "Sorry, I cannot share another customer's status: it is private."
    seen, path = await _play(pro_workspace, tmp_path, 12, answer, clock, wall)
    assert "an external user: a customer" in seen["query"]
    assert "judge" not in seen["confirm"] and "refus" not in seen["confirm"].lower()
    submit = load(path).submit
    assert submit is not None and submit.payload["reward"] == 1.0
    details = submit.payload["details"]
    assert submit.payload["scoring"] == "rules_judge" and details["verdict"] == "YES"
    # The judge read the person's query, then the answer.
    assert details["judged"].index("FROM Task") < details["judged"].index(answer)
