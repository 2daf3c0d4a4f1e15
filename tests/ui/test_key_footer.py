"""The key footer rebuilds only when the keys it shows change (not for every modal)."""

from __future__ import annotations

from textual.widgets._footer import FooterKey

from crmtui.factory import build_play_app
from crmtui.play.cells import ValueRef
from crmtui.ui.screens.viewer import ValueViewerScreen
from crmtui.ui.widgets.footer import KeyFooter
from tests.ui.test_play_flow import _open_first, _wait

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
