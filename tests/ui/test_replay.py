"""Pilot tests of the replay screen: timeline keys, what the regions show, a real play session."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from textual.widgets import DataTable, Input, Label, Static, TabbedContent, TextArea

from crmtui.factory import build_play_app, build_replay_app
from crmtui.play.session import PlaySession
from crmtui.play.views import Condition, RecordView, TableView, equivalent_query
from crmtui.query import run
from crmtui.record.recorder import Recorder
from crmtui.ui.screens.picker import PickerScreen
from crmtui.ui.screens.play import PlayScreen
from crmtui.ui.screens.replay import ReplayScreen
from crmtui.ui.widgets.answer_box import AnswerBox
from crmtui.ui.widgets.console import QueryConsole
from crmtui.ui.widgets.panels import StatusBar
from crmtui.ui.widgets.record_browser import RecordBrowser
from crmtui.ui.widgets.replay_transcript import ReplayTranscript
from crmtui.ui.widgets.timeline import Timeline
from tests.waiting import until

SIZE = (160, 48)
GOOD = "SELECT Id, Name FROM Issue__c ORDER BY Name LIMIT 3"
BAD = "SELECT Nope FROM Case"


async def _wait(pilot: Any, condition: Any) -> None:
    """Pause ``pilot`` until ``condition()`` holds (a deadline only against a hang)."""
    await until(pilot, condition, workers=True)


def _text(widget: Any) -> str:
    return str(widget.render())


def _human_session(workspace: Any, tmp_path: Path, clock: Any, wall: Any) -> Path:
    """A short human session written through PlaySession on the real sample org."""
    org = workspace.org
    instance = next(iter(workspace.tasks))
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

    def browse(kind: str, view: Any, **payload: Any) -> None:
        clock.advance(2)
        session.record_browse(kind, {**payload, "query": equivalent_query(org.schema, view)})

    browse("open_object", TableView("Case"), object="Case")
    closed = TableView("Case", (Condition("Status", "=", "Closed"),))
    browse("filter", closed, object="Case", field="Status", op="=", value="Closed")
    case_id = run(org, "SELECT Id FROM Case WHERE Status = 'Closed' ORDER BY Id LIMIT 1").records[
        0
    ]["Id"]
    browse("open_record", RecordView("Case", case_id), object="Case", id=case_id)
    clock.advance(3)
    rows = run(org, GOOD, today=session.today).total_size
    session.record_query(GOOD, "soql", rows, 2.0, None, None)
    clock.advance(4)
    session.record_query(BAD, "soql", 0, 1.0, "INVALID_FIELD", "INVALID_FIELD: no Nope")
    clock.advance(1)
    session.answer_edited("None")
    clock.advance(5)
    session.submit("None")
    session.close()
    return session.path


@pytest.fixture
def human_path(workspace: Any, tmp_path: Path, clock: Any, wall: Any) -> Path:
    return _human_session(workspace, tmp_path, clock, wall)


async def test_timeline_keys_move_between_frames(human_path: Path) -> None:
    app = build_replay_app(human_path)
    async with app.run_test(size=SIZE) as pilot:
        await _wait(pilot, lambda: isinstance(app.screen, ReplayScreen))
        screen = app.screen
        types = [e.type for e in screen.events]
        assert types == [
            "open_object",
            "filter",
            "open_record",
            "run_query",
            "run_query",
            "answer_edit",
            "submit",
            "end",
        ]
        timeline = screen.query_one(Timeline)
        assert screen.index == 0 and timeline.position == 0
        await pilot.press("right")
        assert screen.index == 1
        await pilot.press("right", "right")
        assert screen.index == 3
        await pilot.press("left")
        assert screen.index == 2
        await pilot.press("end")
        assert screen.index == 7 and timeline.position == 7
        assert "ENDED (finished)" in screen.query_one(StatusBar).state
        await pilot.press("right")  # clamped at the end
        assert screen.index == 7
        await pilot.press("home")
        assert screen.index == 0
        await pilot.press("q")
        assert screen.index == 3
        await pilot.press("q")
        assert screen.index == 4
        await pilot.press("home", "e")
        assert screen.index == 4
        await pilot.press("home", "s")
        assert screen.index == 6
        table = screen.query_one("#event-list", DataTable)
        assert table.cursor_row == 6
        # Clicking the bar seeks: its left end is the first event, its right end the last.
        await pilot.click(Timeline, offset=(timeline.size.width - 2, 0))
        assert screen.index == 7
        await pilot.click(Timeline, offset=(1, 0))
        assert screen.index == 0


async def test_regions_show_the_frame(human_path: Path, workspace: Any) -> None:
    app = build_replay_app(human_path)
    async with app.run_test(size=SIZE) as pilot:
        await _wait(pilot, lambda: isinstance(app.screen, ReplayScreen))
        screen = app.screen
        browser = screen.query_one(RecordBrowser)
        table = browser.query_one("#records-table", DataTable)
        await _wait(pilot, lambda: table.row_count > 0)
        assert browser.current == TableView("Case")
        assert table.row_count == min(200, workspace.org.count("Case"))
        assert not screen.query_one("#replay-warning").display

        await pilot.press("right")
        await _wait(pilot, lambda: browser.current.conditions)
        assert "Status = Closed" in _text(screen.query_one("#replay-view", Label))

        await pilot.press("right")
        panel = browser.query_one("#record-panel", DataTable)
        await _wait(pilot, lambda: browser.current.kind == "record" and panel.row_count > 0)

        # The good query is re-run through the engine in the console.
        await pilot.press("q")
        console = screen.query_one(QueryConsole)
        results = console.query_one("#console-results", DataTable)
        assert screen.query_one(TabbedContent).active == "tab-console"
        await _wait(pilot, lambda: results.row_count == 3)
        assert console.query_one("#console-editor", TextArea).text == GOOD
        note = screen.query_one("#replay-query-note", Label)
        await _wait(pilot, lambda: "re-run: 3 rows ✔ same" in _text(note))

        # The failed one fails the same way again.
        await pilot.press("e")
        await _wait(pilot, lambda: "re-run: ✘ INVALID_FIELD ✔ same" in _text(note))
        assert results.row_count == 0

        box = screen.query_one(AnswerBox)
        result = box.query_one("#answer-result", Static)
        assert "not submitted yet" in _text(result)
        await pilot.press("s")
        assert box.query_one("#answer-input", Input).value == "None"
        assert "reward" in _text(result) and "gold" in _text(result)
        # Stepping back before the submit hides the reward again.
        await pilot.press("left", "left")
        assert "not submitted yet" in _text(result)

        # Enter on a row of the event list jumps to that event.
        events = screen.query_one("#event-list", DataTable)
        events.focus()
        events.move_cursor(row=1)
        await pilot.press("enter")
        assert screen.index == 1


async def test_layout_fits_120x36(human_path: Path) -> None:
    app = build_replay_app(human_path)
    async with app.run_test(size=(120, 36)) as pilot:
        await _wait(pilot, lambda: isinstance(app.screen, ReplayScreen))
        screen = app.screen
        assert screen.has_class("narrow")
        assert screen.query_one("#replay-main").size.width >= 50
        assert screen.query_one("#event-list").size.height >= 10
        assert screen.query_one(Timeline).region.bottom <= 35
        await pilot.press("q")
        assert screen.index == 3


async def test_space_plays_until_paused(human_path: Path) -> None:
    app = build_replay_app(human_path)
    async with app.run_test(size=SIZE) as pilot:
        await _wait(pilot, lambda: isinstance(app.screen, ReplayScreen))
        screen = app.screen
        timeline = screen.query_one(Timeline)
        for _ in range(4):
            await pilot.press("plus")
        assert screen.speed == 16.0 and timeline.speed == 16.0
        await pilot.press("minus")
        assert screen.speed == 8.0
        # Playback holds its third step until the space below has paused it: how far it got
        # by then is a state, not a race with the timer on a busy machine.
        held: list[Any] = []
        step = screen._play_step

        def gated() -> None:
            if screen.index >= 2:
                held.append(step)
            else:
                step()

        screen._play_step = gated  # type: ignore[method-assign]
        await pilot.press("space")
        assert screen.playing and timeline.playing
        await _wait(pilot, lambda: held)
        await pilot.press("space")
        assert not screen.playing and not timeline.playing
        stopped = screen.index
        held[0]()  # the step that was due: a paused playback does not take it
        await pilot.pause(0.3)
        assert screen.index == stopped == 2
        screen._play_step = step  # type: ignore[method-assign]
        # Playing from the end restarts, and playback stops by itself at the end.
        await pilot.press("plus", "plus", "plus", "end")
        assert screen.speed == 64.0
        seen: list[int] = []
        go = screen.go
        screen.go = lambda index: (seen.append(index), go(index))  # type: ignore[method-assign]
        await pilot.press("space")
        await _wait(pilot, lambda: not screen.playing)
        last = len(screen.events) - 1
        assert screen.index == last and not timeline.playing
        assert seen == list(range(last + 1))


async def test_missing_org_still_replays_events(workspace, tmp_path, clock, wall) -> None:
    path = _human_session(workspace, tmp_path, clock, wall)
    app = build_replay_app(path, org=None)
    app.source = replace(
        app.source,
        org=None,
        check=replace(app.source.check, status="missing", message="org not found: /gone.db"),
    )
    async with app.run_test(size=SIZE) as pilot:
        await _wait(pilot, lambda: isinstance(app.screen, ReplayScreen))
        screen = app.screen
        warning = screen.query_one("#replay-warning", Static)
        assert warning.display and "org not found: /gone.db" in _text(warning)
        assert not screen.query(RecordBrowser) and not screen.query(QueryConsole)
        assert "The org is missing" in _text(screen.query_one("#browser-offline", Static))
        await pilot.press("q")
        offline = _text(screen.query_one("#console-offline", Static))
        assert GOOD in offline and "not re-run" in offline
        await pilot.press("end")
        assert screen.query_one("#answer-input", Input).value == "None"


async def test_agent_session_shows_its_transcript(workspace, tmp_path, clock, wall) -> None:
    instance = next(iter(workspace.tasks))
    rec = Recorder.create(
        tmp_path / "agent.jsonl",
        actor={"kind": "model", "id": "scripted", "strategy": "react"},
        instance=instance,
        org=workspace.org,
        tasks_source="sample",
        today=instance.today,
        wall=wall,
        monotonic=clock,
        fsync=False,
    )
    rec.emit(
        "model_call",
        {
            "prompt_tokens": 10,
            "completion_tokens": 5,
            "cost": 0.5,
            "latency_ms": 1,
            "content": "Look up issues.",
        },
    )
    rec.emit(
        "run_query",
        {
            "text": GOOD,
            "kind": "soql",
            "rows": 3,
            "ms": 1.0,
            "error_code": None,
            "error": None,
            "observation": "[three issues]",
        },
    )
    rec.emit("submit", {"answer": "None", "reward": 1.0, "scoring": "exact_match", "gold": None})
    rec.close("agent submitted", 1.0)
    app = build_replay_app(rec.path)
    async with app.run_test(size=SIZE) as pilot:
        await _wait(pilot, lambda: isinstance(app.screen, ReplayScreen))
        screen = app.screen
        transcript = screen.query_one(ReplayTranscript)
        text = transcript.query_one(Static)
        assert "Look up issues." in _text(text) and "[three issues]" not in _text(text)
        await pilot.press("q")
        assert "[three issues]" in _text(text)
        assert "15 tokens · $0.5000" in screen.query_one(StatusBar).state


async def test_replay_matches_a_session_played_in_the_ui(workspace, play_config, clock, wall):
    app = build_play_app(play_config, workspace=workspace, clock=clock, wall=wall)
    async with app.run_test(size=SIZE) as pilot:
        await _wait(pilot, lambda: isinstance(app.screen, PickerScreen))
        await pilot.press("enter")
        await _wait(pilot, lambda: isinstance(app.screen, PlayScreen))
        screen = app.screen
        browser = screen.query_one(RecordBrowser)
        objects = screen.query_one("#object-list")
        await _wait(pilot, lambda: objects.option_count == 16)
        objects.focus()
        objects.highlighted = [o.id for o in objects._options].index("Case")
        await pilot.press("enter")
        table = screen.query_one("#records-table", DataTable)
        await _wait(pilot, lambda: table.row_count > 0)
        browser.apply_filter(Condition("Status", "=", "Closed"))
        await _wait(pilot, lambda: browser.current.conditions and table.row_count > 0)
        table.focus()
        await pilot.press("enter")
        await _wait(pilot, lambda: browser.current.kind == "record")
        await pilot.press("left_square_bracket")
        await _wait(pilot, lambda: browser.current.kind == "table")
        await pilot.press("f4")
        await pilot.press(*"Closed")
        clock.advance(2)
        await pilot.press("ctrl+s")
        await pilot.pause(0.05)
        await pilot.press("y")
        await _wait(pilot, lambda: screen.session.submitted)
        played_view = replace(browser.current, cursor_row=0)
        path = screen.session.path
        await pilot.press("escape")
    replay_app = build_replay_app(path)
    async with replay_app.run_test(size=SIZE) as pilot:
        await _wait(pilot, lambda: isinstance(replay_app.screen, ReplayScreen))
        replay_screen = replay_app.screen
        await pilot.press("end")
        shown = replay_screen.query_one(RecordBrowser)
        await _wait(pilot, lambda: shown.current is not None)
        assert shown.current == played_view
        assert replay_screen.frame.view == played_view
        assert replay_screen.query_one("#answer-input", Input).value == "Closed"
        assert replay_screen.frame.submission.answer == "Closed"


def test_replay_screen_snapshot(snap_compare, workspace, tmp_path, clock, wall) -> None:
    path = _human_session(workspace, tmp_path, clock, wall)

    async def run_before(pilot: Any) -> None:
        await _wait(pilot, lambda: isinstance(pilot.app.screen, ReplayScreen))
        await pilot.press("q")
        note = pilot.app.screen.query_one("#replay-query-note", Label)
        await _wait(pilot, lambda: "re-run" in _text(note))

    assert snap_compare(build_replay_app(path), terminal_size=SIZE, run_before=run_before)


async def test_stepping_back_before_the_first_browse_clears_the_browser(
    workspace: Any, tmp_path: Path, clock: Any, wall: Any
) -> None:
    session = PlaySession.begin(
        next(iter(workspace.tasks)),
        workspace.org,
        actor={"kind": "human", "id": "ann"},
        tasks_source="sample",
        recordings=tmp_path / "recordings",
        clock=clock,
        wall=wall,
        fsync=False,
    )
    session.start()
    session.record_query(GOOD, "soql", 3, 1.0, None, None)
    view = TableView("Issue__c")
    session.record_browse(
        "open_object", {"object": "Issue__c", "query": equivalent_query(workspace.org.schema, view)}
    )
    session.close("finished")
    app = build_replay_app(session.path)
    async with app.run_test(size=SIZE) as pilot:
        await _wait(pilot, lambda: isinstance(app.screen, ReplayScreen))
        screen = app.screen
        browser = screen.query_one(RecordBrowser)
        table = browser.query_one("#records-table", DataTable)
        await pilot.press("right")
        await _wait(pilot, lambda: table.row_count > 0)
        await pilot.press("left")
        await _wait(pilot, lambda: table.row_count == 0)
        assert browser.current is None
        assert "no browsing yet" in _text(screen.query_one("#replay-view", Label))
