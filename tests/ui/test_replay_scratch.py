"""Replay shows a human's scratch steps, the recorded answer, and the live console's columns."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from textual.widgets import DataTable, Input, Static, TabbedContent

from crmtui.factory import build_replay_app
from crmtui.play.cells import ValueRef
from crmtui.play.compute import ComputeSpec, run_compute
from crmtui.play.session import PlaySession
from crmtui.ui.scenes import settle, wait_for
from crmtui.ui.screens.compute import ComputeTable
from crmtui.ui.widgets.answer_box import AnswerBox
from crmtui.ui.widgets.notes import NotesPane

QUERY = "SELECT OwnerId, CreatedDate, ClosedDate FROM Case WHERE Status = 'Closed'"


def _session(workspace: Any, tmp_path: Path, clock: Any, wall: Any) -> tuple[Path, Any]:
    org = workspace.org
    instance = next(i for i in workspace.tasks if i.task == "handle_time")
    session = PlaySession.begin(
        instance,
        org,
        actor={"kind": "human", "id": "ann"},
        tasks_source="sample",
        recordings=tmp_path / "recordings",
        clock=clock,
        wall=wall,
        fsync=False,
    )
    session.start()
    clock.advance(2)
    session.record_query(QUERY, "soql", 10, 2.0, None, None)
    spec = ComputeSpec("avg", "OwnerId", start="CreatedDate", end="ClosedDate")
    run = run_compute(org, QUERY, spec, session.today)
    clock.advance(2)
    session.scratch.computed(run, source="console", object_name=None)
    fastest = min(run.result.rows, key=lambda row: row[2])[0]
    clock.advance(2)
    session.scratch.copied(ValueRef("compute", "OwnerId"), fastest)
    clock.advance(2)
    session.scratch.notes_edited("= (10 + 20) / 2")
    session.flush_pending(force=True)
    clock.advance(2)
    session.answer_edited(fastest)
    session.submit(fastest)
    session.close("next")
    return session.path, run


async def test_replay_shows_computation_copy_notes_and_no_live_prompts(
    workspace: Any, tmp_path: Path, clock: Any, wall: Any
) -> None:
    path, run = _session(workspace, tmp_path, clock, wall)
    app = build_replay_app(path)
    async with app.run_test(size=(160, 48)) as pilot:
        screen = app.screen
        await settle(pilot)
        # Before any answer: no "Type the answer" prompt, no "F9: next instance".
        answer = screen.query_one("#answer-input", Input)
        assert "Type the answer" not in answer.placeholder
        await pilot.press("c")  # the first scratch step: the computation
        tabs = screen.query_one(TabbedContent)
        await wait_for(pilot, lambda: tabs.active == "tab-scratch")
        table = screen.query_one(ComputeTable)
        assert table.raw_columns == run.result.columns
        assert table.row_count == len(run.result.rows)
        note = str(screen.query_one("#replay-scratch-note", Static).render())
        assert "avg(ClosedDate - CreatedDate (hours)) by OwnerId" in note
        await pilot.press("c")
        await settle(pilot)
        assert "copied   OwnerId = " in str(screen.query_one("#replay-scratch-note").render())
        await pilot.press("c")
        await wait_for(pilot, lambda: tabs.active == "tab-notes")
        notes = screen.query_one(NotesPane)
        assert notes.text == "= (10 + 20) / 2" and notes.results[0] == "= 15"
        assert notes.editor.read_only
        # The console column headers are the live console's (the query re-run).
        await pilot.press("q")
        await wait_for(pilot, lambda: screen.query_one("#console-results", DataTable).row_count)
        headers = [
            str(col.label)
            for col in screen.query_one("#console-results", DataTable).columns.values()
        ]
        assert headers == ["OwnerId", "CreatedDate", "ClosedDate"]
        assert "F9" not in str(screen.query_one(AnswerBox).query_one("#answer-result").render())
