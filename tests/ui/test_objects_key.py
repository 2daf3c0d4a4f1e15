"""``o`` opens the object list from anywhere on the play screen that is not a text field."""

from __future__ import annotations

import pytest
from textual.widgets import Input, TabbedContent

from crmtui.factory import build_play_app
from crmtui.ui.screens.picker import PickerScreen
from crmtui.ui.screens.play import PlayScreen
from crmtui.ui.widgets.object_list import ObjectList
from tests.waiting import until


@pytest.mark.parametrize("size", [(160, 48), (80, 24)])
async def test_o_reaches_the_object_list_from_outside_the_browser(
    size, workspace, play_config, clock, wall
):
    app = build_play_app(play_config, workspace=workspace, clock=clock, wall=wall)
    async with app.run_test(size=size) as pilot:
        await until(pilot, lambda: isinstance(app.screen, PickerScreen), workers=True)
        await pilot.press("enter")
        await until(pilot, lambda: isinstance(app.screen, PlayScreen), workers=True)
        screen = app.screen
        tabs = screen.query_one(TabbedContent)
        screen.action_focus_console()  # another tab, focus in the console's editor
        await until(pilot, lambda: tabs.active == "tab-console")
        screen.action_focus_context()  # then a panel that takes no text
        await until(pilot, lambda: app.focused is not None and not isinstance(app.focused, Input))
        await pilot.press("o", "c", "a", "s")
        objects = screen.query_one(ObjectList)
        await until(pilot, lambda: app.focused is objects and tabs.active == "tab-browse")
        # The letters after it went to the list's type-ahead, as the browser's own "o" does.
        await until(pilot, lambda: objects.typed == "cas")


async def test_o_in_the_answer_box_is_typed(workspace, play_config, clock, wall):
    app = build_play_app(play_config, workspace=workspace, clock=clock, wall=wall)
    async with app.run_test(size=(160, 48)) as pilot:
        await until(pilot, lambda: isinstance(app.screen, PickerScreen), workers=True)
        await pilot.press("enter")
        await until(pilot, lambda: isinstance(app.screen, PlayScreen), workers=True)
        app.screen.action_focus_answer()
        answer = app.screen.query_one("#answer-input")
        await until(pilot, lambda: app.focused is answer)
        await pilot.press("o", "k")
        await until(
            pilot, lambda: "ok" in str(getattr(answer, "value", getattr(answer, "text", "")))
        )
        assert app.focused is answer
