"""Replay at 80x24: the side columns become tabs, nothing essential is cut."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from textual.widgets import DataTable, Footer, Label, TabbedContent

from crmtui.factory import build_replay_app
from crmtui.ui.screens.replay import ReplayScreen
from crmtui.ui.screens.replay_layout import replay_mode
from crmtui.ui.widgets.panels import StatusBar
from crmtui.ui.widgets.timeline import Timeline
from tests.ui.test_replay import _human_session, _text, _wait

SMALL = (80, 24)


@pytest.fixture
def human_path(workspace: Any, tmp_path: Path, clock: Any, wall: Any) -> Path:
    return _human_session(workspace, tmp_path, clock, wall)


@pytest.mark.parametrize(
    ("size", "mode"),
    [((80, 24), "compact"), ((99, 40), "compact"), ((120, 30), "compact"), ((60, 15), "compact")]
    + [((120, 36), "narrow"), ((160, 48), "wide")],
)
def test_replay_mode(size: tuple[int, int], mode: str) -> None:
    assert replay_mode(*size) == mode


async def test_80x24_puts_the_side_columns_in_tabs(human_path: Path) -> None:
    app = build_replay_app(human_path)
    async with app.run_test(size=SMALL) as pilot:
        await _wait(pilot, lambda: isinstance(app.screen, ReplayScreen))
        screen = app.screen
        tabs = screen.query_one(TabbedContent)
        assert screen.has_class("compact")
        assert not screen.query_one("#metadata-panel").display
        assert not screen.query_one("#replay-side").display
        # The work area has the whole width instead of a dozen columns.
        assert screen.query_one("#query-panel").size.width >= 76
        # It opens on the event list, focused, at the first event.
        compact = screen.query_one("#event-list-compact", DataTable)
        assert tabs.active == "tab-events" and compact.has_focus
        assert compact.row_count == len(screen.events) and compact.cursor_row == 0
        assert compact.region.height >= 3 and compact.region.bottom <= SMALL[1]
        # Stepping keeps the list in view and its cursor on the frame.
        await pilot.press("right", "right")
        assert screen.index == 2 and compact.cursor_row == 2 and tabs.active == "tab-events"
        # Enter on a row jumps there; both lists follow.
        compact.move_cursor(row=4)
        await pilot.press("enter")
        assert screen.index == 4
        assert screen.query_one("#event-list", DataTable).cursor_row == 4
        # From another tab, a query step shows the console, its re-run visible.
        await pilot.press("f2", "home")
        assert tabs.active == "tab-browse"
        await pilot.press("q")
        assert tabs.active == "tab-console"
        note = screen.query_one("#replay-query-note", Label)
        await _wait(pilot, lambda: "re-run" in _text(note))
        results = screen.query_one("#console-results", DataTable)
        assert results.row_count > 0
        assert results.region.height >= 2 and results.region.bottom <= SMALL[1]
        # The task context is a tab too.
        await pilot.press("ctrl+o")
        assert tabs.active == "tab-context"
        context = screen.query_one("#context-panel")
        assert context.has_focus and context.region.height >= 6
        assert context.task_ids == screen.query_one("#metadata-panel").task_ids
        assert context.query_one("#metadata-text").virtual_size.height >= 5
        # The timeline's three lines and the footer's keys fit in 80 columns.
        timeline = screen.query_one(Timeline)
        lines = timeline.render().plain.split("\n")
        assert len(lines) == 3 and all(len(line) <= timeline.content_size.width for line in lines)
        assert "F2 F3 F4" in lines[2]
        assert screen.query_one(Footer).compact
        status = screen.query_one(StatusBar).render().plain
        assert len(status) <= SMALL[0] and "queries: 1 (0 failed)" in status


async def test_resizing_moves_the_event_list_back_and_forth(human_path: Path) -> None:
    app = build_replay_app(human_path)
    async with app.run_test(size=(160, 48)) as pilot:
        await _wait(pilot, lambda: isinstance(app.screen, ReplayScreen))
        screen = app.screen
        tabs = screen.query_one(TabbedContent)
        side = screen.query_one("#event-list", DataTable)
        assert screen.has_class("wide") and side.has_focus
        assert not tabs.query_one("#tab-context").display or tabs.active != "tab-context"
        await pilot.press("right")
        await pilot.resize_terminal(*SMALL)
        compact = screen.query_one("#event-list-compact", DataTable)
        await _wait(pilot, lambda: screen.has_class("compact") and compact.has_focus)
        assert tabs.active == "tab-events" and compact.cursor_row == 1
        await pilot.resize_terminal(160, 48)
        await _wait(pilot, lambda: screen.has_class("wide") and side.has_focus)
        assert tabs.active not in ("tab-events", "tab-context")
        assert screen.query_one("#metadata-panel").display


def test_replay_snapshot_80x24(snap_compare: Any, human_path: Path) -> None:
    async def run_before(pilot: Any) -> None:
        await _wait(pilot, lambda: isinstance(pilot.app.screen, ReplayScreen))
        await pilot.press("q", "f3")
        note = pilot.app.screen.query_one("#replay-query-note", Label)
        await _wait(pilot, lambda: "re-run" in _text(note))

    assert snap_compare(build_replay_app(human_path), terminal_size=SMALL, run_before=run_before)
