"""A dialog a key opens starts on the action the key names, so Enter does what the key said.

F9 "End the conversation" opened on Cancel and Enter cancelled silently: the person thought
they had ended it. Every key that opens a confirmation is listed here with the button it
must start on; Escape (leave the instance) is the one exception, kept on Cancel: it names no
action, it backs out, pressed by reflex, and leaving abandons the instance.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from textual.widgets import Button

from crmtui.factory import build_play_app
from crmtui.play.dialogue import STOP_TOKEN
from crmtui.ui.screens.dialogs import ConfirmScreen
from tests.fakes.openai_server import FakeOpenAI, text
from tests.ui.dialogue_helpers import ASK
from tests.ui.test_dialogue_user import _config, _open, _wait
from tests.ui.test_play_flow import _open_first

SIZE = (160, 48)


@pytest.fixture
def agent_server(monkeypatch: pytest.MonkeyPatch) -> Any:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-a-real-key")
    with FakeOpenAI(model_name="agent") as server:
        yield server


def _focused_button(app: Any) -> str:
    focused = app.screen.focused
    assert isinstance(focused, Button), focused
    return str(focused.label)


async def test_every_play_key_dialog_starts_on_the_keys_action(
    workspace: Any, play_config: Any, clock: Any, wall: Any
) -> None:
    app = build_play_app(play_config, workspace=workspace, clock=clock, wall=wall)
    async with app.run_test(size=SIZE) as pilot:
        screen = await _open_first(pilot)
        # (key, the button it must start on); each dialog is then closed with Escape.
        for keys, button in [
            (("f4", *"x", "ctrl+s"), "Submit"),
            (("ctrl+q",), "Quit"),
            (("escape",), "Cancel"),  # the exception: leaving abandons (module docstring)
        ]:
            await pilot.press(*keys)
            await _wait(pilot, lambda: isinstance(app.screen, ConfirmScreen))
            await _wait(pilot, lambda: app.screen.query("#yes"))
            assert _focused_button(app) == button, keys
            await pilot.press("escape")
            await _wait(pilot, lambda: app.screen is screen)
        # Enter on Ctrl+S's dialog submits (the key's action).
        await pilot.press("f4", "ctrl+s")
        await _wait(pilot, lambda: isinstance(app.screen, ConfirmScreen))
        await _wait(pilot, lambda: app.screen.query("#yes"))
        await pilot.press("enter")
        await _wait(pilot, lambda: screen.finished)


async def test_f9_end_the_conversation_ends_it_on_enter(
    pro_workspace: Any, agent_server: Any, tmp_path: Path, clock: Any, wall: Any
) -> None:
    agent_server.push(text(ASK))
    app = build_play_app(
        _config(tmp_path, agent_server), workspace=pro_workspace, clock=clock, wall=wall
    )
    async with app.run_test(size=SIZE) as pilot:
        screen, chat = await _open(app, pilot)
        await pilot.press(*"I need to route a new lead.", "enter")
        await _wait(pilot, lambda: len(chat.messages) == 2)
        await pilot.press("f9")
        await _wait(pilot, lambda: isinstance(app.screen, ConfirmScreen))
        await _wait(pilot, lambda: app.screen.query("#yes"))
        assert _focused_button(app) == "End it"
        await pilot.press("enter")
        await _wait(pilot, lambda: screen.seat.outcome is not None)
        assert chat.messages[-1] == ("user", STOP_TOKEN)
