"""The multi-turn part of the report: dialogues by who played each side.

Rules (stated in the report's notes):

* A dialogue is counted from the recording of its agent (header ``dialogue.role`` =
  ``agent``): that recording holds the episode and its score. A person playing the user
  records their side too; those recordings are not counted twice.
* A finished dialogue counts whether or not the user accepted an answer: one that ran out of
  user turns, that the user ended before any answer, or whose agent ran out of its own turns
  scores 0, as upstream's interactive runs do. Dialogues that were quit, abandoned, stopped
  or interrupted, or that a model or harness error ended (the user model's included), do not
  count: nobody failed the task there.
* The latest counted dialogue per (agent, user, instance) counts.
* Success is the mean reward (fuzzy-match tasks: F1); user turns and turns to the first key
  fact are medians; "asked" pools every counted dialogue's key facts: the share of the facts
  the user stated that came in reply to an agent question.

Rows: one per (agent, user) pair, named as the report names actors; and one per pairing
kind (``model/model``: the paper's setting; ``human/model``: a person as the agent with a
simulated user; ``model/human``: a model agent with a person as the user;
``human/human``).
"""

from __future__ import annotations

import statistics
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from crmtui.play.dialogue import ACCEPTED
from crmtui.review.instance_key import InstanceKey
from crmtui.review.summary import SessionSummary

__all__ = [
    "PAIRING_KINDS",
    "PairingRow",
    "counted_dialogues",
    "dialogue_tables",
    "is_dialogue",
    "pairing_rows",
]

#: Pairing kinds in the order the report lists them (agent's kind, then the user's).
PAIRING_KINDS = ("model/model", "human/model", "model/human", "human/human")
_PAIRING_NAMES = {
    "model/model": "model agent, simulated user",
    "human/model": "person as agent, simulated user",
    "model/human": "model agent, person as user",
    "human/human": "person as agent, person as user",
}
#: End reasons of dialogues that do not count (nobody failed the task).
NOT_COUNTED = ("quit", "abandoned", "Stopped", "Interrupted", "Harness error", "Model error")


def is_dialogue(summary: SessionSummary) -> bool:
    """Whether a session is part of a dialogue (either side)."""
    return summary.dialogue is not None


def scored_reward(summary: SessionSummary, counted: bool = True) -> float | None:
    """The reward the report scores a session with: a counted dialogue that ended without
    an answer scores 0 (as in the pairing tables' success); anything else its own reward."""
    if summary.reward is None and counted and summary.dialogue is not None:
        return 0.0 if _counts(summary) else None
    return None if summary.reward is None else float(summary.reward)


def _counts(summary: SessionSummary) -> bool:
    stats = summary.dialogue
    if stats is None or stats.spec.role != "agent" or not summary.finished:
        return False
    if summary.submitted:
        return True
    reason = summary.end_reason or ""
    return not reason.startswith(NOT_COUNTED) and not reason.startswith("User model error")


def counted_dialogues(
    summaries: Iterable[SessionSummary],
) -> tuple[list[SessionSummary], dict[str, int]]:
    """The counted dialogues (latest per agent, user and instance) and why others were not."""
    excluded: dict[str, int] = defaultdict(int)
    latest: dict[tuple[str, str, InstanceKey], SessionSummary] = {}
    for summary in summaries:
        stats = summary.dialogue
        if stats is None:
            continue
        if stats.spec.role != "agent":
            excluded["a person's side as the user (counted from the agent's recording)"] += 1
            continue
        if not _counts(summary):
            excluded["dialogue unfinished, quit, stopped or ended by an error"] += 1
            continue
        key = (stats.spec.agent.label, stats.spec.user.label, summary.instance_key)
        best = latest.get(key)
        if best is not None:
            excluded["dialogue superseded by a later attempt"] += 1
            if (summary.started_at, summary.session_id) <= (best.started_at, best.session_id):
                continue
        latest[key] = summary
    ordered = sorted(latest.values(), key=lambda s: (s.dialogue.spec.pairing, s.idx))  # type: ignore[union-attr]
    return ordered, dict(excluded)


@dataclass(frozen=True)
class PairingRow:
    """One row of the multi-turn tables.

    Attributes:
        agent: Who played the agent (``-`` in the per-kind table).
        user: Who played the user (``-`` in the per-kind table).
        pairing: ``model/model``, ``human/model``, ``model/human`` or ``human/human``.
        dialogues: Dialogues counted.
        answered: Dialogues the user ended by accepting an answer.
        success: Mean reward (unanswered dialogues score 0).
        user_turns: Median user replies.
        first_key_turn: Median user message that first stated a key fact.
        no_key: Dialogues in which no key fact was stated.
        asked: Share of stated key facts that answered an agent question.
        questions: Mean agent questions per dialogue.
    """

    agent: str
    user: str
    pairing: str
    dialogues: int
    answered: int
    success: float | None
    user_turns: float | None
    first_key_turn: float | None
    no_key: int
    asked: float | None
    questions: float | None

    @property
    def pairing_name(self) -> str:
        """``model agent, simulated user`` ..."""
        return _PAIRING_NAMES.get(self.pairing, self.pairing)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        return {
            "agent": self.agent,
            "user": self.user,
            "pairing": self.pairing,
            "pairing_name": self.pairing_name,
            "dialogues": self.dialogues,
            "answered": self.answered,
            "success": self.success,
            "median_user_turns": self.user_turns,
            "median_turns_to_first_key_fact": self.first_key_turn,
            "no_key_fact": self.no_key,
            "asked_share": self.asked,
            "mean_questions": self.questions,
        }


def _row(agent: str, user: str, pairing: str, group: list[SessionSummary]) -> PairingRow:
    stats = [s.dialogue for s in group if s.dialogue is not None]
    rewards = [scored_reward(s) or 0.0 for s in group]
    firsts = [d.first_key_turn for d in stats if d.first_key_turn is not None]
    revealed = sum(d.revealed for d in stats)
    return PairingRow(
        agent=agent,
        user=user,
        pairing=pairing,
        dialogues=len(group),
        answered=sum(1 for d in stats if d.outcome == ACCEPTED),
        success=statistics.fmean(rewards) if rewards else None,
        user_turns=statistics.median([d.user_turns for d in stats]) if stats else None,
        first_key_turn=statistics.median(firsts) if firsts else None,
        no_key=sum(1 for d in stats if d.key_facts and d.first_key_turn is None),
        asked=(sum(d.asked for d in stats) / revealed) if revealed else None,
        questions=statistics.fmean([d.questions for d in stats]) if stats else None,
    )


def pairing_rows(counted: list[SessionSummary]) -> tuple[list[PairingRow], list[PairingRow]]:
    """Rows by (agent, user) pair, and by pairing kind."""
    by_pair: dict[tuple[str, str, str], list[SessionSummary]] = defaultdict(list)
    by_kind: dict[str, list[SessionSummary]] = defaultdict(list)
    for summary in counted:
        spec = summary.dialogue.spec  # type: ignore[union-attr]
        by_pair[(spec.pairing, spec.agent.label, spec.user.label)].append(summary)
        by_kind[spec.pairing].append(summary)
    order = {kind: n for n, kind in enumerate(PAIRING_KINDS)}
    pairs = [
        _row(agent, user, pairing, by_pair[(pairing, agent, user)])
        for pairing, agent, user in sorted(by_pair, key=lambda k: (order.get(k[0], 9), k[1], k[2]))
    ]
    kinds = [_row("-", "-", kind, by_kind[kind]) for kind in PAIRING_KINDS if kind in by_kind]
    return pairs, kinds


#: The multi-turn table's rules, for the report's notes.
DIALOGUE_RULES = (
    "Multi-turn: a dialogue counts from its agent's recording, latest per agent, user and "
    "instance; quit, stopped or error-ended dialogues do not count, unanswered ones score 0.",
    "Success = mean reward; user turns = the user's replies (median); turns to 1st key fact = "
    "the user message (1 = the opening) that first stated a detail of the question (period, "
    "threshold, name, record; crmtui's text measure); asked = share of stated key facts that "
    "answered an agent question.",
)


def _pct(value: float | None) -> str:
    return "-" if value is None else f"{100 * value:.1f}"


def _num(value: float | None) -> str:
    return "-" if value is None else f"{value:g}"


#: Column headers of the multi-turn tables.
HEADERS = [
    "Agent",
    "User",
    "Pairing",
    "Dialogues",
    "Answered",
    "Success %",
    "User turns (median)",
    "Turns to 1st key fact (median)",
    "No key fact",
    "Asked %",
    "Questions (mean)",
]


def _cells(row: PairingRow) -> list[str]:
    return [
        row.agent,
        row.user,
        row.pairing,
        str(row.dialogues),
        str(row.answered),
        _pct(row.success),
        _num(row.user_turns),
        _num(row.first_key_turn),
        str(row.no_key),
        _pct(row.asked),
        "-" if row.questions is None else f"{row.questions:.1f}",
    ]


def dialogue_tables(
    pairs: list[PairingRow], kinds: list[PairingRow]
) -> list[tuple[str, list[str], list[list[str]]]]:
    """The multi-turn tables as (title, headers, rows of formatted cells)."""
    if not pairs:
        return []
    by_kind = [[row.pairing_name, *_cells(row)[2:]] for row in kinds]
    return [
        ("Multi-turn: who played whom", HEADERS, [_cells(row) for row in pairs]),
        ("Multi-turn by pairing", ["Pairing (agent, user)", *HEADERS[2:]], by_kind),
    ]
