"""Keys work in every widget, the editor included; help and palette come from the bindings."""

from __future__ import annotations

from typing import Any

from textual.widgets import TabbedContent

from crmtui.factory import build_play_app
from crmtui.play.views import TableView
from crmtui.ui.keys import key_commands, keys_text
from crmtui.ui.screens.dialogs import HelpScreen, PauseScreen, PickScreen
from crmtui.ui.screens.picker import PickerScreen
from crmtui.ui.widgets.records_table import RecordsTable
from tests.ui.test_play_flow import _open_first, _wait

SIZE = (160, 48)


async def _in_editor(pilot: Any, text: str) -> Any:
    await pilot.press("f3")
    editor = pilot.app.screen.query_one("#console-editor")
    assert editor.has_focus
    await pilot.press(*text)
    return editor


async def test_global_keys_work_inside_the_editor(workspace, play_config, clock, wall):
    app = build_play_app(play_config, workspace=workspace, clock=clock, wall=wall)
    async with app.run_test(size=SIZE) as pilot:
        screen = await _open_first(pilot)
        editor = await _in_editor(pilot, "SELECT Id FROM Case")
        # F7 pauses (Textual's TextArea would select all); the text is untouched.
        await pilot.press("f7")
        await _wait(pilot, lambda: isinstance(app.screen, PauseScreen))
        await pilot.press("f7")
        await _wait(pilot, lambda: app.screen is screen)
        assert editor.text == "SELECT Id FROM Case" and editor.selected_text == ""
        # F6 opens the query history (Textual's TextArea would select the line).
        await pilot.press("f5")
        await _wait(pilot, lambda: screen.query_one("#console-results").row_count > 0)
        editor.focus()
        await pilot.press("f6")
        await _wait(pilot, lambda: isinstance(app.screen, PickScreen))
        await pilot.press("escape")
        await _wait(pilot, lambda: app.screen is screen)
        assert editor.text == "SELECT Id FROM Case"
        # F2 and F4 leave the editor; F1 opens the help from it.
        editor.focus()
        await pilot.press("f4")
        assert screen.query_one("#answer-input").has_focus
        editor.focus()
        await pilot.press("f2")
        assert screen.query_one(TabbedContent).active == "tab-browse"
        editor.focus()
        await pilot.press("f1")
        await _wait(pilot, lambda: isinstance(app.screen, HelpScreen))


async def test_tab_leaves_the_editor_for_the_results(workspace, play_config, clock, wall):
    app = build_play_app(play_config, workspace=workspace, clock=clock, wall=wall)
    async with app.run_test(size=SIZE) as pilot:
        screen = await _open_first(pilot)
        editor = await _in_editor(pilot, "SELECT Id FROM User")
        await pilot.press("tab")
        assert screen.query_one("#console-results").has_focus
        assert editor.text == "SELECT Id FROM User"
        await pilot.press("shift+tab")
        assert editor.has_focus
        await pilot.press("ctrl+a")
        assert editor.selected_text == "SELECT Id FROM User"


async def test_sort_uses_the_column_under_the_cell_cursor(workspace, play_config, clock, wall):
    app = build_play_app(play_config, workspace=workspace, clock=clock, wall=wall)
    async with app.run_test(size=SIZE) as pilot:
        screen = await _open_first(pilot)
        browser = screen.query_one("#record-browser")
        browser.show(TableView("Case"))
        table = screen.query_one(RecordsTable)
        await _wait(pilot, lambda: table.row_count > 0)
        table.focus()
        await pilot.press("right", "right")
        column = table.columns_names[2]
        await pilot.press("s")
        await _wait(pilot, lambda: browser.current.sort_field == column)
        await _wait(pilot, lambda: table.row_count > 0)
        table.move_cursor(row=0, column=2)
        await pilot.press("s")
        await _wait(pilot, lambda: browser.current.sort_desc)
        # Enter on any cell opens the row's record.
        table.move_cursor(row=1, column=3)
        record_id = table.ids[1]
        await pilot.press("enter")
        await _wait(pilot, lambda: getattr(browser.current, "record_id", None) == record_id)


async def test_help_and_palette_list_each_command_once(workspace, play_config, clock, wall):
    app = build_play_app(play_config, workspace=workspace, clock=clock, wall=wall)
    async with app.run_test(size=SIZE) as pilot:
        await _wait(pilot, lambda: isinstance(app.screen, PickerScreen))
        picker_keys = {c.description: keys_text(c) for c in key_commands(app.screen)}
        assert picker_keys["Next unsolved"] == "n" and picker_keys["Task filter"] == "t"
        screen = await _open_first(pilot)
        commands = key_commands(screen)
        described = {c.description: keys_text(c) for c in commands}
        assert described["Pause"] == "F7 p"
        assert described["Run query"] == "F5 Ctrl+R"
        assert described["History"] == "F6"
        titles = [c.title for c in app.get_system_commands(screen)]
        assert len(titles) == len(set(titles)), titles
        assert titles.count("Quit") == 1 and "Pause" in titles and "Run query" in titles


async def test_a_burst_of_keys_after_an_f_key_lands_in_the_new_widget(
    workspace, play_config, clock, wall
):
    """A terminal can deliver F4, the answer and Ctrl+S in one read (a fast typist, a
    paste): the answer must reach the box and the submit must see it."""
    from textual import events

    from crmtui.ui.screens.dialogs import ConfirmScreen

    app = build_play_app(play_config, workspace=workspace, clock=clock, wall=wall)
    async with app.run_test(size=SIZE) as pilot:
        screen = await _open_first(pilot)
        for key, char in [("f3", None), ("S", "S"), ("f4", None)]:
            app.post_message(events.Key(key, char))
        for char in "May":
            app.post_message(events.Key(char, char))
        app.post_message(events.Key("ctrl+s", None))
        # Until its buttons are mounted: leaving mid-mount fails the dialog's on_mount.
        await _wait(
            pilot, lambda: isinstance(app.screen, ConfirmScreen) and app.screen.query("#yes")
        )
        assert "Submit this answer?\n\n  [b]May[/b]\n" in app.screen.question
        assert screen.query_one("#console-editor").text == "S"
