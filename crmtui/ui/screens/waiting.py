"""Waiting for the other person of a dialogue to join the channel (``play --channel``).

Both recordings name both people, so a conversation between two people starts only once
both have opened the instance. This modal says who is awaited and where; it dismisses with
the other person's name when they join, or None when the person gives up (Esc), which
leaves the channel so the other side does not join an empty room.
"""

from __future__ import annotations

import threading

from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.message import Message
from textual.screen import ModalScreen
from textual.widgets import Static

from crmtui.play.channel import Channel
from crmtui.play.dialogue_sides import DialogueCancelled


class PartnerJoined(Message):
    """The other person joined the channel."""

    def __init__(self, name: str) -> None:
        self.name = name
        super().__init__()


class WaitingScreen(ModalScreen[str | None]):
    """Wait for the other side of ``channel``; dismiss with their name (None: gave up)."""

    BINDINGS = [Binding("escape", "give_up", "Stop waiting")]

    def __init__(self, channel: Channel, channel_name: str, joins: str | None = None) -> None:
        """``joins``: how the partner joins, in words (a study's); None: the command line."""
        super().__init__()
        self.channel = channel
        self.channel_name = channel_name
        self.joins = joins
        self._cancel = threading.Event()

    def compose(self) -> ComposeResult:
        other = "user" if self.channel.role == "agent" else "agent"
        command = "--as-user" if other == "user" else "--interactive"
        if self.joins is not None:  # a study: the partner opens the instance in it
            how = f"The {other} joins {self.joins}. The conversation opens when they do."
        else:
            how = (
                f"The {other} joins with\n"
                f"  crmtui play {command} --channel {self.channel_name} "
                f"--idx {self.channel_idx}\n"
                "and the same org, tasks and recordings folder as yours. The conversation "
                "opens when they do."
            )
        with Vertical(classes="dialog"):
            yield Static(f"Waiting for the {other}", classes="dialog-title")
            yield Static(
                f"You play the {self.channel.role} of instance {self.channel_idx} on channel "
                f"{self.channel_name}. {how}",
                classes="dialog-text",
                markup=False,
            )
            yield Static("Esc: stop waiting", classes="dialog-text")

    @property
    def channel_idx(self) -> int:
        """The instance of the conversation (the channel file's first number)."""
        return int(self.channel.path.stem.split("-", 1)[0])

    def on_mount(self) -> None:
        self._wait()

    @work(thread=True, exclusive=True, group="partner")
    def _wait(self) -> None:
        try:
            name = self.channel.wait_for_partner(self._cancel)
        except DialogueCancelled:
            return
        self.post_message(PartnerJoined(name))

    def on_partner_joined(self, event: PartnerJoined) -> None:
        self.dismiss(event.name)

    def action_give_up(self) -> None:
        self._cancel.set()
        self.channel.leave("left before the other person joined")
        self.dismiss(None)

    def on_unmount(self) -> None:
        self._cancel.set()
