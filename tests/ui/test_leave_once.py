"""Escapes in a burst (as a terminal delivers them) never stack two leave dialogs.

The walk of #30 saw two dialogs after a quick double Escape; the second Escape must reach
the dialog the first one opened (and cancel it), not the play screen again.
"""

from __future__ import annotations

from typing import Any

from textual import events

from crmtui.factory import build_play_app
from crmtui.ui.screens.dialogs import ConfirmScreen
from crmtui.ui.screens.picker import PickerScreen
from crmtui.ui.screens.play import PlayScreen
from tests.waiting import until


def _dialogs(app: Any) -> int:
    return sum(isinstance(screen, ConfirmScreen) for screen in app.screen_stack)


async def test_escapes_in_a_burst_never_stack_two_leave_dialogs(
    workspace, play_config, clock, wall
):
    app = build_play_app(play_config, workspace=workspace, clock=clock, wall=wall)
    depths: list[int] = []  # leave dialogs in the stack after each push of one
    push = app.push_screen

    def counting_push(screen: Any, *args: Any, **kwargs: Any) -> Any:
        pushed = push(screen, *args, **kwargs)
        if isinstance(screen, ConfirmScreen):
            depths.append(_dialogs(app))
        return pushed

    async with app.run_test(size=(160, 48)) as pilot:
        await until(pilot, lambda: isinstance(app.screen, PickerScreen), workers=True)
        await pilot.press("enter")
        await until(pilot, lambda: isinstance(app.screen, PlayScreen), workers=True)
        app.push_screen = counting_push  # type: ignore[method-assign]
        # As a terminal delivers a burst: both keys are queued before the first is handled.
        for _ in range(2):
            app.post_message(events.Key("escape", None))
        await until(pilot, lambda: bool(depths), workers=True)
        # The second Escape reaches the dialog and cancels it: the instance is still open.
        await until(pilot, lambda: isinstance(app.screen, PlayScreen), workers=True)
        assert max(depths) == 1, depths
