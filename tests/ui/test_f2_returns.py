"""F2 returns to the place in the browser the person left: the table (its cursor on the row
they were on) or the record, so copying several Ids into the answer is y, F4, Ctrl+T, F2,
Down, y ... (F2 went to the object list: every Id cost a trip back through it)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.ui.test_workbench_tools import _annotating


@pytest.mark.parametrize("size", [(160, 48), (80, 24)])
async def test_f2_from_the_answer_box_returns_to_the_table_and_the_record_left(
    workspace: Any, tmp_path: Path, clock: Any, wall: Any, size: tuple[int, int]
) -> None:
    async with _annotating(workspace, tmp_path, clock, wall) as a:
        await a.pilot.resize_terminal(*size)
        screen = a.play
        table = screen.query_one("#records-table")
        answer = screen.query_one("#answer-input")
        # Nothing visited yet: F2 opens on the object list.
        await a.press("f4", "f2")
        assert screen.focused is screen.query_one("#object-list")
        await a.open_object("Case")
        await a.until(lambda: screen.focused is table)
        copied = []
        for row in (2, 3, 4):
            await a.cursor_to_row(table, row)
            await a.press("y", "f4", "ctrl+t", *", ", "f2")
            assert screen.focused is table and table.cursor_coordinate.row == row
            copied.append(screen.session.scratch.register.text)
        assert answer.value == ", ".join(copied) + ", "
        assert len(set(copied)) == 3
        # A record opened from the table: F2 comes back to the record.
        await a.open_record_row(5)
        panel = screen.query_one("#record-panel")
        await a.press("f4", "f2")
        assert screen.focused is panel
        # The object list, left for the answer box: back to it.
        await a.press("o", "f4", "f2")
        assert screen.focused is screen.query_one("#object-list")
