"""A person plays the agent of a dialogue: the play session's conversation with the user.

The play screen's chat region calls these methods. Talking to the user blocks (a simulated
user's model call, or a person in another process typing), so it is split in two: the
screen's worker calls :meth:`AgentSeat.fetch_opening` / :meth:`AgentSeat.fetch_reply`, which
only wait and return the user's :class:`~crmtui.play.dialogue_sides.UserReply`; the screen
then records it on its own thread with :meth:`AgentSeat.user_said`. The person's messages
are recorded by :meth:`AgentSeat.send` at once, before the worker starts waiting.

When the user ends the conversation the session is finished as upstream's runner would:
an accepted last message is submitted and scored (``submit``, the clock stops there), and a
conversation that ran out of user turns, or that the user ended before any message, is
closed at once with that end reason (no answer, reward 0 in the report's multi-turn table).
"""

from __future__ import annotations

import threading
from typing import Any

from crmtui.limits import cap_message
from crmtui.play.dialogue import (
    Dialogue,
    DialogueEnd,
    DialogueSpec,
    Message,
    is_stop,
    message_payload,
)
from crmtui.play.dialogue_sides import UserReply, UserSide
from crmtui.play.session import PlaySession, SessionScore

__all__ = ["AgentSeat"]


class AgentSeat:
    """The agent's seat of a dialogue, taken by a person in a play session.

    Args:
        session: The play session (its header carries ``spec``).
        user: Who answers (a simulated user, or a person through a channel).
        spec: Both sides and the limit.

    Attributes:
        dialogue: The conversation so far.
        score: The score of the accepted answer, once the user accepted one.
    """

    def __init__(self, session: PlaySession, user: UserSide, spec: DialogueSpec) -> None:
        self.session = session
        self.user = user
        self.spec = spec
        self.dialogue = Dialogue(spec.max_user_turns)
        self.score: SessionScore | None = None

    # -- questions -------------------------------------------------------------------------

    @property
    def end(self) -> DialogueEnd | None:
        """How the conversation ended, once it did."""
        return self.dialogue.end

    @property
    def live(self) -> bool:
        """Whether the user is a person elsewhere, listened to all the time (a channel):
        their ``###STOP###`` may come while the agent is still typing."""
        return bool(getattr(self.user, "live", False))

    @property
    def my_turn(self) -> bool:
        """Whether the person (the agent) may send a message now."""
        return self.dialogue.awaiting == "agent"

    # -- blocking waits (a worker thread) --------------------------------------------------

    def fetch_opening(self, cancel: threading.Event | None = None) -> UserReply:
        """Wait for the user's opening message (not recorded here)."""
        return self.user.opening(cancel)

    def fetch_reply(self, text: str, cancel: threading.Event | None = None) -> UserReply:
        """Wait for the user's answer to the person's message ``text`` (not recorded here)."""
        return self.user.reply(text, cancel)

    # -- recorded steps (the screen's thread) ----------------------------------------------

    def user_said(self, reply: UserReply) -> Message:
        """Record the user's message; finish the session when it ended the conversation.

        A ``###STOP###`` that comes while the agent is typing (a person elsewhere) ends the
        conversation there and then, as the end key of a person in this process does.
        """
        if self.dialogue.awaiting == "agent" and is_stop(reply.text):
            message = self.dialogue.user_ends()
            assert message is not None
        else:
            message = self.dialogue.user_says(reply.text)
        self.session.record_dialogue(
            "user_message", message_payload(message, reply.call), self.user.side.id
        )
        if self.dialogue.end is not None:
            self._finish(self.dialogue.end)
        return message

    def send(self, text: str) -> Message:
        """Record the person's message to the user (it is their answer if accepted).

        Raises:
            DialogueError: It is the user's turn, or the conversation is over.
        """
        text = cap_message(text)
        if self.live and self.dialogue.awaiting == "agent":
            # Sent before it is recorded: a message the channel refused is not in the
            # recording as said (the screen says "Not sent" and the person may retry).
            self.user.deliver(text)  # type: ignore[attr-defined]
        message = self.dialogue.agent_says(text)
        self.session.record_dialogue("agent_message", message_payload(message))
        return message

    def user_left(self, why: str) -> None:
        """The user left (or stopped answering): the conversation ends as abandoned."""
        if not self.session.recorder.closed:
            self.session.close(f"abandoned: {why}"[:500])

    def leave(self, why: str) -> None:
        """The person leaves before the end: a person on the user's side is told."""
        if self.live and self.dialogue.end is None:
            self.user.leave(why)  # type: ignore[attr-defined]

    def user_failed(self, error: str) -> None:
        """The user side failed (a simulated user's model error): close the session."""
        if not self.session.recorder.closed:
            self.session.close(f"User model error: {error}"[:500])

    def _finish(self, end: DialogueEnd) -> None:
        reward: float | None = None
        if end.scored and end.answer is not None:
            self.score = self.session.submit(end.answer)
            reward = self.score.reward if self.score is not None else None
        else:
            self.session.close(end.message)
        told = getattr(self.user, "episode_ended", None)
        if told is not None:  # a person on the user's side closes their recording with it
            told(end.end_reason(), reward)


def user_reply_from(value: Any) -> UserReply:
    """A :class:`UserReply` from a worker's result (tests hand plain strings)."""
    return value if isinstance(value, UserReply) else UserReply(str(value))
