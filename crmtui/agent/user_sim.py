"""The simulated user of CRMArena-Pro's multi-turn mode: a model playing the customer.

Upstream's interactive environment gives a model (gpt-4o by default) the row's persona and
query as a hidden instruction and has it talk to the agent: one short message at a time,
revealing one criterion per message, never inventing facts, asking for an Id when given a
name, and ending with ``###STOP###`` once answered. :class:`SimulatedUser` does the same
through :class:`~crmtui.agent.client.ModelClient` (litellm), with its rules in crmtui's own
words (:data:`USER_RULES`); a generated instance's hidden facts
(:mod:`crmtui.play.dialogue_facts`) join the brief. It answers the agent's greeting
(:data:`~crmtui.play.dialogue.GREETING`) with the opening message, then each agent message
with a reply; every call's model, tokens, cost and latency come back with the text, for
the recording. A failed call raises :class:`~crmtui.agent.replies.ModelError`.
"""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Mapping
from typing import Any

from crmtui.agent.replies import ModelError
from crmtui.play.dialogue import GREETING, STOP_TOKEN, Side
from crmtui.play.dialogue_facts import facts_lines
from crmtui.play.dialogue_sides import UserReply

__all__ = ["USER_RULES", "SimulatedUser", "user_prompt", "user_prompt_digest"]

USER_RULES = f"""\
How to talk:
- Write one short message at a time, the way a person types in a chat. Never write the \
agent's side of the conversation.
- Begin with what you want in broad terms. Keep the details (periods, dates, names, \
numbers, thresholds) back until the agent asks for them, and then give one detail per \
message. A vague request is fine; the agent is expected to ask.
- Say things in your own words; never copy the instruction word for word.
- Only state what your instruction and your facts say. If the agent asks for something you \
were not told (an Id, an order number, a date), say you do not have it or do not remember; \
never make one up.
- Stay in character: keep the persona's manner and concerns.
- If the instruction asks for an Id (of a person, a case, an account ...) and the agent gives \
a name instead, ask for the Id.
- The agent may find no matching record and say so, or answer "None". That can be right.
- As soon as the agent's message gives you what the instruction asks for, or tells you \
nothing matches, reply with exactly {STOP_TOKEN} and nothing else: no thanks, no goodbye."""


def user_prompt(persona: str | None, query: str, facts: Mapping[str, Any] | None = None) -> str:
    """The simulated user's system prompt: who it is, what it wants, what it knows, the rules."""
    parts = [
        "You are playing a user who chats with an agent of a company. The agent works with "
        "the company's CRM system; it cannot see your instruction.",
    ]
    if persona and persona.strip():
        parts.append("Who you are: " + persona.strip())
    parts.append("Your instruction (what you want from the agent):\n" + query.strip())
    lines = facts_lines(facts)
    if lines:
        parts.append(
            "What else you know (give a piece only when the agent asks for it):\n"
            + "\n".join(f"- {line}" for line in lines)
        )
    parts.append(USER_RULES)
    return "\n\n".join(parts)


def user_prompt_digest() -> str:
    """A short digest of the fixed texts the simulated user is given (rules, greeting)."""
    text = "\x1f".join([USER_RULES, GREETING, user_prompt("p", "q", {"x": "y"})])
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:12]


def call_options(cancel: threading.Event | None, timeout: float | None) -> dict[str, Any]:
    """A user model call's keyword arguments: its cancel event and the time left (neither
    is a request parameter)."""
    options: dict[str, Any] = {} if cancel is None else {"cancel": cancel}
    if timeout is not None:
        options["timeout"] = timeout
    return options


def call_numbers(model: str, reply: Any) -> dict[str, Any]:
    """What a simulated user's call is recorded with beside its message."""
    return {
        "model": model,
        "prompt_tokens": int(reply.prompt_tokens),
        "completion_tokens": int(reply.completion_tokens),
        "cost": reply.cost,
        "latency_ms": round(float(reply.latency_ms), 3),
    }


class SimulatedUser:
    """A model plays the user of one conversation (one instance).

    Args:
        client: The user model's client (its own model, server and settings).
        persona: The row's persona (None for rows without one).
        query: The row's query: the user's hidden instruction.
        facts: The instance's hidden facts, if any.
        settings: Extra settings recorded with the side (e.g. ``facts: True``).

    Attributes:
        side: Who plays the user, as recorded in the header.
        messages: The model's own conversation (system prompt, then the agent's messages as
            ``user`` turns and its replies as ``assistant`` turns).
    """

    def __init__(
        self,
        client: Any,
        persona: str | None,
        query: str,
        facts: Mapping[str, Any] | None = None,
        settings: Mapping[str, Any] | None = None,
    ) -> None:
        self.client = client
        recorded: dict[str, Any] = {
            "api_base": getattr(client, "api_base", None),
            "temperature": getattr(client, "temperature", None),
            "max_tokens": getattr(client, "max_tokens", None),
            "prompt": user_prompt_digest(),
            "facts": bool(facts),
        }
        recorded.update(settings or {})
        self.side = Side("model", str(getattr(client, "model", "user-model")), None, recorded)
        self.messages: list[dict[str, Any]] = [
            {"role": "system", "content": user_prompt(persona, query, facts)}
        ]

    def ended_by_user(self) -> bool:
        """A model user ends only by saying ``###STOP###``."""
        return False

    def opening(
        self, cancel: threading.Event | None = None, timeout: float | None = None
    ) -> UserReply:
        """The opening message: the model answers the agent's greeting within ``timeout``."""
        return self._say(GREETING, cancel, timeout)

    def reply(
        self, agent_text: str, cancel: threading.Event | None = None, timeout: float | None = None
    ) -> UserReply:
        """The model's reply to the agent's message, within ``timeout`` seconds (retries
        included): the time left in the agent's time limit."""
        return self._say(agent_text, cancel, timeout)

    def _say(
        self, agent_text: str, cancel: threading.Event | None, timeout: float | None
    ) -> UserReply:
        self.messages.append({"role": "user", "content": agent_text})
        reply = self.client.complete(self.messages, None, **call_options(cancel, timeout))
        text = (reply.content or "").strip()
        if not text:
            raise ModelError("the user model replied with no text", kind="malformed")
        self.messages.append({"role": "assistant", "content": text})
        return UserReply(text, call_numbers(self.side.id, reply))
