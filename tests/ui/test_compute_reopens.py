"""The compute tool reopens as the person left it, as a Salesforce report keeps its groups
and measure while its filters change: routing a case takes three counts by owner over three
filters, and each Ctrl+L used to start again on "avg of a duration"."""

from __future__ import annotations

from dataclasses import replace

import pytest

from crmtui.factory import build_play_app
from crmtui.play.compute import ComputeSpec
from crmtui.play.views import Condition, TableView
from crmtui.ui.screens.compute import ComputeScreen
from tests.ui.annotator import Annotator

SPECS = [
    dict(group="OwnerId", aggregate="count"),
    dict(group="month_in_year(CreatedDate)", group2="Status", aggregate="count"),
    dict(group="Account.ShippingState", aggregate="max"),  # max of the default duration
]


@pytest.mark.parametrize("index", range(len(SPECS)))
async def test_ctrl_l_reopens_on_the_last_summary_of_that_object(
    workspace, play_config, clock, wall, index: int
):
    config = replace(play_config, idx=10)
    app = build_play_app(config, workspace=workspace, clock=clock, wall=wall)
    async with app.run_test(size=(160, 48)) as pilot:
        a = Annotator(pilot)
        await a.started()
        await a.open_object("Case")
        await a.compute(**SPECS[index])
        asked: ComputeSpec = app.screen.last_run.spec
        await a.press("escape")
        # A filter changes the rows, not the report: Ctrl+L shows the same summary, and F5
        # computes it over the filtered rows.
        await a.add_filter("Status", "=", "Closed")
        await a.press("ctrl+l")
        await a.until(lambda: isinstance(app.screen, ComputeScreen))
        assert app.screen.spec() == asked
        await a.press("escape")
        # Another object has its own report: the defaults, not this one's.
        browser = app.screen.query_one("#record-browser")
        browser.show(TableView("Account", conditions=(Condition("ShippingState", "=", "CA"),)))
        await a.until(lambda: browser.current.object == "Account")
        await a.press("ctrl+l")
        await a.until(lambda: isinstance(app.screen, ComputeScreen))
        assert app.screen.previous is None
