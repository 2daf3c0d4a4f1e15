"""BandCompositor: a key typed renders only what it changes, and the screen is the same."""

from __future__ import annotations

from typing import Any

from textual.app import App, ComposeResult
from textual.containers import Horizontal, Vertical
from textual.screen import Screen
from textual.widgets import Static

from crmtui.ui.band_compositor import BandCompositor
from crmtui.ui.widgets.steady_input import SteadyInput
from tests.serve.terminal import Terminal

WIDTH, HEIGHT = 60, 16


class _Panel(Static):
    """A tall panel beside the box that counts the lines it is asked for."""

    asked = 0

    def render_lines(self, crop: Any) -> Any:
        self.asked += crop.height
        return super().render_lines(crop)


class _Play(Screen[None]):
    CSS = """
    #top { height: 1; }
    #side { width: 20; border: round $primary; }
    #main { border: round $secondary; }
    #box { height: 3; }
    """

    def __init__(self) -> None:
        super().__init__()
        self._compositor = BandCompositor()

    def compose(self) -> ComposeResult:
        yield Static("status 0", id="top")
        with Horizontal():
            yield _Panel("\n".join(f"context line {n}" for n in range(30)), id="side")
            with Vertical(id="main"):
                yield Static("a question\n" * 4, id="question")
                yield SteadyInput(placeholder="answer", id="box")
                yield Static("below the box", id="below")


class _App(App[None]):
    def on_mount(self) -> None:
        self.push_screen(_Play())


async def test_keys_render_only_their_rows_and_frames_add_up_to_the_screen() -> None:
    app = _App()
    async with app.run_test(size=(WIDTH, HEIGHT)) as pilot:
        await pilot.pause()
        screen = app.screen
        terminal = Terminal(WIDTH, HEIGHT)
        compositor = screen._compositor
        render_update = compositor.render_update

        def shown(*args: Any, **kwargs: Any) -> Any:
            """Every update the screen sends, applied to the terminal as a browser would."""
            update = render_update(*args, **kwargs)
            if update is not None:
                terminal.feed(update.render_segments(app.console))
            return update

        compositor.render_update = shown  # type: ignore[method-assign]
        screen.refresh()  # a first whole frame, then only changes
        await pilot.pause()
        side = screen.query_one("#side", _Panel)
        screen.query_one("#box", SteadyInput).focus()
        await pilot.pause()
        side.asked = 0
        for n, key in enumerate("typed text"):
            await pilot.press(key if key != " " else "space")
            if n == 4:  # a frame with two changed areas (rows 0 and the box's) at once
                screen.query_one("#top", Static).update("status 1")
        await pilot.pause()
        # The panel beside the box was never asked for its lines (Textual's own compositor
        # asks it for all 14 on every key).
        assert side.asked == 0
        assert "typed text" in terminal.text
        assert "status 1" in terminal.line(0)

        whole = Terminal(WIDTH, HEIGHT)
        whole.feed(compositor.render_update(full=True).render_segments(app.console))
        assert terminal.text == whole.text
