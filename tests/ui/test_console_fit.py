"""The console's error fits any terminal: whole (wrapped), caret and hint on screen, or
scrollable from the keyboard, at 80x24, 120x36 and 160x48, maximised (F10) or not."""

from __future__ import annotations

from typing import Any

import pytest

from crmtui.config import PlayConfig
from crmtui.factory import build_play_app
from crmtui.ui.widgets.console import QueryConsole
from tests.ui.annotator import Annotator

SIZES = [(80, 24), (120, 36), (160, 48)]
TYPO = "SELECT Subjet FROM Case LIMIT 3"
# A long query whose error is at its very end.
LONG = (
    "SELECT Id, AccountId, ClosedDate, ContactId, CreatedDate, Description, OwnerId, Priority,"
    " Status, Account.Name, Owner.Name FROM Case WHERE Status != 'Closed' AND Priority != 'Low'"
    " AND CreatedDate > 2020-01-01T00:00:00Z ORDER BY Subjet"
)
# An error longer than any console: it names a 300-character field.
HUGE = "SELECT Id FROM Case WHERE Subjet" + "_of_the_case" * 25 + " = 'a'"
# A multi-line query: the error on its third line.
MULTI = "SELECT Id,\n  Status,\n  Subjet\nFROM Case\nWHERE Status != null\nLIMIT 3"


def _config(tmp_path: Any) -> PlayConfig:
    return PlayConfig(annotator="tester", recordings=tmp_path / "recordings", fsync=False, idx=0)


def _shown(app: Any, console: QueryConsole) -> list[str]:
    """What the terminal shows inside the console, line by line (trailing blanks cut)."""
    screen = [strip.text for strip in app.screen._compositor.render_strips()]
    box = console.content_region
    return [line[box.x : box.right].rstrip() for line in screen[box.y : box.bottom]]


async def _fail(a: Annotator, query: str) -> QueryConsole:
    """F3, replace the editor's text with ``query`` (pasted), F5; wait for the error."""
    await a.press("f3")
    console = a.play.query_one(QueryConsole)
    editor = console.query_one("#console-editor")
    await a.until(lambda: a.app.focused is editor)
    while editor.text:
        await a.press("ctrl+shift+k")
    await a.paste(query)
    await a.press("f5")
    await a.until(lambda: "INVALID_FIELD" in str(console.query_one("#console-status").render()))
    return console


def _error_lines(console: QueryConsole) -> list[str]:
    return str(console.query_one("#console-status").render()).splitlines()


async def _read_whole_error(a: Annotator, console: QueryConsole) -> str:
    """Everything of the error that appears on screen, scrolling with the keyboard if needed."""
    seen = "\n".join(_shown(a.app, console))
    found = console.query("#console-message")  # the error's scrolling area
    message = found.first() if found else None
    if message is not None and message.max_scroll_y > 0:
        await a.press("tab")  # editor -> the message (the results are hidden on an error)
        assert a.app.focused is message
        for _ in range(message.max_scroll_y):
            await a.press("down")
            seen += "\n" + "\n".join(_shown(a.app, console))
        assert message.scroll_y == message.max_scroll_y
    return seen


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
async def test_the_caret_and_the_hint_are_on_screen_at_every_size(
    workspace: Any, tmp_path: Any, clock: Any, wall: Any, size: tuple[int, int]
) -> None:
    app = build_play_app(_config(tmp_path), workspace=workspace, clock=clock, wall=wall)
    async with app.run_test(size=size) as pilot:
        a = Annotator(pilot)
        await a.started()
        console = await _fail(a, TYPO)
        lines = _error_lines(console)
        assert lines[-1] == "Did you mean Subject?"
        assert lines[-2:] != lines[:2]
        # The short error fits below the editor without scrolling, caret and hint included.
        shown = [line.strip() for line in _shown(app, console)]
        assert any(line.startswith("INVALID_FIELD: No such column 'Subjet'") for line in shown)
        assert TYPO in shown and "^" in shown and "Did you mean Subject?" in shown
        await a.press("f10")  # maximised: still all of it
        assert a.play.maximized is not None
        shown = [line.strip() for line in _shown(app, console)]
        assert TYPO in shown and "^" in shown and "Did you mean Subject?" in shown, shown


@pytest.mark.parametrize("query", [LONG, MULTI, HUGE], ids=["long", "multi-line", "huge"])
@pytest.mark.parametrize("size", [(80, 24), (160, 48)], ids=lambda s: f"{s[0]}x{s[1]}")
async def test_a_long_error_can_be_read_to_its_end_from_the_keyboard(
    workspace: Any, tmp_path: Any, clock: Any, wall: Any, size: tuple[int, int], query: str
) -> None:
    app = build_play_app(_config(tmp_path), workspace=workspace, clock=clock, wall=wall)
    async with app.run_test(size=size) as pilot:
        a = Annotator(pilot)
        await a.started()
        console = await _fail(a, query)
        lines = _error_lines(console)
        hint = ["Did you mean Subject?"] if query != HUGE else []
        assert lines[len(lines) - len(hint) :] == hint
        source, caret = lines[len(lines) - len(hint) - 2 : len(lines) - len(hint)]
        # The caret points at the bad field in the (possibly cut) source line.
        assert source[len(caret) - 1 : len(caret) + 5] == "Subjet"
        seen = await _read_whole_error(a, console)
        assert lines[0][:29] in seen  # "INVALID_FIELD: No such column"
        assert source.strip() in seen and caret.strip() in seen
        assert all(line in seen for line in hint)
        if query == HUGE and size == (80, 24):
            assert console.query_one("#console-message").max_scroll_y > 0  # it did scroll


async def test_the_caret_line_follows_the_width_when_maximised(
    workspace: Any, tmp_path: Any, clock: Any, wall: Any
) -> None:
    app = build_play_app(_config(tmp_path), workspace=workspace, clock=clock, wall=wall)
    async with app.run_test(size=(80, 24)) as pilot:
        a = Annotator(pilot)
        await a.started()
        console = await _fail(a, LONG)
        narrow = _error_lines(console)[-3]
        await pilot.resize_terminal(160, 48)
        await a.until(lambda: len(_error_lines(console)[-3]) > len(narrow))
        wide = _error_lines(console)[-3]
        caret = _error_lines(console)[-2]
        assert wide[len(caret) - 1 : len(caret) + 5] == "Subjet"
        # Running a good query brings the results back in place of the error.
        await a.run_query("SELECT Id FROM Case LIMIT 2")
        assert not console.has_class("-failed")
        assert console.query_one("#console-results").display
