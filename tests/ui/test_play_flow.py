"""Pilot tests: a human plays an instance end to end and every action is recorded."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from textual.widgets import DataTable, TabbedContent

from crmtui.factory import build_play_app
from crmtui.record.verify import load, verify
from crmtui.ui.screens.picker import PickerScreen
from crmtui.ui.screens.play import PlayScreen
from crmtui.ui.widgets.console import QueryConsole
from crmtui.ui.widgets.record_browser import RecordBrowser
from crmtui.ui.widgets.records_table import RecordsTable
from tests.waiting import until

SIZE = (160, 48)


async def _wait(pilot: Any, condition: Any) -> None:
    """Pause ``pilot`` until ``condition()`` holds (a deadline only against a hang)."""
    await until(pilot, condition, workers=True)


def _recording(config: Any, idx: int | None = None) -> Path:
    files = sorted(Path(config.recordings).rglob("*.jsonl"))
    if idx is not None:
        files = [f for f in files if f"-idx{idx}-" in f.name]
    assert files, "no recording written"
    return files[-1]


async def _open_first(pilot: Any) -> PlayScreen:
    app = pilot.app
    await _wait(pilot, lambda: isinstance(app.screen, PickerScreen))
    await pilot.press("enter")
    await _wait(pilot, lambda: isinstance(app.screen, PlayScreen))
    return app.screen


async def test_picker_lists_instances_and_filters_by_type(workspace, play_config, clock, wall):
    app = build_play_app(play_config, workspace=workspace, clock=clock, wall=wall)
    async with app.run_test(size=SIZE) as pilot:
        await _wait(pilot, lambda: isinstance(app.screen, PickerScreen))
        table = app.screen.query_one("#picker-table", DataTable)
        assert table.row_count == len(workspace.tasks)
        app.screen.task_filter = "handle_time"
        app.screen.refresh_rows()
        assert table.row_count == len(workspace.tasks.filter(task="handle_time"))


async def test_browse_query_answer_submit_is_recorded(workspace, play_config, clock, wall):
    app = build_play_app(play_config, workspace=workspace, clock=clock, wall=wall)
    async with app.run_test(size=SIZE) as pilot:
        screen = await _open_first(pilot)
        browser = screen.query_one(RecordBrowser)
        objects = screen.query_one("#object-list")
        await _wait(pilot, lambda: objects.option_count == 16)

        # Open the Case table: the first page loads and the total is known.
        objects.focus()
        objects.highlighted = [o.id for o in objects._options].index("Case")
        await pilot.press("enter")
        table = screen.query_one(RecordsTable)
        await _wait(pilot, lambda: table.row_count > 0)
        assert table.total == workspace.org.count("Case")

        # Sort by the column under the cursor, then open a record and follow a link.
        table.focus()
        await pilot.press("s")
        await _wait(pilot, lambda: browser.current.sort_field == "Id" and table.row_count > 0)
        await pilot.press("enter")
        await _wait(pilot, lambda: browser.current.kind == "record")
        panel = screen.query_one("#record-panel")
        await _wait(pilot, lambda: panel.row_count > 0)
        first_link = next(i for i, link in enumerate(panel._links) if link)
        panel.focus()
        panel.move_cursor(row=first_link)
        await pilot.press("enter")
        await _wait(
            pilot,
            lambda: (
                browser.history.can_go_back
                and browser.current.kind == "record"
                and browser.current.object != "Case"
            ),
        )
        await pilot.press("left_square_bracket")
        await _wait(pilot, lambda: browser.current.object == "Case")

        # Run a console query, then a broken one.
        await pilot.press("f3")
        console = screen.query_one(QueryConsole)
        assert screen.query_one(TabbedContent).active == "tab-console"
        console.set_text("SELECT Id, Name FROM Issue__c ORDER BY Name LIMIT 3")
        await pilot.press("f5")
        results = console.query_one("#console-results", DataTable)
        await _wait(pilot, lambda: results.row_count == 3)
        console.set_text("SELECT Nope FROM Case")
        await pilot.press("f5")
        await _wait(
            pilot, lambda: "INVALID_FIELD" in str(console.query_one("#console-status").render())
        )

        # Answer, submit, confirm.
        await pilot.press("f4")
        await pilot.press(*"None")
        clock.advance(2)
        await pilot.press("ctrl+s")
        await pilot.pause(0.05)
        await pilot.press("y")
        await _wait(pilot, lambda: screen.session.submitted)
        first_idx = screen.session.instance.idx
        # Next opens the next unsolved instance in a new session.
        await pilot.press("f9")
        await _wait(pilot, lambda: isinstance(app.screen, PlayScreen) and app.screen is not screen)
        assert app.screen.session.instance.idx != first_idx

    path = _recording(play_config, first_idx)
    assert verify(path).ok
    rec = load(path)
    types = [e.type for e in rec.events]
    for expected in [
        "open_object",
        "sort",
        "open_record",
        "follow_link",
        "back",
        "run_query",
        "answer_edit",
        "submit",
        "end",
    ]:
        assert expected in types, (expected, types)
    browse = [e for e in rec.events if e.type in {"open_object", "sort", "open_record"}]
    assert all(e.payload["query"].startswith("SELECT") for e in browse)
    queries = [e.payload for e in rec.events if e.type == "run_query"]
    assert queries[0]["rows"] == 3 and queries[0]["error_code"] is None
    assert queries[1]["error_code"] == "INVALID_FIELD"
    submit = next(e for e in rec.events if e.type == "submit")
    assert submit.payload["answer"] == "None"
    assert submit.payload["gold"] == screen.session.instance.answer
    assert rec.events[-1].type == "end"


async def test_pause_hides_the_instance_and_stops_the_clock(workspace, play_config, clock, wall):
    app = build_play_app(play_config, workspace=workspace, clock=clock, wall=wall)
    async with app.run_test(size=SIZE) as pilot:
        screen = await _open_first(pilot)
        clock.advance(10)
        await pilot.press("p")
        await pilot.pause(0.05)
        assert app.screen.__class__.__name__ == "PauseScreen"
        clock.advance(300)
        assert screen.session.active_seconds == 10
        await pilot.press("p")
        await pilot.pause(0.05)
        assert app.screen is screen
        clock.advance(5)
        await pilot.press("tab")
        assert 14.9 < screen.session.active_seconds < 15.1
    events = load(_recording(play_config)).events
    # F7's pause and resume; then the test's app goes away, which (not being the annotator's
    # Ctrl+Q) lets go of the session with a pause that names why.
    assert [(e.type, e.payload) for e in events if e.type in ("pause", "resume")] == [
        ("pause", {}),
        ("resume", {}),
        ("pause", {"reason": "disconnect"}),
    ]


async def test_idle_gap_is_recorded(workspace, play_config, clock, wall):
    app = build_play_app(play_config, workspace=workspace, clock=clock, wall=wall)
    async with app.run_test(size=SIZE) as pilot:
        await _open_first(pilot)
        clock.advance(61)
        await pilot.press("tab")
        await pilot.pause(0.05)
    idle = [e for e in load(_recording(play_config)).events if e.type == "idle"]
    assert len(idle) == 1 and idle[0].payload["seconds"] >= 61


async def test_unfinished_session_is_offered_for_resume(workspace, play_config, clock, wall):
    app = build_play_app(play_config, workspace=workspace, clock=clock, wall=wall)
    async with app.run_test(size=SIZE) as pilot:
        screen = await _open_first(pilot)
        idx = screen.session.instance.idx
        # Simulate a crash: release the file without an end event.
        screen.session.recorder.suspend()
        screen.session.claim.release()  # a dead process holds no claim
        app.session = None
    app2 = build_play_app(play_config, workspace=workspace, clock=clock, wall=wall)
    async with app2.run_test(size=SIZE) as pilot:
        await _wait(pilot, lambda: app2.screen.__class__.__name__ == "ConfirmScreen")
        await pilot.press("y")
        await _wait(pilot, lambda: isinstance(app2.screen, PlayScreen))
        assert app2.screen.session.instance.idx == idx
    path = _recording(play_config)
    assert verify(path).ok
    types = [e.type for e in load(path).events]
    # The app was stopped from outside (not Ctrl+Q): the attempt stays resumable.
    assert "resume" in types and "end" not in types


async def test_ctrl_q_asks_then_keeps_the_attempt_like_an_outside_exit(
    workspace, play_config, clock, wall
):
    from crmtui.record.sessions import find_unfinished
    from crmtui.ui.screens.dialogs import ConfirmScreen

    app = build_play_app(play_config, workspace=workspace, clock=clock, wall=wall)
    async with app.run_test(size=SIZE) as pilot:
        screen = await _open_first(pilot)
        await pilot.press("f4", *"half an answer")
        clock.advance(40)
        await pilot.press("ctrl+q")
        await _wait(pilot, lambda: isinstance(app.screen, ConfirmScreen))
        assert "not submitted" in app.screen.question
        await pilot.press("escape")  # Escape stays (Enter would quit: the key's action)
        await _wait(pilot, lambda: app.screen is screen)
        assert app.is_running and not screen.session.recorder.closed
        await pilot.press("ctrl+q", "ctrl+q")  # asked, and Ctrl+Q again says yes
        await pilot.pause(0.05)
    path = _recording(play_config)
    events = load(path).events
    # Kept to resume, with the draft and the time: the clock stopped with a "quit" pause.
    assert find_unfinished(play_config.recordings) == [path] and verify(path).ok
    assert (events[-1].type, events[-1].payload) == ("pause", {"reason": "quit"})
    assert [e.payload["text"] for e in events if e.type == "answer_edit"][-1] == "half an answer"
    path.unlink()

    app = build_play_app(play_config, workspace=workspace, clock=clock, wall=wall)
    async with app.run_test(size=SIZE) as pilot:
        await _open_first(pilot)
        clock.advance(30)  # 30 s of work (under the idle threshold)
        await pilot.press("f4", *"draft")
        await pilot.pause(0.05)
        app.exit()  # what the web driver does when textual-serve stops a dropped session
        await pilot.pause(0.05)
    path = _recording(play_config)
    assert find_unfinished(play_config.recordings) == [path] and verify(path).ok
    edits = [e for e in load(path).events if e.type == "answer_edit"]
    assert edits[-1].payload["text"] == "draft"  # the pending edit was saved first

    # Resumed as it was left: the answer as typed, the active time already spent.
    clock.advance(600)  # the disconnected time does not count
    app = build_play_app(play_config, workspace=workspace, clock=clock, wall=wall)
    async with app.run_test(size=SIZE) as pilot:
        await _wait(pilot, lambda: app.screen.__class__.__name__ == "ConfirmScreen")
        await pilot.press("y")
        await _wait(pilot, lambda: isinstance(app.screen, PlayScreen))
        session = app.screen.session
        assert app.screen.query_one("#answer-input").value == "draft"
        assert 30 <= session.active_seconds < 31
        await pilot.pause(0.05)
        session.flush_pending(force=True)
        await pilot.press("ctrl+q", "ctrl+q")
        await pilot.pause(0.05)
    types = [e.type for e in load(path).events]
    assert types.count("answer_edit") == len(edits)  # restoring the box records nothing
    assert types[-1] == "pause" and verify(path).ok


async def test_a_hangup_saves_the_typing_and_keeps_the_attempt(workspace, play_config, clock, wall):
    import os
    import signal

    from crmtui.record.sessions import find_unfinished

    app = build_play_app(play_config, workspace=workspace, clock=clock, wall=wall)
    async with app.run_test(size=SIZE) as pilot:
        await _open_first(pilot)
        await pilot.press("f4", *"late")  # still inside the edit debounce window
        await pilot.pause(0.05)
        # The terminal closes: SIGHUP exits the app normally instead of killing it.
        assert signal.getsignal(signal.SIGHUP) not in (signal.SIG_DFL, signal.SIG_IGN, None)
        os.kill(os.getpid(), signal.SIGHUP)
        await pilot.pause(0.2)
    assert signal.getsignal(signal.SIGHUP) in (signal.SIG_DFL, None)  # handler removed
    path = _recording(play_config)
    assert find_unfinished(play_config.recordings) == [path] and verify(path).ok
    edits = [e.payload["text"] for e in load(path).events if e.type == "answer_edit"]
    assert edits == ["late"]


async def test_table_pages_without_duplicates(workspace, play_config, clock, wall):
    app = build_play_app(play_config, workspace=workspace, clock=clock, wall=wall)
    async with app.run_test(size=SIZE) as pilot:
        screen = await _open_first(pilot)
        browser = screen.query_one(RecordBrowser)
        from crmtui.play.views import TableView

        browser.show(TableView("OrderItem"))
        table = screen.query_one(RecordsTable)
        await _wait(pilot, lambda: table.row_count > 0)
        assert table.row_count == 200
        # Scrolling to the end of the loaded rows fetches the next page, once.
        table.focus()
        table.move_cursor(row=199)
        await _wait(pilot, lambda: table.row_count >= 400)
        assert len(set(table.ids)) == len(table.ids) == 400
        assert table.total == workspace.org.count("OrderItem")


async def test_filter_then_back_restores_the_filtered_view(workspace, play_config, clock, wall):
    from crmtui.play.views import TableView
    from crmtui.ui.screens.dialogs import FilterScreen

    app = build_play_app(play_config, workspace=workspace, clock=clock, wall=wall)
    async with app.run_test(size=SIZE) as pilot:
        screen = await _open_first(pilot)
        browser = screen.query_one(RecordBrowser)
        table = screen.query_one(RecordsTable)
        browser.show(TableView("Case"))
        await _wait(pilot, lambda: table.row_count > 0)
        # f asks for a filter on the column under the cursor: Status = Closed.
        table.focus()
        table.move_cursor(column=table.columns_names.index("Status"))
        await pilot.press("f")
        await _wait(pilot, lambda: isinstance(app.screen, FilterScreen))
        await pilot.press(*"Closed")
        await pilot.press("enter")
        await _wait(pilot, lambda: browser.current.conditions and table.row_count > 0)
        closed = table.total
        assert 0 < closed < workspace.org.count("Case")
        # Open the 3rd record, follow its Account link, then go back twice.
        table.move_cursor(row=2, column=0)
        await pilot.press("enter")
        await _wait(pilot, lambda: browser.current.kind == "record")
        panel = screen.query_one("#record-panel")
        await _wait(pilot, lambda: panel.row_count > 0)
        account_row = next(
            i for i, link in enumerate(panel._links) if link and link[1] == "Account"
        )
        panel.focus()
        panel.move_cursor(row=account_row)
        await pilot.press("enter")
        await _wait(
            pilot, lambda: browser.current.kind == "record" and browser.current.object == "Account"
        )
        await pilot.press("left_square_bracket")
        await _wait(
            pilot, lambda: browser.current.kind == "record" and browser.current.object == "Case"
        )
        await pilot.press("left_square_bracket")
        await _wait(pilot, lambda: browser.current.kind == "table" and table.row_count > 0)
        # The filter is back, and so is the cursor row.
        assert browser.current.conditions[0].field == "Status"
        assert table.total == closed
        assert table.cursor_row == 2

    rec = load(_recording(play_config))
    types = [e.type for e in rec.events]
    browse = [t for t in types if t in {"filter", "open_record", "follow_link", "back"}]
    assert browse == ["filter", "open_record", "follow_link", "back", "back"]
    filt = next(e for e in rec.events if e.type == "filter")
    assert filt.payload["field"] == "Status" and filt.payload["value"] == "Closed"
    assert "WHERE Status = 'Closed'" in filt.payload["query"]
    link = next(e for e in rec.events if e.type == "follow_link")
    assert link.payload["to_object"] == "Account" and link.payload["field"] == "AccountId"
    backs = [e for e in rec.events if e.type == "back"]
    assert len(backs) == 2 and "WHERE Status = 'Closed'" in backs[-1].payload["query"]


async def test_report_from_the_picker_counts_a_submitted_session(
    workspace, play_config, clock, wall
):
    from crmtui.ui.screens.report import ReportScreen

    app = build_play_app(play_config, workspace=workspace, clock=clock, wall=wall)
    async with app.run_test(size=SIZE) as pilot:
        screen = await _open_first(pilot)
        gold = screen.session.instance.answer
        screen._submit("None" if gold is None else str(gold))
        await pilot.press("escape")
        await _wait(pilot, lambda: isinstance(app.screen, PickerScreen))
        await pilot.press("R")
        await _wait(pilot, lambda: isinstance(app.screen, ReportScreen))
        report = app.screen.report
        assert [(row.kind, row.actor_id) for row in report.rows] == [("human", "tester")]
        assert len(report.sessions) == 1 and report.sessions[0].idx == screen.session.instance.idx
        await pilot.press("q")
        await _wait(pilot, lambda: isinstance(app.screen, PickerScreen))


async def test_picker_marks_the_ended_session_like_a_rescan_would(
    workspace, play_config, clock, wall
):
    from crmtui.play.progress import actor_progress

    app = build_play_app(play_config, workspace=workspace, clock=clock, wall=wall)
    async with app.run_test(size=SIZE) as pilot:
        screen = await _open_first(pilot)
        idx = screen.session.instance.idx
        screen._submit("certainly wrong")
        await pilot.press("escape")
        await _wait(pilot, lambda: isinstance(app.screen, PickerScreen))
        marked = app.screen.status[idx]
        assert marked.reward == 0.0 and marked.label == "✘ 0.00"
        rescanned = actor_progress(play_config.recordings, "tester", "sample")[idx]
        assert (marked.reward, marked.finished, marked.path) == (
            rescanned.reward,
            rescanned.finished,
            rescanned.path,
        )


async def test_served_sessions_get_a_steady_cursor(workspace, play_config, clock, wall):
    # In a browser each blink is a repaint sent over the network: the cursor stays steady.
    # (run_test is not a web driver, so the app is told; the default follows app.is_web.)
    import dataclasses

    for steady in (None, True):
        # Each in its own folder: the first one's instance is kept to resume.
        config = dataclasses.replace(play_config, recordings=play_config.recordings / str(steady))
        app = build_play_app(config, workspace=workspace, clock=clock, wall=wall)
        app.steady_cursor = steady
        async with app.run_test(size=SIZE) as pilot:
            await _open_first(pilot)
            await pilot.press("f4")
            await pilot.pause(0.05)
            answer = app.screen.query_one("#answer-input")
            assert answer.has_focus
            assert answer.cursor_blink is (steady is None)


async def test_an_outside_exit_after_submitting_ends_the_session(
    workspace, play_config, clock, wall
):
    from crmtui.record.sessions import find_unfinished

    app = build_play_app(play_config, workspace=workspace, clock=clock, wall=wall)
    async with app.run_test(size=SIZE) as pilot:
        screen = await _open_first(pilot)
        await pilot.press("f4", *"x", "ctrl+s")
        await pilot.pause(0.05)
        await pilot.press("y")
        await _wait(pilot, lambda: screen.session.submitted)
        app.exit()  # the tab closes after the answer is in: nothing is left to resume
        await pilot.pause(0.05)
    path = _recording(play_config)
    assert find_unfinished(play_config.recordings) == []
    assert [e.type for e in load(path).events][-2:] == ["submit", "end"]
