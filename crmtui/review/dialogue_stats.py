"""One dialogue's numbers, read from the recording of its agent: how the conversation went.

* ``user_turns``: the user's replies to the agent's messages (upstream's user turn count;
  the opening message is not one, the ``###STOP###`` that ends it is);
* ``first_key_turn``: which user message (1 = the opening) first stated a key fact of the
  instance (:mod:`crmtui.review.key_facts`); None when none was ever stated (or the
  instance has none to find);
* ``asked`` / ``revealed``: of the key facts the user stated, how many came in the reply to
  an agent message that asked a question (a ``?``): how often the agent asked for what it
  needed rather than being told unprompted;
* ``questions``: the agent's messages that asked something;
* ``outcome``: the end message (``Submit action`` when the user accepted an answer).

Which recordings count, and how their numbers are pooled by who played each side, is
:mod:`crmtui.review.dialogue_report`'s.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from crmtui.play.dialogue import ACCEPTED, DialogueSpec
from crmtui.play.dialogue_facts import hidden_facts
from crmtui.record import events as ev
from crmtui.record.verify import Recording
from crmtui.review.key_facts import key_facts, revealed

__all__ = ["DialogueStats", "dialogue_stats"]


@dataclass(frozen=True)
class DialogueStats:
    """The numbers of one dialogue (see the module docs).

    Attributes:
        spec: Both sides, the role recorded, the limit, the dialogue id.
        messages: Every message as ``(role, actor, text)``.
        user_turns: User replies.
        agent_messages: Messages the agent sent.
        questions: Agent messages that asked something.
        key_facts: The instance's key facts, by name.
        first_key_turn: The user message (1-based) that first stated a key fact.
        revealed: Key facts the user stated.
        asked: Of those, stated in reply to an agent question.
        outcome: How the conversation ended (its end message), None while unfinished.
        facts_by_message: For each user message in order, the key facts it stated first.
    """

    spec: DialogueSpec
    messages: tuple[tuple[str, str, str], ...]
    user_turns: int
    agent_messages: int
    questions: int
    key_facts: tuple[str, ...]
    first_key_turn: int | None
    revealed: int
    asked: int
    outcome: str | None
    facts_by_message: tuple[tuple[str, ...], ...] = ()

    @property
    def sides(self) -> str:
        """``gpt-4o (react) ↔ ann``: who played the agent and who the user."""
        return f"{self.spec.agent.label} ↔ {self.spec.user.label}"

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form (export, report json)."""
        return {
            "role": self.spec.role,
            "agent": self.spec.agent.to_json(),
            "user": self.spec.user.to_json(),
            "pairing": self.spec.pairing,
            "dialogue_id": self.spec.dialogue_id,
            "max_user_turns": self.spec.max_user_turns,
            "messages": [
                {"role": role, "actor": actor, "text": text} for role, actor, text in self.messages
            ],
            "user_turns": self.user_turns,
            "agent_messages": self.agent_messages,
            "questions": self.questions,
            "key_facts": list(self.key_facts),
            "first_key_turn": self.first_key_turn,
            "revealed": self.revealed,
            "asked": self.asked,
            "outcome": self.outcome,
        }


def dialogue_stats(recording: Recording) -> DialogueStats | None:
    """The dialogue numbers of a recording, or None for a single-turn session."""
    spec = DialogueSpec.from_header(recording.header)
    if spec is None:
        return None
    messages: list[tuple[str, str, str]] = []
    user_turns = 0
    for event in recording.events:
        if event.type == ev.USER_MESSAGE:
            messages.append(("user", event.actor, event.payload["text"]))
            user_turns += event.payload["turn"] > 0
        elif event.type == ev.AGENT_MESSAGE:
            messages.append(("agent", event.actor, event.payload["text"]))
    instance = recording.header["instance"]
    facts = hidden_facts(recording.header["org"].get("path"), instance["idx"])
    found = key_facts(instance["query"], facts)
    user_texts = [text for role, _, text in messages if role == "user"]
    new_by_message = revealed(found, user_texts)
    first = next((n + 1 for n, new in enumerate(new_by_message) if new), None)
    asked = 0
    previous_agent: str | None = None
    user_index = 0
    for role, _, text in messages:
        if role == "agent":
            previous_agent = text
            continue
        if previous_agent is not None and "?" in previous_agent:
            asked += len(new_by_message[user_index])
        user_index += 1
        previous_agent = None
    end = recording.end
    outcome = end.payload["reason"] if end is not None else None
    if recording.submit is not None:
        outcome = ACCEPTED  # a person's session ends on "next" or "quit" after the answer
    return DialogueStats(
        spec=spec,
        messages=tuple(messages),
        user_turns=user_turns,
        agent_messages=sum(1 for role, _, _ in messages if role == "agent"),
        questions=sum(1 for role, _, text in messages if role == "agent" and "?" in text),
        key_facts=tuple(fact.name for fact in found),
        first_key_turn=first,
        revealed=sum(len(new) for new in new_by_message),
        asked=asked,
        outcome=outcome,
        facts_by_message=tuple(tuple(found[n].name for n in sorted(new)) for new in new_by_message),
    )
