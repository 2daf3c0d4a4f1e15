"""The answer box: free text, submit with confirmation, the reward after submission."""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.widgets import Button, Input, Static

from crmtui.play.person_view import ANSWER_FORMAT
from crmtui.ui.widgets.steady_input import SteadyInput


class AnswerBox(Vertical):
    """Type the answer; Enter, the button or the screen's Ctrl+S asks to submit it."""

    class Edited(Message):
        """The answer text changed."""

        def __init__(self, text: str) -> None:
            self.text = text
            super().__init__()

    class SubmitRequested(Message):
        """The user asked to submit ``text`` (the screen confirms first)."""

        def __init__(self, text: str) -> None:
            self.text = text
            super().__init__()

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        # The keys to reach the box and to submit, on the box itself: the footer is cut
        # in a small terminal (a browser at 800x600), the box is always on screen.
        self.border_title = "Answer · F4"
        self.border_subtitle = "Enter or Ctrl+S: submit"
        self.locked = False
        #: Replay and watch show answers; the keys that act on them are not theirs.
        self.read_only = False

    def compose(self) -> ComposeResult:
        with Horizontal(id="answer-row"):
            yield SteadyInput(
                # The answer-format rules every model is given, and nothing about this one.
                placeholder=ANSWER_FORMAT,
                id="answer-input",
            )
            yield Button("Submit", id="answer-submit", variant="primary")
        yield Static("", id="answer-result")

    @property
    def text(self) -> str:
        """The current answer text."""
        return self.query_one("#answer-input", Input).value

    def set_text(self, text: str) -> None:
        """Set the answer text (agents and replay fill it)."""
        self.query_one("#answer-input", Input).value = text

    def on_input_changed(self, event: Input.Changed) -> None:
        event.stop()
        if not self.locked:
            self.post_message(self.Edited(event.value))

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.action_submit()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.action_submit()

    def action_submit(self) -> None:
        if self.locked:
            self.notify("Already submitted: press n for the next instance")
            return
        self.post_message(self.SubmitRequested(self.text))

    def set_read_only(self) -> None:
        """Show answers without accepting input (replay, watch): no prompt to type, no hint."""
        self.locked = True
        self.read_only = True
        self.border_title, self.border_subtitle = "Answer", ""
        answer = self.query_one("#answer-input", Input)
        answer.placeholder = "(no answer yet)"
        answer.disabled = True
        self.query_one("#answer-submit", Button).disabled = True

    def show_note(self, text: Text | str) -> None:
        """Replace the result line with ``text`` (e.g. "not submitted yet")."""
        self.query_one("#answer-result", Static).update(text)

    def show_submitted(self) -> None:
        """Lock the box and say it was submitted, without the reward or the gold (blind)."""
        self.locked = True
        self.border_subtitle = ""  # nothing more to submit
        self.query_one("#answer-input", Input).disabled = True
        self.query_one("#answer-submit", Button).disabled = True
        text = Text("Submitted.", style="bold")
        text.append("   · F9: next instance", style="dim")
        self.query_one("#answer-result", Static).update(text)

    def show_result(self, reward: float, gold: Any, metric: str) -> None:
        """Lock the box and show the reward, the metric that gave it (``token F1``,
        ``exact match, strict``) and the (now revealed) gold answer."""
        self.locked = True
        self.border_subtitle = ""  # nothing more to submit
        self.query_one("#answer-input", Input).disabled = True
        self.query_one("#answer-submit", Button).disabled = True
        good = reward >= 1.0
        text = Text(
            "✔ correct" if good else ("✘ wrong" if reward == 0 else "≈ partial"),
            style="bold green" if good else "bold red",
        )
        text.append(f"   reward {reward:.2f} ({metric})   gold: ")
        text.append(str(gold if gold is not None else "None"), style="bold")
        if not self.read_only:
            text.append("   · F9: next instance", style="dim")
        self.query_one("#answer-result", Static).update(text)
