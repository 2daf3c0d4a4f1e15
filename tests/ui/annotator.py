"""A scripted annotator: drives the play app with keys only, the way a person would.

It reads what is on screen (widget contents, a table's rows, the compute result) to decide
where to move the cursor, but it acts only through key presses: no call into the session,
the browser or the query engine. Shared by the per-task-type Pilot tests.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from textual import events
from textual.widgets import Input, OptionList, Select

from crmtui.ui.scenes import wait_for
from crmtui.ui.screens.compute import ComputeScreen, ComputeTable
from crmtui.ui.screens.dialogs import ConfirmScreen, FilterScreen
from crmtui.ui.screens.play import PlayScreen
from crmtui.ui.screens.viewer import ValueViewerScreen
from crmtui.ui.widgets.field_chooser import FieldChooser

# Characters Textual's key names spell out (pilot.press takes key names).
_KEY_NAMES = {" ": "space", "\n": "enter"}


class Annotator:
    """Keys in, screen contents out."""

    def __init__(self, pilot: Any) -> None:
        self.pilot = pilot
        self.app = pilot.app

    # -- basics ----------------------------------------------------------------------------

    @property
    def play(self) -> PlayScreen:
        """The play screen (under any dialog)."""
        return next(s for s in self.app.screen_stack if isinstance(s, PlayScreen))

    async def _settle(self) -> None:
        # No fixed sleep: ``until`` waits for whatever a key press set off.
        await self.app.workers.wait_for_complete()
        await self.pilot.pause()

    async def press(self, *keys: str) -> None:
        """Press keys, then let workers and messages settle."""
        await self.pilot.press(*keys)
        await self._settle()

    async def type(self, text: str) -> None:
        """Type ``text`` character by character."""
        await self.pilot.press(*(_KEY_NAMES.get(ch, ch) for ch in text))
        await self._settle()

    async def paste(self, text: str) -> None:
        """Paste ``text`` (a terminal's bracketed paste: the app hands it to the focus)."""
        assert self.app.focused is not None
        self.app.post_message(events.Paste(text))
        await self._settle()

    async def until(self, condition: Callable[[], bool]) -> None:
        """Wait until the screen shows what ``condition`` checks."""
        await wait_for(self.pilot, condition)

    async def started(self) -> PlayScreen:
        """Wait for the play screen with the object list filled."""
        await self.until(lambda: isinstance(self.app.screen, PlayScreen))
        screen = self.app.screen
        await self.until(lambda: screen.query_one("#object-list").option_count > 0)
        return screen

    # -- browsing --------------------------------------------------------------------------

    async def open_object(self, name: str) -> None:
        """``o``, arrow keys to ``name`` in the object list, Enter."""
        await self.press("f2")
        await self.press("o")
        objects = self.play.query_one("#object-list", OptionList)
        target = [objects.get_option_at_index(i).id for i in range(objects.option_count)].index(
            name
        )
        current = objects.highlighted or 0  # the list starts on its first object
        key = "down" if target > current else "up"
        await self.press(*[key] * abs(target - current))
        await self.press("enter")
        table = self.play.query_one("#records-table")
        browser = self.play.query_one("#record-browser")
        await self.until(
            lambda: (
                browser.current is not None
                and browser.current.kind == "table"
                and browser.current.object == name
                and table.row_count > 0
            )
        )

    async def filter_table(self, field: str, value: str | None = None) -> None:
        """``f``, choose ``field`` in the dialog, paste ``value``, Enter.

        Pasted (a terminal's paste of text selected on screen): typing 18 characters of an
        Id redraws the dialog 18 times and tests nothing more. Without ``value``: Ctrl+V,
        which pastes what was copied last (``y``).
        """
        table = self.play.query_one("#records-table")
        before = table.total
        await self.press("f")
        await self.until(lambda: isinstance(self.app.screen, FilterScreen))
        dialog = self.app.screen
        chooser = dialog.query_one("#filter-field", FieldChooser)
        if chooser.value != field:
            await self.press("shift+tab", "shift+tab")  # value box -> operator -> field
            await self.press("ctrl+u")  # the box keeps its text on focus: clear it
            await self.paste(field)
            await self.press("enter")  # takes the field and moves to the value box
        await self.until(lambda: isinstance(self.app.focused, Input))
        if value is None:
            await self.press("ctrl+v")
        else:
            await self.paste(value)
        await self.press("enter")
        browser = self.play.query_one("#record-browser")
        await self.until(
            lambda: (
                isinstance(self.app.screen, PlayScreen)
                and bool(browser.current.conditions)
                and (table.total != before or table.row_count > 0)
            )
        )

    async def add_filter(self, field: str, op: str, value: str) -> None:
        """``f``; type ``field`` in the field box (any path through lookups), choose ``op``,
        paste ``value``, Enter; waits for the table with the new condition."""
        browser = self.play.query_one("#record-browser")
        table = self.play.query_one("#records-table")
        before = len(browser.current.conditions)
        await self.press("f")
        await self.until(lambda: isinstance(self.app.screen, FilterScreen))
        dialog = self.app.screen
        # value box -> operator -> field; the suggested column is selected, typing replaces it
        await self.press("shift+tab", "shift+tab")
        await self.paste(field)
        await self.press("enter")  # takes the field, moves to the value box
        assert dialog.query_one("#filter-field", FieldChooser).value.lower() == field.lower()
        await self.press("shift+tab")
        await self.choose(dialog.query_one("#filter-op", Select), op)
        await self.press("tab")
        await self.paste(value)
        await self.press("enter")
        await self.until(
            lambda: (
                isinstance(self.app.screen, PlayScreen)
                and len(browser.current.conditions) == before + 1
                and table.columns_names
            )
        )

    async def choose_columns(self, *paths: str) -> None:
        """``C``; for each path, type it in the filter box, Enter (the list), Enter (adds
        it); Ctrl+S applies. Waits for the table with those columns."""
        from crmtui.ui.screens.columns import ColumnsScreen

        await self.press("C")
        await self.until(lambda: isinstance(self.app.screen, ColumnsScreen))
        dialog = self.app.screen
        box = dialog.query_one("#columns-filter", Input)
        for path in paths:
            if self.app.focused is not box:
                await self.press("shift+tab")  # from the list back to the filter box
            await self.until(lambda: self.app.focused is box)
            await self.press("ctrl+u")
            await self.paste(path)
            await self.press("enter")
            options = dialog.query_one("#columns-list", OptionList)
            ids = [options.get_option_at_index(i).id for i in range(options.option_count)]
            assert path in ids, (box.value, ids[:5], self.app.focused)
            await self.press(*["down"] * ids.index(path))
            await self.press("enter")
            assert path in dialog.chosen
        await self.press("ctrl+s")
        table = self.play.query_one("#records-table")
        await self.until(
            lambda: (
                isinstance(self.app.screen, PlayScreen)
                and all(p in table.columns_names for p in paths)
            )
        )

    async def choose(self, select: Select, value: Any) -> None:
        """Open a focused Select (Enter), arrow to ``value``, Enter."""
        await self.until(lambda: self.app.focused is select)
        values = [v for _, v in select._options]  # what the drop-down lists, in order
        await self.press("enter")
        await self.until(lambda: select.expanded)
        current = values.index(select.value) if select.value in values else 0
        target = values.index(value)
        if abs(target - current) > 6 and isinstance(value, str):
            # Far down a long list: type the value, as a person would (type to search).
            await self.pilot.press(*(_KEY_NAMES.get(ch, ch) for ch in value))
            await self._settle()
            await self.press("enter")
            if select.value == value:
                return
            await self.press("enter")
            await self.until(lambda: select.expanded)
            current = values.index(select.value) if select.value in values else 0
        key = "down" if target > current else "up"
        await self.press(*[key] * abs(target - current))
        await self.press("enter")
        await self.until(lambda: select.value == value)

    async def cursor_to_row(self, table: Any, row: int) -> None:
        """PageDown/PageUp while far, then arrow keys until ``table``'s cursor is on ``row``."""
        while abs(row - table.cursor_coordinate.row) > 12:
            before = table.cursor_coordinate.row
            await self.press("pagedown" if row > before else "pageup")
            if table.cursor_coordinate.row == before:
                break
            if (row - before) * (row - table.cursor_coordinate.row) < 0:
                break  # jumped past it: the arrows come back
        table_row = table.cursor_coordinate.row
        key = "down" if row > table_row else "up"
        await self.press(*[key] * abs(row - table_row))
        await self.until(lambda: table.cursor_coordinate.row == row)

    async def cursor_to_column(self, table: Any, column: int) -> None:
        """Arrow keys until ``table``'s (cell) cursor is in ``column``."""
        now = table.cursor_coordinate.column
        key = "right" if column > now else "left"
        await self.press(*[key] * abs(column - now))
        await self.until(lambda: table.cursor_coordinate.column == column)

    async def open_record_row(self, row: int) -> None:
        """Move to ``row`` of the browser table and press Enter."""
        table = self.play.query_one("#records-table")
        await self.until(lambda: self.app.focused is table)
        await self.cursor_to_row(table, row)
        await self.press("enter")
        await self.shown_record()

    async def shown_record(self) -> Any:
        """Wait for the record view to show its record; returns the panel."""
        browser = self.play.query_one("#record-browser")
        panel = self.play.query_one("#record-panel")
        await self.until(
            lambda: (
                browser.current is not None
                and browser.current.kind == "record"
                and panel.detail is not None
                and panel.detail.record_id == browser.current.record_id
            )
        )
        return panel

    async def follow_panel_row(self, row: int) -> Any:
        """In the record view, move to ``row`` and press Enter (follow the link there)."""
        panel = self.play.query_one("#record-panel")
        start = panel.detail.record_id
        await self.cursor_to_row(panel, row)
        await self.press("enter")
        await self.until(lambda: panel.detail is not None and panel.detail.record_id != start)
        return await self.shown_record()

    async def copy_context_id(self) -> str:
        """Click the task context, press ``y``; returns the Id the notice says was copied."""
        await self.pilot.click("#metadata-panel")
        await self.press("y")
        register = self.play.session.scratch.register
        assert register is not None and register.ref.source == "context"
        return register.text

    # -- console ---------------------------------------------------------------------------

    async def run_query(self, text: str) -> Any:
        """F3, delete the last query, paste ``text``, F5; returns the results table."""
        await self.press("f3")
        console = self.play.query_one("#query-console")
        editor = console.query_one("#console-editor")
        await self.until(lambda: self.app.focused is editor)
        while editor.text:  # the last query is one line: delete it
            await self.press("ctrl+shift+k")
        await self.paste(text)
        await self.until(lambda: editor.text == text)
        await self.press("f5")
        await self.until(lambda: console.last_query == text)
        return console.query_one("#console-results")

    # -- workbench tools -------------------------------------------------------------------

    async def compute(
        self,
        *,
        group: str | None = None,
        aggregate: str | None = None,
        measure: str | None = None,
        group2: str | None = None,
        start: str | None = None,
        end: str | None = None,
    ) -> ComputeTable:
        """Ctrl+L, set the form's choices that differ from its defaults, F5; the result.

        A field choice: Tab to its box, clear it, type (paste) the name, Enter; the
        aggregate is a drop-down."""
        await self.press("ctrl+l")
        await self.until(lambda: isinstance(self.app.screen, ComputeScreen))
        dialog = self.app.screen
        for control_id, value in (
            ("compute-group", group),
            ("compute-group2", group2),
            ("compute-aggregate", aggregate),
            ("compute-measure", measure),
            ("compute-start", start),
            ("compute-end", end),
        ):
            if control_id == "compute-aggregate":
                select = dialog.query_one("#compute-aggregate", Select)
                if value is not None and select.value != value:
                    while self.app.focused is not select:
                        await self.press("tab")
                    await self.choose(select, value)
                continue
            chooser = dialog.chooser(control_id)
            if value is None or chooser.value == value:
                continue
            box = chooser.query_one(Input)
            while self.app.focused is not box:
                await self.press("tab")
            await self.press("ctrl+u")
            await self.paste(value)
            await self.press("enter")
            await self.until(lambda c=chooser, v=value: c.value == v)
        await self.press("f5")
        table = dialog.query_one(ComputeTable)
        await self.until(lambda: dialog.last_run is not None and self.app.focused is table)
        return table

    async def copy_cell(self, table: Any, row: int, column: int) -> None:
        """Move the cursor to a cell and press ``y``."""
        await self.cursor_to_row(table, row)
        if table.cursor_type == "cell":
            await self.cursor_to_column(table, column)
        await self.press("y")

    async def close_dialog(self) -> None:
        """Escape back to the play screen (a viewer's open find box takes one Escape more)."""
        viewer = self.app.screen
        if isinstance(viewer, ValueViewerScreen) and viewer.find_open:
            await self.press("escape")
            assert self.app.screen is viewer and not viewer.find_open
        await self.press("escape")
        await self.until(lambda: isinstance(self.app.screen, PlayScreen))

    async def view_value(self) -> ValueViewerScreen:
        """``v`` on the focused table; returns the viewer."""
        await self.press("v")
        await self.until(lambda: isinstance(self.app.screen, ValueViewerScreen))
        return self.app.screen

    # -- answering -------------------------------------------------------------------------

    async def answer_with_register(self) -> None:
        """F4, Ctrl+T (insert what was copied)."""
        await self.press("f4")
        await self.press("ctrl+t")

    async def answer_by_typing(self, text: str) -> None:
        """F4 and type ``text``."""
        await self.press("f4")
        await self.type(text)

    async def submit(self) -> float:
        """Ctrl+S, confirm with ``y``; returns the reward shown."""
        await self.press("ctrl+s")
        await self.until(lambda: isinstance(self.app.screen, ConfirmScreen))
        await self.press("y")
        await self.until(lambda: self.play.session.score is not None)
        return self.play.session.score.reward
