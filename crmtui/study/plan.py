"""One annotator's view of a study, as the play app asks for it (a :class:`PlayPlan`)."""

from __future__ import annotations

from dataclasses import dataclass

from crmtui.play.policy import PickerPolicy, PlayPolicy
from crmtui.record.format import slugify
from crmtui.study.definition import Study


@dataclass(frozen=True)
class StudyPlan:
    """What annotator ``annotator`` of ``study`` sees.

    Practice instances come first and always reveal the reward and gold answer; counted
    instances reveal them only when the study says so (``reveal_gold``). The report key
    opens a report over this annotator's own recordings, and only in a study that
    reveals; in a blind study it is off.
    """

    study: Study
    annotator: str

    @property
    def order(self) -> tuple[int, ...]:
        """Every instance to do, practice first."""
        return self.study.assignment(self.annotator).order

    @property
    def practice(self) -> tuple[int, ...]:
        """The practice instances."""
        return self.study.assignment(self.annotator).practice

    @property
    def counted(self) -> tuple[int, ...]:
        """The counted instances, in order."""
        return self.study.assignment(self.annotator).instances

    @property
    def blind(self) -> bool:
        """Whether counted instances hide the reward and the gold answer."""
        return not self.study.settings.reveal_gold

    def picker(self) -> PickerPolicy:
        """This annotator's instances in their order; counted ones hidden when blind."""
        return PickerPolicy(
            order=self.order,
            hidden=frozenset(self.counted) if self.blind else frozenset(),
            title=f"study {self.study.name}",
            report=not self.blind,
            report_scope=slugify(self.annotator),
        )

    def play(self, idx: int) -> PlayPolicy:
        """Progress within practice or the counted instances, what to reveal, the limit."""
        if idx in self.practice:
            position, total, prefix = self.practice.index(idx) + 1, len(self.practice), "practice "
            reveal = True
        elif idx in self.counted:
            position, total, prefix = self.counted.index(idx) + 1, len(self.counted), ""
            reveal = not self.blind
        else:  # not this annotator's: the app never offers it, but stay blind if asked
            return PlayPolicy(reveal=False, time_limit_s=self.study.settings.time_limit_s)
        return PlayPolicy(
            reveal=reveal,
            progress=f"{prefix}{position} of {total}",
            time_limit_s=self.study.settings.time_limit_s,
        )
