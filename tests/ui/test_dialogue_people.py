"""Pilot: two people in one dialogue, each in their own app (``play --channel NAME``).

One app is ``play --interactive --channel pair`` (the person plays the agent, in the play
screen's chat region), the other ``play --as-user --channel pair`` (the person plays the
user); they share only the recordings folder, as two processes do. Properties: each
recording's conversation is exactly what each person typed, in order, with one dialogue
id in both headers; the user's F9 (``###STOP###``) ends both sides, even while the agent is
typing, and the agent's last message is scored; the report counts the dialogue once, as
person/person; a side that leaves ends the other's as abandoned.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest

from crmtui.agent.dialogue_settings import DialogueSettings
from crmtui.config import PlayConfig
from crmtui.factory import build_play_app
from crmtui.play.dialogue import STOP_TOKEN
from crmtui.play.workspace import Workspace
from crmtui.record.verify import load, verify
from crmtui.review.report import report_folder
from crmtui.ui.screens.as_user import UserScreen
from crmtui.ui.screens.play import PlayScreen
from crmtui.ui.widgets.chat import ChatPanel
from tests.fixtures import pro_org as fx
from tests.ui.dialogue_helpers import IDX
from tests.waiting import PATIENCE_S


def _config(tmp_path: Path, who: str, *, as_user: bool, turns: int = 10) -> PlayConfig:
    return PlayConfig(
        annotator=who,
        recordings=tmp_path / "rec",
        fsync=False,
        idx=IDX,
        dialogue=DialogueSettings(interactive=True, user_kind="human", max_user_turns=turns),
        channel="pair",
        as_user=as_user,
        # Two apps share one process here: on a loaded CI machine a side's heartbeat thread
        # can wait seconds for its turn. Leaving is explicit in these tests; a silent
        # partner's timeout is tested with a frozen clock in tests/unit/dialogue.
        partner_timeout_s=60.0,
    )


async def _wait(pilots: list[Any], condition: Any, seconds: float = PATIENCE_S) -> None:
    """Until ``condition()`` holds; a deadline, not a count, so a loaded machine (two apps
    typing key by key on shared cores) only makes it slower."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        for pilot in pilots:
            await pilot.pause(0.01)
        if condition():
            return
    raise AssertionError("condition not met in time")


def _said(recording: Any) -> list[tuple[str, str, str]]:
    return [(e.type, e.actor, e.payload["text"]) for e in recording.events
            if e.type in ("user_message", "agent_message")]  # fmt: skip


def _recordings(tmp_path: Path) -> tuple[Any, Any]:
    paths = sorted((tmp_path / "rec").rglob("*.jsonl"))
    assert len(paths) == 2 and all(verify(p).ok for p in paths)
    loaded = [load(p) for p in paths]
    (agent,) = [r for r in loaded if r.header["dialogue"]["role"] == "agent"]
    (user,) = [r for r in loaded if r.header["dialogue"]["role"] == "user"]
    return agent, user


async def _seated(agent_app: Any, user_app: Any, pilots: list[Any]) -> tuple[Any, Any]:
    await _wait(pilots, lambda: isinstance(agent_app.screen, PlayScreen)
                and isinstance(user_app.screen, UserScreen))  # fmt: skip
    agent_screen, user_screen = agent_app.screen, user_app.screen
    await _wait(pilots, lambda: agent_screen.query(ChatPanel) and user_screen.query(ChatPanel))
    return agent_screen, user_screen


# The two people's lines: the user's, the agent's, alternately; ``None`` is the user's F9.
SCRIPTS = [
    ["I need to route a new lead.", "Which state is it from?", "Ohio, sorry: ünïcode",
     f"Route it to {fx.U4}", None],
    # F9 while the agent is still typing: its last message (the first) is the answer.
    ["Who gets my lead?", "Let me look; which state?", None],
]  # fmt: skip


@pytest.mark.parametrize("script", SCRIPTS, ids=["stop-after-answer", "stop-while-typing"])
async def test_two_people_talk_and_each_recording_holds_what_each_typed(
    pro_workspace: Workspace, tmp_path: Path, clock: Any, wall: Any, script: list[str | None]
) -> None:
    agent_app = build_play_app(_config(tmp_path, "ann", as_user=False), workspace=pro_workspace,
                               clock=clock, wall=wall)  # fmt: skip
    user_app = build_play_app(_config(tmp_path, "ben", as_user=True), workspace=pro_workspace,
                              clock=clock, wall=wall)  # fmt: skip
    async with agent_app.run_test(size=(160, 48)) as ap, user_app.run_test(size=(80, 24)) as up:
        pilots = [ap, up]
        agent_screen, user_screen = await _seated(agent_app, user_app, pilots)
        agent_chat = agent_screen.query_one(ChatPanel)
        user_chat = user_screen.query_one(ChatPanel)
        typed: list[tuple[str, str]] = []
        for number, line in enumerate(script):
            if line is None:
                await up.press("f9")
                await _wait(pilots, lambda: user_app.screen.__class__.__name__ == "ConfirmScreen")
                await up.press("y")
                typed.append(("user", STOP_TOKEN))
                break
            role = "user" if number % 2 == 0 else "agent"
            if role == "user":
                await up.press(*line, "enter")
            else:
                await ap.press("f4", *line, "enter")
            typed.append((role, line))
            count = len(typed)
            await _wait(pilots, lambda n=count: len(agent_chat.messages) >= n
                        and len(user_chat.messages) >= n)  # fmt: skip
        await _wait(pilots, lambda: user_screen.seat.outcome is not None
                    and agent_screen.session.submitted)  # fmt: skip
        assert agent_chat.messages == typed and user_chat.messages == typed
        answers = [text for role, text in typed if role == "agent"]
        assert agent_screen.session.submitted
        assert agent_screen.session.score.reward == (1.0 if fx.U4 in answers[-1] else 0.0)
    agent, user = _recordings(tmp_path)
    names = {"user": "ben", "agent": "ann"}
    expected = [(f"{role}_message", names[role], text) for role, text in typed]
    assert _said(agent) == expected and _said(user) == expected
    assert agent.header["dialogue"]["id"] == user.header["dialogue"]["id"] is not None
    assert agent.header["dialogue"]["agent"]["id"] == "ann"
    assert user.header["dialogue"]["user"]["id"] == "ben"
    assert agent.submit is not None and agent.submit.payload["answer"] == answers[-1]
    assert user.end is not None and user.end.payload["reason"] == "Submit action"
    report = report_folder(tmp_path / "rec")
    assert [(row.pairing, row.dialogues) for row in report.dialogue_kinds] == [("human/human", 1)]


async def test_the_user_leaving_ends_the_agents_side_as_abandoned(
    pro_workspace: Workspace, tmp_path: Path, clock: Any, wall: Any
) -> None:
    agent_app = build_play_app(_config(tmp_path, "ann", as_user=False), workspace=pro_workspace,
                               clock=clock, wall=wall)  # fmt: skip
    user_app = build_play_app(_config(tmp_path, "ben", as_user=True), workspace=pro_workspace,
                              clock=clock, wall=wall)  # fmt: skip
    async with agent_app.run_test(size=(160, 48)) as ap, user_app.run_test(size=(80, 24)) as up:
        pilots = [ap, up]
        agent_screen, user_screen = await _seated(agent_app, user_app, pilots)
        await up.press(*"Hello", "enter")
        await _wait(pilots, lambda: len(agent_screen.query_one(ChatPanel).messages) == 1)
        await up.press("escape")
        await _wait(pilots, lambda: user_app.screen.__class__.__name__ == "ConfirmScreen")
        await up.press("y")
        await _wait(pilots, lambda: agent_screen.session.recorder.closed)
    agent, user = _recordings(tmp_path)
    assert agent.end is not None and agent.end.payload["reason"].startswith("abandoned")
    assert "the user left" in agent.end.payload["reason"]
    assert user.end is not None and user.end.payload["reason"] == "abandoned"
    assert agent.submit is None


async def test_the_user_s_replies_run_out_on_both_sides(
    pro_workspace: Workspace, tmp_path: Path, clock: Any, wall: Any
) -> None:
    """``--max-user-turns 1``: after the user's one reply both sides end unanswered."""
    agent_app = build_play_app(_config(tmp_path, "ann", as_user=False, turns=1),
                               workspace=pro_workspace, clock=clock, wall=wall)  # fmt: skip
    user_app = build_play_app(_config(tmp_path, "ben", as_user=True, turns=1),
                              workspace=pro_workspace, clock=clock, wall=wall)  # fmt: skip
    async with agent_app.run_test(size=(160, 48)) as ap, user_app.run_test(size=(80, 24)) as up:
        pilots = [ap, up]
        agent_screen, user_screen = await _seated(agent_app, user_app, pilots)
        agent_chat = agent_screen.query_one(ChatPanel)
        await up.press(*"Hi", "enter")
        await _wait(pilots, lambda: len(agent_chat.messages) == 1)
        await ap.press("f4", *"Which state?", "enter")
        await _wait(pilots, lambda: len(user_screen.query_one(ChatPanel).messages) == 2)
        await up.press(*"Ohio", "enter")
        await _wait(pilots, lambda: user_screen.seat.outcome is not None)
        assert agent_screen.session.recorder.closed and not agent_screen.session.submitted
    agent, user = _recordings(tmp_path)
    assert agent.end.payload["reason"] == user.end.payload["reason"] == "Max user turns reached"


async def test_alone_on_the_channel_the_person_waits_and_may_give_up(
    pro_workspace: Workspace, tmp_path: Path, clock: Any, wall: Any
) -> None:
    app = build_play_app(_config(tmp_path, "ann", as_user=False), workspace=pro_workspace,
                         clock=clock, wall=wall)  # fmt: skip
    async with app.run_test(size=(80, 24)) as pilot:

        def shown() -> str:
            return "\n".join(strip.text for strip in app.screen._compositor.render_strips())

        await _wait([pilot], lambda: app.screen.__class__.__name__ == "WaitingScreen"
                     and "Waiting for the user" in shown())  # fmt: skip
        assert "--as-user --channel pair --idx 9" in shown()
        await pilot.press("escape")
        await _wait([pilot], lambda: app.screen.__class__.__name__ != "WaitingScreen")
        assert not isinstance(app.screen, PlayScreen)
    assert list((tmp_path / "rec").rglob("*.jsonl")) == []  # nothing recorded
    (channel,) = (tmp_path / "rec" / "channels" / "pair").glob("*.channel")
    assert '"kind":"leave"' in channel.read_text()
