"""What the play app may show and in what order: the seam between a study and the screens.

The picker and play screens ask a :class:`PlayPlan` instead of knowing about studies. Free
play (:class:`FreePlay`) shows everything, in idx order; a study's plan
(:class:`crmtui.study.plan.StudyPlan`) gives one annotator's instances in their order,
progress like "7 of 40", hides the reward and the gold answer where the study is blind,
asks for the study's :class:`Instructions` to be accepted before anything else, and closes
counted instances behind a :class:`Gate` until the practice qualifies the annotator.
"""

from __future__ import annotations

from pathlib import Path
from typing import Protocol

from crmtui.value_class import FrozenValue


class PickerPolicy(FrozenValue):
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

    FIELDS = (
        "order",
        "hidden",
        "title",
        "report",
        "report_scope",
        "resume_unasked",
        "hide_queries",
        "unscored",
    )

    order: tuple[int, ...] | None
    hidden: frozenset[int]
    title: str
    report: bool
    report_scope: str | None
    resume_unasked: bool
    hide_queries: bool
    unscored: bool

    def __init__(
        self,
        order: tuple[int, ...] | None = None,
        hidden: frozenset[int] = frozenset(),
        title: str = "",
        report: bool = True,
        report_scope: str | None = None,
        resume_unasked: bool = False,
        hide_queries: bool = False,
        unscored: bool = False,
    ) -> None:
        self._set(
            order=order,
            hidden=hidden,
            title=title,
            report=report,
            report_scope=report_scope,
            resume_unasked=resume_unasked,
            hide_queries=hide_queries,
            unscored=unscored,
        )

    def reveals(self, idx: int) -> bool:
        """Whether this instance's reward may be shown."""
        return idx not in self.hidden


class PlayPolicy(FrozenValue):
    """How the play screen treats one instance.

    Attributes:
        reveal: Show the reward and the gold answer after submission.
        progress: Where this instance stands (``7 of 40``), shown in the status bar.
        time_limit_s: Active seconds allowed (None: no limit); at the limit the answer as
            typed is submitted and the session ends with reason ``time_limit``.
        history_dir: Where the console's query history is kept (None: the annotator's own,
            under ``CRMTUI_HOME``; a study keeps one of its own).
    """

    FIELDS = ("reveal", "progress", "time_limit_s", "history_dir")

    reveal: bool
    progress: str | None
    time_limit_s: float | None
    history_dir: Path | None

    def __init__(
        self,
        reveal: bool = True,
        progress: str | None = None,
        time_limit_s: float | None = None,
        history_dir: Path | None = None,
    ) -> None:
        self._set(
            reveal=reveal, progress=progress, time_limit_s=time_limit_s, history_dir=history_dir
        )

    def time_left(self, active_seconds: float) -> float | None:
        """Seconds left under the limit (None without a limit; never negative)."""
        if self.time_limit_s is None:
            return None
        return max(0.0, self.time_limit_s - active_seconds)


class Instructions(FrozenValue):
    """A text the annotator must accept before any instance (a study's instructions).

    Attributes:
        title: The page's heading.
        text: Markdown.
        digest: sha256 of ``text``, recorded with the answer.
    """

    FIELDS = ("title", "text", "digest")

    title: str
    text: str
    digest: str

    def __init__(self, title: str, text: str, digest: str) -> None:
        self._set(title=title, text=text, digest=digest)


class Gate(FrozenValue):
    """Instances that stay closed for now, and what the annotator is told.

    Attributes:
        locked: Instances that cannot be opened.
        message: Why, shown above the list and when a locked one is chosen.
        final: True when they will not open (the annotator did not qualify).
    """

    FIELDS = ("locked", "message", "final")

    locked: frozenset[int]
    message: str
    final: bool

    def __init__(self, locked: frozenset[int], message: str, final: bool = False) -> None:
        self._set(locked=locked, message=message, final=final)


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
