"""Textual bugs crmtui works around (crmtui/ui/textual_fixes.py): each still a bug upstream,
each harmless once the fixes are installed."""

from __future__ import annotations

import pytest
from textual.app import App, ComposeResult
from textual.css.query import NoMatches
from textual.widgets import Label, OptionList, Select

from crmtui.ui import textual_fixes


class _SizelessList(App[None]):
    """An option list with no height, as the command palette's while it is being filled."""

    CSS = "OptionList { height: 0; }"

    def compose(self) -> ComposeResult:
        yield OptionList(*[f"option {i}" for i in range(30)])


async def _page(fixed: bool) -> int | None:
    textual_fixes.install()
    installed = OptionList._move_page
    if not fixed:
        OptionList._move_page = installed.__wrapped__  # type: ignore[attr-defined]
    try:
        app = _SizelessList()
        async with app.run_test() as pilot:
            options = app.query_one(OptionList)
            options.highlighted = 3
            await pilot.pause()
            options.action_page_up()
            options.action_page_down()
            return options.highlighted
    finally:
        OptionList._move_page = installed  # type: ignore[method-assign]


async def test_page_keys_in_an_option_list_with_no_size_do_nothing() -> None:
    assert await _page(fixed=True) == 3


async def test_textual_still_has_the_bug() -> None:
    """When this fails, Textual fixed it: the workaround can go."""
    with pytest.raises(KeyError):
        await _page(fixed=False)


class _SelectAsItCloses(App[None]):
    """Mounts a Select just after the first frame, as the picker mounts its task filter."""

    def compose(self) -> ComposeResult:
        yield Label("first frame")

    def on_mount(self) -> None:
        self.call_after_refresh(lambda: self.mount(Select([("a", "a")])))


async def _close_while_mounting(fixed: bool) -> None:
    textual_fixes.install()
    installed = Select._on_mount
    if not fixed:
        Select._on_mount = installed.__wrapped__  # type: ignore[attr-defined]
    try:
        app = _SelectAsItCloses()
        async with app.run_test() as pilot:
            await pilot.pause(0)  # the app leaves with the Select's mount under way
    finally:
        Select._on_mount = installed  # type: ignore[method-assign]


async def test_an_app_closed_while_a_select_mounts_closes_cleanly() -> None:
    await _close_while_mounting(fixed=True)


async def test_textual_still_raises_for_a_select_removed_while_mounting() -> None:
    """When this fails, Textual fixed it: the workaround can go."""
    with pytest.raises(NoMatches):
        await _close_while_mounting(fixed=False)
