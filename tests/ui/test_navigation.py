"""Navigate faster: go to a record by Id, the schema tree, the palette's schema search."""

from __future__ import annotations

from typing import Any

from textual.command import CommandList, CommandPalette
from textual.widgets import TabbedContent

from crmtui.factory import build_play_app
from crmtui.org.generator.ids import to18
from crmtui.record.verify import load
from crmtui.ui.palette import GotoCommands, SchemaCommands
from crmtui.ui.screens.dialogs import TextPromptScreen
from crmtui.ui.widgets.record_browser import RecordBrowser
from crmtui.ui.widgets.schema_tree import SchemaTree
from tests.ui.test_play_flow import _open_first, _recording, _wait

SIZE = (160, 48)


def _messages(app: Any) -> list[str]:
    return [n.message for n in app._notifications]


async def _hits(provider_cls: Any, screen: Any, query: str) -> list[Any]:
    provider = provider_cls(screen)
    return [hit async for hit in provider.search(query)]


async def test_go_to_a_record_from_the_editor(workspace, play_config, clock, wall):
    case_id = workspace.org.connect().execute('SELECT Id FROM "Case" LIMIT 1').fetchone()[0]
    app = build_play_app(play_config, workspace=workspace, clock=clock, wall=wall)
    async with app.run_test(size=SIZE) as pilot:
        screen = await _open_first(pilot)
        await pilot.press("f3")  # from inside the editor: Ctrl+G still works
        await pilot.press("ctrl+g")
        await _wait(pilot, lambda: isinstance(app.screen, TextPromptScreen))
        await pilot.press(*case_id.lower(), "enter")  # wrong case: repaired by the suffix
        browser = screen.query_one(RecordBrowser)
        await _wait(pilot, lambda: getattr(browser.current, "record_id", None) == case_id)
        assert screen.query_one(TabbedContent).active == "tab-browse"
        panel = screen.query_one("#record-panel")
        await _wait(pilot, lambda: panel.row_count > 0)

        # An unknown prefix and a missing record are explained.
        assert screen.goto_record("zzzWs000006ua8JIAQ") is False
        await _wait(pilot, lambda: any("the key prefix 'zzz'" in m for m in _messages(app)))
        assert screen.goto_record("[b]not an id") is False
        await _wait(pilot, lambda: any("is not a record Id" in m for m in _messages(app)))
        missing = to18("500Ws0000000000")
        screen.goto_record(missing)
        await _wait(
            pilot, lambda: any(f"No Case record with Id {missing}" in m for m in _messages(app))
        )

        # The palette offers an Id typed into it.
        hits = await _hits(GotoCommands, screen, case_id)
        assert [str(h.match_display) for h in hits] == [f"Go to Case {case_id}"]
    opened = [e.payload for e in load(_recording(play_config)).events if e.type == "open_record"]
    assert opened[0]["id"] == case_id and opened[0]["object"] == "Case"


async def test_schema_tree_search_and_reference_jump(workspace, play_config, clock, wall):
    app = build_play_app(play_config, workspace=workspace, clock=clock, wall=wall)
    async with app.run_test(size=SIZE) as pilot:
        screen = await _open_first(pilot)
        await pilot.press("f8")
        schema = screen.query_one(SchemaTree)
        assert screen.query_one("#schema-search").has_focus
        await pilot.press(*"case.own")
        tree = schema.tree
        await _wait(pilot, lambda: [n.data[0] for n in tree.root.children] == ["Case"])
        assert [c.data[1] for c in tree.root.children[0].children] == ["OwnerId"]
        await pilot.press("enter")  # to the tree, cursor on Case.OwnerId
        assert tree.has_focus and tree.cursor_node.data == ("Case", "OwnerId")
        assert "User" in str(schema.query_one("#schema-detail").render())
        await pilot.press("enter")  # a reference: jump to its target object
        await _wait(pilot, lambda: tree.cursor_node.data == ("User", None))


async def test_palette_finds_schema_objects_and_fields(workspace, play_config, clock, wall):
    app = build_play_app(play_config, workspace=workspace, clock=clock, wall=wall)
    async with app.run_test(size=SIZE) as pilot:
        screen = await _open_first(pilot)
        labels = [
            str(h.match_display) for h in await _hits(SchemaCommands, screen, "ShippingState")
        ]
        assert labels[0] == "Schema: Account.ShippingState"
        titles = [c.title for c in app.get_system_commands(screen)]
        assert "Schema" in titles and "Go to record" in titles
        # Choosing a hit opens the schema tab on it.
        await pilot.press("ctrl+p")
        await _wait(pilot, lambda: isinstance(app.screen, CommandPalette))
        await pilot.press(*"ShippingState")
        hits = app.screen.query_one(CommandList)

        def first_hit_found() -> bool:
            if not hits.option_count or hits.highlighted != 0:
                return False
            return "Account.ShippingState" in str(hits.get_option_at_index(0).prompt)

        await _wait(pilot, first_hit_found)  # the search runs in the background
        await pilot.press("enter")
        tree = screen.query_one(SchemaTree).tree
        await _wait(
            pilot, lambda: getattr(tree.cursor_node, "data", None) == ("Account", "ShippingState")
        )
        assert screen.query_one(TabbedContent).active == "tab-schema"
