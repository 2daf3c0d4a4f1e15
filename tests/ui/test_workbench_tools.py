"""Pilot tests of the workbench tools on their own: notes come back on resume, reading in the
viewer keeps the clock active, the register goes into the console editor too."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from crmtui.config import PlayConfig
from crmtui.factory import build_play_app
from crmtui.play.session import PlaySession
from crmtui.record.verify import load
from crmtui.ui.screens.dialogs import ConfirmScreen
from crmtui.ui.screens.viewer import VIEWER, ValueViewerScreen
from crmtui.ui.widgets.notes import NotesPane
from tests.ui.annotator import Annotator

SIZE = (120, 36)


def _config(tmp_path: Path, idx: int | None = None) -> PlayConfig:
    return PlayConfig(annotator="tester", recordings=tmp_path / "recordings", fsync=False, idx=idx)


@asynccontextmanager
async def _annotating(
    workspace: Any, tmp_path: Path, clock: Any, wall: Any, idx: int = 0
) -> AsyncIterator[Annotator]:
    """The play app on instance ``idx``, its play screen started, driven by an Annotator."""
    app = build_play_app(_config(tmp_path, idx), workspace=workspace, clock=clock, wall=wall)
    async with app.run_test(size=SIZE) as pilot:
        a = Annotator(pilot)
        await a.started()
        yield a


async def test_resuming_a_crashed_session_brings_the_notes_back(
    workspace: Any, tmp_path: Path, clock: Any, wall: Any
) -> None:
    instance = next(iter(workspace.tasks))
    session = PlaySession.begin(
        instance,
        workspace.org,
        actor={"kind": "human", "id": "tester"},
        tasks_source=workspace.tasks_label,
        recordings=tmp_path / "recordings",
        clock=clock,
        wall=wall,
        fsync=False,
    )
    session.start()
    session.scratch.notes_edited("nj = (1049 + 977) / 2\n= nj / 60")
    session.flush_pending(force=True)
    session.recorder.suspend()  # the process died here

    app = build_play_app(_config(tmp_path), workspace=workspace, clock=clock, wall=wall)
    async with app.run_test(size=SIZE) as pilot:
        a = Annotator(pilot)
        await a.until(lambda: isinstance(app.screen, ConfirmScreen))
        await a.press("enter")  # Resume
        screen = await a.started()
        notes = screen.query_one(NotesPane)
        assert notes.text == "nj = (1049 + 977) / 2\n= nj / 60"
        assert notes.results == ["= 1013", "= 16.883333"]
        await a.press("ctrl+n")
        await a.type("x")  # an edit after resuming is recorded as the whole text again
        edited = notes.text
        assert edited != "nj = (1049 + 977) / 2\n= nj / 60"
    # Quitting closed the session, flushing the pending edit.
    events = load(session.path).events
    kinds = [e.type for e in events]
    assert kinds[kinds.index("resume") :].count("note_edit") == 1
    assert [e for e in events if e.type == "note_edit"][-1].payload["text"] == edited


async def test_reading_in_the_viewer_is_activity_not_idle(
    workspace: Any, tmp_path: Path, clock: Any, wall: Any
) -> None:
    idx = next(i.idx for i in workspace.tasks if i.task == "knowledge_qa")
    app = build_play_app(_config(tmp_path, idx), workspace=workspace, clock=clock, wall=wall)
    async with app.run_test(size=SIZE) as pilot:
        a = Annotator(pilot)
        screen = await a.started()
        await a.open_object("Knowledge__kav")
        await a.press("enter")
        panel = await a.shown_record()
        await a.cursor_to_row(panel, [f.name for f in panel.detail.fields].index("FAQ_Answer__c"))
        viewer = await a.view_value()
        assert isinstance(viewer, ValueViewerScreen)
        for _ in range(4):  # four minutes of reading, a key every 50 s
            clock.advance(50)
            await a.press("down")
        await a.close_dialog()
        assert screen.session.active_seconds >= 200
        path = screen.session.path
    events = load(path).events
    assert "idle" not in [e.type for e in events]
    viewed = next(e for e in events if e.type == "view_value")
    assert (
        viewed.payload["field"] == "FAQ_Answer__c" and viewed.payload["object"] == "Knowledge__kav"
    )


async def test_one_viewer_is_mounted_ahead_and_shows_each_value_afresh(
    workspace: Any, tmp_path: Path, clock: Any, wall: Any
) -> None:
    """The app's viewer is ready before the first v; a second value opens at its own top,
    with the first value's find closed and its highlights gone."""
    idx = next(i.idx for i in workspace.tasks if i.task == "knowledge_qa")
    app = build_play_app(_config(tmp_path, idx), workspace=workspace, clock=clock, wall=wall)
    async with app.run_test(size=SIZE) as pilot:
        a = Annotator(pilot)
        await a.started()
        await a.until(lambda: app.is_screen_installed(VIEWER) and app.get_screen(VIEWER).is_mounted)
        await a.open_object("Knowledge__kav")
        await a.press("enter")
        panel = await a.shown_record()
        names = [f.name for f in panel.detail.fields]
        await a.cursor_to_row(panel, names.index("FAQ_Answer__c"))
        first = await a.view_value()
        assert first is app.get_screen(VIEWER)
        answer = panel.detail.fields[names.index("FAQ_Answer__c")].value
        word = answer.split()[0]
        await a.press("slash")
        await a.type(word)
        await a.press("enter")
        assert first.view.matches
        await a.press("escape")  # closes the find box only, and its highlights
        assert app.screen is first and not first.find_open and not first.view.matches
        assert first.focused is first.view
        await a.close_dialog()
        await a.cursor_to_row(panel, names.index("Title"))
        second = await a.view_value()
        title = panel.detail.fields[names.index("Title")].value
        assert second is first
        assert second.text == title and second.view.text == title.strip()
        assert "Knowledge__kav.Title" in str(second.query_one("#viewer-title").render())
        assert second.view.matches == [] and second.view.scroll_offset.y == 0
        assert not second.query_one("#viewer-find").has_class("open")
        assert second.find_box is not None and second.find_box.value == ""
        assert str(second.query_one("#viewer-matches").render()) == ""
        assert second.focused is second.view
        await a.press("slash")  # the find box opens again, empty
        assert second.find_open and second.focused is second.find_box
        await a.press("escape")
        await a.press("y")  # copies the value shown now, into this session's recording
        assert app.clipboard == title
        await a.close_dialog()


async def test_the_register_goes_into_the_console_editor(
    workspace: Any, tmp_path: Path, clock: Any, wall: Any
) -> None:
    app = build_play_app(_config(tmp_path, 0), workspace=workspace, clock=clock, wall=wall)
    async with app.run_test(size=SIZE) as pilot:
        a = Annotator(pilot)
        screen = await a.started()
        await a.press("f3", "ctrl+t")  # nothing copied yet: the editor stays empty
        editor = screen.query_one("#console-editor")
        assert editor.text == ""
        await a.open_object("Case")
        table = screen.query_one("#records-table")
        await a.copy_cell(table, 2, 0)
        case_id = table.ids[2]
        assert app.clipboard == case_id  # the system clipboard got it too (OSC 52)
        await a.press("f3")
        await a.type("SELECT Subject FROM Case WHERE Id = '")
        await a.press("ctrl+t")
        await a.type("'")
        assert editor.text == f"SELECT Subject FROM Case WHERE Id = '{case_id}'"


async def test_leaving_an_instance_asks_with_cancel_focused(
    workspace: Any, tmp_path: Path, clock: Any, wall: Any
) -> None:
    """A stray Enter after Escape does not abandon the instance: the dialog starts on Cancel."""
    async with _annotating(workspace, tmp_path, clock, wall) as a:
        app, screen = a.app, a.play
        await a.press("escape")
        await a.until(lambda: isinstance(app.screen, ConfirmScreen))
        assert app.screen.focused is app.screen.query_one("#no")
        await a.press("enter")
        await a.until(lambda: app.screen is screen)
        assert not screen.session.recorder.closed


async def test_back_from_a_followed_link_returns_to_the_row_it_left(
    workspace: Any, tmp_path: Path, clock: Any, wall: Any
) -> None:
    """``[`` after following a link puts the record view's cursor back on that link's row,
    so the next Down/Enter goes on from there (it went back to the Id row)."""
    async with _annotating(workspace, tmp_path, clock, wall) as a:
        await a.open_object("Case")
        await a.open_record_row(0)
        panel = a.play.query_one("#record-panel")
        case_id = panel.detail.record_id
        row = max(i for i, link in enumerate(panel._links) if link)  # the last link, far down
        assert row > 1
        await a.follow_panel_row(row)
        await a.press("left_square_bracket")
        await a.until(lambda: panel.detail is not None and panel.detail.record_id == case_id)
        await a.until(lambda: panel.cursor_row == row)
        await a.press("right_square_bracket")  # forward: the linked record, from its top
        await a.until(lambda: panel.detail is not None and panel.detail.record_id != case_id)
        assert panel.cursor_row == 0


async def test_a_search_that_finds_nothing_says_every_word_must_match(
    workspace: Any, tmp_path: Path, clock: Any, wall: Any
) -> None:
    async with _annotating(workspace, tmp_path, clock, wall) as a:
        screen = a.play
        await a.open_object("Knowledge__kav")
        await a.press("slash")
        await a.type("refund zzqxv")
        await a.press("enter")
        status = screen.query_one("#browser-status")
        await a.until(lambda: "try fewer words" in str(status.render()))
        assert "no Knowledge__kav holds every word of 'refund zzqxv'" in str(status.render())
