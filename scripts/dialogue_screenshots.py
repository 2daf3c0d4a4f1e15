"""Save SVG screenshots of the multi-turn mode into assets/ for the docs.

Usage: python scripts/dialogue_screenshots.py [--out assets]

Three pictures, on the small CRMArena-Pro org the tests build (tests/fixtures/pro_org.py),
instance 9 (lead routing), with scripted models on fake OpenAI-compatible servers over real
HTTP (tests/fakes/openai_server.py) and frozen clocks, so they are reproducible offline:

* ``play-interactive.svg``: a person as the agent, mid-conversation with a simulated user;
* ``play-as-user.svg``: a person as the user (persona and hidden instruction), a model agent
  working beside the conversation;
* ``compare-dialogue.svg``: the two recordings compared, the conversations side by side;
* ``play-people.svg``: two people in one dialogue (``--channel``), two apps side by side in
  one process as two terminals would be: the agent's play screen, mid-conversation.
"""

from __future__ import annotations

import argparse
import asyncio
import datetime as dt
import os
import sys
import tempfile
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

IDX = 9
SIZE = (160, 48)


def _wall() -> dt.datetime:
    return dt.datetime(2026, 1, 2, 3, 4, 5, tzinfo=dt.UTC)


async def _wait(pilot: Any, condition: Any, tries: int = 500) -> None:
    for _ in range(tries):
        await pilot.pause(0.02)
        if condition():
            return
    raise RuntimeError("the scripted conversation did not reach its point in time")


def _workspace(home: Path) -> Any:
    from crmtui.data.instances import TaskSet
    from crmtui.play.workspace import Workspace
    from tests.fixtures import pro_org as fx

    return Workspace(fx.build_pro_org(home), TaskSet.from_rows(fx.PRO_ROWS, "pro"), "pro")


async def _as_agent(workspace: Any, out: Path, recordings: Path) -> Path:
    from crmtui.agent.dialogue_settings import DialogueSettings
    from crmtui.config import PlayConfig
    from crmtui.factory import build_play_app
    from crmtui.play.dialogue import STOP_TOKEN
    from crmtui.ui.scenes import settle
    from crmtui.ui.widgets.chat import ChatPanel
    from tests.fakes.openai_server import FakeOpenAI, text
    from tests.fixtures import pro_org as fx

    with FakeOpenAI(model_name="user") as server:
        server.push(
            text("Hi, a new lead just came in and I need to know which agent should get it."),
            text("She is in Ohio, if that matters."),
            text(STOP_TOKEN),
        )
        dialogue = DialogueSettings(
            interactive=True, user_model="openai/gpt-4o", user_api_base=server.base_url
        )
        config = PlayConfig(annotator="alice", recordings=recordings, fsync=False, idx=IDX,
                            dialogue=dialogue)  # fmt: skip
        app = build_play_app(config, workspace=workspace, clock=lambda: 100.0, wall=_wall)
        app.steady_cursor = True
        async with app.run_test(size=SIZE) as pilot:
            await _wait(pilot, lambda: bool(app.screen.query(ChatPanel)))
            chat = app.screen.query_one(ChatPanel)
            await _wait(pilot, lambda: len(chat.messages) == 1)
            await pilot.press("f4", *"Which state is the lead from?", "enter")
            await _wait(pilot, lambda: len(chat.messages) == 3)
            await pilot.press("f3", *"SELECT UserId FROM UserTerritory2Association", "ctrl+j")
            await settle(pilot)
            await pilot.press("f4", *f"Route it to {fx.U4}")
            await settle(pilot)
            app.save_screenshot(filename="play-interactive.svg", path=str(out))
            await pilot.press("enter")
            await _wait(pilot, lambda: app.screen.session.submitted)
    return out / "play-interactive.svg"


async def _as_user(workspace: Any, out: Path, recordings: Path) -> Path:
    from crmtui.agent.dialogue_settings import DialogueSettings
    from crmtui.agent.settings import AgentSettings
    from crmtui.config import PlayConfig
    from crmtui.factory import build_play_app
    from crmtui.ui.screens.as_user import UserScreen
    from crmtui.ui.widgets.chat import ChatPanel
    from tests.fakes.openai_server import FakeOpenAI, text
    from tests.fixtures import pro_org as fx

    ask = "<thought>Routing needs the lead's state.</thought><respond>Which state is the lead from?</respond>"  # noqa: E501
    look = "<thought>Who covers Ohio?</thought><execute>SELECT UserId FROM UserTerritory2Association</execute>"  # noqa: E501
    answer = f"<thought>That user covers it.</thought><respond>Route it to {fx.U4}.</respond>"
    with FakeOpenAI(model_name="agent") as server:
        server.push(text(ask), text(look), text(answer))
        dialogue = DialogueSettings(interactive=True, user_kind="human")
        agent = AgentSettings(model="openai/gpt-4o", api_base=server.base_url, max_turns=20,
                              timeout=10.0, fsync=False, dialogue=dialogue)  # fmt: skip
        config = PlayConfig(annotator="ben", recordings=recordings, fsync=False, idx=IDX,
                            agent=agent)  # fmt: skip
        app = build_play_app(config, workspace=workspace, clock=lambda: 100.0, wall=_wall)
        app.steady_cursor = True
        async with app.run_test(size=SIZE) as pilot:
            await _wait(
                pilot, lambda: isinstance(app.screen, UserScreen) and app.screen.query(ChatPanel)
            )
            screen = app.screen
            chat = screen.query_one(ChatPanel)
            await pilot.press(*"I have a new lead to route.", "enter")
            await _wait(pilot, lambda: len(chat.messages) == 2)
            await pilot.press(*"Ohio", "enter")
            await _wait(pilot, lambda: len(chat.messages) == 4)
            await pilot.pause(0.3)  # not settle(): the agent's worker waits for the person
            app.save_screenshot(filename="play-as-user.svg", path=str(out))
            await pilot.press("f9")
            await _wait(pilot, lambda: app.screen.__class__.__name__ == "ConfirmScreen")
            await pilot.press("y")
            await _wait(pilot, lambda: screen.seat.outcome is not None)
    return out / "play-as-user.svg"


async def _compare(out: Path, recordings: Path) -> Path:
    from crmtui.factory import build_compare_app
    from crmtui.record.verify import load
    from crmtui.review.compare import compare
    from crmtui.ui.scenes import settle

    agents = [
        load(p) for p in sorted(recordings.rglob("*.jsonl"))
        if load(p).header["dialogue"]["role"] == "agent"
    ]  # fmt: skip
    agents.sort(key=lambda r: r.header["actor"]["kind"])  # the person first
    app = build_compare_app(compare(agents))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        app.save_screenshot(filename="compare-dialogue.svg", path=str(out))
    return out / "compare-dialogue.svg"


async def _people(workspace: Any, out: Path, recordings: Path) -> Path:
    from crmtui.agent.dialogue_settings import DialogueSettings
    from crmtui.config import PlayConfig
    from crmtui.factory import build_play_app
    from crmtui.ui.screens.as_user import UserScreen
    from crmtui.ui.screens.play import PlayScreen
    from crmtui.ui.widgets.chat import ChatPanel

    def config(who: str, as_user: bool) -> PlayConfig:
        dialogue = DialogueSettings(interactive=True, user_kind="human")
        return PlayConfig(annotator=who, recordings=recordings / "people", fsync=False,
                          idx=IDX, dialogue=dialogue, channel="pair1", as_user=as_user)  # fmt: skip

    agent_app = build_play_app(config("alice", False), workspace=workspace,
                               clock=lambda: 100.0, wall=_wall)  # fmt: skip
    user_app = build_play_app(config("ben", True), workspace=workspace, clock=lambda: 100.0,
                              wall=_wall)  # fmt: skip
    agent_app.steady_cursor = user_app.steady_cursor = True
    async with agent_app.run_test(size=SIZE) as ap, user_app.run_test(size=SIZE) as up:
        both = [ap, up]

        async def wait(condition: Any) -> None:
            for _ in range(500):
                for pilot in both:
                    await pilot.pause(0.01)
                if condition():
                    return
            raise RuntimeError("the two people did not meet in time")

        await wait(lambda: isinstance(agent_app.screen, PlayScreen)
                   and isinstance(user_app.screen, UserScreen)
                   and agent_app.screen.query(ChatPanel)
                   and user_app.screen.query(ChatPanel))  # fmt: skip
        agent_chat = agent_app.screen.query_one(ChatPanel)
        user_chat = user_app.screen.query_one(ChatPanel)
        await up.press(*"Hi, which agent should get my new lead?", "enter")
        await wait(lambda: len(agent_chat.messages) == 1)
        await ap.press("f4", *"Which state is the lead from?", "enter")
        await wait(lambda: len(user_chat.messages) == 2)
        await up.press(*"Ohio.", "enter")
        await wait(lambda: len(agent_chat.messages) == 3)
        for _ in range(5):  # not settle(): the agent's worker keeps listening to the user
            await ap.pause(0.2)
            await up.pause(0.05)
        agent_app.save_screenshot(filename="play-people.svg", path=str(out))
        await up.press("escape")
        await wait(lambda: user_app.screen.__class__.__name__ == "ConfirmScreen")
        await up.press("y")
        await wait(lambda: agent_app.screen.session.recorder.closed)
    return out / "play-people.svg"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path("assets"))
    parser.add_argument("--people-only", action="store_true", help="Only play-people.svg.")
    args = parser.parse_args(argv)
    home = Path(tempfile.mkdtemp(prefix="crmtui-dialogue-shots-"))
    os.environ["CRMTUI_HOME"] = str(home)
    os.environ.setdefault("OPENAI_API_KEY", "not-a-real-key")
    from crmtui.agent.client import load_litellm

    load_litellm(online=False)
    args.out.mkdir(parents=True, exist_ok=True)
    recordings = home / "rec"
    workspace = _workspace(home)
    if not args.people_only:
        print(f"wrote {asyncio.run(_as_agent(workspace, args.out, recordings))}")
        print(f"wrote {asyncio.run(_as_user(workspace, args.out, recordings))}")
        print(f"wrote {asyncio.run(_compare(args.out, recordings))}")
    print(f"wrote {asyncio.run(_people(workspace, args.out, recordings))}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
