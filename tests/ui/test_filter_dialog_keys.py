"""The filter dialog, driven by keys as a person drives it.

The field box starts on the column under the cursor, a suggestion: reaching it and typing
must replace it, whatever column the cursor was on (it used to append, so "product" became
"Idproduct" and matched nothing). And the value box takes a comma-separated list, which
means any of the values (= ) or none of them (!=), as a Salesforce list view filter does.
"""

from __future__ import annotations

from typing import Any

import pytest

from crmtui.factory import build_play_app
from crmtui.play.views import Condition, TableView
from crmtui.query import run
from crmtui.ui.screens.dialogs import FilterScreen
from crmtui.ui.screens.picker import PickerScreen
from crmtui.ui.screens.play import PlayScreen
from crmtui.ui.widgets.field_chooser import FieldChooser
from crmtui.ui.widgets.record_browser import RecordBrowser
from crmtui.ui.widgets.records_table import RecordsTable
from tests.waiting import until

SIZE = (160, 48)


async def _case_table(pilot: Any) -> tuple[RecordBrowser, RecordsTable]:
    app = pilot.app
    await until(pilot, lambda: isinstance(app.screen, PickerScreen), workers=True)
    await pilot.press("enter")
    await until(pilot, lambda: isinstance(app.screen, PlayScreen), workers=True)
    browser = app.screen.query_one(RecordBrowser)
    table = app.screen.query_one(RecordsTable)
    browser.show(TableView("Case"))
    await until(pilot, lambda: table.row_count > 0, workers=True)
    table.focus()
    return browser, table


@pytest.mark.parametrize("column", ["Id", "Status", "OwnerId"])
async def test_typing_in_the_field_box_replaces_the_suggested_column(
    workspace, play_config, clock, wall, column: str
):
    app = build_play_app(play_config, workspace=workspace, clock=clock, wall=wall)
    async with app.run_test(size=SIZE) as pilot:
        browser, table = await _case_table(pilot)
        table.move_cursor(column=table.columns_names.index(column))
        await pilot.press("f")
        await until(pilot, lambda: isinstance(app.screen, FilterScreen))
        chooser = app.screen.query_one("#filter-field", FieldChooser)
        assert chooser.value == column  # the suggestion
        await pilot.press("shift+tab", "shift+tab", *"issueid__r.name", "enter")
        assert chooser.value == "IssueId__r.Name"
        await pilot.press(*"Delayed delivery, Cancel order", "enter")
        want = Condition("IssueId__r.Name", "=", "Delayed delivery, Cancel order")
        await until(pilot, lambda: browser.current.conditions == (want,) and table.total > 0)
        soql = "SELECT Id FROM Case WHERE IssueId__r.Name IN ('Delayed delivery', 'Cancel order')"
        assert table.total == len(run(workspace.org, soql).records)


async def test_an_arrow_key_keeps_the_suggestion_to_edit_it(workspace, play_config, clock, wall):
    app = build_play_app(play_config, workspace=workspace, clock=clock, wall=wall)
    async with app.run_test(size=SIZE) as pilot:
        browser, table = await _case_table(pilot)
        table.move_cursor(column=table.columns_names.index("Status"))
        await pilot.press("f")
        await until(pilot, lambda: isinstance(app.screen, FilterScreen))
        chooser = app.screen.query_one("#filter-field", FieldChooser)
        await pilot.press("shift+tab", "shift+tab", "end", *"__x")
        assert chooser.query_one("Input").value == "Status__x"
