"""What a submitted instance shows when it is opened again: read-only, never a new attempt.

An instance counts once: its first submission (:mod:`crmtui.play.progress`). Opening it again
(the picker, ``--idx``, a study) shows :class:`SubmittedView`: the answer as submitted, the
time it took and, where the session may show them (free play, practice, a study with
``--reveal-gold``), the reward and the gold answer, with the recording to replay.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from crmtui.play.progress import InstanceStatus
from crmtui.play.timing import format_duration
from crmtui.record.timing import session_times
from crmtui.record.verify import load
from crmtui.scoring.rules import gold_text, metric_label


@dataclass(frozen=True)
class SubmittedView:
    """A submitted instance, read from its counted recording.

    Attributes:
        idx: The instance.
        task: Its task code.
        reward_metric: How it is scored (``exact_match``, ``fuzzy_match`` ...).
        answer: The answer as submitted.
        reward: Its reward (None: unscored).
        scoring: The scoring method.
        gold: The gold answer revealed at the submit.
        submitted_at: Wall time of the submit.
        active_ms: Active time of the attempt.
        path: The recording.
        later: Later submissions of the same instance (old recordings only), not counted.
    """

    idx: int
    task: str
    reward_metric: str
    answer: str
    reward: float | None
    scoring: str
    gold: Any
    submitted_at: str
    active_ms: int
    path: Path
    later: int = 0

    def text(self, reveal: bool, *, show_path: bool = True) -> str:
        """The view as plain lines; ``reveal`` False (a blind study) leaves out the reward
        and the gold answer; ``show_path`` False leaves out where the recording is (a
        browser's annotator: the path is on the server, of no use to them)."""
        when = self.submitted_at.replace("T", " ")[:16] + " UTC"
        lines = [
            f"Instance {self.idx} ({self.task}) was submitted on {when}.",
            "It counts once: it opens read-only, not as a new attempt.",
            "",
            f"Your answer: {self.answer if self.answer else '(empty)'}",
            f"Active time: {format_duration(self.active_ms / 1000)}",
        ]
        if reveal:
            reward = "unscored" if self.reward is None else f"{self.reward:.2f}"
            metric = metric_label(self.reward_metric, self.scoring)
            lines += [f"Reward: {reward} ({metric})", f"Gold answer: {gold_text(self.gold)}"]
        else:
            lines.append("This study is blind: the reward and the gold answer are not shown.")
        if self.later:
            lines.append(f"Later submissions (not counted): {self.later}")
        if show_path:
            lines += ["", f"Recording: {self.path}"]
        return "\n".join(lines)


def submitted_view(status: InstanceStatus) -> SubmittedView:
    """Read the counted submission ``status`` points at.

    Raises:
        RecordingError: The recording cannot be read or fails verification.
    """
    recording = load(status.path)
    submit = recording.submit
    if submit is None:  # the status said submitted: the file changed since
        from crmtui.record.errors import RecordingError

        raise RecordingError("the recording holds no submission", path=status.path)
    payload = submit.payload
    return SubmittedView(
        idx=recording.header["instance"]["idx"],
        task=recording.header["instance"]["task"],
        reward_metric=recording.header["instance"]["reward_metric"],
        answer=payload["answer"],
        reward=payload["reward"],
        scoring=payload["scoring"],
        gold=payload["gold"],
        submitted_at=submit.t,
        active_ms=session_times(recording.events).active_ms,
        path=status.path,
        later=max(0, status.submissions - 1),
    )
