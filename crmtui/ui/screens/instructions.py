"""The study's instructions (and consent) page, shown before the first instance.

It shows the Markdown text and dismisses with True ("I accept") or False ("I do not
accept"); the app records the answer through the plan and opens nothing without an
acceptance. Accepting takes a button: no single letter, so a key meant for something else
cannot agree by accident.
"""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, VerticalScroll
from textual.screen import Screen
from textual.widgets import Button, Label, Markdown, Static

from crmtui.play.policy import Instructions
from crmtui.ui.widgets.footer import KeyFooter


class InstructionsScreen(Screen[bool]):
    """Read the instructions; accept or decline them."""

    CSS_PATH = "instructions.tcss"
    HELP_GROUP = "Instructions"
    BINDINGS = [
        Binding("pagedown,space", "page(1)", "Page down", show=False),
        Binding("pageup", "page(-1)", "Page up", show=False),
    ]

    def __init__(self, instructions: Instructions) -> None:
        super().__init__()
        self.instructions = instructions

    def compose(self) -> ComposeResult:
        yield Label(self.instructions.title, id="instructions-title")
        with VerticalScroll(id="instructions-scroll"):
            yield Markdown(self.instructions.text, id="instructions-text")
        with Horizontal(id="instructions-buttons"):
            yield Button("I accept", id="accept", variant="success")
            yield Button("I do not accept", id="decline", variant="error")
            yield Static(
                "Read to the end (↓, PgDn), then Tab to a button and press Enter.",
                id="instructions-hint",
            )
        yield KeyFooter()

    def on_mount(self) -> None:
        self.query_one("#instructions-scroll").focus()

    def action_page(self, direction: int) -> None:
        scroll = self.query_one("#instructions-scroll", VerticalScroll)
        if direction > 0:
            scroll.scroll_page_down()
        else:
            scroll.scroll_page_up()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.dismiss(event.button.id == "accept")
