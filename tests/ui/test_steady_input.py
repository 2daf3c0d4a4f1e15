"""SteadyInput: edits repaint the box without a screen layout, and long text still scrolls."""

from __future__ import annotations

import pytest
from textual.app import App, ComposeResult
from textual.widgets import Input

from crmtui.ui.widgets.steady_input import SteadyInput
from tests.waiting import until


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


class _Capped(App[None]):
    def compose(self) -> ComposeResult:
        yield SteadyInput(id="capped", max_length=20)


@pytest.mark.parametrize(
    ("before", "cursor", "selected", "pasted"),
    [
        ("", 0, 0, "p" * 21),  # one past the cap
        ("", 0, 0, "p" * (20 * 1024 * 1024)),  # the 20 MB paste
        ("abcdef", 3, 0, "p" * 30),  # in the middle of a draft
        ("abcdef", 1, 3, "p" * 30),  # over a selection, whose room it takes
        ("a" * 20, 20, 0, "p"),  # a full box
        ("abc", 3, 0, "pp\nsecond line"),  # fits: Input's own paste (the first line)
    ],
)
async def test_a_paste_past_max_length_keeps_what_fits(
    before: str, cursor: int, selected: int, pasted: str
) -> None:
    """The property: after any paste the box holds exactly what typing the paste's first line
    would have, up to ``max_length`` (Textual's Input refused a longer paste whole, leaving
    a 20 MB paste into the 20,000-character chat box empty with no word)."""
    from textual import events
    from textual.widgets._input import Selection

    app = _Capped()
    async with app.run_test(size=(60, 10)) as pilot:
        box = app.query_one("#capped", SteadyInput)
        box.focus()
        box.value = before
        box.selection = Selection(cursor, cursor + selected)
        box.post_message(events.Paste(pasted))
        line = pasted.splitlines()[0]
        typed = before[:cursor] + line + before[cursor + selected :]
        room = 20 - (len(before) - selected)
        expected = before[:cursor] + line[:room] + before[cursor + selected :]
        await until(pilot, lambda: box.value == expected)
        assert len(box.value) <= 20
        if len(typed) > 20:
            await until(
                pilot, lambda: any("cut to fit" in str(n.message) for n in app._notifications)
            )
