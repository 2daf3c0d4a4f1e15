"""80x24 is usable (task tab, results reachable, F10 maximises); below the minimum a notice."""

from __future__ import annotations

from textual.widgets import TabbedContent

from crmtui.factory import build_play_app
from crmtui.ui.screens.picker import PickerScreen
from crmtui.ui.screens.play import PlayScreen
from tests.ui.test_play_flow import _wait


async def _open(pilot, app, idx: int = 30) -> PlayScreen:
    await _wait(pilot, lambda: isinstance(app.screen, PickerScreen))
    app.open_instance(idx)
    await _wait(pilot, lambda: isinstance(app.screen, PlayScreen))
    return app.screen


async def test_console_results_are_reachable_at_80x24(workspace, play_config, clock, wall):
    app = build_play_app(play_config, workspace=workspace, clock=clock, wall=wall)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await _open(pilot, app)
        assert screen.has_class("compact")
        assert not screen.query_one("#metadata-panel").display
        await pilot.press("f3", *"SELECT Id, Name FROM User", "f5")
        results = screen.query_one("#console-results")
        await _wait(pilot, lambda: results.row_count > 0)
        await pilot.press("tab")
        assert results.has_focus
        # At least a few rows are on screen under the editor.
        assert results.region.height >= 5 and results.region.bottom <= 24
        # F10 gives the results the whole screen; again, the layout comes back.
        work = screen.query_one("#work-tabs")
        await pilot.press("f10")
        await _wait(pilot, lambda: screen.maximized is work and results.region.height >= 15)
        await pilot.press("f10")
        await _wait(pilot, lambda: screen.maximized is None)


async def test_the_task_context_is_a_tab_at_80x24(workspace, play_config, clock, wall):
    app = build_play_app(play_config, workspace=workspace, clock=clock, wall=wall)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await _open(pilot, app)
        await pilot.press("ctrl+o")
        tabs = screen.query_one(TabbedContent)
        context = screen.query_one("#context-panel")
        # The tab switches and the panel takes the focus after a refresh: wait for that state.
        await _wait(pilot, lambda: tabs.active == "tab-context" and context.has_focus)
        await _wait(pilot, lambda: context.region.height > 8)
        text = context.query_one("#metadata-text")
        painted = "".join(text.render_line(y).text for y in range(context.region.height))
        # The query comes first and the task context (policy, ids, date) starts below it.
        assert painted.startswith("Query") and "Task context" in painted
        await pilot.press("f2")
        await _wait(pilot, lambda: tabs.active == "tab-browse")


async def test_wider_layouts_hide_the_task_tab_and_yield_width(workspace, play_config, clock, wall):
    app = build_play_app(play_config, workspace=workspace, clock=clock, wall=wall)
    async with app.run_test(size=(120, 36)) as pilot:
        screen = await _open(pilot, app)
        assert screen.has_class("narrow") and not screen.has_class("compact")
        tabs = screen.query_one(TabbedContent)
        assert not tabs.get_tab("tab-context").display
        assert screen.query_one("#object-list").region.width <= 26
        await pilot.press("ctrl+o")
        metadata = screen.query_one("#metadata-panel")
        await _wait(pilot, lambda: metadata.has_focus)


async def test_below_the_minimum_a_notice_replaces_the_instance(
    workspace, play_config, clock, wall
):
    app = build_play_app(play_config, workspace=workspace, clock=clock, wall=wall)
    async with app.run_test(size=(60, 18)) as pilot:
        screen = await _open(pilot, app)
        assert screen.has_class("too-small")
        assert not screen.query_one("#play-body").display
        notice = str(screen.query_one("#too-small").render())
        assert "60x18" in notice and "70x20" in notice


async def test_the_task_tab_shows_the_whole_query_and_y_copies_its_id(
    workspace, play_config, clock, wall
):
    """At 80x24 the query region has two lines: the Task tab (Ctrl+O) shows the query whole,
    and ``y`` there copies the Id the query names when the context names none (a trend
    question's product)."""
    from crmtui.play.cells import context_ids

    inst = next(
        i for i in workspace.tasks if context_ids(i.query) and not context_ids(i.metadata.required)
    )
    wanted = context_ids(inst.query)[0]
    app = build_play_app(play_config, workspace=workspace, clock=clock, wall=wall)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await _open(pilot, app, inst.idx)
        query = screen.query_one("#query-panel")
        assert query.max_scroll_y > 0  # two lines do not hold it
        await pilot.press("ctrl+o")
        context = screen.query_one("#context-panel")
        await _wait(pilot, lambda: context.has_focus)
        text = context.query_one("#metadata-text")
        painted = " ".join(text.render_line(y).text.strip() for y in range(text.size.height))
        words = " ".join(inst.query.split())
        assert words[-40:] in " ".join(painted.split())
        await pilot.press("y")
        register = screen.session.scratch.register
        assert register is not None and register.text == wanted
        assert register.ref.source == "context"


async def test_y_on_the_query_region_copies_the_id_it_names(workspace, play_config, clock, wall):
    from crmtui.play.cells import context_ids

    inst = next(i for i in workspace.tasks if context_ids(i.query))
    app = build_play_app(play_config, workspace=workspace, clock=clock, wall=wall)
    async with app.run_test(size=(160, 48)) as pilot:
        screen = await _open(pilot, app, inst.idx)
        await pilot.click("#query-panel")
        assert screen.focused is screen.query_one("#query-panel")
        await pilot.press("y")
        register = screen.session.scratch.register
        assert register is not None and register.text == context_ids(inst.query)[0]
