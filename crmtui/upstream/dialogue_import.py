"""Upstream HEAD's interactive rows as dialogue recordings (the importer's multi-turn part).

A row of ``run_tasks.py --interactive`` holds the conversation in its trajectory: the
simulated user's opening as the first user message, each ``<respond>`` as a message to the
user followed by the user's reply (a user message without the ``Salesforce instance
output:`` prefix). Upstream does not append the reply that ended the conversation: a
``###STOP###`` is known only from the end reason (``Submit action``, the accepted message
as its content), a reply to the limit's one more message from the end reason ``Respond
action`` (the reply as its content).

:class:`ImportedDialogue` writes those as ``user_message`` (by the user model) and
``agent_message`` events under a header ``dialogue`` naming both sides, upstream's limit
and its one-more-action count, so the recording verifies under the conversation rules and
``report`` and ``compare`` show it beside crmtui's own dialogues. The user's ``###STOP###``
is written as the bare token (upstream's user is told to say only that).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from crmtui.play.dialogue import STOP_TOKEN, DialogueSpec, Side
from crmtui.upstream.results import Attempt, Step

__all__ = ["UPSTREAM_MAX_USER_TURNS", "ImportedDialogue", "is_dialogue"]

#: ``run_tasks.py``'s default ``--max_user_turns``.
UPSTREAM_MAX_USER_TURNS = 10
#: ``InteractiveChatEnv``'s default user model.
UPSTREAM_USER_MODEL = "gpt-4o-2024-08-06"
_ACCEPTED = "Submit action"
_RESPONDED = "Respond action"


def is_dialogue(attempt: Attempt) -> bool:
    """Whether a row reads as a conversation: an answer the user replied to, or an end
    reason only the interactive environment writes."""
    if any(step.kind == "answer" and step.said is not None for step in attempt.steps):
        return True
    reason = attempt.end_reason or {}
    return reason.get("source") == "user"


@dataclass
class ImportedDialogue:
    """The conversation of one imported row, written as it goes.

    Attributes:
        attempt: The row.
        model: The agent's actor id.
        strategy: The recording's strategy label (``upstream-react``).
        user_model: Who played the user.
        max_user_turns: The run's ``--max_user_turns``.
    """

    attempt: Attempt
    model: str
    strategy: str
    user_model: str = UPSTREAM_USER_MODEL
    max_user_turns: int = UPSTREAM_MAX_USER_TURNS

    def __post_init__(self) -> None:
        self.turn = 0
        replies = sum(1 for s in self.attempt.steps if s.kind == "answer" and s.said is not None)
        if self.ending_reply is not None:
            replies += 1
        # A file from a run with a higher limit than the default still verifies.
        self.max_user_turns = max(self.max_user_turns, replies - 1, 1)

    @property
    def reason(self) -> Mapping[str, Any]:
        """The row's end reason."""
        return self.attempt.end_reason or {}

    @property
    def accepted(self) -> bool:
        """The user said ``###STOP###`` after the agent's last message (it was scored)."""
        return self.reason.get("message") == _ACCEPTED and self.reason.get("source") == "agent"

    @property
    def ending_reply(self) -> str | None:
        """The user's reply to the limit's one more message (upstream keeps it only here)."""
        if self.reason.get("message") == _RESPONDED and self.reason.get("source") == "user":
            content = self.reason.get("content")
            return content if isinstance(content, str) else str(content)
        return None

    def header(self) -> dict[str, Any]:
        """The header's ``dialogue`` object."""
        agent = Side("model", self.model, self.strategy)
        user = Side("model", self.user_model, None, {"brief": "upstream"})
        spec = DialogueSpec("agent", agent, user, self.max_user_turns, one_more_action=True)
        return spec.to_json()

    def open(self, emit: Any) -> None:
        """The user's opening message (the trajectory's first user message)."""
        self._user(emit, self.attempt.query or "")

    def respond(self, emit: Any, step: Step, last: bool) -> bool:
        """The agent's message and the user's reply; True when that reply accepted it."""
        self.turn += 1
        emit("agent_message", {"text": step.text, "turn": self.turn}, None)
        if step.said is not None:
            self._user(emit, step.said)
            return False
        if last and self.accepted:
            self._user(emit, STOP_TOKEN)
            return True
        if last and self.ending_reply is not None:
            self._user(emit, self.ending_reply)
        return False

    def _user(self, emit: Any, text: str) -> None:
        payload = {"text": text, "turn": self.turn, "stop": STOP_TOKEN in text}
        emit("user_message", payload, self.user_model)
