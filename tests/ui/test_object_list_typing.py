"""After ``o``, typing an object's name (or its start) on the object list finds it, and sets
off no key of the play screen: the list takes the letters (``p`` would pause, ``n`` warn, ``c`` open
the console, ``a`` the answer box), as Salesforce's App Launcher takes a typed name."""

from __future__ import annotations

from typing import Any

from textual.widgets import OptionList

from crmtui.config import PlayConfig
from crmtui.factory import build_play_app
from crmtui.ui.screens.play import PlayScreen
from tests.ui.annotator import Annotator


async def test_typing_any_object_name_on_the_list_highlights_it_and_nothing_else(
    workspace: Any, tmp_path: Any, clock: Any, wall: Any
) -> None:
    config = PlayConfig(annotator="tester", recordings=tmp_path / "r", fsync=False, idx=0)
    app = build_play_app(config, workspace=workspace, clock=clock, wall=wall)
    async with app.run_test(size=(160, 48)) as pilot:
        a = Annotator(pilot)
        await a.started()
        objects = a.play.query_one("#object-list", OptionList)
        # Before o the screen's letter keys work as ever (the list has the focus at first).
        assert not objects.armed
        await a.press("f2", "o")
        await a.until(lambda: app.focused is objects and objects.armed)
        names = [objects.get_option_at_index(i).id for i in range(objects.option_count)]
        assert len(names) > 10
        for name in names:
            await a.press(*name)
            assert isinstance(app.screen, PlayScreen), name  # not paused, no dialog
            assert app.focused is objects, (name, app.focused)
            assert objects.get_option_at_index(objects.highlighted).id == name, (
                name,
                objects.typed,
                objects.highlighted,
            )
            assert not app._notifications, name  # no "Submit an answer first"
            await a.press("down")  # an arrow: the next letters start a new name
            assert objects.typed == ""
        # Backspace takes a letter back; a letter no name continues starts a new name.
        await a.press(*"orderi")
        assert objects.get_option_at_index(objects.highlighted).id == "OrderItem"
        await a.press("backspace")
        assert objects.typed == "order"
        assert objects.get_option_at_index(objects.highlighted).id == "Order"
        await a.press(*"us")  # no name starts "orderu": "u" begins "User"
        assert objects.typed == "us"
        assert objects.get_option_at_index(objects.highlighted).id == "User"
        # Enter opens the one found.
        await a.press("down", *"Case", "enter")
        browser = a.play.query_one("#record-browser")
        await a.until(
            lambda: (
                browser.current is not None and getattr(browser.current, "object", None) == "Case"
            )
        )
