"""What a reading of one task instance says."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

#: The answers a reading admits: one answer, several on a tie, none for a "None" answer.
Answers = tuple[str, ...]


@dataclass(frozen=True)
class Reading:
    """The careful reading of one instance and the shortcuts' readings of it.

    Attributes:
        careful: Answers the careful reading admits (``()`` = None); None when the answer
            cannot be read from the org's tables (policy checks, knowledge questions).
        shortcuts: Shortcut code -> the answers a solver taking that shortcut admits; a
            shortcut that does not apply to this instance is left out.
        undecidable: True when the instance's text does not fix one answer (several products
            it can mean, several purchases that fit); None: decided by ``careful`` alone.
    """

    careful: Answers | None
    shortcuts: dict[str, Answers] = field(default_factory=dict)
    undecidable: bool | None = None

    def is_undecidable(self) -> bool:
        """Whether a careful solver cannot tell which answer is meant."""
        if self.undecidable is not None:
            return self.undecidable or (self.careful is not None and len(self.careful) > 1)
        return self.careful is not None and len(self.careful) > 1


def gold_key(answer: object) -> str | None:
    """An instance's gold as one comparable string: None for a None answer (CRMArena's None,
    CRMArena-Pro's ``[None]``), the element of a one-element list, and for a longer list its
    elements joined by :func:`answer_key` (a Pro gold is a list, whatever its type)."""
    if answer is None:
        return None
    if isinstance(answer, (list, tuple)):
        if all(a is None for a in answer):
            return None
        return answer_key(str(a) for a in answer if a is not None)
    return str(answer)


def answer_key(values: Iterable[str]) -> str:
    """Several answers given together (activity priority's task Ids) as one string, in sorted
    order, so a reading and a gold listing the same answers compare equal."""
    return " | ".join(sorted(values))


def hit(answers: Answers, gold: str | None) -> float:
    """Expected accuracy of a solver that picks one of ``answers`` at random."""
    if not answers:
        return 1.0 if gold is None else 0.0
    return 1.0 / len(answers) if gold in answers else 0.0
