"""What the play app may show and in what order: the seam between a study and the screens.

The picker and play screens ask a :class:`PlayPlan` instead of knowing about studies. Free
play (:class:`FreePlay`) shows everything, in idx order; a study's plan
(:class:`crmtui.study.plan.StudyPlan`) gives one annotator's instances in their order,
progress like "7 of 40", hides the reward and the gold answer where the study is blind,
asks for the study's :class:`Instructions` to be accepted before anything else, and closes
counted instances behind a :class:`Gate` until the practice qualifies the annotator.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Protocol


@dataclass(frozen=True)
class PickerPolicy:
    """How the instance picker lists instances.

    Attributes:
        order: The instances to list, in this order (None: every instance, by idx).
        hidden: Instances whose reward must not be shown (only "done" / not done).
        title: Extra text for the picker's top line (e.g. the study's name).
        report: Whether the report key may open the report.
        report_scope: Subfolder of the recordings the report reads (None: all of them).
        resume_unasked: Reopen an unfinished session at start without asking (a study: a
            dropped connection or a closed terminal must not cost the annotator the
            attempt, and "close it as abandoned" is not theirs to choose).
        hide_queries: List instances without their query (a person playing the agent of a
            conversation: the query is the user's hidden instruction).
        unscored: The person's own work is not scored (they play the user of
            conversations): the list counts what is done, never right or wrong.
    """

    order: tuple[int, ...] | None = None
    hidden: frozenset[int] = frozenset()
    title: str = ""
    report: bool = True
    report_scope: str | None = None
    resume_unasked: bool = False
    hide_queries: bool = False
    unscored: bool = False

    def reveals(self, idx: int) -> bool:
        """Whether this instance's reward may be shown."""
        return idx not in self.hidden


@dataclass(frozen=True)
class PlayPolicy:
    """How the play screen treats one instance.

    Attributes:
        reveal: Show the reward and the gold answer after submission.
        progress: Where this instance stands (``7 of 40``), shown in the status bar.
        time_limit_s: Active seconds allowed (None: no limit); at the limit the answer as
            typed is submitted and the session ends with reason ``time_limit``.
        history_dir: Where the console's query history is kept (None: the annotator's own,
            under ``CRMTUI_HOME``; a study keeps one of its own).
    """

    reveal: bool = True
    progress: str | None = None
    time_limit_s: float | None = None
    history_dir: Path | None = None

    def time_left(self, active_seconds: float) -> float | None:
        """Seconds left under the limit (None without a limit; never negative)."""
        if self.time_limit_s is None:
            return None
        return max(0.0, self.time_limit_s - active_seconds)


@dataclass(frozen=True)
class Instructions:
    """A text the annotator must accept before any instance (a study's instructions).

    Attributes:
        title: The page's heading.
        text: Markdown.
        digest: sha256 of ``text``, recorded with the answer.
    """

    title: str
    text: str
    digest: str


@dataclass(frozen=True)
class Gate:
    """Instances that stay closed for now, and what the annotator is told.

    Attributes:
        locked: Instances that cannot be opened.
        message: Why, shown above the list and when a locked one is chosen.
        final: True when they will not open (the annotator did not qualify).
    """

    locked: frozenset[int]
    message: str
    final: bool = False


class PlayPlan(Protocol):
    """Answers the play app's questions about what to show."""

    def picker(self) -> PickerPolicy:
        """How to list instances."""
        ...

    def play(self, idx: int) -> PlayPolicy:
        """How to treat instance ``idx``."""
        ...

    def instructions(self) -> Instructions | None:
        """A text to accept before the first instance (None: nothing to accept now)."""
        ...

    def answer_instructions(self, instructions: Instructions, accepted: bool) -> None:
        """Record the annotator's answer to ``instructions``."""
        ...

    def gate(self) -> Gate | None:
        """Instances closed for now (None: none). Asked again after every session."""
        ...


class FreePlay:
    """No study: every instance, by idx, rewards and gold shown after submission."""

    def picker(self) -> PickerPolicy:
        """Everything, by idx."""
        return PickerPolicy()

    def play(self, idx: int) -> PlayPolicy:
        """Everything revealed, no limit."""
        return PlayPolicy()

    def instructions(self) -> Instructions | None:
        """Nothing to accept."""
        return None

    def answer_instructions(self, instructions: Instructions, accepted: bool) -> None:
        """Nothing to record."""

    def gate(self) -> Gate | None:
        """Nothing closed."""
        return None
