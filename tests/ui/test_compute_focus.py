"""After a computation the result table has the focus, and every key on it works at once:
``s`` (which always changes something: the result comes sorted by its groups, and its header
says so), arrows, ``y``, ``v``. Focus is visible on every control of the compute tool."""

from __future__ import annotations

from typing import Any

import pytest
from textual.color import Color
from textual.widgets import Select

from crmtui.config import PlayConfig
from crmtui.factory import build_play_app
from crmtui.ui.screens.compute import ComputeScreen, ComputeTable
from tests.ui.annotator import Annotator


def _config(tmp_path: Any) -> PlayConfig:
    return PlayConfig(annotator="tester", recordings=tmp_path / "recordings", fsync=False, idx=0)


def _column(table: ComputeTable, column: int) -> list[Any]:
    return [row[column] for row in table.raw_rows]


def _painted_header(table: ComputeTable) -> str:
    """The header row as drawn on screen."""
    return table.render_line(0).text


def _headers(table: ComputeTable) -> list[str]:
    return [str(c.label) for c in table.ordered_columns]


async def _computed(a: Annotator, measure_duration: bool) -> tuple[ComputeScreen, ComputeTable]:
    """Ctrl+L over the browser's Case table (count, or the duration default), F5, no Tab."""
    await a.open_object("Case")
    if not measure_duration:
        await a.run_query("SELECT Id, Status, OwnerId FROM Case")
    await a.press("ctrl+l")
    await a.until(lambda: isinstance(a.app.screen, ComputeScreen))
    dialog = a.app.screen
    assert isinstance(dialog, ComputeScreen)
    measure = dialog.chooser("compute-measure").value
    assert ("duration" in str(measure)) == measure_duration
    await a.press("f5")
    await a.until(lambda: dialog.last_run is not None)
    return dialog, dialog.query_one(ComputeTable)


@pytest.mark.parametrize("size", [(80, 24), (160, 48)], ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("duration", [False, True], ids=["count", "duration"])
async def test_the_result_has_the_focus_and_its_keys_work_at_once(
    workspace: Any, tmp_path: Any, clock: Any, wall: Any, size: tuple[int, int], duration: bool
) -> None:
    app = build_play_app(_config(tmp_path), workspace=workspace, clock=clock, wall=wall)
    async with app.run_test(size=size) as pilot:
        a = Annotator(pilot)
        await a.started()
        dialog, table = await _computed(a, duration)
        assert app.focused is table
        assert table.cursor_coordinate == (0, 0)
        groups = _column(table, 0)
        # The result comes sorted by its groups and says so.
        assert groups == sorted(groups, key=str) and _headers(table)[0].endswith("▲")
        # So the first s there sorts descending: every s changes something.
        await a.press("s")
        assert _column(table, 0) == groups[::-1]
        assert _headers(table)[0].endswith("▼")
        assert "sorted by OwnerId, descending" in str(dialog.query_one("#compute-status").render())
        await a.press("s")
        assert _column(table, 0) == groups and _headers(table)[0].endswith("▲")
        # An arrow, then s on the count column: sorted the way its header says.
        await a.press("right")
        column = table.cursor_coordinate.column
        assert column == 1
        await a.press("s")  # ascending first, then the other way
        values = _column(table, column)
        assert values == sorted(values) and _headers(table)[column].endswith("▲")
        assert not _headers(table)[0].endswith(("▲", "▼"))
        await a.press("s")
        assert _column(table, column) == sorted(values, reverse=True)
        assert _headers(table)[column].endswith("▼")
        # y and v on the cell under the cursor.
        await a.press("down")
        await a.press("y")
        register = a.play.session.scratch.register
        assert register is not None and register.ref.source == "compute"
        assert register.text == str(table.raw_rows[1][column])
        viewer = await a.view_value()
        assert str(table.raw_rows[1][column]) in viewer.text


async def test_focus_is_visible_on_every_control(
    workspace: Any, tmp_path: Any, clock: Any, wall: Any
) -> None:
    app = build_play_app(_config(tmp_path), workspace=workspace, clock=clock, wall=wall)
    async with app.run_test(size=(80, 24)) as pilot:
        a = Annotator(pilot)
        await a.started()
        dialog, table = await _computed(a, measure_duration=False)

        def looks(widget: Any) -> tuple[Color, Any]:
            face = widget.query_one("SelectCurrent") if isinstance(widget, Select) else widget
            return face.styles.background, face.styles.border_left

        form = [
            c
            for c in dialog.query(".compute-row Select, .compute-row FieldChooser Input, Button")
            if c.parent.display and (c.parent.parent is None or c.parent.parent.display)
        ]
        unfocused = {c: looks(c) for c in form}  # the table has the focus now
        focused_table = looks(table)
        await a.press("tab")  # wraps round to the form
        assert app.focused is form[0]
        assert looks(table) != focused_table
        for control in form:
            while app.focused is not control:
                await a.press("tab")
            assert looks(control) != unfocused[control], control


async def test_the_sort_mark_fits_a_header_wider_than_its_cells() -> None:
    """Two-letter states under ``Account.ShippingState``: the column is as wide as its header,
    and the ▲ added to it must widen the column, not be cut off."""
    from textual.app import App

    class One(App[None]):
        def compose(self) -> Any:
            yield ComputeTable(id="t")

    app = One()
    async with app.run_test(size=(80, 10)) as pilot:
        table = app.query_one(ComputeTable)
        table.show(["Account.ShippingState", "n"], [["AZ", 3], ["CA", 1]])
        await pilot.pause()
        assert "Account.ShippingState ▲" in _painted_header(table)
