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


@pytest.mark.parametrize("size", [(160, 48), (80, 24)])
async def test_a_list_views_title_shows_every_filter_whole(
    workspace, play_config, clock, wall, size: tuple[int, int]
):
    """The class: whatever the filters, the view's title (what is filtered) is on the
    screen in full, wrapped, never cut at the panel's edge."""
    from crmtui.play.views import describe

    conditions = (
        Condition("OrderItemId__r.Product2Id", "=", "01tWs000005rmxUIAQ"),
        Condition("CreatedDate", ">=", "2019-10-27"),
        Condition("CreatedDate", "<", "2020-09-27"),
    )
    app = build_play_app(play_config, workspace=workspace, clock=clock, wall=wall)
    async with app.run_test(size=size) as pilot:
        browser, table = await _case_table(pilot)
        view = TableView("Case", conditions=conditions)
        browser.show(view)
        await until(pilot, lambda: browser.current == view and table.columns_names)
        await pilot.pause()
        crumb = app.screen.query_one("#browser-crumb")
        shown = " ".join(
            "".join(seg.text for seg in crumb.render_line(y)).strip()
            for y in range(crumb.size.height)
        )
        assert " ".join(describe(view).split()) == " ".join(shown.split())
        # ... and all of it inside the panel it is drawn in (a wider line is cut there).
        visible = crumb.parent.content_region
        assert crumb.region.right <= visible.right
        assert crumb.region.bottom <= visible.bottom
