"""Pilot tests for steps a person could not do (or did wrong) while solving tasks in the TUI.

Each was found by solving sample instances by hand (see the per-task-type tests in
``test_workbench_solves.py``); each test follows the keys a person pressed.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from crmtui.config import PlayConfig
from crmtui.factory import build_play_app
from tests.ui.annotator import Annotator

SIZE = (120, 36)


def _config(tmp_path: Path, idx: int | None = None) -> PlayConfig:
    return PlayConfig(annotator="tester", recordings=tmp_path / "recordings", fsync=False, idx=idx)


async def test_a_record_opened_from_a_table_starts_at_its_first_field(
    workspace: Any, tmp_path: Path, clock: Any, wall: Any
) -> None:
    """A new record opens on its Id, not on the row the last record's cursor was on.

    Seen while solving a policy question: the transcript's ``Body`` (row 2) was read, then an
    article opened from the Knowledge table, and ``y`` copied its ``Summary`` (row 2) instead
    of its Id: the record panel is hidden while a table shows, so it kept the old cursor.
    """
    idx = next(iter(workspace.tasks)).idx
    app = build_play_app(_config(tmp_path, idx), workspace=workspace, clock=clock, wall=wall)
    async with app.run_test(size=SIZE) as pilot:
        a = Annotator(pilot)
        await a.started()
        await a.open_object("LiveChatTranscript")
        await a.open_record_row(0)
        panel = a.play.query_one("#record-panel")
        await a.press("down", "down")
        assert panel.cursor_row == 2
        await a.open_object("Knowledge__kav")
        await a.open_record_row(0)
        assert panel.cursor_row == 0
        await a.press("y")
        copied = a.play.session.scratch.register
        assert (copied.text, copied.ref.field) == (panel.detail.record_id, "Id")


async def test_the_viewer_and_compute_keys_stay_readable_at_80x24(
    workspace: Any, tmp_path: Path, clock: Any, wall: Any
) -> None:
    """The key hints of the viewer and the compute tool wrap at 80 columns, ending in Esc."""
    idx = next(iter(workspace.tasks)).idx
    app = build_play_app(_config(tmp_path, idx), workspace=workspace, clock=clock, wall=wall)
    async with app.run_test(size=(80, 24)) as pilot:
        a = Annotator(pilot)
        await a.started()
        await a.open_object("Knowledge__kav")
        viewer = await a.view_value()
        hint = viewer.query_one("#viewer-hint")
        assert str(hint.render()).endswith("Esc close")
        assert hint.size.width * hint.size.height >= len(str(hint.render()))
        await a.close_dialog()
        await a.press("ctrl+l")
        await a.until(lambda: app.screen.query("#compute-hint"))
        hint = app.screen.query_one("#compute-hint")
        assert hint.size.width * hint.size.height >= len(str(hint.render()))


async def test_the_id_a_task_context_names_is_copied_with_y_and_recorded(
    workspace: Any, tmp_path: Path, clock: Any, wall: Any
) -> None:
    """``y`` on the task context copies its Id (it had to be retyped: 18 characters by hand);
    Ctrl+V pastes it into the filter dialog, Ctrl+T into the answer box; the copy is recorded."""
    from crmtui.play.cells import context_ids
    from crmtui.record.verify import load

    instance = next(i for i in workspace.tasks if context_ids(i.metadata.required))
    wanted = context_ids(instance.metadata.required)[0]
    app = build_play_app(
        _config(tmp_path, instance.idx), workspace=workspace, clock=clock, wall=wall
    )
    async with app.run_test(size=SIZE) as pilot:
        a = Annotator(pilot)
        await a.started()
        assert await a.copy_context_id() == wanted
        prefix = wanted[:3]
        obj = next(o.name for o in workspace.org.schema if o.key_prefix == prefix)
        await a.open_object(obj)
        await a.filter_table("Id")  # Ctrl+V in the dialog's value box
        table = a.play.query_one("#records-table")
        assert table.ids == [wanted]
        await a.answer_with_register()
        assert a.play.query_one("#answer-input").value == wanted
        path = a.play.session.path
    copies = [e for e in load(path).events if e.type == "copy"]
    assert [(c.payload["source"], c.payload["value"]) for c in copies] == [("context", wanted)]
