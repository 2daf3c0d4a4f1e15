"""The chat region of a dialogue: the conversation so far, and a reply box.

Used from either seat: a person playing the agent (play), a person playing the user (play
``--as-user``), and read-only for watching a model agent talk to a simulated user. The
widget only shows what it is told (:meth:`ChatPanel.add_message`, :meth:`ChatPanel.set_state`)
and posts :class:`ChatPanel.ReplySent` when Enter is pressed in the reply box while it is the
person's turn; the screen records and sends. The reply box stays open while the other side
is answering (the next message can be drafted; Enter then says to wait and keeps the text),
so keys typed at any moment land in it, never in the screen's letter shortcuts; it closes
when the conversation ends. The reply box is a :class:`SteadyInput`, like the answer box, so keys
reach it in the order they were typed and Enter sends exactly what was typed before it.
"""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical, VerticalScroll
from textual.message import Message
from textual.widgets import Input, Static

from crmtui.limits import MAX_MESSAGE_CHARS
from crmtui.play.dialogue import STOP_TOKEN
from crmtui.ui.widgets.steady_input import SteadyInput

#: How the other side and oneself are named, by the seat (``me``) taken.
_NAMES = {"agent": ("User", "You"), "user": ("Agent", "You"), "watch": ("User", "Agent")}


class ChatPanel(Vertical):
    """The conversation and the reply box.

    Args:
        me: The seat: ``agent`` (a person plays the agent), ``user`` (a person plays the
            user) or ``watch`` (read-only: a model agent and a simulated user).
        title: The region's border title.
    """

    DEFAULT_CSS = """
    ChatPanel {
        border: round $secondary;
        padding: 0 1;
    }
    ChatPanel:focus-within {
        border: round $accent;
    }
    ChatPanel #chat-log {
        height: 1fr;
    }
    ChatPanel .chat-message {
        margin: 0 0 0 0;
    }
    ChatPanel #chat-input {
        height: 3;
    }
    ChatPanel #chat-status {
        height: 1;
        color: $text-muted;
    }
    ChatPanel.read-only #chat-input {
        display: none;
    }
    """

    class ReplySent(Message):
        """The person pressed Enter on ``text`` (never empty)."""

        def __init__(self, text: str) -> None:
            self.text = text
            super().__init__()

    def __init__(self, me: str = "agent", *, title: str = "Conversation", **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.me = me
        self.border_title = title
        self._other, self._self = _NAMES.get(me, _NAMES["agent"])
        #: The messages shown, as ``(role, text)`` (tests and screenshots read them).
        self.messages: list[tuple[str, str]] = []
        #: Whether Enter sends now (the person's turn).
        self.can_send = False
        self.set_class(me == "watch", "read-only")

    def compose(self) -> ComposeResult:
        yield VerticalScroll(id="chat-log")
        placeholder = "Type your message to the user; Enter sends it"
        if self.me == "user":
            placeholder = "Type your message to the agent; Enter sends it"
        # One message holds at most the one cap (a paste past it is cut where it is typed).
        yield SteadyInput(
            placeholder=placeholder,
            id="chat-input",
            disabled=self.me == "watch",
            max_length=MAX_MESSAGE_CHARS,
        )
        yield Static("", id="chat-status")

    # -- attributes down -------------------------------------------------------------------

    def add_message(self, role: str, text: str) -> None:
        """Show one message (``role``: ``user`` or ``agent``) at the end of the log."""
        self.messages.append((role, text))
        mine = (role == self.me) or (self.me == "watch" and role == "agent")
        name = self._self if mine else self._other
        line = Text()
        line.append(f"{name}: ", style="bold green" if mine else "bold cyan")
        if role == "user" and STOP_TOKEN in text:
            line.append(text, style="bold")
            line.append("  (ends the conversation)", style="dim")
        else:
            line.append(text)
        log = self.query_one("#chat-log", VerticalScroll)
        log.mount(Static(line, classes="chat-message"))
        log.scroll_end(animate=False)

    def add_note(self, text: str) -> None:
        """A line that is not a message (the greeting, how the conversation ended)."""
        log = self.query_one("#chat-log", VerticalScroll)
        log.mount(Static(Text(text, style="dim italic"), classes="chat-message"))
        log.scroll_end(animate=False)

    def set_state(self, can_reply: bool, status: str = "") -> None:
        """Whether Enter sends now, and what is happening (the status line)."""
        self.can_send = can_reply and self.me != "watch"
        self.query_one("#chat-status", Static).update(Text(status))

    def close(self, status: str) -> None:
        """The conversation is over: the reply box closes; ``status`` says how it ended."""
        self.can_send = False
        self.query_one("#chat-input", Input).disabled = True
        self.query_one("#chat-status", Static).update(Text(status))

    def focus_reply(self) -> None:
        """Put the cursor in the reply box (when it is open)."""
        box = self.query_one("#chat-input", Input)
        if not box.disabled:
            box.focus()

    @property
    def draft(self) -> str:
        """What is typed in the reply box."""
        return self.query_one("#chat-input", Input).value

    # -- messages up -----------------------------------------------------------------------

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        text = event.value.strip()
        if not text or event.input.disabled:
            return
        if not self.can_send:
            self.notify("Wait for the other side's message; your text is kept.")
            return
        event.input.value = ""
        self.post_message(self.ReplySent(text))

    def on_input_changed(self, event: Input.Changed) -> None:
        event.stop()  # the answer box's Edited handlers must not see the reply box
