"""A model agent's side of a dialogue: the conversation with the user, recorded as it goes.

:func:`crmtui.agent.runner.run_instance` takes a :class:`DialogueDriver` in the multi-turn
mode. The driver asks the user side (:mod:`crmtui.play.dialogue_sides`) for the opening
message (the agent's first user message instead of the query), sends each ``respond`` to
the user and brings back the reply, and records both as ``user_message`` and
``agent_message`` events, a user's with the user's actor id.

The time limit: a **person's** time to answer is not counted (a person may think for
minutes; :attr:`DialogueDriver.waited_s` keeps it for the runner to leave out), while a
**model** user's calls are part of the instance: each is given the time left as its
timeout, so a stalling user model cannot hold the instance past ``--time-limit``.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

from crmtui.play.dialogue import Dialogue, DialogueEnd, message_payload
from crmtui.play.dialogue_sides import UserReply, UserSide

__all__ = ["DialogueDriver", "EmitAs"]

#: ``emit(event_type, payload, actor)``: ``actor`` None is the recording's own actor.
EmitAs = Callable[[str, dict[str, Any], "str | None"], None]


class DialogueDriver:
    """The conversation of one episode between a model agent and ``user``.

    Args:
        user: The user side.
        max_user_turns: User replies allowed.
        emit: Records an event as a given actor (``AgentSession.emit``).
        clock: Monotonic seconds (the time spent waiting for the user).
        on_message: Hears every message once recorded, as ``(role, text)`` (a UI).
        one_more_action: Count the turn limit as upstream HEAD does (``--preset head``): one
            more agent action after the user's last allowed reply.

    Attributes:
        dialogue: The conversation so far.
        waited_s: Seconds spent waiting for a person (a model user's time is not in it).
        timed: Whether the user's time counts against the time limit (a model user).
    """

    def __init__(
        self,
        user: UserSide,
        max_user_turns: int,
        emit: EmitAs,
        clock: Callable[[], float] = time.monotonic,
        on_message: Callable[[str, str], None] | None = None,
        one_more_action: bool = False,
    ) -> None:
        self.user = user
        self._on_message = on_message
        self.dialogue = Dialogue(max_user_turns, one_more_action=one_more_action)
        self._emit = emit
        self._clock = clock
        self.waited_s = 0.0
        self.timed = user.side.kind == "model"

    def _ask(self, ask: Callable[[float | None], UserReply], timeout: float | None) -> UserReply:
        """Run ``ask(timeout)``: a model user within ``timeout``; a person unbounded, with
        the wait added to :attr:`waited_s`."""
        if self.timed:
            return ask(None if timeout is None else max(0.0, timeout))
        began = self._clock()
        try:
            return ask(None)
        finally:
            self.waited_s += self._clock() - began

    def open(self, cancel: threading.Event | None = None, timeout: float | None = None) -> str:
        """The user's opening message (recorded); it replaces the query in the prompt.

        ``timeout``: seconds left in the time limit (binding a model user only).
        """
        reply = self._ask(lambda left: self.user.opening(cancel, timeout=left), timeout)
        message = self.dialogue.user_says(reply.text)
        self._emit("user_message", message_payload(message, reply.call), self.user.side.id)
        self._heard("user", message.text)
        return message.text

    def respond(
        self, text: str, cancel: threading.Event | None = None, timeout: float | None = None
    ) -> tuple[str, DialogueEnd | None]:
        """Send the agent's message; the user's reply and, when it ended, how.

        ``timeout``: seconds left in the time limit (binding a model user only).
        """
        message = self.dialogue.agent_says(text)
        self._emit("agent_message", message_payload(message), None)
        self._heard("agent", message.text)
        # What the user hears is what is recorded: the message, cut to the cap.
        reply = self._ask(lambda left: self.user.reply(message.text, cancel, timeout=left), timeout)
        answer = self.dialogue.user_says(reply.text)
        self._emit("user_message", message_payload(answer, reply.call), self.user.side.id)
        self._heard("user", answer.text)
        return answer.text, self.dialogue.end

    def ended_by_user(self) -> DialogueEnd | None:
        """How it ended, when a person ended it while the agent was working (recorded)."""
        if self.dialogue.ended or not self.user.ended_by_user():
            return None
        message = self.dialogue.user_ends()
        if message is not None:
            self._emit("user_message", message_payload(message), self.user.side.id)
            self._heard("user", message.text)
        return self.dialogue.end

    def _heard(self, role: str, text: str) -> None:
        if self._on_message is not None:
            self._on_message(role, text)
