"""A submitted instance, opened again: read-only (answer, time, reward where allowed, replay)."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, Label, Static

from crmtui.play.submitted import SubmittedView


class SubmittedScreen(ModalScreen[str | None]):
    """Shows a submitted instance; dismisses with ``"replay"`` when the replay is asked for.

    The replay is offered only where the session may show the reward and the gold answer
    (``reveal``): a replay shows both.
    """

    BINDINGS = [
        Binding("escape", "close", "Close"),
        Binding("r", "replay", "Replay"),
    ]

    def __init__(self, view: SubmittedView, *, reveal: bool) -> None:
        super().__init__()
        self.view = view
        self.reveal = reveal

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog dialog-wide", id="submitted-dialog"):
            yield Label(f"Instance {self.view.idx}: submitted", classes="dialog-title")
            with VerticalScroll(id="submitted-body"):
                # In a browser the recording's path is the server's: not shown.
                text = self.view.text(self.reveal, show_path=not self.app.is_web)
                yield Static(text, markup=False, id="submitted-text")
            with Horizontal(classes="dialog-buttons"):
                yield Button("Close", id="close", variant="primary")
                if self.reveal:
                    yield Button("Replay (r)", id="replay")

    def on_mount(self) -> None:
        self.query_one("#close", Button).focus()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.dismiss("replay" if event.button.id == "replay" else None)

    def action_close(self) -> None:
        self.dismiss(None)

    def action_replay(self) -> None:
        if self.reveal:
            self.dismiss("replay")
