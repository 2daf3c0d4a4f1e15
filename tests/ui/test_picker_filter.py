"""The picker's task filter, driven by keys: choosing "All task types" again lists every
instance (Textual 8 reports the prompt as ``Select.NULL``; reading it as a task type took
the app down)."""

from __future__ import annotations

from textual.widgets import DataTable, Select

from crmtui.data.parity import person_task_label
from crmtui.factory import build_play_app
from crmtui.ui.screens.picker import PickerScreen
from tests.ui.test_play_flow import _wait

SIZE = (160, 48)


async def test_all_task_types_again_lists_every_instance(workspace, play_config, clock, wall):
    app = build_play_app(play_config, workspace=workspace, clock=clock, wall=wall)
    async with app.run_test(size=SIZE) as pilot:
        await _wait(pilot, lambda: isinstance(app.screen, PickerScreen))
        picker = app.screen
        table = picker.query_one("#picker-table", DataTable)
        # t focuses the filter, Enter opens it; the prompt is the first line, the types follow.
        # Typed with the first frame: before the filter has replaced its face, t puts it in
        # place and the keys after it reach it.
        await pilot.press("t", "enter", "down", "enter")
        select = picker.query_one("#picker-filter", Select)
        await _wait(pilot, lambda: picker.task_filter is not None)
        assert table.row_count == sum(
            person_task_label(i.task)[1] == picker.task_filter for i in workspace.tasks
        )
        assert table.row_count < len(workspace.tasks)
        await pilot.press("enter", "home", "enter")  # back to "All task types"
        await _wait(pilot, lambda: select.value is Select.NULL)
        await pilot.pause()
        assert app.return_code is None and app.screen is picker
        assert picker.task_filter is None
        assert table.row_count == len(workspace.tasks)


async def test_t_typed_before_the_filter_is_in_place_opens_it(workspace, play_config, clock, wall):
    """The filter replaces its face just after the picker's first frame; `t` and Enter typed
    before that must still reach it (the keys wait for the filter, or `t` puts it in place)."""
    app = build_play_app(play_config, workspace=workspace, clock=clock, wall=wall)
    async with app.run_test(size=SIZE) as pilot:
        picker = app.screen
        assert isinstance(picker, PickerScreen) and picker.query("#picker-filter-face")
        assert not picker.query("#picker-filter")
        await pilot.press("t", "enter")
        select = picker.query_one("#picker-filter", Select)
        await _wait(pilot, lambda: select.expanded)
        assert app.return_code is None and select.has_focus_within


async def test_the_cursor_follows_the_instance_when_the_filter_changes(
    workspace, play_config, clock, wall
):
    """After any filter change the highlighted instance is the one highlighted before (when
    it is still listed) or the first match, never whatever now sits at the old row number:
    Enter opens what was highlighted (it opened idx 185 instead of 177)."""
    from crmtui.ui.screens.play import PlayScreen

    app = build_play_app(play_config, workspace=workspace, clock=clock, wall=wall)
    async with app.run_test(size=SIZE) as pilot:
        await _wait(pilot, lambda: isinstance(app.screen, PickerScreen))
        picker = app.screen
        table = picker.query_one("#picker-table", DataTable)
        mounting = picker._mount_filter()
        if mounting is not None:
            await mounting
        select = picker.query_one("#picker-filter", Select)
        codes = [value for _, value in select._options if value is not Select.NULL]
        assert len(codes) >= 2
        for code in codes:
            # Highlight a row far down the whole list, then narrow to one type.
            select.value = Select.NULL
            await _wait(pilot, lambda: picker.task_filter is None)
            everyone = picker.visible()
            target = next(i for i in reversed(everyone) if person_task_label(i.task)[1] == code)
            table.move_cursor(row=[i.idx for i in everyone].index(target.idx))
            select.value = code
            await _wait(pilot, lambda code=code: picker.task_filter == code)
            assert picker.highlighted_idx() == target.idx
            # Narrowed to another type, the old instance is gone: the first match.
            other = next(c for c in codes if c != code)
            select.value = other
            await _wait(pilot, lambda other=other: picker.task_filter == other)
            assert picker.highlighted_idx() == picker.visible()[0].idx
            # And back to every type: the highlighted instance is kept.
            kept = picker.highlighted_idx()
            select.value = Select.NULL
            await _wait(pilot, lambda: picker.task_filter is None)
            assert picker.highlighted_idx() == kept
        # Enter opens the highlighted instance, whatever its row number.
        select.value = codes[-1]
        await _wait(pilot, lambda: picker.task_filter == codes[-1])
        table.move_cursor(row=table.row_count - 1)
        wanted = picker.highlighted_idx()
        select.value = Select.NULL
        await _wait(pilot, lambda: picker.task_filter is None)
        table.focus()
        await pilot.press("enter")
        await _wait(pilot, lambda: isinstance(app.screen, PlayScreen))
        assert app.screen.session.instance.idx == wanted
