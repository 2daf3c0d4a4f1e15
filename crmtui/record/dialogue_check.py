"""Checks of a dialogue recording: the header's ``dialogue`` object and its message events.

A recording of CRMArena-Pro's multi-turn mode names both sides in its header (see
:class:`crmtui.play.dialogue.DialogueSpec`); every ``user_message`` must then come from the
side playing the user and every ``agent_message`` from the side playing the agent, and a
recording without a ``dialogue`` may hold neither. :func:`crmtui.record.verify.scan` applies
these checks line by line, so a forged or misattributed message is named like any other bad
line.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from crmtui.limits import MESSAGE_CUT_NOTE
from crmtui.record import events as ev
from crmtui.record.errors import PayloadError

__all__ = ["ConversationRules", "check_dialogue_event", "validate_dialogue"]

_CUT = MESSAGE_CUT_NOTE

_ROLES = ("agent", "user")
_KINDS = ("human", "model")
_SIDE_KEYS = frozenset({"kind", "id", "strategy", "settings"})
_KEYS = frozenset({"role", "agent", "user", "max_user_turns", "id", "one_more_action"})


def _side(value: Any, where: str) -> None:
    if not isinstance(value, dict):
        raise PayloadError(f"header dialogue: {where!r} must be an object")
    unknown = sorted(set(value) - _SIDE_KEYS)
    if unknown:
        raise PayloadError(f"header dialogue {where}: unknown field {unknown[0]!r}")
    if value.get("kind") not in _KINDS:
        raise PayloadError(f"header dialogue {where}: 'kind' must be 'human' or 'model'")
    if not isinstance(value.get("id"), str) or not value["id"]:
        raise PayloadError(f"header dialogue {where}: 'id' must be a non-empty string")
    if "strategy" in value and not isinstance(value["strategy"], str):
        raise PayloadError(f"header dialogue {where}: 'strategy' must be a string")
    if "settings" in value and not isinstance(value["settings"], dict):
        raise PayloadError(f"header dialogue {where}: 'settings' must be an object")


def validate_dialogue(header: Mapping[str, Any]) -> None:
    """Check the header's ``dialogue`` object, when there is one.

    Raises:
        PayloadError: Naming the field: an unknown role, a side that is not an object, a
            recorded side that is not the header's actor, a limit below 1.
    """
    if "dialogue" not in header:
        return
    value = header["dialogue"]
    if not isinstance(value, dict):
        raise PayloadError("header: 'dialogue' must be an object")
    unknown = sorted(set(value) - _KEYS)
    if unknown:
        raise PayloadError(f"header dialogue: unknown field {unknown[0]!r}")
    role = value.get("role")
    if role not in _ROLES:
        raise PayloadError("header dialogue: 'role' must be 'agent' or 'user'")
    for side in _ROLES:
        _side(value.get(side), side)
    turns = value.get("max_user_turns")
    if isinstance(turns, bool) or not isinstance(turns, int) or turns < 1:
        raise PayloadError("header dialogue: 'max_user_turns' must be an integer of at least 1")
    if "id" in value and not (isinstance(value["id"], str) and value["id"]):
        raise PayloadError("header dialogue: 'id' must be a non-empty string")
    if "one_more_action" in value and not isinstance(value["one_more_action"], bool):
        raise PayloadError("header dialogue: 'one_more_action' must be true or false")
    actor = header.get("actor") or {}
    own = value[role]
    if (own["kind"], own["id"]) != (actor.get("kind"), actor.get("id")):
        raise PayloadError(
            f"header dialogue: the {role} must be the header's actor "
            f"({actor.get('kind')} {actor.get('id')!r}), not {own['kind']} {own['id']!r}"
        )


def check_dialogue_event(header: Mapping[str, Any], event: Mapping[str, Any]) -> str | None:
    """What is wrong with a dialogue message event of this recording, or None.

    Only ``user_message`` and ``agent_message`` are looked at: each needs the header's
    ``dialogue`` and must come from the side that says it.
    """
    kind = event.get("type")
    if kind not in ev.DIALOGUE_TYPES:
        return None
    dialogue = header.get("dialogue")
    if not isinstance(dialogue, dict):
        return f"a {kind} in a recording without a dialogue"
    side = "user" if kind == ev.USER_MESSAGE else "agent"
    speaker = dialogue[side]["id"]
    if event.get("actor") != speaker:
        return f"{kind} by {event.get('actor')!r}, but the {side} is {speaker!r}"
    return None


class ConversationRules:
    """The rules of a conversation, checked event by event over a dialogue recording.

    The chain proves a recording was not edited after it was written, not that what it
    records could have happened: a forger who recomputes the chain could record turns
    after ``###STOP###`` or more user replies than the limit. These are the dialogue
    core's own rules (:class:`crmtui.play.dialogue.Dialogue`), restated here (``record``
    sits below ``play``):

    * **turn order**: the user opens; then agent and user alternate; the user's
      ``###STOP###`` may come at any moment and ends the conversation;
    * **turn numbers**: a user message's ``turn`` is the number of agent messages before it,
      an agent message's is one more; none repeated, skipped or swapped;
    * **STOP**: a user message whose text holds ``###STOP###`` has ``stop`` true, and a
      ``stop`` true message holds it (or was cut at the message cap);
    * **the limit**: no more user replies than the header's ``max_user_turns`` (one more
      with ``one_more_action``: upstream HEAD's count, where the agent's action after the
      last allowed reply may be a message the user answers once more); nothing said after
      the end;
    * **the scored answer**: a ``submit`` only after the user's ``###STOP###`` that followed
      an agent message (the answer the user accepted).

    :meth:`check` returns ``"conversation rule (NAME): ..."`` or None.
    """

    def __init__(self, header: Mapping[str, Any]) -> None:
        dialogue = header.get("dialogue")
        self.active = isinstance(dialogue, dict)
        self.max_user_turns = int(dialogue["max_user_turns"]) if self.active else 0
        #: User replies after which the conversation is over.
        self.limit = self.max_user_turns + (
            1 if self.active and dialogue.get("one_more_action") is True else 0
        )
        self.awaiting = "user"
        self.agent_turns = 0
        self.user_turns = 0
        self.ended: str | None = None  # "stop" or "limit"
        self.accepted = False

    def check(self, event: Mapping[str, Any]) -> str | None:
        """What rule ``event`` breaks (None: none); the state moves on either way."""
        if not self.active:
            return None
        kind, payload = event.get("type"), event.get("payload")
        if not isinstance(payload, dict):
            return None
        if kind == ev.USER_MESSAGE:
            return self._user(payload)
        if kind == ev.AGENT_MESSAGE:
            return self._agent(payload)
        if kind == ev.SUBMIT and not self.accepted:
            return _rule(
                "the scored answer",
                "a submit without the user's ###STOP### after an agent message",
            )
        return None

    def _after_end(self, kind: str) -> str:
        said = "an agent message" if kind == ev.AGENT_MESSAGE else "a user message"
        if self.ended == "limit":
            return _rule(
                "the limit",
                f"{said} after the user's {self.max_user_turns} replies (max_user_turns)",
            )
        return _rule("turn order", f"{said} after the user's ###STOP###")

    def _user(self, payload: Mapping[str, Any]) -> str | None:
        text, stop, turn = str(payload.get("text", "")), payload.get("stop"), payload.get("turn")
        if self.ended:
            return self._after_end("user_message")
        if ("###STOP###" in text) != bool(stop) and not (stop and text.endswith(_CUT)):
            return _rule("STOP", f"stop is {stop!r} for a text that "
                         f"{'holds' if '###STOP###' in text else 'lacks'} ###STOP###")  # fmt: skip
        if turn != self.agent_turns:
            return _rule("turn numbers", f"user turn {turn!r}, expected {self.agent_turns}")
        if not stop and self.awaiting != "user":
            return _rule("turn order", "a user message while it is the agent's turn")
        self.awaiting = "agent"
        if stop:
            self.ended = "stop"
            self.accepted = self.agent_turns > 0
            return None
        if self.agent_turns:
            self.user_turns += 1
        if self.user_turns >= self.limit:
            self.ended = "limit"
        return None

    def _agent(self, payload: Mapping[str, Any]) -> str | None:
        turn = payload.get("turn")
        if self.ended:
            return self._after_end("agent_message")
        if self.awaiting != "agent":
            return _rule("turn order", "an agent message while it is the user's turn")
        if turn != self.agent_turns + 1:
            return _rule("turn numbers", f"agent turn {turn!r}, expected {self.agent_turns + 1}")
        self.agent_turns += 1
        self.awaiting = "user"
        return None


def _rule(name: str, what: str) -> str:
    return f"conversation rule ({name}): {what}"
