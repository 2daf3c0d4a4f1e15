"""A person plays the user of a dialogue (``crmtui play --as-user``): their own recording.

The person sees the persona and the hidden instruction (the query, and the hidden facts a
generated instance has), never the gold answer, and talks to an agent: a model running in
the same process, or another person of the same study in theirs. Both sides record: the
agent's recording holds the episode (its queries, its messages, the user's messages, the
score), and this one the person's side of it (their messages, the agent's as they arrived,
idle time, how it ended), with the same ``dialogue`` id in both headers.

:class:`UserSeat` is the core the as-user screen calls: :meth:`UserSeat.say` and
:meth:`UserSeat.end` (the end key, which records ``###STOP###``) for the person,
:meth:`UserSeat.agent_said` for each agent message as it arrives, :meth:`UserSeat.finish`
once the agent's episode is over. Nothing here imports textual.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from crmtui.limits import cap_message
from crmtui.play.dialogue import (
    ACCEPTED,
    Dialogue,
    DialogueError,
    DialogueSpec,
    Message,
    message_payload,
)
from crmtui.play.dialogue_facts import facts_lines
from crmtui.play.session import PlaySession

__all__ = ["Brief", "UserSeat"]


@dataclass(frozen=True)
class Brief:
    """What the person playing the user is told (never the gold answer).

    Attributes:
        persona: Who they are.
        instruction: What they want (the instance's query), hidden from the agent.
        facts: What else they know, as ``name: value`` lines (generated instances).
    """

    persona: str | None
    instruction: str
    facts: tuple[str, ...] = ()

    @classmethod
    def of(cls, instance: Any, facts: Any = None) -> Brief:
        """The brief for ``instance`` with its hidden ``facts`` (None: none)."""
        return cls(getattr(instance, "persona", None), instance.query, tuple(facts_lines(facts)))


class UserSeat:
    """The user's seat of a dialogue, taken by a person.

    Args:
        session: The person's play session; its header's ``dialogue`` has role ``user``.
        spec: Both sides, the limit and the dialogue id.
        send: Delivers the person's message to the agent (a
            :class:`~crmtui.play.dialogue_sides.PersonUser`'s ``say``, or a channel's).
        stop: Tells the agent the person ended the conversation (``PersonUser.end``).

    Attributes:
        dialogue: The conversation as this side saw it.
        outcome: The agent episode's end reason once :meth:`finish` ran.
    """

    def __init__(self, session: PlaySession, spec: DialogueSpec, send: Any, stop: Any) -> None:
        self.session = session
        self.spec = spec
        self._send = send
        self._stop = stop
        self.dialogue = Dialogue(spec.max_user_turns)
        self.outcome: dict[str, Any] | None = None

    @property
    def my_turn(self) -> bool:
        """Whether the person may send a message now."""
        return self.dialogue.awaiting == "user"

    @property
    def over(self) -> bool:
        """Whether the conversation is over for this side."""
        return self.dialogue.ended or self.outcome is not None

    def say(self, text: str) -> Message:
        """Record the person's message and send it to the agent.

        Raises:
            DialogueError: It is the agent's turn, or the conversation is over.
        """
        if self.outcome is not None:
            raise DialogueError("the conversation is over")
        if not self.my_turn:
            raise DialogueError("it is the agent's turn" if not self.dialogue.ended
                                else "the conversation is over")  # fmt: skip
        # Sent before it is recorded: a message the channel to a person agent refused is
        # not in the recording as said (the screen says "Not sent").
        text = cap_message(text)
        self._send(text)
        message = self.dialogue.user_says(text)
        self.session.record_dialogue("user_message", message_payload(message))
        return message

    def end(self) -> Message | None:
        """The end key: record ``###STOP###`` and tell the agent (at any moment)."""
        if self.over:
            return None
        message = self.dialogue.user_ends()
        if message is not None:
            self.session.record_dialogue("user_message", message_payload(message))
        self._stop()
        return message

    def agent_said(self, text: str) -> Message | None:
        """Record the agent's message as it arrived (None when the conversation is over)."""
        if self.over:
            return None
        message = self.dialogue.agent_says(text)
        self.session.record_dialogue("agent_message", message_payload(message), self.spec.agent.id)
        return message

    def finish(self, end_reason: dict[str, Any], reward: float | None = None) -> None:
        """The agent's episode ended: close this recording with its end message.

        ``reward`` is the agent's (recorded for reading; the agent's recording is what a
        report counts).
        """
        self.outcome = dict(end_reason)
        if self.session.recorder.closed:
            return
        message = str(end_reason.get("message") or "finished")
        self.session.close(message, reward if message == ACCEPTED else None)
