"""What a reading of one task instance says."""

from __future__ import annotations

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


def hit(answers: Answers, gold: str | None) -> float:
    """Expected accuracy of a solver that picks one of ``answers`` at random."""
    if not answers:
        return 1.0 if gold is None else 0.0
    return 1.0 / len(answers) if gold in answers else 0.0
