"""Textual bugs crmtui works around (crmtui/ui/textual_fixes.py): each still a bug upstream,
each harmless once the fixes are installed."""

from __future__ import annotations

import asyncio
import gc
import weakref
from typing import Any

import pytest
from textual.app import App, ComposeResult
from textual.command import Hit, Hits, Provider
from textual.css.query import NoMatches
from textual.widgets import Label, OptionList, Select

from crmtui.ui import textual_fixes
from tests.waiting import until


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


class _Labels(App[None]):
    """A screen of labels with a background, so that each one's lines are drawn and cached."""

    CSS = "Label { background: $panel; }"

    def compose(self) -> ComposeResult:
        for n in range(40):
            yield Label(f"label {n}")


async def _draw_labels() -> list[weakref.ref[Any]]:
    app = _Labels()
    async with app.run_test(size=(40, 50)) as pilot:
        await pilot.pause()
        return [weakref.ref(label._styles_cache) for label in app.query(Label)]


def _style_caches_alive_after_close(fixed: bool) -> int:
    """How many of a closed app's widgets' style caches are still in memory (the app runs
    in a loop of its own, closed before counting: a running loop still holds its app)."""
    from textual._styles_cache import StylesCache

    textual_fixes.install()
    installed = StylesCache.get_inner_outer
    if not fixed:
        StylesCache.get_inner_outer = installed.__wrapped__  # type: ignore[attr-defined]
    try:
        caches = asyncio.run(_draw_labels())
        gc.collect()
        return sum(ref() is not None for ref in caches)
    finally:
        StylesCache.get_inner_outer = installed  # type: ignore[method-assign]
        if not fixed:  # what the unfixed method cached holds the widgets: let it go
            installed.__wrapped__.cache_clear()  # type: ignore[attr-defined]


def test_a_closed_apps_style_caches_are_freed() -> None:
    """Property: no widget's drawn lines outlive its app (a test worker's heap stays flat)."""
    assert _style_caches_alive_after_close(fixed=True) == 0


def test_textual_still_keeps_style_caches_alive() -> None:
    """When this fails, Textual fixed it: the workaround can go."""
    assert _style_caches_alive_after_close(fixed=False) == 40


class _SlowCommands(Provider):
    """A command source whose search answers only when the test lets it."""

    started: asyncio.Event
    release: asyncio.Event
    hits = True

    async def search(self, query: str) -> Hits:
        type(self).started.set()
        await type(self).release.wait()
        if type(self).hits:
            yield Hit(1.0, query, lambda: None)


class _Palette(App[None]):
    COMMANDS = {_SlowCommands}

    def compose(self) -> ComposeResult:
        yield Label("palette")


async def _list_gone_while_searching(fixed: bool, hits: bool = True) -> bool:
    """Open the palette, search, take its list away while the search runs, then let the
    search answer (with a hit, or with none: then the palette's "No matches" timer runs
    too); True when the app is still running afterwards."""
    from textual.command import CommandList, CommandPalette

    textual_fixes.install()
    names = ("_watch__list_visible", "_watch__show_busy", "_start_no_matches_countdown")
    installed = {name: getattr(CommandPalette, name) for name in names}
    if not fixed:
        for name, method in installed.items():
            setattr(CommandPalette, name, method.__wrapped__)
    _SlowCommands.started, _SlowCommands.release = asyncio.Event(), asyncio.Event()
    _SlowCommands.hits = hits
    try:
        app = _Palette()
        async with app.run_test() as pilot:
            app.action_command_palette()
            await pilot.press("a")
            await asyncio.wait_for(_SlowCommands.started.wait(), timeout=60)
            palette = app.screen
            assert isinstance(palette, CommandPalette)
            await palette.query_one(CommandList).remove()  # the palette is being taken down
            _SlowCommands.release.set()
            await until(
                pilot,
                lambda: not any(worker.is_running for worker in palette.workers),
                what="the palette's search did not finish",
            )
            timer = palette._no_matches_timer
            if timer is not None:  # no hits: wait for "No matches" to come due
                fired: list[bool] = []
                show = timer._callback

                def watched() -> None:
                    fired.append(True)
                    show()

                timer._callback = watched
                await until(pilot, lambda: fired or not app.is_running, what="no 'No matches'")
            await pilot.pause()
            return app.is_running  # a failed worker ends the app (and run_test raises)
    finally:
        for name, method in installed.items():
            setattr(CommandPalette, name, method)


@pytest.mark.parametrize("hits", [True, False], ids=["hits", "no-matches"])
async def test_a_palette_whose_list_is_gone_ignores_a_late_search(hits: bool) -> None:
    """Property: a search that finishes after the palette lost its list leaves the app up,
    whether it found commands or none."""
    assert await _list_gone_while_searching(fixed=True, hits=hits)


async def test_textual_still_fails_a_late_search_without_a_list() -> None:
    """When this fails, Textual fixed it: the workaround can go."""
    from textual.worker import WorkerFailed

    with pytest.raises(WorkerFailed, match="NoMatches.*CommandList"):
        await _list_gone_while_searching(fixed=False)
