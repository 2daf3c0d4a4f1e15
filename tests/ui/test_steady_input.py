"""SteadyInput: edits repaint the box without a screen layout, and long text still scrolls."""

from __future__ import annotations

from textual.app import App, ComposeResult
from textual.widgets import Input

from crmtui.ui.widgets.steady_input import SteadyInput


class _Box(App[None]):
    CSS = "Input { width: 30; height: 3; }"

    def compose(self) -> ComposeResult:
        yield SteadyInput(id="steady")
        yield Input(id="plain")


async def test_typing_needs_no_layout_and_long_text_scrolls() -> None:
    app = _Box()
    async with app.run_test(size=(60, 10)) as pilot:
        layouts = {"steady": 0, "plain": 0}
        for name in layouts:
            box = app.query_one(f"#{name}", Input)

            def counting(*args: object, _box=box, _name=name, **kwargs: object) -> object:
                layouts[_name] += bool(kwargs.get("layout"))
                return type(_box).refresh(_box, *args, **kwargs)

            box.refresh = counting  # type: ignore[method-assign]
        steady = app.query_one("#steady", SteadyInput)
        steady.focus()
        await pilot.press(*"x" * 60)
        app.query_one("#plain", Input).focus()
        await pilot.press(*"y" * 5)
        await pilot.pause()
        assert steady.value == "x" * 60
        assert steady.scroll_x > 0  # the cursor at the end is still in view
        assert steady.virtual_size.width >= 60
        assert layouts["steady"] <= 1  # 60 keys (one layout may come from the first focus)
        assert layouts["plain"] >= 5  # the stock Input asks for one per key: the check can fail
