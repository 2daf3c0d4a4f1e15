"""Pilot: a person plays the agent of a dialogue with a simulated user (``play --interactive``).

The user (a scripted model over real HTTP) opens as the instance opens; the query is never
on screen; the person browses, writes to the user in the chat region's reply box, the user
answers; the person's last message before ``###STOP###`` is scored; the recording holds
every message with who said it, verifies, and replays. At 80x24 the chat region and its
reply box fit beside the tabs.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from crmtui.agent.dialogue_settings import DialogueSettings
from crmtui.config import PlayConfig
from crmtui.factory import build_play_app
from crmtui.play.dialogue import STOP_TOKEN
from crmtui.play.workspace import Workspace
from crmtui.record.verify import load, verify
from crmtui.ui.screens.play import PlayScreen
from crmtui.ui.widgets.chat import ChatPanel
from tests.fakes.openai_server import FakeOpenAI, text
from tests.fixtures import pro_org as fx
from tests.ui.dialogue_helpers import IDX, OPENING
from tests.ui.dialogue_helpers import screen_text as _screen_text
from tests.ui.dialogue_helpers import wait as _wait
from tests.waiting import promptly


def _config(tmp_path: Path, server: Any, **kwargs: Any) -> PlayConfig:
    dialogue = DialogueSettings(
        interactive=True, user_model="openai/user", user_api_base=server.base_url, **kwargs
    )
    return PlayConfig(
        annotator="tester", recordings=tmp_path / "rec", fsync=False, idx=IDX, dialogue=dialogue
    )


async def _converse(
    app: Any, pilot: Any, messages: list[str], replies_after: int
) -> tuple[PlayScreen, ChatPanel]:
    await _wait(pilot, lambda: isinstance(app.screen, PlayScreen) and app.screen.query(ChatPanel))
    screen = app.screen
    chat = screen.query_one(ChatPanel)
    await _wait(pilot, lambda: len(chat.messages) == 1)
    for number, message in enumerate(messages, start=1):
        await pilot.press("f4", *message, "enter")
        await _wait(pilot, lambda n=number: len(chat.messages) >= 2 * n + 1)
    return screen, chat


@pytest.mark.parametrize("size", [(160, 48), (80, 24)])
async def test_a_person_talks_to_the_simulated_user_and_is_scored(
    pro_workspace: Workspace, user_server: Any, tmp_path: Path, clock: Any, wall: Any, size: Any
) -> None:
    user_server.push(text(OPENING), text("The lead is from Ohio."), text(STOP_TOKEN))
    app = build_play_app(
        _config(tmp_path, user_server), workspace=pro_workspace, clock=clock, wall=wall
    )
    async with app.run_test(size=size) as pilot:
        screen, chat = await _converse(
            app, pilot, ["Which state is the lead from?", f"Route it to {fx.U4}"], 2
        )
        await _wait(pilot, lambda: screen.session.submitted)
        await _wait(pilot, lambda: "your last message was scored" in _screen_text(screen))
        shown = _screen_text(screen)
        assert chat.messages[0] == ("user", OPENING)
        assert "ends the conversation" in shown and "your last message was scored" in shown
        assert fx.PRO_ROWS[IDX]["query"][:30] not in shown  # the agent never sees the query
        assert chat.query_one("#chat-input").disabled
        assert screen.session.score is not None and screen.session.score.reward == 1.0
    (path,) = sorted((tmp_path / "rec").rglob("*.jsonl"))
    assert verify(path).ok
    recording = load(path)
    said = [(e.type, e.actor, e.payload["text"]) for e in recording.events
            if e.type in ("user_message", "agent_message")]  # fmt: skip
    assert said == [
        ("user_message", "openai/user", OPENING),
        ("agent_message", "tester", "Which state is the lead from?"),
        ("user_message", "openai/user", "The lead is from Ohio."),
        ("agent_message", "tester", f"Route it to {fx.U4}"),
        ("user_message", "openai/user", STOP_TOKEN),
    ]
    assert recording.header["dialogue"]["agent"] == {"kind": "human", "id": "tester"}
    submit = recording.submit
    assert submit is not None and submit.payload["answer"] == f"Route it to {fx.U4}"
    # The simulated user was told the persona and the query; the person was not.
    assert fx.PRO_ROWS[IDX]["query"] in user_server.requests[0]["messages"][0]["content"]
    if size == (160, 48):
        await _replays(path)


async def _replays(path: Path) -> None:
    """Replay shows the conversation as it stood at each step (who said what)."""
    from crmtui.factory import build_replay_app
    from crmtui.ui.screens.replay import ReplayScreen
    from crmtui.ui.widgets.panels import QueryPanel

    app = build_replay_app(path)
    async with app.run_test(size=(160, 48)) as pilot:
        await _wait(pilot, lambda: isinstance(app.screen, ReplayScreen))
        await pilot.press("end")
        panel = app.screen.query_one(QueryPanel)
        await _wait(pilot, lambda: panel.border_title == "Conversation (5 of 5 messages)")
        shown = _screen_text(app.screen)
        assert "tester (agent): Route it to" in shown and "openai/user (user)" in shown


async def test_the_users_replies_run_out_and_the_session_closes_unanswered(
    pro_workspace: Workspace, user_server: Any, tmp_path: Path, clock: Any, wall: Any
) -> None:
    user_server.push(text(OPENING), text("Not sure."))
    app = build_play_app(
        _config(tmp_path, user_server, max_user_turns=1),
        workspace=pro_workspace,
        clock=clock,
        wall=wall,
    )
    async with app.run_test(size=(160, 48)) as pilot:
        screen, chat = await _converse(app, pilot, ["Which state?"], 1)
        await _wait(pilot, lambda: screen.session.recorder.closed)
        assert "without an answer" in _screen_text(screen)
    (path,) = sorted((tmp_path / "rec").rglob("*.jsonl"))
    recording = load(path)
    assert recording.submit is None
    assert recording.end is not None and recording.end.payload["reason"] == "Max user turns reached"


async def test_watch_shows_a_model_agent_talking_to_the_simulated_user(
    pro_workspace: Workspace, user_server: Any, tmp_path: Path
) -> None:
    """``watch --interactive``: the conversation shows as it is recorded."""
    from crmtui.agent.watch_config import WatchConfig
    from crmtui.factory import build_watch_app
    from crmtui.ui.screens.watch import WatchScreen

    user_server.push(text(OPENING), text(STOP_TOKEN))
    with FakeOpenAI(model_name="agent") as agent:
        agent.push(text(f"<thought>Easy.</thought><respond>Give it to {fx.U4}.</respond>"))
        config = WatchConfig(
            model="openai/agent", api_base=agent.base_url, idx=IDX, timeout=60.0, fsync=False,
            recordings=tmp_path / "rec", stream=False,
            dialogue=DialogueSettings(interactive=True, user_model="openai/user",
                                      user_api_base=user_server.base_url),
        )  # fmt: skip
        app = build_watch_app(config, workspace=pro_workspace)
        async with app.run_test(size=(160, 48)) as pilot:
            await _wait(pilot, lambda: isinstance(app.screen, WatchScreen)
                        and app.screen.result is not None)  # fmt: skip
            chat = app.screen.query_one(ChatPanel)
            await _wait(pilot, lambda: len(chat.messages) == 3)
            assert chat.messages == [("user", OPENING), ("agent", f"Give it to {fx.U4}."),
                                     ("user", STOP_TOKEN)]  # fmt: skip
            assert app.screen.result.reward == 1.0
    (path,) = sorted((tmp_path / "rec").rglob("*.jsonl"))
    assert verify(path).ok and load(path).header["dialogue"]["user"]["id"] == "openai/user"


async def test_watch_holds_the_time_limit_when_the_simulated_user_stalls(
    pro_workspace: Workspace, user_server: Any, tmp_path: Path
) -> None:
    """``watch --interactive --time-limit 2``: the user model holds its reply for 300 s (the
    per-call timeout is 30 s); the episode ends at its limit (plus a small margin), saying the
    user ran it out, on screen and in a recording that verifies."""
    import time

    from crmtui.agent.watch_config import WatchConfig
    from crmtui.factory import build_watch_app
    from crmtui.ui.screens.watch import WatchScreen
    from tests.fakes.openai_server import delayed

    user_server.push(text(OPENING), delayed(300.0, text("far too late")))
    with FakeOpenAI(model_name="agent") as agent:
        agent.push(text("<thought>Ask.</thought><respond>Which state?</respond>"))
        config = WatchConfig(
            model="openai/agent", api_base=agent.base_url, idx=IDX, timeout=30.0, fsync=False,
            recordings=tmp_path / "rec", stream=False, time_limit_s=2.0,
            dialogue=DialogueSettings(interactive=True, user_model="openai/user",
                                      user_api_base=user_server.base_url),
        )  # fmt: skip
        app = build_watch_app(config, workspace=pro_workspace)
        began = time.monotonic()
        async with app.run_test(size=(160, 48)) as pilot:
            await _wait(pilot, lambda: isinstance(app.screen, WatchScreen)
                        and app.screen.result is not None)  # fmt: skip
            took = time.monotonic() - began
            reason = app.screen.result.end_reason
            assert reason["message"] == "Time limit reached" and reason["role"] == "user"
            await _wait(pilot, lambda: "Time limit reached" in _screen_text(app.screen))
    (path,) = sorted((tmp_path / "rec").rglob("*.jsonl"))
    assert verify(path).ok
    spent = load(path).events[-1].ms / 1000
    # The limit plus a stated margin of 3 s on a quiet machine (growing with the load): the
    # recording's clock starts before the screen and its worker (measured: +0.4 s in tmux at
    # 15 s); before, the per-call timeout (30 s) ended it.
    assert 2.0 <= spent <= 2.0 + promptly(3.0, instead=30.0 - 2.0), spent
    assert took < promptly(30.0, instead=300.0), took  # start-up included; far below the stall


async def test_quitting_mid_conversation_says_it_ends_it_and_it_does(
    pro_workspace: Workspace, user_server: Any, tmp_path: Path, clock: Any, wall: Any
) -> None:
    """A conversation is not kept to resume (its other side cannot wait): the quit dialog
    says so (it promised the draft kept), and the next start closes it as abandoned."""
    from crmtui.record.sessions import find_unfinished
    from crmtui.ui.screens.dialogs import ConfirmScreen

    user_server.push(text(OPENING), text("Not sure."))
    config = _config(tmp_path, user_server)
    app = build_play_app(config, workspace=pro_workspace, clock=clock, wall=wall)
    async with app.run_test(size=(160, 48)) as pilot:
        await _converse(app, pilot, [], 0)
        await pilot.press("ctrl+q")
        await _wait(pilot, lambda: isinstance(app.screen, ConfirmScreen))
        question = app.screen.question
        assert "ends it as abandoned" in question and "answer draft" not in question
        await pilot.press("ctrl+q")
    (path,) = sorted((tmp_path / "rec").rglob("*.jsonl"))
    assert find_unfinished(config.recordings) == [path]
    again = build_play_app(
        PlayConfig(annotator="tester", recordings=tmp_path / "rec", fsync=False),
        workspace=pro_workspace,
        clock=clock,
        wall=wall,
    )
    async with again.run_test(size=(160, 48)) as pilot:
        await _wait(pilot, lambda: again.picker is not None and again.started)
    assert find_unfinished(config.recordings) == []
    assert load(path).end.payload["reason"] == "abandoned"


async def test_the_model_library_loads_while_the_list_is_read(
    pro_workspace: Workspace,
    user_server: Any,
    tmp_path: Path,
    clock: Any,
    wall: Any,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """With a model to answer the person, litellm (~4 s of CPU) loads in the background after
    the list's first frame, not when the first message is awaited (6 s of "Waiting")."""
    import threading

    from crmtui.agent import client

    loaded = threading.Event()
    monkeypatch.setattr(client, "load_litellm", lambda: loaded.set())
    config = replace(_config(tmp_path, user_server), idx=None)
    app = build_play_app(config, workspace=pro_workspace, clock=clock, wall=wall)
    async with app.run_test(size=(80, 24)) as pilot:
        await _wait(pilot, lambda: loaded.is_set())
        assert app.session is None  # no instance opened: the list is on screen
    single = PlayConfig(annotator="tester", recordings=tmp_path / "rec", fsync=False)
    loaded.clear()
    app = build_play_app(single, workspace=pro_workspace, clock=clock, wall=wall)
    async with app.run_test(size=(80, 24)) as pilot:
        await _wait(pilot, lambda: app.started)
        await pilot.pause(0.1)
    assert not loaded.is_set()  # nobody to answer by model: nothing loaded
