"""CRMArena-Pro's multi-turn mode: the conversation between an agent and a user, as a pure core.

In the interactive mode the agent never sees the instance's query: a user (a model told the
persona and the hidden instruction, or a person) opens the conversation, the agent answers
with messages (its ``respond`` actions), and the user replies to each one. The episode ends
when the user ends it with :data:`STOP_TOKEN` (upstream's protocol token), then the agent's
last message is the scored answer; or after ``max_user_turns`` user replies without it, with
no answer (reward 0, as upstream).

Who calls it: the agent runner (a model as the agent, :mod:`crmtui.agent.runner`), the play
session (a person as the agent), the as-user session (a person as the user) and the review
code that reads dialogues back from recordings. Nothing here does I/O.

Recording shape (see :mod:`crmtui.record.events`): each message is an event,
``user_message`` (``text``, ``turn``, ``stop``; a simulated user's call numbers beside) or
``agent_message`` (``text``, ``turn``), with the ``actor`` of the side that said it; the
header's ``dialogue`` object (:class:`DialogueSpec`) names both sides and the limit. A
dialogue that the user accepted ends with the usual ``submit`` of the last agent message.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from crmtui.errors import CrmtuiError
from crmtui.limits import DEFAULT_MAX_USER_TURNS, cap_message

__all__ = [
    "ACCEPTED",
    "DEFAULT_MAX_USER_TURNS",
    "GREETING",
    "MAX_USER_TURNS",
    "ROLES",
    "STOPPED_EARLY",
    "STOP_TOKEN",
    "Dialogue",
    "DialogueEnd",
    "DialogueError",
    "DialogueSpec",
    "Message",
    "Side",
    "is_stop",
    "message_payload",
]

#: What a user writes to end the conversation (upstream's token, matched anywhere in the text).
STOP_TOKEN = "###STOP###"
#: The agent's fixed greeting a user answers with the opening message.
GREETING = "Hello! What can I help you with today?"
#: The two sides of a conversation.
ROLES = ("agent", "user")

#: End message when the user ends the conversation after an agent message (scored), named as
#: upstream names the end of an answered episode.
ACCEPTED = "Submit action"
#: End message when the user's replies ran out without ``###STOP###`` (upstream's).
MAX_USER_TURNS = "Max user turns reached"
#: End message when the user ended before the agent said anything (nothing to score).
STOPPED_EARLY = "User stopped before any response"


class DialogueError(CrmtuiError):
    """A dialogue step that cannot happen now (a message out of turn, after the end)."""


def is_stop(text: str) -> bool:
    """Whether a user message ends the conversation (it holds :data:`STOP_TOKEN`)."""
    return STOP_TOKEN in text


@dataclass(frozen=True)
class Side:
    """Who plays one side of a dialogue.

    Attributes:
        kind: ``human`` or ``model``.
        id: The annotator's name or the model's litellm name.
        strategy: A model agent's strategy (``react``).
        settings: A model's call settings (a simulated user's temperature, server, prompt
            digest, whether it knew the instance's hidden facts).
    """

    kind: str
    id: str
    strategy: str | None = None
    settings: Mapping[str, Any] | None = None

    @property
    def label(self) -> str:
        """``alice``, ``gpt-4o (react)``."""
        return f"{self.id} ({self.strategy})" if self.strategy else self.id

    def to_json(self) -> dict[str, Any]:
        """The side as the recording header holds it."""
        value: dict[str, Any] = {"kind": self.kind, "id": self.id}
        if self.strategy is not None:
            value["strategy"] = self.strategy
        if self.settings is not None:
            value["settings"] = dict(self.settings)
        return value

    @classmethod
    def from_json(cls, value: Mapping[str, Any]) -> Side:
        """The inverse of :meth:`to_json` (the header was validated already)."""
        settings = value.get("settings")
        return cls(
            str(value["kind"]),
            str(value["id"]),
            value.get("strategy"),
            dict(settings) if isinstance(settings, Mapping) else None,
        )


@dataclass(frozen=True)
class DialogueSpec:
    """The header's ``dialogue`` object: both sides, the role recorded, and the limit.

    Attributes:
        role: The side the recording's actor plays (``agent`` or ``user``).
        agent: Who plays the agent.
        user: Who plays the user.
        max_user_turns: User replies allowed.
        dialogue_id: Shared by the two recordings of one conversation when each side records
            its own (a person as the user); None when one recording holds it all.
        one_more_action: The limit counted as upstream HEAD counts it (``--preset head``):
            one more agent action after the user's last allowed reply.
    """

    role: str
    agent: Side
    user: Side
    max_user_turns: int = DEFAULT_MAX_USER_TURNS
    dialogue_id: str | None = None
    one_more_action: bool = False

    @property
    def own(self) -> Side:
        """The side the recording's actor plays."""
        return self.agent if self.role == "agent" else self.user

    @property
    def partner(self) -> Side:
        """The other side."""
        return self.user if self.role == "agent" else self.agent

    @property
    def pairing(self) -> str:
        """``model/model``, ``human/model``, ... (the agent's kind first, then the user's)."""
        return f"{self.agent.kind}/{self.user.kind}"

    def to_json(self) -> dict[str, Any]:
        """The header's ``dialogue`` object."""
        value: dict[str, Any] = {
            "role": self.role,
            "agent": self.agent.to_json(),
            "user": self.user.to_json(),
            "max_user_turns": self.max_user_turns,
        }
        if self.dialogue_id is not None:
            value["id"] = self.dialogue_id
        if self.one_more_action:
            value["one_more_action"] = True
        return value

    @classmethod
    def from_json(cls, value: Mapping[str, Any]) -> DialogueSpec:
        """The inverse of :meth:`to_json`."""
        return cls(
            str(value["role"]),
            Side.from_json(value["agent"]),
            Side.from_json(value["user"]),
            int(value.get("max_user_turns", DEFAULT_MAX_USER_TURNS)),
            value.get("id"),
            value.get("one_more_action") is True,
        )

    @classmethod
    def from_header(cls, header: Mapping[str, Any]) -> DialogueSpec | None:
        """The dialogue a recording header names, or None for a single-turn session."""
        value = header.get("dialogue")
        return cls.from_json(value) if isinstance(value, Mapping) else None


@dataclass(frozen=True)
class Message:
    """One message of the conversation.

    Attributes:
        role: ``user`` or ``agent``.
        text: What was said.
        turn: The user's opening message is turn 0; the agent's k-th message and the user's
            reply to it are turn k.
        stop: A user message that ends the conversation.
    """

    role: str
    text: str
    turn: int
    stop: bool = False


@dataclass(frozen=True)
class DialogueEnd:
    """How a conversation ended, as an ``end_reason`` (``{source, message[, content]}``).

    Attributes:
        message: :data:`ACCEPTED`, :data:`MAX_USER_TURNS` or :data:`STOPPED_EARLY`.
        source: ``agent`` for an accepted answer (as upstream), ``user`` otherwise.
        answer: The agent's last message, scored when ``message`` is :data:`ACCEPTED`.
    """

    message: str
    source: str
    answer: str | None = None
    #: The end reason upstream HEAD records instead, where it words this end its own way
    #: (at the limit, counted as upstream counts: ``one_more_action``).
    upstream_reason: Mapping[str, Any] | None = field(default=None, compare=False)

    @property
    def scored(self) -> bool:
        """Whether the agent's last message is scored (the user accepted it)."""
        return self.message == ACCEPTED

    def end_reason(self) -> dict[str, Any]:
        """The ``end_reason`` upstream's runner would record."""
        if self.upstream_reason is not None:
            return dict(self.upstream_reason)
        reason: dict[str, Any] = {"source": self.source, "message": self.message}
        if self.answer is not None:
            reason["content"] = self.answer
            if self.scored:
                reason["parsed_answer"] = self.answer
        return reason


@dataclass
class Dialogue:
    """The state of one conversation: strict turns, the user opens, the user ends.

    Attributes:
        max_user_turns: User replies allowed (the opening message does not count).
        messages: Every message so far.
        end: How it ended, once it did.
        one_more_action: Count as upstream HEAD's InteractiveChatEnv (see the field).
    """

    max_user_turns: int = DEFAULT_MAX_USER_TURNS
    messages: list[Message] = field(default_factory=list)
    end: DialogueEnd | None = None
    #: Upstream HEAD's count: after the user's ``max_user_turns``-th reply the agent gets one
    #: more action (a query, or a message the user answers once more, a STOP there scored).
    one_more_action: bool = False

    def __post_init__(self) -> None:
        if isinstance(self.max_user_turns, bool) or self.max_user_turns < 1:
            raise DialogueError(f"max user turns must be at least 1, not {self.max_user_turns}")

    # -- questions -------------------------------------------------------------------------

    @property
    def ended(self) -> bool:
        """Whether the conversation is over."""
        return self.end is not None

    @property
    def awaiting(self) -> str | None:
        """Whose turn it is (``user`` or ``agent``), None once ended."""
        if self.end is not None:
            return None
        if not self.messages or self.messages[-1].role == "agent":
            return "user"
        return "agent"

    @property
    def user_turns(self) -> int:
        """User replies to agent messages so far (upstream's user turn count)."""
        return sum(1 for m in self.messages if m.role == "user" and m.turn > 0)

    @property
    def agent_turns(self) -> int:
        """Agent messages so far."""
        return sum(1 for m in self.messages if m.role == "agent")

    @property
    def last_response(self) -> str | None:
        """The agent's last message (the answer scored when the user accepts)."""
        for message in reversed(self.messages):
            if message.role == "agent":
                return message.text
        return None

    @property
    def replies_left(self) -> int:
        """User replies left before the episode ends without an answer."""
        return max(0, self.max_user_turns - self.user_turns)

    # -- steps -----------------------------------------------------------------------------

    def user_says(self, text: str) -> Message:
        """The user's message: the opening, or a reply to the agent's last message.

        Every message is cut to :data:`~crmtui.limits.MAX_MESSAGE_CHARS`
        (:func:`~crmtui.limits.cap_message`): what is recorded and shown is ``message.text``.

        Raises:
            DialogueError: It is the agent's turn, or the conversation is over.
        """
        if self.awaiting != "user":
            raise DialogueError(self._out_of_turn("user"))
        # The stop is read from the whole text; what is kept is at most the message cap.
        message = Message("user", cap_message(text), self.agent_turns, is_stop(text))
        self.messages.append(message)
        if message.stop:
            self._finish()
        elif self.user_turns >= self.max_user_turns + (1 if self.one_more_action else 0):
            # Upstream's env records the user's reply to the one more message as the reason.
            upstream = {"source": "user", "message": "Respond action", "content": text}
            self.end = DialogueEnd(
                MAX_USER_TURNS,
                "user",
                self.last_response,
                upstream if self.one_more_action else None,
            )
        return message

    @property
    def at_limit(self) -> bool:
        """Whether the agent's next action is its last (:attr:`one_more_action` counting)."""
        return self.end is None and self.one_more_action and self.user_turns >= self.max_user_turns

    def limit_spent(self, reason: Mapping[str, Any] | None = None) -> DialogueEnd | None:
        """End it after the agent's last action that was not a message (a query).

        Args:
            reason: The end reason upstream records for that action (see
                :attr:`DialogueEnd.upstream_reason`).
        """
        if not self.at_limit:
            return None
        self.end = DialogueEnd(MAX_USER_TURNS, "user", self.last_response, reason)
        return self.end

    def agent_says(self, text: str) -> Message:
        """The agent's message to the user (a ``respond``).

        Raises:
            DialogueError: It is the user's turn, or the conversation is over.
        """
        if self.awaiting != "agent":
            raise DialogueError(self._out_of_turn("agent"))
        message = Message("agent", cap_message(text), self.agent_turns + 1)
        self.messages.append(message)
        return message

    def user_ends(self) -> Message | None:
        """The user ends the conversation now, whoever's turn it is (a person's key).

        The message is :data:`STOP_TOKEN`, as a simulated user would write it; while the
        agent is still working it interrupts it (the agent's last message, if any, is scored).
        Returns the message added (None once the conversation is over).
        """
        if self.end is not None:
            return None
        message = Message("user", STOP_TOKEN, self.agent_turns, True)
        self.messages.append(message)
        self._finish()
        return message

    def _finish(self) -> None:
        answer = self.last_response
        if answer is None:
            self.end = DialogueEnd(STOPPED_EARLY, "user")
        else:
            self.end = DialogueEnd(ACCEPTED, "agent", answer)

    def _out_of_turn(self, who: str) -> str:
        if self.end is not None:
            return f"the conversation is over ({self.end.message})"
        return f"it is the {self.awaiting}'s turn, not the {who}'s"


def message_payload(message: Message, call: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The recorded payload of a message; ``call`` adds a simulated user's call numbers."""
    payload: dict[str, Any] = {"text": message.text, "turn": message.turn}
    if message.role == "user":
        payload["stop"] = message.stop
        for key in ("model", "prompt_tokens", "completion_tokens", "cost", "latency_ms"):
            if call is not None and key in call:
                payload[key] = call[key]
    return payload
