"""Who answers the agent: the user side of a dialogue, as the agent's loop sees it.

The agent (a model in :mod:`crmtui.agent.runner`, or a person's play session) asks the user
side for the opening message, then for a reply to each of its messages; both calls block
until the user has spoken. Three kinds of user implement :class:`UserSide`:

* a simulated user (:class:`crmtui.agent.user_sim.SimulatedUser`, a model through litellm);
* :class:`PersonUser`: a person typing in the as-user screen of the same process (the
  screen calls :meth:`PersonUser.say`; the agent's thread waits in :meth:`~PersonUser.reply`);
* :class:`crmtui.play.channel_sides.ChannelUser`: a person in another process (``play --as-user
  --channel NAME``), met on a channel file.

A person may end the conversation at any moment (:meth:`UserSide.ended_by_user`): the agent
stops at its next step and its last message is scored.

``timeout`` (seconds) is the time left in the agent's ``--time-limit``. A model user's call
must end within it; a person's wait ignores it, because the time limit does not count the
time a person takes to answer (see :mod:`crmtui.agent.dialogue_turns`).
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

from crmtui.errors import CrmtuiError
from crmtui.play.dialogue import STOP_TOKEN, Side

__all__ = ["DialogueCancelled", "PersonUser", "UserReply", "UserSide"]

#: How often a waiting thread looks at its cancel event (seconds).
POLL_S = 0.05


class DialogueCancelled(CrmtuiError):
    """The wait for the other side was cancelled (the episode is being stopped)."""


@dataclass(frozen=True)
class UserReply:
    """A user message as it reached the agent.

    Attributes:
        text: The message.
        call: A simulated user's call numbers (``model``, tokens, ``cost``, ``latency_ms``),
            recorded beside the message; None for a person.
    """

    text: str
    call: dict[str, Any] | None = None


class UserSide(Protocol):
    """The user of a dialogue, from the agent's side."""

    side: Side

    def opening(
        self, cancel: threading.Event | None = None, timeout: float | None = None
    ) -> UserReply:
        """The user's first message (it answers the agent's greeting)."""
        ...

    def reply(
        self, agent_text: str, cancel: threading.Event | None = None, timeout: float | None = None
    ) -> UserReply:
        """The user's answer to the agent's message ``agent_text``."""
        ...

    def ended_by_user(self) -> bool:
        """Whether a person ended the conversation while the agent was working."""
        ...


class PersonUser:
    """A person typing as the user, in this process (the as-user screen).

    The screen calls :meth:`say` with each message and :meth:`end` for the end key; the
    agent's worker thread blocks in :meth:`opening` / :meth:`reply` until a message comes.
    ``on_agent_message`` (set by the screen) hears each agent message as it is sent.
    """

    def __init__(self, side: Side, on_agent_message: Callable[[str], None] | None = None) -> None:
        self.side = side
        self.on_agent_message = on_agent_message
        self._messages: queue.Queue[str] = queue.Queue()
        self._ended = threading.Event()
        self._waiting = threading.Event()

    @property
    def waiting(self) -> bool:
        """Whether the agent is waiting for the person's message."""
        return self._waiting.is_set()

    def say(self, text: str) -> None:
        """The person's message (from the UI thread)."""
        self._messages.put(text)

    def end(self) -> None:
        """The person ends the conversation (the end key): ``###STOP###`` if it is their
        turn, else the agent stops at its next step."""
        self._ended.set()
        self._messages.put(STOP_TOKEN)

    def ended_by_user(self) -> bool:
        """True once :meth:`end` was called."""
        return self._ended.is_set()

    def opening(
        self, cancel: threading.Event | None = None, timeout: float | None = None
    ) -> UserReply:
        """Wait for the person's first message (``timeout`` does not bound a person)."""
        return UserReply(self._wait(cancel))

    def reply(
        self, agent_text: str, cancel: threading.Event | None = None, timeout: float | None = None
    ) -> UserReply:
        """Show the agent's message (``on_agent_message``) and wait for the answer
        (``timeout`` does not bound a person)."""
        if self.on_agent_message is not None:
            self.on_agent_message(agent_text)
        return UserReply(self._wait(cancel))

    def _wait(self, cancel: threading.Event | None) -> str:
        self._waiting.set()
        try:
            while True:
                try:
                    return self._messages.get(timeout=POLL_S)
                except queue.Empty:
                    if cancel is not None and cancel.is_set():
                        raise DialogueCancelled("the conversation was stopped") from None
        finally:
            self._waiting.clear()
