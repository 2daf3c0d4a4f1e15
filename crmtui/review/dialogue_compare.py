"""Two or more dialogues on one instance, side by side turn by turn.

The step alignment of :mod:`crmtui.review.align` lines up queries and records; a dialogue
also has a conversation, and comparing a simulated user with a person (or one agent's
questions with another's) needs the messages lined up. Rows are the user's turns: row 0 is
the opening message, row N the user's N-th reply; each cell holds that user message, the
key facts it stated first (:mod:`crmtui.review.key_facts`) and the agent's message(s) that
followed it. A dialogue that ended earlier has no cell in the later rows.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from crmtui.review.dialogue_stats import DialogueStats

__all__ = ["TurnCell", "TurnRow", "align_dialogues"]


@dataclass(frozen=True)
class TurnCell:
    """One dialogue at one user turn.

    Attributes:
        user: The user's message.
        facts: Key facts this message stated first.
        agent: The agent's message(s) that followed it, in order.
    """

    user: str
    facts: tuple[str, ...]
    agent: tuple[str, ...]

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        return {"user": self.user, "facts": list(self.facts), "agent": list(self.agent)}


@dataclass(frozen=True)
class TurnRow:
    """One user turn across the dialogues compared (None: that one had ended or is none)."""

    turn: int
    cells: tuple[TurnCell | None, ...]

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        return {
            "turn": self.turn,
            "cells": [None if c is None else c.to_dict() for c in self.cells],
        }


def _turns(stats: DialogueStats) -> list[TurnCell]:
    cells: list[TurnCell] = []
    user: str | None = None
    replies: list[str] = []
    for role, _, text in stats.messages:
        if role == "user":
            if user is not None:
                cells.append(_cell(stats, len(cells), user, replies))
            user, replies = text, []
        else:
            replies.append(text)  # the user always opens, so ``user`` is set
    if user is not None:
        cells.append(_cell(stats, len(cells), user, replies))
    return cells


def _cell(stats: DialogueStats, n: int, user: str, replies: list[str]) -> TurnCell:
    facts = stats.facts_by_message[n] if n < len(stats.facts_by_message) else ()
    return TurnCell(user=user, facts=facts, agent=tuple(replies))


def align_dialogues(dialogues: Sequence[DialogueStats | None]) -> list[TurnRow]:
    """The conversations lined up by user turn (empty when none is a dialogue)."""
    turns = [[] if d is None else _turns(d) for d in dialogues]
    depth = max((len(t) for t in turns), default=0)
    return [TurnRow(n, tuple(t[n] if n < len(t) else None for t in turns)) for n in range(depth)]
