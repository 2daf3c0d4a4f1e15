"""Multi-turn studies in the play app: a participant's seat follows their role.

A study made with ``--interactive`` gives an annotator in the agent role the chat region
with the simulated user (a scripted model over real HTTP), recording into the study; the
picker's title says whom they talk to. With ``--roles agent,user`` two people are paired:
both open the same instance, meet on the pair's channel, and both record into the study.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from crmtui.data.instances import TaskSet
from crmtui.factory import build_play_app
from crmtui.play.dialogue import STOP_TOKEN
from crmtui.play.workspace import Workspace
from crmtui.record.verify import load, verify
from crmtui.study import StudyPlan, StudyRequest, create_study
from crmtui.study.launch import play_config
from crmtui.study.roles import Conversation
from crmtui.ui.screens.picker import PickerScreen
from crmtui.ui.screens.play import PlayScreen
from crmtui.ui.widgets.chat import ChatPanel
from tests.fakes.openai_server import FakeOpenAI, text
from tests.fixtures import pro_org as fx

IDX = 9  # lead_routing; gold U4
OPENING = "Hello, I have a new lead and need to know which agent should get it."


@pytest.fixture
def pro_workspace(tmp_path: Path) -> Workspace:
    org = fx.build_pro_org(tmp_path)
    return Workspace(org=org, tasks=TaskSet.from_rows(fx.PRO_ROWS, "pro"), tasks_label="pro")


@pytest.fixture
def user_server(monkeypatch: pytest.MonkeyPatch) -> Any:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-a-real-key")
    with FakeOpenAI(model_name="user") as server:
        yield server


async def _wait(pilot: Any, condition: Any, tries: int = 300) -> None:
    for _ in range(tries):
        await pilot.pause(0.02)
        if condition():
            return
    raise AssertionError("condition not met in time")


def _chat_open(app: Any) -> bool:
    return isinstance(app.screen, PlayScreen) and bool(app.screen.query(ChatPanel))


def _study(tmp_path: Path, workspace: Any, conversation: Conversation, **kwargs: Any) -> Any:
    made, _ = create_study(
        StudyRequest(
            name=str(tmp_path / "studies" / "chat"),
            annotators=kwargs.pop("annotators", ["ann"]),
            idx=[IDX],
            shared=0.0,
            overlap=1,
            conversation=conversation,
            **kwargs,
        ),
        workspace=workspace,
    )
    return made


async def test_a_participant_in_the_agent_role_talks_to_the_simulated_user(
    pro_workspace: Workspace, user_server: Any, tmp_path: Path, clock: Any, wall: Any
) -> None:
    study = _study(
        tmp_path,
        pro_workspace,
        Conversation(user_model="openai/user", user_api_base=user_server.base_url),
    )
    assert "api_key" not in study.definition_path.read_text() and "sk-" not in (
        study.definition_path.read_text()
    )
    user_server.push(text(OPENING), text(STOP_TOKEN))
    config = play_config(study, "ann", fsync=False)
    app = build_play_app(
        config, workspace=pro_workspace, plan=StudyPlan(study, "ann"), clock=clock, wall=wall
    )
    async with app.run_test(size=(80, 24)) as pilot:
        await _wait(pilot, lambda: isinstance(app.screen, PickerScreen))
        assert "talking to the simulated user openai/user" in app.plan.title
        await pilot.press("n")
        await _wait(
            pilot, lambda: isinstance(app.screen, PlayScreen) and app.screen.query(ChatPanel)
        )
        screen = app.screen
        chat = screen.query_one(ChatPanel)
        await _wait(pilot, lambda: len(chat.messages) == 1)
        await pilot.press("f4", *f"Route it to {fx.U4}", "enter")
        await _wait(pilot, lambda: screen.session.submitted)
        assert "1.0" not in str(screen.query_one("#answer-result").render())  # blind
    (path,) = sorted(study.recordings.rglob("*.jsonl"))
    assert verify(path).ok
    recording = load(path)
    assert recording.header["dialogue"]["user"]["id"] == "openai/user"
    assert recording.submit is not None and recording.submit.payload["reward"] == 1.0
    assert recording.submit.payload["answer"] == f"Route it to {fx.U4}"
