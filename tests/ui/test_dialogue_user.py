"""Pilot: a person plays the user against a scripted model agent (``play --as-user``).

The person sees the persona and the hidden instruction (never the gold), writes first, the
agent (a scripted model over real HTTP) works the org, its steps streaming beside the
conversation, and answers; F9 ends the conversation, recorded as ``###STOP###``, and the
agent's last message is scored. Both sides record, with one dialogue id; both recordings
verify. An agent that never answers ends by its turn limit, and the person's side says so.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from crmtui.agent.dialogue_settings import DialogueSettings
from crmtui.agent.settings import AgentSettings
from crmtui.config import PlayConfig
from crmtui.factory import build_play_app
from crmtui.play.dialogue import STOP_TOKEN
from crmtui.play.workspace import Workspace
from crmtui.record.verify import load, verify
from crmtui.ui.screens.as_user import BriefPanel, UserScreen
from crmtui.ui.widgets.chat import ChatPanel
from crmtui.ui.widgets.transcript import Transcript
from tests.fakes.openai_server import FakeOpenAI, text
from tests.fixtures import pro_org as fx
from tests.ui.dialogue_helpers import ANSWER, ASK, IDX
from tests.waiting import until

LOOK = "<thought>Look.</thought><execute>SELECT UserId FROM UserTerritory2Association</execute>"


@pytest.fixture
def agent_server(monkeypatch: pytest.MonkeyPatch) -> Any:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-a-real-key")
    with FakeOpenAI(model_name="agent") as server:
        yield server


async def _wait(pilot: Any, condition: Any) -> None:
    """Pause ``pilot`` until ``condition()`` holds (a deadline only against a hang)."""
    await until(pilot, condition)


def _config(tmp_path: Path, server: Any, max_turns: int = 20) -> PlayConfig:
    agent = AgentSettings(
        model="openai/agent",
        api_base=server.base_url,
        max_turns=max_turns,
        timeout=60.0,  # the fake answers at once: only a hang waits it out
        fsync=False,
        dialogue=DialogueSettings(interactive=True, user_kind="human"),
    )
    return PlayConfig(
        annotator="tester", recordings=tmp_path / "rec", fsync=False, idx=IDX, agent=agent
    )


async def _open(app: Any, pilot: Any) -> tuple[UserScreen, ChatPanel]:
    await _wait(pilot, lambda: isinstance(app.screen, UserScreen) and app.screen.query(ChatPanel))
    return app.screen, app.screen.query_one(ChatPanel)


def _recordings(tmp_path: Path) -> tuple[Any, Any]:
    paths = sorted((tmp_path / "rec").rglob("*.jsonl"))
    assert len(paths) == 2 and all(verify(p).ok for p in paths)
    loaded = [load(p) for p in paths]
    (person,) = [r for r in loaded if r.header["actor"]["kind"] == "human"]
    (model,) = [r for r in loaded if r.header["actor"]["kind"] == "model"]
    return person, model


@pytest.mark.parametrize("size", [(160, 48), (80, 24)])
async def test_a_person_plays_the_user_and_ends_with_stop(
    pro_workspace: Workspace, agent_server: Any, tmp_path: Path, clock: Any, wall: Any, size: Any
) -> None:
    agent_server.push(text(ASK), text(LOOK), text(ANSWER))
    app = build_play_app(_config(tmp_path, agent_server), workspace=pro_workspace, clock=clock,
                         wall=wall)  # fmt: skip
    async with app.run_test(size=size) as pilot:
        screen, chat = await _open(app, pilot)
        brief = screen.query_one(BriefPanel).brief
        assert brief.instruction == fx.PRO_ROWS[IDX]["query"]
        assert brief.persona == fx.PRO_ROWS[IDX]["persona"]
        shown = str(brief)
        assert fx.U4 not in shown  # never the gold
        await pilot.press(*"I need to route a new lead.", "enter")
        await _wait(pilot, lambda: len(chat.messages) == 2)
        assert chat.messages[1] == ("agent", "Which state is the lead from?")
        await pilot.press(*"Ohio", "enter")
        await _wait(pilot, lambda: len(chat.messages) == 4)
        assert screen.query_one(Transcript).steps >= 3  # the agent's steps, live
        await pilot.press("f9")
        await _wait(pilot, lambda: app.screen.__class__.__name__ == "ConfirmScreen")
        await pilot.press("y")
        await _wait(pilot, lambda: screen.seat.outcome is not None)
        assert chat.messages[-1] == ("user", STOP_TOKEN)
    person, model = _recordings(tmp_path)
    assert person.header["dialogue"]["role"] == "user"
    assert model.header["dialogue"]["role"] == "agent"
    assert person.header["dialogue"]["id"] == model.header["dialogue"]["id"]
    assert model.header["dialogue"]["user"] == {"kind": "human", "id": "tester"}
    for recording in (person, model):
        said = [(e.type, e.actor, e.payload["text"]) for e in recording.events
                if e.type in ("user_message", "agent_message")]  # fmt: skip
        assert said == [
            ("user_message", "tester", "I need to route a new lead."),
            ("agent_message", "openai/agent", "Which state is the lead from?"),
            ("user_message", "tester", "Ohio"),
            ("agent_message", "openai/agent", f"Route it to {fx.U4}."),
            ("user_message", "tester", STOP_TOKEN),
        ]
    assert model.submit is not None and model.submit.payload["reward"] == 1
    assert person.submit is None  # the user answers nothing
    assert person.end is not None and person.end.payload["reason"] == "Submit action"
    # The agent never saw the query: its first user message is the person's.
    assert agent_server.requests[0]["messages"][1]["content"] == "I need to route a new lead."


async def test_an_agent_that_never_answers_ends_by_its_turn_limit(
    pro_workspace: Workspace, agent_server: Any, tmp_path: Path, clock: Any, wall: Any
) -> None:
    agent_server.push(text(LOOK), text(LOOK))
    app = build_play_app(_config(tmp_path, agent_server, max_turns=2), workspace=pro_workspace,
                         clock=clock, wall=wall)  # fmt: skip
    async with app.run_test(size=(160, 48)) as pilot:
        screen, chat = await _open(app, pilot)
        await pilot.press(*"Who gets my lead?", "enter")
        await _wait(pilot, lambda: screen.seat.outcome is not None)
        assert screen.seat.outcome["message"] == "Max turns reached"
    person, model = _recordings(tmp_path)
    assert model.submit is None
    assert person.end is not None and person.end.payload["reason"] == "Max turns reached"


async def test_keys_typed_before_the_reply_box_has_focus_are_recorded_as_typed(
    pro_workspace: Workspace, agent_server: Any, tmp_path: Path, clock: Any, wall: Any
) -> None:
    """On a busy machine the person may type before the reply box has the focus: those
    keys go into it, so the first message is exactly what was typed (no first letter lost
    to the screen's shortcuts)."""
    agent_server.push(text(ANSWER))
    app = build_play_app(_config(tmp_path, agent_server), workspace=pro_workspace, clock=clock,
                         wall=wall)  # fmt: skip
    async with app.run_test(size=(80, 24)) as pilot:
        screen, chat = await _open(app, pilot)
        screen.set_focus(None)  # as if the focus had not landed yet
        await pilot.pause()
        await pilot.press(*"I need to route a new lead.", "enter")
        await _wait(pilot, lambda: len(chat.messages) == 2)
        assert chat.messages[0] == ("user", "I need to route a new lead.")
