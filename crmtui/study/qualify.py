"""Qualification: practice instances that gate the counted ones (``--qualify K``).

With ``qualify = K`` in a study, an annotator's counted instances stay closed until K of
their practice instances were answered right; once that can no longer happen (too few
practice instances left to reach K), the annotator did not qualify and the counted
instances never open. Without it, practice only comes first in the list.

Each practice instance counts by its first submission (the earliest session with one), so
that a practice instance opened again after its gold answer was revealed cannot help.
"Right" is the rule the report uses (exact match 1; knowledge questions F1 >= 0.5).

The annotator's app (through :class:`~crmtui.study.plan.StudyPlan`) and ``study status`` /
``report`` ask :func:`qualification` over the same facts, so both sides see the same state.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Protocol, TypeVar

from crmtui.study.definition import Study

QUALIFIED = "qualified"
PENDING = "pending"
NOT_QUALIFIED = "not qualified"


@dataclass(frozen=True)
class Qualification:
    """Where one annotator stands against the study's ``qualify`` rule.

    Attributes:
        needed: Practice answers that must be right (K).
        practice: Practice instances assigned.
        answered: Practice instances with a (first) submission.
        right: Of those, right.
    """

    needed: int
    practice: int
    answered: int
    right: int

    @property
    def state(self) -> str:
        """``qualified``, ``pending`` or ``not qualified``."""
        if self.right >= self.needed:
            return QUALIFIED
        if self.right + (self.practice - self.answered) < self.needed:
            return NOT_QUALIFIED
        return PENDING

    @property
    def short(self) -> str:
        """``yes 2/2``, ``pending 1/2``, ``no 1/2`` (right of needed) for tables."""
        word = {QUALIFIED: "yes", PENDING: "pending", NOT_QUALIFIED: "no"}[self.state]
        return f"{word} {self.right}/{self.needed}"

    def message(self) -> str:
        """What the annotator is told while the counted instances are closed (or not)."""
        if self.state == QUALIFIED:
            return f"Qualified: {self.right} of your practice answers were right."
        if self.state == NOT_QUALIFIED:
            return (
                f"You did not qualify for the counted instances: {self.needed} of the "
                f"{self.practice} practice answers had to be right, and {self.right} "
                f"{'was' if self.right == 1 else 'were'}. Thank you for your time; the counted "
                "instances stay closed. You may close this window."
            )
        return (
            f"The counted instances open once {self.needed} of your {self.practice} practice "
            f"answers are right (so far {self.right} right of {self.answered} answered). "
            "Start with the practice instances."
        )

    def to_dict(self) -> dict[str, object]:
        """JSON-ready form."""
        return {
            "state": self.state,
            "needed": self.needed,
            "practice": self.practice,
            "answered": self.answered,
            "right": self.right,
        }


class Session(Protocol):
    """What is needed of a session (:class:`~crmtui.study.status.SessionFacts` has it)."""

    @property
    def annotator(self) -> str: ...
    @property
    def idx(self) -> int: ...
    @property
    def started_at(self) -> str: ...
    @property
    def submitted(self) -> bool: ...
    @property
    def right(self) -> bool | None: ...


S = TypeVar("S", bound=Session)


def first_submissions(facts: Iterable[S], annotator: str) -> dict[int, S]:
    """Each instance's earliest session with a submission, for one annotator."""
    first: dict[int, S] = {}
    for item in facts:
        if item.annotator != annotator or not item.submitted:
            continue
        known = first.get(item.idx)
        if known is None or item.started_at < known.started_at:
            first[item.idx] = item
    return first


def qualification(study: Study, annotator: str, facts: Iterable[Session]) -> Qualification | None:
    """Where ``annotator`` stands (None when the study does not gate on practice).

    Args:
        study: The study (its ``qualify`` setting and the annotator's practice list).
        annotator: One of its annotators.
        facts: Recordings' quick facts (others' and other instances' are ignored).
    """
    needed = study.settings.qualify
    if needed is None:
        return None
    practice = study.assignment(annotator).practice
    first = first_submissions(facts, annotator)
    done = [first[idx] for idx in practice if idx in first]
    return Qualification(
        needed=needed,
        practice=len(practice),
        answered=len(done),
        right=sum(item.right is True for item in done),
    )
