"""The key footer rebuilds only when the keys it shows change (not for every modal)."""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.css.stylesheet import Stylesheet
from textual.widgets import Label
from textual.widgets._footer import FooterKey

from crmtui.factory import build_play_app
from crmtui.play.cells import ValueRef
from crmtui.ui.screens.viewer import ValueViewerScreen
from crmtui.ui.widgets.footer import KeyFooter
from tests.ui.test_play_flow import _open_first, _wait
from tests.waiting import until

SIZE = (160, 48)


def _shown(footer: KeyFooter) -> set[str]:
    return {key.description for key in footer.query(FooterKey)}


def _current(footer: KeyFooter) -> bool:
    """Whether the footer shows the keys its screen's bindings have now."""
    return footer._shown == footer._keys()


async def test_footer_skips_rebuilds_for_modals_and_follows_focus(
    workspace, play_config, clock, wall
):
    app = build_play_app(play_config, workspace=workspace, clock=clock, wall=wall)
    async with app.run_test(size=SIZE) as pilot:
        screen = await _open_first(pilot)
        footer = screen.query_one(KeyFooter)
        await _wait(pilot, lambda: _current(footer))
        rebuilds: list[int] = []
        original = footer.recompose

        async def counted() -> None:
            rebuilds.append(1)
            await original()

        footer.recompose = counted  # type: ignore[method-assign]
        # A modal over the play screen and back: the play screen's keys did not change.
        app.push_screen(ValueViewerScreen("some text", ValueRef("record", "Body", "Case", "x")))
        await _wait(pilot, lambda: isinstance(app.screen, ValueViewerScreen))
        await pilot.press("escape")
        await _wait(pilot, lambda: app.screen is screen)
        await pilot.pause(0.05)
        assert rebuilds == []
        # Focus moves to the console editor: its keys differ, so the footer follows.
        before = _shown(footer)
        await pilot.press("f3")
        await _wait(pilot, lambda: bool(rebuilds) and _current(footer))
        assert rebuilds and _shown(footer) != before


class _Keys(App[None]):
    BINDINGS = [
        Binding("a", "bell", "Alpha"),
        Binding("b", "focus_next", "Beta"),
        Binding("c", "focus_previous", "Gamma"),
    ]

    def __init__(self, compact: bool) -> None:
        super().__init__()
        self.compact = compact

    def compose(self) -> ComposeResult:
        yield Label("keys")
        yield KeyFooter(compact=self.compact)


@pytest.mark.parametrize("compact", [False, True])
async def test_footer_keys_are_styled_once_in_the_footers_style(monkeypatch, compact):
    # A key made compact and switched to its footer's style on mount was restyled once or
    # twice more (the class on, then off) before it could be drawn.
    styled: Counter[FooterKey] = Counter()
    original = Stylesheet.apply

    def apply(self: Stylesheet, node: Any, *args: Any, **kwargs: Any) -> Any:
        if isinstance(node, FooterKey):
            styled[node] += 1
        return original(self, node, *args, **kwargs)

    monkeypatch.setattr(Stylesheet, "apply", apply)
    app = _Keys(compact)
    async with app.run_test(size=(80, 10)) as pilot:
        footer = app.query_one(KeyFooter)
        await until(pilot, lambda: {"Alpha", "Beta", "Gamma"} <= _shown(footer), seconds=30)
        await pilot.pause(0.05)
        keys = list(footer.query(FooterKey))
        # Textual binds every key but the command palette's to the footer's style.
        bound = [key for key in keys if not key.has_class("-command-palette")]
        assert len(bound) == 3 and {key.compact for key in bound} == {compact}
        assert all(key.has_class("-compact") == key.compact for key in keys)
        assert [styled[key] for key in bound] == [1, 1, 1]
