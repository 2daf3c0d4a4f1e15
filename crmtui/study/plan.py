"""One annotator's view of a study, as the play app asks for it (a :class:`PlayPlan`)."""

from __future__ import annotations

from dataclasses import dataclass

from crmtui.play.policy import Gate, Instructions, PickerPolicy, PlayPolicy
from crmtui.record.format import slugify
from crmtui.study import consent
from crmtui.study.definition import Study, StudyError, load_study
from crmtui.study.qualify import PENDING, QUALIFIED, qualification
from crmtui.study.status import scan_recordings


@dataclass(frozen=True)
class StudyPlan:
    """What annotator ``annotator`` of ``study`` sees.

    Practice instances come first and always reveal the reward and gold answer; counted
    instances reveal them only when the study says so (``reveal_gold``). The console's
    query history is the study's own (``history/`` in its folder). The report key
    opens a report over this annotator's own recordings, and only in a study that
    reveals; in a blind study it is off.

    The study's instructions (if it has any) are asked for before anything else, and the
    answer is recorded in ``consent.jsonl``; with ``qualify``, counted instances stay closed
    until the practice qualifies the annotator. Both re-read the study folder when asked,
    so an organizer's ``study set`` takes effect at the annotator's next instance.
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

    @property
    def title(self) -> str:
        """The picker's title: the study, and in a multi-turn study the annotator's role
        and who the other side of their conversations is."""
        role = self.study.role_of(self.annotator)
        if role is None:
            return f"study {self.study.name}"
        return (
            f"study {self.study.name} · you play the {role}, "
            f"talking to {self.study.partner_text(self.annotator)}"
        )

    def picker(self) -> PickerPolicy:
        """This annotator's instances in their order; counted ones hidden when blind."""
        return PickerPolicy(
            order=self.order,
            hidden=frozenset(self.counted) if self.blind else frozenset(),
            title=self.title,
            report=not self.blind,
            report_scope=slugify(self.annotator),
            resume_unasked=True,
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
            return PlayPolicy(
                reveal=False,
                time_limit_s=self.study.settings.time_limit_s,
                history_dir=self.study.history,
            )
        return PlayPolicy(
            reveal=reveal,
            progress=f"{prefix}{position} of {total}",
            time_limit_s=self.study.settings.time_limit_s,
            history_dir=self.study.history,
        )

    # -- instructions and qualification ----------------------------------------------------

    def instructions(self) -> Instructions | None:
        """The study's instructions if this annotator has not accepted their current text.

        Raises:
            StudyError: The instructions or the consent file cannot be read.
        """
        text = consent.read_instructions(self.study)
        if text is None:
            return None
        digest = consent.text_digest(text)
        if consent.has_accepted(self.study, self.annotator, digest):
            return None
        return Instructions(f"Study {self.study.name}: instructions", text, digest)

    def answer_instructions(self, instructions: Instructions, accepted: bool) -> None:
        """Record the answer in the study's ``consent.jsonl``.

        Raises:
            StudyError: It cannot be written.
        """
        consent.record_answer(self.study, self.annotator, instructions.digest, accepted)

    def gate(self) -> Gate | None:
        """The counted instances, closed while the practice has not qualified the annotator.

        Reads this annotator's recordings (a few files) and the definition again, for a
        ``qualify`` changed while the app runs.
        """
        try:
            study = load_study(self.study.folder)
        except StudyError:
            study = self.study
        facts, _ = scan_recordings(study.recordings / slugify(self.annotator))
        standing = qualification(study, self.annotator, facts)
        if standing is None or standing.state == QUALIFIED:
            return None
        return Gate(
            locked=frozenset(study.assignment(self.annotator).instances),
            message=standing.message(),
            final=standing.state != PENDING,
        )
