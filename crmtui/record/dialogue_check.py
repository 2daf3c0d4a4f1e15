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

from crmtui.record import events as ev
from crmtui.record.errors import PayloadError

__all__ = ["check_dialogue_event", "validate_dialogue"]

_ROLES = ("agent", "user")
_KINDS = ("human", "model")
_SIDE_KEYS = frozenset({"kind", "id", "strategy", "settings"})
_KEYS = frozenset({"role", "agent", "user", "max_user_turns", "id"})


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
