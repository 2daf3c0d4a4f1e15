"""The console: completion dropdown, errors with a caret and a hint, a lasting history."""

from __future__ import annotations

from crmtui.factory import build_play_app
from crmtui.ui.screens.picker import PickerScreen
from crmtui.ui.screens.play import PlayScreen
from crmtui.ui.widgets.console import QueryConsole
from tests.ui.test_play_flow import _open_first, _wait

SIZE = (160, 48)


async def test_completion_menu_inserts_fields_and_relationship_paths(
    workspace, play_config, clock, wall
):
    app = build_play_app(play_config, workspace=workspace, clock=clock, wall=wall)
    async with app.run_test(size=SIZE) as pilot:
        screen = await _open_first(pilot)
        await pilot.press("f3", *"SELECT Id FROM Ca")
        editor = screen.query_one("#console-editor")
        menu = editor.menu
        assert menu.is_open and menu.chosen().text == "Case"
        await pilot.press("enter")  # Enter inserts instead of a new line
        assert editor.text == "SELECT Id FROM Case" and not menu.is_open
        await pilot.press(*" WHERE Acc")
        items = [item.text for item in menu.completion.items]
        assert items[:2] == ["AccountId", "Account"]
        await pilot.press("down", "tab")  # Tab inserts too; a relationship adds the dot
        assert editor.text.endswith("WHERE Account.") and menu.is_open
        await pilot.press(*"Shipping")
        assert [i.text for i in menu.completion.items] == ["ShippingCity", "ShippingState"]
        await pilot.press("escape")  # closes the menu, stays in the editor
        assert not menu.is_open and editor.has_focus and isinstance(app.screen, PlayScreen)
        await pilot.press("ctrl+space")  # on demand
        assert menu.is_open
        await pilot.press("down", "enter")
        assert editor.text == "SELECT Id FROM Case WHERE Account.ShippingState"
        await pilot.press("left")  # moving the cursor closes it
        assert not menu.is_open
        # Drawn over the editor's lines, under the cursor.
        await pilot.press("end", *" AND Sta")
        await pilot.pause(0.05)
        painted = [editor.render_line(y).text for y in range(3)]
        assert "Status" in painted[1], painted


async def test_errors_are_whole_with_a_caret_and_a_hint(workspace, play_config, clock, wall):
    app = build_play_app(play_config, workspace=workspace, clock=clock, wall=wall)
    async with app.run_test(size=SIZE) as pilot:
        screen = await _open_first(pilot)
        await pilot.press("f3")
        console = screen.query_one(QueryConsole)
        console.set_text("SELECT Id,\n  Subjct FROM Case")
        await pilot.press("f5")
        status = console.query_one("#console-status")
        await _wait(pilot, lambda: "INVALID_FIELD" in str(status.render()))
        lines = str(status.render()).splitlines()
        assert "Please reference your WSDL" in " ".join(lines)  # not cut at the panel edge
        source = lines.index("  Subjct FROM Case")
        assert lines[source + 1] == "  ^"
        assert lines[-1] == "Did you mean Subject?"
        assert status.size.height > len(lines)  # the long message wraps: nothing is cut


async def test_the_history_follows_the_annotator_to_the_next_instance(
    workspace, play_config, clock, wall
):
    app = build_play_app(play_config, workspace=workspace, clock=clock, wall=wall)
    async with app.run_test(size=SIZE) as pilot:
        screen = await _open_first(pilot)
        await pilot.press("f3", *"SELECT Id FROM Issue__c LIMIT 1", "f5")
        results = screen.query_one("#console-results")
        await _wait(pilot, lambda: results.row_count == 1)
        await pilot.press("escape", "y")
        await _wait(pilot, lambda: isinstance(app.screen, PickerScreen))
        app.open_instance(list(workspace.tasks)[5].idx)
        await _wait(pilot, lambda: isinstance(app.screen, PlayScreen) and app.screen is not screen)
        await pilot.press("f3", "ctrl+up")
        assert app.screen.query_one(QueryConsole).text == "SELECT Id FROM Issue__c LIMIT 1"
