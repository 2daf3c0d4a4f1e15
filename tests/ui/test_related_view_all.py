"""A related list opens as a list view with its columns; a related row is shown whole.

Salesforce's "View All" on a related list: every child record, with the list's columns, in a
list view the person can filter, sort and add columns to. Replay folds the recorded events
back to the same view, and ``v``/``Y`` on a related row read the child record's every field.
"""

from __future__ import annotations

from typing import Any

from crmtui.config import PlayConfig
from crmtui.factory import build_play_app
from crmtui.play.views import RecordView, TableView, table_columns
from crmtui.query import run
from crmtui.record.verify import load
from crmtui.review.replay import replay
from tests.ui.annotator import Annotator


async def test_a_related_list_heading_opens_all_of_it_with_its_columns(
    workspace: Any, tmp_path: Any, clock: Any, wall: Any
) -> None:
    org = workspace.org
    account = run(org, "SELECT AccountId FROM Order LIMIT 1").records[0]["AccountId"]
    inst = next(iter(workspace.tasks))
    config = PlayConfig(annotator="tester", recordings=tmp_path / "rec", fsync=False, idx=inst.idx)
    app = build_play_app(config, workspace=workspace, clock=clock, wall=wall)
    async with app.run_test(size=(120, 36)) as pilot:
        a = Annotator(pilot)
        await a.started()
        browser = a.play.query_one("#record-browser")
        browser.open_record("Account", account)
        panel = await a.shown_record()
        heading = min(row for row, rel in panel._more.items() if rel.name == "Orders")
        orders = panel._more[heading]
        # A related row reads the whole child record: its list's columns, then every field.
        first = heading + 1
        ref, names, values = panel.row_at(first)
        assert ref.record == orders.ids[0]
        own = table_columns(org.schema.require("Order"))
        assert names[: 1 + len(orders.columns)] == ["Id", *orders.columns]
        assert set(own) <= set(names)
        whole = run(org, f"SELECT {', '.join(own)} FROM Order WHERE Id = '{orders.ids[0]}'")
        assert {n: v for n, v in zip(names, values, strict=True) if n in own} == {
            n: whole.records[0][n] for n in own
        }
        panel.focus()
        await a.cursor_to_row(panel, heading)
        await a.press("enter")
        table = a.play.query_one("#records-table")
        await a.until(
            lambda: (
                isinstance(browser.current, TableView)
                and browser.current.columns
                and table.columns_names[:3] == ["Id", *orders.columns[:2]]
            )
        )
        shown = browser.current
        assert shown.columns[: len(orders.columns)] == tuple(orders.columns)
        assert (
            table.total
            == run(org, f"SELECT COUNT() FROM Order WHERE AccountId = '{account}'").total_size
        )
        # One step: Back (``[``) from the View All returns to the record at once.
        await a.press("[")
        await a.until(lambda: browser.current == RecordView("Account", account))
        path = a.play.session.path
    frames = replay(load(path)).frames
    # The recorded filter and columns fold to the same view, then Back to the record.
    assert frames[-1].view == RecordView("Account", account)
    assert any(f.view == shown for f in frames)
    assert any(f.view == RecordView("Account", account) for f in frames)
