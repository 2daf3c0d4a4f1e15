"""Columns show their whole content after every navigation (issue #9's collapsed Ids).

The bug needs a frame painted between ``add_row`` and the table's idle (where Textual
measures auto-width columns); on a busy machine that happens by itself. The tests make it
happen every time by painting the table's lines right after rows are added.
"""

from __future__ import annotations

from typing import Any

from textual.app import App, ComposeResult

from crmtui.factory import build_play_app
from crmtui.ui.screens.picker import PickerScreen
from crmtui.ui.screens.play import PlayScreen
from crmtui.ui.widgets.content_table import ContentTable
from crmtui.ui.widgets.records_table import RecordsTable
from tests.ui.test_play_flow import _wait
from tests.waiting import until


def _painted(table: Any, lines: int = 6) -> list[str]:
    return [table.render_line(y).text for y in range(lines)]


class _OneTable(App[None]):
    CSS = "ContentTable { width: 1fr; height: 1fr; }"

    def compose(self) -> ComposeResult:
        yield ContentTable()


async def test_a_frame_painted_before_the_idle_does_not_keep_label_widths() -> None:
    app = _OneTable()
    async with app.run_test(size=(60, 10)) as pilot:
        table = app.query_one(ContentTable)
        table.add_column("Id", key="Id")
        for record_id in ("500Ws000006ua8JIAQ", "500Ws000006ua8MIAQ", "500Ws000006ua8OIAQ"):
            table.add_row(record_id)
        assert "50 " in _painted(table)[2]  # the frame that sneaks in: label width
        await until(pilot, lambda: "500Ws000006ua8MIAQ" in _painted(table)[2])


async def test_the_reported_steps_show_whole_ids(workspace, play_config, clock, wall, monkeypatch):
    """Open an instance, Esc, y; in the picker t, Enter, Down, Enter; n, F2, Case."""
    append_page = RecordsTable.append_page

    def append_then_paint(self: RecordsTable, ids: list[str], rows: list[list[Any]]) -> None:
        append_page(self, ids, rows)
        _painted(self)  # a frame painted before the table's idle measured its columns

    monkeypatch.setattr(RecordsTable, "append_page", append_then_paint)
    app = build_play_app(play_config, workspace=workspace, clock=clock, wall=wall)
    async with app.run_test(size=(160, 48)) as pilot:
        await _wait(pilot, lambda: isinstance(app.screen, PickerScreen))
        await pilot.press("enter")
        await _wait(pilot, lambda: isinstance(app.screen, PlayScreen))
        await pilot.press("escape")
        await pilot.pause(0.05)
        await pilot.press("y")
        await _wait(pilot, lambda: isinstance(app.screen, PickerScreen))
        picker = app.screen
        for key in ("t", "enter", "down", "enter"):
            await pilot.press(key)
            await pilot.pause(0.05)
        assert picker.task_filter is not None
        await pilot.press("n")
        await _wait(pilot, lambda: isinstance(app.screen, PlayScreen))
        screen = app.screen
        await pilot.press("f2")
        objects = screen.query_one("#object-list")
        await _wait(pilot, lambda: objects.option_count == 16)
        objects.highlighted = [o.id for o in objects._options].index("Case")
        await pilot.press("enter")
        table = screen.query_one(RecordsTable)
        await _wait(pilot, lambda: table.row_count > 0)
        first_id = table.ids[0]
        await until(pilot, lambda: any(first_id in line for line in _painted(table)))
